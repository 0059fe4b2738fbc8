// Path counting per end node (executor_paths.cc: PathCounts) and column filters of seeds
// (FilterByColumn) on hand-made graphs with cycles, self-loops, parallel edges, undirected and
// variable-length traversals and an edge between two node tables. Every query runs on the executor
// and the reference evaluator, whose results (in order) must be equal; the plan itself is checked
// too, so that a case cannot pass by falling back to row enumeration.
#include <gtest/gtest.h>

#include "compiler/type_checker.h"
#include "engine/derived/optimize.h"
#include "engine/exec/executor.h"
#include "engine/exec/executor_internal.h"
#include "engine/exec/reference_eval.h"
#include "engine/load/loader.h"
#include "engine/maintain/compact.h"
#include "engine/mutate/mutation.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

// Runs the first query of `src` with `cache` and expects the reference evaluator's rows (in order);
// returns the executor's rows (none when either failed).
std::vector<std::vector<Value>> ExpectAsReference(const Snapshot& snap, const std::string& src, GraphReadCache* cache) {
  auto qs = compiler::CompileQueries(snap.catalog(), src);
  EXPECT_TRUE(qs.ok()) << src << ": " << qs.status().ToString();
  if (!qs.ok()) return {};
  auto got = ExecuteQuery(snap, qs->front(), {}, 0, cache);
  auto want = EvaluateReference(snap, qs->front(), {}, 0);
  EXPECT_TRUE(got.ok() && want.ok()) << src;
  if (!got.ok() || !want.ok()) return {};
  EXPECT_EQ(got->rows, want->rows) << src;
  return got->rows;
}

constexpr const char* kSchema = R"(
node Person { name: String @key, age: I32?, big: U64?, score: F64?, nick: String? }
node City { name: String @key }
edge Knows: Person -> Person { since: I64? }
edge LivesIn: Person -> City
)";

// a -> b -> c -> a (cycle), a -> b twice (parallel), b -> b (self-loop), c -> e -> f, c -> d,
// d -> d, f -> a; g has no edges.
constexpr const char* kData = R"({"type":"Person","data":{"name":"a","age":30,"big":7,"score":1.5,"nick":"ann"}}
{"type":"Person","data":{"name":"b","age":41,"big":1,"score":-0.0,"nick":"bob"}}
{"type":"Person","data":{"name":"c","age":30,"score":2.25}}
{"type":"Person","data":{"name":"d","age":85,"big":3,"nick":"dan"}}
{"type":"Person","data":{"name":"e","big":9,"score":0.5,"nick":"anna"}}
{"type":"Person","data":{"name":"f","age":12,"nick":"fay"}}
{"type":"Person","data":{"name":"g","age":85,"big":2,"score":1.5}}
{"type":"City","data":{"name":"paris"}}
{"type":"City","data":{"name":"rome"}}
{"edge":"Knows","from":"a","to":"b","data":{"since":1}}
{"edge":"Knows","from":"a","to":"b","data":{"since":2}}
{"edge":"Knows","from":"b","to":"c"}
{"edge":"Knows","from":"c","to":"a"}
{"edge":"Knows","from":"b","to":"b"}
{"edge":"Knows","from":"c","to":"e"}
{"edge":"Knows","from":"c","to":"d"}
{"edge":"Knows","from":"d","to":"d"}
{"edge":"Knows","from":"e","to":"f"}
{"edge":"Knows","from":"f","to":"a"}
{"edge":"LivesIn","from":"a","to":"paris"}
{"edge":"LivesIn","from":"b","to":"paris"}
{"edge":"LivesIn","from":"c","to":"rome"}
{"edge":"LivesIn","from":"e","to":"rome"}
)";

class ExecutorPathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto g = Graph::Init(std::make_shared<io::MemoryStore>(), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
    auto r = LoadNdjson(*graph_, kData, LoadOptions{});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // The executor's rows as text ("c|2"); the reference must give the same rows in the same order.
  std::vector<std::string> Run(const std::string& src) {
    auto snap = graph_->Head();
    EXPECT_TRUE(snap.ok());
    auto qs = compiler::CompileQueries(snap->catalog(), src);
    EXPECT_TRUE(qs.ok()) << src << "\n" << qs.status().ToString();
    if (!qs.ok()) return {};
    auto got = ExecuteQuery(*snap, qs->front(), {}, 0, &cache_);
    auto want = EvaluateReference(*snap, qs->front(), {}, 0);
    EXPECT_TRUE(got.ok() && want.ok()) << src;
    if (!got.ok() || !want.ok()) return {};
    std::vector<std::string> out, ref;
    for (auto* res : {&*got, &*want}) {
      auto& lines = res == &*got ? out : ref;
      for (const auto& row : res->rows) {
        std::string l;
        for (size_t c = 0; c < row.size(); ++c) l += (c ? "|" : "") + row[c].ToString();
        lines.push_back(l);
      }
    }
    EXPECT_EQ(out, ref) << src;
    return out;
  }

  // Whether the match of `src` (an aggregating query) is counted per end node: rows with
  // multiplicities, as ExecuteQuery plans it.
  bool CountsPaths(const std::string& src) {
    auto snap = graph_->Head();
    auto qs = compiler::CompileQueries(snap->catalog(), src);
    EXPECT_TRUE(qs.ok()) << src;
    if (!qs.ok()) return false;
    const compiler::IrQuery& q = qs->front();
    exec::Context ctx(*snap, q, {}, 0, &cache_);
    exec::Rows seed;
    seed.width = q.variables.size() + 1;
    seed.bound.assign(seed.width, false);
    seed.cells.assign(seed.width, -1);
    std::vector<bool> read = exec::ReadVariables(q);
    exec::RowCollector rows(ctx, seed.width);
    exec::RunMode mode;
    mode.read = &read;
    Status st = exec::RunClauses(ctx, q.clauses, std::move(seed), rows, mode);
    EXPECT_TRUE(st.ok()) << src << ": " << st.ToString();
    return st.ok() && !rows.rows().mult.empty();
  }

  std::unique_ptr<Graph> graph_;
  GraphReadCache cache_;
};

