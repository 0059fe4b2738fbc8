// Tests of sorted runs (sorted_index.h): positions agree with a full scan through appends,
// deletes, upserts, a column added later and compaction; a large fragment's run waits for its
// scan credit; too many hits answer nullopt; a run of a fragment survives deletes in it.
#include "table/sorted_index.h"

#include <gtest/gtest.h>

#include <random>

#include "io/memory_store.h"
#include "table/compaction.h"
#include "table/table_cache.h"
#include "table/table_test_util.h"
#include "table/table_writer.h"

namespace omnigraph::table {
namespace {

using testing::BatchOf;
using testing::F;
using testing::Row;

TableSchema Schema() {
  auto s =
      TableSchema::Make({F("id", DataType::Scalar(TypeKind::kString), false), F("n", DataType::Scalar(TypeKind::kI64)),
                         F("d", DataType::Scalar(TypeKind::kDate)), F("s", DataType::Scalar(TypeKind::kString))},
                        "id");
  EXPECT_TRUE(s.ok());
  return *s;
}

// n in [-30, 30) or null; d = n * 3 days or null.
Row R(int id, std::optional<int> n) {
  return {Value::String("r" + std::to_string(id)), n ? Value::I64(*n) : Value::Null(DataType::Scalar(TypeKind::kI64)),
          n ? Value::Date(*n * 3) : Value::Null(DataType::Scalar(TypeKind::kDate)), Value::String("x")};
}

// The scan positions whose `column` lies in [lo, hi] (stored integers), from a full scan.
std::vector<uint32_t> Model(const TableVersion& v, const std::string& column, int64_t lo, int64_t hi) {
  ScanOptions opts;
  opts.columns = std::vector<std::string>{column};
  auto b = v.ScanAll(opts);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  std::vector<uint32_t> out;
  if (!b.ok()) return out;
  const format::Column& c = b->column(0);
  for (size_t r = 0; r < b->num_rows(); ++r) {
    if (c.IsNull(r)) continue;
    const bool narrow = c.type().kind == TypeKind::kDate || c.type().kind == TypeKind::kI32;
    const int64_t x = narrow ? c.i32_values()[r] : c.i64_values()[r];
    if (x >= lo && x <= hi) out.push_back(static_cast<uint32_t>(r));
  }
  return out;
}

// Through the runs, crediting scans until they may be built (a first run of a table is built
// after kScansBeforeRun selective scans).
void ExpectAgrees(const TableVersion& v, const std::string& column, int64_t lo, int64_t hi) {
  const FieldId field = v.schema().FindByName(column)->id;
  auto got = SortedPositions(v, field, IntRange{lo, hi}, ~uint64_t{0});
  for (uint64_t i = 0; i < kScansBeforeRun && got.ok() && !got->has_value(); ++i) {
    NoteSelectiveScan(v, field);
    got = SortedPositions(v, field, IntRange{lo, hi}, ~uint64_t{0});
  }
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->has_value()) << column;
  EXPECT_EQ(**got, Model(v, column, lo, hi)) << column << " in [" << lo << ", " << hi << "]";
}

class SortedIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto v = TableVersion::Create(store_, "tables/t", Schema());
    ASSERT_TRUE(v.ok());
    v0_.emplace(*v);
  }
  io::MemoryStore store_;
  std::optional<TableVersion> v0_;
};

TEST_F(SortedIndexTest, PositionsAgreeWithAScanThroughWritesAndCompaction) {
  std::mt19937 rng(11);
  TableVersion v = *v0_;
  int next = 0;
  for (int round = 0; round < 30; ++round) {
    std::vector<Row> rows;
    const int count = 1 + static_cast<int>(rng() % 80);
    for (int i = 0; i < count; ++i) {
      const int n = static_cast<int>(rng() % 60) - 30;
      rows.push_back(R(next++, n % 9 == 0 ? std::optional<int>() : n));
    }
    for (Row& r : rows) r.resize(v.schema().fields.size(), Value::Null(DataType::Scalar(TypeKind::kI32)));
    OG_ASSERT_OK_AND_ASSIGN(v, AppendRows(v, BatchOf(v.schema(), rows)));
    if (round % 4 == 3) {
      OG_ASSERT_OK_AND_ASSIGN(v, DeleteWhere(v, Predicate::Eq("n", Value::I64(static_cast<int>(rng() % 60) - 30))));
      Row up = R(static_cast<int>(rng() % next), 7);
      up.resize(v.schema().fields.size(), Value::I32(4));
      OG_ASSERT_OK_AND_ASSIGN(v, UpsertRows(v, BatchOf(v.schema(), {up})));
    }
    if (round == 12) {
      OG_ASSERT_OK_AND_ASSIGN(v, AddColumn(v, "late", DataType::Scalar(TypeKind::kI32)));
    }
    if (round == 20) {
      OG_ASSERT_OK_AND_ASSIGN(CompactResult c, Compact(v));
      v = c.version;
    }
    for (auto [lo, hi] : {std::pair<int64_t, int64_t>{7, 7}, {-5, 12}, {INT64_MIN, -20}, {29, INT64_MAX}, {3, 2}}) {
      ExpectAgrees(v, "n", lo, hi);
      ExpectAgrees(v, "d", lo * 3, hi == INT64_MAX ? hi : hi * 3);
    }
    if (round >= 12) ExpectAgrees(v, "late", INT64_MIN, INT64_MAX);  // null in every old row
  }
}

