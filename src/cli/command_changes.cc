// Change listing (docs/cli.md "Change listing"): `commit changes ID`, `changes poll`, `changes
// baseline --out PATH`, and our `diff FROM TO`, on the public API's CommitChanges /
// PageCommitChanges, PollChanges, CaptureChangeBaseline and Diff. Output as the Rust CLI's
// (crates/omnigraph-cli/src/output.rs): its cause and change shapes, pretty JSON, and its text.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/output_json.h"
#include "common/unique_fd.h"

namespace omnigraph::cli {
namespace {

// The commits one `changes poll` page examines at most (the Rust engine's default; its CLI has no
// flag for it). Past them the poll ends with caught_up false.
constexpr size_t kCommitsPerPage = 128;

struct FilterFlags {
  std::vector<std::string> kinds, types, ops;

  Result<ChangeFilter> Build() const {
    ChangeFilter f;
    for (const auto& k : kinds) {
      OG_ASSIGN_OR_RETURN(EntityKind kind, ParseEntityKind(k));
      f.kinds.push_back(kind);
    }
    for (const auto& o : ops) {
      OG_ASSIGN_OR_RETURN(ChangeOp op, ParseChangeOp(o));
      f.ops.push_back(op);
    }
    f.types = types;
    return f;
  }
};

void AddFilterFlags(CLI::App* cmd, FilterFlags* f) {
  // One value per occurrence, as the Rust CLI's repeated flags: `--type T URI` must not take URI.
  cmd->add_option("--kind", f->kinds, "Only node or edge changes (repeatable)")->allow_extra_args(false);
  cmd->add_option("--type", f->types, "Only this type (repeatable)")->allow_extra_args(false);
  cmd->add_option("--op", f->ops, "Only insert, update or delete (repeatable)")->allow_extra_args(false);
}

Status CheckLimit(size_t limit) {
  if (limit >= 1 && limit <= kMaxChangesPerPage) return Status::Ok();
  return UsageError("--limit is the changes per page: 1 to " + std::to_string(kMaxChangesPerPage) + ", not " +
                    std::to_string(limit));
}

// ---- JSON, streamed --------------------------------------------------------------------------

void Out(std::string_view s) { std::fwrite(s.data(), 1, s.size(), stdout); }

// `j` as dump(2) prints it, placed `indent` spaces deep in an enclosing pretty document (every
// line after the first indented that much more): a document written one element at a time this
// way is byte-identical to dump(2) of the whole, without holding the whole (the Rust CLI streams
// its pages the same way).
void OutNested(const OrderedJson& j, size_t indent) {
  const std::string s = j.dump(2, ' ', false, OrderedJson::error_handler_t::replace);
  const std::string newline = "\n" + std::string(indent, ' ');
  size_t start = 0;
  for (size_t nl = s.find('\n'); nl != std::string::npos; nl = s.find('\n', start)) {
    Out(std::string_view(s).substr(start, nl - start));
    Out(newline);
    start = nl + 1;
  }
  Out(std::string_view(s).substr(start));
}

// {"cause", "changes", "next_page_token"?} (the Rust CommitChangesOutput; a feed block without the
// token), `indent` deep, one change at a time.
void OutBlockJson(const CommitInfo& cause, const std::vector<EntityChange>& changes, size_t indent,
                  const std::optional<std::string>& next_page_token = std::nullopt) {
  const std::string pad(indent, ' ');
  Out("{\n" + pad + "  \"cause\": ");
  OutNested(ChangeCauseOutputJson(cause), indent + 2);
  Out(",\n" + pad + "  \"changes\": [");
  for (size_t i = 0; i < changes.size(); ++i) {
    Out((i == 0 ? "\n" : ",\n") + pad + "    ");
    OutNested(EntityChangeOutputJson(changes[i]), indent + 4);
  }
  Out(changes.empty() ? "]" : "\n" + pad + "  ]");
  if (next_page_token) Out(",\n" + pad + "  \"next_page_token\": " + OrderedJson(*next_page_token).dump());
  Out("\n" + pad + "}");
}

// ---- Text, as the Rust CLI's (output.rs print_change_cause_human, print_entity_change_row) ------

void PrintCause(const CommitInfo& c) {
  std::printf("commit: %s\nbranch: %s\n", c.id.c_str(), c.branch.c_str());
  if (!c.parents.empty()) std::printf("parent: %s\n", c.parents[0].c_str());
  if (c.parents.size() > 1) std::printf("merged_parent: %s\n", c.parents[1].c_str());
  if (c.actor) std::printf("actor: %s\n", c.actor->c_str());
  std::printf("authored_at: %lld\n", static_cast<long long>(c.timestamp_us));
}

// A property value in text: a string verbatim (so the string "null" reads null), null as <null>
// (an absent key is <absent>), anything else as compact JSON. --json stays the exact form.
std::string ValueText(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "<null>";
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::map<std::string, Json> PropertyMap(const EntityImage& img) {
  std::map<std::string, Json> out;
  for (const auto& [name, value] : img.properties) out.emplace(name, ValueToJson(value));
  return out;
}

// `{op} {kind} {Type} {id}`; for an edge its endpoints (`  from -> to`, or both pairs when an
// update moved it); then `  + key: value` per property of an insert, `  - key: value` of a delete,
// or `  key: before -> after` per changed key of an update, keys sorted.
void PrintChangeRow(const EntityChange& c) {
  std::printf("%s %s %s %s\n", std::string(ChangeOpName(c.op)).c_str(), std::string(EntityKindName(c.kind)).c_str(),
              c.type_name.c_str(), c.id.c_str());
  const EntityImage* before = c.before ? &*c.before : nullptr;
  const EntityImage* after = c.after ? &*c.after : nullptr;
  if (c.kind == EntityKind::kEdge && (before || after)) {
    if (before && after && (before->from != after->from || before->to != after->to)) {
      std::printf("  %s -> %s => %s -> %s\n", before->from.c_str(), before->to.c_str(), after->from.c_str(),
                  after->to.c_str());
    } else {
      const EntityImage* e = before ? before : after;
      std::printf("  %s -> %s\n", e->from.c_str(), e->to.c_str());
    }
  }
  if (after && !before) {
    for (const auto& [name, value] : after->properties) {
      std::printf("  + %s: %s\n", name.c_str(), ValueText(ValueToJson(value)).c_str());
    }
  } else if (before && !after) {
    for (const auto& [name, value] : before->properties) {
      std::printf("  - %s: %s\n", name.c_str(), ValueText(ValueToJson(value)).c_str());
    }
  } else if (before && after) {
    const auto old_values = PropertyMap(*before);
    const auto new_values = PropertyMap(*after);
    std::map<std::string, std::pair<const Json*, const Json*>> keys;  // sorted, as the Rust CLI
    for (const auto& [k, v] : old_values) keys[k].first = &v;
    for (const auto& [k, v] : new_values) keys[k].second = &v;
    for (const auto& [k, vs] : keys) {
      if (vs.first && vs.second && *vs.first == *vs.second) continue;
      std::printf("  %s: %s -> %s\n", k.c_str(), vs.first ? ValueText(*vs.first).c_str() : "<absent>",
                  vs.second ? ValueText(*vs.second).c_str() : "<absent>");
    }
  }
}

// ---- commit changes ---------------------------------------------------------------------------

// Without --page-token: every change in one document, `{cause, changes}` (the Rust CLI follows its
// pages and prints them as one; our listing of a commit is whole already, so the pages' sum is
// read at once). With --page-token: that one page, and its next_page_token unless it is the last;
// an empty token names the first page (ours: the Rust CLI has no way to print a first token).
int RunCommitChanges(const GraphFlags& flags, const std::string& id, const FilterFlags& ff, size_t limit,
                     const std::optional<std::string>& page_token) {
  auto filter = ff.Build();
  if (!filter.ok()) return ReportError(AsUsageError(filter.status()), flags.json);
  if (Status s = CheckLimit(limit); !s.ok()) return ReportError(s, flags.json);
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
  if (flags.json) {
    OutBlockJson(block.commit, block.changes, 0, next_page_token);
    Out("\n");
  } else {
    PrintCause(block.commit);
    for (const auto& c : block.changes) PrintChangeRow(c);
    if (next_page_token) std::printf("next_page_token: %s\n", next_page_token->c_str());
  }
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

// Prints a poll's blocks as they arrive, then its cursor: the Rust ChangeFeedOutput `{blocks:
// [{cause, changes}], cursor, caught_up}` (without next_page_token), or its text.
class FeedPrinter {
 public:
  explicit FeedPrinter(bool json) : json_(json) {}

  bool started() const { return blocks_ > 0; }

  void Block(const ChangeBlock& b) {
    if (json_) {
      Out(blocks_ == 0 ? "{\n  \"blocks\": [\n    " : ",\n    ");
      OutBlockJson(b.commit, b.changes, 4);
    } else {
      if (blocks_ > 0) std::printf("\n");
      PrintCause(b.commit);
      for (const auto& c : b.changes) PrintChangeRow(c);
    }
    ++blocks_;
    std::fflush(stdout);
  }

  void Finish(const std::string& cursor, bool caught_up) {
    const char* caught = caught_up ? "true" : "false";
    if (json_) {
      Out(blocks_ == 0 ? "{\n  \"blocks\": []" : "\n  ]");
      Out(",\n  \"cursor\": " + OrderedJson(cursor).dump() + ",\n  \"caught_up\": " + caught + "\n}\n");
    } else {
      if (blocks_ == 0) std::printf("(no new commits)\n");
      std::printf("\ncursor: %s\ncaught_up: %s\n", cursor.c_str(), caught);
    }
  }

 private:
  bool json_;
  size_t blocks_ = 0;
};

struct PollFlags {
  std::string branch = "main";
  std::string start = "now";
  std::string cursor;
  size_t limit = kDefaultChangesPerPage;
};

int RunPoll(const GraphFlags& flags, const PollFlags& p, const FilterFlags& ff) {
  auto filter = ff.Build();
  if (!filter.ok()) return ReportError(AsUsageError(filter.status()), flags.json);
  if (Status s = CheckLimit(p.limit); !s.ok()) return ReportError(s, flags.json);
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
      out.Block(b);
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

Status SyncDir(const std::string& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("cannot open directory '" + dir + "' to sync it", errno);
  if (::fsync(fd.get()) != 0) return ErrnoError("fsync directory '" + dir + "'", errno);
  return Status::Ok();
}

// Writes the baseline snapshot of `branch` to `path` and returns its handshake; the cursor is
// returned only once the snapshot is durably at `path`, so a printed cursor always has its
// snapshot. The lines go to a fresh temp file beside `path`, which is fsynced, renamed over `path`
// and its directory fsynced; on any failure `path` is untouched and the temp file removed.
Result<ChangeBaseline> InstallBaseline(Database& db, const std::string& branch, const ChangeFilter& filter,
                                       const std::string& path) {
  // Cooperating captures of one PATH wait for each other: two at once could each install and
  // print, and the one replaced last would pair its cursor with the other's snapshot, skipping the
  // changes between the two heads. The lock file stays (as the Rust CLI's): deleting it would race
  // with the next locker.
  const std::string lock_path = path + ".lock";
  UniqueFd lock(::open(lock_path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (lock.get() < 0) return ErrnoError("cannot open the lock file '" + lock_path + "'", errno);
  while (::flock(lock.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return ErrnoError("cannot lock '" + lock_path + "'", errno);
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string tmp = dir + "/." + base + ".tmpXXXXXX";
  UniqueFd fd(::mkostemp(tmp.data(), O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("cannot create a temporary file in '" + dir + "' for the baseline", errno);
  FILE* f = ::fdopen(fd.get(), "wb");
  if (f == nullptr) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoError("cannot write '" + tmp + "'", err);
  }
  fd.release();  // f owns it now
  auto baseline = db.CaptureChangeBaseline(branch, filter, [&](std::string_view line) -> Status {
    errno = 0;
    if (std::fwrite(line.data(), 1, line.size(), f) != line.size() || std::fputc('\n', f) == EOF) {
      return ErrnoError("writing '" + tmp + "'", errno != 0 ? errno : EIO);
    }
    return Status::Ok();
  });
  Status s = baseline.status();
  struct stat installed {};
  if (s.ok() && std::fflush(f) != 0) s = ErrnoError("writing '" + tmp + "'", errno);
  if (s.ok() && ::fsync(::fileno(f)) != 0) s = ErrnoError("fsync '" + tmp + "'", errno);
  if (s.ok() && ::fstat(::fileno(f), &installed) != 0) s = ErrnoError("stat '" + tmp + "'", errno);
  if (std::fclose(f) != 0 && s.ok()) s = ErrnoError("writing '" + tmp + "'", errno);
  if (s.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) {
    s = ErrnoError("cannot install the baseline at '" + path + "'", errno);
  }
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  OG_RETURN_IF_ERROR(SyncDir(dir));  // the rename is durable only now
  // A writer that does not take the lock may have replaced PATH since the rename; our cursor
  // would then be paired with its file.
  struct stat now {};
  if (::stat(path.c_str(), &now) != 0 || now.st_dev != installed.st_dev || now.st_ino != installed.st_ino) {
    return Status(ErrorCode::kConflict, "the baseline at " + path +
                                            " was replaced by another writer after this capture installed its "
                                            "snapshot; no resume cursor printed — re-run the capture");
  }
  return baseline;
}

int RunBaseline(const GraphFlags& flags, const std::string& branch, const FilterFlags& ff, const std::string& out) {
  auto filter = ff.Build();
  if (!filter.ok()) return ReportError(AsUsageError(filter.status()), flags.json);
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto baseline = InstallBaseline(**g, branch, *filter, out);
  if (!baseline.ok()) return ReportError(baseline.status(), flags.json);
  if (flags.json) {
    OrderedJson j = OrderedJson::object();
    j["snapshot_commit_id"] = baseline->snapshot_commit_id;
    j["resume_cursor"] = baseline->resume_cursor;
    PrintJson(j);
  } else {
    std::printf("snapshot: %s\nsnapshot_commit_id: %s\nresume_cursor: %s\n", out.c_str(),
                baseline->snapshot_commit_id.c_str(), baseline->resume_cursor.c_str());
  }
  return kExitOk;
}

// ---- diff (ours) ------------------------------------------------------------------------------

// FROM and TO: a snapshot id, a commit id, or a branch name (its head).
int RunDiff(const GraphFlags& flags, const std::string& from, const std::string& to, const FilterFlags& ff) {
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
    for (const auto& c : d->changes) PrintChangeRow(c);
  }
  return kExitOk;
}

}  // namespace

void AddCommitChangesCommand(CLI::App* commit, CommandAction* run) {
  auto* cmd = commit->add_subcommand("changes", "The entity changes of one commit against its first parent");
  auto flags = std::make_shared<GraphFlags>();
  auto id = std::make_shared<std::string>();
  auto ff = std::make_shared<FilterFlags>();
  auto limit = std::make_shared<size_t>(kDefaultChangesPerPage);
  auto page_token = std::make_shared<std::string>();
  cmd->add_option("id", *id, "Commit id")->required();
  cmd->add_option("--limit", *limit, "Changes per page (default 1000, at most 8192)");
  auto* token = cmd->add_option("--page-token", *page_token,
                                "Print only the page this token (next_page_token of the page before) names; '' for "
                                "the first page");
  AddFilterFlags(cmd, ff.get());
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
    auto ff = std::make_shared<FilterFlags>();
    cmd->add_option("--branch", p->branch, "Branch (default main)");
    auto* start = cmd->add_option("--start", p->start, "now (default) | beginning | after:<commit id>");
    cmd->add_option("--cursor", p->cursor, "Resume after an earlier poll")->excludes(start);
    cmd->add_option("--limit", p->limit, "Changes per page (default 1000, at most 8192)");
    AddFilterFlags(cmd, ff.get());
    AddGraphFlags(cmd, flags.get(), /*positional=*/false, /*uri_flag=*/true);
    cmd->callback([=] { *run = [=] { return RunPoll(*flags, *p, *ff); }; });
  }
  {
    auto* cmd = changes->add_subcommand(
        "baseline", "Write the branch head's entities to --out and print the cursor that resumes right after it");
    auto flags = std::make_shared<GraphFlags>();
    auto branch = std::make_shared<std::string>("main");
    auto out = std::make_shared<std::string>();
    auto ff = std::make_shared<FilterFlags>();
    cmd->add_option("--branch", *branch, "Branch (default main)");
    cmd->add_option("--out", *out, "The snapshot file (NDJSON, export format), replaced atomically")->required();
    AddFilterFlags(cmd, ff.get());
    AddGraphFlags(cmd, flags.get(), /*positional=*/false, /*uri_flag=*/true);
    cmd->callback([=] { *run = [=] { return RunBaseline(*flags, *branch, *ff, *out); }; });
  }
  {
    auto* cmd = app.add_subcommand("diff", "Entity changes between two snapshots (ids, commits or branches)");
    auto flags = std::make_shared<GraphFlags>();
    auto from = std::make_shared<std::string>();
    auto to = std::make_shared<std::string>();
    auto ff = std::make_shared<FilterFlags>();
    cmd->add_option("from", *from, "Snapshot id, commit id or branch")->required();
    cmd->add_option("to", *to, "Snapshot id, commit id or branch")->required();
    AddFilterFlags(cmd, ff.get());
    AddGraphFlags(cmd, flags.get(), /*positional=*/true);
    cmd->callback([=] { *run = [=] { return RunDiff(*flags, *from, *to, *ff); }; });
  }
}

}  // namespace omnigraph::cli
