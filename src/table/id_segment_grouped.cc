// GroupedSegmentBuilder: builds version-4 (grouped) id-index segments (docs/format/table.md
// "Id-index segment"). A value index repeats each key for every row that holds it (an edge
// table's `src` repeats a node id per edge), so the entries are gathered by key first: the key's
// hash is computed once per run of equal keys, its bytes stored once, and only the distinct keys
// are sorted.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "common/check.h"
#include "common/little_endian.h"
#include "table/id_index.h"

namespace omnigraph::table {
namespace {

constexpr char kMagic[8] = {'O', 'G', 'I', 'D', 'X', 'S', 'G', '1'};

}  // namespace

GroupedSegmentBuilder::GroupedSegmentBuilder(size_t expected_entries) {
  entry_group_.reserve(expected_entries);
  entry_address_.reserve(expected_entries);
  slots_.assign(size_t{1} << 10, Slot{});
}

void GroupedSegmentBuilder::Grow() {
  std::vector<Slot> next(2 * slots_.size(), Slot{});
  const size_t mask = next.size() - 1;
  for (size_t g = 0; g < groups_.size(); ++g) {
    const Group& x = groups_[g];
    size_t i = x.hash & mask;
    while (next[i].group_plus_one != 0) i = (i + 1) & mask;
    next[i] = Slot{x.hash, x.key_offset, x.key_size, static_cast<uint32_t>(g + 1)};
  }
  slots_ = std::move(next);
}

// Open addressing on the hash's low bits (the segment's buckets use the high ones). A slot holds
// the hash, so only a matching hash reads the group's key (from the compact arena).
uint32_t GroupedSegmentBuilder::GroupOf(uint64_t hash, std::string_view key) {
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot slot = slots_[i];
    if (slot.group_plus_one == 0) {
      OG_CHECK(groups_.size() < UINT32_MAX - 1 && key.size() <= UINT32_MAX);
      const Group x{hash, arena_.size(), static_cast<uint32_t>(key.size()), 0};
      groups_.push_back(x);
      arena_.append(key);
      const auto g = static_cast<uint32_t>(groups_.size() - 1);
      slots_[i] = Slot{hash, x.key_offset, x.key_size, g + 1};
      if (2 * groups_.size() > slots_.size()) Grow();
      return g;
    }
    if (slot.hash == hash && std::string_view(arena_).substr(slot.key_offset, slot.key_size) == key)
      return slot.group_plus_one - 1;
  }
}

void GroupedSegmentBuilder::Add(std::string_view key, uint64_t address) {
  if (last_group_ == UINT32_MAX || KeyOf(groups_[last_group_]) != key)
    last_group_ = GroupOf(IdSegment::KeyHash(key), key);
  ++groups_[last_group_].count;
  entry_group_.push_back(last_group_);
  entry_address_.push_back(address);
}

void GroupedSegmentBuilder::Add(uint64_t hash, std::string_view key, uint64_t address) {
  if (last_group_ == UINT32_MAX || KeyOf(groups_[last_group_]) != key) last_group_ = GroupOf(hash, key);
  ++groups_[last_group_].count;
  entry_group_.push_back(last_group_);
  entry_address_.push_back(address);
}

template <typename Key, typename Address, typename Skip>
void GroupedSegmentBuilder::AddBlocked(size_t n, Key key, Address address, Skip skip) {
  constexpr size_t kBlock = 16;
  uint64_t hashes[kBlock];
  bool same[kBlock];  // the key equals the previous entry's (it reuses that group)
  std::string_view prev;
  bool has_prev = last_group_ != UINT32_MAX;
  if (has_prev) prev = KeyOf(groups_[last_group_]);
  for (size_t start = 0; start < n; start += kBlock) {
    const size_t end = std::min(n, start + kBlock);
    // Hash the block and fetch its slots, so the lookups below find them in cache.
    for (size_t i = start; i < end; ++i) {
      if (skip(i)) continue;
      const std::string_view k = key(i);
      same[i - start] = has_prev && k == prev;
      prev = k;
      has_prev = true;
      if (same[i - start]) continue;
      hashes[i - start] = IdSegment::KeyHash(k);
      __builtin_prefetch(&slots_[hashes[i - start] & (slots_.size() - 1)]);
    }
    for (size_t i = start; i < end; ++i) {
      if (skip(i)) continue;
      if (!same[i - start]) last_group_ = GroupOf(hashes[i - start], key(i));
      ++groups_[last_group_].count;
      entry_group_.push_back(last_group_);
      entry_address_.push_back(address(i));
    }
  }
}

void GroupedSegmentBuilder::AddMany(std::span<const std::pair<std::string_view, uint64_t>> entries) {
  AddBlocked(
      entries.size(), [&](size_t i) { return entries[i].first; }, [&](size_t i) { return entries[i].second; },
      [](size_t) { return false; });
}

