// The executor's memory bounds (executor.h ExecOptions): products and long chains under `limit`
// stream through bounded batches (unordered limits stop early, ordered ones keep a top-k), a
// query that must hold more than its budget fails with `resource_limit` naming it, and sibling
// `not {}` blocks are evaluated once per block over the binding rows. Every answer that the
// reference evaluator can produce in reasonable time is compared with it.
#include <gtest/gtest.h>

#include <sstream>

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
edge Knows: Person -> Person
)";

class ExecutorBudgetTest : public ::testing::Test {
 protected:
  // `n` persons p00000.. and a ring p_i -> p_{i+1}, p_i -> p_{i+2} (every node: out-degree 2).
  void Load(int n) {
    auto g = Graph::Init(std::make_shared<io::MemoryStore>(), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
    std::ostringstream data;
    auto name = [](int i) {
      char buf[16];
      std::snprintf(buf, sizeof(buf), "p%05d", i);
      return std::string(buf);
    };
    for (int i = 0; i < n; ++i)
      data << R"({"type":"Person","data":{"name":")" << name(i) << R"(","age":)" << i % 97 << "}}\n";
    for (int i = 0; i < n; ++i) {
      for (int d : {1, 2}) {
        data << R"({"edge":"Knows","from":")" << name(i) << R"(","to":")" << name((i + d) % n) << "\"}\n";
      }
    }
    auto r = LoadNdjson(*graph_, data.str(), LoadOptions{});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  Result<QueryResult> Run(const std::string& src, uint64_t budget = DefaultQueryMemoryBytes()) {
    OG_ASSIGN_OR_RETURN(Snapshot snap, graph_->Head());
    OG_ASSIGN_OR_RETURN(auto qs, compiler::CompileQueries(snap.catalog(), src));
    ExecOptions o;
    o.max_memory_bytes = budget;
    return ExecuteQuery(snap, qs.front(), {}, 0, &cache_, o);
  }
  Result<QueryResult> Reference(const std::string& src) {
    OG_ASSIGN_OR_RETURN(Snapshot snap, graph_->Head());
    OG_ASSIGN_OR_RETURN(auto qs, compiler::CompileQueries(snap.catalog(), src));
    return EvaluateReference(snap, qs.front(), {}, 0);
  }
  static std::vector<std::string> Text(const QueryResult& r) {
    std::vector<std::string> out;
    for (const auto& row : r.rows) {
      std::string l;
      for (size_t c = 0; c < row.size(); ++c) {
        const Value& v = row[c];
        l += (c ? "|" : "") + (!v.is_null() && v.kind() == TypeKind::kString ? v.string_value() : v.ToString());
      }
      out.push_back(l);
    }
    return out;
  }

  std::unique_ptr<Graph> graph_;
  GraphReadCache cache_;
};

constexpr uint64_t kSmallBudget = uint64_t{8} << 20;  // 8 MiB

TEST_F(ExecutorBudgetTest, UnorderedLimitOverAProductStopsEarlyWithTheFirstRowsInTotalOrder) {
  Load(3000);  // the product has 2.7e10 rows
  auto r =
      Run("query q() { match { $a: Person $b: Person $c: Person } return { $a.name as a, $b.name as b, $c.name as c } "
          "limit 5 }",
          kSmallBudget);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Text(*r), (std::vector<std::string>{"p00000|p00000|p00000", "p00000|p00000|p00001", "p00000|p00000|p00002",
                                                "p00000|p00000|p00003", "p00000|p00000|p00004"}));
}

TEST_F(ExecutorBudgetTest, OrderedLimitOverAProductKeepsATopKWithinTheBudget) {
  Load(1500);  // 2.25M rows, ~72 MB as binding rows: more than the budget
  const std::string q =
      "query q() { match { $a: Person $b: Person } return { $a.name as a, $b.name as b } order { $b.age desc, $a.age } "
      "limit 4 }";
  auto r = Run(q, kSmallBudget);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Ages are i % 97: $b of age 96 (p00096, p00193, ...), $a of age 0, ties by $a's id then $b's.
  EXPECT_EQ(Text(*r), (std::vector<std::string>{"p00000|p00096", "p00000|p00193", "p00000|p00290", "p00000|p00387"}));
}

