// `omnigraph mutate [NAME] [URI] (--query F.gq | -e SRC) [--params JSON | --params-file F]
//  [--branch B] [--if-commit ID] [--as A] [--json] [--store URI]`: runs one mutation query as one
// atomic commit (Database::Mutate). With one positional argument it is the URI unless --store
// is given (then it is the query name); with two, NAME then URI.
#include <cstdio>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "cli/remote_commands.h"
#include "common/api_json.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/output_json.h"
#include "compiler/diagnostic.h"

namespace omnigraph::cli {
namespace {

struct MutateFlags {
  GraphFlags graph;
  std::vector<std::string> positional;
  std::string file, source, params, params_file, branch = "main", if_commit;
};

// The published commit (the shape of `commit list --json` entries).
int PrintMutationError(const Status& s, bool json, const std::string& source, const std::string& file) {
  if (json) return ReportError(s, json);
  if (s.span()) {
    std::fprintf(stderr, "%s", compiler::RenderDiagnostic(s, source, file).c_str());
    return ExitCodeFor(s);
  }
  std::fprintf(stderr, "error[%.*s]: %s\n", static_cast<int>(s.code_string().size()), s.code_string().data(),
               s.message().c_str());
  if (s.errors().size() > 1) {
    for (const ErrorItem& e : s.errors()) {
      std::fprintf(stderr, "  statement %llu: [%.*s] %s\n", static_cast<unsigned long long>(e.statement.value_or(0)),
                   static_cast<int>(ErrorCodeName(e.code).size()), ErrorCodeName(e.code).data(), e.message.c_str());
    }
  }
  return ExitCodeFor(s);
}

int RunMutate(MutateFlags f) {
  bool json = f.graph.json;
  if (f.positional.size() > 2) {
    return ReportError(UsageError("mutate takes at most two arguments: [NAME] [URI]"), json);
  }
  std::string name;
  if (f.positional.size() == 2) {
    name = f.positional[0];
    f.graph.positional_uri = f.positional[1];
  } else if (f.positional.size() == 1) {
    (Globals().store.empty() && Globals().server.empty() ? f.graph.positional_uri : name) = f.positional[0];
  }
  if (f.file.empty() == f.source.empty()) {
    return ReportError(UsageError("give the mutation as --query FILE or -e SOURCE (exactly one)"), json);
  }
  if (!f.params.empty() && !f.params_file.empty()) {
    return ReportError(UsageError("--params and --params-file exclude each other"), json);
  }
  std::string source = f.source;
  if (!f.file.empty()) {
    auto s = ReadFile(f.file, "query file");
    if (!s.ok()) return ReportError(s.status(), json);
    source = *s;
  }
  std::string params = f.params;
  if (!f.params_file.empty()) {
    auto p = ReadFile(f.params_file, "params file");
    if (!p.ok()) return ReportError(p.status(), json);
    params = *p;
  }
  if (auto rc = RemoteMutate(f.graph, source, name, params, f.branch, f.if_commit)) return *rc;
  auto g = OpenGraph(f.graph, /*writable=*/true);
  if (!g.ok()) return ReportError(g.status(), json);
  std::optional<std::string> query_name, if_commit;
  if (!name.empty()) query_name = name;
  if (!f.if_commit.empty()) if_commit = f.if_commit;
  auto r = (*g)->Mutate(source, params, f.branch, query_name, if_commit);
  if (!r.ok()) return PrintMutationError(r.status(), json, source, f.file);
  if (json) {  // the Rust CLI's ChangeOutput
    PrintJson(ChangeOutputJson(f.branch, *r, (*g)->actor()));
    return kExitOk;
  }
  // The Rust CLI's lines, then what we add: the commit, or that nothing was published.
  std::printf("changed %s via %s: %llu nodes, %llu edges\n", f.branch.c_str(), r->query_name.c_str(),
              static_cast<unsigned long long>(r->affected_nodes), static_cast<unsigned long long>(r->affected_edges));
  if ((*g)->actor()) std::printf("actor_id: %s\n", (*g)->actor()->c_str());
  if (r->committed) {
    std::printf("commit: %s (version %llu)\n", r->commit_id.c_str(), static_cast<unsigned long long>(r->version));
  } else {
    std::printf("nothing changed: no commit\n");
  }
  return kExitOk;
}

}  // namespace

void AddMutateCommand(CLI::App& app, CommandAction* run) {
  auto* cmd = app.add_subcommand("mutate", "Run a mutation query as one atomic commit");
  cmd->alias("change");  // the Rust CLI's old name (as the first word it also warns, main.cc)
  auto f = std::make_shared<MutateFlags>();
  cmd->add_option("args", f->positional, "[NAME] [URI]: the query to run (multi-query source) and the graph");
  cmd->add_option("--query", f->file, "Query file (.gq)");
  cmd->add_option("-e,--query-string", f->source, "Query source text");
  cmd->add_option("--params", f->params, "Parameters as a JSON object");
  cmd->add_option("--params-file", f->params_file, "Parameters from a JSON file");
  cmd->add_option("--branch", f->branch, "Branch to write (default main)");
  cmd->add_option("--if-commit", f->if_commit, "Only write if the branch head is this commit (else exit 4)");
  AddGraphFlags(cmd, &f->graph, /*positional=*/false);
  cmd->callback([=] { *run = [=] { return RunMutate(*f); }; });
}

}  // namespace omnigraph::cli
