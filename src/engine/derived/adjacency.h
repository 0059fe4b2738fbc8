// Read-side acceleration structures of the query executor (issue 6; docs/architecture.md,
// "Derived structures and caches"): dense per-table-version row ordinals (id <-> ordinal, row
// address -> ordinal), column vectors indexed by ordinal, and CSR adjacency of an edge table
// version in both directions. All are derived from immutable table versions, so they are cached
// in-process by version id and never invalidated (GraphReadCache, read_cache.h), and persisted as
// derived objects of the graph root keyed by those versions (adjacency_store.h,
// docs/format/adjacency.md), so a cold process loads them. This header holds the data structures
// only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/check.h"
#include "engine/derived/row_remap.h"
#include "format/column.h"
#include "omnigraph/result.h"
#include "table/table_version.h"

namespace omnigraph::engine {

// A vector of a trivial type whose resize leaves new elements uninitialized: the arrays below are
// filled right after sizing, so zeroing them first would be a wasted pass over memory.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};
template <class T>
using PodVector = std::vector<T, DefaultInitAllocator<T>>;

// The live rows of one table version numbered 0..size()-1 in scan order (the order of
// TableVersion::ScanAll, which every column of ColumnFor follows). Flat arrays, which are also the
// persisted form (docs/format/adjacency.md): ids as offsets + bytes, row addresses in ordinal order
// plus the ordinals sorted by address, and an open-addressing hash table of ordinals by id. A built
// instance owns its arrays; a loaded one views them in the object's bytes (no copy, no rehashing).
// Immutable; thread-safe; not copyable (the views point into the instance).
class TableOrdinals {
 public:
  static Result<std::shared_ptr<const TableOrdinals>> Build(const table::TableVersion& version);
  // The ordinals of `version` derived from `base`, those of the version with manifest
  // `base_manifest`, when `version` follows it by deletes, upserts and appends (RelateVersions,
  // row_remap.h): the surviving rows keep their order, so their ids and addresses are copied in
  // runs; only the new fragments' ids are read. The hash slots are carried over (the dropped rows'
  // entries erased, the rest renumbered) when their count stays and the ids are known unique,
  // else hashed again. nullptr when the versions are not related that way, or the new rows'
  // addresses do not all follow the old ones (the caller builds instead).
  //
  // When `version` only appends rows (a node insert) and they are few (at most a sixteenth of the
  // base's), the result is an overlay instead: `base`'s arrays shared, untouched, and the new
  // rows held beside them in a tail (ids, addresses, a hash of the tail's ids), so the cost is the
  // new rows'. Overlays are not persisted.
  static Result<std::shared_ptr<const TableOrdinals>> Extend(const std::shared_ptr<const TableOrdinals>& base,
                                                             const table::Manifest& base_manifest,
                                                             const table::TableVersion& version);

  TableOrdinals() = default;
  TableOrdinals(const TableOrdinals&) = delete;
  TableOrdinals& operator=(const TableOrdinals&) = delete;