TEST_F(ExecutorBudgetTest, AResultLargerThanTheBudgetIsAResourceLimitNamingIt) {
  Load(1500);
  auto r = Run("query q() { match { $a: Person $b: Person } return { $a.name as a, $b.name as b } }", kSmallBudget);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kResourceExhausted) << r.status().ToString();
  EXPECT_NE(r.status().message().find(std::to_string(kSmallBudget)), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("--max-memory"), std::string::npos) << r.status().message();
  // The same match counted holds no rows per match: within the budget.
  auto c = Run("query q() { match { $a: Person $b: Person } return { count($b) as n } }", kSmallBudget);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(Text(*c), (std::vector<std::string>{"2250000"}));
}

TEST_F(ExecutorBudgetTest, AChainOfOneHundredTraversalsUnderLimitOneAnswersAtOnce) {
  Load(200);  // 2^100 paths of length 100 from every node
  std::string q = "query q() { match { $v0: Person";
  for (int i = 0; i < 100; ++i) q += " $v" + std::to_string(i) + " knows $v" + std::to_string(i + 1);
  q += " } return { $v0.name as v0, $v100.name as v100 } limit 1 }";
  auto r = Run(q, kSmallBudget);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // The first path in total order: every hop to the smaller id (i + 1), so p00000 .. p00100.
  EXPECT_EQ(Text(*r), (std::vector<std::string>{"p00000|p00100"}));
}

TEST_F(ExecutorBudgetTest, OrderedRunsAgreeWithTheReferenceOnSmallGraphs) {
  Load(30);
  for (const char* q : {
           "query q() { match { $a: Person $a knows $b $b knows $c } return { $a.name as a, $c.name as c } limit 7 }",
           "query q() { match { $b: Person $a: Person $a knows $b } return { $a.name as a, $b.name as b } limit 5 }",
           "query q() { match { $a: Person $c: Person $a knows $b $b knows $c } return { $b.name as b } limit 9 }",
           "query q() { match { $a: Person { age: 3 } $b: Person $a knows $b } return { $b.name as b } limit 3 }",
           "query q() { match { $a: Person $b: Person $a.age > $b.age not { $a knows $b } } return { $a.name as a, "
           "$b.name as b } limit 11 }",
           "query q() { match { $a: Person $a knows{1,3} $b } return { $a.name as a, $b.name as b } limit 20 }",
           "query q() { match { $a: Person $b: Person $b knows $a } return { $a.name as a, $b.name as b } limit 0 }",
           "query q() { match { $p: Person } return { count($p) as n } limit 0 }",
           "query q() { match { $a: Person $a knows $b $b knows $c } return { count($c) as n } limit 0 }",
       }) {
    auto got = Run(q, kSmallBudget);
    auto want = Reference(q);
    ASSERT_TRUE(got.ok()) << q << ": " << got.status().ToString();
    ASSERT_TRUE(want.ok()) << q << ": " << want.status().ToString();
    EXPECT_EQ(Text(*got), Text(*want)) << q;
  }
}

TEST_F(ExecutorBudgetTest, ManySiblingNegationsRunOncePerBlockAndAgreeWithTheReference) {
  Load(50);
  std::string q = "query q() { match { $a: Person";
  for (int i = 0; i < 300; ++i) {
    q += " not { $a knows $x" + std::to_string(i) + " $x" + std::to_string(i) + ".age = " + std::to_string(1000 + i) +
         " }";
  }
  q += " not { $a knows $y $y.age = 3 } } return { $a.name as a } }";
  auto got = Run(q);
  auto want = Reference(q);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  EXPECT_EQ(Text(*got), Text(*want));
  EXPECT_EQ(got->rows.size(), 48u);  // p00001 and p00002 know p00003 (age 3)
}

TEST_F(ExecutorBudgetTest, TooManyClausesIsACompileError) {
  Load(3);
  std::string q = "query q() { match { $a: Person";
  for (int i = 0; i < 1000; ++i) q += " not { $a knows $x" + std::to_string(i) + " }";
  q += " } return { $a.name as a } }";
  auto r = Run(q);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kQueryParse) << r.status().ToString();
  EXPECT_NE(r.status().message().find("1000 clauses"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace omnigraph::engine
