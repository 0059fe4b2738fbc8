#include "table/index_probe.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include "common/error_codes.h"
#include "table/id_index.h"
#include "table/scanner.h"

namespace omnigraph::table {
namespace {

constexpr char kMagic[8] = {'O', 'G', 'I', 'D', 'X', 'S', 'G', '1'};
constexpr uint64_t kHeaderSize = 40;
// Ranges closer than this are fetched in one request: fewer requests for a few hundred bytes more.
constexpr uint64_t kCoalesceGap = 512;

uint64_t U64(std::string_view s, size_t off) {
  uint64_t v;
  std::memcpy(&v, s.data() + off, 8);
  return v;
}
uint32_t U32(std::string_view s, size_t off) {
  uint32_t v;
  std::memcpy(&v, s.data() + off, 4);
  return v;
}

// Byte ranges of one object, fetched with as few GetRange requests as kCoalesceGap allows.
class RangeSet {
 public:
  void Add(uint64_t offset, uint64_t length) {
    if (length > 0) wanted_.emplace_back(offset, offset + length);
  }
  Status Fetch(const TableVersion& v, const std::string& key, ProbeStats* stats) {
    std::sort(wanted_.begin(), wanted_.end());
    for (const auto& [begin, end] : wanted_) {
      if (!runs_.empty() && begin <= runs_.back().end + kCoalesceGap) {
        runs_.back().end = std::max(runs_.back().end, end);
      } else {
        runs_.push_back(Run{begin, end, {}});
      }
    }
    wanted_.clear();
    for (Run& r : runs_) {
      if (!r.bytes.empty()) continue;
      OG_ASSIGN_OR_RETURN(r.bytes, v.store().GetRange(key, r.begin, r.end - r.begin));
      if (r.bytes.size() != r.end - r.begin)
        return CorruptError(key + ": index segment is shorter than its header says");
      ++stats->ranged_reads;
      stats->bytes_read += r.bytes.size();
    }
    return Status::Ok();
  }
  // The fetched bytes [offset, offset + length); Fetch must have covered them.
  std::string_view At(uint64_t offset, uint64_t length) const {
    auto it = std::upper_bound(runs_.begin(), runs_.end(), offset,
                               [](uint64_t o, const Run& r) { return o < r.begin; });
    --it;  // the run starting at or before offset (Fetch guarantees one covers the range)
    return std::string_view(it->bytes).substr(offset - it->begin, length);
  }

