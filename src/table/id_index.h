// The id index (docs/architecture.md, "Id and value indexes"; docs/format/table.md
// "Id-index segment"): key column value -> row address of the live row, for one table version.
// Persisted as immutable segments (idx/<ulid>.id.seg, each covering the fragments of one write), so
// opening a large table reads the segments instead of the key column; a new version reuses the
// segments of unchanged fragments, and fragments no segment covers are indexed in memory from their
// key column, so lookups are correct at any coverage.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/little_endian.h"
#include "format/column.h"
#include "omnigraph/result.h"
#include "table/manifest.h"
#include "table/table_version.h"

namespace omnigraph::table {

// One immutable run of (key, row address) entries in its serialized form (docs/format/table.md
// "Id-index segment"). Entries are grouped by key: a group is one key and its addresses
// (ascending). Groups are ordered by (xxhash64(key), key), with a bucket directory over the top
// hash bits, so a lookup reads one bucket (about 1.5 groups) and verifies the key. Version 3 (what
// id indexes write) stores each entry as its own group, repeating the key; version 4 (what value
// indexes write, where a key has many rows) stores each key once with its address list. The
// object's bytes are held as read (no per-entry decoding). Thread-safe.
class IdSegment {
 public:
  // The on-disk versions this build reads (1: sorted keys; 2: hashed; 3: hashed with chunk
  // checksums; 4: grouped, with chunk checksums) and the ones it writes.
  static constexpr uint32_t kOldestReadVersion = 1;
  static constexpr uint32_t kWriteVersion = 3;
  static constexpr uint32_t kGroupedVersion = 4;
  static constexpr uint32_t kNewestReadVersion = kGroupedVersion;
  // Versions 3 and 4 store a checksum (ChunkSum) of every kChunkBytes-byte chunk of the bytes
  // before them, so a ranged read verifies every chunk it uses (table/index_probe.h).
  static constexpr uint64_t kChunkBytes = 256;
  static uint64_t ChunkCount(uint64_t body_bytes) { return (body_bytes + kChunkBytes - 1) / kChunkBytes; }
  static uint32_t ChunkSum(std::string_view chunk);

  // Version 3, ordered by (hash, key, address). At most 2^32 - 1 entries.
  static IdSegment Build(std::vector<std::pair<std::string, uint64_t>> entries);
  // Takes the object's bytes. Corrupt naming `what` on a bad magic, length, checksum or structure;
  // format_too_new naming the version for a version newer than kNewestReadVersion. Version-1
  // segments are converted (re-ordered by hash) in memory; later versions are kept as read.
  static Result<IdSegment> Parse(std::string bytes, std::string_view what);
  // The serialized bytes.
  const std::string& bytes() const { return bytes_; }
  // Gives the bytes away (the segment is then unusable): for writing a segment nobody reads.
  std::string ReleaseBytes() && { return std::move(bytes_); }
  std::string Serialize() const { return bytes_; }
  // The layout version (3 or 4; versions 1 and 2 are held as 3).
  uint32_t layout_version() const { return grouped_ ? kGroupedVersion : kWriteVersion; }

  // Entries (rows) and groups (distinct keys, or entries in version 3).
  size_t size() const { return count_; }
  size_t group_count() const { return groups_; }
  std::string_view group_key(size_t g) const {
    const uint64_t begin = g == 0 ? 0 : U64At(key_ends_ + 8 * (g - 1));
    return std::string_view(bytes_).substr(keys_ + begin, U64At(key_ends_ + 8 * g) - begin);
  }
  uint64_t group_hash(size_t g) const { return U64At(hashes_ + 8 * g); }
  // The entry range [first, last) of group g.
  std::pair<size_t, size_t> group_entries(size_t g) const {
    if (!grouped_) return {g, g + 1};
    return {g == 0 ? 0 : U64At(addr_ends_ + 8 * (g - 1)), U64At(addr_ends_ + 8 * g)};
  }
  uint64_t address(size_t i) const { return U64At(addresses_ + 8 * i); }
  // Entry range [first, last) of the entries whose key is `key` (ascending address); `hash`
  // must be KeyHash(key).
  std::pair<size_t, size_t> EqualRange(std::string_view key) const;
  std::pair<size_t, size_t> EqualRange(std::string_view key, uint64_t hash) const;

  // Whether some group has exactly this hash (no key bytes read): a cheap pre-check that lets a
  // batch touch its query key only where the segment may hold it.
  bool HasHash(uint64_t hash) const;

  static uint64_t KeyHash(std::string_view key);

  // A key, its hash and its address (keys are views; for merging segments).
  struct Ref {
    uint64_t hash;
    std::string_view key;
    uint64_t address;
  };
  // Builds version 3 from refs already ordered by (hash, key, address) (see RefLess).
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
  friend class GroupedSegmentBuilder;
  uint64_t U64At(size_t off) const { return LoadLe64(bytes_, off); }
  uint32_t U32At(size_t off) const { return LoadLe32(bytes_, off); }
  // Sets the section offsets from the header of bytes_ (lengths already validated).
  void Layout();
  // Shared with GroupedSegmentBuilder: the bucket bits for `count` groups, the bucket of a hash,
  // the size of a version-4 segment and of its body (the bytes the chunk sums cover), and writing
  // the chunk sums and trailer after a body of `body` bytes.
  static uint32_t BucketBitsFor(uint64_t count);
  static uint64_t BucketOf(uint64_t hash, uint32_t bits) { return bits == 0 ? 0 : hash >> (64 - bits); }
  static uint64_t GroupedBodySize(uint64_t groups, uint64_t entries, uint32_t bits, uint64_t key_bytes);
  static void Seal(std::string* bytes, uint64_t body);
  static Result<IdSegment> ParseV1(std::string_view bytes, std::string_view what);
  static Result<IdSegment> ParseGrouped(std::string bytes, std::string_view what);
  // Why the bucket directory is inconsistent (every group in its bucket, buckets covering
  // [0, groups)), or nullptr.
  const char* BucketError() const;

