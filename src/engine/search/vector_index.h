// The ANN index of one Vector(N) column (docs/search.md, "Indexes"): an HNSW graph (Debian's
// hnswlib) over squared L2 distance, whose labels are the indexed rows' addresses. A table version
// names it as an index segment of kind "vector" covering a set of fragments
// (table/manifest.h IndexSegmentMeta); `omnigraph optimize` builds it
// (engine/maintain/search_indexes.h). Queries use it for the candidates of a nearest() ranking and
// re-rank them exactly (engine/exec/executor_search.cc); rows of fragments it does not cover, and
// small or heavily filtered candidate sets, are searched exactly.
//
// The object: "OGVECIX1", format version (u32), dimension (u32), rows (u64), M (u32),
// ef_construction (u32), hnswlib's serialized index, then xxhash64 of everything before it (u64),
// all little-endian. Decoding checks the hash before hnswlib sees a byte.
// Immutable once built or decoded; Search is thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "omnigraph/result.h"

namespace hnswlib {
template <typename T>
class HierarchicalNSW;
template <typename T>
class SpaceInterface;
}  // namespace hnswlib

namespace omnigraph::engine::search {

// The index kind a manifest's IndexSegmentMeta::kind names for an ANN segment, and the file name
// of its object inside its idx/<ulid>/ folder.
inline constexpr std::string_view kVectorIndexKind = "vector";
inline constexpr std::string_view kVectorIndexFile = "vector.hnsw";

struct HnswParams {
  uint32_t m = 16;                 // graph degree (2M on the base layer)
  uint32_t ef_construction = 100;  // candidate list while inserting
  uint32_t threads = 0;            // build threads; 0 = hardware concurrency
};

class VectorIndex {
 public:
  static constexpr uint32_t kFormatVersion = 1;

  VectorIndex();
  VectorIndex(VectorIndex&&) noexcept;
  VectorIndex& operator=(VectorIndex&&) noexcept;
  ~VectorIndex();

  // Indexes `labels.size()` vectors of `dim` floats: vector(i) is labelled labels[i].
  // InvalidArgument for dim 0 or a vector of another length; ResourceExhausted when hnswlib cannot
  // allocate.
  static Result<VectorIndex> Build(uint32_t dim, std::span<const uint64_t> labels,
                                   const std::function<std::span<const float>(size_t)>& vector,
                                   const HnswParams& params = {});

  // Folds a delta into this index (`optimize` after writes): the rows `labels` (vector(i) for
  // labels[i], all new) are added and the labels `gone` (rows deleted or rewritten since) are
  // marked deleted, so searches never return them (they stay in the graph as waypoints).
  // InvalidArgument for a vector of another length; ResourceExhausted when hnswlib cannot
  // allocate.
  Status Extend(std::span<const uint64_t> gone, std::span<const uint64_t> labels,
                const std::function<std::span<const float>(size_t)>& vector);
  // Renames labels (rows a compaction moved to new addresses): each (old, new) pair with `old` in
  // the index. InvalidArgument for a label the index does not hold.
  Status Relabel(std::span<const std::pair<uint64_t, uint64_t>> renames);
  // Every label not marked deleted, and the count of those marked.
  std::vector<uint64_t> Labels() const;
  uint64_t deleted() const;

  // The object's bytes.
  Result<std::string> Encode() const;
  // `corrupt` (naming `key`) for damaged bytes, a failed checksum, a wrong structure or a dimension
  // other than `dim`; `format_too_new` for a version above kFormatVersion.
  static Result<VectorIndex> Decode(std::string_view object, uint32_t dim, std::string_view key);

  // About `k` labels nearest `query` (exactly `k` when the index holds that many), ascending by
  // their approximate distance; the search's candidate list is max(k, ef).
  std::vector<std::pair<float, uint64_t>> Search(std::span<const float> query, size_t k, size_t ef) const;

  uint32_t dim() const { return dim_; }
  uint64_t size() const { return rows_; }
  uint64_t memory_bytes() const { return memory_bytes_; }

 private:
  // Adds `labels` (checking every vector's length first), in parallel on `threads` (0 = all).
  Status AddAll(std::span<const uint64_t> labels, const std::function<std::span<const float>(size_t)>& vector,
                uint32_t threads);

  uint32_t dim_ = 0;
  uint64_t rows_ = 0;
  uint64_t memory_bytes_ = 0;
  HnswParams params_;
  std::unique_ptr<hnswlib::SpaceInterface<float>> space_;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> hnsw_;
};

}  // namespace omnigraph::engine::search
