// Edge scans (executor_edge_scan.cc): a traversal whose edge variable's column tests keep few
// edges binds its matches from those edges. Every query runs on the executor (with a fresh cache)
// and on the reference evaluator, whose rows (in order) must be equal; the plan is checked too
// (the edge endpoints are derived only by a scan), so that a case cannot pass by seeding an
// endpoint instead.
#include <gtest/gtest.h>

#include "compiler/type_checker.h"
#include "engine/exec/executor.h"
#include "engine/exec/reference_eval.h"
#include "engine/load/loader.h"
#include "engine/mutate/mutation.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr const char* kSchema = R"(
node Person { name: String @key, age: I32? }
node City { name: String @key, size: I64 }
edge Knows: Person -> Person { since: I64?, w: I64 }
edge LivesIn: Person -> City { moved: I64 }
)";

constexpr int kPeople = 2000, kCities = 40, kKnows = 20000;

// People p0..p1999 (age null for every 97th), cities c0..c39, Knows edges with random ends
// (parallel edges and self-loops among them) and `since` in [0, 1000) (null for every 50th), and
// one LivesIn edge per person.
std::string Data() {
  std::string d;
  uint64_t x = 12345;
  auto next = [&x](uint64_t n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (x >> 33) % n;
  };
  for (int i = 0; i < kPeople; ++i) {
    d += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + "\"";
    if (i % 97 != 0) d += R"(,"age":)" + std::to_string(next(90));
    d += "}}\n";
  }
  for (int i = 0; i < kCities; ++i) {
    d += R"({"type":"City","data":{"name":"c)" + std::to_string(i) + R"(","size":)" + std::to_string(i % 7) + "}}\n";
  }
  for (int i = 0; i < kKnows; ++i) {
    const uint64_t a = next(kPeople);
    const uint64_t b = i % 500 == 0 ? a : next(kPeople);         // some self-loops
    for (int copy = 0; copy < (i % 300 == 0 ? 2 : 1); ++copy) {  // some parallel edges
      d += R"({"edge":"Knows","from":"p)" + std::to_string(a) + R"(","to":"p)" + std::to_string(b) + "\"";
      d += R"(,"data":{"w":)" + std::to_string(next(1000));
      if (i % 50 != 0) d += R"(,"since":)" + std::to_string(next(1000));
      d += "}";
      d += "}\n";
    }
  }
  for (int i = 0; i < kPeople; ++i) {
    d += R"({"edge":"LivesIn","from":"p)" + std::to_string(i) + R"(","to":"c)" + std::to_string(next(kCities)) +
         R"(","data":{"moved":)" + std::to_string(next(2000)) + "}}\n";
  }
  return d;
}

class ExecutorEdgeScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto g = Graph::Init(std::make_shared<io::MemoryStore>(), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
    auto r = LoadNdjson(*graph_, Data(), LoadOptions{});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // Runs `src` with a fresh cache and expects the reference's rows; returns whether the run
  // scanned edges (derived an EdgeEnds), and the row count through *rows.
  bool Scans(const std::string& src, size_t* rows = nullptr) {
    auto snap = graph_->Head();
    EXPECT_TRUE(snap.ok());
    auto qs = compiler::CompileQueries(snap->catalog(), src);
    EXPECT_TRUE(qs.ok()) << src << "\n" << qs.status().ToString();
    if (!qs.ok()) return false;
    GraphReadCache cache;
    auto got = ExecuteQuery(*snap, qs->front(), {}, 0, &cache);
    auto want = EvaluateReference(*snap, qs->front(), {}, 0);
    EXPECT_TRUE(got.ok() && want.ok()) << src;
    if (!got.ok() || !want.ok()) return false;
    EXPECT_EQ(got->rows, want->rows) << src;
    if (rows != nullptr) *rows = got->rows.size();
    return cache.counts().edge_ends_built > 0;
  }

  void Mutate(const std::string& q) {
    auto r = RunMutation(*graph_, q, "");
    ASSERT_TRUE(r.ok()) << q << ": " << r.status().ToString();
  }

  // Every shape below, on the graph as it is now.
  void ExpectScansAgree() {
    const std::string knows = "query q() { match { $a: Person $a $e:knows $b ";
    struct Case {
      std::string src;
      bool scans;
    };
    const std::vector<Case> cases = {
        // Bindings of all three variables, from the edges one value keeps.
        {knows + "$e.since = 7 } return { $a.name, $b.name, $e.since } }", true},
        // Tests on the other endpoint, and on the seed (a membership bitmap), of several kinds.
        {knows + "$e.since >= 990 $b.age > 50 } return { $a.name, $b.name, $b.age } }", true},
        {knows + "$e.since < 12 $a.age > 5 $b.age < 80 } return { $a.name, $b.name, $e.since } }", true},
        // A test across the endpoints, and one across the edge and an endpoint (not pushed).
        {knows + "$e.since <= 20 $a.age < $b.age } return { $a.name, $b.name } }", true},
        {knows + "$e.since < 40 $e.since > $a.age } return { $a.name, $e.since } }", true},
        // A test of the edge alone that is not against a constant (not in the mask).
        {knows + "$e.since < 90 $e.w > $e.since } return { $a.name, $e.since, $e.w } }", true},
        // Two tests of the edge, a range.
        {knows + "$e.since > 500 $e.since < 512 } return { $a.name, $b.name, $e.since } }", true},
        // Counts and groups over the scanned rows.
        {knows + "$e.since < 30 $b.age > 40 } return { count($e) as n } }", true},
        {knows + "$e.since < 60 } return { $b.name, count($e) as n } order { n desc, $b.name } limit 5 }", true},
        // More plan after the scan: a traversal from the other endpoint, and a `not` block.
        {knows + "$e.since = 3 $b $f:knows $c } return { $a.name, $b.name, $c.name } }", true},
        {knows + "$e.since < 25 not { $b knows $a } } return { $a.name, $b.name } }", true},
        // Undirected: each edge both ways (a self-loop once).
        {"query q() { match { $b: Person $b $e:<knows> $a $e.since = 8 } return { $a.name, $b.name } }", true},
        {"query q() { match { $b: Person $b $e:<knows> $a $e.since < 30 $a.age > 20 } return { $a.name, $b.name } }",
         true},
        // Between two tables: the smaller one (cities) is the seed, the scan binds from the
        // destination side.
        {"query q() { match { $p: Person $p $l:livesIn $c $l.moved < 15 } return { $p.name, $c.name, $l.moved } }",
         true},
        {"query q() { match { $p: Person $c: City $p $l:livesIn $c $l.moved < 60 $c.size < 6 } "
         "return { $p.name, $c.name } }",
         true},
        // A limit without order: a test of the edge variable keeps the general plan (with a
        // top-k), so it scans too.
        {knows + "$e.since = 7 } return { $a.name, $b.name } limit 3 }", true},
        // Another variable bound first (a key): only the start of a run scans, so that all its
        // batches take one plan.
        {"query q() { match { $p: Person { name: \"p5\" } $a: Person $a $e:knows $b $e.since = 7 } "
         "return { $p.name, $a.name, $b.name } }",
         false},
        // A key lookup is the cheaper seed.
        {"query q() { match { $a: Person { name: \"p5\" } $a $e:knows $b $e.since < 500 } return { $b.name } }", false},
        // A test that keeps half the edges, from every node: the scan would read less, but an
        // aggregate counts the paths per end node instead (at most a row per node, with
        // multiplicities), and a row per kept edge would hold more rows than that.
        {knows + "$e.since >= 500 } return { count($e) as n, max($b.name) as m } }", false},
        // The same, keeping fewer edges than there are nodes: scanned.
        {knows + "$e.since = 10 } return { count($e) as n, max($b.name) as m } }", true},
        // Thousands of rows bound: the other endpoint's tests run over its columns
        // (Pipeline::ColumnChecks), over repeated ordinals out of order; with and without a scan.
        {knows + "$e.since >= 500 $a.age > 10 $b.age > 20 $a.name != \"p3\" } return { $a.name, $b.name } }", true},
        {"query q() { match { $a: Person $a knows $b $a.age > 10 $b.age >= 20 } return { $a.name, $b.name } }", false},
        // A selective test of the seed: the expansion from its few candidates is cheaper.
        {knows + "$e.since >= 10 $a.age < 3 } return { $a.name, $b.name } }", false},
    };
    for (const Case& c : cases) {
      size_t rows = 0;
      EXPECT_EQ(Scans(c.src, &rows), c.scans) << c.src;
      if (c.src.find("count(") == std::string::npos) {
        EXPECT_GT(rows, 0u) << c.src;
      }
    }
  }

  std::unique_ptr<Graph> graph_;
};