  std::string bytes_;
  bool grouped_ = false;
  size_t count_ = 0, groups_ = 0;
  uint32_t bucket_bits_ = 0;
  size_t hashes_ = 0, key_ends_ = 0, addr_ends_ = 0, addresses_ = 0, buckets_ = 0, keys_ = 0;
};

// Builds a version-4 (grouped) segment from entries in any order: equal keys are gathered into
// one group (a hash table over the keys, so a key's hash is computed once per run of equal keys
// and its bytes copied once, into a compact arena), groups are ordered by (hash, key) and each
// group's addresses ascending. At most 2^32 - 1 entries.
class GroupedSegmentBuilder {
 public:
  explicit GroupedSegmentBuilder(size_t expected_entries = 0);
  void Add(std::string_view key, uint64_t address);
  // Add for each entry, with the hash table's memory fetched a block ahead (faster for many
  // entries in random key order).
  void AddMany(std::span<const std::pair<std::string_view, uint64_t>> entries);
  // The same for the non-null rows of a String column, row i at address first_address + i.
  void AddColumn(const format::Column& column, uint64_t first_address);
  // The same with the key's hash already known (merging a stored segment's groups).
  void Add(uint64_t hash, std::string_view key, uint64_t address);
  size_t size() const { return entry_group_.size(); }
  IdSegment Finish() &&;

 private:
  struct Group {
    uint64_t hash;
    uint64_t key_offset;  // into arena_
    uint32_t key_size;
    uint32_t count;
  };
  struct Slot {  // a group's hash and key location, so a probe reads no Group
    uint64_t hash;
    uint64_t key_offset;
    uint32_t key_size;
    uint32_t group_plus_one;  // 0: empty
  };
  std::string_view KeyOf(const Group& g) const { return std::string_view(arena_).substr(g.key_offset, g.key_size); }
  uint32_t GroupOf(uint64_t hash, std::string_view key);
  void Grow();
  // AddMany's loop over n rows: key(i), address(i), skip(i) (a row with no entry).
  template <typename Key, typename Address, typename Skip>
  void AddBlocked(size_t n, Key key, Address address, Skip skip);

  std::vector<Group> groups_;
  std::string arena_;        // the groups' keys, back to back
  std::vector<Slot> slots_;  // open addressing over groups_ on the hash's low bits
  std::vector<uint32_t> entry_group_;
  std::vector<uint64_t> entry_address_;
  uint32_t last_group_ = UINT32_MAX;  // the previous entry's group (runs of equal keys)
};

// The suffix of an id segment's object, idx/<ulid>.id.seg (graphs written before 2026-12-07 hold
// theirs as idx/<ulid>/id.seg: manifests name each segment's key, so both read alike).
inline constexpr std::string_view kIdSegmentSuffix = "id.seg";

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

// The (value, row address) entries of one hash-indexed column for the rows a write adds: the
// column's slice of each new fragment piece (sharing the written rows' buffers, no copy per row)
// and the address of its first row; null values are in no index.
struct IndexFeed {
  std::string kind;  // kIdIndexKind or kValueIndexKind
  FieldId field = 0;
  struct Part {
    format::Column column;
    uint64_t first_address = 0;
  };
  std::vector<Part> parts;
  // The number of non-null values.
  uint64_t entries() const;
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
Result<MergedSegment> WriteMergedSegment(const TableVersion& base, IndexFeed feed, const std::set<uint32_t>& present,
                                         std::vector<uint32_t> fragment_ids,
                                         const std::vector<IndexSegmentMeta>& indexes,
                                         uint64_t max_merged_entries = uint64_t{1} << 22);
// Removes the replaced segments from `*indexes` and appends the new ones (in order).
void ApplyMergedSegments(std::vector<MergedSegment> segments, std::vector<IndexSegmentMeta>* indexes);

// The index work of a write that adds the fragments `fresh_ids` with the entries of `feeds`:
// one effect per non-empty feed appended to `*effects` (each writes its segment into
// `(*results)[i]`, sized here). Call ApplyMergedSegments(*results, ...) after the effects ran.
void AddIndexEffects(const TableVersion& base, std::vector<IndexFeed>* feeds, const std::set<uint32_t>& present,
                     const std::vector<uint32_t>& fresh_ids, const std::vector<IndexSegmentMeta>& indexes,
                     std::vector<std::function<Status()>>* effects, std::vector<MergedSegment>* results);

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
  void Probe(const IdSegment& seg, std::string_view id, uint64_t hash, std::optional<uint64_t>* best) const;

  std::vector<std::shared_ptr<const IdSegment>> segments_;
  std::vector<FragmentState> fragments_;  // sorted by id
  size_t uncovered_ = 0;
};

}  // namespace omnigraph::table
