// IdSegment: the id-index segment codec (docs/format/table.md "Id-index segment"). Versions 3
// (one group per entry) and 4 (grouped; built by id_segment_grouped.cc) are written; versions 2
// to 4 are read in place; version 1 (sorted keys, varint entries) is still read and converted.
#include <algorithm>
#include <bit>
#include <cstring>

#include "common/check.h"
#include "common/error_codes.h"
#include "common/hash.h"
#include "common/little_endian.h"
#include "table/id_index.h"

namespace omnigraph::table {
namespace {

static_assert(std::endian::native == std::endian::little, "the segment codec assumes little-endian");

constexpr char kMagic[8] = {'O', 'G', 'I', 'D', 'X', 'S', 'G', '1'};
constexpr size_t kV1HeaderSize = 32;
// magic, u32 version, u32 flags, u64 count, u32 bucket bits, u32 zero, u64 key bytes.
constexpr size_t kV2HeaderSize = 40;
// Version 4: the version-2 header plus a u64 entry count.
constexpr size_t kV4HeaderSize = 48;
constexpr size_t kTrailerSize = 8;

// Bytes before the chunk sums (v3) or the trailer (v2): header, arrays, buckets, keys.
uint64_t BodySize(uint64_t count, uint32_t bits, uint64_t key_bytes) {
  return kV2HeaderSize + 24 * count + 4 * ((uint64_t{1} << bits) + 1) + key_bytes;
}
// Byte size of a segment of `version` (2 or 3); callers bound count and bits first (no overflow).
uint64_t SegmentSize(uint32_t version, uint64_t count, uint32_t bits, uint64_t key_bytes) {
  const uint64_t body = BodySize(count, bits, key_bytes);
  return body + (version >= 3 ? 4 * IdSegment::ChunkCount(body) : 0) + kTrailerSize;
}

// False on truncation or a varint longer than `max_bits` allows (version 1).
bool GetVarint(std::string_view in, size_t* pos, int max_bits, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < max_bits + 7; shift += 7) {
    if (*pos >= in.size()) return false;
    const auto b = static_cast<unsigned char>(in[(*pos)++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      if (max_bits < 64 && (v >> max_bits) != 0) return false;
      *out = v;
      return true;
    }
  }
  return false;
}

// Whether the chunk sums after the first `body` bytes of a (long enough) segment match.
bool ChunkSumsMatch(std::string_view bytes, uint64_t body) {
  for (uint64_t c = 0; c < IdSegment::ChunkCount(body); ++c) {
    const uint64_t at = c * IdSegment::kChunkBytes;
    if (IdSegment::ChunkSum(bytes.substr(at, std::min(IdSegment::kChunkBytes, body - at))) !=
        LoadLe32(bytes.data() + body + 4 * c)) {
      return false;
    }
  }
  return true;
}

}  // namespace

const char* IdSegment::BucketError() const {
  const uint64_t nb = uint64_t{1} << bucket_bits_;
  if (U32At(buckets_) != 0 || U32At(buckets_ + 4 * nb) != groups_) return "has bad buckets";
  for (uint64_t b = 0; b < nb; ++b) {
    const uint64_t lo = U32At(buckets_ + 4 * b), hi = U32At(buckets_ + 4 * (b + 1));
    if (lo > hi || hi > groups_) return "has bad buckets";
    for (uint64_t i = lo; i < hi; ++i) {
      if (BucketOf(group_hash(i), bucket_bits_) != b) return "has an entry in the wrong bucket";
    }
  }
  return nullptr;
}

// 2^bits <= count < 2^(bits+1) (0 for 0 or 1).
uint32_t IdSegment::BucketBitsFor(uint64_t count) {
  return count <= 1 ? 0 : static_cast<uint32_t>(std::bit_width(count) - 1);
}

uint64_t IdSegment::GroupedBodySize(uint64_t groups, uint64_t entries, uint32_t bits, uint64_t key_bytes) {
  return kV4HeaderSize + 24 * groups + 8 * entries + 4 * ((uint64_t{1} << bits) + 1) + key_bytes;
}

void IdSegment::Seal(std::string* bytes, uint64_t body) {
  char* p = bytes->data();
  for (uint64_t c = 0; c < ChunkCount(body); ++c) {
    const uint64_t at = c * kChunkBytes;
    StoreLe32(p + body + 4 * c, ChunkSum(std::string_view(*bytes).substr(at, std::min(kChunkBytes, body - at))));
  }
  const size_t covered = bytes->size() - kTrailerSize;
  StoreLe64(p + covered, XxHash64(std::string_view(*bytes).substr(0, covered)));
}

uint64_t IdSegment::KeyHash(std::string_view key) { return XxHash64(key); }

uint32_t IdSegment::ChunkSum(std::string_view chunk) { return static_cast<uint32_t>(XxHash64(chunk)); }

void IdSegment::Layout() {
  grouped_ = LoadLe32(bytes_.data() + 8) == kGroupedVersion;
  groups_ = LoadLe64(bytes_.data() + 16);
  bucket_bits_ = LoadLe32(bytes_.data() + 24);
  if (!grouped_) {
    count_ = groups_;
    hashes_ = kV2HeaderSize;
    addresses_ = hashes_ + 8 * count_;
    key_ends_ = addresses_ + 8 * count_;
    buckets_ = key_ends_ + 8 * count_;
  } else {
    count_ = LoadLe64(bytes_.data() + 40);
    hashes_ = kV4HeaderSize;
    key_ends_ = hashes_ + 8 * groups_;
    addr_ends_ = key_ends_ + 8 * groups_;
    addresses_ = addr_ends_ + 8 * groups_;
    buckets_ = addresses_ + 8 * count_;
  }
  keys_ = buckets_ + 4 * ((size_t{1} << bucket_bits_) + 1);
}

IdSegment IdSegment::BuildSorted(std::span<const Ref> refs) {
  const uint64_t n = refs.size();
  OG_CHECK(n <= UINT32_MAX);
  uint64_t key_bytes = 0;
  for (const Ref& r : refs) key_bytes += r.key.size();
  const uint32_t bits = BucketBitsFor(n);
  IdSegment s;
  s.bytes_.resize(SegmentSize(kWriteVersion, n, bits, key_bytes));
  char* p = s.bytes_.data();
  std::memcpy(p, kMagic, 8);
  StoreLe32(p + 8, kWriteVersion);
  StoreLe32(p + 12, 0);
  StoreLe64(p + 16, n);
  StoreLe32(p + 24, bits);
  StoreLe32(p + 28, 0);
  StoreLe64(p + 32, key_bytes);
  s.Layout();
  uint64_t end = 0;
  // The keys are read in hash order, i.e. at random: fetch each a few entries ahead.
  constexpr uint64_t kAhead = 8;
  for (uint64_t i = 0; i < n; ++i) {
    if (i + kAhead < n) __builtin_prefetch(refs[i + kAhead].key.data());
    const Ref& r = refs[i];
    StoreLe64(p + s.hashes_ + 8 * i, r.hash);
    StoreLe64(p + s.addresses_ + 8 * i, r.address);
    std::memcpy(p + s.keys_ + end, r.key.data(), r.key.size());
    end += r.key.size();
    StoreLe64(p + s.key_ends_ + 8 * i, end);
  }
  // buckets[b] = first entry whose bucket is >= b.
  const uint64_t nb = uint64_t{1} << bits;
  uint64_t i = 0;
  for (uint64_t b = 0; b <= nb; ++b) {
    while (i < n && BucketOf(refs[i].hash, bits) < b) ++i;
    StoreLe32(p + s.buckets_ + 4 * b, static_cast<uint32_t>(b == nb ? n : i));
  }
  Seal(&s.bytes_, BodySize(n, bits, key_bytes));
  return s;
}

void IdSegment::SortRefs(std::vector<Ref>* refs) {
  std::vector<Ref>& v = *refs;
  if (v.size() < 4096) {
    std::sort(v.begin(), v.end(), RefLess);
    return;
  }
  constexpr size_t kBuckets = size_t{1} << 16;
  std::vector<uint32_t> start(kBuckets + 1, 0);
  for (const Ref& r : v) ++start[(r.hash >> 48) + 1];
  for (size_t b = 1; b <= kBuckets; ++b) start[b] += start[b - 1];
  std::vector<Ref> out(v.size());
  std::vector<uint32_t> next(start.begin(), start.end() - 1);
  for (const Ref& r : v) out[next[r.hash >> 48]++] = r;
  // Within a bucket: order by (hash, address), two integer compares. Equal hashes almost always
  // mean equal keys (a version-3 segment repeats a key per row that holds it), which that order
  // already has right; only a run of one hash with different keys (a 64-bit collision) is re-sorted
  // by RefLess.
  auto hash_address_less = [](const Ref& a, const Ref& b) {
    return a.hash != b.hash ? a.hash < b.hash : a.address < b.address;
  };
  for (size_t b = 0; b < kBuckets; ++b) {
    if (start[b + 1] - start[b] > 1) std::sort(out.begin() + start[b], out.begin() + start[b + 1], hash_address_less);
  }
  for (size_t i = 0; i < out.size();) {
    size_t j = i + 1;
    bool mixed = false;
    while (j < out.size() && out[j].hash == out[i].hash) {
      mixed = mixed || out[j].key != out[i].key;
      ++j;
    }
    if (mixed) std::sort(out.begin() + i, out.begin() + j, RefLess);
    i = j;
  }
  v = std::move(out);
}

IdSegment IdSegment::Build(std::vector<std::pair<std::string, uint64_t>> entries) {
  std::vector<Ref> refs;
  refs.reserve(entries.size());
  for (const auto& [key, address] : entries) refs.push_back(Ref{KeyHash(key), key, address});
  SortRefs(&refs);
  return BuildSorted(refs);
}

Result<IdSegment> IdSegment::Parse(std::string bytes, std::string_view what) {
  auto bad = [&](std::string_view why) { return CorruptError(std::string(what) + ": id segment " + std::string(why)); };
  if (bytes.size() < kV1HeaderSize + kTrailerSize) return bad("is truncated");
  if (std::memcmp(bytes.data(), kMagic, 8) != 0) return bad("has a bad magic");
  const size_t covered = bytes.size() - kTrailerSize;
  if (XxHash64(std::string_view(bytes).substr(0, covered)) != LoadLe64(bytes.data() + covered))
    return bad("checksum mismatch");
  const uint32_t version = LoadLe32(bytes.data() + 8);
  if (version > kNewestReadVersion) {
    return Status(ErrorCode::kFormatTooNew, std::string(what) + ": id segment has format version " +
                                                std::to_string(version) + "; this build reads versions " +
                                                std::to_string(kOldestReadVersion) + " to " +
                                                std::to_string(kNewestReadVersion) + " (upgrade omnigraph)");
  }
  if (version < kOldestReadVersion) return bad("has an unknown format version " + std::to_string(version));
  if (LoadLe32(bytes.data() + 12) != 0) return bad("has unknown flags");
  if (version == 1) return ParseV1(bytes, what);
  if (version == kGroupedVersion) return ParseGrouped(std::move(bytes), what);

  if (bytes.size() < kV2HeaderSize + kTrailerSize) return bad("is truncated");
  const uint64_t n = LoadLe64(bytes.data() + 16);
  const uint32_t bits = LoadLe32(bytes.data() + 24);
  const uint64_t key_bytes = LoadLe64(bytes.data() + 32);
  if (n > UINT32_MAX || n > bytes.size() / 24 || bits != BucketBitsFor(n) || LoadLe32(bytes.data() + 28) != 0 ||
      key_bytes > bytes.size() || SegmentSize(version, n, bits, key_bytes) != bytes.size()) {
    return bad("has inconsistent lengths");
  }
  // The chunk sums, which ranged probes rely on.
  if (version >= 3 && !ChunkSumsMatch(bytes, BodySize(n, bits, key_bytes))) return bad("has a bad chunk checksum");
  IdSegment s;
  s.bytes_ = std::move(bytes);
  s.Layout();
  // Structure: hashes ascending and each in its bucket, buckets covering [0, n), key ends
  // ascending to key_bytes, equal hashes ordered by key then address. (Hashes are trusted to be
  // those of their keys: the checksum guards the bytes.)
  if (const char* why = s.BucketError()) return bad(why);
  uint64_t prev_end = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t end = s.U64At(s.key_ends_ + 8 * i);
    if (end < prev_end || end > key_bytes) return bad("has bad key offsets");
    prev_end = end;
    if (i > 0) {
      const uint64_t h0 = s.group_hash(i - 1), h1 = s.group_hash(i);
      if (h0 > h1) return bad("is not sorted");
      if (h0 == h1 && !RefLess(Ref{h0, s.group_key(i - 1), s.address(i - 1)}, Ref{h1, s.group_key(i), s.address(i)}) &&
          !(s.group_key(i - 1) == s.group_key(i) && s.address(i - 1) == s.address(i))) {
        return bad("is not sorted");
      }
    }
  }
  if (prev_end != key_bytes) return bad("has bad key offsets");
  return s;
}

