#include "table/index_probe.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>

#include "common/check.h"
#include "common/error_codes.h"
#include "common/little_endian.h"
#include "table/id_index.h"
#include "table/scanner.h"

namespace omnigraph::table {
namespace {

constexpr char kMagic[8] = {'O', 'G', 'I', 'D', 'X', 'S', 'G', '1'};
// Version 3's header; version 4 adds the entry count.
constexpr uint64_t kHeaderSize = 40;
constexpr uint64_t kGroupedHeaderSize = 48;
// Ranges closer than this are fetched in one request: fewer requests for a few hundred bytes more.
constexpr uint64_t kCoalesceGap = 512;

// Byte ranges of one version-3 or version-4 segment, fetched with as few GetRange requests as kCoalesceGap
// allows. Every range is widened to whole checksum chunks of the segment's body, fetched with
// their stored sums and checked before any byte is used: damaged bytes are `corrupt`, never data.
// Each chunk is fetched and verified once; reads are served only from verified chunks (a range
// crossing chunks fetched in different rounds is stitched together).
class RangeSet {
 public:
  RangeSet(std::string key, uint64_t body_bytes) : key_(std::move(key)), body_(body_bytes) {}
  void Add(uint64_t offset, uint64_t length) {
    if (length == 0) return;
    for (uint64_t c = offset / kChunk; c <= (offset + length - 1) / kChunk; ++c) {
      if (chunks_.count(c) || !pending_.insert(c).second) continue;
      wanted_.emplace_back(c * kChunk, std::min(body_, (c + 1) * kChunk));
      wanted_.emplace_back(body_ + 4 * c, body_ + 4 * c + 4);
    }
  }
  Status Fetch(const TableVersion& v, ProbeStats* stats) {
    std::sort(wanted_.begin(), wanted_.end());
    std::vector<std::pair<uint64_t, uint64_t>> runs;  // [begin, end), disjoint, ascending
    for (const auto& [begin, end] : wanted_) {
      if (!runs.empty() && begin <= runs.back().second + kCoalesceGap) {
        runs.back().second = std::max(runs.back().second, end);
      } else {
        runs.emplace_back(begin, end);
      }
    }
    wanted_.clear();
    std::vector<const std::string*> bytes;
    for (const auto& [begin, end] : runs) {
      Result<std::string> got = v.store().GetRange(v.AbsoluteKey(key_), begin, end - begin);
      if (!got.ok() && got.status().code() != ErrorCode::kRangeOutOfBounds) return got.status();
      if (!got.ok() || got->size() != end - begin)
        return CorruptError(key_ + ": index segment is shorter than its header says");
      ++stats->ranged_reads;
      stats->bytes_read += got->size();
      bytes.push_back(&storage_.emplace_back(std::move(got).value()));  // deque: stable addresses
    }
    // The bytes [offset, offset + length) of this round's runs (Add put every chunk and sum in one).
    auto in_round = [&](uint64_t offset, uint64_t length) {
      auto it =
          std::upper_bound(runs.begin(), runs.end(), offset, [](uint64_t o, const auto& r) { return o < r.first; });
      OG_CHECK(it != runs.begin());
      --it;
      OG_CHECK(offset + length <= it->second);
      return std::string_view(*bytes[static_cast<size_t>(it - runs.begin())]).substr(offset - it->first, length);
    };
    for (uint64_t c : pending_) {
      const uint64_t at = c * kChunk, len = std::min(body_, at + kChunk) - at;
      std::string_view chunk = in_round(at, len);
      if (IdSegment::ChunkSum(chunk) != LoadLe32(in_round(body_ + 4 * c, 4), 0))
        return CorruptError(key_ + ": index segment chunk " + std::to_string(c) + " fails its checksum");
      chunks_.emplace(c, chunk);
    }
    pending_.clear();
    return Status::Ok();
  }
  // The verified bytes [offset, offset + length) of the body; Add + Fetch must have covered them.
  std::string_view At(uint64_t offset, uint64_t length) {
    if (length == 0) return {};
    const uint64_t first = offset / kChunk, last = (offset + length - 1) / kChunk;
    if (first == last) return Chunk(first).substr(offset - first * kChunk, length);
    std::string& out = storage_.emplace_back();
    for (uint64_t c = first; c <= last; ++c) {
      const uint64_t from = std::max(offset, c * kChunk), to = std::min(offset + length, (c + 1) * kChunk);
      out.append(Chunk(c).substr(from - c * kChunk, to - from));
    }
    return out;
  }

