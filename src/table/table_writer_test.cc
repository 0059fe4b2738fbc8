// Tests of the write paths: delete by address and predicate, upsert, overwrite, combined writes,
// staging (nothing existing is modified), compaction and id-index maintenance.
#include "table/table_writer.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "io/counting_store.h"
#include "io/memory_store.h"
#include "table/compaction.h"
#include "table/id_index.h"
#include "table/scanner.h"
#include "table/table_test_util.h"

namespace omnigraph::table {
namespace {

using testing::AllRows;
using testing::BatchOf;
using testing::F;
using testing::Row;
using testing::RowsToString;
using testing::SameRows;
using testing::Sorted;

TableSchema Schema() {
  auto s = TableSchema::Make({F("id", DataType::Scalar(TypeKind::kString), false),
                              F("age", DataType::Scalar(TypeKind::kI64)), F("tags", DataType::List(TypeKind::kString))},
                             "id");
  EXPECT_TRUE(s.ok());
  return *s;
}

Row R(const std::string& id, int64_t age, std::vector<std::string> tags = {}) {
  std::vector<Value> t;
  for (auto& s : tags) t.push_back(Value::String(s));
  return {Value::String(id), Value::I64(age), Value::List(TypeKind::kString, std::move(t))};
}

std::vector<Row> Range(int b, int e) {
  std::vector<Row> out;
  for (int i = b; i < e; ++i) out.push_back(R("k" + std::to_string(i), i, {i % 2 ? "odd" : "even"}));
  return out;
}

class TableWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto v = TableVersion::Create(store_, "tables/w", Schema());
    ASSERT_TRUE(v.ok());
    v0_.emplace(*v);
  }
  std::map<std::string, std::string> Snapshot() {
    std::map<std::string, std::string> out;
    auto all = store_.List("");
    EXPECT_TRUE(all.ok());
    for (const auto& m : *all) out[m.key] = *store_.Get(m.key);
    return out;
  }
  io::MemoryStore store_;
  std::optional<TableVersion> v0_;
};

TEST_F(TableWriterTest, DeleteByAddressAndPredicate) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(*v0_, BatchOf(v0_->schema(), Range(0, 20))));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v2, DeleteWhere(v1, Predicate::ListContains("tags", Value::String("odd"))));
  EXPECT_EQ(v2.row_count(), 10u);
  EXPECT_EQ(v2.manifest().operation.kind, "delete");
  EXPECT_EQ(v2.manifest().operation.rows_deleted, 10u);
  ASSERT_EQ(v2.manifest().fragments.size(), 1u);
  EXPECT_EQ(v2.manifest().fragments[0].deleted_rows, 10u);
  EXPECT_EQ(v2.manifest().fragments[0].file_key, v1.manifest().fragments[0].file_key);
  uint64_t addrs[] = {MakeRowAddress(0, 0), MakeRowAddress(0, 1), MakeRowAddress(0, 2)};  // 1 is already gone
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v3, DeleteRows(v2, addrs));
  EXPECT_EQ(v3.row_count(), 8u);
  EXPECT_EQ(v3.manifest().operation.rows_deleted, 2u);
  uint64_t bad[] = {MakeRowAddress(0, 20)};
  EXPECT_EQ(DeleteRows(v3, bad).status().category(), StatusCode::kNotFound);
  // Deleting everything in a fragment drops the fragment.
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v4, DeleteWhere(v3, Predicate()));
  EXPECT_EQ(v4.row_count(), 0u);
  EXPECT_TRUE(v4.manifest().fragments.empty());
  EXPECT_TRUE(v4.manifest().indexes.empty());
  // Earlier versions still read the same.
  EXPECT_EQ(AllRows(v1).size(), 20u);
  EXPECT_EQ(AllRows(v2).size(), 10u);
}