using Rows = std::vector<std::string>;

TEST_F(ExecutorPathsTest, CountsPathsPerDestinationThroughCyclesLoopsAndParallelEdges) {
  const std::string two =
      "query q() { match { $a: Person { name: \"a\" } $a knows $b $b knows $c } "
      "return { $c.name, count($b) as paths } }";
  // a's distinct friends: b (parallel edges count once); b knows b (self-loop) and c.
  EXPECT_EQ(Run(two), (Rows{"\"b\"|1", "\"c\"|1"}));
  EXPECT_TRUE(CountsPaths(two));
  const std::string three =
      "query q() { match { $a: Person { name: \"a\" } $a knows $b $b knows $c $c knows $d } "
      "return { $d.name, count($c) as paths } }";
  EXPECT_EQ(Run(three), (Rows{"\"a\"|1", "\"b\"|1", "\"c\"|1", "\"d\"|1", "\"e\"|1"}));
  EXPECT_TRUE(CountsPaths(three));
  const std::string by_node =
      "query q() { match { $a: Person { name: \"c\" } $a knows $b $b knows $c $c knows $d } "
      "return { $d, count($b) as n, max($d.age) as oldest } order { n desc } limit 3 }";
  Run(by_node);
  EXPECT_TRUE(CountsPaths(by_node));
}

TEST_F(ExecutorPathsTest, VariableLengthAndUndirectedLinksKeepBreadthFirstSemantics) {
  for (const char* hops : {"{1,2}", "{0,2}", "{2,}", "{0,0}", "{2,2}", "{1,1}"}) {
    for (const char* word : {"knows", "<knows>"}) {
      const std::string q = std::string("query q() { match { $a: Person { name: \"b\" } $a ") + word + hops +
                            " $b $b knows $c } return { $c.name, count($b) as n } }";
      EXPECT_FALSE(Run(q).empty()) << q;
      EXPECT_TRUE(CountsPaths(q)) << q;
      const std::string back = std::string("query q() { match { $a: Person { name: \"a\" } $b ") + word + hops +
                               " $a $c knows $b } return { $c.name, count($b) as n, sum($c.age) as s } }";
      Run(back);
    }
  }
}

TEST_F(ExecutorPathsTest, SharedFrontierOverEveryStartAndPerRowWhenTheStartIsRead) {
  // No bound variable read: one frontier for all persons (the q_agg1hop shape).
  const std::string all =
      "query q() { match { $a: Person $a knows $b } "
      "return { count($b) as n, avg($b.age) as age, sum($b.big) as big, min($b.score) as lo, "
      "max($b.nick) as hi, count($a) as starts } }";
  EXPECT_EQ(Run(all), (Rows{"9|44.25|31|-0|\"fay\"|9"}));
  EXPECT_TRUE(CountsPaths(all));
  const std::string grouped =
      "query q() { match { $a: Person $a knows $b $b knows $c } "
      "return { $c.age, count($a) as n, avg($c.score) as s } }";
  Run(grouped);
  EXPECT_TRUE(CountsPaths(grouped));
  // The start is a grouping key: one frontier per start row.
  const std::string per_start =
      "query q() { match { $a: Person $a knows $b $b knows $c } "
      "return { $a.name as s, $c.name as d, count($b) as n } order { n desc } }";
  Run(per_start);
  EXPECT_TRUE(CountsPaths(per_start));
  // Into another node table (one hop only), and a match with no path.
  const std::string cities =
      "query q() { match { $a: Person { name: \"f\" } $a knows $b $b livesIn $c } "
      "return { $c.name, count($b) as n } }";
  EXPECT_EQ(Run(cities), (Rows{"\"paris\"|1"}));
  EXPECT_EQ(Run("query q() { match { $a: Person { name: \"g\" } $a knows $b $b knows $c } return { count($b) as n, "
                "min($c.age) as m } }"),
            (Rows{"0|NULL"}));
}

