// Tests of version-4 (grouped) id-index segments and GroupedSegmentBuilder: round trip against a
// model (empty to 70k entries, radix path included), AddMany / Add / Add-with-hash / AddColumn
// giving the same bytes, forced hash collisions, every flipped byte and truncation, and the
// structural checks behind valid chunk sums and trailer (docs/format/table.md "Id-index segment").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <tuple>

#include "common/error_codes.h"
#include "common/hash.h"
#include "table/id_index.h"
#include "table/table_test_util.h"

namespace omnigraph::table {
namespace {

using Entries = std::vector<std::pair<std::string, uint64_t>>;
using Model = std::map<std::string, std::vector<uint64_t>>;  // key -> addresses, ascending

const std::string kLongKey = "\xf0\x9f\x98\x80 long \xc3\xa9 key " + std::string(400, 'q') + "\xe2\x82\xac";

uint64_t U64At(const std::string& s, size_t off) {
  uint64_t v;
  std::memcpy(&v, s.data() + off, 8);
  return v;
}
uint32_t U32At(const std::string& s, size_t off) {
  uint32_t v;
  std::memcpy(&v, s.data() + off, 4);
  return v;
}

Model ModelOf(const Entries& entries) {
  Model m;
  for (const auto& [k, a] : entries) m[k].push_back(a);
  for (auto& [k, v] : m) std::sort(v.begin(), v.end());
  return m;
}

// `n` entries over about n / 4 distinct keys (including "" and kLongKey), in random order with
// runs of equal keys, with random (unsorted) addresses and one repeated (key, address) entry.
Entries RandomEntries(size_t n, std::mt19937_64& rng) {
  std::vector<std::string> pool{"", kLongKey};
  for (size_t i = 0; i < n / 4 + 1; ++i) pool.push_back("k" + std::to_string(i));
  Entries out;
  for (size_t i = 0; i < n; ++i) {
    if (i == 2) {  // an exact duplicate of the first entry
      out.push_back(out[0]);
      continue;
    }
    const bool run = !out.empty() && rng() % 3 == 0;
    std::string key = run ? out.back().first : pool[rng() % pool.size()];
    out.emplace_back(std::move(key), MakeRowAddress(static_cast<uint32_t>(rng() % 8), static_cast<uint32_t>(rng())));
  }
  return out;
}

std::vector<std::pair<std::string_view, uint64_t>> Views(const Entries& entries) {
  std::vector<std::pair<std::string_view, uint64_t>> out;
  for (const auto& [k, a] : entries) out.emplace_back(k, a);
  return out;
}

IdSegment BuildWithAdd(const Entries& entries) {
  GroupedSegmentBuilder b;
  for (const auto& [k, a] : entries) b.Add(k, a);
  return std::move(b).Finish();
}
IdSegment BuildWithHashes(const Entries& entries) {
  GroupedSegmentBuilder b(entries.size());
  for (const auto& [k, a] : entries) b.Add(IdSegment::KeyHash(k), k, a);
  return std::move(b).Finish();
}
// AddMany over the entries, in calls of `piece` entries (0: one call).
IdSegment BuildWithAddMany(const Entries& entries, size_t piece = 0) {
  const auto views = Views(entries);
  GroupedSegmentBuilder b;
  const std::span<const std::pair<std::string_view, uint64_t>> all(views);
  if (piece == 0) piece = std::max<size_t>(1, all.size());
  for (size_t at = 0; at < all.size(); at += piece) b.AddMany(all.subspan(at, std::min(piece, all.size() - at)));
  EXPECT_EQ(b.size(), entries.size());
  return std::move(b).Finish();
}

// Everything a reader can observe of `s` agrees with `model`.
void ExpectMatchesModel(const IdSegment& s, const Model& model, size_t entries) {
  ASSERT_EQ(s.layout_version(), IdSegment::kGroupedVersion);
  ASSERT_EQ(s.size(), entries);
  ASSERT_EQ(s.group_count(), model.size());
  Model seen;
  size_t next_entry = 0;
  for (size_t g = 0; g < s.group_count(); ++g) {
    const std::string_view key = s.group_key(g);
    ASSERT_EQ(s.group_hash(g), IdSegment::KeyHash(key)) << g;
    if (g > 0) {
      const std::pair<uint64_t, std::string_view> prev{s.group_hash(g - 1), s.group_key(g - 1)};
      ASSERT_LT(prev, std::make_pair(s.group_hash(g), key)) << "groups not strictly ordered at " << g;
    }
    const auto [lo, hi] = s.group_entries(g);
    ASSERT_EQ(lo, next_entry) << g;
    ASSERT_LT(lo, hi) << "empty group " << g;
    next_entry = hi;
    std::vector<uint64_t>& addrs = seen[std::string(key)];
    for (size_t e = lo; e < hi; ++e) addrs.push_back(s.address(e));
  }
  ASSERT_EQ(next_entry, entries);
  EXPECT_EQ(seen, model);  // every group's addresses ascending, keys distinct
  for (const auto& [key, want] : model) {
    const uint64_t h = IdSegment::KeyHash(key);
    EXPECT_TRUE(s.HasHash(h)) << key.size();
    for (auto [lo, hi] : {s.EqualRange(key), s.EqualRange(key, h)}) {
      std::vector<uint64_t> got;
      for (size_t e = lo; e < hi; ++e) got.push_back(s.address(e));
      ASSERT_EQ(got, want) << "key of " << key.size() << " bytes: " << key.substr(0, 20);
    }
  }
  const std::vector<std::string> absent{
      "absent", "k", "k-1", kLongKey.substr(0, 50), kLongKey + "x", std::string(1, '\0')};
  for (const std::string& key : absent) {
    if (model.count(key)) continue;
    const auto [lo, hi] = s.EqualRange(key);
    EXPECT_EQ(lo, hi) << key;
    EXPECT_FALSE(s.HasHash(IdSegment::KeyHash(key))) << key;
  }
}

TEST(GroupedSegmentTest, RoundTripMatchesAModel) {
  std::mt19937_64 rng(11);
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{100}, size_t{5000}, size_t{70000}}) {
    SCOPED_TRACE("entries " + std::to_string(n));
    const Entries entries = RandomEntries(n, rng);
    const Model model = ModelOf(entries);
    if (n == 70000) {
      ASSERT_GT(model.size(), 4096u);  // Finish's radix path
    }
    const IdSegment built = BuildWithAddMany(entries);
    ExpectMatchesModel(built, model, n);
    OG_ASSERT_OK_AND_ASSIGN(IdSegment parsed, IdSegment::Parse(built.bytes(), "grouped.seg"));
    EXPECT_EQ(parsed.bytes(), built.bytes());
    ExpectMatchesModel(parsed, model, n);
    // The header as documented.
    const std::string& b = parsed.bytes();
    EXPECT_EQ(b.substr(0, 8), "OGIDXSG1");
    EXPECT_EQ(U32At(b, 8), 4u);
    EXPECT_EQ(U64At(b, 16), model.size());
    EXPECT_EQ(U64At(b, 40), n);
  }
}