  uint32_t size() const { return static_cast<uint32_t>(addresses_.size()) + tail_rows(); }
  std::string_view id(uint32_t ordinal) const {
    if (ordinal >= addresses_.size()) [[unlikely]] {
      return TailId(ordinal - static_cast<uint32_t>(addresses_.size()));
    }
    return id_bytes_.substr(id_offsets_[ordinal], id_offsets_[ordinal + 1] - id_offsets_[ordinal]);
  }
  // The first row (in scan order) with this id.
  std::optional<uint32_t> Find(std::string_view id) const;
  // The ordinal of a live row address; nullopt for an address that is not a live row.
  std::optional<uint32_t> FromAddress(uint64_t address) const;
  // The row address of an ordinal (< size()).
  uint64_t address(uint32_t ordinal) const {
    if (ordinal >= addresses_.size()) [[unlikely]]
      return tail_->addresses[ordinal - addresses_.size()];
    return addresses_[ordinal];
  }
  // Whether this is an overlay of appended rows over shared arrays (Extend); not persisted.
  bool appended() const { return tail_ != nullptr; }
  // Whether Extend would take `rows` appended rows as a tail over these arrays (cheaply).
  bool CanAppend(uint64_t rows) const { return (uint64_t{tail_rows()} + rows) * 16 <= addresses_.size(); }
  // An estimate of the memory held (the cache's charge; an overlay's includes its base's).
  uint64_t memory_bytes() const {
    uint64_t bytes = loaded_.capacity() + built_.id_bytes.capacity() +
                     8 * (built_.id_offsets.capacity() + built_.addresses.capacity() + built_.slots.capacity()) +
                     4 * built_.by_address.capacity();
    if (tail_ != nullptr) {
      bytes += tail_->id_bytes.capacity() +
               8 * (tail_->id_offsets.capacity() + tail_->addresses.capacity() + tail_->slots.capacity()) +
               base_->memory_bytes();
    }
    return bytes;
  }

  // The hash table's slot count for `n` ids: the power of two >= 2n (at least 2), so at most half
  // the slots are used and a probe always reaches an empty one.
  static uint64_t SlotCount(uint64_t n);

 private:
  friend class AdjacencyCodec;  // adjacency_store.cc: the persisted form is these arrays
  // Points the views at built_.
  void ViewBuilt();
  // Fills the (zeroed) hash slots with ordinals [from, size()) (Build: from 0); keeps the first of
  // duplicate ids, and sets *duplicate when it meets one.
  Status FillSlots(uint32_t from, bool* duplicate);
  // The flat ordinals of an overlay (its base's rows, then its tail's).
  static Result<std::shared_ptr<const TableOrdinals>> Flatten(const TableOrdinals& o);
  // An overlay of `base` (flat, or an overlay whose tail it continues) plus the rows `ids` /
  // `addresses` appended (Extend, appends only).
  static std::shared_ptr<const TableOrdinals> Append(const std::shared_ptr<const TableOrdinals>& base,
                                                     const format::Column& ids, std::span<const uint64_t> addresses);

  // The rows an overlay appended to its base: the id of tail row i, and the count.
  struct Tail {
    PodVector<uint64_t> id_offsets;  // rows + 1, from 0
    std::string id_bytes;
    PodVector<uint64_t> addresses;  // ascending, all above the base's
    PodVector<uint64_t> slots;      // as slots_, of tail rows (tail row + 1)
  };
  uint32_t tail_rows() const { return tail_ != nullptr ? static_cast<uint32_t>(tail_->addresses.size()) : 0; }
  std::string_view TailId(uint32_t i) const {
    return std::string_view(tail_->id_bytes)
        .substr(tail_->id_offsets[i], tail_->id_offsets[i + 1] - tail_->id_offsets[i]);
  }

  std::span<const uint64_t> id_offsets_;  // n + 1: id i is id_bytes_[off[i], off[i+1])
  std::string_view id_bytes_;
  std::span<const uint64_t> addresses_;   // row address per ordinal
  std::span<const uint32_t> by_address_;  // ordinals sorted by row address
  // Open addressing (linear probing) by XxHash64(id): 0 = empty, else (hash >> 32) << 32 |
  // (ordinal + 1); the slot of a hash h starts at h & (size - 1).
  std::span<const uint64_t> slots_;
  struct Arrays {
    PodVector<uint64_t> id_offsets, addresses, slots;
    PodVector<uint32_t> by_address;
    std::string id_bytes;
  } built_;             // Build's arrays
  std::string loaded_;  // a loaded object's bytes (8-byte aligned)
  // Every id is known to be on one row only (built or extended: FillSlots met no duplicate; not
  // known for a loaded object).
  bool unique_ids_ = false;
  // An overlay (Append): the views above are base_'s arrays (base_ is flat), the tail holds the
  // rows after them.
  std::shared_ptr<const TableOrdinals> base_;
  std::shared_ptr<const Tail> tail_;
};

// Compressed sparse rows of one edge table version over dense node ordinals of its endpoint
// tables: out-lists per source ordinal and in-lists per destination ordinal, each sorted by
// (neighbour, edge ordinal), with the edge ordinal (row of the edge table, scan order) per slot.
// Edges whose endpoint id is not a live node are skipped (loads forbid them). Owned arrays when
// built, views into the object's bytes when loaded (as TableOrdinals). Immutable; not copyable.
class Csr {
 public:
  // `same_table`: source and destination are one node table (self loops are then src == dst).
  static Result<std::shared_ptr<const Csr>> Build(const table::TableVersion& edges, const TableOrdinals& src,
                                                  const TableOrdinals& dst, bool same_table);

