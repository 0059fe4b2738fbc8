// Change listing (docs/cli.md "Change listing"): `commit changes ID`, `changes poll`, `changes
// baseline --out PATH`, and our `diff FROM TO`, on the public API's CommitChanges /
// PageCommitChanges, PollChanges, CaptureChangeBaseline and Diff; over a server the first three go
// to its change routes (remote_changes.cc). Output as the Rust CLI's
// (crates/omnigraph-cli/src/output.rs): its cause and change shapes, pretty JSON, and its text
// (change_listing.h).
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/change_listing.h"
#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/output_json.h"

namespace omnigraph::cli {
namespace {

// The commits one `changes poll` page examines at most (the Rust engine's default; its CLI has no
// flag for it). Past them the poll ends with caught_up false.
constexpr size_t kCommitsPerPage = 128;

Status CheckLimit(size_t limit) {
  if (limit >= 1 && limit <= kMaxChangesPerPage) return Status::Ok();
  return UsageError("--limit is the changes per page: 1 to " + std::to_string(kMaxChangesPerPage) + ", not " +
                    std::to_string(limit));
}

// The changes of a block as output JSON, one at a time.
ChangeAt LocalChanges(const std::vector<EntityChange>& changes) {
  return [&changes](size_t i) { return EntityChangeOutputJson(changes[i]); };
}

// ---- commit changes ---------------------------------------------------------------------------

// Without --page-token: every change in one document, `{cause, changes}` (the Rust CLI follows its
// pages and prints them as one; our listing of a commit is whole already, so the pages' sum is
// read at once). With --page-token: that one page, and its next_page_token unless it is the last;
// an empty token names the first page (ours: the Rust CLI has no way to print a first token).
int RunCommitChanges(const GraphFlags& flags, const std::string& id, const ChangeFilterFlags& ff, size_t limit,
                     const std::optional<std::string>& page_token) {
  auto filter = ff.Build();
  if (!filter.ok()) return ReportError(AsUsageError(filter.status()), flags.json);
  if (Status s = CheckLimit(limit); !s.ok()) return ReportError(s, flags.json);
  if (auto rc = RemoteCommitChanges(flags, id, ff, limit, page_token)) return *rc;
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  ChangeBlock block;
  std::optional<std::string> next_page_token;
  if (page_token) {
    CommitChangesPageRequest request{*filter, limit, std::nullopt};
    if (!page_token->empty()) request.page_token = *page_token;
    auto page = (*g)->PageCommitChanges(id, request);
    if (!page.ok()) return ReportError(page.status(), flags.json);
    block = std::move(page->block);
    next_page_token = std::move(page->next_page_token);
  } else {
    auto whole = (*g)->CommitChanges(id, *filter);
    if (!whole.ok()) return ReportError(whole.status(), flags.json);
    block = std::move(*whole);
  }
  PrintCommitChanges(flags.json, ChangeCauseOutputJson(block.commit), block.changes.size(), LocalChanges(block.changes),
                     next_page_token);
  return kExitOk;
}

// ---- changes poll -----------------------------------------------------------------------------

// Where a Rust poll ends. Its pages hold at most --limit changes and examine at most 128 commits;
// a block that does not fit goes on over the next pages (a page token, no cursor), and the CLI
// follows them, but a page that ends at a block boundary (its changes spent, or 128 commits
// examined) while commits remain is terminal: the cursor is printed there, with caught_up false.
// Our engine hands out whole blocks, one per call, so this replays that page arithmetic over the
// blocks to stop where Rust stops. (Rust's 4 MiB byte packing target per page is not replayed.)
class PageBudget {
 public:
  explicit PageBudget(size_t limit) : limit_(limit), changes_left_(limit) {}

  void Spend(size_t changes) {
    ++commits_;
    if (changes <= changes_left_) {
      changes_left_ -= changes;
      return;
    }
    // The rest fills fresh pages; the last one holds 1 to limit of them, and this block is the
    // first commit that page examined.
    const size_t rest = changes - changes_left_;
    changes_left_ = limit_ - ((rest - 1) % limit_ + 1);
    commits_ = 1;
  }
  bool Exhausted() const { return changes_left_ == 0 || commits_ == kCommitsPerPage; }

