// The `omnigraph` binary: parses the command line (CLI11) and runs one subcommand.
#include <cerrno>
#include <cstdio>
#include <new>
#include <string>
#include <string_view>

#include "cli/cli_util.h"
#include "common/error_codes.h"

namespace {

// Names an unknown (sub)command, which CLI11 reports only as "The following argument was not
// expected": walks the leading words of the command line through the commands that have
// subcommands. Ok when every such word names one (CLI11 then parses the rest).
omnigraph::Status CheckCommandWords(CLI::App& app, int argc, char** argv) {
  CLI::App* at = &app;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word.empty() || word[0] == '-') break;  // a flag: CLI11 says what is wrong with it
    auto all = at->get_subcommands([](CLI::App*) { return true; });
    if (all.empty()) break;  // the words from here are this command's arguments
    auto found = at->get_subcommands([&](CLI::App* a) { return a->check_name(std::string(word)); });
    if (found.empty()) {
      std::string names;
      for (CLI::App* a : all) names += (names.empty() ? "" : ", ") + a->get_name();
      return omnigraph::cli::UsageError("unknown command `" + path + std::string(word) + "` (commands" +
                                        (path.empty() ? "" : " of `" + path.substr(0, path.size() - 1) + "`") + ": " +
                                        names + "; see --help)");
    }
    path += std::string(word) + " ";
    at = found.front();
  }
  return omnigraph::Status::Ok();
}

// A failed write to stdout (a full disk behind a redirect, /dev/full, a closed pipe) is an error
// of the command, not a silent exit 0.
// (A command that failed already reported its own error.)
int CheckStdout(int rc) {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return rc;
  if (rc != omnigraph::cli::kExitOk) return rc;
  const int err = errno != 0 ? errno : EIO;
  return omnigraph::cli::ReportError(omnigraph::ErrnoError("writing standard output", err), false);
}

}  // namespace

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
  if (auto words = CheckCommandWords(app, argc, argv); !words.ok()) return ReportError(words, false);
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
    return CheckStdout(run());
  } catch (const std::bad_alloc&) {
    return ReportError(omnigraph::Status(omnigraph::ErrorCode::kResourceExhausted, "out of memory"), false);
  }
}
