// The `omnigraph` binary: parses the command line (CLI11) and runs one subcommand.
#include <cstdio>
#include <new>

#include "cli/cli_util.h"

int main(int argc, char** argv) {
  using namespace omnigraph::cli;
  CLI::App app{"Omnigraph: a versioned, typed property-graph database"};
  app.require_subcommand(1);
  CommandAction run;
  AddVersionCommand(app, &run);
  AddSelfCheckCommand(app, &run);
  AddInitCommand(app, &run);
  AddLoadCommand(app, &run);
  AddReadCommands(app, &run);
  AddLintCommand(app, &run);
  AddQueryCommand(app, &run);
  AddMutateCommand(app, &run);
  AddBranchCommands(app, &run);
  AddChangesCommands(app, &run);
  AddOptimizeCommand(app, &run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  if (!run) return kExitUsage;
  // The engine bounds its memory (budgets, `resource_limit`); an allocation that fails anyway is
  // reported like one, never an abort.
  try {
    return run();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "error[resource_limit]: out of memory\n");
    return kExitError;
  }
}