 private:
  size_t limit_, changes_left_, commits_ = 0;
};

struct PollFlags {
  std::string branch = "main";
  std::string start = "now";
  std::string cursor;
  size_t limit = kDefaultChangesPerPage;
};

int RunPoll(const GraphFlags& flags, const PollFlags& p, const ChangeFilterFlags& ff) {
  auto filter = ff.Build();
  if (!filter.ok()) return ReportError(AsUsageError(filter.status()), flags.json);
  if (Status s = CheckLimit(p.limit); !s.ok()) return ReportError(s, flags.json);
  if (auto rc = RemoteChangesPoll(flags, {p.branch, p.start, p.cursor, p.limit}, ff)) return *rc;
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  ChangePollRequest request;
  request.branch = p.branch;
  request.filter = *filter;
  request.max_commits = 1;  // one block per call: its cursor is the cursor to stop at
  if (!p.cursor.empty()) {
    request.cursor = p.cursor;
  } else {
    request.start = p.start;
  }
  FeedPrinter out(flags.json);
  PageBudget budget(p.limit);
  for (;;) {
    auto page = (*g)->PollChanges(request);
    // After the first block, stdout holds a partial document: the error goes to stderr only.
    if (!page.ok()) return ReportError(page.status(), flags.json && !out.started());
    for (const ChangeBlock& b : page->blocks) {
      out.Block(ChangeCauseOutputJson(b.commit), b.changes.size(), LocalChanges(b.changes));
      budget.Spend(b.changes.size());
    }
    if (page->caught_up || page->blocks.empty()) {
      out.Finish(page->cursor, page->caught_up);
      return kExitOk;
    }
    if (budget.Exhausted()) {
      out.Finish(page->cursor, /*caught_up=*/false);
      return kExitOk;
    }
    request.cursor = page->cursor;
  }
}

// ---- changes baseline -------------------------------------------------------------------------

int RunBaseline(const GraphFlags& flags, const std::string& branch, const ChangeFilterFlags& ff,
                const std::string& out) {
  auto filter = ff.Build();
  if (!filter.ok()) return ReportError(AsUsageError(filter.status()), flags.json);
  if (auto rc = RemoteChangesBaseline(flags, branch, ff, out)) return *rc;
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  Database& db = **g;
  auto baseline = InstallBaseline(
      out, [&](const BaselineLineSink& sink) { return db.CaptureChangeBaseline(branch, *filter, sink); });
  if (!baseline.ok()) return ReportError(baseline.status(), flags.json);
  PrintBaseline(flags.json, out, *baseline);
  return kExitOk;
}

// ---- diff (ours) ------------------------------------------------------------------------------

// FROM and TO: a snapshot id, a commit id, or a branch name (its head).
int RunDiff(const GraphFlags& flags, const std::string& from, const std::string& to, const ChangeFilterFlags& ff) {
  auto filter = ff.Build();
  if (!filter.ok()) return ReportError(AsUsageError(filter.status()), flags.json);
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto d = (*g)->Diff(ReadTarget::Any(from), ReadTarget::Any(to), *filter);
  if (!d.ok()) return ReportError(d.status(), flags.json);
  if (flags.json) {  // changes as `commit changes` prints them
    OrderedJson j = OrderedJson::object();
    j["from_commit_id"] = d->from_commit_id;
    j["to_commit_id"] = d->to_commit_id;
    j["changes"] = OrderedJson::array();
    for (const auto& c : d->changes) j["changes"].push_back(EntityChangeOutputJson(c));
    PrintJson(j);
  } else {
    std::printf("from: %s\nto: %s\n", d->from_commit_id.c_str(), d->to_commit_id.c_str());
    for (const auto& c : d->changes) PrintChangeRowText(EntityChangeOutputJson(c));
  }
  return kExitOk;
}

}  // namespace

void AddCommitChangesCommand(CLI::App* commit, CommandAction* run) {
  auto* cmd = commit->add_subcommand("changes", "The entity changes of one commit against its first parent");
  auto flags = std::make_shared<GraphFlags>();
  auto id = std::make_shared<std::string>();
  auto ff = std::make_shared<ChangeFilterFlags>();
  auto limit = std::make_shared<size_t>(kDefaultChangesPerPage);
  auto page_token = std::make_shared<std::string>();
  cmd->add_option("id", *id, "Commit id")->required();
  cmd->add_option("--limit", *limit, "Changes per page (default 1000, at most 8192)");
  auto* token = cmd->add_option("--page-token", *page_token,
                                "Print only the page this token (next_page_token of the page before) names; '' for "
                                "the first page");
  AddChangeFilterFlags(cmd, ff.get());
  AddGraphFlags(cmd, flags.get(), /*positional=*/true, /*uri_flag=*/true);
  cmd->callback([=] {
    *run = [=] {
      return RunCommitChanges(*flags, *id, *ff, *limit,
                              token->count() > 0 ? std::optional<std::string>(*page_token) : std::nullopt);
    };
  });
}

void AddChangesCommands(CLI::App& app, CommandAction* run) {
  auto* changes = app.add_subcommand("changes", "The change feed of a branch");
  changes->require_subcommand(1);
  {
    auto* cmd = changes->add_subcommand("poll", "Changes since a cursor or start point, in blocks per commit");
    auto flags = std::make_shared<GraphFlags>();
    auto p = std::make_shared<PollFlags>();
    auto ff = std::make_shared<ChangeFilterFlags>();
    cmd->add_option("--branch", p->branch, "Branch (default main)");
    auto* start = cmd->add_option("--start", p->start, "now (default) | beginning | after:<commit id>");
    cmd->add_option("--cursor", p->cursor, "Resume after an earlier poll")->excludes(start);
    cmd->add_option("--limit", p->limit, "Changes per page (default 1000, at most 8192)");
    AddChangeFilterFlags(cmd, ff.get());
    AddGraphFlags(cmd, flags.get(), /*positional=*/false, /*uri_flag=*/true);
    cmd->callback([=] { *run = [=] { return RunPoll(*flags, *p, *ff); }; });
  }
  {
    auto* cmd = changes->add_subcommand(
        "baseline", "Write the branch head's entities to --out and print the cursor that resumes right after it");
    auto flags = std::make_shared<GraphFlags>();
    auto branch = std::make_shared<std::string>("main");
    auto out = std::make_shared<std::string>();
    auto ff = std::make_shared<ChangeFilterFlags>();
    cmd->add_option("--branch", *branch, "Branch (default main)");
    cmd->add_option("--out", *out, "The snapshot file (NDJSON, export format), replaced atomically")->required();
    AddChangeFilterFlags(cmd, ff.get());
    AddGraphFlags(cmd, flags.get(), /*positional=*/false, /*uri_flag=*/true);
    cmd->callback([=] { *run = [=] { return RunBaseline(*flags, *branch, *ff, *out); }; });
  }
  {
    auto* cmd = app.add_subcommand("diff", "Entity changes between two snapshots (ids, commits or branches)");
    auto flags = std::make_shared<GraphFlags>();
    auto from = std::make_shared<std::string>();
    auto to = std::make_shared<std::string>();
    auto ff = std::make_shared<ChangeFilterFlags>();
    cmd->add_option("from", *from, "Snapshot id, commit id or branch")->required();
    cmd->add_option("to", *to, "Snapshot id, commit id or branch")->required();
    AddChangeFilterFlags(cmd, ff.get());
    AddGraphFlags(cmd, flags.get(), /*positional=*/true);
    cmd->callback([=] { *run = [=] { return RunDiff(*flags, *from, *to, *ff); }; });
  }
}

}  // namespace omnigraph::cli
