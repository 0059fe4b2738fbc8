// Executor (executor.h) and reference evaluator (reference_eval.h) on hand-made cases the random
// differential test rarely reaches: ordering by an aggregate, exact integer sums and their
// overflow, grouping by typed value equality; and the JSON spelling of 64-bit integers
// (entity_diff.h ValueToJson). Every query runs on both evaluators, which must agree.
#include <gtest/gtest.h>

#include <limits>

#include "common/error_codes.h"
#include "compiler/type_checker.h"
#include "engine/diff/entity_diff.h"
#include "engine/exec/executor.h"
#include "engine/exec/reference_eval.h"
#include "engine/load/loader.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr const char* kSchema = R"(
node Person { name: String @key, age: I32?, big: I64?, ubig: U64?, small: U32?, score: F64? }
node City { name: String @key }
edge LivesIn: Person -> City
)";

class ExecutorTest : public ::testing::Test {
 protected:
  void Load(const std::string& ndjson) {
    auto g = Graph::Init(std::make_shared<io::MemoryStore>(), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
    auto r = LoadNdjson(*graph_, ndjson, LoadOptions{});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // Rows as text ("a|2"), from the executor; the reference must give exactly the same result.
  Result<std::vector<std::string>> Run(const std::string& src) {
    OG_ASSIGN_OR_RETURN(Snapshot snap, graph_->Head());
    OG_ASSIGN_OR_RETURN(auto qs, compiler::CompileQueries(snap.catalog(), src));
    auto got = ExecuteQuery(snap, qs.front(), {}, 0);
    auto want = EvaluateReference(snap, qs.front(), {}, 0);
    EXPECT_EQ(got.ok(), want.ok()) << src << "\n" << got.status().ToString() << "\n" << want.status().ToString();
    if (!got.ok()) {
      EXPECT_EQ(got.status().code_string(), want.status().code_string()) << src;
      return got.status();
    }
    std::vector<std::string> out, ref;
    for (auto* res : {&*got, &*want}) {
      auto& lines = res == &*got ? out : ref;
      for (const auto& row : res->rows) {
        std::string l;
        for (size_t c = 0; c < row.size(); ++c) {
          l += (c ? "|" : "") + row[c].ToString() +
               (row[c].is_null() ? "" : ":" + std::string(TypeKindName(row[c].kind())));
        }
        lines.push_back(l);
      }
    }
    EXPECT_EQ(out, ref) << src;
    return out;
  }

  std::unique_ptr<Graph> graph_;
};

using Rows = std::vector<std::string>;

TEST_F(ExecutorTest, OrdersByAnAggregateItsAliasOrOneNotProjected) {
  Load(R"({"type":"Person","data":{"name":"a","age":1}}
{"type":"Person","data":{"name":"b","age":2}}
{"type":"Person","data":{"name":"c","age":30}}
{"type":"Person","data":{"name":"d","age":4}}
{"type":"City","data":{"name":"paris"}}
{"type":"City","data":{"name":"rome"}}
{"type":"City","data":{"name":"oslo"}}
{"edge":"LivesIn","from":"a","to":"paris"}
{"edge":"LivesIn","from":"b","to":"paris"}
{"edge":"LivesIn","from":"d","to":"paris"}
{"edge":"LivesIn","from":"c","to":"rome"}
{"edge":"LivesIn","from":"c","to":"oslo"}
)");
  auto r =
      Run("query q() { match { $p: Person $p livesIn $c } return { $c.name, count($p) as n } "
          "order { count($p) desc } }");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // ties (oslo, rome: 1 each) are broken by the grouping key
  EXPECT_EQ(*r, (Rows{"\"paris\":String|3:I64", "\"oslo\":String|1:I64", "\"rome\":String|1:I64"}));
  r = Run(
      "query q() { match { $p: Person $p livesIn $c } return { $c.name, count($p) as n } order { n, $c.name desc } }");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (Rows{"\"rome\":String|1:I64", "\"oslo\":String|1:I64", "\"paris\":String|3:I64"}));
  // an aggregate that only the ordering uses: paris 7, rome 30, oslo 30
  r =
      Run("query q() { match { $p: Person $p livesIn $c } return { $c.name, count($p) as n } "
          "order { sum($p.age) desc, $c.name } limit 2 }");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (Rows{"\"oslo\":String|1:I64", "\"rome\":String|1:I64"}));
  r = Run("query q() { match { $p: Person } return { count($p) as n } order { max($p.age) } }");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (Rows{"4:I64"}));
}

