// Read-side acceleration structures of the query executor (issue 6, ARCHITECTURE.md engine):
// dense per-table-version row ordinals (id <-> ordinal, row address -> ordinal), column vectors
// indexed by ordinal, and CSR adjacency of an edge table version in both directions. All are
// derived from immutable table versions, so they are cached in-process by version id and never
// invalidated (GraphReadCache, bounded).
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/lru_cache.h"
#include "format/column.h"
#include "omnigraph/result.h"
#include "table/table_version.h"

namespace omnigraph::engine {

// The live rows of one table version numbered 0..size()-1 in scan order (the order of
// TableVersion::ScanAll, which every column of ColumnFor follows). Immutable; thread-safe.
class TableOrdinals {
 public:
  static Result<std::shared_ptr<const TableOrdinals>> Build(const table::TableVersion& version);

  uint32_t size() const { return static_cast<uint32_t>(ids_.length()); }
  std::string_view id(uint32_t ordinal) const { return ids_.string_at(ordinal); }
  // The first row (in scan order) with this id.
  std::optional<uint32_t> Find(std::string_view id) const;
  // The ordinal of a live row address; nullopt for an address that is not a live row.
  std::optional<uint32_t> FromAddress(uint64_t address) const;
  // An estimate of the memory held (the cache's charge).
  uint64_t memory_bytes() const {
    return ids_.memory_bytes() + by_id_.size() * 48 + by_id_.bucket_count() * 8 + by_address_.size() * 16;
  }

 private:
  format::Column ids_;                                     // String, one per ordinal
  std::unordered_map<std::string_view, uint32_t> by_id_;  // views into ids_
  std::vector<std::pair<uint64_t, uint32_t>> by_address_;  // sorted by address
};

// Compressed sparse rows of one edge table version over dense node ordinals of its endpoint
// tables: out-lists per source ordinal and in-lists per destination ordinal, each sorted by
// (neighbour, edge ordinal), with the edge ordinal (row of the edge table, scan order) per slot.
// Edges whose endpoint id is not a live node are skipped (loads forbid them). Immutable.
class Csr {
 public:
  // `same_table`: source and destination are one node table (self loops are then src == dst).
  static Result<std::shared_ptr<const Csr>> Build(const table::TableVersion& edges,
                                                  const TableOrdinals& src,
                                                  const TableOrdinals& dst, bool same_table);

  uint32_t num_src() const { return static_cast<uint32_t>(out_offsets_.size() - 1); }
  uint32_t num_dst() const { return static_cast<uint32_t>(in_offsets_.size() - 1); }
  uint64_t num_edges() const { return out_nodes_.size(); }
  bool same_table() const { return same_table_; }

  // Destination ordinals / edge ordinals of the out-edges of source `s`, parallel spans.
  std::span<const uint32_t> OutNodes(uint32_t s) const { return Span(out_offsets_, out_nodes_, s); }
  std::span<const uint32_t> OutEdges(uint32_t s) const { return Span(out_offsets_, out_edges_, s); }
  // Source ordinals / edge ordinals of the in-edges of destination `d`.
  std::span<const uint32_t> InNodes(uint32_t d) const { return Span(in_offsets_, in_nodes_, d); }
  std::span<const uint32_t> InEdges(uint32_t d) const { return Span(in_offsets_, in_edges_, d); }
  // Whether some edge goes s -> d (binary search).
  bool HasEdge(uint32_t s, uint32_t d) const;
  // Whether node n has an edge to itself (same_table only; false otherwise).
  bool HasSelfLoop(uint32_t n) const { return same_table_ && n < self_loop_.size() && self_loop_[n]; }
  // An estimate of the memory held (the cache's charge).
  uint64_t memory_bytes() const {
    return 8 * (out_offsets_.size() + in_offsets_.size()) +
           4 * (out_nodes_.size() + out_edges_.size() + in_nodes_.size() + in_edges_.size()) + self_loop_.size() / 8;
  }

 private:
  static std::span<const uint32_t> Span(const std::vector<uint64_t>& off,
                                        const std::vector<uint32_t>& v, uint32_t i) {
    return std::span<const uint32_t>(v.data() + off[i], off[i + 1] - off[i]);
  }
  bool same_table_ = false;
  std::vector<uint64_t> out_offsets_{0}, in_offsets_{0};
  std::vector<uint32_t> out_nodes_, out_edges_, in_nodes_, in_edges_;
  std::vector<bool> self_loop_;
};

// An in-process cache of the structures above, keyed by immutable table version ids (prefix +
// version id), shared by every query of a process or Database. Entries are never invalidated
// (versions never change); the least recently used ones are dropped while the estimated memory of
// all entries exceeds the budget. Thread-safe; builds run outside the lock (two racing builders
// both build; the first stored wins).
class GraphReadCache {
 public:
  static constexpr uint64_t kDefaultBudgetBytes = uint64_t{1} << 30;
  explicit GraphReadCache(uint64_t budget_bytes = kDefaultBudgetBytes) : cache_(budget_bytes) {}

  Result<std::shared_ptr<const TableOrdinals>> Ordinals(const table::TableVersion& version);
  // One column of the version, indexed by ordinal; nullptr when the schema has no such column.
  Result<std::shared_ptr<const format::Column>> ColumnFor(const table::TableVersion& version,
                                                          const std::string& column);
  Result<std::shared_ptr<const Csr>> CsrFor(const table::TableVersion& edges,
                                            const table::TableVersion& src,
                                            const table::TableVersion& dst);

  // The process-wide default instance.
  static GraphReadCache& Default();
  size_t size() const { return cache_.stats().entries; }
  ByteLruCache::Stats stats() const { return cache_.stats(); }

 private:
  static std::string Key(const table::TableVersion& v) { return v.prefix() + "@" + v.version_id(); }

  ByteLruCache cache_;
};

}  // namespace omnigraph::engine
