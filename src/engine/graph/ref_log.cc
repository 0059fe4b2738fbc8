#include "engine/graph/ref_log.h"

#include <algorithm>
#include <cstdint>

#include "common/error_codes.h"
#include "common/json.h"
#include "common/logging.h"
#include "common/thread_pool.h"
#include "engine/graph/graph_layout.h"
#include "engine/graph/sealed_json.h"

namespace omnigraph::engine {
namespace {

std::string Quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

Status Gap(std::string_view branch, uint64_t missing) {
  return CorruptError("ref entry " + RefEntryKey(branch, missing) + " of branch " + Quoted(branch) +
                      " is missing, but a newer entry exists (a gap in the ref log)");
}

// Runs `tasks` (storage requests) in parallel on the I/O pool: one round trip.
Status RunParallel(const std::vector<std::function<Status()>>& tasks) {
  if (tasks.size() == 1) return tasks[0]();
  return ThreadPool::Io().ParallelFor(tasks.size(), [&](size_t i) { return tasks[i](); });
}

}  // namespace

std::string_view RefOpName(RefOp op) {
  switch (op) {
    case RefOp::kCreate: return "create";
    case RefOp::kAdvance: return "advance";
    case RefOp::kDelete: return "delete";
  }
  return "?";
}

std::string RefLog::Serialize(const RefEntry& e) {
  Json j = {{"seq", e.seq},
            {"op", std::string(RefOpName(e.op))},
            {"commit", e.commit_id},
            {"incarnation", e.incarnation},
            {"actor", e.actor ? Json(*e.actor) : Json(nullptr)},
            {"time_us", e.time_us},
            {"prev", e.prev.empty() ? Json(nullptr) : Json(e.prev)}};
  return SealJson(std::move(j));
}

Result<RefEntry> RefLog::Parse(std::string_view bytes, std::string_view key) {
  const std::string what = "ref entry " + std::string(key);
  OG_ASSIGN_OR_RETURN(UnsealedJson u, UnsealJson(bytes, what));
  const Json& j = u.body;
  if (!u.sealed) {
    OG_RETURN_IF_ERROR(CheckLegacyMembers(j, {"seq", "op", "commit", "incarnation", "actor", "time_us"}, what));
  }
  RefEntry e;
  try {
    e.seq = j.at("seq").get<uint64_t>();
    std::string op = j.at("op").get<std::string>();
    if (op == "create")
      e.op = RefOp::kCreate;
    else if (op == "advance")
      e.op = RefOp::kAdvance;
    else if (op == "delete")
      e.op = RefOp::kDelete;
    else
      return CorruptError(what + ": unknown op '" + op + "'");
    e.commit_id = j.at("commit").get<std::string>();
    e.incarnation = j.at("incarnation").get<std::string>();
    if (!j.at("actor").is_null()) e.actor = j.at("actor").get<std::string>();
    e.time_us = j.at("time_us").get<int64_t>();
    if (u.sealed) {
      const Json& prev = j.at("prev");
      if (!prev.is_null()) e.prev = prev.get<std::string>();
      if ((e.seq <= 1) != e.prev.empty()) {
        return CorruptError(what + ": entry " + std::to_string(e.seq) +
                            (e.seq <= 1 ? " names a predecessor" : " does not name its predecessor"));
      }
    }
  } catch (const Json::exception&) {
    return CorruptError(what + ": a member is missing or has the wrong JSON type");
  }
  if (e.seq == 0) return CorruptError(what + ": sequence number 0");
  auto seq = ParseRefSeq(key);
  if (seq && *seq != e.seq) return CorruptError(what + " claims sequence " + std::to_string(e.seq));
  e.digest = Digest16(bytes);
  e.legacy = !u.sealed;
  return e;
}

Status RefLog::CheckLink(std::string_view branch, const RefEntry& e, const RefEntry* pred) {
  if (e.seq <= 1) return Status::Ok();
  if (pred == nullptr) return Gap(branch, e.seq - 1);
  const std::string what = "ref entry " + RefEntryKey(branch, e.seq) + " of branch " + Quoted(branch);
  if (pred->seq + 1 != e.seq) return InternalError(what + ": checked against entry " + std::to_string(pred->seq));
  if (!e.legacy && e.prev != pred->digest) {
    return CorruptError(what + " does not follow entry " + std::to_string(pred->seq) +
                        " (its predecessor link names another entry)");
  }
  // Only a create entry starts an incarnation, and only after a delete; a delete ends one.
  if (e.op == RefOp::kCreate ? pred->op != RefOp::kDelete
                             : pred->op == RefOp::kDelete || e.incarnation != pred->incarnation) {
    return CorruptError(what + " (" + std::string(RefOpName(e.op)) + ") cannot follow entry " +
                        std::to_string(pred->seq) + " (" + std::string(RefOpName(pred->op)) +
                        ") of the same incarnation");
  }
  return Status::Ok();
}

Result<RefEntry> RefLog::ReadEntry(std::string_view branch, uint64_t seq) const {
  const std::string key = RefEntryKey(branch, seq);
  auto bytes = store_->Get(key);
  if (!bytes.ok()) {
    if (bytes.status().category() == StatusCode::kNotFound) {
      return NotFoundError("branch " + Quoted(branch) + " has no version " + std::to_string(seq));
    }
    return bytes.status();
  }
  return Parse(*bytes, key);
}

Result<RefEntry> RefLog::ReadLinked(std::string_view branch, uint64_t seq, const RefEntry* pred) const {
  const bool fetch_pred = seq > 1 && pred == nullptr;
  std::optional<Result<RefEntry>> cur, before;
  std::vector<std::function<Status()>> tasks;
  tasks.push_back([&] {
    cur = ReadEntry(branch, seq);
    return Status::Ok();
  });
  if (fetch_pred) {
    tasks.push_back([&] {
      before = ReadEntry(branch, seq - 1);
      return Status::Ok();
    });
  }
  OG_RETURN_IF_ERROR(RunParallel(tasks));
  OG_RETURN_IF_ERROR(cur->status());
  if (fetch_pred) {
    if (!before->ok()) {
      if (before->status().category() != StatusCode::kNotFound) return before->status();
      return Gap(branch, seq - 1);
    }
    pred = &**before;
  }
  OG_RETURN_IF_ERROR(CheckLink(branch, **cur, pred));
  return std::move(**cur);
}

Result<std::optional<uint64_t>> RefLog::NewestSeqAfter(std::string_view branch, std::string_view start_after,
                                                       uint64_t first, uint64_t* floor_out) const {
  OG_ASSIGN_OR_RETURN(auto keys, store_->List(RefFolder(branch), start_after));
  std::vector<uint64_t> seqs;
  uint64_t floor = 0;
  for (const auto& m : keys) {
    if (auto seq = ParseRefSeq(m.key)) {
      seqs.push_back(*seq);
    } else if (auto f = ParseRefFloor(m.key)) {
      floor = std::max(floor, *f);
    }
  }
  // A whole listing starts at the floor a cleanup left (entries below it are ignored, deleted or not).
  if (start_after.empty() && floor > first) first = floor;
  if (floor_out != nullptr) *floor_out = floor;
  std::sort(seqs.begin(), seqs.end());
  seqs.erase(seqs.begin(), std::lower_bound(seqs.begin(), seqs.end(), first));
  if (seqs.empty()) {
    if (start_after.empty() && floor > 0) return Gap(branch, floor);  // the floor names a kept entry
    return std::optional<uint64_t>();
  }
  for (size_t i = 0; i < seqs.size(); ++i) {
    if (seqs[i] != first + i) return Gap(branch, first + i);
  }
  return std::optional<uint64_t>(seqs.back());
}

Result<uint64_t> RefLog::Floor(std::string_view branch) const {
  // Floor keys sort after every entry key of the folder: list only them (and the HEAD hint).
  OG_ASSIGN_OR_RETURN(auto keys, store_->List(RefFolder(branch), RefEntryKey(branch, UINT64_MAX)));
  uint64_t floor = 0;
  for (const auto& m : keys) {
    if (auto f = ParseRefFloor(m.key)) floor = std::max(floor, *f);
  }
  return floor;
}

Status RefLog::WriteFloor(std::string_view branch, uint64_t seq) const {
  Status s = store_->PutIfAbsent(RefFloorKey(branch, seq),
                                 SealJson(Json{{"kind", "ref_floor"}, {"branch", std::string(branch)}, {"seq", seq}}));
  return s.ok() || s.category() == StatusCode::kAlreadyExists ? Status::Ok() : s;
}

Result<std::optional<RefEntry>> RefLog::ReadHeadAfter(std::string_view branch, const RefEntry& known) const {
  // Entries are created in sequence (each writer creates head + 1), so when known + 1 is absent
  // nothing newer exists: one HEAD request, whose cost does not grow with the ref log (a LIST
  // does on stores that enumerate a folder to answer it).
  auto next = store_->Head(RefEntryKey(branch, known.seq + 1));
  if (!next.ok()) {
    if (next.status().category() == StatusCode::kNotFound) return std::optional<RefEntry>(known);
    return next.status();
  }
  OG_ASSIGN_OR_RETURN(auto newer, NewestSeqAfter(branch, RefEntryKey(branch, known.seq), known.seq + 1));
  if (!newer) return std::optional<RefEntry>(known);
  OG_ASSIGN_OR_RETURN(RefEntry e, ReadLinked(branch, *newer, *newer == known.seq + 1 ? &known : nullptr));
  return std::optional<RefEntry>(std::move(e));
}

Result<std::optional<RefEntry>> RefLog::ReadHead(std::string_view branch) const {
  OG_RETURN_IF_ERROR(ValidateBranchName(branch));
  auto hint = store_->Get(RefHeadHintKey(branch));
  std::optional<RefEntry> hinted;
  if (hint.ok()) {
    auto parsed = Parse(*hint, RefHeadHintKey(branch));
    if (parsed.ok()) {
      hinted = std::move(*parsed);
    } else {
      LogWarn("ignoring unreadable HEAD hint of branch '" + std::string(branch) + "': " + parsed.status().ToString());
    }
  } else if (hint.status().category() != StatusCode::kNotFound) {
    return hint.status();
  }
  if (hinted) {
    // The hinted entry itself (never its copy in the hint) linked to its predecessor, and whether
    // anything newer exists: one round trip.
    const uint64_t n = hinted->seq;
    std::optional<Result<RefEntry>> entry;
    std::optional<Status> next;
    std::vector<std::function<Status()>> tasks;
    tasks.push_back([&] {
      entry = ReadLinked(branch, n, nullptr);
      return Status::Ok();
    });
    tasks.push_back([&] {
      next = store_->Head(RefEntryKey(branch, n + 1)).status();
      return Status::Ok();
    });
    OG_RETURN_IF_ERROR(RunParallel(tasks));
    const bool missing = !entry->ok() && entry->status().category() == StatusCode::kNotFound;
    if (missing && hinted->legacy) {
      hinted.reset();  // an unchecked hint (written before checksums) may itself be damaged: list
    } else if (!entry->ok()) {
      if (!missing) return entry->status();
      return CorruptError("ref entry " + RefEntryKey(branch, n) + " of branch " + Quoted(branch) +
                          " is missing, but its HEAD hint names it (the ref log is damaged)");
    }
    if (hinted) {
      if (!next->ok() && next->category() != StatusCode::kNotFound) return *next;
      if (!next->ok()) return std::optional<RefEntry>(std::move(**entry));
      return ReadHeadAfter(branch, **entry);
    }
  }
  OG_ASSIGN_OR_RETURN(auto newest, NewestSeqAfter(branch, "", 1));
  if (!newest) return std::optional<RefEntry>();
  OG_ASSIGN_OR_RETURN(RefEntry e, ReadLinked(branch, *newest, nullptr));
  return std::optional<RefEntry>(std::move(e));
}

Status RefLog::Publish(std::string_view branch, const RefEntry* after, RefEntry* entry, bool update_hint) const {
  OG_RETURN_IF_ERROR(ValidateBranchName(branch));
  const uint64_t expected = after == nullptr ? 1 : after->seq + 1;
  if (entry->seq != expected) {
    return InternalError("ref entry " + std::to_string(entry->seq) + " published after entry " +
                         std::to_string(expected - 1));
  }
  if (after != nullptr && after->digest.empty()) {
    return InternalError("ref entry " + std::to_string(after->seq) + " of branch " + Quoted(branch) +
                         " has no digest to link to");
  }
  entry->prev = after == nullptr ? "" : after->digest;
  entry->legacy = false;
  std::string bytes = Serialize(*entry);
  entry->digest = Digest16(bytes);
  Status s = store_->PutIfAbsent(RefEntryKey(branch, entry->seq), bytes);
  if (!s.ok()) {
    if (s.category() == StatusCode::kAlreadyExists) {
      return Status(ErrorCode::kReadSetConflict, "branch " + Quoted(branch) +
                                                     " moved: another writer published version " +
                                                     std::to_string(entry->seq) + " first");
    }
    return s;
  }
  if (!update_hint) return Status::Ok();
  // The hint is only a shortcut to the newest entry (ReadHead checks it and walks past or around a
  // stale, missing or damaged one), so it is not made durable: one fsync pair less per commit.
  Status hint = store_->PutVolatile(RefHeadHintKey(branch), bytes);
  if (!hint.ok()) LogWarn("could not update HEAD hint of '" + std::string(branch) + "': " + hint.ToString());
  return Status::Ok();
}

Result<std::vector<RefEntry>> RefLog::Entries(std::string_view branch) const {
  OG_RETURN_IF_ERROR(ValidateBranchName(branch));
  uint64_t floor = 0;
  OG_ASSIGN_OR_RETURN(auto newest, NewestSeqAfter(branch, "", 1, &floor));
  std::vector<RefEntry> out;
  for (uint64_t seq = std::max<uint64_t>(floor, 1); newest && seq <= *newest; ++seq) {
    auto e = ReadEntry(branch, seq);
    if (!e.ok()) {
      if (e.status().category() != StatusCode::kNotFound) return e.status();
      // A cleanup may have raised the floor since the listing and removed the entry: go on from
      // the new floor. Otherwise the log lost an entry.
      OG_ASSIGN_OR_RETURN(uint64_t now, Floor(branch));
      if (now <= seq) return Gap(branch, seq);
      out.clear();
      seq = now - 1;
      continue;
    }
    // The first entry of a truncated log links to an entry below the floor: nothing to check.
    if (!out.empty() || seq == 1) OG_RETURN_IF_ERROR(CheckLink(branch, *e, out.empty() ? nullptr : &out.back()));
    out.push_back(std::move(*e));
  }
  return out;
}

Result<std::vector<std::string>> RefLog::AllBranches() const {
  OG_ASSIGN_OR_RETURN(auto keys, store_->List(kRefsPrefix));
  std::vector<std::string> out;
  std::string last_hex;
  for (const auto& m : keys) {
    std::string_view rest = std::string_view(m.key).substr(kRefsPrefix.size());
    size_t slash = rest.find('/');
    if (slash == std::string_view::npos || !ParseRefSeq(m.key) || rest.substr(0, slash) == last_hex) continue;
    last_hex = std::string(rest.substr(0, slash));
    if (auto name = BranchFromHex(last_hex)) out.push_back(*name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<std::string>> RefLog::LiveBranches() const {
  OG_ASSIGN_OR_RETURN(auto keys, store_->List(kRefsPrefix));
  // Entry numbers, floor and newest entry key per branch folder (keys are sorted, entries are
  // zero-padded, floor keys sort after the entries).
  struct Folder {
    std::string hex;
    std::string newest_key;
    std::vector<uint64_t> seqs;
    uint64_t floor = 0;
  };
  std::vector<Folder> folders;
  for (const auto& m : keys) {
    std::string_view rest = std::string_view(m.key).substr(kRefsPrefix.size());
    size_t slash = rest.find('/');
    if (slash == std::string_view::npos) continue;
    std::string hex(rest.substr(0, slash));
    auto seq = ParseRefSeq(m.key);
    auto floor = seq ? std::nullopt : ParseRefFloor(m.key);
    if (!seq && !floor) continue;
    if (folders.empty() || folders.back().hex != hex) folders.push_back(Folder{hex, "", {}, 0});
    if (seq) {
      folders.back().newest_key = m.key;
      folders.back().seqs.push_back(*seq);
    } else {
      folders.back().floor = std::max(folders.back().floor, *floor);
    }
  }
  std::vector<std::string> out;
  for (const auto& f : folders) {
    auto name = BranchFromHex(f.hex);
    if (!name || f.seqs.empty()) continue;
    // Entries first..newest, each listed once, where first is the floor (1 without one).
    const uint64_t first = std::max<uint64_t>(f.floor, 1);
    const uint64_t newest = f.seqs.back();
    const auto at_first = std::lower_bound(f.seqs.begin(), f.seqs.end(), first);
    if (newest < first || *at_first != first || static_cast<uint64_t>(f.seqs.end() - at_first) != newest - first + 1) {
      OG_RETURN_IF_ERROR(NewestSeqAfter(*name, "", 1).status());
      return CorruptError("the ref log of branch " + Quoted(*name) + " has a gap");
    }
    OG_ASSIGN_OR_RETURN(std::string bytes, store_->Get(f.newest_key));
    OG_ASSIGN_OR_RETURN(RefEntry e, Parse(bytes, f.newest_key));
    if (e.op != RefOp::kDelete) out.push_back(*name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace omnigraph::engine