Result<IdSegment> IdSegment::ParseGrouped(std::string bytes, std::string_view what) {
  auto bad = [&](std::string_view why) {
    return CorruptError(std::string(what) + ": id segment (version 4) " + std::string(why));
  };
  if (bytes.size() < kV4HeaderSize + kTrailerSize) return bad("is truncated");
  const uint64_t g = LoadLe64(bytes.data() + 16);
  const uint32_t bits = LoadLe32(bytes.data() + 24);
  const uint64_t key_bytes = LoadLe64(bytes.data() + 32);
  const uint64_t n = LoadLe64(bytes.data() + 40);
  if (n > UINT32_MAX || g > n || n > bytes.size() / 8 || bits != BucketBitsFor(g) || LoadLe32(bytes.data() + 28) != 0 ||
      key_bytes > bytes.size()) {
    return bad("has inconsistent lengths");
  }
  const uint64_t body = GroupedBodySize(g, n, bits, key_bytes);
  if (body + 4 * ChunkCount(body) + kTrailerSize != bytes.size()) return bad("has inconsistent lengths");
  if (!ChunkSumsMatch(bytes, body)) return bad("has a bad chunk checksum");
  IdSegment s;
  s.bytes_ = std::move(bytes);
  s.Layout();
  // Structure: groups in their buckets, buckets covering [0, g), ordered by (hash, key) with no
  // two groups of one key, key ends ascending to key_bytes, every group non-empty with address
  // ends ascending to n, each group's addresses ascending.
  if (const char* why = s.BucketError()) return bad(why);
  uint64_t prev_key_end = 0, prev_addr_end = 0;
  for (uint64_t i = 0; i < g; ++i) {
    const uint64_t key_end = s.U64At(s.key_ends_ + 8 * i), addr_end = s.U64At(s.addr_ends_ + 8 * i);
    if (key_end < prev_key_end || key_end > key_bytes) return bad("has bad key offsets");
    if (addr_end <= prev_addr_end || addr_end > n) return bad("has bad address offsets");
    for (uint64_t e = prev_addr_end + 1; e < addr_end; ++e) {
      if (s.address(e - 1) > s.address(e)) return bad("has unsorted addresses");
    }
    prev_key_end = key_end;
    prev_addr_end = addr_end;
    if (i > 0) {
      const uint64_t h0 = s.group_hash(i - 1), h1 = s.group_hash(i);
      if (h0 > h1 || (h0 == h1 && !(s.group_key(i - 1) < s.group_key(i)))) return bad("is not sorted");
    }
  }
  if (prev_key_end != key_bytes || prev_addr_end != n) return bad("has bad offsets");
  return s;
}

