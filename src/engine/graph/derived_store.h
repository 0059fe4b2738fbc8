// Where the derived objects of a graph (docs/format/adjacency.md: persisted row ordinals and CSR
// adjacency under `derived/`) are read and written, and whether this handle may write them. A
// snapshot carries one (Snapshot::derived()); the executor hands it to GraphReadCache.
// Thread-compatible value; the store it names is thread-safe.
#pragma once

#include "io/object_store.h"

namespace omnigraph::engine {

struct DerivedStore {
  // The graph root; nullptr: nothing is read from or written to storage (in-memory cache only).
  io::ObjectStore* store = nullptr;
  // False for read-only handles and for a writer's staged snapshot (effects stay staged): such
  // handles read persisted objects but never write any.
  bool writable = false;
};

}  // namespace omnigraph::engine