TEST_F(TableWriterTest, UpsertReplacesByKey) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(*v0_, BatchOf(v0_->schema(), Range(0, 10))));
  std::vector<Row> up = {R("k3", 300), R("k9", 900), R("new", 1)};
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v2, UpsertRows(v1, BatchOf(v1.schema(), up)));
  EXPECT_EQ(v2.row_count(), 11u);
  EXPECT_EQ(v2.manifest().operation.kind, "upsert");
  EXPECT_EQ(v2.manifest().operation.rows_inserted, 3u);
  EXPECT_EQ(v2.manifest().operation.rows_deleted, 2u);
  std::vector<Row> want = Range(0, 10);
  want[3] = up[0];
  want[9] = up[1];
  want.push_back(up[2]);
  EXPECT_TRUE(SameRows(AllRows(v2), Sorted(want))) << RowsToString(AllRows(v2));
  // Rows with a duplicated key (possible through plain appends) are all replaced.
  OG_ASSERT_OK_AND_ASSIGN(TableVersion d1, AppendRows(v2, BatchOf(v2.schema(), {R("dup", 1)})));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion d2, AppendRows(d1, BatchOf(v2.schema(), {R("dup", 2)})));
  OG_ASSERT_OK_AND_ASSIGN(IdIndex didx, IdIndex::Open(d2));
  EXPECT_EQ(didx.LookupAll("dup").size(), 2u);
  OG_ASSERT_OK_AND_ASSIGN(TableVersion d3, UpsertRows(d2, BatchOf(v2.schema(), {R("dup", 3)})));
  OG_ASSERT_OK_AND_ASSIGN(uint64_t dups, d3.CountRows(Predicate::Eq("id", Value::String("dup"))));
  EXPECT_EQ(dups, 1u);
  // Duplicate keys in one upsert batch are rejected.
  EXPECT_EQ(UpsertRows(v2, BatchOf(v2.schema(), {R("a", 1), R("a", 2)})).status().category(),
            StatusCode::kInvalidArgument);
}

TEST_F(TableWriterTest, CombinedWriteAppliesInOrder) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(*v0_, BatchOf(v0_->schema(), Range(0, 5))));
  TableWriter w(v1);
  OG_ASSERT_OK(w.Append(BatchOf(v1.schema(), {R("p1", 50), R("p2", 60)})));
  OG_ASSERT_OK(w.Upsert(BatchOf(v1.schema(), {R("p1", 51), R("k0", 1000)})));  // pending + base
  OG_ASSERT_OK(w.DeleteWhere(Predicate::Ge("age", Value::I64(60))));           // p2 and k0
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v2, w.Commit());
  EXPECT_EQ(v2.manifest().operation.kind, "update");
  std::vector<Row> want = {R("k1", 1, {"odd"}), R("k2", 2, {"even"}), R("k3", 3, {"odd"}), R("k4", 4, {"even"}),
                           R("p1", 51)};
  EXPECT_TRUE(SameRows(AllRows(v2), Sorted(want))) << RowsToString(AllRows(v2));
  EXPECT_EQ(w.Commit().status().category(), StatusCode::kInvalidArgument);
}

TEST_F(TableWriterTest, OverwriteReplacesEverything) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(*v0_, BatchOf(v0_->schema(), Range(0, 5))));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v2, Overwrite(v1, BatchOf(v1.schema(), Range(100, 102))));
  EXPECT_TRUE(SameRows(AllRows(v2), Sorted(Range(100, 102))));
  EXPECT_EQ(v2.manifest().operation.kind, "overwrite");
  EXPECT_EQ(v2.manifest().fragments.size(), 1u);
  EXPECT_GT(v2.manifest().fragments[0].id, v1.manifest().fragments[0].id);  // ids never reused
  OG_ASSERT_OK_AND_ASSIGN(IdIndex idx, IdIndex::Open(v2));
  EXPECT_FALSE(idx.Lookup("k1").has_value());
  EXPECT_TRUE(idx.Lookup("k100").has_value());
}

TEST_F(TableWriterTest, WritesNeverModifyExistingObjects) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(*v0_, BatchOf(v0_->schema(), Range(0, 30))));
  auto before = Snapshot();
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v2, DeleteWhere(v1, Predicate::Lt("age", Value::I64(10))));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v3, UpsertRows(v2, BatchOf(v2.schema(), Range(25, 35))));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v4, Overwrite(v3, BatchOf(v3.schema(), Range(0, 3))));
  CompactOptions co;
  co.min_candidates = 1;
  OG_ASSERT_OK_AND_ASSIGN(CompactResult c, Compact(v3, co));
  auto after = Snapshot();
  for (const auto& [k, bytes] : before) {
    ASSERT_TRUE(after.count(k)) << k;
    EXPECT_EQ(after[k], bytes) << k;
  }
}

