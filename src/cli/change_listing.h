// Change listing output shared by the local commands (command_changes.cc) and their remote forms
// (remote_changes.cc): the filter flags, the JSON of blocks written one change at a time, the text
// of causes and changes, the feed printer of `changes poll`, and the durable installation of a
// baseline file. Blocks are given as their output JSON (common/output_json.h: a cause is
// ChangeCauseOutputJson, a change EntityChangeOutputJson; the server answers the same shapes), so
// a served listing prints byte for byte what the local command prints.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/cli_graph.h"
#include "common/json.h"

#include "omnigraph/omnigraph.h"
#include "omnigraph/result.h"

namespace omnigraph::cli {

// --kind, --type, --op (repeatable), as given on the command line.
struct ChangeFilterFlags {
  std::vector<std::string> kinds, types, ops;

  // The filter; InvalidArgument for an unknown kind or op.
  Result<ChangeFilter> Build() const;
};
void AddChangeFilterFlags(CLI::App* cmd, ChangeFilterFlags* f);

// Change `i` of a block, as its output JSON.
using ChangeAt = std::function<OrderedJson(size_t i)>;

// {"cause", "changes", "next_page_token"?} as dump(2) prints it, placed `indent` spaces deep in an
// enclosing pretty document, written to stdout one change at a time.
void OutBlockJson(const OrderedJson& cause, size_t count, const ChangeAt& change_at, size_t indent,
                  const std::optional<std::string>& next_page_token = std::nullopt);

// Text, as the Rust CLI's (output.rs print_change_cause_human, print_entity_change_row): the
// cause's `commit:`, `branch:`, `parent:`, `merged_parent:`, `actor:`, `authored_at:` lines, and
// one change's `op kind Type id` line, its endpoints and its property lines.
void PrintCauseText(const OrderedJson& cause);
void PrintChangeRowText(const OrderedJson& change);

// `commit changes`: the block as one document (--json) or its text, then the next page's token
// when one page was asked for and more remain.
void PrintCommitChanges(bool json, const OrderedJson& cause, size_t count, const ChangeAt& change_at,
                        const std::optional<std::string>& next_page_token);

// Prints a poll's blocks as they arrive, then its cursor: the Rust ChangeFeedOutput `{blocks:
// [{cause, changes}], cursor, caught_up}` (without next_page_token), or its text.
class FeedPrinter {
 public:
  explicit FeedPrinter(bool json) : json_(json) {}

  bool started() const { return blocks_ > 0; }
  void Block(const OrderedJson& cause, size_t count, const ChangeAt& change_at);
  void Finish(const std::string& cursor, bool caught_up);

 private:
  bool json_;
  size_t blocks_ = 0;
};

// Receives the lines of a baseline snapshot (without their newline).
using BaselineLineSink = std::function<Status(std::string_view line)>;
// Writes the lines `capture` produces to `path` and returns the handshake `capture` returns; the
// handshake is returned only once the snapshot is durably at `path`, so a printed cursor always
// has its snapshot. Cooperating captures of one path take `path.lock`; the lines go to a fresh
// temp file beside `path`, which is fsynced, renamed over `path` and its directory fsynced. On
// any failure (`capture`'s included) `path` is untouched and the temp file removed.
Result<ChangeBaseline> InstallBaseline(const std::string& path,
                                       const std::function<Result<ChangeBaseline>(const BaselineLineSink&)>& capture);
// The output of `changes baseline`: {snapshot_commit_id, resume_cursor}, or its text.
void PrintBaseline(bool json, const std::string& path, const ChangeBaseline& baseline);

// The change commands over HTTP (docs/cli.md, "Remote graphs"): nullopt when the flags address
// local storage, else the exit code. The flags are checked already (filters, --limit).
std::optional<int> RemoteCommitChanges(const GraphFlags& flags, const std::string& id, const ChangeFilterFlags& ff,
                                       size_t limit, const std::optional<std::string>& page_token);
struct RemotePollArgs {
  std::string branch, start, cursor;  // cursor: "" when --start applies
  size_t limit = 0;
};
std::optional<int> RemoteChangesPoll(const GraphFlags& flags, const RemotePollArgs& args, const ChangeFilterFlags& ff);
std::optional<int> RemoteChangesBaseline(const GraphFlags& flags, const std::string& branch,
                                         const ChangeFilterFlags& ff, const std::string& out);

}  // namespace omnigraph::cli