TEST_F(ExecutorTest, IntegerSumsAreExact) {
  // (2^60 + 1) + 1 + 1: a double sum gives 2^60.
  Load(
      R"({"type":"Person","data":{"name":"a","big":1152921504606846977,"ubig":18446744073709551000,"small":4294967295,"age":2147483647,"score":0.5}}
{"type":"Person","data":{"name":"b","big":1,"ubig":615,"small":4294967295,"age":2147483647,"score":0.25}}
{"type":"Person","data":{"name":"c","big":1,"small":1,"age":-1}}
)");
  auto r =
      Run("query q() { match { $p: Person } return { sum($p.big) as b, sum($p.ubig) as u, "
          "sum($p.small) as s, sum($p.age) as a, sum($p.score) as f, avg($p.age) as g } }");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (Rows{"1152921504606846979:I64|18446744073709551615:U64|8589934591:U64|4294967293:I64|0.75:F64|"
                      "1431655764.3333333:F64"}));
}

TEST_F(ExecutorTest, IntegerSumOverflowIsATypedError) {
  Load(R"({"type":"Person","data":{"name":"a","big":9223372036854775807,"ubig":18446744073709551615}}
{"type":"Person","data":{"name":"b","big":1,"ubig":1}}
{"type":"Person","data":{"name":"c","big":-5}}
)");
  // I64: MAX + 1 - 5 fits, whatever the order the rows are added in
  auto r = Run("query q() { match { $p: Person } return { sum($p.big) as b } }");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (Rows{"9223372036854775803:I64"}));
  r = Run("query q() { match { $p: Person $p.big > 0 } return { sum($p.big) as b } }");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_string(), "resource_limit");
  r = Run("query q() { match { $p: Person } return { sum($p.ubig) as u } }");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_string(), "resource_limit");
}

TEST_F(ExecutorTest, GroupsByTypedValueEquality) {
  Load(R"({"type":"Person","data":{"name":"a","score":-0.0}}
{"type":"Person","data":{"name":"b","score":0.0}}
{"type":"Person","data":{"name":"c","score":0.5}}
{"type":"Person","data":{"name":"d"}}
)");
  auto r = Run("query q() { match { $p: Person } return { $p.score, count($p) as n } }");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (Rows{"NULL|1:I64", "0:F64|2:I64", "0.5:F64|1:I64"}));
  // min/max of -0 and 0 do not depend on the row order: -0 is the smaller
  r = Run("query q() { match { $p: Person $p.score <= 0 } return { min($p.score) as lo, max($p.score) as hi } }");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (Rows{"-0:F64|0:F64"}));
}

// The read paths refuse a mutation with a typed error pointing at the mutation path (mutations
// run through ExecuteMutation); nothing is executed.
TEST_F(ExecutorTest, ReadPathsRefuseAMutation) {
  Load(R"({"type":"Person","data":{"name":"a"}})");
  auto r = Run(R"(query m() { insert Person { name: "b" } })");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().category(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("is a mutation"), std::string::npos) << r.status().ToString();
}

TEST(EngineValueJson, SixtyFourBitIntegersBeyondTwoToThe53AreStrings) {
  const int64_t p53 = int64_t{1} << 53;
  EXPECT_EQ(ValueToJson(Value::I64(p53)).dump(), "9007199254740992");
  EXPECT_EQ(ValueToJson(Value::I64(-p53)).dump(), "-9007199254740992");
  EXPECT_EQ(ValueToJson(Value::I64(p53 + 1)).dump(), "\"9007199254740993\"");
  EXPECT_EQ(ValueToJson(Value::I64(-p53 - 1)).dump(), "\"-9007199254740993\"");
  EXPECT_EQ(ValueToJson(Value::I64(std::numeric_limits<int64_t>::min())).dump(), "\"-9223372036854775808\"");
  EXPECT_EQ(ValueToJson(Value::I64(std::numeric_limits<int64_t>::max())).dump(), "\"9223372036854775807\"");
  EXPECT_EQ(ValueToJson(Value::I64(-1)).dump(), "-1");
  EXPECT_EQ(ValueToJson(Value::U64(uint64_t{1} << 53)).dump(), "9007199254740992");
  EXPECT_EQ(ValueToJson(Value::U64((uint64_t{1} << 53) + 1)).dump(), "\"9007199254740993\"");
  EXPECT_EQ(ValueToJson(Value::U64(std::numeric_limits<uint64_t>::max())).dump(), "\"18446744073709551615\"");
  EXPECT_EQ(ValueToJson(Value::I32(std::numeric_limits<int32_t>::min())).dump(), "-2147483648");
}

}  // namespace
}  // namespace omnigraph::engine