 private:
  static constexpr uint64_t kChunk = IdSegment::kChunkBytes;
  std::string_view Chunk(uint64_t c) const {
    auto it = chunks_.find(c);
    OG_CHECK(it != chunks_.end());
    return it->second;
  }
  std::string key_;
  uint64_t body_;
  std::map<uint64_t, std::string_view> chunks_;  // verified chunks, views into storage_
  std::set<uint64_t> pending_;                   // added, not fetched yet
  std::vector<std::pair<uint64_t, uint64_t>> wanted_;
  std::deque<std::string> storage_;
};

// A value looked up: its hash and its position in the caller's list.
struct Wanted {
  uint64_t hash;
  size_t index;
};

// Probes `segment` in memory; appends (value index, address) matches.
void ProbeLoaded(const IdSegment& segment, std::span<const std::string> values, const std::vector<Wanted>& wanted,
                 std::vector<std::pair<size_t, uint64_t>>* out) {
  for (const Wanted& w : wanted) {
    if (!segment.HasHash(w.hash)) continue;
    auto [lo, hi] = segment.EqualRange(values[w.index], w.hash);
    for (size_t i = lo; i < hi; ++i) out->emplace_back(w.index, segment.address(i));
  }
}

// Probes one stored segment; appends (value index, address) matches. Versions 3 and 4 by ranged
// reads of checksummed chunks; older versions (no chunk sums) are read whole, verified, cached,
// and probed in memory.
Status ProbeStored(const TableVersion& v, const IndexSegmentMeta& meta, std::span<const std::string> values,
                   const std::vector<Wanted>& wanted, std::vector<std::pair<size_t, uint64_t>>* out,
                   ProbeStats* stats) {
  const std::string key = v.AbsoluteKey(meta.keys[0]);
  char header_bytes[kGroupedHeaderSize] = {};
  size_t header_length = 0;
  {
    // Every segment of versions 3 and 4 is longer than 48 bytes (buckets, chunk sums, trailer); a
    // shorter object (an old version, or damaged) is read whole below, which reports it.
    Result<std::string> read = v.store().GetRange(key, 0, kGroupedHeaderSize);
    if (!read.ok() && read.status().code() != ErrorCode::kRangeOutOfBounds) return read.status();
    if (read.ok()) {
      header_length = std::min<size_t>(read->size(), kGroupedHeaderSize);
      std::memcpy(header_bytes, read->data(), header_length);
    }
  }
  ++stats->ranged_reads;
  stats->bytes_read += header_length;
  if (header_length != 0 && (header_length < 16 || std::memcmp(header_bytes, kMagic, 8) != 0))
    return CorruptError(key + ": not an index segment (bad magic)");
  const uint32_t version = header_length == 0 ? 0 : LoadLe32(std::string_view(header_bytes, header_length), 8);
  const bool grouped = version == IdSegment::kGroupedVersion;
  const uint64_t header_size = grouped ? kGroupedHeaderSize : kHeaderSize;
  if ((version != 3 && !grouped) || header_length != kGroupedHeaderSize) {
    // Parse verifies the whole-object checksum and reports versions it cannot read.
    OG_ASSIGN_OR_RETURN(std::string all, v.store().Get(key));
    ++stats->whole_reads;
    stats->bytes_read += all.size();
    OG_ASSIGN_OR_RETURN(IdSegment parsed, IdSegment::Parse(std::move(all), key));
    auto seg = std::make_shared<const IdSegment>(std::move(parsed));
    v.cache()->PutIdSegment(meta.keys[0], seg);
    ProbeLoaded(*seg, values, wanted, out);
    return Status::Ok();
  }
  const std::string_view header(header_bytes, header_size);
  // g groups of n entries (version 3: one entry per group).
  const uint64_t g = LoadLe64(header, 16);
  const uint32_t bits = LoadLe32(header, 24);
  const uint64_t key_bytes = LoadLe64(header, 32);
  const uint64_t n = grouped ? LoadLe64(header, 40) : g;
  const uint32_t expect_bits = g <= 1 ? 0 : static_cast<uint32_t>(std::bit_width(g) - 1);
  if (n != meta.entries || n >= (uint64_t{1} << 32) || g > n || (n > 0) != (g > 0) || bits != expect_bits ||
      key_bytes > (uint64_t{1} << 40))
    return CorruptError(key + ": index segment header disagrees with the manifest (" + std::to_string(n) +
                        " entries, " + std::to_string(meta.entries) + " expected)");
  // Section offsets (docs/format/table.md): version 3 has per-entry hashes, addresses, key ends;
  // version 4 per-group hashes, key ends, address ends, then the addresses.
  const uint64_t hashes = header_size;
  const uint64_t ends = grouped ? hashes + 8 * g : hashes + 16 * n;
  const uint64_t addr_ends = ends + 8 * g;  // version 4 only
  const uint64_t addresses = grouped ? addr_ends + 8 * g : hashes + 8 * n;
  const uint64_t buckets = grouped ? addresses + 8 * n : ends + 8 * n;
  const uint64_t keys = buckets + 4 * ((uint64_t{1} << bits) + 1), body = keys + key_bytes;
  RangeSet ranges(meta.keys[0], body);
  // 1. The (checksummed) header again and the bucket directory entries of the wanted values.
  ranges.Add(0, header_size);
  auto bucket_of = [&](uint64_t h) { return bits == 0 ? 0 : h >> (64 - bits); };
  for (const Wanted& w : wanted) ranges.Add(buckets + 4 * bucket_of(w.hash), 8);
  OG_RETURN_IF_ERROR(ranges.Fetch(v, stats));
  if (ranges.At(0, header_size) != header) return CorruptError(key + ": index segment header changed while read");
  if (n == 0) return Status::Ok();
  // 2. The hashes, key ends and addresses (version 4: address ends) of those buckets' groups.
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> spans;  // bucket -> [lo, hi)
  auto add_ends = [&](uint64_t base, uint64_t lo, uint64_t hi) {
    ranges.Add(base + 8 * (lo == 0 ? 0 : lo - 1), 8 * (hi - lo + (lo == 0 ? 0 : 1)));
  };
  for (const Wanted& w : wanted) {
    const uint64_t b = bucket_of(w.hash);
    std::string_view d = ranges.At(buckets + 4 * b, 8);
    const uint64_t lo = LoadLe32(d, 0), hi = LoadLe32(d, 4);
    if (lo > hi || hi > g) return CorruptError(key + ": index segment bucket out of range");
    if (!spans.emplace(b, std::pair{lo, hi}).second || lo == hi) continue;
    ranges.Add(hashes + 8 * lo, 8 * (hi - lo));
    add_ends(ends, lo, hi);
    if (grouped) {
      add_ends(addr_ends, lo, hi);
    } else {
      ranges.Add(addresses + 8 * lo, 8 * (hi - lo));
    }
  }
  OG_RETURN_IF_ERROR(ranges.Fetch(v, stats));
  // 3. The key bytes (and version 4: the addresses) of groups whose hash matches; the key decides.
  struct Candidate {
    size_t index;
    uint64_t begin, end;            // key bytes
    uint64_t first_entry, entries;  // addresses
  };
  auto end_at = [&](uint64_t base, uint64_t i) { return i == 0 ? 0 : LoadLe64(ranges.At(base + 8 * (i - 1), 8), 0); };
  std::vector<Candidate> candidates;
  for (const Wanted& w : wanted) {
    const auto [lo, hi] = spans.at(bucket_of(w.hash));
    for (uint64_t i = lo; i < hi; ++i) {
      if (LoadLe64(ranges.At(hashes + 8 * i, 8), 0) != w.hash) continue;
      const uint64_t begin = end_at(ends, i), end = end_at(ends, i + 1);
      if (begin > end || end > key_bytes) return CorruptError(key + ": index segment key bounds out of range");
      Candidate c{w.index, begin, end, i, 1};
      if (grouped) {
        const uint64_t first = end_at(addr_ends, i), last = end_at(addr_ends, i + 1);
        if (first >= last || last > n) return CorruptError(key + ": index segment address bounds out of range");
        c.first_entry = first;
        c.entries = last - first;
        ranges.Add(addresses + 8 * first, 8 * c.entries);
      }
      candidates.push_back(c);
      ranges.Add(keys + begin, end - begin);
    }
  }
  OG_RETURN_IF_ERROR(ranges.Fetch(v, stats));
  for (const Candidate& c : candidates) {
    if (ranges.At(keys + c.begin, c.end - c.begin) != values[c.index]) continue;
    std::string_view addrs = ranges.At(addresses + 8 * c.first_entry, 8 * c.entries);
    for (uint64_t e = 0; e < c.entries; ++e) out->emplace_back(c.index, LoadLe64(addrs, 8 * e));
  }
  return Status::Ok();
}

}  // namespace

bool HasHashIndex(const TableVersion& version, FieldId field) {
  const TableSchema& s = version.schema();
  return field == s.key_field_id || std::binary_search(s.indexed_field_ids.begin(), s.indexed_field_ids.end(), field);
}

uint64_t UncoveredRows(const TableVersion& version, FieldId field) {
  const Manifest& m = version.manifest();
  const std::string_view kind = field == m.schema.key_field_id ? kIdIndexKind : kValueIndexKind;
  std::set<uint32_t> covered;
  for (const IndexSegmentMeta& s : m.indexes) {
    if (s.kind == kind && s.field_id == field) covered.insert(s.fragment_ids.begin(), s.fragment_ids.end());
  }
  uint64_t rows = 0;
  for (const FragmentMeta& f : m.fragments) {
    if (!covered.count(f.id)) rows += f.physical_rows;
  }
  return rows;
}

Result<std::vector<std::pair<size_t, uint64_t>>> ProbeColumn(const TableVersion& version, FieldId field,
                                                             std::span<const std::string> values,
                                                             const Predicate& fallback_filter, ProbeStats* stats,
                                                             uint64_t whole_segment_entries) {
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
      ProbeLoaded(*seg, values, wanted, &found);
      continue;
    }
    if (whole_segment_entries > 0 && s.entries <= std::max<uint64_t>(whole_segment_entries, 8 * values.size())) {
      // A small segment: one whole read (verified, then cached for the next probes) costs less
      // than ranged reads of a few chunks per value.
      OG_ASSIGN_OR_RETURN(std::string all, version.store().Get(version.AbsoluteKey(s.keys[0])));
      ++stats->whole_reads;
      stats->bytes_read += all.size();
      OG_ASSIGN_OR_RETURN(IdSegment parsed, IdSegment::Parse(std::move(all), version.AbsoluteKey(s.keys[0])));
      auto seg = std::make_shared<const IdSegment>(std::move(parsed));
      version.cache()->PutIdSegment(s.keys[0], seg);
      ProbeLoaded(*seg, values, wanted, &found);
      continue;
    }
    // Values this segment answered before (it never changes) are not read again.
    std::vector<Wanted> misses;
    for (const Wanted& w : wanted) {
      if (auto answer = version.cache()->GetProbe(s.keys[0], values[w.index])) {
        for (uint64_t a : answer->addresses) found.emplace_back(w.index, a);
      } else {
        misses.push_back(w);
      }
    }
    if (misses.empty()) {
      ++stats->segments_remembered;
      continue;
    }
    ++stats->segments_ranged;
    const size_t before = found.size();
    OG_RETURN_IF_ERROR(ProbeStored(version, s, values, misses, &found, stats));
    std::unordered_map<size_t, std::vector<uint64_t>> answers;
    for (size_t k = before; k < found.size(); ++k) answers[found[k].first].push_back(found[k].second);
    for (const Wanted& w : misses) version.cache()->PutProbe(s.keys[0], values[w.index], std::move(answers[w.index]));
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

Result<std::vector<std::optional<uint64_t>>> ProbeIds(const TableVersion& version, std::span<const std::string> ids) {
  const FieldId key = version.schema().key_field_id;
  if (key == 0) return InvalidArgumentError("ProbeIds: the table has no key column");
  std::vector<Value> filter_values;
  filter_values.reserve(ids.size());
  for (const auto& id : ids) filter_values.push_back(Value::String(id));
  const std::string& name = version.schema().FindById(key)->name;
  OG_ASSIGN_OR_RETURN(auto hits, ProbeColumn(version, key, ids, Predicate::In(name, std::move(filter_values))));
  std::vector<std::optional<uint64_t>> out(ids.size());
  for (const auto& [i, address] : hits) {
    if (!out[i] || address > *out[i]) out[i] = address;
  }
  return out;
}

Result<std::optional<std::vector<uint64_t>>> ProbeMatch(const TableVersion& version, const Predicate& filter) {
  using Kind = Predicate::Kind;
  const std::optional<std::vector<uint64_t>> no;
  std::vector<const Predicate*> disjuncts;
  if (filter.kind() == Kind::kOr) {
    for (const Predicate& c : filter.children()) disjuncts.push_back(&c);
  } else {
    disjuncts.push_back(&filter);
  }
  // (field, its values) per disjunct; any other shape scans.
  std::vector<std::pair<FieldId, std::vector<std::string>>> probes;
  size_t total = 0;
  for (const Predicate* d : disjuncts) {
    const bool eq = d->kind() == Kind::kCompare && d->op() == CompareOp::kEq;
    if (!eq && d->kind() != Kind::kIn) return no;
    const Field* f = version.schema().FindByName(d->column());
    if (f == nullptr || f->type.kind != TypeKind::kString || !HasHashIndex(version, f->id)) return no;
    std::vector<std::string> values;
    for (const Value& v : d->values()) {
      if (v.is_null()) continue;  // matches nothing
      if (v.kind() != TypeKind::kString) return no;
      values.push_back(v.string_value());
    }
    total += values.size();
    probes.emplace_back(f->id, std::move(values));
  }
  if (!FewLookups(version, std::max<size_t>(total, 1))) return no;
  std::vector<uint64_t> out;
  for (size_t k = 0; k < probes.size(); ++k) {
    if (probes[k].second.empty()) continue;
    OG_ASSIGN_OR_RETURN(auto hits, ProbeColumn(version, probes[k].first, probes[k].second, *disjuncts[k]));
    for (const auto& [i, address] : hits) out.push_back(address);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return std::optional(std::move(out));
}

}  // namespace omnigraph::table
