// A graph snapshot (docs/architecture.md, "Commits, ref logs and the write protocol"): one commit,
// with its schema and the table version of every type, resolved from a branch head, a commit id, or
// a (branch, seq) pair. Immutable; cheap to copy; tables open lazily and are cached per snapshot.
// Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "common/lru_cache.h"
#include "common/mutex.h"
#include "compiler/catalog.h"
#include "engine/graph/commit.h"
#include "engine/graph/derived_store.h"
#include "engine/graph/ref_log.h"
#include "io/object_store.h"
#include "table/table_cache.h"
#include "table/table_version.h"

namespace omnigraph::engine {

// Table manifests by "<table_id>/<version_id>", shared by every snapshot of a graph: manifests are
// immutable, so a warm process opens a table version without any request. Bounded by estimated
// bytes (least recently used dropped first). Thread-safe.
class ManifestCache {
 public:
  static constexpr uint64_t kDefaultBudgetBytes = uint64_t{64} << 20;
  explicit ManifestCache(uint64_t budget_bytes = kDefaultBudgetBytes) : cache_(budget_bytes) {}
  std::shared_ptr<const table::Manifest> Get(const std::string& key);
  void Put(const std::string& key, std::shared_ptr<const table::Manifest> manifest);

 private:
  ByteLruCache cache_;
};

class Snapshot {
 public:
  Snapshot(io::ObjectStore* store, std::shared_ptr<const Commit> commit,
           std::shared_ptr<const compiler::Catalog> catalog, std::optional<RefEntry> ref, std::string branch,
           std::shared_ptr<table::TableCache> cache, std::shared_ptr<ManifestCache> manifests,
           DerivedStore derived = {});

  // The same snapshot reading and writing through another store (the write path's staging store).
  // Its derived objects are still read from the graph root but never written (effects stay staged).
  Snapshot Rebind(io::ObjectStore* store) const;
  // A snapshot of another table map and schema (not a stored commit: `commit` may be synthetic,
  // e.g. this one carried into a descendant schema, graph/schema_carry.h), reading and writing
  // through `store`, sharing this one's caches; its derived objects are never written.
  Snapshot WithCommit(io::ObjectStore* store, std::shared_ptr<const Commit> commit,
                      std::shared_ptr<const compiler::Catalog> catalog) const;

  // The branch it was resolved from (empty for a bare commit id) and its ref entry.
  const std::string& branch() const { return branch_; }
  const std::optional<RefEntry>& ref() const { return ref_; }
  uint64_t seq() const { return ref_ ? ref_->seq : 0; }
  const Commit& commit() const { return *commit_; }
  const std::shared_ptr<const Commit>& shared_commit() const { return commit_; }
  const compiler::Catalog& catalog() const { return *catalog_; }
  const std::shared_ptr<const compiler::Catalog>& shared_catalog() const { return catalog_; }
  io::ObjectStore& store() const { return *store_; }
  // Where persisted derived structures (row ordinals, CSR adjacency) are read and written.
  const DerivedStore& derived() const { return derived_; }

  // The table of a node or edge type at this snapshot. NotFound for an unknown type.
  Result<table::TableVersion> Table(std::string_view type_name) const;
  // Live rows per type name.
  Result<std::map<std::string, uint64_t>> RowCounts() const;
  // The types whose tables were opened through this snapshot (or a copy of it) so far: the read
  // set of a writer's prepare step, which gets a fresh rebound snapshot (Graph::Write).
  std::set<std::string> TablesRead() const;

 private:
  struct Tables {
    Mutex mu;
    std::map<std::string, table::TableVersion, std::less<>> open OG_GUARDED_BY(mu);
  };
  io::ObjectStore* store_;
  std::shared_ptr<const Commit> commit_;
  std::shared_ptr<const compiler::Catalog> catalog_;
  std::optional<RefEntry> ref_;
  std::string branch_;
  std::shared_ptr<table::TableCache> cache_;
  std::shared_ptr<ManifestCache> manifests_;
  DerivedStore derived_;
  std::shared_ptr<Tables> tables_;
};

}  // namespace omnigraph::engine
