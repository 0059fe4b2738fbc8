// Garbage collection (`omnigraph cleanup`; docs/architecture.md, "Garbage collection"). Marks from
// one consistent read of every ref log: per live branch its head, its newest `keep` ref entries
// and the entries newer than `older_than`, plus the merge base of every pair of live branches (so
// merges keep working). Every object those commits reach (table manifests, fragments, deletion
// vectors, blobs, index segments, derived objects of those versions) is kept; every other object
// under tables/, derived/ and commits/ (old versions, deleted branches, failed writes' leftovers)
// is deleted once it is older than the grace period. The history goes with its data: commit objects
// of commits not kept, and each ref log below a floor (refs/<hex>/F<seq>, written first; the head
// and its predecessor always stay), so after `--keep 1` the graph holds O(live data) objects and
// `commit list` shows the kept part. The record grafts each kept commit whose parent went onto its
// nearest kept ancestors, so merge bases are still found (Graph::ParentIds). Schemas are kept.
// Reading reclaimed history is `history_reclaimed` (graph/reclaim.h). Before deleting anything the
// run writes its record (audit/<ulid>.json); manifests go before the objects they name, so a crash
// at any point leaves a readable graph, and the next run finishes the job.
//
// The other side of the grace rule lives in Graph::Write: an attempt older than half the grace
// period is never published. Cleanup stops deleting once half the grace period has passed since it
// read the refs (`completed` = false), so neither side can outrun the other.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/graph/graph.h"
#include "omnigraph/result.h"

namespace omnigraph::engine {

struct CleanupPolicy {
  std::optional<uint64_t> keep;          // newest N ref entries of each live branch (>= 1)
  std::optional<int64_t> older_than_us;  // and every entry younger than this
  int64_t grace_us = int64_t{3600} * 1000000;
  bool confirm = false;  // false: a preview that deletes nothing
};

struct CleanupKindCount {
  uint64_t objects = 0;
  uint64_t bytes = 0;
  bool operator==(const CleanupKindCount&) const = default;
};

// Per table: what went (or would go).
struct TableCleanup {
  std::string type_name;  // the newest name the table had in any commit read (its id if none)
  std::string table_id;
  EntityKind kind = EntityKind::kNode;
  uint64_t versions_removed = 0;
  uint64_t objects_removed = 0;
  uint64_t bytes_removed = 0;
};

struct GraphCleanup {
  bool confirmed = false;  // false: nothing was deleted (preview)
  bool completed = true;   // false: stopped at half the grace period; run again
  std::string record_id;   // the audit record (empty when nothing was deleted)
  uint64_t kept_commits = 0;
  uint64_t unkept_commits = 0;  // published commits outside the kept history (their data goes)
  uint64_t kept_objects = 0;
  uint64_t young_objects = 0;  // unreachable but younger than the grace period: left alone
  // "manifest", "fragment", "deletion", "blob", "index", "derived", "commit", "ref_entry",
  // "ref_floor" (a lower floor a higher one replaced).
  std::map<std::string, CleanupKindCount> removed;
  std::vector<TableCleanup> tables;  // sorted by type name
};

// `invalid_argument` without keep or older_than, or for keep == 0 or a negative duration. A
// `corrupt` ref log, commit or kept manifest stops the run before anything is deleted.
Result<GraphCleanup> CleanupGraph(Graph& graph, const CleanupPolicy& policy);

}  // namespace omnigraph::engine