Result<IdSegment> IdSegment::ParseV1(std::string_view bytes, std::string_view what) {
  auto bad = [&](std::string_view why) {
    return CorruptError(std::string(what) + ": id segment (version 1) " + std::string(why));
  };
  const uint64_t count = LoadLe64(bytes.data() + 16);
  const uint64_t body_len = LoadLe64(bytes.data() + 24);
  if (body_len != bytes.size() - kV1HeaderSize - kTrailerSize || count > body_len / 3)
    return bad("has inconsistent lengths");
  std::string_view body = bytes.substr(kV1HeaderSize, body_len);
  std::vector<Ref> refs;
  refs.reserve(count);
  size_t pos = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t len = 0, frag = 0, off = 0;
    if (!GetVarint(body, &pos, 32, &len) || len > body.size() - pos) return bad("has a bad entry");
    std::string_view key = body.substr(pos, len);
    pos += len;
    if (!GetVarint(body, &pos, 32, &frag) || !GetVarint(body, &pos, 32, &off)) return bad("has a bad entry");
    if (i > 0 && refs.back().key > key) return bad("is not sorted");
    refs.push_back(Ref{KeyHash(key), key, MakeRowAddress(static_cast<uint32_t>(frag), static_cast<uint32_t>(off))});
  }
  if (pos != body.size()) return bad("has trailing bytes");
  SortRefs(&refs);
  return BuildSorted(refs);  // views into `bytes`, copied before it goes away
}