  // The CSR of `edges` derived from `base`, the CSR of an earlier version (manifest `base_edges`)
  // of the same edge table over the same node ordinals `src` / `dst` (adjacency_delta.cc), when
  // `edges` keeps base_edges' fragments (in order, each with the same or more deleted rows) and appends new
  // ones, with id lookups only for the new edges. nullopt when the versions are not related that
  // way (compaction, a rewrite): build instead.
  //
  // When no edge of the flat arrays underneath is renumbered (appends, and deletes of edges added
  // since those arrays), the result is an overlay: the flat arrays shared, untouched, and the lists
  // that changed held beside them, so the cost is the changed lists', not the table's. Otherwise,
  // or once the overlay holds more than a sixteenth of the edges, one pass over the arrays
  // renumbers the surviving edges and merges the new ones into flat arrays.
  static Result<std::optional<std::shared_ptr<const Csr>>> Extend(const std::shared_ptr<const Csr>& base,
                                                                  const table::Manifest& base_edges,
                                                                  const table::TableVersion& edges,
                                                                  const TableOrdinals& src, const TableOrdinals& dst);

  Csr() = default;
  Csr(const Csr&) = delete;
  Csr& operator=(const Csr&) = delete;

  // The CSR of the same edges over node versions that append rows to `base`'s (ordinals
  // num_src() and up are new nodes, with no edges): `base`'s arrays and overlay lists shared, the
  // new nodes counted past the offsets (their lists empty), the self-loop bits copied. O(nodes / 64),
  // not O(edges). Precondition:
  // num_src >= base->num_src(), num_dst >= base->num_dst(), equal when same_table().
  static std::shared_ptr<const Csr> ExtendNodes(const std::shared_ptr<const Csr>& base, uint32_t num_src,
                                                uint32_t num_dst);

  // The CSR over node versions that follow `base`'s by deletes, upserts and appends
  // (NodeOrdinalMap below): `src_map` / `dst_map` give each old node ordinal its new one
  // (kDropped: the node is gone, its edges leave the lists; nullptr: the ordinals stay), and
  // `num_src` / `num_dst` count the new versions' nodes (nodes without an old ordinal get empty
  // lists). With `edge_remap`, also of an edge table version that only deleted rows (old edge
  // ordinal -> new, kDropped for a deleted edge; `edge_rows` live rows), as when a node delete
  // takes its edges: one pass for both. One pass over the lists (an overlay's read through its
  // lists); a list whose neighbours were renumbered out of order (an updated node is written
  // again at the end) is sorted again.
  static Result<std::shared_ptr<const Csr>> RemapNodes(const std::shared_ptr<const Csr>& base,
                                                       const std::vector<uint32_t>* src_map,
                                                       const std::vector<uint32_t>* dst_map, uint32_t num_src,
                                                       uint32_t num_dst, const RowRemap* edge_remap = nullptr,
                                                       uint64_t edge_rows = 0);

