// Internals shared by merge.cc and merge_checks.cc (not a public interface).
// Thread-safe: pure functions over immutable snapshots.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/diff/entity_diff.h"
#include "engine/merge/merge.h"
#include "table/predicate.h"
#include "table/table_version.h"

namespace omnigraph::engine::merge_internal {

// One type's view of the merged result.
struct MergedType {
  std::string name;
  EntityKind kind = EntityKind::kNode;
  std::optional<table::TableVersion> table;           // the merged version
  const std::map<std::string, EntityChange>* source;  // base -> source changes (may be empty)
  const std::map<std::string, EntityChange>* target;  // base -> target changes
};

// A scan filter keeping at least every row whose `column` equals one of `values` (nulls never
// match), cheap to evaluate and prunable by fragment and page statistics: IN for a few values
// (IN costs one comparison per value per row); for more, an OR of at most kMaxRanges ranges of
// the sorted values, cut at the largest gaps. A superset: callers check exact membership. TRUE
// (no pruning) when the column's type has no order.
inline constexpr size_t kMaxInValues = 16;
inline constexpr size_t kMaxRanges = 16;
table::Predicate AnyOf(const table::TableVersion& t, const std::string& column, std::vector<Value> values);

// The live rows of `t` whose id is one of `ids`, as (id, row address): a scan of the id column
// filtered by AnyOf (reads only the pages whose statistics may hold one of the ids, instead of
// loading the whole id index).
Result<std::vector<std::pair<std::string, uint64_t>>> FindIds(const table::TableVersion& t,
                                                              const std::set<std::string>& ids);

// Validates the merged result the way a load or mutation is validated (referential integrity,
// @unique, @card), looking only at what the merge could have broken: entities changed on either
// side since the base. Run on the candidate where entity-level conflicts keep the target's
// version, so it also lists what those conflicts hide. Appends conflicts; a Status only for read
// failures.
Status CheckMerged(const compiler::Catalog& catalog, const std::map<std::string, MergedType>& types,
                   std::vector<MergeConflict>* conflicts);

}  // namespace omnigraph::engine::merge_internal
