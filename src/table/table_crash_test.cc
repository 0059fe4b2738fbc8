// Crash consistency (docs/architecture.md, "Tables, fragments, manifests, versions"): every write
// path runs under FaultStore failing (or "crashing" before/after the request) at request k = 1..n;
// each failed attempt returns an error, and the previous version stays intact and readable with
// exactly its old contents.
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "common/error_codes.h"
#include "io/fault_store.h"
#include "io/memory_store.h"
#include "table/compaction.h"
#include "table/id_index.h"
#include "table/table_test_util.h"
#include "table/table_writer.h"

namespace omnigraph::table {
namespace {

using testing::AllRows;
using testing::BatchOf;
using testing::F;
using testing::Row;
using testing::SameRows;

TableSchema Schema() {
  auto s =
      TableSchema::Make({F("id", DataType::Scalar(TypeKind::kString), false),
                         F("age", DataType::Scalar(TypeKind::kI64)), F("note", DataType::Scalar(TypeKind::kString))},
                        "id");
  EXPECT_TRUE(s.ok());
  return *s;
}

std::vector<Row> Rows(int b, int e) {
  std::vector<Row> out;
  for (int i = b; i < e; ++i) {
    out.push_back({Value::String("k" + std::to_string(i)), Value::I64(i), Value::String(std::string(i % 5, 'x'))});
  }
  return out;
}

using WriteFn = std::function<Result<TableVersion>(const TableVersion&)>;

WriteOptions SmallFragments() {
  WriteOptions wo;
  wo.max_rows_per_fragment = 8;
  return wo;
}

class TableCrashTest : public ::testing::TestWithParam<io::FaultAction> {
 protected:
  void SetUp() override {
    base_ = std::make_shared<io::MemoryStore>();
    auto v = TableVersion::Create(*base_, "tables/c", Schema());
    ASSERT_TRUE(v.ok());
    auto v1 = AppendRows(*v, BatchOf(v->schema(), Rows(0, 30)), SmallFragments());
    ASSERT_TRUE(v1.ok());
    auto v2 = DeleteWhere(*v1, Predicate::In("age", {Value::I64(3), Value::I64(17)}));
    ASSERT_TRUE(v2.ok());
    prev_id_ = v2->version_id();
    before_ = AllRows(*v2);
  }

  // Runs `write` against the previous version under faults at k = 1, 2, ... until it succeeds
  // without a fault firing; returns the number of requests the write needed.
  void Sweep(const WriteFn& write) {
    for (uint64_t k = 1;; ++k) {
      ASSERT_LT(k, 500u) << "write never completed";
      io::FaultStore faults(base_);
      faults.FailAt(k, GetParam());
      auto prev = TableVersion::Open(faults, "tables/c", prev_id_);
      Result<TableVersion> out = prev.ok() ? write(*prev) : Result<TableVersion>(prev.status());
      if (!faults.fired()) {
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        SCOPED_TRACE("completed after " + std::to_string(k - 1) + " requests");
        // The staged version reads back from the base store.
        auto re = TableVersion::Open(*base_, "tables/c", out->version_id());
        ASSERT_TRUE(re.ok()) << re.status().ToString();
        after_ = AllRows(*re);
        ExpectPreviousIntact();
        return;
      }
      EXPECT_FALSE(out.ok()) << "a write that hit a fault at request " << k << " reported success";
      ExpectPreviousIntact();
    }
  }

  void ExpectPreviousIntact() {
    auto prev = TableVersion::Open(*base_, "tables/c", prev_id_);
    ASSERT_TRUE(prev.ok()) << prev.status().ToString();
    ASSERT_TRUE(SameRows(AllRows(*prev), before_));
    for (const std::string& k : prev->ReferencedKeys()) ASSERT_TRUE(base_->Head(k).ok()) << k;
    auto idx = IdIndex::Open(*prev);
    ASSERT_TRUE(idx.ok()) << idx.status().ToString();
    ASSERT_TRUE(idx->Lookup("k5").has_value());
  }

  std::shared_ptr<io::MemoryStore> base_;
  std::string prev_id_;
  std::vector<Row> before_;
  std::vector<Row> after_;
};

TEST_P(TableCrashTest, Append) {
  Sweep([](const TableVersion& v) { return AppendRows(v, BatchOf(v.schema(), Rows(100, 120)), SmallFragments()); });
  EXPECT_EQ(after_.size(), before_.size() + 20);
}

TEST_P(TableCrashTest, DeleteWhere) {
  Sweep([](const TableVersion& v) { return DeleteWhere(v, Predicate::Lt("age", Value::I64(20))); });
  EXPECT_EQ(after_.size(), 10u);
}

TEST_P(TableCrashTest, Upsert) {
  Sweep([](const TableVersion& v) { return UpsertRows(v, BatchOf(v.schema(), Rows(25, 40)), SmallFragments()); });
  EXPECT_EQ(after_.size(), 28u + 10u);
}

TEST_P(TableCrashTest, Overwrite) {
  Sweep([](const TableVersion& v) { return Overwrite(v, BatchOf(v.schema(), Rows(7, 9))); });
  EXPECT_EQ(after_.size(), 2u);
}

TEST_P(TableCrashTest, Compact) {
  Sweep([](const TableVersion& v) -> Result<TableVersion> {
    CompactOptions co;
    co.target_rows_per_fragment = 16;
    co.small_fragment_rows = 100;
    OG_ASSIGN_OR_RETURN(CompactResult c, Compact(v, co));
    if (!c.changed) return InternalError("expected a compaction");
    return c.version;
  });
  EXPECT_TRUE(SameRows(after_, before_));
}

TEST_P(TableCrashTest, AddColumnAndCombinedWrite) {
  Sweep([](const TableVersion& v) { return AddColumn(v, "extra", DataType::Scalar(TypeKind::kBool)); });
  Sweep([](const TableVersion& v) -> Result<TableVersion> {
    TableWriter w(v, SmallFragments());
    OG_RETURN_IF_ERROR(w.Append(BatchOf(v.schema(), Rows(50, 60))));
    OG_RETURN_IF_ERROR(w.DeleteWhere(Predicate::StartsWith("note", "xxx")));
    OG_RETURN_IF_ERROR(w.Upsert(BatchOf(v.schema(), Rows(0, 2))));
    return w.Commit();
  });
  EXPECT_EQ(after_.size(), 28u + 10u - 15u);  // 11 old and 4 new notes start with "xxx"
}

INSTANTIATE_TEST_SUITE_P(Actions, TableCrashTest,
                         ::testing::Values(io::FaultAction::kFail, io::FaultAction::kCrashBefore,
                                           io::FaultAction::kCrashAfter),
                         [](const auto& info) {
                           switch (info.param) {
                             case io::FaultAction::kFail: return std::string("Fail");
                             case io::FaultAction::kCrashBefore: return std::string("CrashBefore");
                             default: return std::string("CrashAfter");
                           }
                         });

}  // namespace
}  // namespace omnigraph::table
