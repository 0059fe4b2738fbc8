#include "format/deletion_vector.h"

#include <gtest/gtest.h>

#include "common/error_codes.h"
#include "io/memory_store.h"

namespace omnigraph::format {
namespace {

TEST(DeletionVectorTest, SetOperations) {
  DeletionVector dv;
  EXPECT_TRUE(dv.empty());
  dv.Add(5);
  dv.AddRange(100, 200);
  dv.Add(UINT32_MAX);
  EXPECT_EQ(dv.cardinality(), 102u);
  EXPECT_TRUE(dv.Contains(150));
  EXPECT_FALSE(dv.Contains(200));
  EXPECT_TRUE(dv.Contains(UINT32_MAX));
  EXPECT_EQ(dv.CountInRange(0, 150), 51u);
  dv.Remove(5);
  EXPECT_EQ(dv.ToVector().front(), 100u);
  DeletionVector other = DeletionVector::FromRows(std::vector<uint32_t>{1, 150, 300});
  EXPECT_EQ(dv.Union(other).cardinality(), 103u);
  EXPECT_EQ(dv.Intersect(other).ToVector(), std::vector<uint32_t>{150});
  EXPECT_EQ(other.Difference(dv).ToVector(), (std::vector<uint32_t>{1, 300}));
  DeletionVector copy = dv;
  EXPECT_TRUE(copy == dv);
  copy.Add(7);
  EXPECT_FALSE(copy == dv);
  DeletionVector moved = std::move(copy);
  EXPECT_TRUE(moved.Contains(7));
  EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty, usable
}

TEST(DeletionVectorTest, StoreRoundTrip) {
  io::MemoryStore store;
  for (DeletionVector dv : {DeletionVector(), DeletionVector::FromRows(std::vector<uint32_t>{0}),
                            DeletionVector::FromRows(std::vector<uint32_t>{3, 9, 70000, 4000000000u})}) {
    static int n = 0;
    std::string key = "t/del/" + std::to_string(n++) + ".del";
    if (n == 3) dv.AddRange(10, 500000);
    ASSERT_TRUE(dv.Write(store, key).ok());
    EXPECT_EQ(dv.Write(store, key).category(), StatusCode::kAlreadyExists);
    auto back = DeletionVector::Read(store, key);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(*back == dv);
  }
  EXPECT_EQ(DeletionVector::Read(store, "nope.del").status().category(), StatusCode::kNotFound);
}

TEST(DeletionVectorTest, EveryFlippedByteIsCorrupt) {
  DeletionVector dv = DeletionVector::FromRows(std::vector<uint32_t>{1, 2, 3, 1000, 65536, 1u << 30});
  dv.AddRange(5000, 9000);
  std::string bytes = dv.Serialize();
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x04);
    auto r = DeletionVector::Deserialize(bad, "x.del");
    ASSERT_FALSE(r.ok()) << "flip at " << i;
    EXPECT_EQ(r.status().category(), StatusCode::kCorrupt) << r.status().ToString();
    EXPECT_NE(r.status().message().find("x.del"), std::string::npos);
  }
  for (size_t len = 0; len < bytes.size(); len += 3) {
    EXPECT_EQ(DeletionVector::Deserialize(bytes.substr(0, len), "x.del").status().category(), StatusCode::kCorrupt);
  }
}

}  // namespace
}  // namespace omnigraph::format