TEST_F(ExecutorPathsTest, ReadInnerVariablesOrFiltersKeepTheGeneralPlan) {
  const std::string inner =
      "query q() { match { $a: Person { name: \"a\" } $a knows $b $b knows $c } "
      "return { $b.name as m, $c.name as d, count($b) as n } }";
  Run(inner);
  EXPECT_FALSE(CountsPaths(inner));
  const std::string filtered =
      "query q() { match { $a: Person { name: \"a\" } $a knows $b $b knows $c $c.age > 20 } "
      "return { $c.name, count($b) as n } }";
  EXPECT_EQ(Run(filtered), (Rows{"\"b\"|1", "\"c\"|1"}));
  EXPECT_FALSE(CountsPaths(filtered));
  // An edge variable read only by count() is a link counted once per edge...
  const std::string edge =
      "query q() { match { $a: Person { name: \"a\" } $a knows $b $b $k:knows $c } "
      "return { $c.name, count($k) as n } }";
  EXPECT_EQ(Run(edge), (Rows{"\"b\"|1", "\"c\"|1"}));
  EXPECT_TRUE(CountsPaths(edge));
  // ...one read otherwise binds one row per edge...
  const std::string read_edge =
      "query q() { match { $a: Person { name: \"a\" } $a knows $b $b $k:knows $c } "
      "return { $c.name, max($k.since) as s } }";
  Run(read_edge);
  EXPECT_FALSE(CountsPaths(read_edge));
  // ...and after it, its rows (two per parallel edge) join the frontier with their weights.
  const std::string after =
      "query q() { match { $a: Person { name: \"a\" } $a $k:knows $b $b knows $c } "
      "return { $c.name, count($k) as n } }";
  EXPECT_EQ(Run(after), (Rows{"\"b\"|2", "\"c\"|2"}));
  EXPECT_TRUE(CountsPaths(after));
}

TEST_F(ExecutorPathsTest, SeedFiltersOverColumnsMatchTheReference) {
  // Typed comparisons (String, I32, U64, F64 with -0 and nulls), constants on either side,
  // contains / starts_with, and an absent match.
  for (const char* f : {"$p.age > 80", "80 < $p.age", "$p.age = 30", "$p.age != 30", "$p.big >= 3", "$p.score = 0.0",
                        "$p.score <= 1.5", "$p.nick starts_with \"an\"", "$p.nick contains \"a\"",
                        "\"bobby\" contains $p.nick", "$p.nick < \"bob\"", "$p.name = \"zz\"", "$p.age <= 12"}) {
    Run(std::string("query q() { match { $p: Person ") + f + " } return { $p.name } }");
    Run(std::string("query q() { match { $p: Person { age: 85 } ") + f + " } return { count($p) as n } }");
  }
  EXPECT_EQ(Run("query q() { match { $p: Person { age: 85 } $p.big > 2 } return { $p.name } }"), (Rows{"\"d\""}));
}

// Point queries cost what they touch: a 2-hop count and a {2,2} count from one key run within a
// 64 KiB query budget on a graph of 2,000 nodes and on one of 200,000 (per-node arrays of the
// whole graph, 1.6 MB at that size, would be charged to the budget and fail it), and answer as
// the reference does.
TEST(ExecutorPointQueryTest, CostDoesNotGrowWithTheGraph) {
  for (int n : {2000, 200000}) {
    SCOPED_TRACE(n);
    auto g = Graph::Init(std::make_shared<io::MemoryStore>(), "node P { n: String @key }\nedge K: P -> P\n");
    ASSERT_TRUE(g.ok());
    std::string data;
    for (int i = 0; i < n; ++i) data += R"({"type":"P","data":{"n":"p)" + std::to_string(i) + "\"}}\n";
    for (int i = 0; i < n; ++i) {
      for (int m : {7, 13}) {
        data +=
            R"({"edge":"K","from":"p)" + std::to_string(i) + R"(","to":"p)" + std::to_string((i * m + 1) % n) + "\"}\n";
      }
    }
    ASSERT_TRUE(LoadNdjson(**g, data, LoadOptions{}).ok());
    auto snap = (*g)->Head();
    ASSERT_TRUE(snap.ok());
    GraphReadCache cache;
    ExecOptions small;
    small.max_memory_bytes = 64 << 10;
    for (const char* src : {R"(query q() { match { $a: P { n: "p1" } $a k $m $m k $b } return { count($b) as c } })",
                            R"(query q() { match { $a: P { n: "p1" } $a k{2,2} $b } return { count($b) as c } })"}) {
      auto qs = compiler::CompileQueries(snap->catalog(), src);
      ASSERT_TRUE(qs.ok()) << qs.status().ToString();
      auto got = ExecuteQuery(*snap, qs->front(), {}, 0, &cache, small);
      ASSERT_TRUE(got.ok()) << src << ": " << got.status().ToString();
      auto want = EvaluateReference(*snap, qs->front(), {}, 0);
      ASSERT_TRUE(want.ok());
      EXPECT_EQ(got->rows, want->rows) << src;
      // The whole-graph count still runs (with its per-node arrays, charged) under the default.
      ASSERT_TRUE(ExecuteQuery(*snap, qs->front(), {}, 0, &cache).ok());
    }
    // ... and is refused, not run unaccounted, under the small budget.
    auto all = compiler::CompileQueries(snap->catalog(),
                                        "query q() { match { $a: P $a k $m $m k $b } return { count($b) as c } }");
    ASSERT_TRUE(all.ok());
    auto global = ExecuteQuery(*snap, all->front(), {}, 0, &cache, small);
    if (n == 200000) {
      ASSERT_FALSE(global.ok());
      EXPECT_EQ(global.status().code_string(), "resource_limit");
    }
  }
}

