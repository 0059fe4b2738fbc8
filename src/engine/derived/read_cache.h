// The read cache of the query executor: row ordinals, columns and CSR adjacency (adjacency.h) per
// immutable table version, bounded by memory, filled from persisted derived objects
// (adjacency_store.h) or built from the tables.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/check.h"
#include "common/lru_cache.h"
#include "common/mutex.h"
#include "engine/derived/adjacency.h"
#include "engine/derived/row_remap.h"
#include "engine/graph/derived_store.h"
#include "format/column.h"
#include "omnigraph/result.h"
#include "table/table_version.h"

namespace omnigraph::engine {

// An in-process cache of the structures of adjacency.h, keyed by immutable table version ids (prefix +
// version id), shared by every query of a process or Database. Entries are never invalidated
// (versions never change); the least recently used ones are dropped while the estimated memory of
// all entries exceeds the budget. On a miss, ordinals and CSRs are first loaded from the derived
// objects of `derived` (adjacency_store.h); when absent they are built from the tables and, if
// `derived.writable`, written (put_if_absent) right away. A damaged or unknown persisted object is
// logged and ignored (rebuilt from the tables), never used and never an error. Thread-safe; builds
// run outside the lock (two racing builders both build; the first stored wins).
// The distinct values of a String column numbered 1, 2, ... in order of first appearance (0 =
// null), one code per row in scan order: grouping by the column reads a code per row instead of
// hashing and comparing its string (exec KeyCoder).
struct StringCodes {
  std::vector<uint32_t> code;
  uint32_t distinct = 0;
  uint64_t memory_bytes() const { return 4 * code.capacity() + 64; }
  static StringCodes Build(const format::Column& column);
};

class GraphReadCache {
 public:
  static constexpr uint64_t kDefaultBudgetBytes = uint64_t{1} << 30;
  explicit GraphReadCache(uint64_t budget_bytes = kDefaultBudgetBytes) : cache_(budget_bytes) {}

