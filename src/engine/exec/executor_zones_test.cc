// Zone maps (ZoneMap, page statistics of cached integer and date columns): a test whose constant
// lies outside a block's [min, max] clears or keeps the whole block without reading it. Over
// tables past kMaskRows rows, with values laid down in order (the case zones pay for), shuffled
// and with nulls, every answer equals the reference evaluator's.
#include <string>

#include <gtest/gtest.h>

#include "compiler/type_checker.h"
#include "engine/derived/read_cache.h"
#include "engine/exec/executor.h"
#include "engine/exec/executor_internal.h"
#include "engine/exec/executor_test_util.h"
#include "engine/load/loader.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

TEST(ExecutorZoneMapTest, TestsOverOrderedShuffledAndNullValuesAnswerAsTheReference) {
  auto g = Graph::Init(std::make_shared<io::MemoryStore>(),
                       "node P { n: String @key, t: I64?, r: I32, d: Date }\n"
                       "edge K: P -> P { w: I64, at: Date, s: I64? }\n");
  ASSERT_TRUE(g.ok());
  constexpr int kNodes = 70000;  // past kMaskRows: the node and edge tests run as masks
  std::string data;
  TestLcg lcg{99};
  auto next = [&lcg](uint64_t n) { return lcg.Next(n); };
  for (int i = 0; i < kNodes; ++i) {
    data += R"({"type":"P","data":{"n":"p)" + std::to_string(i) + "\"";
    if (i % 1000 != 7) data += R"(,"t":)" + std::to_string(i);  // ordered, a few nulls
    data += R"(,"r":)" + std::to_string(next(5000)) + R"(,"d":")" + TestDate(i / 30) + "\"}}\n";
  }
  for (int i = 0; i < kNodes; ++i) {
    data += R"({"edge":"K","from":"p)" + std::to_string(i) + R"(","to":"p)" + std::to_string(next(kNodes)) +
            R"(","data":{"w":)" + std::to_string(i / 3) + R"(,"at":")" + TestDate(i / 30) + "\"";
    if (i % 20000 < 5000) data += R"(,"s":)" + std::to_string(next(100));  // whole blocks of nulls
    data += "}}\n";
  }
  ASSERT_TRUE(LoadNdjson(**g, data, LoadOptions{}).ok());
  auto snap = (*g)->Head();
  ASSERT_TRUE(snap.ok());
  GraphReadCache cache;
  for (const char* op : {"=", "!=", "<", "<=", ">", ">="}) {
    const std::string o(op);
    for (const std::string& src : {
             // Node seeds (Candidates' masks): ordered with nulls, shuffled, a date.
             "query q() { match { $a: P $a.t " + o + " 40000 } return { count($a) as n } }",
             "query q() { match { $a: P $a.t " + o + " 4095 $a.r < 2500 } return { count($a) as n } }",
             "query q() { match { $a: P $a.r " + o + " 1234 } return { count($a) as n } }",
             "query q() { match { $a: P $a.d " + o + " date(\"2023-05-09\") } return { count($a) as n } }",
             "query q() { match { $a: P $a.t " + o + " -5 } return { count($a) as n } }",
             "query q() { match { $a: P $a.t " + o + " 9000000 } return { count($a) as n } }",
             // Edge tests (EdgeFilter's masks), ordered, a date, and blocks that are all null.
             "query q() { match { $a: P $a $e:k $b $e.w " + o + " 12000 } return { count($e) as n } }",
             "query q() { match { $a: P $a $e:k $b $e.at " + o + " date(\"2021-03-14\") } return { count($e) as n } }",
             "query q() { match { $a: P $a $e:k $b $e.s " + o + " 50 } return { count($e) as n } }",
             "query q() { match { $a: P $a $e:k $b 30000 " + o + " $e.w } return { count($e) as n } }",
         }) {
      ExpectSameAsReference(*snap, src, &cache);
    }
  }
}

// The zone of each block is its smallest and largest non-null value; an all-null block has
// min > max, so no test keeps it.
TEST(ExecutorZoneMapTest, ZonesAreEachBlocksSmallestAndLargestValue) {
  auto g = Graph::Init(std::make_shared<io::MemoryStore>(), "node P { n: String @key, t: I64? }\n");
  ASSERT_TRUE(g.ok());
  std::string data;
  const int n = 3 * static_cast<int>(exec::ZoneMap::kBlock) + 10;
  for (int i = 0; i < n; ++i) {
    data += R"({"type":"P","data":{"n":"p)" + std::to_string(i) + "\"";
    if (i / exec::ZoneMap::kBlock != 1) data += R"(,"t":)" + std::to_string(1000000 - i);
    data += "}}\n";
  }
  ASSERT_TRUE(LoadNdjson(**g, data, LoadOptions{}).ok());
  auto snap = (*g)->Head();
  ASSERT_TRUE(snap.ok());
  auto t = snap->Table("P");
  ASSERT_TRUE(t.ok());
  GraphReadCache cache;
  auto c = cache.ColumnFor(*t, "t");
  ASSERT_TRUE(c.ok() && *c != nullptr);
  std::optional<exec::ZoneMap> z = exec::ZoneMap::Of(**c);
  ASSERT_TRUE(z.has_value());
  ASSERT_EQ(z->min.size(), 4u);
  // Rows are in load order here (one fragment).
  EXPECT_EQ(z->max[0], 1000000);
  EXPECT_EQ(z->min[0], 1000000 - static_cast<int64_t>(exec::ZoneMap::kBlock) + 1);
  EXPECT_GT(z->min[1], z->max[1]);  // all null
  EXPECT_EQ(z->min[3], 1000000 - n + 1);
  EXPECT_EQ(z->max[3], 1000000 - 3 * static_cast<int64_t>(exec::ZoneMap::kBlock));
}

}  // namespace
}  // namespace omnigraph::engine