TEST(GroupedSegmentTest, EveryWayOfAddingGivesTheSameBytes) {
  std::mt19937_64 rng(5);
  std::vector<Entries> cases;
  for (size_t n : {size_t{0}, size_t{1}, size_t{17}, size_t{100}, size_t{6000}}) cases.push_back(RandomEntries(n, rng));
  // Runs of equal keys that start, end and cross AddMany's 16-entry blocks, a key coming back
  // after others, and a run spanning several whole blocks.
  Entries runs;
  const std::vector<std::pair<std::string, size_t>> shape{{"r0", 15},     {"r1", 2}, {"r0", 16}, {"", 1},   {"r2", 40},
                                                          {kLongKey, 17}, {"r1", 1}, {"r3", 16}, {"r0", 33}};
  for (const auto& [key, count] : shape) {
    for (size_t i = 0; i < count; ++i) runs.emplace_back(key, rng() % 1000);
  }
  cases.push_back(runs);
  for (const Entries& entries : cases) {
    SCOPED_TRACE("entries " + std::to_string(entries.size()));
    const std::string want = BuildWithAddMany(entries).bytes();
    OG_ASSERT_OK_AND_ASSIGN(IdSegment parsed, IdSegment::Parse(want, "s"));
    ExpectMatchesModel(parsed, ModelOf(entries), entries.size());
    EXPECT_EQ(BuildWithAdd(entries).bytes(), want);
    EXPECT_EQ(BuildWithHashes(entries).bytes(), want);
    for (size_t piece : {size_t{1}, size_t{7}, size_t{16}, size_t{31}}) {
      EXPECT_EQ(BuildWithAddMany(entries, piece).bytes(), want) << "AddMany in pieces of " << piece;
    }
    // The layout is canonical: the entries' order does not matter.
    Entries shuffled = entries;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    EXPECT_EQ(BuildWithAddMany(shuffled).bytes(), want);
    // A mix: the first half one by one, the rest with AddMany.
    const auto views = Views(entries);
    GroupedSegmentBuilder mixed;
    const size_t half = entries.size() / 2;
    for (size_t i = 0; i < half; ++i) mixed.Add(entries[i].first, entries[i].second);
    mixed.AddMany(std::span(views).subspan(half));
    EXPECT_EQ(std::move(mixed).Finish().bytes(), want);
  }
}