  Result<std::shared_ptr<const TableOrdinals>> Ordinals(const table::TableVersion& version,
                                                        const DerivedStore& derived = {});
  // Whether the version's ordinals are in memory, or cheap to derive: those served last for the
  // table are alive and the version only appended a few rows to them (TableOrdinals::Append).
  bool OrdinalsAtHand(const table::TableVersion& version);
  // The version's ordinals if they are in memory already (nullptr otherwise): never reads.
  std::shared_ptr<const TableOrdinals> CachedOrdinals(const table::TableVersion& version) {
    return cache_.Get<TableOrdinals>("o:" + Key(version));
  }
  // The ordinals served last for `version`'s table when they are of another version and still in
  // memory (nullptr otherwise). A row address names one immutable row, so a row live in both
  // versions has the same id and values: a point lookup in `version` can go through them
  // (Context::FindId) instead of deriving its own, which costs a pass over them after deletes.
  struct EarlierOrdinals {
    std::shared_ptr<const TableOrdinals> ordinals;
    SharedFragments shared;  // whose rows are the same in both versions
  };
  std::optional<EarlierOrdinals> EarlierOrdinalsFor(const table::TableVersion& version);
  // The column cached last for `version`'s table and this name, of another version whose ordinals
  // are cached too, when it is the same field (id and type): values of rows live in both versions
  // read from it (Context::PrefetchPoints) instead of from storage. nullopt otherwise.
  struct EarlierColumn {
    std::shared_ptr<const format::Column> column;
    std::shared_ptr<const TableOrdinals> ordinals;  // of the column's version
    SharedFragments shared;                         // whose rows are the same in both versions
  };
  std::optional<EarlierColumn> EarlierColumnFor(const table::TableVersion& version, const std::string& column);
  // One column of the version, indexed by ordinal; nullptr when the schema has no such column.
  Result<std::shared_ptr<const format::Column>> ColumnFor(const table::TableVersion& version,
                                                          const std::string& column);
  // Dense codes of a String column's distinct values, one per ordinal (StringCodes): built (from
  // the column) when `build`, else only the cached ones (nullptr when none). nullptr as well when
  // the schema has no such column.
  Result<std::shared_ptr<const StringCodes>> StringCodesFor(const table::TableVersion& version,
                                                            const std::string& column, bool build);
  // The column if it is cached already (nullptr otherwise): never reads anything.
  std::shared_ptr<const format::Column> CachedColumn(const table::TableVersion& version, const std::string& column);
  // Counts a point read of `column` (a few rows by address) and says whether to read it by point
  // still: false once it has been read by point kPointReadsBeforeWhole times in this cache, so a
  // column that keeps being asked for is then read whole (and cached) instead.
  static constexpr uint32_t kPointReadsBeforeWhole = 2;
  bool AllowPointRead(const table::TableVersion& version, const std::string& column);
  // On a miss, a CSR is derived from the CSR last served for an earlier version of the same edge
  // table when the versions are related by small writes: Csr::Extend for an edge table's writes,
  // Csr::ExtendNodes / RemapNodes for node inserts, deletes and updates (the old node versions'
  // ordinals must still be cached); at most one pass over the arrays. Such a CSR is kept in
  // memory only (not persisted: a write would otherwise cost a whole object), `optimize`
  // persists the version's own.
  Result<std::shared_ptr<const Csr>> CsrFor(const table::TableVersion& edges, const table::TableVersion& src,
                                            const table::TableVersion& dst, const DerivedStore& derived = {});
  // Whether the CSR of these versions is in memory, or cheap to derive: the CSR served last for
  // the edge table is alive, over the same node versions, and the edge table kept some of its
  // fragments (not after a compaction), so only small edge writes happened (Csr::Extend: an
  // overlay of the changed lists). After a node write, deriving it costs a pass
  // over the node arrays (ExtendNodes) or over every list (RemapNodes).
  bool CsrAtHand(const table::TableVersion& edges, const table::TableVersion& src, const table::TableVersion& dst);
  // A CSR in memory that the lists of the versions (edges, src, dst) can be read from one by one,
  // when deriving their own would cost a pass over every list (node deletes and updates since
  // the CSR was served: Csr::RemapNodes): the CSR served last for the edge table, whose every edge
  // has live endpoints, with the ordinals of the node versions it is over (cached), for the same
  // edge version or one that only deleted rows since. A list is then read by id: a node's list is
  // that of the ordinal holding its id in `src` (`dst`), each neighbour is the row holding that
  // neighbour's id now, each edge renumbered by `edge_remap` (kDropped: deleted). That is the list
  // a CSR of the new versions would hold: its edges are the old ones less the deleted ones, and
  // every endpoint binds by id. nullopt when there is no such CSR.
  struct CsrBasis {
    std::shared_ptr<const Csr> csr;
    std::shared_ptr<const TableOrdinals> src, dst;  // the ordinals the CSR is over
    SharedFragments src_shared, dst_shared;         // their fragments the node versions read share
    std::shared_ptr<const RowRemap> edge_remap;     // old edge ordinal -> new; nullptr: the same edges
  };
  Result<std::optional<CsrBasis>> CsrBasisFor(const table::TableVersion& edges, const table::TableVersion& src,
                                              const table::TableVersion& dst);
  // The endpoints of every edge (EdgeEnds) of `csr`, the CSR of `edges` over `src` / `dst`:
  // cached beside it (memory only); on a miss, those last derived for the same edge version when
  // the node versions only appended rows since, else derived from `csr`.
  std::shared_ptr<const EdgeEnds> EdgeEndsFor(const table::TableVersion& edges, const table::TableVersion& src,
                                              const table::TableVersion& dst, const Csr& csr);
  // The same if they are in memory already (nullptr otherwise): derives nothing.
  std::shared_ptr<const EdgeEnds> CachedEdgeEnds(const table::TableVersion& edges, const table::TableVersion& src,
                                                 const table::TableVersion& dst) {
    return cache_.Get<EdgeEnds>(EndsKey(edges, src, dst));
  }

