// Shortest paths (executor_shortest.cc): hand-made graphs with cycles, self-loops, parallel edges,
// undirected walks, hop bounds, weights and an edge between two node tables, then random graphs.
// Every query runs on the executor and on the reference evaluator (full distances, every walk),
// whose rows (in order) must be equal: the bidirectional search must find the same distance and
// the same smallest path (by node ids) as the definition.
#include <gtest/gtest.h>

#include <random>

#include "common/error_codes.h"
#include "compiler/type_checker.h"
#include "engine/exec/executor.h"
#include "engine/exec/reference_eval.h"
#include "engine/load/loader.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr const char* kSchema = R"(
node Person { name: String @key, age: I32? }
node City { name: String @key }
edge Knows: Person -> Person { since: I64?, cost: F64?, note: String? }
edge LivesIn: Person -> City { km: I32? }
)";

// a -> b twice (parallel), b -> c -> a (cycle), b -> b (self-loop), c -> e -> f -> a, c -> d,
// d -> d; a -> x -> e and a -> y -> e (so two three-hop ways a -> f); g alone.
constexpr const char* kData = R"({"type":"Person","data":{"name":"a","age":30}}
{"type":"Person","data":{"name":"b","age":41}}
{"type":"Person","data":{"name":"c","age":30}}
{"type":"Person","data":{"name":"d","age":85}}
{"type":"Person","data":{"name":"e"}}
{"type":"Person","data":{"name":"f","age":12}}
{"type":"Person","data":{"name":"g","age":85}}
{"type":"Person","data":{"name":"x"}}
{"type":"Person","data":{"name":"y"}}
{"type":"City","data":{"name":"paris"}}
{"type":"City","data":{"name":"rome"}}
{"edge":"Knows","from":"a","to":"b","data":{"since":1,"cost":5.0}}
{"edge":"Knows","from":"a","to":"b","data":{"since":2,"cost":1.0}}
{"edge":"Knows","from":"b","to":"c","data":{"since":3,"cost":1.0}}
{"edge":"Knows","from":"c","to":"a","data":{"since":4,"cost":1.0}}
{"edge":"Knows","from":"b","to":"b","data":{"since":5,"cost":0.5}}
{"edge":"Knows","from":"c","to":"e","data":{"since":6,"cost":1.0}}
{"edge":"Knows","from":"c","to":"d","data":{"since":7}}
{"edge":"Knows","from":"d","to":"d","data":{"since":8,"cost":2.0}}
{"edge":"Knows","from":"e","to":"f","data":{"since":9,"cost":1.0}}
{"edge":"Knows","from":"f","to":"a","data":{"since":10,"cost":1.0}}
{"edge":"Knows","from":"a","to":"y","data":{"since":11,"cost":0.25}}
{"edge":"Knows","from":"a","to":"x","data":{"since":12,"cost":4.0}}
{"edge":"Knows","from":"y","to":"e","data":{"since":13,"cost":0.25}}
{"edge":"Knows","from":"x","to":"e","data":{"since":14,"cost":0.25}}
{"edge":"LivesIn","from":"a","to":"paris","data":{"km":3}}
{"edge":"LivesIn","from":"a","to":"paris","data":{"km":1}}
{"edge":"LivesIn","from":"c","to":"rome"}
)";

std::vector<std::string> Lines(const QueryResult& res) {
  std::vector<std::string> out;
  for (const auto& row : res.rows) {
    std::string l;
    for (size_t c = 0; c < row.size(); ++c) l += (c ? "|" : "") + row[c].ToString();
    out.push_back(l);
  }
  return out;
}

