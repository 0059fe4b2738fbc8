// `omnigraph lint --schema S.pg --query Q.gq [--json]`: checks files offline, before any graph
// exists. Exits non-zero only when there are errors (warnings are fine).
#include <cstdio>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "compiler/lint.h"

namespace omnigraph::cli {

void AddLintCommand(CLI::App& app, CommandAction* run) {
  auto* cmd = app.add_subcommand("lint", "Check a schema and a query file without a graph");
  auto schema = std::make_shared<std::string>();
  auto query = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("--schema", *schema, "Schema file (.pg)")->required();
  cmd->add_option("--query", *query, "Query file (.gq)")->required();
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->callback([=] {
    *run = [=]() -> int {
      auto s = ReadFile(*schema, "schema");
      if (!s.ok()) return ReportError(s.status(), *json);
      auto q = ReadFile(*query, "query file");
      if (!q.ok()) return ReportError(q.status(), *json);
      compiler::LintOptions o;
      o.schema_path = *schema;
      o.query_path = *query;
      compiler::LintReport report = compiler::LintSources(*s, *q, o);
      if (*json) {
        std::printf("%s\n", compiler::LintReportJson(report).c_str());
      } else {
        std::fputs(compiler::LintReportText(report, *s, *q).c_str(), stdout);
      }
      return report.ok ? kExitOk : kExitError;
    };
  });
}

}  // namespace omnigraph::cli
