// `omnigraph query [NAME] (--query F.gq | -e SRC) [--params JSON | --params-file F]
//  [--branch B | --snapshot COMMIT] [--format table|json|jsonl|csv|kv] [--json] --store URI`.
// Runs through the public API (Database::Query: prepare, bind, execute).
#include <cmath>
#include <cstdio>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "cli/table_layout.h"
#include "common/clock.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/output_json.h"
#include "compiler/diagnostic.h"

namespace omnigraph::cli {
namespace {

// Query results use the same JSON spelling as change images (common/output_json.h).
Json CellJson(const Value& v) { return ValueToJson(v); }

std::string CellText(const Value& v) {
  if (v.is_null()) return "";
  if (v.kind() == TypeKind::kString) return v.string_value();
  Json j = CellJson(v);
  return j.is_string() ? j.get<std::string>() : j.dump();
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void Print(const QueryRows& r, const std::string& format, const Json& meta) {
  if (format == "json") {
    Json rows = Json::array();
    for (const auto& row : r.rows) {
      Json o = Json::object();
      for (size_t c = 0; c < r.columns.size(); ++c) o[r.columns[c]] = CellJson(row[c]);
      rows.push_back(o);
    }
    Json j = meta;
    j["columns"] = r.columns;
    j["rows"] = rows;
    std::printf("%s\n", j.dump(2).c_str());
  } else if (format == "jsonl") {
    Json m = meta;
    m.erase("graph_commit_id");
    m["kind"] = "metadata";
    std::printf("%s\n", m.dump().c_str());
    for (const auto& row : r.rows) {
      Json o = Json::object();
      for (size_t c = 0; c < r.columns.size(); ++c) o[r.columns[c]] = CellJson(row[c]);
      std::printf("%s\n", o.dump().c_str());
    }
  } else if (format == "csv") {
    for (size_t c = 0; c < r.columns.size(); ++c) std::printf("%s%s", c ? "," : "", CsvField(r.columns[c]).c_str());
    std::printf("\n");
    for (const auto& row : r.rows) {
      for (size_t c = 0; c < row.size(); ++c) std::printf("%s%s", c ? "," : "", CsvField(CellText(row[c])).c_str());
      std::printf("\n");
    }
  } else if (format == "kv") {
    for (size_t i = 0; i < r.rows.size(); ++i) {
      if (i) std::printf("\n");
      for (size_t c = 0; c < r.columns.size(); ++c) {
        std::printf("%s: %s\n", r.columns[c].c_str(), CellText(r.rows[i][c]).c_str());
      }
    }
  } else {  // table, fit to the terminal's width (table_layout.h)
    std::vector<std::vector<std::string>> cells;
    cells.reserve(r.rows.size());
    for (const auto& row : r.rows) {
      std::vector<std::string> line;
      for (const auto& v : row) line.push_back(CellText(v));
      cells.push_back(std::move(line));
    }
    std::fputs(RenderTable(r.columns, cells, OutputWidth()).c_str(), stdout);
  }
}

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
  std::string format = f.graph.json ? "json" : (f.format.empty() ? "table" : f.format);
  if (format != "table" && format != "json" && format != "jsonl" && format != "csv" && format != "kv") {
    return ReportError(UsageError("unknown --format '" + format + "' (table, json, jsonl, csv, kv)"), json_errors);
  }
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
  auto g = OpenGraph(f.graph, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), json_errors);
  std::string branch = f.branch.empty() ? "main" : f.branch;
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
  Json target = f.snapshot.empty() ? Json{{"branch", branch}} : Json{{"snapshot", f.snapshot}};
  Json meta = {{"query_name", result->query_name},
               {"target", target},
               {"row_count", result->rows.size()},
               {"graph_commit_id", result->commit_id}};
  Print(*result, format, meta);
  return kExitOk;
}

}  // namespace

void AddQueryCommand(CLI::App& app, CommandAction* run) {
  auto* cmd = app.add_subcommand("query", "Run a read query");
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