std::pair<size_t, size_t> IdSegment::EqualRange(std::string_view key) const { return EqualRange(key, KeyHash(key)); }

bool IdSegment::HasHash(uint64_t hash) const {
  const uint64_t b = BucketOf(hash, bucket_bits_);
  const size_t end = U32At(buckets_ + 4 * (b + 1));
  for (size_t g = U32At(buckets_ + 4 * b); g < end; ++g) {
    const uint64_t h = group_hash(g);
    if (h >= hash) return h == hash;
  }
  return false;
}

std::pair<size_t, size_t> IdSegment::EqualRange(std::string_view key, uint64_t hash) const {
  const uint64_t b = BucketOf(hash, bucket_bits_);
  size_t g = U32At(buckets_ + 4 * b);
  const size_t end = U32At(buckets_ + 4 * (b + 1));
  while (g < end && group_hash(g) < hash) ++g;
  // Equal hashes are ordered by key: skip (colliding) smaller keys, then take the equal ones (one
  // group in version 4; adjacent entries in version 3).
  while (g < end && group_hash(g) == hash && group_key(g) < key) ++g;
  size_t last = g;
  while (last < end && group_hash(last) == hash && group_key(last) == key) ++last;
  if (g == last) return {0, 0};
  return {group_entries(g).first, group_entries(last - 1).second};
}

}  // namespace omnigraph::table
