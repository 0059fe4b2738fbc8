// The id index (ARCHITECTURE.md §5; docs/format/table.md "Id index segments"): key column value
// -> row address of the live row, for one table version. Persisted as immutable segments
// (idx/<ulid>/id.seg, each covering the fragments of one write), so opening a large table reads
// the segments instead of the key column; a new version reuses the segments of unchanged
// fragments, and fragments no segment covers are indexed in memory from their key column, so
// lookups are correct at any coverage.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
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

// One immutable run of (key, row address) entries in its serialized form (docs/format/table.md
// "Id-index segment", versions 2 and 3): entries ordered by (xxhash64(key), key, address), a bucket
// directory over the top hash bits, so a lookup reads one bucket (about 1.5 entries) and verifies
// the key. The object's bytes are held as read (no per-entry decoding). Thread-safe.
class IdSegment {
 public:
  // The on-disk versions this build reads (1: sorted keys; 2: hashed; 3: hashed with chunk
  // checksums) and the one it writes.
  static constexpr uint32_t kOldestReadVersion = 1;
  static constexpr uint32_t kWriteVersion = 3;
  // Version 3 stores a checksum (ChunkSum) of every kChunkBytes-byte chunk of the bytes before
  // them, so a ranged read verifies every chunk it uses (table/index_probe.h).
  static constexpr uint64_t kChunkBytes = 256;
  static uint64_t ChunkCount(uint64_t body_bytes) { return (body_bytes + kChunkBytes - 1) / kChunkBytes; }
  static uint32_t ChunkSum(std::string_view chunk);

  // Orders `entries` by (hash, key, address). At most 2^32 - 1 entries.
  static IdSegment Build(std::vector<std::pair<std::string, uint64_t>> entries);
  // Takes the object's bytes. Corrupt naming `what` on a bad magic, length, checksum or structure;
  // format_too_new naming the version for a version newer than kWriteVersion. Version-1 segments
  // are converted (re-ordered by hash) in memory; version-2 and 3 bytes are kept as read.
  static Result<IdSegment> Parse(std::string bytes, std::string_view what);
  // The serialized bytes (version 3 when built here).
  const std::string& bytes() const { return bytes_; }
  // Gives the bytes away (the segment is then unusable): for writing a segment nobody reads.
  std::string ReleaseBytes() && { return std::move(bytes_); }
  std::string Serialize() const { return bytes_; }

  size_t size() const { return count_; }
  std::string_view key(size_t i) const {
    const uint64_t begin = i == 0 ? 0 : U64At(key_ends_ + 8 * (i - 1));
    return std::string_view(bytes_).substr(keys_ + begin, U64At(key_ends_ + 8 * i) - begin);
  }
  uint64_t address(size_t i) const { return U64At(addresses_ + 8 * i); }
  uint64_t hash(size_t i) const { return U64At(hashes_ + 8 * i); }
  // Index range [first, last) of entries equal to `key` (adjacent, ascending address); `hash`
  // must be KeyHash(key).
  std::pair<size_t, size_t> EqualRange(std::string_view key) const;
  std::pair<size_t, size_t> EqualRange(std::string_view key, uint64_t hash) const;

  // Whether some entry has exactly this hash (no key bytes read): a cheap pre-check that lets a
  // batch touch its query key only where the segment may hold it.
  bool HasHash(uint64_t hash) const;

  static uint64_t KeyHash(std::string_view key);

  // A key, its hash and its address (keys are views; for merging segments).
  struct Ref {
    uint64_t hash;
    std::string_view key;
    uint64_t address;
  };
  // Builds from refs already ordered by (hash, key, address) (see RefLess).
  static IdSegment BuildSorted(std::span<const Ref> refs);
  // Orders refs by RefLess: a counting sort on the hash's top 16 bits, then each (small) bucket
  // by comparison; hashes are uniform, so this is linear in practice.
  static void SortRefs(std::vector<Ref>* refs);
  static bool RefLess(const Ref& a, const Ref& b) {
    if (a.hash != b.hash) return a.hash < b.hash;
    if (a.key != b.key) return a.key < b.key;
    return a.address < b.address;
  }

 private:
  uint64_t U64At(size_t off) const {
    uint64_t v;
    std::memcpy(&v, bytes_.data() + off, 8);
    return v;
  }
  uint32_t U32At(size_t off) const {
    uint32_t v;
    std::memcpy(&v, bytes_.data() + off, 4);
    return v;
  }
  // Sets the section offsets from the header of bytes_ (lengths already validated).
  void Layout();
  static Result<IdSegment> ParseV1(std::string_view bytes, std::string_view what);

