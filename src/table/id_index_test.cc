// Tests of the id-index segment format: round trip, lookups of equal keys, and detection of every
// flipped byte.
#include "table/id_index.h"

#include <gtest/gtest.h>

#include "table/table_test_util.h"

namespace omnigraph::table {
namespace {

IdSegment Sample() {
  return IdSegment::Build({{"b", MakeRowAddress(1, 7)},
                           {"a", MakeRowAddress(0, 0)},
                           {"", MakeRowAddress(2, 1)},
                           {"b", MakeRowAddress(0, 3)},
                           {"\xf0\x9f\x98\x80 long key " + std::string(300, 'z'),
                            MakeRowAddress(UINT32_MAX - 1, UINT32_MAX)}});
}

TEST(IdSegmentTest, RoundTripAndEqualRange) {
  IdSegment s = Sample();
  OG_ASSERT_OK_AND_ASSIGN(IdSegment p, IdSegment::Parse(s.Serialize(), "seg"));
  ASSERT_EQ(p.size(), 5u);
  for (size_t i = 0; i < p.size(); ++i) {
    EXPECT_EQ(p.key(i), s.key(i));
    EXPECT_EQ(p.address(i), s.address(i));
  }
  auto [lo, hi] = p.EqualRange("b");
  ASSERT_EQ(hi - lo, 2u);
  EXPECT_EQ(p.address(lo), MakeRowAddress(0, 3));
  EXPECT_EQ(p.address(lo + 1), MakeRowAddress(1, 7));
  auto [elo, ehi] = p.EqualRange("");
  EXPECT_EQ(ehi - elo, 1u);
  auto [mlo, mhi] = p.EqualRange("c");
  EXPECT_EQ(mlo, mhi);
  EXPECT_EQ(p.address(4), MakeRowAddress(UINT32_MAX - 1, UINT32_MAX));
  OG_ASSERT_OK_AND_ASSIGN(IdSegment empty,
                          IdSegment::Parse(IdSegment::Build({}).Serialize(), "seg"));
  EXPECT_EQ(empty.size(), 0u);
}

TEST(IdSegmentTest, EveryFlippedByteIsCorrupt) {
  std::string bytes = Sample().Serialize();
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    auto r = IdSegment::Parse(bad, "seg");
    ASSERT_FALSE(r.ok()) << "byte " << i;
    EXPECT_EQ(r.status().category(), StatusCode::kCorrupt);
  }
  for (size_t n : {size_t{0}, size_t{39}, bytes.size() - 1}) {
    EXPECT_EQ(IdSegment::Parse(bytes.substr(0, n), "seg").status().category(),
              StatusCode::kCorrupt);
  }
}

}  // namespace
}  // namespace omnigraph::table