// A large append is cut by estimated bytes into fragments of even size (written in parallel),
// and every row is still there in order.
TEST_F(TableWriterTest, LargeAppendsAreCutIntoEvenFragmentsByBytes) {
  std::vector<Row> rows;
  for (int i = 0; i < 9000; ++i) rows.push_back(R("id-" + std::to_string(i), i));
  format::Batch batch = BatchOf(v0_->schema(), rows);
  uint64_t bytes = 0;
  for (size_t c = 0; c < batch.num_columns(); ++c) bytes += batch.column(c).memory_bytes();
  WriteOptions wo;
  wo.max_bytes_per_fragment = bytes / 3 + 1;  // three pieces
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(*v0_, batch, wo));
  ASSERT_EQ(v1.manifest().fragments.size(), 3u);
  for (const auto& f : v1.manifest().fragments) EXPECT_EQ(f.physical_rows, 3000u);
  OG_ASSERT_OK_AND_ASSIGN(format::Batch all, v1.ScanAll({}));
  ASSERT_EQ(all.num_rows(), 9000u);
  EXPECT_EQ(all.GetValue(8999, 0).string_value(), "id-8999");
  // A cap below one row still makes progress: one row per fragment.
  WriteOptions tiny;
  tiny.max_bytes_per_fragment = 1;
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v2, AppendRows(*v0_, BatchOf(v0_->schema(), {R("a", 1), R("b", 2)}), tiny));
  EXPECT_EQ(v2.manifest().fragments.size(), 2u);
  tiny.max_bytes_per_fragment = 0;
  EXPECT_FALSE(AppendRows(*v0_, BatchOf(v0_->schema(), {R("c", 3)}), tiny).ok());
}

TEST_F(TableWriterTest, IdIndexLookupsAndReuse) {
  WriteOptions wo;
  wo.max_rows_per_fragment = 30000;
  std::vector<Row> rows;
  for (int i = 0; i < 100000; ++i) rows.push_back(R("id-" + std::to_string(i), i));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(*v0_, BatchOf(v0_->schema(), rows), wo));
  EXPECT_EQ(v1.manifest().fragments.size(), 4u);
  ASSERT_EQ(v1.manifest().indexes.size(), 1u);
  EXPECT_EQ(v1.manifest().indexes[0].fragment_ids.size(), 4u);
  EXPECT_EQ(v1.manifest().indexes[0].entries, 100000u);
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v2,
                          DeleteWhere(v1, Predicate::In("id", {Value::String("id-5"), Value::String("id-99999")})));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v3, AppendRows(v2, BatchOf(v2.schema(), {R("late", 1)})));
  EXPECT_EQ(v3.manifest().indexes.size(), 2u);  // the old segment is reused, one new
  EXPECT_EQ(v3.manifest().indexes[0].keys, v1.manifest().indexes[0].keys);

  // A cold open reads the segments, not the key column.
  auto base = std::make_shared<io::MemoryStore>();
  auto all = store_.List("");
  ASSERT_TRUE(all.ok());
  for (const auto& m : *all) OG_ASSERT_OK(base->Put(m.key, *store_.Get(m.key)));
  io::CountingStore counting(base);
  OG_ASSERT_OK_AND_ASSIGN(TableVersion cold, TableVersion::Open(counting, "tables/w", v3.version_id()));
  counting.Reset();
  OG_ASSERT_OK_AND_ASSIGN(IdIndex idx, IdIndex::Open(cold));
  EXPECT_EQ(idx.uncovered_fragments(), 0u);
  EXPECT_EQ(counting.counts().of(io::StoreOp::kGetRange), 0u) << counting.counts().ToString();
  EXPECT_EQ(counting.counts().of(io::StoreOp::kGet), 4u) << counting.counts().ToString();  // 2 segments + 2 dvs

  EXPECT_EQ(idx.Lookup("id-0"), MakeRowAddress(0, 0));
  EXPECT_EQ(idx.Lookup("id-30001"), MakeRowAddress(1, 1));
  EXPECT_FALSE(idx.Lookup("id-5").has_value());
  EXPECT_FALSE(idx.Lookup("id-99999").has_value());
  EXPECT_FALSE(idx.Lookup("nope").has_value());
  EXPECT_EQ(idx.Lookup("late"), MakeRowAddress(4, 0));
  std::vector<std::string> many;
  for (int i = 0; i < 100000; ++i) many.push_back("id-" + std::to_string(i));
  auto found = idx.LookupMany(many);
  size_t hits = 0;
  for (size_t i = 0; i < found.size(); ++i) {
    if (!found[i]) continue;
    ++hits;
    ASSERT_EQ(*found[i], MakeRowAddress(static_cast<uint32_t>(i / 30000), static_cast<uint32_t>(i % 30000)));
  }
  EXPECT_EQ(hits, 99998u);
  // A small batch (sorted by hash instead of binned), with misses and a repeated id.
  auto few = idx.LookupMany(std::vector<std::string>{"late", "nope", "id-5", "id-30001", "late"});
  ASSERT_EQ(few.size(), 5u);
  EXPECT_EQ(few[0], MakeRowAddress(4, 0));
  EXPECT_FALSE(few[1].has_value());
  EXPECT_FALSE(few[2].has_value());
  EXPECT_EQ(few[3], MakeRowAddress(1, 1));
  EXPECT_EQ(few[4], MakeRowAddress(4, 0));
  EXPECT_TRUE(idx.LookupMany({}).empty());

  // Warm: the next version's index reuses cached segments (only the new one is read).
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v4, AppendRows(cold, BatchOf(v2.schema(), {R("later", 2)})));
  counting.Reset();
  OG_ASSERT_OK_AND_ASSIGN(IdIndex idx4, IdIndex::Open(v4));
  EXPECT_EQ(counting.counts().total(), 0u) << counting.counts().ToString();
  EXPECT_EQ(idx4.Lookup("later"), MakeRowAddress(5, 0));
}