// A cold point query (a fresh read cache, as in a new process) binds its key through the key
// column's hash index and reads the rows it returns by address: no table's ordinals are loaded,
// across three fragments with deleted rows, and one hop from the key (either direction, with or
// without an edge variable) reads its lists through the edge table's src/dst index instead of the
// persisted CSR. Every answer equals the reference's.
TEST(ExecutorPointQueryTest, ColdPointQueriesLoadNoOrdinals) {
  auto g = Graph::Init(std::make_shared<io::MemoryStore>(),
                       "node P { n: String @key, age: I32? }\nedge K: P -> P { w: I64? }\n");
  ASSERT_TRUE(g.ok());
  for (int part = 0; part < 3; ++part) {
    std::string data;
    for (int i = part * 40; i < part * 40 + 40; ++i) {
      data += R"({"type":"P","data":{"n":"p)" + std::to_string(i) + R"(","age":)" + std::to_string(i % 7) + "}}\n";
    }
    for (int i = part * 40; i < part * 40 + 40; ++i) {
      for (int m : {3, 11}) {
        data += R"({"edge":"K","from":"p)" + std::to_string(i) + R"(","to":"p)" +
                std::to_string((i * m + 5) % (part * 40 + 40)) + R"(","data":{"w":)" + std::to_string(i * m) + "}}\n";
      }
    }
    ASSERT_TRUE(LoadNdjson(**g, data, LoadOptions{}).ok());
  }
  for (const char* gone : {"p3", "p41", "p42", "p80", "p119"}) {
    auto r = RunMutation(**g, std::string("query m() { delete P where n = \"") + gone + "\" }", "");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  auto snap = (*g)->Head();
  ASSERT_TRUE(snap.ok());
  ASSERT_TRUE(BuildDerivedObjects(*snap).ok());
  for (int i = 0; i < 120; i += 7) {
    const std::string id = "p" + std::to_string(i);
    for (const std::string& src :
         {"query q() { match { $p: P { n: \"" + id + "\" } } return { $p.n, $p.age, $p } }",
          "query q() { match { $a: P { n: \"" + id + "\" } $a k $b } return { $b.n, $b.age, $b } }",
          "query q() { match { $a: P { n: \"" + id + "\" } $b k $a } return { $b.n } order { $b.age desc } }",
          "query q() { match { $a: P { n: \"" + id + "\" } $a $e:k $b } return { $b.n, $e.w, $e.id } }"}) {
      auto qs = compiler::CompileQueries(snap->catalog(), src);
      ASSERT_TRUE(qs.ok()) << src << ": " << qs.status().ToString();
      GraphReadCache cold;
      auto got = ExecuteQuery(*snap, qs->front(), {}, 0, &cold);
      auto want = EvaluateReference(*snap, qs->front(), {}, 0);
      ASSERT_TRUE(got.ok() && want.ok()) << src;
      EXPECT_EQ(got->rows, want->rows) << src;
      EXPECT_EQ(cold.counts().ordinals_built + cold.counts().ordinals_loaded, 0u) << src;
      // One hop from the key reads its lists through the edge table's src/dst index, not the CSR.
      EXPECT_EQ(cold.counts().csrs_built + cold.counts().csrs_loaded, 0u) << src;
      // Edge properties of the few result rows are read by address too, not as whole columns.
      auto edges = snap->Table("K");
      ASSERT_TRUE(edges.ok());
      EXPECT_EQ(cold.CachedColumn(*edges, "w"), nullptr) << src;
      EXPECT_EQ(cold.CachedColumn(*edges, "id"), nullptr) << src;
    }
  }
}