class ShortestTest : public ::testing::Test {
 protected:
  void Init(const std::string& data) {
    auto g = Graph::Init(std::make_shared<io::MemoryStore>(), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
    auto r = LoadNdjson(*graph_, data, LoadOptions{});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  void SetUp() override { Init(kData); }

  // The executor's rows as text; the reference must give the same rows in the same order.
  std::vector<std::string> Run(const std::string& src) {
    auto snap = graph_->Head();
    EXPECT_TRUE(snap.ok());
    auto qs = compiler::CompileQueries(snap->catalog(), src);
    EXPECT_TRUE(qs.ok()) << src << "\n" << qs.status().ToString();
    if (!qs.ok()) return {};
    GraphReadCache cache;
    auto got = ExecuteQuery(*snap, qs->front(), {}, 0, &cache);
    auto want = EvaluateReference(*snap, qs->front(), {}, 0);
    EXPECT_TRUE(got.ok()) << src << "\n" << got.status().ToString();
    EXPECT_TRUE(want.ok()) << src << "\n" << want.status().ToString();
    if (!got.ok() || !want.ok()) return {};
    EXPECT_EQ(Lines(*got), Lines(*want)) << src;
    return Lines(*got);
  }

  // The error code of compiling or running `src`.
  std::string ErrorOf(const std::string& src) {
    auto snap = graph_->Head();
    auto qs = compiler::CompileQueries(snap->catalog(), src);
    if (!qs.ok()) return std::string(ErrorCodeName(qs.status().code()));
    GraphReadCache cache;
    auto got = ExecuteQuery(*snap, qs->front(), {}, 0, &cache);
    return got.ok() ? "ok" : std::string(ErrorCodeName(got.status().code()));
  }

  static std::string Between(const std::string& a, const std::string& b, const std::string& clause,
                             const std::string& ret = "length($p) as n, nodes($p) as path") {
    return "query q() { match { $a: Person { name: \"" + a + "\" } $b: Person { name: \"" + b + "\" } " + clause +
           " } return { " + ret + " } }";
  }

  std::unique_ptr<Graph> graph_;
};

using Rows = std::vector<std::string>;

TEST_F(ShortestTest, FindsTheSmallestShortestPathByNodeIds) {
  // a -> f: a x e f and a y e f are both three hops (a b c e f is four); x < y.
  EXPECT_EQ(Run(Between("a", "f", "$p: shortest($a knows $b)")), (Rows{"3|[\"a\",\"x\",\"e\",\"f\"]"}));
  EXPECT_EQ(Run(Between("a", "f", "$p: all_shortest($a knows $b)")),
            (Rows{"3|[\"a\",\"x\",\"e\",\"f\"]", "3|[\"a\",\"y\",\"e\",\"f\"]"}));
  EXPECT_EQ(Run(Between("b", "d", "$p: shortest($a knows $b)")), (Rows{"2|[\"b\",\"c\",\"d\"]"}));
  // Unreachable, and out of the hop bound.
  EXPECT_EQ(Run(Between("a", "g", "$p: shortest($a knows $b)")), Rows{});
  EXPECT_EQ(Run(Between("a", "f", "$p: shortest($a knows{1,2} $b)")), Rows{});
  EXPECT_EQ(Run(Between("a", "f", "$p: shortest($a knows{0,3} $b)")).size(), 1u);
  // Backwards (swap the variables) and undirected.
  EXPECT_EQ(Run(Between("f", "a", "$p: shortest($b knows $a)")), (Rows{"3|[\"a\",\"x\",\"e\",\"f\"]"}));
  EXPECT_EQ(Run(Between("a", "f", "$p: shortest($a <knows> $b)")), (Rows{"1|[\"a\",\"f\"]"}));
  EXPECT_EQ(Run(Between("d", "a", "$p: all_shortest($a <knows> $b)")), (Rows{"2|[\"d\",\"c\",\"a\"]"}));
}

TEST_F(ShortestTest, ZeroLengthPathsAndShortestCycles) {
  EXPECT_EQ(Run(Between("a", "a", "$p: shortest($a knows{0,} $b)")), (Rows{"0|[\"a\"]"}));
  EXPECT_EQ(Run(Between("a", "a", "$p: shortest($a knows $b)")), (Rows{"3|[\"a\",\"b\",\"c\",\"a\"]"}));
  EXPECT_EQ(Run(Between("b", "b", "$p: shortest($a knows $b)")), (Rows{"1|[\"b\",\"b\"]"}));
  EXPECT_EQ(Run(Between("g", "g", "$p: shortest($a knows $b)")), Rows{});
  EXPECT_EQ(Run(Between("a", "a", "$p: shortest($a knows{1,2} $b)")), Rows{});
  // One variable for both ends.
  EXPECT_EQ(Run("query q() { match { $a: Person { name: \"d\" } $p: shortest($a knows $a) } "
                "return { length($p) as n, edges($p) as e } }")
                .size(),
            1u);
}

TEST_F(ShortestTest, ParallelEdgesGiveOnePathThroughTheSmallestEdgeId) {
  auto rows = Run(Between("a", "c", "$p: all_shortest($a knows $b)", "edges($p) as e, cost($p) as c"));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NE(rows[0].find("|2"), std::string::npos) << rows[0];  // unweighted cost = hops
}

TEST_F(ShortestTest, WeightedPathsAreTheCheapest) {
  // a -> b costs 1 through the second parallel edge; a y e f = 0.25 + 0.25 + 1.
  EXPECT_EQ(Run(Between("a", "f", "$p: shortest($a knows $b, weight: cost)", "cost($p) as c, nodes($p) as n")),
            (Rows{"1.5|[\"a\",\"y\",\"e\",\"f\"]"}));
  EXPECT_EQ(Run(Between("a", "c", "$p: shortest($a knows $b, weight: cost)", "cost($p) as c, length($p) as n")),
            (Rows{"2|2"}));
  // c -> d has no cost: not traversable.
  EXPECT_EQ(Run(Between("a", "d", "$p: shortest($a knows $b, weight: cost)")), Rows{});
  // Integer weights; the cheapest cycle.
  EXPECT_EQ(Run(Between("b", "b", "$p: shortest($a knows $b, weight: since)", "cost($p) as c")), (Rows{"5"}));
  // a y e f a (2.5) beats a b c a (3).
  EXPECT_EQ(Run(Between("a", "a", "$p: shortest($a knows $b, weight: cost)", "cost($p) as c")), (Rows{"2.5"}));
  EXPECT_EQ(Run(Between("a", "a", "$p: shortest($a knows{0,} $b, weight: cost)", "cost($p) as c")), (Rows{"0"}));
}

TEST_F(ShortestTest, EdgesBetweenTwoNodeTablesHaveOneHop) {
  const std::string q =
      "query q() { match { $a: Person { name: \"a\" } $c: City { name: \"paris\" } "
      "$p: shortest($a livesIn $c, weight: km) } return { cost($p) as km, nodes($p) as n } }";
  EXPECT_EQ(Run(q), (Rows{"1|[\"a\",\"paris\"]"}));
  EXPECT_EQ(Run("query q() { match { $a: Person { name: \"b\" } $c: City $p: shortest($a livesIn $c) } "
                "return { $c.name } }"),
            Rows{});
}

TEST_F(ShortestTest, PathsCombineWithFiltersOrderingAndAggregates) {
  // Every person's distance from a, ordered, filtered on the length.
  EXPECT_EQ(Run("query q() { match { $a: Person { name: \"a\" } $b: Person $p: shortest($a knows $b) "
                "length($p) >= 2 } return { $b.name, length($p) as n } order { n desc, $b.name } }"),
            (Rows{"\"a\"|3", "\"d\"|3", "\"f\"|3", "\"c\"|2", "\"e\"|2"}));
  EXPECT_EQ(Run("query q() { match { $a: Person { name: \"a\" } $p: shortest($a knows $b) } "
                "return { count($p) as reached } }"),
            (Rows{"8"}));
  // An anonymous path is an existence test; in a negation, the people a cannot reach.
  EXPECT_EQ(Run("query q() { match { $a: Person { name: \"a\" } $b: Person not { $_: shortest($a knows $b) } } "
                "return { $b.name } }"),
            (Rows{"\"g\""}));
  EXPECT_EQ(Run("query q() { match { $a: Person { name: \"a\" } $b: Person { name: \"f\" } "
                "$p: all_shortest($a knows $b) } return { nodes($p) as n } limit 1 }"),
            (Rows{"[\"a\",\"x\",\"e\",\"f\"]"}));
}

// Edge-property tests that the typed mask pass does not take (floats, Strings) filter the edges the
// integer tests kept (Pipeline::EdgeFilter), in expansions and in edge counts.
TEST_F(ShortestTest, EdgeFiltersMixIntegerAndOtherTests) {
  EXPECT_EQ(Run("query q() { match { $a: Person $a $k:knows $b $k.cost > 0.5 $k.since < 12 } "
                "return { count($k) as n } }"),
            (Rows{"8"}));
  Run("query q() { match { $a: Person $a $k:knows $b $k.cost <= 1.0 $k.since >= 2 } return { $a.name, $b.name } }");
  Run("query q() { match { $a: Person $a $k:knows $b $k.note = \"x\" } return { count($k) as n } }");
}

TEST_F(ShortestTest, MisusesAreTypedErrors) {
  const std::string t29 = "T29";
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: shortest($a $k:knows $b)")), t29);
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: shortest($a knows{2,4} $b)")), t29);
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: shortest($a knows $b, weight: note)")), t29);
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: shortest($a knows $b, weight: nope)")), t29);
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: all_shortest($a knows $b, weight: cost)")), t29);
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: shortest($a knows{1,3} $b, weight: cost)")), t29);
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: shortest($a knows $b)", "$p")), t29);
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: shortest($a knows $b)", "$p.name")), t29);
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: shortest($a knows $b)", "length($a)")), t29);
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: shortest($a knows $b)", "max($p)")), t29);
  EXPECT_EQ(ErrorOf(Between("a", "b", "$a: shortest($a knows $b)")), "T25");
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: shortest($a knows{1,0} $b)")), "T15");
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: shortest($a nope $b)")), "T4");
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: shortest($a knows $b")), "Q000");
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: shortest($a knows $b, cost)")), "Q000");
  EXPECT_EQ(ErrorOf("query q() { match { $a: Person $c: City $p: shortest($a <livesIn> $c) } return { $a } }"), "T22");
}

TEST_F(ShortestTest, NegativeWeightIsPathWeight) {
  Init(R"({"type":"Person","data":{"name":"a"}}
{"type":"Person","data":{"name":"b"}}
{"edge":"Knows","from":"a","to":"b","data":{"cost":-1.0}}
)");
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: shortest($a knows $b, weight: cost)")), "path_weight");
  EXPECT_EQ(ErrorOf(Between("a", "b", "$p: shortest($a knows $b)")), "ok");
}

// Random graphs with parallel edges and self-loops: every pair, directed and undirected, single
// and all, against the reference; weighted: the same cost.
TEST_F(ShortestTest, RandomGraphsAgreeWithTheDefinition) {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    std::mt19937 rng(seed);
    const int n = 14 + static_cast<int>(seed) * 3, m = n * (1 + static_cast<int>(seed % 3));
    std::string data;
    for (int i = 0; i < n; ++i) data += "{\"type\":\"Person\",\"data\":{\"name\":\"n" + std::to_string(i) + "\"}}\n";
    for (int i = 0; i < m; ++i) {
      const int s = static_cast<int>(rng() % n), d = rng() % 5 == 0 ? s : static_cast<int>(rng() % n);
      data += "{\"edge\":\"Knows\",\"from\":\"n" + std::to_string(s) + "\",\"to\":\"n" + std::to_string(d) +
              "\",\"data\":{\"cost\":" + std::to_string(rng() % 4) + ".5}}\n";
    }
    Init(data);
    for (const char* clause : {"$p: shortest($a knows $b)", "$p: all_shortest($a knows $b)",
                               "$p: all_shortest($a <knows> $b)", "$p: shortest($a knows{0,4} $b)",
                               "$p: all_shortest($a knows{1,3} $b)", "$p: shortest($a knows $b, weight: cost)"}) {
      const std::string q = std::string("query q() { match { $a: Person $b: Person ") + clause +
                            " } return { $a.name, $b.name, cost($p) as c" +
                            (std::string(clause).find("weight") == std::string::npos ? ", nodes($p) as n" : "") +
                            " } order { $a.name, $b.name } }";
      SCOPED_TRACE(q);
      Rows rows = Run(q);
      EXPECT_FALSE(rows.empty());
    }
  }
}

}  // namespace
}  // namespace omnigraph::engine