// AddColumn (the write path's feed) equals AddMany of the column's non-null rows at consecutive
// addresses: nulls (also inside runs of one key and at block edges) add nothing, slices start
// anywhere, and a run may continue from the previous call.
TEST(GroupedSegmentTest, AddColumnSkipsNullsAndMatchesAddMany) {
  std::mt19937_64 rng(9);
  std::vector<Value> values;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t r = rng() % 10;
    if (r < 2) {
      values.push_back(Value::Null(DataType::Scalar(TypeKind::kString)));
    } else if (r < 6 && !values.empty() && !values.back().is_null()) {
      values.push_back(values.back());
    } else {
      values.push_back(Value::String(r == 6 ? std::string() : r == 7 ? kLongKey : "v" + std::to_string(rng() % 60)));
    }
  }
  OG_ASSERT_OK_AND_ASSIGN(format::Column column,
                          format::Column::FromValues(DataType::Scalar(TypeKind::kString), values));
  ASSERT_TRUE(column.has_nulls());
  // Parts [0, 17), [17, 300), [300, 1000) at three fragments; one entry added first by hand, with
  // the key of the first non-null row (a run crossing calls).
  const std::vector<std::pair<size_t, size_t>> parts{{0, 17}, {17, 300}, {300, 1000}};
  size_t first = 0;
  while (values[first].is_null()) ++first;
  Entries entries{{values[first].string_value(), MakeRowAddress(9, 0)}};
  GroupedSegmentBuilder builder;
  builder.Add(entries[0].first, entries[0].second);
  for (size_t p = 0; p < parts.size(); ++p) {
    const auto [lo, hi] = parts[p];
    const uint64_t base = MakeRowAddress(static_cast<uint32_t>(p + 1), 5);
    builder.AddColumn(column.Slice(lo, hi - lo), base);
    for (size_t i = lo; i < hi; ++i) {
      if (!values[i].is_null()) entries.emplace_back(values[i].string_value(), base + (i - lo));
    }
  }
  EXPECT_EQ(builder.size(), entries.size());
  const std::string got = std::move(builder).Finish().bytes();
  EXPECT_EQ(got, BuildWithAddMany(entries).bytes());
  OG_ASSERT_OK_AND_ASSIGN(IdSegment parsed, IdSegment::Parse(got, "column.seg"));
  ExpectMatchesModel(parsed, ModelOf(entries), entries.size());
  // An all-null column adds nothing.
  GroupedSegmentBuilder nulls;
  nulls.AddColumn(format::Column::Nulls(DataType::Scalar(TypeKind::kString), 40), 0);
  EXPECT_EQ(nulls.size(), 0u);
  EXPECT_EQ(std::move(nulls).Finish().bytes(), BuildWithAdd({}).bytes());
}