  uint32_t num_src() const { return static_cast<uint32_t>(out_offsets_.size() - 1) + extra_src_; }
  uint32_t num_dst() const { return static_cast<uint32_t>(in_offsets_.size() - 1) + extra_dst_; }
  uint64_t num_edges() const { return patch_ != nullptr ? patch_->num_edges : out_nodes_.size(); }
  // Whether this is an overlay over flat arrays (Extend); overlays are not persisted.
  bool overlaid() const { return patch_ != nullptr; }
  bool same_table() const { return same_table_; }
  // The edge table's live rows this CSR is for (edge ordinals); num_edges() is less when some edge
  // has an endpoint that is not a live node.
  uint64_t edge_rows() const { return edge_rows_; }

  // Destination ordinals / edge ordinals of the out-edges of source `s`, parallel spans.
  std::span<const uint32_t> OutNodes(uint32_t s) const {
    if (patch_ != nullptr) [[unlikely]] {
      if (const List* l = patch_->out.Find(s)) return l->nodes;
    }
    return Span(out_offsets_, out_nodes_, s);
  }
  std::span<const uint32_t> OutEdges(uint32_t s) const {
    if (patch_ != nullptr) [[unlikely]] {
      if (const List* l = patch_->out.Find(s)) return l->edges;
    }
    return Span(out_offsets_, out_edges_, s);
  }
  // Source ordinals / edge ordinals of the in-edges of destination `d`.
  std::span<const uint32_t> InNodes(uint32_t d) const {
    if (patch_ != nullptr) [[unlikely]] {
      if (const List* l = patch_->in.Find(d)) return l->nodes;
    }
    return Span(in_offsets_, in_nodes_, d);
  }
  std::span<const uint32_t> InEdges(uint32_t d) const {
    if (patch_ != nullptr) [[unlikely]] {
      if (const List* l = patch_->in.Find(d)) return l->edges;
    }
    return Span(in_offsets_, in_edges_, d);
  }
  // Whether some edge goes s -> d (binary search).
  bool HasEdge(uint32_t s, uint32_t d) const;
  // Whether node n has an edge to itself (same_table only; false otherwise).
  bool HasSelfLoop(uint32_t n) const {
    return same_table_ && n < num_src() && ((self_loop_[n / 64] >> (n % 64)) & 1) != 0;
  }
  // An estimate of the memory held (the cache's charge).
  uint64_t memory_bytes() const {
    if (patch_ != nullptr) return patch_->memory_bytes + 8 * built_.self_loop.capacity() + patch_->flat->memory_bytes();
    const uint64_t owner = lists_owner_ != nullptr ? lists_owner_->memory_bytes() : 0;
    return owner + loaded_.capacity() +
           8 * (built_.out_offsets.capacity() + built_.in_offsets.capacity() + built_.self_loop.capacity()) +
           4 * (built_.out_nodes.capacity() + built_.out_edges.capacity() + built_.in_nodes.capacity() +
                built_.in_edges.capacity());
  }

 private:
  friend class AdjacencyCodec;  // adjacency_store.cc
  // List i of offsets `off` over `v`; empty past the offsets (the nodes ExtendNodes added).
  static std::span<const uint32_t> Span(std::span<const uint64_t> off, std::span<const uint32_t> v, uint32_t i) {
    if (uint64_t{i} + 1 >= off.size()) [[unlikely]] {
      return {};
    }
    return std::span<const uint32_t>(v.data() + off[i], off[i + 1] - off[i]);
  }
  // `c` with offsets for all its nodes (ExtendNodes' counted ones written as empty lists): what
  // the passes over flat offsets (Extend's merge, the codec) need. `c` itself when it has them.
  static std::shared_ptr<const Csr> Materialized(const std::shared_ptr<const Csr>& c);
  // Points the views at built_.
  void ViewBuilt();

