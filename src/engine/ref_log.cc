#include "engine/ref_log.h"

#include <algorithm>

#include "common/error_codes.h"
#include "common/json.h"
#include "common/logging.h"
#include "engine/graph_layout.h"

namespace omnigraph::engine {

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
            {"time_us", e.time_us}};
  return CanonicalJson(j);
}

Result<RefEntry> RefLog::Parse(std::string_view bytes, std::string_view key) {
  OG_ASSIGN_OR_RETURN(Json j, ParseJson(bytes, "ref entry " + std::string(key), /*corrupt=*/true));
  RefEntry e;
  try {
    e.seq = j.at("seq").get<uint64_t>();
    std::string op = j.at("op").get<std::string>();
    if (op == "create") e.op = RefOp::kCreate;
    else if (op == "advance") e.op = RefOp::kAdvance;
    else if (op == "delete") e.op = RefOp::kDelete;
    else return CorruptError("ref entry " + std::string(key) + ": unknown op '" + op + "'");
    e.commit_id = j.at("commit").get<std::string>();
    e.incarnation = j.at("incarnation").get<std::string>();
    if (!j.at("actor").is_null()) e.actor = j.at("actor").get<std::string>();
    e.time_us = j.at("time_us").get<int64_t>();
  } catch (const Json::exception& ex) {
    return CorruptError("ref entry " + std::string(key) + ": " + ex.what());
  }
  return e;
}

Result<RefEntry> RefLog::ReadEntry(std::string_view key) const {
  OG_ASSIGN_OR_RETURN(std::string bytes, store_->Get(key));
  OG_ASSIGN_OR_RETURN(RefEntry e, Parse(bytes, key));
  auto seq = ParseRefSeq(key);
  if (seq && *seq != e.seq) {
    return CorruptError("ref entry " + std::string(key) + " claims sequence " + std::to_string(e.seq));
  }
  return e;
}

Result<std::optional<uint64_t>> RefLog::NewestSeqAfter(std::string_view branch,
                                                       std::string_view start_after) const {
  OG_ASSIGN_OR_RETURN(auto keys, store_->List(RefFolder(branch), start_after));
  std::optional<uint64_t> newest;
  for (const auto& m : keys) {
    auto seq = ParseRefSeq(m.key);
    if (seq && (!newest || *seq > *newest)) newest = seq;
  }
  return newest;
}

Result<std::optional<RefEntry>> RefLog::ReadHeadAfter(std::string_view branch,
                                                      const RefEntry& known) const {
  // Entries are created in sequence (each writer creates head + 1), so when known + 1 is absent
  // nothing newer exists: one HEAD request, whose cost does not grow with the ref log (a LIST
  // does on stores that enumerate a folder to answer it).
  auto next = store_->Head(RefEntryKey(branch, known.seq + 1));
  if (!next.ok()) {
    if (next.status().category() == StatusCode::kNotFound) return std::optional<RefEntry>(known);
    return next.status();
  }
  OG_ASSIGN_OR_RETURN(auto newer, NewestSeqAfter(branch, RefEntryKey(branch, known.seq)));
  if (!newer) return std::optional<RefEntry>(known);
  OG_ASSIGN_OR_RETURN(RefEntry e, ReadEntry(RefEntryKey(branch, *newer)));
  return std::optional<RefEntry>(std::move(e));
}

Result<std::optional<RefEntry>> RefLog::ReadHead(std::string_view branch) const {
  OG_RETURN_IF_ERROR(ValidateBranchName(branch));
  auto hint = store_->Get(RefHeadHintKey(branch));
  if (hint.ok()) {
    auto parsed = Parse(*hint, RefHeadHintKey(branch));
    if (parsed.ok()) return ReadHeadAfter(branch, *parsed);
    LogWarn("ignoring unreadable HEAD hint of branch '" + std::string(branch) +
            "': " + parsed.status().ToString());
  } else if (hint.status().category() != StatusCode::kNotFound) {
    return hint.status();
  }
  OG_ASSIGN_OR_RETURN(auto newest, NewestSeqAfter(branch, ""));
  if (!newest) return std::optional<RefEntry>();
  OG_ASSIGN_OR_RETURN(RefEntry e, ReadEntry(RefEntryKey(branch, *newest)));
  return std::optional<RefEntry>(std::move(e));
}

Status RefLog::Publish(std::string_view branch, const RefEntry& entry, bool update_hint) const {
  OG_RETURN_IF_ERROR(ValidateBranchName(branch));
  if (entry.seq == 0) return InvalidArgumentError("ref entries start at sequence 1");
  std::string bytes = Serialize(entry);
  Status s = store_->PutIfAbsent(RefEntryKey(branch, entry.seq), bytes);
  if (!s.ok()) {
    if (s.category() == StatusCode::kAlreadyExists) {
      return Status(ErrorCode::kReadSetConflict,
                    "branch '" + std::string(branch) + "' moved: another writer published version " +
                        std::to_string(entry.seq) + " first");
    }
    return s;
  }
  if (!update_hint) return Status::Ok();
  Status hint = store_->Put(RefHeadHintKey(branch), bytes);
  if (!hint.ok()) LogWarn("could not update HEAD hint of '" + std::string(branch) + "': " + hint.ToString());
  return Status::Ok();
}

Result<std::vector<RefEntry>> RefLog::Entries(std::string_view branch) const {
  OG_RETURN_IF_ERROR(ValidateBranchName(branch));
  OG_ASSIGN_OR_RETURN(auto keys, store_->List(RefFolder(branch)));
  std::vector<RefEntry> out;
  for (const auto& m : keys) {
    if (!ParseRefSeq(m.key)) continue;
    OG_ASSIGN_OR_RETURN(RefEntry e, ReadEntry(m.key));
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const RefEntry& a, const RefEntry& b) { return a.seq < b.seq; });
  return out;
}

Result<std::vector<std::string>> RefLog::LiveBranches() const {
  OG_ASSIGN_OR_RETURN(auto keys, store_->List(kRefsPrefix));
  // Newest entry key per branch folder (keys are sorted, entries are zero-padded).
  std::vector<std::pair<std::string, std::string>> newest;  // (hex, key)
  for (const auto& m : keys) {
    std::string_view rest = std::string_view(m.key).substr(kRefsPrefix.size());
    size_t slash = rest.find('/');
    if (slash == std::string_view::npos || !ParseRefSeq(m.key)) continue;
    std::string hex(rest.substr(0, slash));
    if (newest.empty() || newest.back().first != hex) newest.emplace_back(hex, m.key);
    else newest.back().second = m.key;
  }
  std::vector<std::string> out;
  for (const auto& [hex, key] : newest) {
    auto name = BranchFromHex(hex);
    if (!name) continue;
    OG_ASSIGN_OR_RETURN(RefEntry e, ReadEntry(key));
    if (e.op != RefOp::kDelete) out.push_back(*name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace omnigraph::engine