TEST(GroupedSegmentTest, CollidingHashesKeepDistinctGroupsOrderedByKey) {
  // "c", "a", "b" share hash H (added out of order, interleaved); "z" has H + 1 and "y" H - 1 (the
  // same bucket); the rest hash normally.
  const uint64_t kH = (uint64_t{1} << 62) + 12345;
  const std::map<std::string, uint64_t> hash_of{{"a", kH}, {"b", kH}, {"c", kH}, {"z", kH + 1}, {"y", kH - 1}};
  auto hash = [&](const std::string& k) {
    auto it = hash_of.find(k);
    return it == hash_of.end() ? IdSegment::KeyHash(k) : it->second;
  };
  const Entries entries{{"c", 30}, {"a", 12}, {"b", 20}, {"a", 10}, {"z", 1}, {"c", 31}, {"n1", 5},
                        {"y", 2},  {"b", 21}, {"a", 11}, {"n2", 6}, {"c", 3}, {"n1", 4}};
  GroupedSegmentBuilder builder;
  for (const auto& [k, a] : entries) builder.Add(hash(k), k, a);
  OG_ASSERT_OK_AND_ASSIGN(IdSegment s, IdSegment::Parse(std::move(builder).Finish().bytes(), "collide.seg"));
  EXPECT_EQ(s.size(), entries.size());
  ASSERT_EQ(s.group_count(), 7u);
  std::vector<std::string> order;
  for (size_t g = 0; g < s.group_count(); ++g) {
    EXPECT_EQ(s.group_hash(g), hash(std::string(s.group_key(g))));
    if (s.group_hash(g) + 1 - kH <= 2) order.emplace_back(s.group_key(g));  // kH - 1 .. kH + 1
  }
  EXPECT_EQ(order, (std::vector<std::string>{"y", "a", "b", "c", "z"}));
  const Model model = ModelOf(entries);
  for (const auto& [key, want] : model) {
    const auto [lo, hi] = s.EqualRange(key, hash(key));
    std::vector<uint64_t> got;
    for (size_t e = lo; e < hi; ++e) got.push_back(s.address(e));
    EXPECT_EQ(got, want) << key;
    EXPECT_TRUE(s.HasHash(hash(key))) << key;
  }
  // The shared hash with another key, and a colliding key under another hash, find nothing.
  for (const auto& [key, h] :
       std::vector<std::pair<std::string, uint64_t>>{{"d", kH}, {"", kH}, {"a", kH + 1}, {"c", kH - 1}}) {
    const auto [lo, hi] = s.EqualRange(key, h);
    EXPECT_EQ(lo, hi) << key;
  }
  EXPECT_FALSE(s.HasHash(kH + 2));
}

// A small grouped segment with chosen hashes (the reader trusts stored hashes), laid out as:
//   group 0: hash 1, "a", {5}          group 3: hash 3, "d", {1}
//   group 1: hash 2, "b", {7, 9, 11}   group 4: hash 0xF0..0, kLongKey, {3, 8}
//   group 2: hash 3, "c", {2, 4}
// 5 groups, 9 entries, bucket bits 2, buckets {0, 4, 4, 4, 5}.
std::string SmallSegment() {
  GroupedSegmentBuilder b;
  const uint64_t kTop = uint64_t{0xF} << 60;
  const std::vector<std::tuple<uint64_t, std::string, uint64_t>> entries{
      {2, "b", 9}, {kTop, kLongKey, 8}, {1, "a", 5}, {3, "d", 1},        {2, "b", 11},
      {3, "c", 4}, {2, "b", 7},         {3, "c", 2}, {kTop, kLongKey, 3}};
  for (const auto& [h, k, a] : entries) b.Add(h, k, a);
  return std::move(b).Finish().bytes();
}