// Right after a node write, the CSR in memory is over the old node versions. After a node insert
// it carries over at once (the old ordinals stay where they were); after an update or a delete,
// deriving the new one would be a pass over its arrays, so a hop from a key reads its lists from
// the CSR in memory, translated by id (Context::TranslatedLists), on every read. Every answer
// equals the reference's.
TEST(ExecutorPointQueryTest, HopsRightAfterANodeWriteReadByPoint) {
  auto g = Graph::Init(std::make_shared<io::MemoryStore>(),
                       "node P { n: String @key, age: I32? }\nedge K: P -> P { w: I64? }\n");
  ASSERT_TRUE(g.ok());
  std::string data;
  for (int i = 0; i < 200; ++i) {
    data += R"({"type":"P","data":{"n":"p)" + std::to_string(i) + R"(","age":)" + std::to_string(i % 40) + "}}\n";
  }
  for (int i = 0; i < 200; ++i) {
    for (int m : {3, 7, 3, 0}) {  // a parallel edge per node, and self-loops (m = 0: p7, p47, ...)
      if (m == 0 && i % 40 != 7) continue;
      const int to = m == 0 ? i : (i * m + 1) % 200;
      data += R"({"edge":"K","from":"p)" + std::to_string(i) + R"(","to":"p)" + std::to_string(to) +
              R"(","data":{"w":)" + std::to_string(i * 10 + m) + "}}\n";
    }
  }
  ASSERT_TRUE(LoadNdjson(**g, data, LoadOptions{}).ok());
  GraphReadCache cache;
  const std::string hop = "query q() { match { $a: P { n: \"p7\" } $a k $b } return { $b.n } }";
  const std::string back = "query q() { match { $a: P { n: \"p7\" } $b $e:k $a } return { $b.n, $e.w, $e.id } }";
  // Five keys (age 7: p7, p47, p87, p127, p167), each with its parallel edge.
  const std::string several = "query q() { match { $a: P $a.age = 7 $a $e:k $b } return { $a.n, $b.n, $e.w } }";
  for (int i = 0; i < 3; ++i) ExpectAsReference(*(*g)->Head(), hop, &cache);  // the third loads the CSR
  ASSERT_EQ(cache.counts().csrs_built, 1u);
  for (const char* write :
       {"query m() { insert P { n: \"q1\" } }", "query m() { update P set { age: 3 } where n = \"p21\" }",
        "query m() { delete P where n = \"p50\" }"}) {
    SCOPED_TRACE(write);
    ASSERT_TRUE(RunMutation(**g, write, "").ok());
    const GraphReadCache::Counts before = cache.counts();
    auto snap = (*g)->Head();
    ASSERT_TRUE(snap.ok());
    const bool insert = std::string_view(write).find("insert") != std::string_view::npos;
    for (int i = 0; i < 3; ++i) {
      ExpectAsReference(*snap, hop, &cache);
      ExpectAsReference(*snap, back, &cache);
    }
    // An insert: the CSR derived once, at the cost of the new rows (Csr::ExtendNodes,
    // TableOrdinals::Append). An update or a delete: no CSR derived, the lists translated.
    EXPECT_EQ(cache.counts().csrs_extended, before.csrs_extended + (insert ? 1 : 0));
    EXPECT_EQ(cache.counts().csr_bases > before.csr_bases, !insert);
    EXPECT_EQ(cache.counts().csrs_loaded, 0u);
    EXPECT_EQ(cache.counts().csrs_built, 1u);
    EXPECT_EQ(cache.counts().ordinals_built, 1u);
  }
  // Several keys right after a write, by point (a fresh cache reads by point too: no CSR at all).
  ASSERT_TRUE(RunMutation(**g, "query m() { update P set { age: 8 } where n = \"p47\" }", "").ok());
  ASSERT_TRUE(RunMutation(**g, "query m() { update P set { age: 7 } where n = \"p48\" }", "").ok());
  const GraphReadCache::Counts before = cache.counts();
  ExpectAsReference(*(*g)->Head(), several, &cache);
  EXPECT_EQ(cache.counts().csrs_extended, before.csrs_extended);
  GraphReadCache fresh;
  ExpectAsReference(*(*g)->Head(), several, &fresh);
  EXPECT_EQ(fresh.counts().csrs_built + fresh.counts().csrs_loaded, 0u);
  // After a compaction of the edge table its CSR cannot be derived from the one in memory
  // (Csr::Extend needs the old fragments), so that one is not "at hand": a hop reads by point
  // instead of building the whole CSR.
  // A query over every node derives the CSR of the head (it is now the one in memory).
  ExpectAsReference(*(*g)->Head(), "query q() { match { $a: P $a k $b } return { $a.n, $b.n } }", &cache);
  ASSERT_TRUE(cache.CsrAtHand(*(*g)->Head()->Table("K"), *(*g)->Head()->Table("P"), *(*g)->Head()->Table("P")));
  CompactGraphOptions compact;
  compact.types = {"K"};
  auto compacted = CompactGraph(**g, compact);
  ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
  ASSERT_TRUE(compacted->write.committed);
  const GraphReadCache::Counts at_compaction = cache.counts();
  ExpectAsReference(*(*g)->Head(), hop, &cache);
  ExpectAsReference(*(*g)->Head(), back, &cache);
  EXPECT_EQ(cache.counts().csrs_built, at_compaction.csrs_built);
  EXPECT_EQ(cache.counts().csrs_extended, at_compaction.csrs_extended);
}

