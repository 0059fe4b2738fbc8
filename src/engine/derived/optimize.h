// The second half of `omnigraph optimize`: builds and persists the derived read structures of a
// snapshot, normally a branch head (row ordinals of every node type, CSR adjacency of every edge
// type; docs/format/adjacency.md), so that every later process, read-only ones included, loads them
// instead of building them. Queries never write (the CLI opens read-only), so this is how a graph
// gets them; a writable embedded handle also writes them on its first traversal. Objects already
// present are left as they are. Database::Optimize first compacts the branch head in one commit
// (engine/maintain/compact.h) and then runs this on the resulting head.
// Thread-safe: concurrent runs on one snapshot write the same immutable objects.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/graph/snapshot.h"
#include "omnigraph/result.h"

namespace omnigraph::engine {

struct DerivedObjectStatus {
  std::string type_name;
  std::string kind;    // "ordinals" (node types) or "adjacency" (edge types)
  bool built = false;  // false: a persisted object was already there and loaded
};

struct OptimizeResult {
  std::vector<DerivedObjectStatus> objects;  // node types, then edge types, in catalog order
  uint64_t built = 0;
  uint64_t present = 0;
};

// PermissionDenied for a snapshot of a read-only handle (it may not write); the store's error when
// an object was built but could not be written (ResourceExhausted for a full disk or quota, Io and
// the others as they are; the message names the object and the path); the tables' read errors as
// they are.
Result<OptimizeResult> BuildDerivedObjects(const Snapshot& snap);

}  // namespace omnigraph::engine
