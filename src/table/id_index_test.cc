// Tests of the id-index segment format: round trip, lookups of equal keys, version-1 segments
// (still read), a newer version (format_too_new), detection of every flipped byte, structural
// checks behind a valid checksum, and hashed lookups against a model.
#include "table/id_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>

#include "common/error_codes.h"
#include "common/hash.h"
#include "table/table_test_util.h"

namespace omnigraph::table {
namespace {

using testing::EncodeV1;

const std::string kLongKey = "\xf0\x9f\x98\x80 long key " + std::string(300, 'z');

std::vector<std::pair<std::string, uint64_t>> SampleEntries() {
  return {{"b", MakeRowAddress(1, 7)},
          {"a", MakeRowAddress(0, 0)},
          {"", MakeRowAddress(2, 1)},
          {"b", MakeRowAddress(0, 3)},
          {kLongKey, MakeRowAddress(UINT32_MAX - 1, UINT32_MAX)}};
}
IdSegment Sample() { return IdSegment::Build(SampleEntries()); }

void ExpectSameAsSample(const IdSegment& p) {
  ASSERT_EQ(p.size(), 5u);
  auto [lo, hi] = p.EqualRange("b");
  ASSERT_EQ(hi - lo, 2u);
  EXPECT_EQ(p.group_key(lo), "b");
  EXPECT_EQ(p.address(lo), MakeRowAddress(0, 3));
  EXPECT_EQ(p.address(lo + 1), MakeRowAddress(1, 7));
  auto [elo, ehi] = p.EqualRange("");
  ASSERT_EQ(ehi - elo, 1u);
  EXPECT_EQ(p.address(elo), MakeRowAddress(2, 1));
  auto [llo, lhi] = p.EqualRange(kLongKey);
  ASSERT_EQ(lhi - llo, 1u);
  EXPECT_EQ(p.address(llo), MakeRowAddress(UINT32_MAX - 1, UINT32_MAX));
  auto [mlo, mhi] = p.EqualRange("c");
  EXPECT_EQ(mlo, mhi);
  for (size_t i = 1; i < p.size(); ++i) EXPECT_LE(p.group_hash(i - 1), p.group_hash(i));
  for (size_t i = 0; i < p.size(); ++i) EXPECT_EQ(p.group_hash(i), XxHash64(p.group_key(i)));
}

TEST(IdSegmentTest, RoundTripAndEqualRange) {
  IdSegment s = Sample();
  ExpectSameAsSample(s);
  OG_ASSERT_OK_AND_ASSIGN(IdSegment p, IdSegment::Parse(s.Serialize(), "seg"));
  EXPECT_EQ(p.bytes(), s.bytes());
  ExpectSameAsSample(p);
  for (size_t i = 0; i < p.size(); ++i) {
    EXPECT_EQ(p.group_key(i), s.group_key(i));
    EXPECT_EQ(p.address(i), s.address(i));
  }
  OG_ASSERT_OK_AND_ASSIGN(IdSegment empty, IdSegment::Parse(IdSegment::Build({}).Serialize(), "seg"));
  EXPECT_EQ(empty.size(), 0u);
  auto [lo, hi] = empty.EqualRange("x");
  EXPECT_EQ(lo, hi);
  OG_ASSERT_OK_AND_ASSIGN(IdSegment one, IdSegment::Parse(IdSegment::Build({{"x", 5}}).Serialize(), "seg"));
  EXPECT_EQ(one.EqualRange("x"), (std::pair<size_t, size_t>{0, 1}));
}

TEST(IdSegmentTest, ReadsVersion1Segments) {
  OG_ASSERT_OK_AND_ASSIGN(IdSegment p, IdSegment::Parse(EncodeV1(SampleEntries()), "old.seg"));
  ExpectSameAsSample(p);
  EXPECT_EQ(p.bytes(), Sample().bytes());  // converted to the version written today
  OG_ASSERT_OK_AND_ASSIGN(IdSegment empty, IdSegment::Parse(EncodeV1({}), "old.seg"));
  EXPECT_EQ(empty.size(), 0u);
}

TEST(IdSegmentTest, NewerVersionIsFormatTooNew) {
  std::string v5 = EncodeV1(SampleEntries(), /*version=*/5);
  auto r = IdSegment::Parse(v5, "new.seg");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kFormatTooNew);
  EXPECT_NE(r.status().message().find("format version 5"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("new.seg"), std::string::npos);
  // Version 0 was never written.
  EXPECT_EQ(IdSegment::Parse(EncodeV1(SampleEntries(), 0), "x").status().category(), StatusCode::kCorrupt);
}

TEST(IdSegmentTest, EveryFlippedByteIsCorrupt) {
  for (const std::string& bytes : {Sample().Serialize(), EncodeV1(SampleEntries())}) {
    for (size_t i = 0; i < bytes.size(); ++i) {
      std::string bad = bytes;
      bad[i] = static_cast<char>(bad[i] ^ 0x01);
      auto r = IdSegment::Parse(bad, "seg");
      ASSERT_FALSE(r.ok()) << "byte " << i;
      EXPECT_EQ(r.status().category(), StatusCode::kCorrupt);
    }
    for (size_t n : {size_t{0}, size_t{39}, bytes.size() - 1}) {
      EXPECT_EQ(IdSegment::Parse(bytes.substr(0, n), "seg").status().category(), StatusCode::kCorrupt);
    }
  }
}

// Bytes changed and both checksum levels recomputed (a buggy or hostile writer): the structural
// checks still reject every inconsistency instead of reading out of bounds or answering wrongly.
// The chunk sums are resealed too, so it is the structural check (not a checksum) that rejects.
TEST(IdSegmentTest, StructureIsCheckedBehindAValidChecksum) {
  const std::string good = Sample().Serialize();
  const size_t n = 5, hashes = 40, addresses = hashes + 8 * n, ends = addresses + 8 * n;
  const size_t buckets = ends + 8 * n;  // bucket bits 2: 5 bucket entries
  uint64_t key_bytes;
  std::memcpy(&key_bytes, good.data() + 32, 8);
  const size_t body = buckets + 4 * 5 + key_bytes;  // L = 40 + 24n + 4(2^B + 1) + K
  ASSERT_EQ(good.size(), body + 4 * ((body + 255) / 256) + 8);
  auto reseal = [&](std::string s) {
    for (size_t c = 0; c * 256 < body; ++c) {
      const std::string_view chunk = std::string_view(s).substr(c * 256, std::min<size_t>(256, body - c * 256));
      const auto sum = static_cast<uint32_t>(XxHash64(chunk));
      std::memcpy(s.data() + body + 4 * c, &sum, 4);
    }
    uint64_t sum = XxHash64(std::string_view(s).substr(0, s.size() - 8));
    std::memcpy(s.data() + s.size() - 8, &sum, 8);
    return s;
  };
  ASSERT_EQ(reseal(good), good);
  auto patch64 = [&](size_t off, uint64_t v) {
    std::string s = good;
    std::memcpy(s.data() + off, &v, 8);
    return reseal(s);
  };
  auto patch32 = [&](size_t off, uint32_t v) {
    std::string s = good;
    std::memcpy(s.data() + off, &v, 4);
    return reseal(s);
  };
  uint64_t h0, h1, e3;
  std::memcpy(&h0, good.data() + hashes, 8);
  std::memcpy(&h1, good.data() + hashes + 8, 8);
  std::memcpy(&e3, good.data() + ends + 24, 8);
  // The two entries of "b" (equal hashes, adjacent): their addresses swapped are out of order.
  size_t b0 = 0;
  while (b0 + 1 < n && std::memcmp(good.data() + hashes + 8 * b0, good.data() + hashes + 8 * (b0 + 1), 8) != 0) ++b0;
  ASSERT_LT(b0 + 1, n);
  std::string swapped = good;
  std::swap_ranges(swapped.data() + addresses + 8 * b0, swapped.data() + addresses + 8 * b0 + 8,
                   swapped.data() + addresses + 8 * (b0 + 1));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {patch64(16, 6), "inconsistent lengths"},                  // entry count
      {patch64(16, uint64_t{1} << 40), "inconsistent lengths"},  // huge entry count
      {patch32(24, 3), "inconsistent lengths"},                  // bucket bits
      {patch32(28, 1), "inconsistent lengths"},                  // reserved
      {patch64(32, 1), "inconsistent lengths"},                  // key bytes
      {patch64(hashes, h1 + 1), "not sorted"},                   // hashes out of order
      {patch64(hashes + 8, h0 ^ (uint64_t{1} << 63)), "wrong bucket"},
      {patch64(ends + 24, e3 + 10'000), "bad key offsets"},  // key end past the keys
      {patch64(ends, 1'000), "bad key offsets"},             // key ends decreasing
      {patch32(buckets, 1), "bad buckets"},                  // first bucket not at 0
      {patch32(buckets + 4, 9), "bad buckets"},              // bucket past the end
      {patch32(buckets + 16, 4), "bad buckets"},             // last bucket end != count
      {reseal(swapped), "not sorted"},                       // one key's addresses descending
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    auto r = IdSegment::Parse(bad[i].first, "seg");
    ASSERT_FALSE(r.ok()) << "case " << i;
    EXPECT_EQ(r.status().category(), StatusCode::kCorrupt) << "case " << i;
    const std::string& message = r.status().message();
    EXPECT_EQ(message.find("checksum"), std::string::npos) << "case " << i << ": " << message;  // structure, not a sum
    EXPECT_NE(message.find(bad[i].second), std::string::npos) << "case " << i << ": " << message;
  }
}

TEST(IdSegmentTest, HashedLookupsMatchAModel) {
  std::mt19937_64 rng(7);
  for (size_t n : {size_t{2}, size_t{3}, size_t{100}, size_t{5000}}) {
    std::vector<std::pair<std::string, uint64_t>> entries;
    std::multimap<std::string, uint64_t> model;
    for (size_t i = 0; i < n; ++i) {
      std::string k = "k" + std::to_string(rng() % (n / 2 + 1));  // many duplicates
      uint64_t a = MakeRowAddress(static_cast<uint32_t>(rng() % 4), static_cast<uint32_t>(i));
      entries.emplace_back(k, a);
      model.emplace(k, a);
    }
    OG_ASSERT_OK_AND_ASSIGN(IdSegment s, IdSegment::Parse(IdSegment::Build(entries).bytes(), "s"));
    ASSERT_EQ(s.size(), n);
    for (size_t q = 0; q < n / 2 + 10; ++q) {
      std::string k = "k" + std::to_string(q);
      auto [lo, hi] = s.EqualRange(k);
      std::vector<uint64_t> got, want;
      for (size_t i = lo; i < hi; ++i) {
        EXPECT_EQ(s.group_key(i), k);
        got.push_back(s.address(i));
      }
      for (auto [it, end] = model.equal_range(k); it != end; ++it) want.push_back(it->second);
      std::sort(want.begin(), want.end());
      EXPECT_EQ(got, want) << k;  // ascending addresses
      EXPECT_EQ(s.HasHash(IdSegment::KeyHash(k)), !want.empty()) << k;
    }
  }
}

// SortRefs must give exactly RefLess order on the radix path (> 4096 refs), including runs of
// one hash with different keys (forced collisions), repeated keys and unsorted addresses.
TEST(IdSegmentTest, SortRefsGivesRefLessOrderWithCollisions) {
  std::mt19937_64 rng(7);
  std::vector<std::string> keys;
  for (int i = 0; i < 3000; ++i) keys.push_back("k" + std::to_string(i));
  std::vector<IdSegment::Ref> refs;
  for (uint64_t a = 0; a < 20000; ++a) {
    const std::string& k = keys[rng() % keys.size()];
    // Keys k0..k99 share four hashes: collisions inside one bucket.
    const size_t n = std::stoul(k.substr(1));
    const uint64_t hash = n < 100 ? (uint64_t{n % 4} << 60) | 5 : IdSegment::KeyHash(k);
    refs.push_back({hash, k, rng()});
  }
  std::vector<IdSegment::Ref> expected = refs;
  std::sort(expected.begin(), expected.end(), IdSegment::RefLess);
  IdSegment::SortRefs(&refs);
  ASSERT_EQ(refs.size(), expected.size());
  for (size_t i = 0; i < refs.size(); ++i) {
    ASSERT_EQ(refs[i].hash, expected[i].hash) << i;
    ASSERT_EQ(refs[i].key, expected[i].key) << i;
    ASSERT_EQ(refs[i].address, expected[i].address) << i;
  }
}

}  // namespace
}  // namespace omnigraph::table
