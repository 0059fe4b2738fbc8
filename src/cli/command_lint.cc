// `omnigraph lint [URI] --query Q.gq [--schema S.pg] [--json]`: checks a query file against a
// schema file (offline, before any graph exists; a URI is then ignored) or, without --schema,
// against the schema of a graph's `main` head (positional URI, --store, --profile or the operator
// defaults). Output as the Rust CLI's QueryLintOutput (JSON) or its OK/ERROR/WARN/INFO lines (each
// error also rendered with its source line on stderr).
// Exits 1 only when there are errors (warnings are fine). The deprecated spellings `check --query`
// (a bare `check` is the integrity check), `query lint` and `query check` become `lint` in main.cc.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "cli/operator_config.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "compiler/diagnostic.h"
#include "compiler/lint.h"

namespace omnigraph::cli {
namespace {

struct LintFlags {
  GraphFlags graph;
  std::string query, schema;
};

// The Rust CLI's addressing guard (planes.rs) for `lint`, a direct command: --server and --as do
// not apply (--cluster, --graph, --store and --profile do).
Status GuardLintScope() {
  auto reject = [](std::string_view clause) {
    return InvalidArgumentError("`lint` is a direct (storage-native) command; " + std::string(clause) +
                                " and does not apply. Pass a storage URI.");
  };
  if (!Globals().server.empty()) return reject("--server addresses a served graph");
  if (!Globals().actor.empty()) {
    return reject("--as sets the actor for a direct-engine or actor-bound cluster operation");
  }
  return Status::Ok();
}

// The graph whose schema a lint without --schema reads: its URI as the user gave it (the JSON's
// schema_source.uri) and its schema source at the head of main.
Result<std::pair<std::string, std::string>> GraphSchema(const GraphFlags& flags) {
  const GlobalFlags& g = Globals();
  if (flags.positional_uri.empty() && g.store.empty() && g.cluster.empty() && g.server.empty()) {
    OG_ASSIGN_OR_RETURN(OperatorSettings settings, flags.Settings(std::nullopt));
    if (settings.scope == ScopeKind::kNone) {
      return InvalidArgumentError(
          "lint requires --schema <schema.pg> (offline) or a graph target (--store <uri> / --cluster <dir> --graph "
          "<id>)");
    }
  }
  OG_ASSIGN_OR_RETURN(std::string uri, flags.Uri());
  if (uri.starts_with("http://") || uri.starts_with("https://")) {
    return InvalidArgumentError(
        "`lint` is a direct (storage-native) command and needs direct storage access; the resolved target is a "
        "remote server (URL). Pass the graph's file:// or s3:// URI.");
  }
  OG_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, OpenGraph(flags, /*writable=*/false));
  OG_ASSIGN_OR_RETURN(std::string source, db->SchemaSource(ReadTarget::Head("main")));
  return std::make_pair(std::move(uri), std::move(source));
}

std::string At(const std::optional<SourceSpan>& span) {
  if (!span) return "";
  return " (at " + std::to_string(span->line) + ":" + std::to_string(span->column) + ")";
}

OrderedJson TypeRefsJson(const std::vector<compiler::IrTypeRef>& refs) {
  OrderedJson out = OrderedJson::array();
  for (const auto& r : refs) {
    OrderedJson o = OrderedJson::object();
    o["kind"] = r.kind == compiler::VarKind::kNode ? "node" : "edge";
    o["type_name"] = r.type_name;
    out.push_back(std::move(o));
  }
  return out;
}

// QueryLintOutput in the Rust key order; ours adds `error_code` after a query's `error` and the
// `line`/`column` of a finding with a source position.
OrderedJson LintJson(const compiler::LintReport& report, OrderedJson schema_source) {
  OrderedJson j = OrderedJson::object();
  j["status"] = report.ok ? "ok" : "error";
  j["schema_source"] = std::move(schema_source);
  j["query_path"] = report.query_path;
  j["queries_processed"] = report.queries_processed;
  j["errors"] = report.errors;
  j["warnings"] = report.warnings;
  j["infos"] = report.infos;
  OrderedJson results = OrderedJson::array();
  for (const compiler::LintQueryResult& r : report.results) {
    OrderedJson q = OrderedJson::object();
    q["name"] = r.name;
    q["kind"] = r.is_mutation ? "mutation" : "read";
    q["status"] = r.ok ? "ok" : "error";
    if (!r.warnings.empty()) q["warnings"] = r.warnings;
    if (!r.ok) {
      q["error"] = r.error;
      q["error_code"] = r.error_code;
    }
    if (r.operation) {
      OrderedJson columns = OrderedJson::array();
      for (const compiler::ResultColumn& c : r.operation->result) {
        OrderedJson col = OrderedJson::object();
        col["name"] = c.name;
        col["kind"] = c.kind;
        if (c.item_kind) col["item_kind"] = *c.item_kind;
        if (c.vector_dim) col["vector_dim"] = *c.vector_dim;
        col["nullable"] = c.nullable;
        columns.push_back(std::move(col));
      }
      OrderedJson op = OrderedJson::object();
      op["result"] = std::move(columns);
      op["reads"] = TypeRefsJson(r.operation->reads);
      op["writes"] = TypeRefsJson(r.operation->writes);
      q["operation"] = std::move(op);
    }
    results.push_back(std::move(q));
  }
  j["results"] = std::move(results);
  OrderedJson findings = OrderedJson::array();
  for (const compiler::LintFinding& f : report.findings) {
    OrderedJson o = OrderedJson::object();
    o["severity"] = f.severity;
    o["code"] = f.code;
    o["message"] = f.message;
    if (!f.type_name.empty()) o["type_name"] = f.type_name;
    if (!f.property.empty()) o["property"] = f.property;
    if (!f.query_names.empty()) o["query_names"] = f.query_names;
    if (f.span) {
      o["line"] = f.span->line;
      o["column"] = f.span->column;
    }
    findings.push_back(std::move(o));
  }
  j["findings"] = std::move(findings);
  return j;
}

// The Rust CLI's human lines: per query `OK    query `q` (read)` or `ERROR query `q`: ...` and
// its warnings, then the findings, then the summary. An error finding (a parse or schema error)
// carries its code and position, as a query's error does.
std::string LintText(const compiler::LintReport& report) {
  std::string out;
  for (const compiler::LintQueryResult& r : report.results) {
    if (r.ok) {
      out += "OK    query `" + r.name + "` (" + (r.is_mutation ? "mutation" : "read") + ")\n";
    } else {
      out += "ERROR query `" + r.name + "`: " + r.error + "\n";
    }
    for (const std::string& w : r.warnings) out += "WARN  query `" + r.name + "`: " + w + "\n";
  }
  for (const compiler::LintFinding& f : report.findings) {
    if (f.severity == "error") {
      out += "ERROR " + f.code + ": " + f.message + At(f.span) + "\n";
    } else {
      out += (f.severity == "warning" ? "WARN  " : "INFO  ") + f.message + "\n";
    }
  }
  out += "INFO  Lint complete: " + std::to_string(report.queries_processed) + " queries processed (" +
         std::to_string(report.errors) + " error(s), " + std::to_string(report.warnings) + " warning(s), " +
         std::to_string(report.infos) + " info item(s))\n";
  return out;
}

int RunLint(const LintFlags& f) {
  const bool json = f.graph.json;
  if (Status s = GuardLintScope(); !s.ok()) return ReportError(s, json);
  std::string schema_source;
  OrderedJson source_json = OrderedJson::object();
  if (!f.schema.empty()) {  // offline: any graph address is ignored
    auto s = ReadFile(f.schema, "schema");
    if (!s.ok()) return ReportError(s.status(), json);
    schema_source = std::move(*s);
    source_json["kind"] = "file";
    source_json["path"] = f.schema;
  } else {
    auto g = GraphSchema(f.graph);
    if (!g.ok()) return ReportError(g.status(), json);
    source_json["kind"] = "graph";
    source_json["uri"] = g->first;
    schema_source = std::move(g->second);
  }
  auto q = ReadFile(f.query, "query file");
  if (!q.ok()) return ReportError(q.status(), json);
  compiler::LintOptions o;
  o.schema_path = f.schema;
  o.query_path = f.query;
  const compiler::LintReport report = compiler::LintSources(schema_source, *q, o);
  if (json) {
    const OrderedJson j = LintJson(report, std::move(source_json));
    std::printf("%s\n", j.dump(2, ' ', false, OrderedJson::error_handler_t::replace).c_str());
  } else {
    // Ours besides the Rust lines: each error rendered on stderr with its source line and caret.
    for (const compiler::LintFinding& finding : report.findings) {
      if (finding.status.ok()) continue;
      std::fputs(compiler::RenderDiagnostic(finding.status, finding.in_schema ? schema_source : *q,
                                            finding.in_schema ? f.schema : f.query)
                     .c_str(),
                 stderr);
    }
    for (const compiler::LintQueryResult& r : report.results) {
      if (!r.ok) std::fputs(compiler::RenderDiagnostic(r.status, *q, f.query).c_str(), stderr);
    }
    std::fputs(LintText(report).c_str(), stdout);
  }
  return report.ok ? kExitOk : kExitError;
}

}  // namespace

void AddLintCommand(CLI::App& app, CommandAction* run) {
  auto* cmd = app.add_subcommand("lint", "Check a query file against a schema file or a graph's schema");
  auto f = std::make_shared<LintFlags>();
  cmd->add_option("--query", f->query, "Query file (.gq)")->required();
  cmd->add_option("--schema", f->schema, "Schema file (.pg): lint offline, without a graph");
  AddGraphFlags(cmd, &f->graph, /*positional=*/true);
  cmd->callback([=] { *run = [=] { return RunLint(*f); }; });
}

}  // namespace omnigraph::cli
