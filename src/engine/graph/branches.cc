// Branch create / delete / fast-forward, branch history and snapshot ids (docs/architecture.md,
// "Branches"). A branch is a ref log; each operation here is one put_if_absent of the next
// entry, and a branch's history is its ref log (docs/decisions.md "Branch history").
#include <charconv>

#include <map>
#include <optional>

#include "common/clock.h"
#include "common/error_codes.h"
#include "common/thread_pool.h"
#include "common/ulid.h"
#include "engine/graph/graph.h"
#include "engine/graph/graph_layout.h"
#include "engine/graph/reclaim.h"
#include "engine/graph/ref_log.h"

namespace omnigraph::engine {
namespace {

Status CheckUserBranch(std::string_view name, std::string_view verb) {
  OG_RETURN_IF_ERROR(ValidateBranchName(name));
  if (name == kMainBranch) {
    return InvalidArgumentError("branch 'main' cannot be " + std::string(verb));
  }
  return Status::Ok();
}

std::string Quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

}  // namespace

Result<RefEntry> Graph::CreateBranch(std::string_view name, std::string_view from) {
  if (options_.read_only) return PermissionDeniedError("the graph was opened read-only");
  OG_RETURN_IF_ERROR(CheckUserBranch(name, "created"));
  auto source = Head(from);
  if (!source.ok()) {
    if (source.status().category() == StatusCode::kNotFound) {
      return NotFoundError("cannot create branch " + Quoted(name) + ": source branch " + Quoted(from) +
                           " does not exist");
    }
    return source.status();
  }
  return PublishCreate(name, source->commit().id);
}

Result<RefEntry> Graph::CreateBranchAtCommit(std::string_view name, std::string_view commit_id) {
  if (options_.read_only) return PermissionDeniedError("the graph was opened read-only");
  OG_RETURN_IF_ERROR(CheckUserBranch(name, "created"));
  OG_ASSIGN_OR_RETURN(auto commit, LoadCommit(commit_id));
  return PublishCreate(name, commit->id);
}

Result<RefEntry> Graph::PublishCreate(std::string_view name, const std::string& commit_id) {
  RefEntry entry;
  entry.op = RefOp::kCreate;
  entry.commit_id = commit_id;
  entry.incarnation = NewUlidString();
  entry.actor = actor();
  entry.time_us = NowMicros();
  // Fast path: a name never used before is entry 1 (one request). Otherwise find the delete entry
  // of the previous incarnation and continue after it.
  entry.seq = 1;
  std::optional<RefEntry> head;  // the entry to follow: the previous incarnation's delete entry
  for (int attempt = 0; attempt < 8; ++attempt) {
    Status s = refs_.Publish(name, head ? &*head : nullptr, &entry, /*update_hint=*/false);
    if (s.ok()) {
      MutexLock lock(&mu_);
      known_heads_[std::string(name)] = entry;
      return entry;
    }
    if (s.code() != ErrorCode::kReadSetConflict) return s;
    OG_ASSIGN_OR_RETURN(head, refs_.ReadHead(name));
    if (head && head->op != RefOp::kDelete) {
      return AlreadyExistsError("branch " + Quoted(name) + " already exists");
    }
    entry.seq = head ? head->seq + 1 : 1;
  }
  return Status(ErrorCode::kReadSetConflict,
                "branch " + Quoted(name) + " kept changing while it was being created; try again");
}

Result<RefEntry> Graph::DeleteBranch(std::string_view name) {
  if (options_.read_only) return PermissionDeniedError("the graph was opened read-only");
  OG_RETURN_IF_ERROR(CheckUserBranch(name, "deleted"));
  OG_ASSIGN_OR_RETURN(auto head, refs_.ReadHead(name));
  if (!head || head->op == RefOp::kDelete) {
    return NotFoundError("branch " + Quoted(name) + " does not exist");
  }
  RefEntry entry;
  entry.seq = head->seq + 1;
  entry.op = RefOp::kDelete;
  entry.incarnation = head->incarnation;
  entry.actor = actor();
  entry.time_us = NowMicros();
  OG_RETURN_IF_ERROR(refs_.Publish(name, &*head, &entry));
  MutexLock lock(&mu_);
  known_heads_[std::string(name)] = entry;
  return entry;
}

Result<RefEntry> Graph::DeleteBranchIf(std::string_view name, const RefEntry& expected) {
  if (options_.read_only) return PermissionDeniedError("the graph was opened read-only");
  OG_RETURN_IF_ERROR(CheckUserBranch(name, "deleted"));
  if (expected.op == RefOp::kDelete) return NotFoundError("branch " + Quoted(name) + " does not exist");
  RefEntry entry;
  entry.seq = expected.seq + 1;
  entry.op = RefOp::kDelete;
  entry.incarnation = expected.incarnation;
  entry.actor = actor();
  entry.time_us = NowMicros();
  // put_if_absent of the entry after `expected` is the condition: it fails if anything (a write,
  // a delete, a delete and re-create) moved the branch since.
  Status s = refs_.Publish(name, &expected, &entry);
  if (!s.ok()) {
    if (s.code() != ErrorCode::kReadSetConflict) return s;
    return Status(ErrorCode::kReadSetConflict, "branch " + Quoted(name) + " moved past version " +
                                                   std::to_string(expected.seq) +
                                                   " (the version that was merged); it was not deleted");
  }
  MutexLock lock(&mu_);
  known_heads_[std::string(name)] = entry;
  return entry;
}

Result<RefEntry> Graph::RefEntryAt(std::string_view branch, uint64_t seq) {
  OG_RETURN_IF_ERROR(ValidateBranchName(branch));
  auto e = refs_.ReadEntry(branch, seq);
  if (e.ok() || e.status().category() != StatusCode::kNotFound || seq == 0) return e;
  // Missing below the head: a cleanup truncated the log above it, or the log lost an entry.
  OG_ASSIGN_OR_RETURN(std::optional<RefEntry> head, ReadBranchHead(branch));
  if (head && head->seq > seq) {
    OG_ASSIGN_OR_RETURN(uint64_t floor, refs_.Floor(branch));
    if (seq < floor) {
      return Status(ErrorCode::kHistoryReclaimed, "version " + std::to_string(seq) + " of branch " + Quoted(branch) +
                                                      " was reclaimed by cleanup (the ref log starts at version " +
                                                      std::to_string(floor) + ")");
    }
    return CorruptError("ref entry " + RefEntryKey(branch, seq) + " of branch " + Quoted(branch) +
                        " is missing, but the branch is at version " + std::to_string(head->seq) +
                        " (a gap in the ref log)");
  }
  return e;
}

std::map<uint64_t, RefEntry> Graph::PrefetchRefEntries(std::string_view branch, uint64_t head_seq, uint64_t stop_at_seq,
                                                       size_t limit) {
  constexpr uint64_t kMaxPrefetch = 1024;  // entries per walk; a longer walk reads the rest one by one
  const uint64_t low = std::max<uint64_t>(1, stop_at_seq);
  if (head_seq <= low) return {};
  const uint64_t n = std::min<uint64_t>({head_seq - low, static_cast<uint64_t>(limit), kMaxPrefetch});
  std::vector<std::optional<RefEntry>> entries(n);
  (void)ThreadPool::Io().ParallelFor(n, [&](size_t i) -> Status {
    auto read = refs_.ReadEntry(branch, head_seq - 1 - i);
    if (!read.ok()) return Status::Ok();
    (void)LoadCommit(read->commit_id);  // warms the commit cache; errors are met again by the walk
    entries[i] = std::move(*read);
    return Status::Ok();
  });
  std::map<uint64_t, RefEntry> out;
  for (auto& e : entries) {
    if (e) out.emplace(e->seq, std::move(*e));
  }
  return out;
}

Result<std::vector<HistoryStep>> Graph::BranchHistory(std::string_view branch, size_t limit, uint64_t stop_at_seq,
                                                      bool kept_part) {
  OG_ASSIGN_OR_RETURN(Snapshot head, Head(branch));
  std::vector<HistoryStep> out;
  if (!head.ref()) return InternalError("branch " + Quoted(branch) + " has no ref entry");
  // What a cleanup reclaimed ends the kept part; to a caller that needs all of it, it is an error.
  auto reclaimed = [&](const Status& s) { return kept_part && s.code_string() == "history_reclaimed"; };
  RefEntry e = *head.ref();
  std::shared_ptr<const Commit> c = head.shared_commit();
  // On object storage every read is a round trip: the ref entries this walk will read, and their
  // commits (into the commit cache), are fetched in parallel first. The walk below still reads
  // and checks them one by one, in order; a prefetch that failed is simply read again there.
  std::map<uint64_t, RefEntry> fetched = PrefetchRefEntries(branch, e.seq, stop_at_seq, limit);
  // The branch's own ref moves, newest first, back to the create entry of this incarnation.
  while (out.size() < limit && e.seq != stop_at_seq) {
    if (e.op == RefOp::kCreate) {
      out.push_back(HistoryStep{c, e.seq, c->parents.empty() ? "" : c->parents.front()});
      break;
    }
    if (e.seq == 1) return CorruptError("ref entry 1 of branch " + Quoted(branch) + " is not a create entry");
    auto hit = fetched.find(e.seq - 1);
    auto prev = hit != fetched.end() ? Result<RefEntry>(hit->second) : RefEntryAt(branch, e.seq - 1);
    if (!prev.ok() && reclaimed(prev.status())) {
      out.push_back(HistoryStep{c, e.seq, ""});
      return out;
    }
    OG_RETURN_IF_ERROR(prev.status());
    OG_RETURN_IF_ERROR(RefLog::CheckLink(branch, e, &*prev));
    out.push_back(HistoryStep{c, e.seq, prev->commit_id});
    e = std::move(*prev);
    auto loaded = LoadReferencedCommit(e.commit_id, "ref entry " + RefEntryKey(branch, e.seq));
    if (!loaded.ok() && reclaimed(loaded.status())) return out;
    OG_ASSIGN_OR_RETURN(c, std::move(loaded));
  }
  if (stop_at_seq != 0 || e.op != RefOp::kCreate) return out;
  // Inherited: the first-parent chain before the commit the branch was created at.
  while (out.size() < limit && !c->parents.empty()) {
    auto loaded = LoadReferencedCommit(c->parents.front(), "the parents of commit " + c->id);
    if (!loaded.ok() && reclaimed(loaded.status())) return out;
    OG_ASSIGN_OR_RETURN(c, std::move(loaded));
    out.push_back(HistoryStep{c, 0, c->parents.empty() ? "" : c->parents.front()});
  }
  return out;
}

Result<std::vector<std::shared_ptr<const Commit>>> Graph::CommitLog(std::string_view branch, size_t limit) {
  OG_ASSIGN_OR_RETURN(auto steps, BranchHistory(branch, limit, 0, /*kept_part=*/true));
  std::vector<std::shared_ptr<const Commit>> out;
  out.reserve(steps.size());
  for (auto& s : steps) out.push_back(std::move(s.commit));
  return out;
}

Result<RefEntry> Graph::AdvanceBranch(std::string_view branch, const RefEntry& expected, std::string commit_id) {
  if (options_.read_only) return PermissionDeniedError("the graph was opened read-only");
  RefEntry entry;
  entry.seq = expected.seq + 1;
  entry.op = RefOp::kAdvance;
  entry.commit_id = std::move(commit_id);
  entry.incarnation = expected.incarnation;
  entry.actor = actor();
  entry.time_us = NowMicros();
  OG_RETURN_IF_ERROR(refs_.Publish(branch, &expected, &entry));
  MutexLock lock(&mu_);
  known_heads_[std::string(branch)] = entry;
  return entry;
}

std::string Graph::SnapshotId(const Snapshot& snap) {
  if (!snap.ref() || snap.branch().empty()) return snap.commit().id;
  return snap.branch() + "@" + std::to_string(snap.ref()->seq) + "@" + snap.ref()->incarnation;
}

Result<Snapshot> Graph::AtSnapshotId(std::string_view id) {
  size_t last = id.rfind('@');
  if (last == std::string_view::npos) return AtCommit(id);
  size_t mid = last == 0 ? std::string_view::npos : id.rfind('@', last - 1);
  uint64_t seq = 0;
  std::string_view seq_text = mid == std::string_view::npos ? "" : id.substr(mid + 1, last - mid - 1);
  auto [ptr, ec] = std::from_chars(seq_text.data(), seq_text.data() + seq_text.size(), seq);
  if (mid == std::string_view::npos || mid == 0 || seq_text.empty() || ec != std::errc() ||
      ptr != seq_text.data() + seq_text.size() || last + 1 == id.size()) {
    return InvalidArgumentError(
        "malformed snapshot id " + Quoted(id) +
        " (expected BRANCH@VERSION@INCARNATION, as `omnigraph snapshot` prints, or a commit id)");
  }
  std::string_view branch = id.substr(0, mid);
  std::string_view incarnation = id.substr(last + 1);
  OG_RETURN_IF_ERROR(ValidateBranchName(branch));
  OG_ASSIGN_OR_RETURN(auto head, refs_.ReadHead(branch));
  if (!head) return NotFoundError("snapshot " + Quoted(id) + ": branch " + Quoted(branch) + " does not exist");
  if (head->incarnation != incarnation || head->op == RefOp::kDelete) {
    return Status(ErrorCode::kStaleIncarnation,
                  "snapshot " + Quoted(id) + " belongs to an earlier incarnation of branch " + Quoted(branch) +
                      ", which was deleted" + (head->op == RefOp::kDelete ? "" : " and re-created"));
  }
  if (seq > head->seq) {
    return NotFoundError("snapshot " + Quoted(id) + ": branch " + Quoted(branch) + " has no version " +
                         std::to_string(seq) + " yet");
  }
  OG_ASSIGN_OR_RETURN(Snapshot snap, AtBranchVersion(branch, seq));
  if (!snap.ref() || snap.ref()->incarnation != incarnation) {
    return Status(ErrorCode::kStaleIncarnation,
                  "snapshot " + Quoted(id) + " does not belong to the current incarnation of branch " + Quoted(branch));
  }
  return snap;
}

}  // namespace omnigraph::engine
