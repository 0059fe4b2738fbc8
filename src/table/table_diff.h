// Structural diff between two versions of one table (docs/architecture.md,
// "Tables, fragments, manifests, versions"; docs/format/table.md "Diff"): the exact row addresses
// inserted and deleted, computed from the fragment lists and deletion vectors alone. A fragment is
// the same in both versions when its id and file key match; identical deletion-vector keys cost
// nothing, so the work (and the reads: at most one Get per changed deletion vector) is proportional
// to the change, not to the table.
#pragma once

#include <cstdint>
#include <vector>

#include "omnigraph/result.h"
#include "table/table_version.h"

namespace omnigraph::table {

struct TableDiff {
  std::vector<uint64_t> deleted;   // addresses in `from`, ascending: live there, not in `to`
  std::vector<uint64_t> inserted;  // addresses in `to`, ascending: live there, not in `from`
  uint64_t deletion_vectors_read = 0;
};

// Rows rewritten by compaction appear as deleted + inserted (pair them by key to see updates).
// InvalidArgument if the versions belong to different tables (prefixes). Thread-safe.
Result<TableDiff> DiffVersions(const TableVersion& from, const TableVersion& to);

}  // namespace omnigraph::table
