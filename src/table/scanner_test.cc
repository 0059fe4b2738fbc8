// Tests of predicates and scans: three-valued evaluation, binding errors, fragment and page
// pruning by statistics (with the same results as unpruned scans), NaN and null edge cases.
#include "table/scanner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "io/memory_store.h"
#include "table/predicate.h"
#include "table/table_test_util.h"
#include "table/table_writer.h"

namespace omnigraph::table {
namespace {

using testing::BatchOf;
using testing::F;
using testing::Row;
using testing::SameRows;
using testing::Sorted;

TableSchema Schema() {
  auto s =
      TableSchema::Make({F("id", DataType::Scalar(TypeKind::kString), false),
                         F("age", DataType::Scalar(TypeKind::kI64)), F("score", DataType::Scalar(TypeKind::kF64)),
                         F("name", DataType::Scalar(TypeKind::kString)), F("tags", DataType::List(TypeKind::kString)),
                         F("day", DataType::Scalar(TypeKind::kDate)), F("vec", DataType::Vector(2))},
                        "id");
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return *s;
}

const DataType kStr = DataType::Scalar(TypeKind::kString);

Row R(int i, std::optional<int64_t> age, double score, std::optional<std::string> name, std::vector<std::string> tags) {
  std::vector<Value> t;
  for (auto& s : tags) t.push_back(Value::String(s));
  return {Value::String("r" + std::to_string(i)),
          age ? Value::I64(*age) : Value::Null(DataType::Scalar(TypeKind::kI64)),
          Value::F64(score),
          name ? Value::String(*name) : Value::Null(kStr),
          Value::List(TypeKind::kString, std::move(t)),
          Value::Date(i),
          Value::Vector({1.0f, 2.0f})};
}

std::vector<uint8_t> Eval(const Predicate& p, const format::Batch& b, const TableSchema& s) {
  auto bound = BoundPredicate::Bind(p, s);
  EXPECT_TRUE(bound.ok()) << bound.status().ToString();
  auto r = bound->Evaluate(b);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return *r;
}

TEST(PredicateTest, ThreeValuedLogic) {
  TableSchema s = Schema();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  format::Batch b = BatchOf(
      s, {R(0, 5, 1.0, "alice", {"x", "y"}), R(1, std::nullopt, nan, std::nullopt, {}), R(2, 10, -3.0, "bob", {"y"})});
  using V = std::vector<uint8_t>;
  EXPECT_EQ(Eval(Predicate::Eq("age", Value::I64(5)), b, s), (V{1, 0, 0}));
  EXPECT_EQ(Eval(Predicate::Ne("age", Value::I64(5)), b, s), (V{0, 0, 1}));  // null != 5 is UNKNOWN
  EXPECT_EQ(Eval(Predicate::Not(Predicate::Eq("age", Value::I64(5))), b, s), (V{0, 0, 1}));
  EXPECT_EQ(Eval(Predicate::Or({Predicate::Eq("age", Value::I64(5)), Predicate::IsNull("age")}), b, s), (V{1, 1, 0}));
  EXPECT_EQ(Eval(Predicate::Lt("age", Value::F64(7.5)), b, s), (V{1, 0, 0}));
  EXPECT_EQ(Eval(Predicate::Ge("age", Value::U64(10)), b, s), (V{0, 0, 1}));
  EXPECT_EQ(Eval(Predicate::Gt("score", Value::F64(0.0)), b, s), (V{1, 1, 0}));  // NaN sorts above numbers
  EXPECT_EQ(Eval(Predicate::In("name", {Value::String("bob"), Value::Null(kStr)}), b, s), (V{0, 0, 1}));
  EXPECT_EQ(Eval(Predicate::StartsWith("name", "al"), b, s), (V{1, 0, 0}));
  EXPECT_EQ(Eval(Predicate::Contains("name", "o"), b, s), (V{0, 0, 1}));
  EXPECT_EQ(Eval(Predicate::ListContains("tags", Value::String("y")), b, s), (V{1, 0, 1}));
  EXPECT_EQ(Eval(Predicate::IsNotNull("name"), b, s), (V{1, 0, 1}));
  EXPECT_EQ(Eval(Predicate::Le("day", Value::Date(1)), b, s), (V{1, 1, 0}));
  EXPECT_EQ(Eval(Predicate::Le("day", Value::I64(1)), b, s), (V{1, 1, 0}));
  EXPECT_EQ(Eval(Predicate::And({}), b, s), (V{1, 1, 1}));
  EXPECT_EQ(Eval(Predicate::Eq("age", Value::Null(DataType::Scalar(TypeKind::kI64))), b, s), (V{0, 0, 0}));
}

TEST(PredicateTest, BindRejectsIllTypedPredicates) {
  TableSchema s = Schema();
  auto bad = [&](const Predicate& p) { return BoundPredicate::Bind(p, s).status().category(); };
  EXPECT_EQ(bad(Predicate::Eq("nope", Value::I64(1))), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad(Predicate::StartsWith("age", "1")), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad(Predicate::Eq("age", Value::String("1"))), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad(Predicate::Lt("vec", Value::Vector({1.0f, 2.0f}))), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad(Predicate::ListContains("name", Value::String("x"))), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad(Predicate::ListContains("tags", Value::I64(1))), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad(Predicate::And({Predicate::IsNull("vec"), Predicate::Eq("x", Value::I64(1))})),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(BoundPredicate::Bind(Predicate::IsNull("vec"), s).ok());
}

class ScanPruningTest : public ::testing::Test {
 protected:
  void SetUp() override {
    OG_ASSERT_OK_AND_ASSIGN(TableVersion v, TableVersion::Create(store_, "tables/p", Schema()));
    WriteOptions wo;
    wo.max_rows_per_fragment = 1000;
    wo.fragment.max_page_rows = 100;
    std::vector<Row> rows;
    for (int i = 0; i < 10000; ++i) {
      rows.push_back(R(i, i, i * 0.5, "name" + std::to_string(i / 100), {i % 3 == 0 ? "three" : "other"}));
    }
    OG_ASSERT_OK_AND_ASSIGN(v, AppendRows(v, BatchOf(v.schema(), rows), wo));
    version_.emplace(v);
  }
  // Scans with and without statistics; checks both agree and returns the pruned scan's metrics.
  ScanMetrics Check(const Predicate& p, size_t expected_rows) {
    ScanMetrics out;
    std::vector<Row> results[2];
    for (int use = 0; use < 2; ++use) {
      ScanOptions o;
      o.filter = p;
      o.use_statistics = use == 1;
      auto scanner = version_->Scan(o);
      EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
      while (true) {
        auto b = (*scanner)->Next();
        EXPECT_TRUE(b.ok()) << b.status().ToString();
        if (!b.ok() || !b->has_value()) break;
        for (auto& r : (*b)->ToRows()) results[use].push_back(std::move(r));
      }
      if (use == 1) out = (*scanner)->metrics();
    }
    EXPECT_EQ(results[1].size(), expected_rows) << p.ToString();
    EXPECT_TRUE(SameRows(Sorted(results[0]), Sorted(results[1]))) << p.ToString();
    return out;
  }
  io::MemoryStore store_;
  std::optional<TableVersion> version_;
};

TEST_F(ScanPruningTest, PointPredicateReadsOnePage) {
  ScanMetrics m = Check(Predicate::Eq("age", Value::I64(4321)), 1);
  EXPECT_EQ(m.fragments, 10u);
  EXPECT_EQ(m.fragments_pruned, 9u);
  EXPECT_EQ(m.ranges_pruned, 9u);
  EXPECT_EQ(m.rows_read, 100u);
}

TEST_F(ScanPruningTest, RangeAndStringPredicates) {
  EXPECT_EQ(Check(Predicate::And({Predicate::Ge("age", Value::I64(2050)), Predicate::Lt("age", Value::I64(2250))}), 200)
                .rows_read,
            300u);
  EXPECT_EQ(Check(Predicate::Gt("score", Value::F64(4999.0)), 1).rows_read, 100u);
  EXPECT_LE(Check(Predicate::StartsWith("name", "name42"), 100).rows_read, 1000u);
  EXPECT_EQ(Check(Predicate::In("age", {Value::I64(5), Value::I64(9995)}), 2).rows_read, 200u);
  EXPECT_EQ(Check(Predicate::Or({Predicate::Eq("age", Value::I64(5)), Predicate::IsNull("age")}), 1).rows_read, 100u);
  EXPECT_EQ(Check(Predicate::IsNull("name"), 0).rows_read, 0u);
  EXPECT_EQ(Check(Predicate::ListContains("tags", Value::String("three")), 3334).fragments_pruned, 0u);
  Check(Predicate::Not(Predicate::Lt("age", Value::I64(9990))), 10);
  Check(Predicate::Contains("name", "9"), 1900);
  Check(Predicate::Ne("age", Value::I64(3)), 9999);
}

TEST_F(ScanPruningTest, DeletedRangesAndAddedColumnsArePruned) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v2, DeleteWhere(*version_, Predicate::Lt("age", Value::I64(1950))));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v3, AddColumn(v2, "extra", DataType::Scalar(TypeKind::kI64)));
  ScanOptions o;
  o.filter = Predicate::Lt("age", Value::I64(2000));
  OG_ASSERT_OK_AND_ASSIGN(auto scanner, v3.Scan(o));
  size_t rows = 0;
  while (true) {
    OG_ASSERT_OK_AND_ASSIGN(auto b, scanner->Next());
    if (!b) break;
    rows += b->num_rows();
  }
  EXPECT_EQ(rows, 50u);
  EXPECT_EQ(scanner->metrics().rows_read, 100u);  // fully deleted pages are skipped
  // Old fragments have no `extra` column: IS NOT NULL prunes all of them without opening files.
  ScanOptions o2;
  o2.filter = Predicate::IsNotNull("extra");
  OG_ASSERT_OK_AND_ASSIGN(auto s2, v3.Scan(o2));
  OG_ASSERT_OK_AND_ASSIGN(auto none, s2->Next());
  EXPECT_FALSE(none.has_value());
  EXPECT_EQ(s2->metrics().fragments_pruned, s2->metrics().fragments);
}

}  // namespace
}  // namespace omnigraph::table