// A limit without `order` over traversals with edge variables: rows come in the order of the ids
// of the bound variables, so the run binds them in that order and stops at the limit (ordered
// mode). Parallel edges and self-loops, edge variables declared before or after the endpoint they
// bind, two of them, an edge filter, and declaration orders the ordered plan cannot follow (run
// the general way): every answer equals the reference's, in order.
TEST(ExecutorOrderTest, LimitsOverEdgeVariablesFollowTheIdOrder) {
  auto g = Graph::Init(std::make_shared<io::MemoryStore>(),
                       "node P { n: String @key }\nedge K: P -> P { w: I64? }\nedge L: P -> P\n");
  ASSERT_TRUE(g.ok());
  std::string data;
  for (int i = 0; i < 60; ++i) data += R"({"type":"P","data":{"n":"p)" + std::to_string(i) + "\"}}\n";
  // K edges carry ids that run against the load order (so the edges' id order is not their
  // ordinal order): a parallel edge per node, a self-loop every fifth node, and 20 parallel
  // edges p1 -> p2 (one row's expansion larger than an ordered piece).
  int id = 100000;
  auto k_edge = [&](int from, int to, int w) {
    data += R"({"edge":"K","from":"p)" + std::to_string(from) + R"(","to":"p)" + std::to_string(to) +
            R"(","data":{"id":"k)" + std::to_string(id--) + R"(","w":)" + std::to_string(w) + "}}\n";
  };
  for (int i = 0; i < 60; ++i) {
    for (int m : {7, 11, 7}) k_edge(i, (i * m + 3) % 60, (i * 13 + m) % 17);
    if (i % 5 == 0) k_edge(i, i, i % 17);
    data += R"({"edge":"L","from":"p)" + std::to_string(i) + R"(","to":"p)" + std::to_string((i + 1) % 60) + "\"}\n";
  }
  for (int j = 0; j < 20; ++j) k_edge(1, 2, j % 6);
  ASSERT_TRUE(LoadNdjson(**g, data, LoadOptions{}).ok());
  auto snap = (*g)->Head();
  ASSERT_TRUE(snap.ok());
  GraphReadCache cache;
  for (const char* q : {
           "match { $a: P $a $e:k $b } return { $a.n, $e.w, $b.n } limit 6",
           "match { $a: P $a $e:k $b } return { $a.n, $e.w, $b.n } limit 2",
           "match { $a: P $a $e:k $b } return { $a.n, $e.w, $b.n, $e.id } limit 41",
           "match { $a: P $a $e:k $b } return { $a.n, $e.id } limit 100000",
           "match { $a: P { n: \"p1\" } $a $e:k $b } return { $b.n, $e.id } limit 15",
           "match { $b: P $a: P $a $e:k $b } return { $a.n, $b.n, $e.w } limit 5",
           "match { $a: P $a $e:k $b $b l $c } return { $a.n, $b.n, $c.n, $e.w } limit 9",
           "match { $a: P $a $e:k $b $b $f:k $c } return { $a.n, $e.w, $b.n, $f.w, $c.n } limit 11",
           "match { $a: P $a $e:k $b $b $f:k $c $e.w < $f.w } return { $a.n, $e.id, $f.id } limit 11",
           "match { $a: P $a $e:k $b $e.w > 9 } return { $a.n, $e.w, $b.n } limit 6",
           "match { $a: P $a $e:<k> $b } return { $a.n, $e.id, $b.n } limit 13",
           "match { $a: P $a $e:k $b not { $b l $a } } return { $a.n, $e.id } limit 12",
           "match { $a: P { n: \"p5\" } $a $e:k $b } return { $b.n, $e.w } limit 3",
           "match { $a: P $x: P $a $e:k $b $x l $a } return { $x.n, $a.n, $e.w, $b.n } limit 8",
           "match { $a: P $c: P $a $e:k $b $c k $b } return { $a.n, $c.n, $e.w, $b.n } limit 8",
           "match { $a: P $a $e:k $b $b $f:k $a } return { $a.n, $e.w, $f.w } limit 8",
           // A variable between an endpoint and its edge variable: the general plan.
           "match { $a: P $b: P $c: P $a $e:k $b $a $f:k $c } return { $a.n, $e.id, $f.id } limit 10",
       }) {
    SCOPED_TRACE(q);
    ExpectAsReference(*snap, std::string("query q() { ") + q + " }", &cache);
  }
}

// Ordering many rows by a property with a limit picks its shortlist by comparing the column's
// values (executor_shortlist.cc, Shortlist): ties at the cut, descending and ascending, integers,
// dates and strings, a later key deciding among ties, and nulls (every row then) all answer as
// the reference does.
TEST(ExecutorOrderTest, TopKByPropertyMatchesTheReference) {
  auto g = Graph::Init(std::make_shared<io::MemoryStore>(),
                       "node P { n: String @key, age: I32?, born: Date?, tag: String? }\n");
  ASSERT_TRUE(g.ok());
  std::string data;
  for (int i = 0; i < 3000; ++i) {
    data += R"({"type":"P","data":{"n":"p)" + std::to_string(i) + R"(","born":")" + std::to_string(1990 + i % 30) +
            R"(-01-0)" + std::to_string(1 + i % 9) + R"(","tag":"t)" + std::to_string(i % 40) + "\"";
    if (i % 500 != 7) data += R"(,"age":)" + std::to_string(i % 50);
    data += "}}\n";
  }
  ASSERT_TRUE(LoadNdjson(**g, data, LoadOptions{}).ok());
  auto snap = (*g)->Head();
  ASSERT_TRUE(snap.ok());
  GraphReadCache cache;
  // Several keys: the ties of one go on to the next (a String after a Date, a Date after a String,
  // three keys), a null among the ties stops the cut there, an alias key; and the same behind a
  // filter (the pipeline's rows, not a scan of the table).
  for (const char* order : {"$p.tag desc", "$p.tag", "$p.born desc, $p.n", "$p.born, $p.n desc", "$p.n desc",
                            "$p.age desc", "$p.age, $p.n", "$p.tag, $p.born desc", "$p.born desc, $p.tag, $p.n",
                            "$p.tag desc, $p.age", "$p.tag, $p.age desc, $p.n", "a desc, $p.tag"}) {
    for (const char* filter : {"", " $p.n != \"p3\""}) {
      // (A limit past 2^62 once overflowed the shortlist's "is a cut worth it" test.)
      for (uint64_t limit : {uint64_t{1}, uint64_t{7}, uint64_t{100}, (uint64_t{1} << 62) + 1}) {
        const std::string src = std::string("query q() { match { $p: P") + filter +
                                " } return { $p.n, $p.age, $p.born as a } order { " + order + " } limit " +
                                std::to_string(limit) + " }";
        ExpectAsReference(*snap, src, &cache);
      }
    }
  }
}

}  // namespace
}  // namespace omnigraph::engine

