// The id index (ARCHITECTURE.md §5; docs/format/table.md "Id index segments"): key column value
// -> row address of the live row, for one table version. Persisted as immutable segments
// (idx/<ulid>/id.seg, each covering the fragments of one write), so opening a large table reads
// the segments instead of the key column; a new version reuses the segments of unchanged
// fragments, and fragments no segment covers are indexed in memory from their key column, so
// lookups are correct at any coverage.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "omnigraph/result.h"
#include "table/manifest.h"
#include "table/table_version.h"

namespace omnigraph::table {

// One sorted run of (key, row address) entries. Immutable; thread-safe.
class IdSegment {
 public:
  // Sorts `entries` by key (then address).
  static IdSegment Build(std::vector<std::pair<std::string, uint64_t>> entries);
  // Corrupt naming `what` on a bad magic, version, length or checksum.
  static Result<IdSegment> Parse(std::string_view bytes, std::string_view what);
  std::string Serialize() const;

  size_t size() const { return addresses_.size(); }
  std::string_view key(size_t i) const {
    return std::string_view(keys_).substr(offsets_[i], offsets_[i + 1] - offsets_[i]);
  }
  uint64_t address(size_t i) const { return addresses_[i]; }
  // Index range [first, last) of entries equal to `key`.
  std::pair<size_t, size_t> EqualRange(std::string_view key) const;

 private:
  std::string keys_;
  std::vector<uint64_t> offsets_{0};
  std::vector<uint64_t> addresses_;
};

// The file name of an id segment inside its idx/<ulid>/ folder.
inline constexpr std::string_view kIdSegmentFile = "id.seg";

// Writes `segment` as a new id-index segment of the fragments `fragment_ids` and returns its
// manifest entry (one PutIfAbsent). The segment is also put into `version`'s cache.
Result<IndexSegmentMeta> WriteIdSegment(const TableVersion& version, FieldId key_field,
                                        std::vector<uint32_t> fragment_ids,
                                        std::shared_ptr<const IdSegment> segment);

// Builds and writes the id segment of a write that created the fragments `fragment_ids` with
// key entries `entries`. To keep the number of segments logarithmic in the table size, the newest
// existing id segments of `*indexes` are merged in while each is at most twice the entries merged
// so far (and the result stays under `max_merged_entries`); merged segments are loaded through the
// cache (a Get each when cold), their entries for fragments not in `present` are dropped, and they
// are removed from `*indexes`. Appends the new segment's entry to `*indexes`.
Status WriteMergedIdSegment(const TableVersion& base, FieldId key_field,
                            const std::set<uint32_t>& present,
                            std::vector<std::pair<std::string, uint64_t>> entries,
                            std::vector<uint32_t> fragment_ids,
                            std::vector<IndexSegmentMeta>* indexes,
                            uint64_t max_merged_entries = uint64_t{1} << 22);

// Lookups against one table version. Immutable after Open; thread-safe.
class IdIndex {
 public:
  // Loads the version's id segments (cached per key; one Get each when cold), the deletion
  // vectors of covered fragments, and indexes uncovered fragments from their key column.
  // InvalidArgument if the table has no key column.
  static Result<IdIndex> Open(const TableVersion& version);

  // The live row with this id, or nullopt. With several live rows (possible only through plain
  // appends of a duplicate id), the highest address.
  std::optional<uint64_t> Lookup(std::string_view id) const;
  // Every live row with this id, ascending.
  std::vector<uint64_t> LookupAll(std::string_view id) const;
  // One result per id, in order.
  std::vector<std::optional<uint64_t>> LookupMany(std::span<const std::string> ids) const;

  size_t segment_count() const { return segments_.size(); }
  size_t uncovered_fragments() const { return uncovered_; }

 private:
  struct FragmentState {
    uint32_t id = 0;
    std::shared_ptr<const format::DeletionVector> deletion;
  };
  bool IsLive(uint64_t addr) const;

  std::vector<std::shared_ptr<const IdSegment>> segments_;
  std::vector<FragmentState> fragments_;  // sorted by id
  size_t uncovered_ = 0;
};

}  // namespace omnigraph::table