// A table of many small fragments (many small writes) is not sorted whole for one test: its runs
// wait for credit like one large fragment's; afterwards a small write's run is built at once.
TEST_F(SortedIndexTest, ManySmallFragmentsWaitForCreditAndALaterWriteDoesNot) {
  TableVersion v = *v0_;
  for (int w = 0; w < 20; ++w) {
    std::vector<Row> rows;
    for (int i = 0; i < 50; ++i) rows.push_back(R(w * 50 + i, (w * 50 + i) % 60 - 30));
    OG_ASSERT_OK_AND_ASSIGN(v, AppendRows(v, BatchOf(v.schema(), rows)));
  }
  ASSERT_GE(v.manifest().fragments.size(), 2u);
  const FieldId n = v.schema().FindByName("n")->id;
  SortedStats stats;
  for (uint64_t i = 0; i < kScansBeforeRun; ++i) {
    auto r = SortedPositions(v, n, IntRange{3, 3}, ~uint64_t{0}, &stats);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->has_value()) << "scan " << i;
    NoteSelectiveScan(v, n);
  }
  EXPECT_EQ(stats.runs_built, 0u);
  auto r = SortedPositions(v, n, IntRange{3, 3}, ~uint64_t{0}, &stats);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ(**r, Model(v, "n", 3, 3));
  EXPECT_GT(stats.runs_built, 0u);  // those whose statistics do not exclude 3
  EXPECT_LE(stats.runs_built, v.manifest().fragments.size());
  OG_ASSERT_OK_AND_ASSIGN(v, AppendRows(v, BatchOf(v.schema(), {R(5000, 3)})));
  stats = {};
  r = SortedPositions(v, n, IntRange{3, 3}, ~uint64_t{0}, &stats);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ(**r, Model(v, "n", 3, 3));
  EXPECT_EQ(stats.runs_built, 1u);
}

TEST_F(SortedIndexTest, TooManyHitsAndUnsortableFieldsAreRefused) {
  std::vector<Row> rows;
  for (int i = 0; i < 100; ++i) rows.push_back(R(i, i % 10));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v, AppendRows(*v0_, BatchOf(v0_->schema(), rows)));
  const FieldId n = v.schema().FindByName("n")->id;
  for (uint64_t i = 0; i < kScansBeforeRun; ++i) NoteSelectiveScan(v, n);
  auto few = SortedPositions(v, n, IntRange{3, 3}, 10);
  ASSERT_TRUE(few.ok());
  ASSERT_TRUE(few->has_value());
  EXPECT_EQ((*few)->size(), 10u);
  auto many = SortedPositions(v, n, IntRange{3, 4}, 10);
  ASSERT_TRUE(many.ok());
  EXPECT_FALSE(many->has_value());
  EXPECT_FALSE(SortedPositions(v, v.schema().FindByName("s")->id, IntRange{}, 10).ok());
  // Runs that would fill more than half of their cache's budget are not built (each query would
  // sort again): the column is scanned.
  auto tight = std::make_shared<TableCache>(TableCache::kDefaultBudgetBytes, /*sorted_budget_bytes=*/1024);
  OG_ASSERT_OK_AND_ASSIGN(TableVersion small, TableVersion::Open(store_, "tables/t", v.version_id(), tight));
  for (uint64_t i = 0; i < kScansBeforeRun; ++i) NoteSelectiveScan(small, n);
  auto refused = SortedPositions(small, n, IntRange{3, 3}, 10);
  ASSERT_TRUE(refused.ok());
  EXPECT_FALSE(refused->has_value());
}

TEST_F(SortedIndexTest, ALargeFragmentsRunWaitsForItsScansAndOutlivesDeletes) {
  std::vector<Row> rows;
  const int kRows = static_cast<int>(kSmallRunRows) + 1000;
  std::mt19937 rng(5);
  for (int i = 0; i < kRows; ++i) rows.push_back(R(i, static_cast<int>(rng() % 60) - 30));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v, AppendRows(*v0_, BatchOf(v0_->schema(), rows)));
  const FieldId n = v.schema().FindByName("n")->id;
  for (uint64_t i = 0; i < kScansBeforeRun; ++i) {
    auto r = SortedPositions(v, n, IntRange{5, 5}, ~uint64_t{0});
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->has_value()) << "scan " << i;
    NoteSelectiveScan(v, n);
  }
  SortedStats stats;
  auto r = SortedPositions(v, n, IntRange{5, 5}, ~uint64_t{0}, &stats);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ(stats.runs_built, 1u);
  EXPECT_EQ(**r, Model(v, "n", 5, 5));
  // Deletes in the fragment and a small append: the large run is read again, not rebuilt.
  OG_ASSERT_OK_AND_ASSIGN(v, DeleteWhere(v, Predicate::Eq("n", Value::I64(5))));
  OG_ASSERT_OK_AND_ASSIGN(v, DeleteWhere(v, Predicate::Lt("n", Value::I64(-20))));
  OG_ASSERT_OK_AND_ASSIGN(v, AppendRows(v, BatchOf(v.schema(), {R(kRows, 5), R(kRows + 1, 6)})));
  stats = {};
  for (auto [lo, hi] : {std::pair<int64_t, int64_t>{5, 5}, {-25, 6}, {INT64_MIN, INT64_MAX}}) {
    auto again = SortedPositions(v, n, IntRange{lo, hi}, ~uint64_t{0}, &stats);
    ASSERT_TRUE(again.ok());
    ASSERT_TRUE(again->has_value());
    EXPECT_EQ(**again, Model(v, "n", lo, hi));
  }
  EXPECT_EQ(stats.runs_built, 1u);  // the appended fragment's (small) run only
  EXPECT_EQ(stats.runs_cached, 5u);
}

}  // namespace
}  // namespace omnigraph::table