  // A structure derived from one column of a version (a search index, engine/search/): the cached
  // one, else `build()`'s (a Result<T> needing a memory_bytes() const), cached under `kind`. Bound
  // to the version, so it is never stale.
  template <class T, class Build>
  Result<std::shared_ptr<const T>> DerivedFor(const table::TableVersion& version, std::string_view kind,
                                              const std::string& column, Build build) {
    return DerivedByKey<T>(kind, Key(version) + "/" + column, std::move(build));
  }

  // The same for a structure named by an immutable object key (an index segment shared by many
  // table versions): cached under `kind` + ":" + `key`.
  template <class T, class Build>
  Result<std::shared_ptr<const T>> DerivedByKey(std::string_view kind, const std::string& key, Build build) {
    const std::string full = std::string(kind) + ":" + key;
    if (auto hit = cache_.Get<T>(full)) return hit;
    Result<T> built = build();
    if (!built.ok()) return built.status();
    auto shared = std::make_shared<const T>(std::move(*built));
    cache_.Put(full, shared, shared->memory_bytes());
    return std::shared_ptr<const T>(shared);
  }

  // The derived structure if it is cached already (nullptr otherwise): builds nothing.
  template <class T>
  std::shared_ptr<const T> CachedDerived(const table::TableVersion& version, std::string_view kind,
                                         const std::string& column) {
    return cache_.Get<T>(std::string(kind) + ":" + Key(version) + "/" + column);
  }

  // The process-wide default instance.
  static GraphReadCache& Default();
  size_t size() const { return cache_.stats().entries; }
  ByteLruCache::Stats stats() const { return cache_.stats(); }

  // How the misses of Ordinals and CsrFor were served (for tests and benchmarks).
  struct Counts {
    uint64_t ordinals_built = 0, ordinals_loaded = 0;
    uint64_t csrs_built = 0, csrs_loaded = 0;
    uint64_t csrs_extended = 0;      // derived from an earlier version's (Extend, ExtendNodes, RemapNodes)
    uint64_t ordinals_extended = 0;  // derived from an earlier version's (TableOrdinals::Extend)
    uint64_t edge_ends_built = 0;    // EdgeEndsFor's misses derived from a CSR
    uint64_t edge_ends_shared = 0;   // ... taken over from the same edge version before node inserts
    uint64_t csr_bases = 0;          // CsrBasisFor's answers (a CSR of earlier versions to read lists from)
    uint64_t sorted_answers = 0;     // column tests answered through a sorted index (CountSorted)
    uint64_t sorted_runs_built = 0;  // ... and the fragment runs they built
    uint64_t written = 0;            // derived objects persisted (or already there: a racing writer)
    uint64_t rejected = 0;           // persisted objects ignored as damaged or of an unknown version
  };
  Counts counts() const;
  // A column test answered through a sorted index (table::SortedPositions), which built `runs`.
  void CountSorted(uint64_t runs) {
    sorted_answers_.fetch_add(1);
    sorted_runs_built_.fetch_add(runs);
  }
  // The first failed write of a derived object (its message names the object), or ok. A failed
  // write is only a warning to a query (the structure is used from memory), but `optimize`, whose
  // job is the write, reports it (engine/derived/optimize.h).
  Status first_write_error() const;

 private:
  void NoteWriteError(const std::string& object, const Status& s);

