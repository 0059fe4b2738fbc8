#include "table/id_index.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>
#include <set>

#include "common/error_codes.h"
#include "common/hash.h"
#include "table/table_layout.h"

namespace omnigraph::table {

Result<IndexSegmentMeta> WriteIdSegment(const TableVersion& version, std::string_view kind, FieldId field,
                                        std::vector<uint32_t> fragment_ids, IdSegment segment) {
  IndexSegmentMeta meta;
  meta.kind = std::string(kind);
  meta.field_id = field;
  std::sort(fragment_ids.begin(), fragment_ids.end());
  meta.fragment_ids = std::move(fragment_ids);
  meta.entries = segment.size();
  meta.keys.push_back(NewIndexKey(kIdSegmentSuffix));
  const std::string key = version.AbsoluteKey(meta.keys[0]);
  if (segment.bytes().size() > kCacheWrittenSegmentBytes) {
    OG_RETURN_IF_ERROR(version.store().PutIfAbsentMoved(key, std::move(segment).ReleaseBytes()));
    return meta;
  }
  auto shared = std::make_shared<const IdSegment>(std::move(segment));
  OG_RETURN_IF_ERROR(version.store().PutIfAbsent(key, shared->bytes()));
  version.cache()->PutIdSegment(meta.keys[0], std::move(shared));
  return meta;
}

namespace {
Result<std::shared_ptr<const IdSegment>> LoadSegment(const TableVersion& v, const std::string& rel) {
  if (auto seg = v.cache()->GetIdSegment(rel)) return seg;
  const std::string key = v.AbsoluteKey(rel);
  OG_ASSIGN_OR_RETURN(std::string bytes, v.store().Get(key));
  OG_ASSIGN_OR_RETURN(IdSegment parsed, IdSegment::Parse(std::move(bytes), key));
  auto seg = std::make_shared<const IdSegment>(std::move(parsed));
  v.cache()->PutIdSegment(rel, seg);
  return seg;
}
}  // namespace

uint64_t IndexFeed::entries() const {
  uint64_t n = 0;
  for (const Part& p : parts) n += p.column.length() - p.column.null_count();
  return n;
}

std::vector<IndexFeed> IndexFeeds(const TableSchema& schema) {
  std::vector<IndexFeed> feeds;
  if (schema.key_field_id != 0) feeds.push_back(IndexFeed{std::string(kIdIndexKind), schema.key_field_id, {}});
  for (FieldId f : schema.indexed_field_ids) feeds.push_back(IndexFeed{std::string(kValueIndexKind), f, {}});
  return feeds;
}

Result<MergedSegment> WriteMergedSegment(const TableVersion& base, IndexFeed feed, const std::set<uint32_t>& present,
                                         std::vector<uint32_t> fragment_ids,
                                         const std::vector<IndexSegmentMeta>& indexes, uint64_t max_merged_entries) {
  MergedSegment out;
  uint64_t total = feed.entries();
  // The newest existing segments of this (kind, field) merged into the new one, while each is at
  // most twice the entries so far. Keys are views into the feed and these segments (kept alive).
  std::vector<std::shared_ptr<const IdSegment>> merged;
  for (size_t pos = indexes.size(); pos-- > 0;) {
    const IndexSegmentMeta& prev = indexes[pos];
    if (prev.kind != feed.kind || prev.field_id != feed.field) continue;
    if (prev.entries > 2 * total || total + prev.entries > max_merged_entries) break;
    OG_ASSIGN_OR_RETURN(auto seg, LoadSegment(base, prev.keys[0]));
    merged.push_back(std::move(seg));
    fragment_ids.insert(fragment_ids.end(), prev.fragment_ids.begin(), prev.fragment_ids.end());
    total += prev.entries;
    out.replaced.push_back(pos);
  }
  // Calls f(hash, key, address) for every entry of merged segment `s` whose fragment is present,
  // in the segment's (hash, key, address) order.
  auto for_each_present = [&](const IdSegment& s, auto&& f) {
    for (size_t g = 0; g < s.group_count(); ++g) {
      const auto [lo, hi] = s.group_entries(g);
      for (size_t e = lo; e < hi; ++e) {
        if (present.count(RowAddressFragment(s.address(e)))) f(s.group_hash(g), s.group_key(g), s.address(e));
      }
    }
  };
  std::optional<IdSegment> seg;
  if (feed.kind == kValueIndexKind) {
    // A value index: grouped by key (version 4).
    GroupedSegmentBuilder builder(total);
    for (const IndexFeed::Part& part : feed.parts) builder.AddColumn(part.column, part.first_address);
    feed.parts.clear();
    for (const auto& s : merged) {
      for_each_present(*s,
                       [&](uint64_t hash, std::string_view key, uint64_t address) { builder.Add(hash, key, address); });
    }
    seg = std::move(builder).Finish();
  } else {
    // An id index (one row per key): entries sorted by (hash, key, address) (version 3); each
    // merged segment is already in that order, so it is merged in linearly.
    std::vector<IdSegment::Ref> refs;
    refs.reserve(total);
    for (const IndexFeed::Part& part : feed.parts) {
      const format::Column& c = part.column;
      const uint64_t* offsets = c.offsets().data();
      const char* bytes = c.string_data().data();
      for (size_t i = 0; i < c.length(); ++i) {
        if (c.has_nulls() && c.IsNull(i)) continue;
        const std::string_view key(bytes + offsets[i], offsets[i + 1] - offsets[i]);
        refs.push_back(IdSegment::Ref{IdSegment::KeyHash(key), key, part.first_address + i});
      }
    }
    IdSegment::SortRefs(&refs);
    for (const auto& s : merged) {
      const size_t mid = refs.size();
      for_each_present(*s, [&](uint64_t hash, std::string_view key, uint64_t address) {
        refs.push_back(IdSegment::Ref{hash, key, address});
      });
      std::inplace_merge(refs.begin(), refs.begin() + static_cast<ptrdiff_t>(mid), refs.end(), IdSegment::RefLess);
    }
    seg = IdSegment::BuildSorted(refs);
  }
  merged.clear();  // the version-3 refs viewed their keys
  OG_ASSIGN_OR_RETURN(out.meta, WriteIdSegment(base, feed.kind, feed.field, std::move(fragment_ids), std::move(*seg)));
  return out;
}

void ApplyMergedSegments(std::vector<MergedSegment> segments, std::vector<IndexSegmentMeta>* indexes) {
  std::set<size_t> gone;
  for (const MergedSegment& s : segments) gone.insert(s.replaced.begin(), s.replaced.end());
  std::vector<IndexSegmentMeta> kept;
  kept.reserve(indexes->size() - gone.size() + segments.size());
  for (size_t i = 0; i < indexes->size(); ++i) {
    if (!gone.count(i)) kept.push_back(std::move((*indexes)[i]));
  }
  for (MergedSegment& s : segments) kept.push_back(std::move(s.meta));
  *indexes = std::move(kept);
}

void AddIndexEffects(const TableVersion& base, std::vector<IndexFeed>* feeds, const std::set<uint32_t>& present,
                     const std::vector<uint32_t>& fresh_ids, const std::vector<IndexSegmentMeta>& indexes,
                     std::vector<std::function<Status()>>* effects, std::vector<MergedSegment>* results) {
  if (fresh_ids.empty()) return;
  results->clear();
  results->resize(feeds->size());
  for (size_t i = 0; i < feeds->size(); ++i) {
    effects->push_back([&base, feeds, &present, fresh_ids, &indexes, results, i]() -> Status {
      OG_ASSIGN_OR_RETURN((*results)[i], WriteMergedSegment(base, std::move((*feeds)[i]), present, fresh_ids, indexes));
      return Status::Ok();
    });
  }
}

Result<IdIndex> IdIndex::Open(const TableVersion& version) {
  const Manifest& m = version.manifest();
  const FieldId key_field = m.schema.key_field_id;
  if (key_field == 0) return InvalidArgumentError("table has no key column; it has no id index");
  IdIndex idx;
  std::set<uint32_t> covered;
  for (const IndexSegmentMeta& s : m.indexes) {
    if (s.kind != kIdIndexKind || s.field_id != key_field) continue;
    OG_ASSIGN_OR_RETURN(std::shared_ptr<const IdSegment> seg, LoadSegment(version, s.keys[0]));
    idx.segments_.push_back(std::move(seg));
    covered.insert(s.fragment_ids.begin(), s.fragment_ids.end());
  }
  std::vector<std::pair<std::string, uint64_t>> extra;
  const Field* kf = m.schema.FindById(key_field);
  for (const FragmentMeta& f : m.fragments) {
    FragmentState st;
    st.id = f.id;
    OG_ASSIGN_OR_RETURN(st.deletion, version.LoadDeletion(f));
    idx.fragments_.push_back(std::move(st));
    if (covered.count(f.id)) continue;
    ++idx.uncovered_;
    OG_ASSIGN_OR_RETURN(auto reader, version.OpenFragment(f));
    if (!reader->ColumnIndex(key_field)) {
      return CorruptError(reader->key() + ": fragment lacks the key column '" + kf->name + "'");
    }
    FieldId ids[] = {key_field};
    OG_ASSIGN_OR_RETURN(format::Batch b, reader->ReadAll(ids));
    const format::Column& c = b.column(0);
    for (size_t i = 0; i < c.length(); ++i) {
      extra.emplace_back(std::string(c.string_at(i)), MakeRowAddress(f.id, static_cast<uint32_t>(i)));
    }
  }
  if (!extra.empty()) idx.segments_.push_back(std::make_shared<const IdSegment>(IdSegment::Build(std::move(extra))));
  return idx;
}

bool IdIndex::IsLive(uint64_t addr) const {
  const uint32_t fid = RowAddressFragment(addr);
  auto it = std::lower_bound(fragments_.begin(), fragments_.end(), fid,
                             [](const FragmentState& f, uint32_t x) { return f.id < x; });
  if (it == fragments_.end() || it->id != fid) return false;
  return !it->deletion->Contains(RowAddressOffset(addr));
}

void IdIndex::Probe(const IdSegment& seg, std::string_view id, uint64_t hash, std::optional<uint64_t>* best) const {
  auto [lo, hi] = seg.EqualRange(id, hash);
  for (size_t i = lo; i < hi; ++i) {
    const uint64_t a = seg.address(i);
    if ((!*best || a > **best) && IsLive(a)) *best = a;
  }
}

std::optional<uint64_t> IdIndex::Lookup(std::string_view id) const {
  std::optional<uint64_t> best;
  const uint64_t h = IdSegment::KeyHash(id);
  for (const auto& seg : segments_) Probe(*seg, id, h, &best);
  return best;
}

std::vector<uint64_t> IdIndex::LookupAll(std::string_view id) const {
  std::vector<uint64_t> out;
  const uint64_t h = IdSegment::KeyHash(id);
  for (const auto& seg : segments_) {
    auto [lo, hi] = seg->EqualRange(id, h);
    for (size_t i = lo; i < hi; ++i) {
      if (IsLive(seg->address(i))) out.push_back(seg->address(i));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::optional<uint64_t>> IdIndex::LookupMany(std::span<const std::string> ids) const {
  std::vector<std::optional<uint64_t>> out(ids.size());
  // (hash, position) in ascending hash order: each segment is then probed in ascending bucket
  // order, so its bucket, hash, key and address arrays are read front to back instead of at
  // random. For large batches a counting sort on the top 16 hash bits gives that locality in
  // linear time.
  std::vector<std::pair<uint64_t, size_t>> order(ids.size());
  constexpr size_t kBinBits = 16;
  if (ids.size() < (size_t{1} << kBinBits)) {
    for (size_t i = 0; i < ids.size(); ++i) order[i] = {IdSegment::KeyHash(ids[i]), i};
    std::sort(order.begin(), order.end());
  } else {
    std::vector<uint64_t> hashes(ids.size());
    std::vector<size_t> bins((size_t{1} << kBinBits) + 1, 0);
    for (size_t i = 0; i < ids.size(); ++i) {
      hashes[i] = IdSegment::KeyHash(ids[i]);
      ++bins[(hashes[i] >> (64 - kBinBits)) + 1];
    }
    for (size_t b = 1; b < bins.size(); ++b) bins[b] += bins[b - 1];
    for (size_t i = 0; i < ids.size(); ++i) order[bins[hashes[i] >> (64 - kBinBits)]++] = {hashes[i], i};
  }
  for (const auto& seg : segments_) {
    for (const auto& [h, i] : order) {
      if (seg->HasHash(h)) Probe(*seg, ids[i], h, &out[i]);
    }
  }
  return out;
}

}  // namespace omnigraph::table