  std::string bytes_;
  size_t count_ = 0;
  uint32_t bucket_bits_ = 0;
  size_t hashes_ = 0, addresses_ = 0, key_ends_ = 0, buckets_ = 0, keys_ = 0;
};

// The file name of an id segment inside its idx/<ulid>/ folder.
inline constexpr std::string_view kIdSegmentFile = "id.seg";

// The index kinds a manifest's IndexSegmentMeta::kind names.
inline constexpr std::string_view kIdIndexKind = "id";        // the key column (unique per live row)
inline constexpr std::string_view kValueIndexKind = "value";  // an indexed String column (many rows)

// Writes `segment` as a new hash-index segment of kind `kind` on `field` for the fragments
// `fragment_ids` and returns its manifest entry (one PutIfAbsent). A segment of at most
// kCacheWrittenSegmentBytes is also put into `version`'s cache; a larger one (a bulk load's) is
// handed to the store without a copy and not cached (it would crowd out everything else).
inline constexpr uint64_t kCacheWrittenSegmentBytes = uint64_t{64} << 20;
Result<IndexSegmentMeta> WriteIdSegment(const TableVersion& version, std::string_view kind, FieldId field,
                                        std::vector<uint32_t> fragment_ids, IdSegment segment);

// The (value, row address) entries of one hash-indexed column for the rows a write adds. Values
// are views into the batches being written, which must outlive the segment's writing (no copy
// per row).
struct IndexFeed {
  std::string kind;  // kIdIndexKind or kValueIndexKind
  FieldId field = 0;
  std::vector<std::pair<std::string_view, uint64_t>> entries;
};
// One empty feed per hash index of `schema`: the key's (if any), then each indexed column's.
std::vector<IndexFeed> IndexFeeds(const TableSchema& schema);

// A segment written for one feed, and the positions in the version's `indexes` of the older
// segments merged into it (to be removed by ApplyMergedSegments).
struct MergedSegment {
  IndexSegmentMeta meta;
  std::vector<size_t> replaced;
};

// Builds and writes the segment of `feed` for the new fragments `fragment_ids`. To keep the
// number of segments of one (kind, field) logarithmic in the table size, the newest existing
// segments of that (kind, field) in `indexes` are merged in while each is at most twice the
// entries merged so far (and the result stays under `max_merged_entries`); merged segments are
// loaded through the cache (a Get each when cold) and their entries for fragments not in
// `present` are dropped. Reads `indexes` only, so feeds can be written concurrently.
Result<MergedSegment> WriteMergedSegment(const TableVersion& base, IndexFeed feed,
                                         const std::set<uint32_t>& present,
                                         std::vector<uint32_t> fragment_ids,
                                         const std::vector<IndexSegmentMeta>& indexes,
                                         uint64_t max_merged_entries = uint64_t{1} << 22);
// Removes the replaced segments from `*indexes` and appends the new ones (in order).
void ApplyMergedSegments(std::vector<MergedSegment> segments, std::vector<IndexSegmentMeta>* indexes);

// The index work of a write that adds the fragments `fresh_ids` with the entries of `feeds`:
// one effect per non-empty feed appended to `*effects` (each writes its segment into
// `(*results)[i]`, sized here). Call ApplyMergedSegments(*results, ...) after the effects ran.
void AddIndexEffects(const TableVersion& base, std::vector<IndexFeed>* feeds,
                     const std::set<uint32_t>& present, const std::vector<uint32_t>& fresh_ids,
                     const std::vector<IndexSegmentMeta>& indexes,
                     std::vector<std::function<Status()>>* effects,
                     std::vector<MergedSegment>* results);

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
  // One result per id, in order. Probes each segment with the ids sorted by hash (sequential
  // passes over each segment's hash and bucket arrays).
  std::vector<std::optional<uint64_t>> LookupMany(std::span<const std::string> ids) const;

  size_t segment_count() const { return segments_.size(); }
  size_t uncovered_fragments() const { return uncovered_; }

 private:
  struct FragmentState {
    uint32_t id = 0;
    std::shared_ptr<const format::DeletionVector> deletion;
  };
  bool IsLive(uint64_t addr) const;

  // Applies one segment's matches for `id` to *best (highest live address).
  void Probe(const IdSegment& seg, std::string_view id, uint64_t hash,
             std::optional<uint64_t>* best) const;

  std::vector<std::shared_ptr<const IdSegment>> segments_;
  std::vector<FragmentState> fragments_;  // sorted by id
  size_t uncovered_ = 0;
};

}  // namespace omnigraph::table
