// Internals shared by merge.cc and merge_checks.cc (not a public interface).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/entity_diff.h"
#include "engine/merge.h"
#include "table/table_version.h"

namespace omnigraph::engine::merge_internal {

// One type's view of the merged result.
struct MergedType {
  std::string name;
  EntityKind kind = EntityKind::kNode;
  std::optional<table::TableVersion> table;             // the merged version
  const std::map<std::string, EntityChange>* source;    // base -> source changes (may be empty)
  const std::map<std::string, EntityChange>* target;    // base -> target changes
};

// Validates the merged result the way a load or mutation is validated (referential integrity,
// @unique, @card), looking only at what the merge could have broken: entities changed on either
// side since the base. Run on the candidate where entity-level conflicts keep the target's
// version, so it also lists what those conflicts hide. Appends conflicts; a Status only for read
// failures.
Status CheckMerged(const compiler::Catalog& catalog, const std::map<std::string, MergedType>& types,
                   std::vector<MergeConflict>* conflicts);

}  // namespace omnigraph::engine::merge_internal