  // The lists of an overlay (Extend) that differ from its flat arrays.
  struct List {
    std::vector<uint32_t> nodes, edges;  // sorted by (node, edge), like a flat list
  };
  struct PatchSide {
    std::vector<uint64_t> bits;  // bit k: key k's list is in `lists`
    std::unordered_map<uint32_t, std::shared_ptr<const List>> lists;
    const List* Find(uint32_t k) const {
      if (((bits[k / 64] >> (k % 64)) & 1) == 0) return nullptr;
      return lists.find(k)->second.get();
    }
  };
  struct Patch {
    std::shared_ptr<const Csr> flat;  // not itself an overlay
    PatchSide out, in;
    uint64_t num_edges = 0;
    uint64_t entries = 0;       // list entries held by both sides
    uint64_t memory_bytes = 0;  // of the lists and bitmaps
  };
  using Adds = std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>;  // (key, neighbour, edge), sorted
  // Extend as an overlay of `base` whose edges [keep, old_rows) are dropped and `out_add` /
  // `in_add` added (adjacency_delta.cc); nullopt when it cannot or should not be one.
  static std::optional<std::shared_ptr<const Csr>> ExtendOverlay(const std::shared_ptr<const Csr>& base, uint64_t keep,
                                                                 uint64_t old_rows, uint64_t new_rows,
                                                                 const Adds& out_add, const Adds& in_add);
  // The flat CSR of an overlay's lists.
  static std::shared_ptr<const Csr> Flatten(const Csr& c);
  std::shared_ptr<const Patch> patch_;
  std::shared_ptr<const Csr> lists_owner_;  // ExtendNodes: the CSR whose arrays hold the lists

  static constexpr uint64_t kNoLists[1] = {0};  // the offsets of zero lists
  bool same_table_ = false;
  // Nodes past the offsets (ExtendNodes: appended nodes, whose lists are empty), by side.
  uint32_t extra_src_ = 0, extra_dst_ = 0;
  // The edge table's live rows (edge ordinals) this CSR is for; edges whose endpoints are gone
  // have ordinals but are in no list, so this can exceed num_edges().
  uint64_t edge_rows_ = 0;
  std::span<const uint64_t> out_offsets_{kNoLists}, in_offsets_{kNoLists};
  std::span<const uint32_t> out_nodes_, out_edges_, in_nodes_, in_edges_;
  std::span<const uint64_t> self_loop_;  // same_table: bit n of word n / 64 (num_src() bits)
  struct Arrays {
    PodVector<uint64_t> out_offsets, in_offsets, self_loop;
    PodVector<uint32_t> out_nodes, out_edges, in_nodes, in_edges;
  } built_;
  std::string loaded_;
};

// The endpoint ordinals of every edge of a CSR, by edge ordinal (src kNone for an edge the CSR
// leaves out: an endpoint that is not a live node). An edge scan (exec, Pipeline::ScanEdges) reads
// them to bind the endpoints of the edges its tests keep: both in one 8-byte entry, so that an
// edge costs one cache line. One pass over the out-lists.
struct EdgeEnds {
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Ends {
    uint32_t src, dst;
  };
  PodVector<Ends> ends;  // csr.edge_rows() entries
  static EdgeEnds Build(const Csr& csr);
  uint64_t memory_bytes() const { return 8 * ends.capacity() + 64; }
};

// Old ordinal -> new one for every row of `before` (the ordinals of the version with manifest
// `before_manifest`) among `after` (those of `after_version`), as a CSR build numbers its edges'
// endpoints: a surviving row by RelateVersions (row_remap.h); a dropped row by its id in `after`
// (an updated node is deleted and written again in a new fragment), else kDropped. nullopt when
// the versions are not related that way.
Result<std::optional<std::vector<uint32_t>>> NodeOrdinalMap(const TableOrdinals& before,
                                                            const table::Manifest& before_manifest,
                                                            const TableOrdinals& after,
                                                            const table::TableVersion& after_version);

// One column of `v` in scan order (the order ordinals number rows in); with `addresses`, also the
// row addresses in that order.
Result<format::Column> ScanColumn(const table::TableVersion& v, const std::string& name,
                                  PodVector<uint64_t>* addresses);

}  // namespace omnigraph::engine