  static std::string Key(const std::string& prefix, const std::string& version_id) { return prefix + "@" + version_id; }
  static std::string Key(const table::TableVersion& v) { return Key(v.prefix(), v.version_id()); }
  static std::string EndsKey(const table::TableVersion& edges, const table::TableVersion& src,
                             const table::TableVersion& dst) {
    return "ends:" + Key(edges) + "|" + Key(src) + "|" + Key(dst);  // as the CSR's
  }
  // `base` (over the node versions with manifests old_src / old_dst) carried over to node versions
  // src / dst (ordinals so / dso) that follow them by appends (Csr::ExtendNodes) or by deletes and
  // upserts too (Csr::RemapNodes, which also applies `edge_remap`, an edge version's deletes, if
  // given, and then sets *edges_done); nullopt when they do not, or the old ordinals are not cached.
  Result<std::optional<std::shared_ptr<const Csr>>> FollowNodes(
      const std::shared_ptr<const Csr>& base, const table::Manifest& old_src, const table::Manifest& old_dst,
      const table::TableVersion& src, const table::TableVersion& dst, const TableOrdinals& so, const TableOrdinals& dso,
      const RowRemap* edge_remap, uint64_t edge_rows, bool* edges_done);

  ByteLruCache cache_;
  Mutex point_mu_;
  std::unordered_map<std::string, uint32_t> point_reads_ OG_GUARDED_BY(point_mu_);  // "version/column" -> reads
  std::atomic<uint64_t> ordinals_built_{0}, ordinals_loaded_{0}, csrs_built_{0}, csrs_loaded_{0}, csrs_extended_{0},
      ordinals_extended_{0}, edge_ends_built_{0}, edge_ends_shared_{0}, csr_bases_{0}, sorted_answers_{0},
      sorted_runs_built_{0};
  // The CSR last served per edge table (by prefix), to extend for the table's next version. Weak:
  // it does not keep an evicted CSR alive.
  struct LatestCsr {
    std::shared_ptr<const table::Manifest> edges;  // not a handle: its store may be gone
    std::string nodes;                             // Key(src) + "|" + Key(dst)
    std::weak_ptr<const Csr> csr;
    std::shared_ptr<const table::Manifest> src, dst;  // the node versions `nodes` names
  };
  Mutex latest_mu_;
  std::unordered_map<std::string, LatestCsr> latest_csr_ OG_GUARDED_BY(latest_mu_);
  // The ordinals last served per table (by prefix), to derive a later version's from
  // (TableOrdinals::Extend: deletes, upserts, appends).
  struct LatestOrdinals {
    std::shared_ptr<const table::Manifest> manifest;
    std::weak_ptr<const TableOrdinals> ordinals;
  };
  std::unordered_map<std::string, LatestOrdinals> latest_ordinals_ OG_GUARDED_BY(latest_mu_);
  // The edge endpoints last derived per edge table (by prefix), to serve the same edge version
  // over node versions that appended rows.
  struct LatestEnds {
    std::string edges;                                // Key(edge version)
    std::shared_ptr<const table::Manifest> src, dst;  // the node versions they were derived over
    std::weak_ptr<const EdgeEnds> ends;
  };
  std::unordered_map<std::string, LatestEnds> latest_ends_ OG_GUARDED_BY(latest_mu_);
  // The column cached last per table and field (prefix + "/" + name), for EarlierColumnFor.
  struct LatestColumn {
    std::shared_ptr<const table::Manifest> manifest;
    table::FieldId field = 0;
    TypeKind kind{};
    std::weak_ptr<const format::Column> column;
  };
  std::unordered_map<std::string, LatestColumn> latest_columns_ OG_GUARDED_BY(latest_mu_);
  // The edge step CsrBasisFor related last per edge table (by prefix): from, to (version ids).
  struct LatestEdgeStep {
    std::string from, to;
    std::shared_ptr<const RowRemap> remap;
  };
  std::unordered_map<std::string, LatestEdgeStep> edge_steps_ OG_GUARDED_BY(latest_mu_);
  std::atomic<uint64_t> written_{0}, rejected_{0};
  mutable Mutex write_error_mu_;
  Status first_write_error_ OG_GUARDED_BY(write_error_mu_);
};

}  // namespace omnigraph::engine