// Section offsets of a version-4 segment, from its header (as documented).
struct GroupedLayout {
  explicit GroupedLayout(const std::string& s)
      : g(U64At(s, 16)), bits(U32At(s, 24)), key_bytes(U64At(s, 32)), n(U64At(s, 40)) {}
  uint64_t g, bits, key_bytes, n;
  uint64_t hashes() const { return 48; }
  uint64_t key_ends() const { return hashes() + 8 * g; }
  uint64_t addr_ends() const { return key_ends() + 8 * g; }
  uint64_t addresses() const { return addr_ends() + 8 * g; }
  uint64_t buckets() const { return addresses() + 8 * n; }
  uint64_t keys() const { return buckets() + 4 * ((uint64_t{1} << bits) + 1); }
  uint64_t body() const { return keys() + key_bytes; }
};

// Recomputes the chunk sums of the first `body` bytes (stored right after them) and the trailer,
// as a writer would: only the structural checks can then reject the bytes.
std::string Reseal(std::string s, uint64_t body) {
  for (uint64_t c = 0; c * 256 < body; ++c) {
    const auto sum =
        static_cast<uint32_t>(XxHash64(std::string_view(s).substr(c * 256, std::min<uint64_t>(256, body - c * 256))));
    std::memcpy(s.data() + body + 4 * c, &sum, 4);
  }
  const uint64_t trailer = XxHash64(std::string_view(s).substr(0, s.size() - 8));
  std::memcpy(s.data() + s.size() - 8, &trailer, 8);
  return s;
}

TEST(GroupedSegmentTest, EveryFlippedByteAndTruncationIsCorrupt) {
  const std::string good = SmallSegment();
  ASSERT_TRUE(IdSegment::Parse(good, "seg").ok());
  const std::string real = BuildWithAdd({{"b", 7}, {"a", 0}, {"", 1}, {"b", 3}, {kLongKey, 9}}).bytes();
  for (const std::string& bytes : {good, real}) {
    ASSERT_GT(bytes.size(), 256u);  // two chunks
    for (size_t i = 0; i < bytes.size(); ++i) {
      std::string bad = bytes;
      bad[i] = static_cast<char>(bad[i] ^ 0x01);
      auto r = IdSegment::Parse(bad, "seg");
      ASSERT_FALSE(r.ok()) << "byte " << i;
      EXPECT_EQ(r.status().category(), StatusCode::kCorrupt) << "byte " << i;
    }
    for (size_t n : {size_t{0}, size_t{47}, bytes.size() - 1}) {
      auto r = IdSegment::Parse(bytes.substr(0, n), "seg");
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_EQ(r.status().category(), StatusCode::kCorrupt) << n;
    }
  }
}

