// Shared helpers of the `omnigraph` command line: exit codes (docs/cli.md), error printing, and
// the command registry each subcommand file adds itself to.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "common/json.h"

#include "omnigraph/result.h"
#include "omnigraph/status.h"

namespace omnigraph::cli {

// Exit codes (docs/cli.md). Only the CLI maps Status categories to exit codes.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitPrecondition = 4;

int ExitCodeFor(const Status& status);

// A usage error (code `usage_error`): ReportError prints it like any error and ExitCodeFor maps it
// to kExitUsage (2). For a command line that is wrong in itself: a missing or conflicting
// argument, an unknown flag value (`--format`, `--mode`).
Status UsageError(std::string message);
// `status` (not ok) as a usage error with the same message, e.g. the InvalidArgument of a parser
// of flag values: `ReportError(AsUsageError(m.status()), json)`.
Status AsUsageError(const Status& status);

// A CLI11 transform for SIZE flags: a positive whole number of bytes with an optional k, m, g or t
// suffix (powers of 1024; also kb/kib, case-insensitive). Zero, negative, fractional, malformed or
// overflowing values are rejected by CLI11 (a usage error, exit 2). Replaces CLI::AsSizeValue,
// which accepts "0" and wraps "-5" around.
CLI::Validator SizeValue();
// The parser behind SizeValue: the byte count, or a message saying why `text` is not a size.
Result<uint64_t> ParseSize(std::string_view text);

// Prints `j` pretty (two-space indent, keys in insertion order) and a newline on stdout, as the
// Rust CLI prints every JSON document.
void PrintJson(const OrderedJson& j);

// Prints "error[<code>]: <message>" (and the span) to stderr, or a JSON object when `json`.
// Returns the exit code for `status`.
int ReportError(const Status& status, bool json);

// Each subcommand registers a setup function that adds itself to the app and stores the action to
// run in `*run` when it is selected.
using CommandAction = std::function<int()>;
void AddVersionCommand(CLI::App& app, CommandAction* run);
void AddSelfCheckCommand(CLI::App& app, CommandAction* run);
void AddInitCommand(CLI::App& app, CommandAction* run);
void AddLoadCommand(CLI::App& app, CommandAction* run);
void AddReadCommands(CLI::App& app, CommandAction* run);  // export, snapshot, commit list/show
void AddLintCommand(CLI::App& app, CommandAction* run);
void AddQueryCommand(CLI::App& app, CommandAction* run);
void AddMutateCommand(CLI::App& app, CommandAction* run);
void AddBranchCommands(CLI::App& app, CommandAction* run);   // branch create/list/delete/merge
void AddChangesCommands(CLI::App& app, CommandAction* run);  // changes poll/baseline, diff
void AddOptimizeCommand(CLI::App& app, CommandAction* run);
void AddCleanupCommand(CLI::App& app, CommandAction* run);
void AddClusterCommands(CLI::App& app,
                        CommandAction* run);  // cluster validate/import/plan/apply/approve/status/refresh/force-unlock
void AddPolicyCommands(CLI::App& app, CommandAction* run);  // policy validate/test/explain, queries validate/list
void AddCheckCommand(CLI::App& app, CommandAction* run);    // the integrity check
void AddBlobCommands(CLI::App& app, CommandAction* run);    // blob get/stat
void AddSchemaCommands(CLI::App& app, CommandAction* run);  // schema show (alias get), plan, apply
void AddCommitChangesCommand(CLI::App* commit, CommandAction* run);  // commit changes
void AddAliasCommand(CLI::App& app, CommandAction* run);             // alias NAME [ARGS...]: a stored query
void AddEmbedCommand(CLI::App& app, CommandAction* run);             // embed: offline seed JSONL embeddings

}  // namespace omnigraph::cli
