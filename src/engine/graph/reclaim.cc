#include "engine/graph/reclaim.h"

#include "common/clock.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/ulid.h"
#include "engine/graph/graph_layout.h"
#include "engine/graph/sealed_json.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kCleanupKind = "cleanup";

Json RecordToJson(const CleanupRecord& r) {
  Json j = Json::object();
  j["kind"] = kCleanupKind;
  j["id"] = r.id;
  j["started_us"] = r.started_us;
  j["grace_us"] = r.grace_us;
  j["keep"] = r.keep ? Json(*r.keep) : Json(nullptr);
  j["older_than_us"] = r.older_than_us ? Json(*r.older_than_us) : Json(nullptr);
  j["actor"] = r.actor ? Json(*r.actor) : Json(nullptr);
  Json kept = Json::array();
  for (const auto& c : r.kept_commits) kept.push_back(c);
  j["kept_commits"] = std::move(kept);
  if (!r.grafts.empty()) {
    Json grafts = Json::object();
    for (const auto& [c, ps] : r.grafts) grafts[c] = ps;
    j["grafts"] = std::move(grafts);
  }
  return j;
}

Result<CleanupRecord> RecordFromJson(const Json& j, std::string_view what) {
  CleanupRecord r;
  OG_ASSIGN_OR_RETURN(r.id, GetString(j, "id", what));
  OG_ASSIGN_OR_RETURN(r.started_us, GetInt(j, "started_us", what));
  OG_ASSIGN_OR_RETURN(r.grace_us, GetInt(j, "grace_us", what));
  if (j.contains("keep") && !j["keep"].is_null()) {
    OG_ASSIGN_OR_RETURN(uint64_t keep, GetUint(j, "keep", what));
    r.keep = keep;
  }
  if (j.contains("older_than_us") && !j["older_than_us"].is_null()) {
    OG_ASSIGN_OR_RETURN(int64_t older, GetInt(j, "older_than_us", what));
    r.older_than_us = older;
  }
  if (j.contains("actor") && j["actor"].is_string()) r.actor = j["actor"].get<std::string>();
  OG_ASSIGN_OR_RETURN(const Json* kept, GetArray(j, "kept_commits", what));
  for (const auto& c : *kept) {
    if (!c.is_string()) return CorruptError(std::string(what) + ": kept_commits holds a non-string");
    r.kept_commits.insert(c.get<std::string>());
  }
  if (j.contains("grafts")) {
    const Json& g = j["grafts"];
    if (!g.is_object()) return CorruptError(std::string(what) + ": grafts is not an object");
    for (const auto& [c, ps] : g.items()) {
      std::vector<std::string>& out = r.grafts[c];
      if (!ps.is_array()) return CorruptError(std::string(what) + ": the graft of " + c + " is not an array");
      for (const auto& p : ps) {
        if (!p.is_string()) return CorruptError(std::string(what) + ": the graft of " + c + " holds a non-string");
        out.push_back(p.get<std::string>());
      }
    }
  }
  return r;
}

}  // namespace

std::string CleanupRecordKey(std::string_view id) { return std::string(kAuditPrefix) + std::string(id) + ".json"; }

Status WriteCleanupRecord(io::ObjectStore& store, const CleanupRecord& record) {
  return store.PutIfAbsent(CleanupRecordKey(record.id), SealJson(RecordToJson(record)));
}

Result<std::vector<CleanupRecord>> CleanupRecords(io::ObjectStore& store) {
  OG_ASSIGN_OR_RETURN(auto keys, store.List(kAuditPrefix));
  std::vector<CleanupRecord> out;
  for (const auto& meta : keys) {  // ULID names: oldest first. Other kinds of record are skipped.
    auto bytes = store.Get(meta.key);
    if (!bytes.ok() && bytes.status().category() == StatusCode::kNotFound) continue;
    OG_RETURN_IF_ERROR(bytes.status());
    OG_ASSIGN_OR_RETURN(UnsealedJson u, UnsealJson(*bytes, meta.key));
    if (!u.body.is_object() || !u.body.contains("kind") || u.body["kind"] != kCleanupKind) continue;
    OG_ASSIGN_OR_RETURN(CleanupRecord r, RecordFromJson(u.body, meta.key));
    out.push_back(std::move(r));
  }
  return out;
}

bool ReclaimedBy(const CleanupRecord& record, const Commit& commit) {
  return commit.timestamp_us < record.started_us && !record.kept_commits.contains(commit.id);
}

const CleanupRecord* ReclaimingRecord(const std::vector<CleanupRecord>& records, const Commit& commit) {
  for (const auto& r : records) {
    if (ReclaimedBy(r, commit)) return &r;
  }
  return nullptr;
}

bool ReclaimedCommitId(const CleanupRecord& record, std::string_view commit_id) {
  auto u = Ulid::Parse(commit_id);
  if (!u.ok()) return false;
  // The sweep deletes only objects whose ULID millisecond precedes the run's start.
  return static_cast<int64_t>(u->timestamp_ms()) < record.started_us / 1000 &&
         !record.kept_commits.contains(std::string(commit_id));
}

Status MissingCommitError(io::ObjectStore& store, std::string_view commit_id, std::string_view named_by) {
  auto records = CleanupRecords(store);
  if (records.ok()) {
    for (const auto& r : *records) {
      if (!ReclaimedCommitId(r, commit_id)) continue;
      return Status(ErrorCode::kHistoryReclaimed, "commit " + std::string(commit_id) + " was reclaimed by cleanup " +
                                                      r.id + " at " + FormatMicrosIso(r.started_us) +
                                                      "; only the kept history (`omnigraph commit list`) can be read");
    }
  }
  return CorruptError("commit object " + CommitKey(commit_id) + ", named by " + std::string(named_by) + ", is missing");
}

std::optional<std::vector<std::string>> GraftOf(const std::vector<CleanupRecord>& records, std::string_view commit_id) {
  for (auto r = records.rbegin(); r != records.rend(); ++r) {
    auto it = r->grafts.find(std::string(commit_id));
    if (it != r->grafts.end()) return it->second;
  }
  return std::nullopt;
}

Status MissingTableVersionError(io::ObjectStore& store, const Commit& commit, std::string_view type_name,
                                std::string_view key) {
  auto records = CleanupRecords(store);
  const CleanupRecord* by = records.ok() ? ReclaimingRecord(*records, commit) : nullptr;
  if (by != nullptr) {
    return Status(ErrorCode::kHistoryReclaimed, "the data of commit " + commit.id + " (type '" +
                                                    std::string(type_name) + "') was reclaimed by cleanup " + by->id +
                                                    " at " + FormatMicrosIso(by->started_us) +
                                                    "; only the kept history (`omnigraph commit list`) can be read");
  }
  return CorruptError("table version " + std::string(key) + " of type '" + std::string(type_name) +
                      "', named by commit " + commit.id + ", is missing");
}

}  // namespace omnigraph::engine