// Fields changed and both checksum levels recomputed (a buggy or hostile writer): each is rejected
// by the structural check named, never by a checksum, and never read out of bounds.
TEST(GroupedSegmentTest, StructureIsCheckedBehindValidChecksums) {
  const std::string good = SmallSegment();
  const GroupedLayout l(good);
  ASSERT_EQ(l.g, 5u);
  ASSERT_EQ(l.n, 9u);
  ASSERT_EQ(l.bits, 2u);
  ASSERT_EQ(good.size(), l.body() + 4 * ((l.body() + 255) / 256) + 8);
  ASSERT_EQ(Reseal(good, l.body()), good);  // the reseal is the writer's
  for (uint32_t b = 0; b <= 4; ++b)
    EXPECT_EQ(U32At(good, l.buckets() + 4 * b), (std::vector<uint32_t>{0, 4, 4, 4, 5}[b]));
  ASSERT_EQ(U64At(good, l.addr_ends() + 8), 4u);  // group 1: entries [1, 4)
  ASSERT_EQ(U64At(good, l.addresses() + 8), 7u);
  const uint64_t d_key = l.keys() + U64At(good, l.key_ends() + 16);  // group 3's key
  ASSERT_EQ(good.substr(d_key - 1, 2), "cd");

  auto patch64 = [&](uint64_t off, uint64_t v) {
    std::string s = good;
    std::memcpy(s.data() + off, &v, 8);
    return Reseal(s, l.body());
  };
  auto patch32 = [&](uint64_t off, uint32_t v) {
    std::string s = good;
    std::memcpy(s.data() + off, &v, 4);
    return Reseal(s, l.body());
  };
  auto swap64 = [&](uint64_t a, uint64_t b) {
    std::string s = good;
    std::swap_ranges(s.data() + a, s.data() + a + 8, s.data() + b);
    return Reseal(s, l.body());
  };
  std::string same_key = good, keys_unordered = good;
  same_key[d_key] = 'c';            // groups 2 and 3: hash 3, key "c"
  keys_unordered[d_key - 1] = 'e';  // groups 2 and 3: hash 3, keys "e", "d"
  const uint64_t last_key_end = l.key_ends() + 32, last_addr_end = l.addr_ends() + 32;
  const std::vector<std::tuple<std::string, std::string, std::string>> cases{
      {"group count + 1", patch64(16, l.g + 1), "inconsistent lengths"},
      {"group count - 1", patch64(16, l.g - 1), "inconsistent lengths"},
      {"group count > entries", patch64(16, l.n + 1), "inconsistent lengths"},
      {"entry count + 1", patch64(40, l.n + 1), "inconsistent lengths"},
      {"entry count - 1", patch64(40, l.n - 1), "inconsistent lengths"},
      {"huge entry count", patch64(40, uint64_t{1} << 40), "inconsistent lengths"},
      {"bucket bits", patch32(24, 3), "inconsistent lengths"},
      {"reserved field", patch32(28, 1), "inconsistent lengths"},
      {"flags", patch32(12, 1), "unknown flags"},
      {"version 3", patch32(8, 3), "inconsistent lengths"},
      {"key bytes + 1", patch64(32, l.key_bytes + 1), "inconsistent lengths"},
      {"key bytes - 1", patch64(32, l.key_bytes - 1), "inconsistent lengths"},
      {"hashes out of order", patch64(l.hashes() + 8, 0), "not sorted"},
      {"hashes swapped", swap64(l.hashes() + 16, l.hashes() + 8), "not sorted"},
      {"equal hashes, keys out of order", Reseal(keys_unordered, l.body()), "not sorted"},
      {"two groups of one hash and key", Reseal(same_key, l.body()), "not sorted"},
      {"hash in the wrong bucket", patch64(l.hashes() + 32, 4), "wrong bucket"},
      {"key end decreasing", patch64(l.key_ends(), 3), "bad key offsets"},
      {"key end past the keys", patch64(last_key_end, l.key_bytes + 1), "bad key offsets"},
      {"last key end short", patch64(last_key_end, l.key_bytes - 1), "bad offsets"},
      {"address end decreasing", patch64(l.addr_ends() + 8, 0), "bad address offsets"},
      {"a group with no addresses", patch64(l.addr_ends() + 8, 1), "bad address offsets"},
      {"first group with no addresses", patch64(l.addr_ends(), 0), "bad address offsets"},
      {"address end past the entries", patch64(last_addr_end, l.n + 1), "bad address offsets"},
      {"last address end short", patch64(last_addr_end, l.n - 1), "bad offsets"},
      {"addresses unsorted in a group", swap64(l.addresses() + 8, l.addresses() + 16), "unsorted addresses"},
      {"first bucket not at 0", patch32(l.buckets(), 1), "bad buckets"},
      {"last bucket end short", patch32(l.buckets() + 16, 4), "bad buckets"},
      {"bucket past the groups", patch32(l.buckets() + 4, 6), "bad buckets"},
      {"buckets decreasing", patch32(l.buckets() + 8, 3), "bad buckets"},
      {"bucket boundary inside a bucket's groups", patch32(l.buckets() + 4, 3), "wrong bucket"},
      {"bucket boundary past its groups", patch32(l.buckets() + 12, 5), "wrong bucket"},
  };
  for (const auto& [name, bytes, why] : cases) {
    auto r = IdSegment::Parse(bytes, "seg");
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.status().category(), StatusCode::kCorrupt) << name;
    EXPECT_EQ(r.status().message().find("checksum"), std::string::npos) << name << ": " << r.status().message();
    EXPECT_NE(r.status().message().find(why), std::string::npos) << name << ": " << r.status().message();
  }
}

}  // namespace
}  // namespace omnigraph::table
