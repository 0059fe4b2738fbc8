// `omnigraph query [NAME] (--query F.gq | -e SRC) [--params JSON | --params-file F]
//  [--branch B | --snapshot COMMIT] [--format table|json|jsonl|csv|kv] [--json] --store URI`.
// Runs through the public API (Database::Query: prepare, bind, execute).
#include <cstdio>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "cli/read_format.h"
#include "cli/remote_commands.h"
#include "common/clock.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/output_json.h"
#include "compiler/diagnostic.h"

namespace omnigraph::cli {
namespace {

struct QueryFlags {
  GraphFlags graph;
  std::string name, file, source, params, params_file, branch, snapshot, format;
  uint64_t max_memory = 0;  // 0 = the default budget (half of the memory the process may use)
};

int RunQuery(const QueryFlags& f) {
  bool json_errors = f.graph.json || f.format == "json";
  if (f.file.empty() == f.source.empty()) {
    return ReportError(UsageError("give the query as --query FILE or -e SOURCE (exactly one)"), json_errors);
  }
  if (!f.params.empty() && !f.params_file.empty()) {
    return ReportError(UsageError("--params and --params-file exclude each other"), json_errors);
  }
  if (!f.branch.empty() && !f.snapshot.empty()) {
    return ReportError(UsageError("--branch and --snapshot exclude each other"), json_errors);
  }
  if (f.graph.json && !f.format.empty()) {
    return ReportError(UsageError("--json and --format exclude each other"), json_errors);
  }
  // The format: --json, --format, else `defaults.output` of the operator config, else table.
  auto settings = f.graph.Settings(f.format.empty() ? std::nullopt : std::optional<std::string>(f.format));
  if (!settings.ok()) return ReportError(settings.status(), json_errors);
  const std::string format = f.graph.json ? "json" : (f.format.empty() ? settings->output : f.format);
  if (format != "table" && format != "json" && format != "jsonl" && format != "csv" && format != "kv") {
    return ReportError(UsageError("unknown --format '" + format + "' (table, kv, csv, jsonl, json)"), json_errors);
  }
  json_errors = json_errors || format == "json";
  ReadRenderOptions render;
  render.max_column_width = settings->table_max_column_width;
  render.cell_layout = settings->table_cell_layout == "wrap" ? CellLayout::kWrap : CellLayout::kTruncate;
  std::string source = f.source;
  if (!f.file.empty()) {
    auto s = ReadFile(f.file, "query file");
    if (!s.ok()) return ReportError(s.status(), json_errors);
    source = *s;
  }
  std::string params = f.params;
  if (!f.params_file.empty()) {
    auto p = ReadFile(f.params_file, "params file");
    if (!p.ok()) return ReportError(p.status(), json_errors);
    params = *p;
  }
  std::string branch = f.branch.empty() ? "main" : f.branch;
  if (auto rc = RemoteQuery(f.graph, {source, f.name, params, branch, f.snapshot, format, render})) return *rc;
  auto g = OpenGraph(f.graph, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), json_errors);
  ReadTarget at = f.snapshot.empty() ? ReadTarget::Head(branch) : ReadTarget::SnapshotId(f.snapshot);
  std::optional<std::string> name;
  if (!f.name.empty()) name = f.name;
  QueryOptions options;
  options.max_memory_bytes = f.max_memory;
  auto result = (*g)->Query(source, params, at, name, options);
  if (!result.ok()) {
    if (!json_errors && result.status().span()) {  // a compile error: point at the source
      std::fprintf(stderr, "%s", compiler::RenderDiagnostic(result.status(), source, f.file).c_str());
      return ExitCodeFor(result.status());
    }
    return ReportError(result.status(), json_errors);
  }
  ReadTargetText target{branch, f.snapshot};
  std::fputs(RenderRead(*result, target, format, render).c_str(), stdout);
  return kExitOk;
}

}  // namespace

void AddQueryCommand(CLI::App& app, CommandAction* run) {
  auto* cmd = app.add_subcommand("query", "Run a read query");
  cmd->alias("read");  // the Rust CLI's old name (as the first word it also warns, main.cc)
  auto f = std::make_shared<QueryFlags>();
  cmd->add_option("name", f->name, "Query to run when the source holds several");
  cmd->add_option("--query", f->file, "Query file (.gq)");
  cmd->add_option("-e,--query-string", f->source, "Query source text");
  cmd->add_option("--params", f->params, "Parameters as a JSON object");
  cmd->add_option("--params-file", f->params_file, "Parameters from a JSON file");
  cmd->add_option("--branch", f->branch, "Branch (default main)");
  cmd->add_option("--snapshot,--commit", f->snapshot,
                  "Snapshot id (BRANCH@VERSION@INCARNATION) or commit id to read at");
  cmd->add_option("--format", f->format, "table | json | jsonl | csv | kv");
  cmd->add_option("--max-memory", f->max_memory,
                  "Fail (resource_limit) when the query would hold more than this: rows in flight and kept for "
                  "the result (default: half of physical memory)")
      ->transform(SizeValue());
  AddGraphFlags(cmd, &f->graph, /*positional=*/false);
  cmd->callback([=] { *run = [=] { return RunQuery(*f); }; });
}

}  // namespace omnigraph::cli
