// The `omnigraph` binary: parses the command line (CLI11) and runs one subcommand.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "cli/remote_commands.h"
#include "common/error_codes.h"
#include "omnigraph/omnigraph.h"

namespace {

// Names an unknown (sub)command, which CLI11 reports only as "The following argument was not
// expected": walks the leading words of the command line through the commands that have
// subcommands. Ok when every such word names one (CLI11 then parses the rest).
omnigraph::Status CheckCommandWords(CLI::App& app, int argc, char** argv) {
  CLI::App* at = &app;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (!word.empty() && word[0] == '-') {
      // a global flag before the verb (`--store G branch list`): skip it and its value
      const std::string flag(word.substr(0, word.find('=')));
      CLI::Option* opt = at == &app ? app.get_option_no_throw(flag) : nullptr;
      if (opt == nullptr) break;  // CLI11 says what is wrong with it
      if (opt->get_expected_min() > 0 && word.find('=') == std::string_view::npos) ++i;
      continue;
    }
    if (word.empty()) break;
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

// The Rust CLI's deprecated spellings, kept working with a warning on stderr: `read` (= query),
// `change` (= mutate), `check --query` (the integrity check has no --query), `query check` and
// `query lint` (= lint). Rewrites argv in place
// (only as the first word, as there).
std::vector<std::string> RewriteDeprecated(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() < 2) return args;
  const std::string sub = args[1];
  if (sub == "query" && args.size() >= 3 && (args[2] == "lint" || args[2] == "check")) {
    std::fprintf(stderr, "warning: `omnigraph query %s` is deprecated; use `omnigraph lint` instead\n",
                 args[2].c_str());
    args.erase(args.begin() + 1);
    args[1] = "lint";
  } else if (sub == "check" && std::any_of(args.begin() + 2, args.end(), [](const std::string& a) {
               return a == "--query" || a.rfind("--query=", 0) == 0;
             })) {
    // Only with lint's --query: a bare `omnigraph check` is the integrity check.
    std::fprintf(stderr, "warning: `omnigraph check` is deprecated; use `omnigraph lint` instead\n");
    args[1] = "lint";
  } else if (sub == "read") {
    std::fprintf(stderr, "warning: `omnigraph read` is deprecated; use `omnigraph query` instead\n");
    args[1] = "query";
  } else if (sub == "change") {
    std::fprintf(stderr, "warning: `omnigraph change` is deprecated; use `omnigraph mutate` instead\n");
    args[1] = "mutate";
  }
  return args;
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
  omnigraph::TuneProcessAllocator();
  CLI::App app{"Omnigraph: a versioned, typed property-graph database", "omnigraph"};
  app.require_subcommand(1);
  AddGlobalFlags(app);
  CommandAction run;
  AddVersionCommand(app, &run);
  AddSelfCheckCommand(app, &run);
  AddInitCommand(app, &run);
  AddLoadCommand(app, &run);
  AddReadCommands(app, &run);
  AddBlobCommands(app, &run);
  AddLintCommand(app, &run);
  AddQueryCommand(app, &run);
  AddRemoteCommands(app, &run);
  AddAliasCommand(app, &run);
  AddEmbedCommand(app, &run);
  AddMutateCommand(app, &run);
  AddBranchCommands(app, &run);
  AddChangesCommands(app, &run);
  AddSchemaCommands(app, &run);
  AddOptimizeCommand(app, &run);
  AddCleanupCommand(app, &run);
  AddCheckCommand(app, &run);
  AddClusterCommands(app, &run);
  AddPolicyCommands(app, &run);
  std::vector<std::string> args = RewriteDeprecated(argc, argv);
  std::vector<char*> arg_ptrs;
  for (std::string& a : args) arg_ptrs.push_back(a.data());
  argc = static_cast<int>(arg_ptrs.size());
  argv = arg_ptrs.data();
  if (argc == 2 && (std::string_view(argv[1]) == "-v" || std::string_view(argv[1]) == "--version")) {
    std::printf("omnigraph %s\n", OG_VERSION);
    return CheckStdout(kExitOk);
  }
  if (argc == 1) {  // as clap: the help on stderr, a usage error
    std::fprintf(stderr, "%s", app.help().c_str());
    return kExitUsage;
  }
  if (std::string_view(argv[1]) == "help") {  // `help [COMMAND...]` = `COMMAND... --help`
    if (argc == 2) {
      std::printf("%s", app.help().c_str());
      return CheckStdout(kExitOk);
    }
    args.erase(args.begin() + 1);
    args.push_back("--help");
    arg_ptrs.clear();
    for (std::string& a : args) arg_ptrs.push_back(a.data());
    argc = static_cast<int>(arg_ptrs.size());
    argv = arg_ptrs.data();
  }
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
  } catch (const std::exception& e) {
    return ReportError(omnigraph::Status(omnigraph::ErrorCode::kInternal, std::string("unexpected error: ") + e.what()),
                       false);
  }
}