TEST_F(TableWriterTest, IdSegmentsStayFewUnderManySmallWrites) {
  TableVersion v = *v0_;
  for (int i = 0; i < 300; ++i) {
    OG_ASSERT_OK_AND_ASSIGN(v, AppendRows(v, BatchOf(v.schema(), {R("s" + std::to_string(i), i)})));
    if (i % 50 == 49) {
      OG_ASSERT_OK_AND_ASSIGN(v, DeleteWhere(v, Predicate::Eq("age", Value::I64(i - 10))));
    }
  }
  EXPECT_EQ(v.manifest().fragments.size(), 294u);
  EXPECT_LE(v.manifest().indexes.size(), 12u);  // logarithmic, not one per write
  std::set<uint32_t> covered;
  for (const auto& s : v.manifest().indexes) covered.insert(s.fragment_ids.begin(), s.fragment_ids.end());
  EXPECT_EQ(covered.size(), v.manifest().fragments.size());
  OG_ASSERT_OK_AND_ASSIGN(TableVersion cold, TableVersion::Open(store_, "tables/w", v.version_id()));
  OG_ASSERT_OK_AND_ASSIGN(IdIndex idx, IdIndex::Open(cold));
  EXPECT_EQ(idx.uncovered_fragments(), 0u);
  for (int i = 0; i < 300; ++i) {
    const bool deleted = (i + 10) % 50 == 49;
    EXPECT_EQ(idx.Lookup("s" + std::to_string(i)).has_value(), !deleted) << i;
  }
}

TEST_F(TableWriterTest, IdIndexCoversUnindexedFragments) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(*v0_, BatchOf(v0_->schema(), Range(0, 10))));
  // Simulate a version without segments (e.g. written before the index existed).
  Manifest m = v1.manifest();
  m.indexes.clear();
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v2, StageManifest(v1, m));
  OG_ASSERT_OK_AND_ASSIGN(IdIndex idx, IdIndex::Open(v2));
  EXPECT_EQ(idx.uncovered_fragments(), 1u);
  EXPECT_EQ(idx.Lookup("k7"), MakeRowAddress(0, 7));
  // Upsert works against it.
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v3, UpsertRows(v2, BatchOf(v2.schema(), {R("k7", 70)})));
  EXPECT_EQ(v3.row_count(), 10u);
}

TEST_F(TableWriterTest, CompactionKeepsLogicalRows) {
  TableVersion v = *v0_;
  for (int i = 0; i < 10; ++i) {
    OG_ASSERT_OK_AND_ASSIGN(v, AppendRows(v, BatchOf(v.schema(), Range(i * 10, i * 10 + 10))));
  }
  OG_ASSERT_OK_AND_ASSIGN(v, DeleteWhere(v, Predicate::Lt("age", Value::I64(5))));
  EXPECT_EQ(v.manifest().fragments.size(), 10u);
  auto before = AllRows(v);
  CompactOptions co;
  co.target_rows_per_fragment = 40;
  co.small_fragment_rows = 20;
  OG_ASSERT_OK_AND_ASSIGN(CompactResult c, Compact(v, co));
  ASSERT_TRUE(c.changed);
  EXPECT_EQ(c.fragments_removed, 10u);
  EXPECT_EQ(c.fragments_written, 3u);  // 95 rows / 40
  EXPECT_EQ(c.version.manifest().operation.kind, "compact");
  EXPECT_EQ(c.version.row_count(), v.row_count());
  EXPECT_TRUE(SameRows(AllRows(c.version), before));
  for (const auto& f : c.version.manifest().fragments) EXPECT_EQ(f.deleted_rows, 0u);
  EXPECT_EQ(c.version.manifest().indexes.size(), 1u);
  OG_ASSERT_OK_AND_ASSIGN(IdIndex idx, IdIndex::Open(c.version));
  EXPECT_TRUE(idx.Lookup("k50").has_value());
  EXPECT_FALSE(idx.Lookup("k3").has_value());
  // Nothing to do the second time.
  OG_ASSERT_OK_AND_ASSIGN(CompactResult again, Compact(c.version, co));
  EXPECT_FALSE(again.changed);
  EXPECT_EQ(again.version.version_id(), c.version.version_id());
}

}  // namespace
}  // namespace omnigraph::table
