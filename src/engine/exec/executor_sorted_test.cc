// Sorted indexes (`@index` on integer and date properties; table/sorted_index.h) under node seeds
// and edge tests: once a property's selective scans have paid for its runs, equality and range
// tests are answered from the runs; through updates, deletes, inserts and edge deletes every
// answer equals the reference evaluator's, and the large fragment's run is never built again.
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "engine/derived/read_cache.h"
#include "engine/exec/executor_test_util.h"
#include "engine/load/loader.h"
#include "engine/mutate/mutation.h"
#include "io/memory_store.h"
#include "table/sorted_index.h"

namespace omnigraph::engine {
namespace {

TEST(ExecutorSortedIndexTest, SelectiveTestsReadTheRunsAndAnswerAsTheReferenceThroughWrites) {
  auto g = Graph::Init(
      std::make_shared<io::MemoryStore>(),
      "node P { n: String @key, t: I64? @index, r: I32 @index, d: Date @index, u: I32, m: DateTime @index }\n"
      "edge K: P -> P { w: I64 @index, at: Date @index, s: I64? @index }\n");
  ASSERT_TRUE(g.ok());
  constexpr int kNodes = 70000;  // one fragment past table::kSmallRunRows: its run waits for credit
  static_assert(kNodes > static_cast<int>(table::kSmallRunRows));
  std::string data;
  TestLcg lcg{7};
  auto next = [&lcg](uint64_t n) { return lcg.Next(n); };
  for (int i = 0; i < kNodes; ++i) {
    data += R"({"type":"P","data":{"n":"p)" + std::to_string(i) + "\"";
    if (i % 1000 != 7) data += R"(,"t":)" + std::to_string(next(kNodes));
    data += R"(,"r":)" + std::to_string(next(5000) - 2500) + R"(,"d":")" + TestDate(next(3000)) + R"(","u":)" +
            std::to_string(next(5000)) + R"(,"m":")" + TestDate(next(3000)) + "T0" + std::to_string(next(10)) +
            ":00:00Z\"}}\n";
  }
  for (int i = 0; i < kNodes; ++i) {
    data += R"({"edge":"K","from":"p)" + std::to_string(i) + R"(","to":"p)" + std::to_string(next(kNodes)) +
            R"(","data":{"w":)" + std::to_string(next(kNodes / 3)) + R"(,"at":")" + TestDate(next(3000)) + "\"";
    if (i % 4 != 0) data += R"(,"s":)" + std::to_string(next(100000));
    data += "}}\n";
  }
  ASSERT_TRUE(LoadNdjson(**g, data, LoadOptions{}).ok());
  // Selective tests (a few rows to 1/40 of them) of each operator, from either side, alone and
  // with a test of an unindexed property, on nodes and on edges.
  auto queries = [](int k) {
    const std::string v = std::to_string(k);
    return std::vector<std::string>{
        "query q() { match { $a: P $a.t = " + v + " } return { $a.n } order { $a.n asc } }",
        "query q() { match { $a: P $a.t < 1500 } return { count($a) as n } }",
        "query q() { match { $a: P " + v + " <= $a.t $a.t < " + std::to_string(k + 900) +
            " } return { count($a) as n } }",
        "query q() { match { $a: P $a.r > 2440 $a.u < 100 } return { $a.n } order { $a.n asc } }",
        "query q() { match { $a: P $a.r >= -2500 $a.r <= -2450 } return { count($a) as n } }",
        "query q() { match { $a: P $a.d = date(\"2024-02-03\") } return { $a.n, $a.r } order { $a.n asc } }",
        "query q() { match { $a: P $a.m >= datetime(\"2024-02-03T05:00:00Z\") $a.m < "
        "datetime(\"2024-02-05T00:00:00Z\") } "
        "return { count($a) as n } }",
        "query q() { match { $a: P $a.t > 9223372036854775807 } return { count($a) as n } }",
        "query q() { match { $a: P $a $e:k $b $e.w = " + std::to_string(k % 23000) +
            " } return { $a.n, $b.n } order { $a.n asc, $b.n asc } }",
        "query q() { match { $a: P $a $e:k $b $e.at > date(\"2028-11-20\") } return { count($e) as n } }",
        "query q() { match { $a: P $a $e:k $b $e.s < 900 $b.u > 2000 } return { count($e) as n } }",
        "query q() { match { $a: P $a $e:k $b 99500 < $e.s } return { $a.n, $e.s } order { $a.n asc, $e.s asc } }",
    };
  };
  GraphReadCache cache;
  auto snap = (*g)->Head();
  ASSERT_TRUE(snap.ok());
  // The first rounds scan (a range's two bounds are two passes) and credit the runs; from round
  // kScansBeforeRun on, every test reads them.
  for (uint64_t round = 0; round <= table::kScansBeforeRun; ++round) {
    const uint64_t before = cache.counts().sorted_answers;
    for (const std::string& q : queries(4321)) ExpectSameAsReference(*snap, q, &cache);
    if (round == 0) {  // only the empty range (above 2^63 - 1), which needs no run
      EXPECT_EQ(cache.counts().sorted_answers, 1u);
      EXPECT_EQ(cache.counts().sorted_runs_built, 0u);
    }
    if (round == table::kScansBeforeRun) {
      EXPECT_EQ(cache.counts().sorted_answers - before, 12u);
    }
  }
  const GraphReadCache::Counts built = cache.counts();
  EXPECT_EQ(built.sorted_runs_built, 7u);  // t, r, d, m, w, at, s: one large fragment each
  std::mt19937 rng(3);
  for (int step = 0; step < 12; ++step) {
    const int pick = static_cast<int>(rng() % kNodes);
    std::string write;
    switch (step % 4) {
      case 0:
        write = "update P set { t: " + std::to_string(rng() % kNodes) + ", r: 2490 } where n = \"p" +
                std::to_string(pick) + "\"";
        break;
      case 1: write = "delete P where n = \"p" + std::to_string(pick) + "\""; break;
      case 2:
        write = "insert P { n: \"q" + std::to_string(step) +
                "\", t: 4400, r: -2480, d: date(\"2024-02-03\"), u: 1, "
                "m: datetime(\"2024-02-04T00:00:00Z\") }";
        break;
      default: write = "delete K where w = " + std::to_string(rng() % (kNodes / 3)); break;
    }
    SCOPED_TRACE(write);
    auto r = RunMutation(**g, "query m() { " + write + " }", "");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    snap = (*g)->Head();
    ASSERT_TRUE(snap.ok());
    for (const std::string& q : queries(4000 + static_cast<int>(rng() % 1000))) ExpectSameAsReference(*snap, q, &cache);
  }
  // Every query after a write read the large runs again: only the writes' small fragments got runs.
  const GraphReadCache::Counts after = cache.counts();
  EXPECT_EQ(after.sorted_answers, built.sorted_answers + 12 * 12);
  EXPECT_LE(after.sorted_runs_built, built.sorted_runs_built + 12 * 7);
}

}  // namespace
}  // namespace omnigraph::engine