TEST_F(ExecutorEdgeScanTest, BindsFromTheEdgesItsTestsKeepAsTheReferenceDoes) { ExpectScansAgree(); }

// After writes the CSR is an overlay (edge inserts and deletes) or renumbered (node deletes and
// updates): the endpoints derived from it follow.
TEST_F(ExecutorEdgeScanTest, FollowsEdgeAndNodeWrites) {
  Mutate("query m() { insert Knows { from: \"p1\", to: \"p2\", since: 7, w: 50 } }");
  Mutate("query m() { insert Knows { from: \"p3\", to: \"p3\", since: 8, w: 1 } }");
  Mutate("query m() { delete Knows where since = 9 }");
  ExpectScansAgree();
  Mutate("query m() { delete Person where name = \"p10\" }");
  Mutate("query m() { update Person set { age: 3 } where name = \"p1\" }");
  Mutate(
      "query m() { insert Person { name: \"new\", age: 60 } insert Knows { from: \"new\", to: \"p1\", since: 7, w: 900 "
      "} }");
  ExpectScansAgree();
}

// A node insert leaves the edge version and the old nodes' ordinals as they were: the endpoints
// are taken over, not derived again. An edge write derives them again.
TEST_F(ExecutorEdgeScanTest, KeepsTheEndpointsAcrossNodeInserts) {
  const std::string src = "query q() { match { $a: Person $a $e:knows $b $e.since = 7 } return { $a.name, $b.name } }";
  GraphReadCache cache;
  auto run = [&]() {
    auto snap = graph_->Head();
    ASSERT_TRUE(snap.ok());
    auto qs = compiler::CompileQueries(snap->catalog(), src);
    ASSERT_TRUE(qs.ok()) << qs.status().ToString();
    auto got = ExecuteQuery(*snap, qs->front(), {}, 0, &cache);
    auto want = EvaluateReference(*snap, qs->front(), {}, 0);
    ASSERT_TRUE(got.ok() && want.ok());
    EXPECT_EQ(got->rows, want->rows);
  };
  run();
  ASSERT_EQ(cache.counts().edge_ends_built, 1u);
  Mutate("query m() { insert Person { name: \"zz\", age: 3 } }");
  Mutate("query m() { insert Person { name: \"zy\" } insert City { name: \"cz\", size: 1 } }");
  run();
  EXPECT_EQ(cache.counts().edge_ends_built, 1u);
  EXPECT_EQ(cache.counts().edge_ends_shared, 1u);
  // A node update moves its row (the edge version stays): the ordinals shift, derived again.
  Mutate("query m() { update Person set { age: 4 } where name = \"p5\" }");
  run();
  EXPECT_EQ(cache.counts().edge_ends_built, 2u);
  Mutate("query m() { insert Knows { from: \"zz\", to: \"p1\", since: 7, w: 1 } }");
  run();
  EXPECT_EQ(cache.counts().edge_ends_built, 3u);
  Mutate("query m() { delete Person where name = \"p2\" }");
  run();
  EXPECT_EQ(cache.counts().edge_ends_built, 4u);
  EXPECT_EQ(cache.counts().edge_ends_shared, 1u);
}

// When deriving the edge endpoints costs more than one scan saves, the first two queries that
// could scan expand instead, and the third derives them and scans (as a column read by point
// twice is then read whole); a later query over the same versions scans at once.
TEST_F(ExecutorEdgeScanTest, DerivesTheEndpointsOnlyWhenAskedAgain) {
  auto snap = graph_->Head();
  ASSERT_TRUE(snap.ok());
  const std::string src =
      "query q() { match { $a: Person $a $e:knows $b $e.since < 100 $a.age < 20 } return { $a.name, $b.name } }";
  auto qs = compiler::CompileQueries(snap->catalog(), src);
  ASSERT_TRUE(qs.ok()) << qs.status().ToString();
  auto want = EvaluateReference(*snap, qs->front(), {}, 0);
  ASSERT_TRUE(want.ok());
  ASSERT_GT(want->rows.size(), 0u);
  GraphReadCache cache;
  for (uint64_t run = 1; run <= 4; ++run) {
    auto got = ExecuteQuery(*snap, qs->front(), {}, 0, &cache);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->rows, want->rows);
    EXPECT_EQ(cache.counts().edge_ends_built, run >= 3 ? 1u : 0u) << "run " << run;
  }
}

}  // namespace
}  // namespace omnigraph::engine