void GroupedSegmentBuilder::AddColumn(const format::Column& column, uint64_t first_address) {
  const bool nulls = column.has_nulls();
  const uint64_t* offsets = column.offsets().data();
  const char* bytes = column.string_data().data();
  AddBlocked(
      column.length(), [&](size_t i) { return std::string_view(bytes + offsets[i], offsets[i + 1] - offsets[i]); },
      [&](size_t i) { return first_address + i; }, [&](size_t i) { return nulls && column.IsNull(i); });
}

IdSegment GroupedSegmentBuilder::Finish() && {
  std::vector<Slot>().swap(slots_);  // not needed any more: its memory goes before the segment's
  const uint64_t n = entry_group_.size();
  const uint64_t g = groups_.size();
  OG_CHECK(n <= UINT32_MAX);
  // Groups in (hash, key) order: a counting sort on the hash's top 16 bits, then each (small)
  // bin by comparison. Keys of different groups differ, so the order is total.
  auto less = [this](uint32_t a, uint32_t b) {
    const Group &x = groups_[a], &y = groups_[b];
    return x.hash != y.hash ? x.hash < y.hash : KeyOf(x) < KeyOf(y);
  };
  std::vector<uint32_t> order(g);
  if (g < 4096) {
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), less);
  } else {
    constexpr size_t kBins = size_t{1} << 16;
    std::vector<uint32_t> start(kBins + 1, 0);
    for (const Group& x : groups_) ++start[(x.hash >> 48) + 1];
    for (size_t b = 1; b <= kBins; ++b) start[b] += start[b - 1];
    std::vector<uint32_t> next(start.begin(), start.end() - 1);
    for (uint32_t i = 0; i < g; ++i) order[next[groups_[i].hash >> 48]++] = i;
    for (size_t b = 0; b < kBins; ++b) {
      if (start[b + 1] - start[b] > 1) std::sort(order.begin() + start[b], order.begin() + start[b + 1], less);
    }
  }
  const uint64_t key_bytes = arena_.size();
  const uint32_t bits = IdSegment::BucketBitsFor(g);
  const uint64_t body = IdSegment::GroupedBodySize(g, n, bits, key_bytes);
  IdSegment s;
  s.bytes_.resize(body + 4 * IdSegment::ChunkCount(body) + 8);
  char* p = s.bytes_.data();
  std::memcpy(p, kMagic, 8);
  StoreLe32(p + 8, IdSegment::kGroupedVersion);
  StoreLe32(p + 12, 0);
  StoreLe64(p + 16, g);
  StoreLe32(p + 24, bits);
  StoreLe32(p + 28, 0);
  StoreLe64(p + 32, key_bytes);
  StoreLe64(p + 40, n);
  s.Layout();
  // Per group, in order: hash, key, key end, address end; `cursor` (by group id) is where the
  // group's next address goes.
  std::vector<uint32_t> cursor(g);
  uint64_t key_end = 0, addr_end = 0;
  for (uint64_t r = 0; r < g; ++r) {
    const Group& x = groups_[order[r]];
    StoreLe64(p + s.hashes_ + 8 * r, x.hash);
    std::memcpy(p + s.keys_ + key_end, arena_.data() + x.key_offset, x.key_size);
    key_end += x.key_size;
    StoreLe64(p + s.key_ends_ + 8 * r, key_end);
    cursor[order[r]] = static_cast<uint32_t>(addr_end);
    addr_end += x.count;
    StoreLe64(p + s.addr_ends_ + 8 * r, addr_end);
  }
  // buckets[b] = first group whose bucket is >= b.
  const uint64_t nb = uint64_t{1} << bits;
  uint64_t i = 0;
  for (uint64_t b = 0; b <= nb; ++b) {
    while (i < g && IdSegment::BucketOf(groups_[order[i]].hash, bits) < b) ++i;
    StoreLe32(p + s.buckets_ + 4 * b, static_cast<uint32_t>(b == nb ? g : i));
  }
  char* addresses = p + s.addresses_;
  for (uint64_t e = 0; e < n; ++e) StoreLe64(addresses + 8 * cursor[entry_group_[e]]++, entry_address_[e]);
  // Entries usually arrive in address order, which keeps each group's addresses ascending; a
  // group that is not (merged segments, compaction) is sorted.
  uint64_t begin = 0;
  for (uint64_t r = 0; r < g; ++r) {
    const uint64_t end = LoadLe64(p + s.addr_ends_ + 8 * r);
    for (uint64_t e = begin + 1; e < end; ++e) {
      if (LoadLe64(addresses + 8 * (e - 1)) <= LoadLe64(addresses + 8 * e)) continue;
      std::vector<uint64_t> run(end - begin);
      std::memcpy(run.data(), addresses + 8 * begin, 8 * run.size());
      std::sort(run.begin(), run.end());
      std::memcpy(addresses + 8 * begin, run.data(), 8 * run.size());
      break;
    }
    begin = end;
  }
  IdSegment::Seal(&s.bytes_, body);
  return s;
}

}  // namespace omnigraph::table