namespace omnigraph::engine {
namespace {

// Grouping by non-identity properties groups by coded column values (KeyCoder): nulls form one
// group, a String and an integer key together, a property absent from the table.
TEST_F(ExecutorPathsTest, GroupsByCodedPropertyValues) {
  EXPECT_EQ(Run("query q() { match { $p: Person } return { $p.age, count($p) as n } order { n desc, $p.age } }"),
            (Rows{"30|2", "85|2", "NULL|1", "12|1", "41|1"}));
  Run("query q() { match { $p: Person } return { $p.nick, $p.age, count($p) as n, max($p.big) as b } }");
  Run("query q() { match { $p: Person $p knows $q } return { $q.age, $p.nick, count($p) as n } order { n desc } }");
  Run("query q() { match { $p: Person $p $k:knows $q } return { $k.since, count($k) as n } }");
}

// Edge variables only counted: parallel edges count separately, tests on the edge apply, both
// directions of an undirected link (a self-loop once), in count-only and grouped queries.
TEST_F(ExecutorPathsTest, CountsEdgeVariablesPerEdge) {
  // (The first three's totals count every edge of the table without a row per node,
  // Pipeline::CountEveryEdge; a test on an endpoint, or a second link, takes the rows' way.)
  for (const char* pattern : {"$a $k:knows $b $k.since >= 2 $a.age > 35", "$a $k:knows $b $b.age < 40"}) {
    Run("query q() { match { $a: Person " + std::string(pattern) + " } return { count($k) as n } }");
  }
  for (const char* pattern : {"$a $k:knows $b", "$a $k:<knows> $b", "$a $k:knows $b $k.since >= 2",
                              "$a $k:knows $b $b $j:knows $c", "$a $k:knows $b $b $j:<knows> $c $j.since < 2"}) {
    const std::string p(pattern);
    const std::string counted = p.find("$j") != std::string::npos ? "count($j)" : "count($k)";
    const std::string total = "query q() { match { $a: Person " + p + " } return { " + counted + " as n } }";
    Run(total);
    const std::string grouped =
        "query q() { match { $a: Person " + p + " } return { $a.name, " + counted + " as n } order { n desc } }";
    Run(grouped);
    // (With a test of the first link's edge that keeps one edge, that edge is scanned instead:
    // fewer rows than one per node, and cheaper; Pipeline::ScanEdges, executor_edge_scan_test.cc.)
    if (p != "$a $k:knows $b $k.since >= 2") {
      EXPECT_TRUE(CountsPaths(grouped)) << grouped;
    }
  }
}

// Coded grouping over many distinct values (the code tables grow several times), one key and
// two, Strings, integers, dates and nulls: the same groups as the reference.
TEST(ExecutorGroupTest, CodedKeysOverManyDistinctValues) {
  // 70,000 rows: over kParallelGroupRows, so counts are grouped in parallel chunks (their groups
  // merged by key values); 4,000: one chunk.
  for (int rows : {4000, 70000}) {
    SCOPED_TRACE(rows);
    auto g = Graph::Init(std::make_shared<io::MemoryStore>(),
                         "node P { n: String @key, tag: String?, v: I64?, d: Date?, u: U64?, w: I64 }\n");
    ASSERT_TRUE(g.ok());
    std::string data;
    for (int i = 0; i < rows; ++i) {
      data += R"({"type":"P","data":{"n":"p)" + std::to_string(i) + "\"";
      if (i % 97 != 0) data += R"(,"tag":"t)" + std::to_string((i * 7919) % 700) + "\"";
      if (i % 89 != 0) data += R"(,"v":)" + std::to_string((i % 333) - 150);
      data += R"(,"d":")" + std::to_string(1990 + i % 31) + R"(-02-1)" + std::to_string(i % 9) + "\"";
      data += R"(,"u":)" + std::to_string(uint64_t{18446744073709551000u} - static_cast<uint64_t>(i % 5));
      data += R"(,"w":)" + std::to_string(7 * i) + "}}\n";
    }
    ASSERT_TRUE(LoadNdjson(**g, data, LoadOptions{}).ok());
    auto snap = (*g)->Head();
    ASSERT_TRUE(snap.ok());
    // (`$p.d`, `$p.u`: dense integer spans, the Date without nulls read directly; with `$p.tag`,
    // a pair of direct codes indexes one array. `$p.w`: 70,000 values over a wide span, hashed,
    // so that with `$p.tag` some pairs index the array and the others a hash index.)
    for (const char* keys : {"$p.tag", "$p.v", "$p.tag, $p.v", "$p.d, $p.tag", "$p.u", "$p.v, $p.u, $p.d", "$p.d",
                             "$p.tag, $p.d", "$p.tag, $p.w"}) {
      // Counts only (the parallel path at 70,000 rows), then with a max (the sequential one).
      // With a limit, only the best groups get key values (TopGroups over distinct coded groups).
      const std::string by_keys = std::string(", count($p) as n } order { n desc, ") + keys + " } limit 4 }";
      for (const std::string& aggs : {std::string(", count($p) as n } order { n desc } }"),
                                      std::string(", count($p) as n } order { n desc } limit 3 }"),
                                      std::string(", count($p) as n } order { n } limit 1 }"), by_keys,
                                      std::string(", count($p) as n, max($p.n) as m } order { n desc, m } }"),
                                      // Integer and date aggregates of a property: in the parallel
                                      // chunks too (read by ordinal, merged like counts).
                                      std::string(", count($p) as n, sum($p.v) as s, avg($p.v) as a, min($p.d) as lo, "
                                                  "max($p.u) as hi, max($p.w) as mw } order { n desc, s } limit 6 }"),
                                      std::string(", sum($p.v) as s, min($p.v) as lo } order { s desc } }")}) {
        const std::string src = std::string("query q() { match { $p: P } return { ") + keys + aggs;
        GraphReadCache cache;
        const auto got = ExpectAsReference(*snap, src, &cache);
        if (aggs.find("limit") == std::string::npos) {
          EXPECT_GT(got.size(), 4u) << src;
        }
      }
    }
    // Several column tests of one variable: at 70,000 rows the integer ones clear a mask first and
    // the order of the rest is picked from a sample (Candidates, OrderColumnTests); nulls, a
    // constant on the left, unsigned values, dates, a String test that drops most rows or few.
    for (const char* filter : {"$p.tag = \"t5\" $p.v > 100", "$p.v > 100 $p.tag != \"t5\"",
                               "100 < $p.v $p.u >= 18446744073709550998 $p.tag > \"t3\"",
                               "$p.d >= date(\"2010-01-01\") $p.v <= -100 $p.v != -149", "$p.u < 3 $p.v > 0",
                               "$p.tag = \"t9\" $p.n != \"p9\" $p.v >= -150"}) {
      for (const char* ret : {"count($p) as n } }", "$p.n, $p.v } order { $p.v desc, $p.n } limit 5 }"}) {
        const std::string src = std::string("query q() { match { $p: P ") + filter + " } return { " + ret;
        GraphReadCache cache;
        ExpectAsReference(*snap, src, &cache);
      }
    }
    // One cache: a few rows hash their strings; all rows code the whole column once (cached);
    // then a few rows read the cached codes. Each answers as the reference does.
    GraphReadCache shared;
    auto tags = snap->Table("P");
    ASSERT_TRUE(tags.ok());
    for (const char* filter : {" $p.v > 140", "", " $p.v > 140", " $p.v < -140"}) {
      const std::string src = std::string("query q() { match { $p: P") + filter +
                              " } return { $p.tag, $p.d, count($p) as n } order { n desc, $p.tag, $p.d } }";
      auto qs = compiler::CompileQueries(snap->catalog(), src);
      ASSERT_TRUE(qs.ok()) << src << ": " << qs.status().ToString();
      const bool coded_before = *shared.StringCodesFor(*tags, "tag", false) != nullptr;
      auto got = ExecuteQuery(*snap, qs->front(), {}, 0, &shared);
      auto want = EvaluateReference(*snap, qs->front(), {}, 0);
      ASSERT_TRUE(got.ok() && want.ok()) << src;
      EXPECT_EQ(got->rows, want->rows) << src;
      const bool coded_after = *shared.StringCodesFor(*tags, "tag", false) != nullptr;
      EXPECT_EQ(coded_after, coded_before || std::string(filter).empty()) << src;
    }
  }
}

// Tests of an edge variable against constants are applied inside the expansion (EdgeFilter).
TEST_F(ExecutorPathsTest, EdgePropertyFiltersInTheExpansion) {
  EXPECT_EQ(Run("query q() { match { $a: Person $a $k:knows $b $k.since >= 2 } return { count($k) as n } }"),
            (Rows{"1"}));
  EXPECT_EQ(Run("query q() { match { $a: Person $a $k:knows $b $k.since < 2 } return { $a.name, $b.name } }"),
            (Rows{"\"a\"|\"b\""}));
  Run("query q() { match { $a: Person { name: \"a\" } $a $k:<knows> $b $k.since != 1 } return { $b.name } }");
  Run("query q() { match { $b: Person { name: \"b\" } $a $k:knows $b 2 <= $k.since $a.age > 1 } return { $a.name } }");
  Run("query q() { match { $a: Person $a $k:knows $b $k.since > 0 $k.since < 3 $b.name != \"c\" } "
      "return { $a.name, $k.since } }");
}

}  // namespace
}  // namespace omnigraph::engine
