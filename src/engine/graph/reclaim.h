// Cleanup records (docs/architecture.md, "Garbage collection"): before a cleanup deletes anything it
// writes audit/<ulid>.json naming the commits whose table data it keeps. A reader that finds a table
// version named by a published commit missing asks the records whether a cleanup reclaimed it
// (`history_reclaimed`) or the graph lost an object (`corrupt`). Stateless; thread-safe.
#pragma once

#include <cstdint>
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
  // Commits whose table data the run kept; every other commit older than the run lost it.
  std::set<std::string> kept_commits;
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

// The error for a table version `key` of type `type_name`, named by `commit`, that is missing:
// `history_reclaimed` when a cleanup reclaimed the commit's data, `corrupt` otherwise.
Status MissingTableVersionError(io::ObjectStore& store, const Commit& commit, std::string_view type_name,
                                std::string_view key);

}  // namespace omnigraph::engine
