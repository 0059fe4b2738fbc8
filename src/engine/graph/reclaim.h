// Cleanup records (docs/architecture.md, "Garbage collection"): before a cleanup deletes anything it
// writes audit/<ulid>.json naming the commits whose table data it keeps. A reader that finds a table
// version named by a published commit missing asks the records whether a cleanup reclaimed it
// (`history_reclaimed`) or the graph lost an object (`corrupt`). Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/graph/commit.h"
#include "io/object_store.h"
#include "omnigraph/result.h"

namespace omnigraph::engine {

struct CleanupRecord {
  std::string id;          // ULID; stored at audit/<id>.json
  int64_t started_us = 0;  // when the run read the refs
  int64_t grace_us = 0;
  std::optional<uint64_t> keep;
  std::optional<int64_t> older_than_us;
  std::optional<std::string> actor;
  // Commits whose table data the run kept; every other commit older than the run lost it (and,
  // unless another run kept it, its commit object).
  std::set<std::string> kept_commits;
  // Ancestry across the removed commits: for a kept commit with a parent the run removed, its
  // nearest kept ancestors (possibly none), by which merge bases are still found.
  std::map<std::string, std::vector<std::string>> grafts;
};

std::string CleanupRecordKey(std::string_view id);  // audit/<id>.json
// Creates the record (put_if_absent).
Status WriteCleanupRecord(io::ObjectStore& store, const CleanupRecord& record);
// Every cleanup record under audit/, oldest first (empty if no cleanup ever ran). `corrupt` for a
// damaged record. Cleanups may overlap (two processes), so a commit's data may have been taken by
// any of them, not only the newest.
Result<std::vector<CleanupRecord>> CleanupRecords(io::ObjectStore& store);
// Whether `record`'s run removed `commit`'s table data: it started after the commit was made and
// did not keep it.
bool ReclaimedBy(const CleanupRecord& record, const Commit& commit);
// The first record whose run reclaimed `commit`, or nullptr.
const CleanupRecord* ReclaimingRecord(const std::vector<CleanupRecord>& records, const Commit& commit);

// Whether `record`'s run removed the commit object `commit_id` (a ULID: its time is in the id):
// it started after the commit was made and did not keep it.
bool ReclaimedCommitId(const CleanupRecord& record, std::string_view commit_id);
// The error for a commit object `commit_id`, named by `named_by`, that is missing:
// `history_reclaimed` when a cleanup removed it, `corrupt` otherwise.
Status MissingCommitError(io::ObjectStore& store, std::string_view commit_id, std::string_view named_by);
// The newest graft of `commit_id` among the records, or nullopt when no run grafted it.
std::optional<std::vector<std::string>> GraftOf(const std::vector<CleanupRecord>& records, std::string_view commit_id);

// The error for a table version `key` of type `type_name`, named by `commit`, that is missing:
// `history_reclaimed` when a cleanup reclaimed the commit's data, `corrupt` otherwise.
Status MissingTableVersionError(io::ObjectStore& store, const Commit& commit, std::string_view type_name,
                                std::string_view key);

}  // namespace omnigraph::engine