 private:
  struct Run {
    uint64_t begin, end;
    std::string bytes;
  };
  std::vector<std::pair<uint64_t, uint64_t>> wanted_;
  std::vector<Run> runs_;  // sorted, disjoint
};

// A value looked up: its hash and its position in the caller's list.
struct Wanted {
  uint64_t hash;
  size_t index;
};

// Probes one stored (version 2) segment by ranged reads; appends (value index, address) matches.
// Version-1 segments have no buckets: they are loaded whole (as IdIndex does) and probed in memory.
Status ProbeStored(const TableVersion& v, const IndexSegmentMeta& meta, std::span<const std::string> values,
                   const std::vector<Wanted>& wanted, std::vector<std::pair<size_t, uint64_t>>* out,
                   ProbeStats* stats) {
  const std::string key = v.AbsoluteKey(meta.keys[0]);
  OG_ASSIGN_OR_RETURN(std::string header, v.store().GetRange(key, 0, kHeaderSize));
  ++stats->ranged_reads;
  stats->bytes_read += header.size();
  if (header.size() < 16 || std::memcmp(header.data(), kMagic, 8) != 0)
    return CorruptError(key + ": not an index segment (bad magic)");
  const uint32_t version = U32(header, 8);
  if (version != IdSegment::kWriteVersion) {
    if (version == 0 || version > IdSegment::kWriteVersion) {
      // Parse reports both (corrupt / format_too_new) with the right code and message.
      OG_ASSIGN_OR_RETURN(std::string all, v.store().Get(key));
      OG_ASSIGN_OR_RETURN(IdSegment bad, IdSegment::Parse(std::move(all), key));
      (void)bad;
      return CorruptError(key + ": unexpected index segment version " + std::to_string(version));
    }
    OG_ASSIGN_OR_RETURN(std::string all, v.store().Get(key));
    stats->bytes_read += all.size();
    OG_ASSIGN_OR_RETURN(IdSegment seg, IdSegment::Parse(std::move(all), key));
    for (const Wanted& w : wanted) {
      auto [lo, hi] = seg.EqualRange(values[w.index], w.hash);
      for (size_t i = lo; i < hi; ++i) out->emplace_back(w.index, seg.address(i));
    }
    return Status::Ok();
  }
  if (header.size() != kHeaderSize) return CorruptError(key + ": truncated index segment header");
  const uint64_t n = U64(header, 16);
  const uint32_t bits = U32(header, 24);
  const uint64_t key_bytes = U64(header, 32);
  const uint32_t expect_bits = n <= 1 ? 0 : static_cast<uint32_t>(std::bit_width(n) - 1);
  if (n != meta.entries || n >= (uint64_t{1} << 32) || bits != expect_bits || key_bytes > (uint64_t{1} << 40))
    return CorruptError(key + ": index segment header disagrees with the manifest (" + std::to_string(n) +
                        " entries, " + std::to_string(meta.entries) + " expected)");
  if (n == 0) return Status::Ok();
  const uint64_t hashes = kHeaderSize, addresses = hashes + 8 * n, ends = addresses + 8 * n,
                 buckets = ends + 8 * n, keys = buckets + 4 * ((uint64_t{1} << bits) + 1);
  auto bucket_of = [&](uint64_t h) { return bits == 0 ? 0 : h >> (64 - bits); };
  // 1. The bucket directory entries of the wanted values.
  RangeSet dir;
  for (const Wanted& w : wanted) dir.Add(buckets + 4 * bucket_of(w.hash), 8);
  OG_RETURN_IF_ERROR(dir.Fetch(v, key, stats));
  // 2. The hashes, addresses and key ends of those buckets.
  RangeSet entries;
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> spans;  // bucket -> [lo, hi)
  for (const Wanted& w : wanted) {
    const uint64_t b = bucket_of(w.hash);
    std::string_view d = dir.At(buckets + 4 * b, 8);
    const uint64_t lo = U32(d, 0), hi = U32(d, 4);
    if (lo > hi || hi > n) return CorruptError(key + ": index segment bucket out of range");
    if (!spans.emplace(b, std::pair{lo, hi}).second || lo == hi) continue;
    entries.Add(hashes + 8 * lo, 8 * (hi - lo));
    entries.Add(addresses + 8 * lo, 8 * (hi - lo));
    entries.Add(ends + 8 * (lo == 0 ? 0 : lo - 1), 8 * (hi - lo + (lo == 0 ? 0 : 1)));
  }
  OG_RETURN_IF_ERROR(entries.Fetch(v, key, stats));
  // 3. The key bytes of entries whose hash matches; the key decides.
  struct Candidate {
    size_t index;
    uint64_t address, begin, end;
  };
  std::vector<Candidate> candidates;
  RangeSet key_ranges;
  for (const Wanted& w : wanted) {
    const auto [lo, hi] = spans.at(bucket_of(w.hash));
    for (uint64_t i = lo; i < hi; ++i) {
      if (U64(entries.At(hashes + 8 * i, 8), 0) != w.hash) continue;
      const uint64_t begin = i == 0 ? 0 : U64(entries.At(ends + 8 * (i - 1), 8), 0);
      const uint64_t end = U64(entries.At(ends + 8 * i, 8), 0);
      if (begin > end || end > key_bytes) return CorruptError(key + ": index segment key bounds out of range");
      candidates.push_back(Candidate{w.index, U64(entries.At(addresses + 8 * i, 8), 0), begin, end});
      key_ranges.Add(keys + begin, end - begin);
    }
  }
  OG_RETURN_IF_ERROR(key_ranges.Fetch(v, key, stats));
  for (const Candidate& c : candidates) {
    if (key_ranges.At(keys + c.begin, c.end - c.begin) == values[c.index]) out->emplace_back(c.index, c.address);
  }
  return Status::Ok();
}

}  // namespace

bool HasHashIndex(const TableVersion& version, FieldId field) {
  const TableSchema& s = version.schema();
  return field == s.key_field_id ||
         std::binary_search(s.indexed_field_ids.begin(), s.indexed_field_ids.end(), field);
}

Result<std::vector<std::pair<size_t, uint64_t>>> ProbeColumn(const TableVersion& version, FieldId field,
                                                             std::span<const std::string> values,
                                                             const Predicate& fallback_filter,
                                                             ProbeStats* stats) {
  ProbeStats local;
  if (stats == nullptr) stats = &local;
  const Manifest& m = version.manifest();
  const Field* f = m.schema.FindById(field);
  if (f == nullptr || f->type.kind != TypeKind::kString)
    return InvalidArgumentError("ProbeColumn: field " + std::to_string(field) + " is not a String column");
  std::vector<std::pair<size_t, uint64_t>> found;
  if (values.empty() || m.fragments.empty()) return found;
  const std::string_view kind = field == m.schema.key_field_id ? kIdIndexKind : kValueIndexKind;
  std::vector<Wanted> wanted;
  wanted.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) wanted.push_back(Wanted{IdSegment::KeyHash(values[i]), i});
  std::sort(wanted.begin(), wanted.end(), [](const Wanted& a, const Wanted& b) { return a.hash < b.hash; });
  std::set<uint32_t> covered;
  for (const IndexSegmentMeta& s : m.indexes) {
    if (s.kind != kind || s.field_id != field) continue;
    covered.insert(s.fragment_ids.begin(), s.fragment_ids.end());
    if (auto seg = version.cache()->GetIdSegment(s.keys[0])) {
      ++stats->segments_in_memory;
      for (const Wanted& w : wanted) {
        if (!seg->HasHash(w.hash)) continue;
        auto [lo, hi] = seg->EqualRange(values[w.index], w.hash);
        for (size_t i = lo; i < hi; ++i) found.emplace_back(w.index, seg->address(i));
      }
      continue;
    }
    ++stats->segments_ranged;
    OG_RETURN_IF_ERROR(ProbeStored(version, s, values, wanted, &found, stats));
  }
  // Keep live rows only: of a fragment in this version, not in its deletion vector. A segment may
  // index rows of fragments that are gone or only partly covered by this version.
  std::map<uint32_t, std::shared_ptr<const format::DeletionVector>> deletions;
  std::vector<std::pair<size_t, uint64_t>> live;
  for (const auto& [index, address] : found) {
    const uint32_t fid = RowAddressFragment(address);
    if (!covered.count(fid)) continue;
    const FragmentMeta* fm = m.FindFragment(fid);
    if (fm == nullptr) continue;
    auto it = deletions.find(fid);
    if (it == deletions.end()) {
      OG_ASSIGN_OR_RETURN(auto dv, version.LoadDeletion(*fm));
      it = deletions.emplace(fid, std::move(dv)).first;
    }
    if (!it->second->Contains(RowAddressOffset(address))) live.emplace_back(index, address);
  }
  // Fragments no segment covers: scan the column there.
  std::vector<uint32_t> uncovered;
  for (const FragmentMeta& fm : m.fragments) {
    if (!covered.count(fm.id)) uncovered.push_back(fm.id);
  }
  if (!uncovered.empty()) {
    stats->fragments_scanned += uncovered.size();
    std::unordered_map<std::string_view, std::vector<size_t>> by_value;
    for (size_t i = 0; i < values.size(); ++i) by_value[values[i]].push_back(i);
    ScanOptions opts;
    opts.columns = std::vector<std::string>{f->name};
    opts.with_row_address = true;
    opts.filter = fallback_filter;
    opts.fragment_ids = std::move(uncovered);
    OG_ASSIGN_OR_RETURN(std::unique_ptr<Scanner> scanner, version.Scan(std::move(opts)));
    while (true) {
      OG_ASSIGN_OR_RETURN(std::optional<format::Batch> b, scanner->Next());
      if (!b) break;
      const format::Column& c = b->column(0);
      std::span<const uint64_t> addr = b->column(1).u64_values();
      for (size_t r = 0; r < b->num_rows(); ++r) {
        if (c.IsNull(r)) continue;
        auto hit = by_value.find(c.string_at(r));
        if (hit == by_value.end()) continue;
        for (size_t i : hit->second) live.emplace_back(i, addr[r]);
      }
    }
  }
  std::sort(live.begin(), live.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  live.erase(std::unique(live.begin(), live.end()), live.end());
  return live;
}

}  // namespace omnigraph::table
