// Tests of TableVersion: create/open, round trip of every type through append + scan, projection,
// row addresses, take, blobs, schema evolution, reachability, open-is-one-Get.
#include "table/table_version.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>

#include "common/error_codes.h"
#include "common/ulid.h"
#include "io/counting_store.h"
#include "io/memory_store.h"
#include "table/scanner.h"
#include "table/table_layout.h"
#include "table/table_test_util.h"
#include "table/table_writer.h"

namespace omnigraph::table {
namespace {

using testing::AllRows;
using testing::BatchOf;
using testing::F;
using testing::Row;
using testing::RowsToString;
using testing::SameRows;
using testing::Sorted;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr float kNanF = std::numeric_limits<float>::quiet_NaN();

TableSchema EveryTypeSchema() {
  auto s = TableSchema::Make({F("id", DataType::Scalar(TypeKind::kString), false),
                              F("s", DataType::Scalar(TypeKind::kString)), F("blob", DataType::Scalar(TypeKind::kBlob)),
                              F("b", DataType::Scalar(TypeKind::kBool)), F("i32", DataType::Scalar(TypeKind::kI32)),
                              F("i64", DataType::Scalar(TypeKind::kI64)), F("u32", DataType::Scalar(TypeKind::kU32)),
                              F("u64", DataType::Scalar(TypeKind::kU64)), F("f32", DataType::Scalar(TypeKind::kF32)),
                              F("f64", DataType::Scalar(TypeKind::kF64)), F("date", DataType::Scalar(TypeKind::kDate)),
                              F("dt", DataType::Scalar(TypeKind::kDateTime)), F("vec", DataType::Vector(3)),
                              F("li", DataType::List(TypeKind::kI64)), F("ls", DataType::List(TypeKind::kString))},
                             "id");
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return *s;
}

std::vector<Row> EveryTypeRows(const std::vector<format::BlobDescriptor>& blobs) {
  std::vector<Row> rows;
  rows.push_back(
      {Value::String("a"), Value::String(""), Value::Blob(blobs[0].Encode()), Value::Bool(true), Value::I32(INT32_MIN),
       Value::I64(INT64_MIN), Value::U32(0), Value::U64(0), Value::F32(-0.0f), Value::F64(kNan), Value::Date(-719162),
       Value::DateTime(INT64_MIN), Value::Vector({1.5f, -2.0f, 0.0f}), Value::List(TypeKind::kI64, {}),
       Value::List(TypeKind::kString, {Value::String("x"), Value::Null(DataType::Scalar(TypeKind::kString))})});
  rows.push_back({Value::String("b\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"),
                  Value::String("h\xc3\xa9llo \xe4\xb8\x96\xe7\x95\x8c"), Value::Blob(blobs[1].Encode()),
                  Value::Bool(false), Value::I32(INT32_MAX), Value::I64(INT64_MAX), Value::U32(UINT32_MAX),
                  Value::U64(UINT64_MAX), Value::F32(std::numeric_limits<float>::infinity()), Value::F64(-1e308),
                  Value::Date(2932896), Value::DateTime(INT64_MAX), Value::Vector({kNanF, 1e30f, -1e-30f}),
                  Value::List(TypeKind::kI64, {Value::I64(1), Value::I64(-1), Value::I64(INT64_MAX)}),
                  Value::List(TypeKind::kString, {})});
  Row nulls;
  nulls.push_back(Value::String("c"));
  TableSchema s = EveryTypeSchema();
  for (size_t i = 1; i < s.fields.size(); ++i) nulls.push_back(Value::Null(s.fields[i].type));
  rows.push_back(nulls);
  return rows;
}

TableSchema SimpleSchema() {
  auto s =
      TableSchema::Make({F("id", DataType::Scalar(TypeKind::kString), false),
                         F("age", DataType::Scalar(TypeKind::kI64)), F("name", DataType::Scalar(TypeKind::kString))},
                        "id");
  EXPECT_TRUE(s.ok());
  return *s;
}

std::vector<Row> SimpleRows(int begin, int end) {
  std::vector<Row> rows;
  for (int i = begin; i < end; ++i) {
    rows.push_back(
        {Value::String("id" + std::to_string(i)), Value::I64(i),
         i % 7 == 0 ? Value::Null(DataType::Scalar(TypeKind::kString)) : Value::String("n" + std::to_string(i % 10))});
  }
  return rows;
}

class TableVersionTest : public ::testing::Test {
 protected:
  io::MemoryStore store_;
};

TEST_F(TableVersionTest, CreateThenOpenEmpty) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v, TableVersion::Create(store_, "tables/t1", SimpleSchema()));
  EXPECT_EQ(v.row_count(), 0u);
  EXPECT_EQ(v.manifest().operation.kind, "create");
  EXPECT_EQ(v.manifest().sequence, 1u);
  OG_ASSERT_OK_AND_ASSIGN(TableVersion o, TableVersion::Open(store_, "tables/t1", v.version_id()));
  EXPECT_EQ(o.schema(), v.schema());
  EXPECT_TRUE(AllRows(o).empty());
  OG_ASSERT_OK_AND_ASSIGN(format::Batch b, o.ScanAll({}));
  EXPECT_EQ(b.num_rows(), 0u);
  EXPECT_EQ(b.num_columns(), 3u);
}

TEST_F(TableVersionTest, OpenErrors) {
  auto missing = TableVersion::Open(store_, "tables/t1", NewUlidString());
  EXPECT_EQ(missing.status().category(), StatusCode::kNotFound);
  auto bad = TableVersion::Open(store_, "tables/t1", "not-a-ulid");
  EXPECT_EQ(bad.status().category(), StatusCode::kInvalidArgument);
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v, TableVersion::Create(store_, "tables/t1", SimpleSchema()));
  // A manifest stored under another version's name is corrupt.
  std::string other = NewUlidString();
  OG_ASSERT_OK(store_.Put("tables/t1/versions/" + other, *store_.Get("tables/t1/versions/" + v.version_id())));
  EXPECT_EQ(TableVersion::Open(store_, "tables/t1", other).status().category(), StatusCode::kCorrupt);
  OG_ASSERT_OK(store_.Put("tables/t1/versions/" + other, "garbage"));
  EXPECT_EQ(TableVersion::Open(store_, "tables/t1", other).status().category(), StatusCode::kCorrupt);
}

TEST_F(TableVersionTest, RoundTripEveryType) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v0, TableVersion::Create(store_, "tables/all", EveryTypeSchema()));
  std::vector<std::string> payloads = {"", std::string(1000, '\0') + "tail"};
  OG_ASSERT_OK_AND_ASSIGN(auto blobs, v0.WriteBlobs(payloads));
  std::vector<Row> rows = EveryTypeRows(blobs);
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(v0, BatchOf(v0.schema(), rows)));
  EXPECT_EQ(v1.row_count(), 3u);
  OG_ASSERT_OK_AND_ASSIGN(TableVersion re, TableVersion::Open(store_, "tables/all", v1.version_id()));
  std::vector<Row> got = AllRows(re);
  EXPECT_TRUE(SameRows(got, Sorted(rows))) << RowsToString(got) << "vs\n" << RowsToString(Sorted(rows));
  // Blob payloads come back through their descriptors.
  ScanOptions o;
  o.columns = std::vector<std::string>{"id", "blob"};
  OG_ASSERT_OK_AND_ASSIGN(format::Batch b, re.ScanAll(o));
  ASSERT_EQ(b.num_rows(), 3u);
  for (size_t i = 0; i < b.num_rows(); ++i) {
    if (b.column(1).IsNull(i)) continue;
    OG_ASSERT_OK_AND_ASSIGN(format::BlobDescriptor d, b.column(1).blob_at(i));
    OG_ASSERT_OK_AND_ASSIGN(std::string payload, re.ReadBlob(d));
    EXPECT_EQ(payload, b.column(0).string_at(i) == "a" ? payloads[0] : payloads[1]);
  }
  // Reachability includes the blob file.
  auto keys = re.ReferencedKeys();
  EXPECT_TRUE(std::any_of(keys.begin(), keys.end(),
                          [](const std::string& k) { return k.find("/blob/") != std::string::npos; }));
}

TEST_F(TableVersionTest, ZeroAndOneRowTables) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v0, TableVersion::Create(store_, "tables/z", SimpleSchema()));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(v0, BatchOf(v0.schema(), {})));
  EXPECT_EQ(v1.row_count(), 0u);
  EXPECT_TRUE(v1.manifest().fragments.empty());
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v2, AppendRows(v1, BatchOf(v0.schema(), SimpleRows(0, 1))));
  EXPECT_TRUE(SameRows(AllRows(v2), SimpleRows(0, 1)));
  EXPECT_EQ(v2.manifest().parent_version_id, v1.version_id());
  EXPECT_EQ(v2.manifest().sequence, 3u);
}

TEST_F(TableVersionTest, AppendRejectsBadBatches) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v0, TableVersion::Create(store_, "tables/t", SimpleSchema()));
  auto extra = format::Schema::Make({Field{1, "id", DataType::Scalar(TypeKind::kString), false},
                                     Field{2, "bogus", DataType::Scalar(TypeKind::kI64), true}});
  ASSERT_TRUE(extra.ok());
  auto b = format::Batch::FromRows(*extra, {{Value::String("x"), Value::I64(1)}});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(AppendRows(v0, *b).status().category(), StatusCode::kInvalidArgument);
  auto wrong_type = format::Schema::Make({Field{1, "id", DataType::Scalar(TypeKind::kString), false},
                                          Field{2, "age", DataType::Scalar(TypeKind::kI32), true}});
  auto b2 = format::Batch::FromRows(*wrong_type, {{Value::String("x"), Value::I32(1)}});
  EXPECT_EQ(AppendRows(v0, *b2).status().category(), StatusCode::kInvalidArgument);
  auto no_id = format::Schema::Make({Field{2, "age", DataType::Scalar(TypeKind::kI64), true}});
  auto b3 = format::Batch::FromRows(*no_id, {{Value::I64(1)}});
  EXPECT_EQ(AppendRows(v0, *b3).status().category(), StatusCode::kInvalidArgument);
  // Missing nullable columns are filled with nulls.
  auto only_id = format::Schema::Make({Field{9, "id", DataType::Scalar(TypeKind::kString), false}});
  auto b4 = format::Batch::FromRows(*only_id, {{Value::String("x")}});
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(v0, *b4));
  auto rows = AllRows(v1);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0][1].is_null());
  EXPECT_TRUE(rows[0][2].is_null());
}

TEST_F(TableVersionTest, ProjectionRowAddressAndTake) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v0, TableVersion::Create(store_, "tables/t", SimpleSchema()));
  WriteOptions wo;
  wo.max_rows_per_fragment = 40;
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(v0, BatchOf(v0.schema(), SimpleRows(0, 100)), wo));
  EXPECT_EQ(v1.manifest().fragments.size(), 3u);
  ScanOptions o;
  o.columns = std::vector<std::string>{"name", "id"};
  o.with_row_address = true;
  o.batch_rows = 16;
  OG_ASSERT_OK_AND_ASSIGN(format::Batch b, v1.ScanAll(o));
  ASSERT_EQ(b.num_rows(), 100u);
  ASSERT_EQ(b.num_columns(), 3u);
  EXPECT_EQ(b.schema().field(0).name, "name");
  EXPECT_EQ(b.schema().field(2).name, std::string(kRowAddressColumn));
  auto addrs = b.column(2).u64_values();
  // Row i lives in fragment i / 40 at offset i % 40.
  for (size_t i = 0; i < 100; ++i) {
    EXPECT_EQ(b.column(1).string_at(i), "id" + std::to_string(i));
    EXPECT_EQ(addrs[i], MakeRowAddress(static_cast<uint32_t>(i / 40), static_cast<uint32_t>(i % 40)));
  }
  std::vector<uint64_t> want = {addrs[99], addrs[0], addrs[41], addrs[41]};
  OG_ASSERT_OK_AND_ASSIGN(format::Batch t, v1.Take(want, std::vector<std::string>{"id", "age"}));
  ASSERT_EQ(t.num_rows(), 4u);
  EXPECT_EQ(t.column(0).string_at(0), "id99");
  EXPECT_EQ(t.column(0).string_at(1), "id0");
  EXPECT_EQ(t.column(1).i64_values()[2], 41);
  EXPECT_EQ(t.column(1).i64_values()[3], 41);
  // Deleted rows cannot be taken.
  uint64_t del[] = {addrs[41]};
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v2, DeleteRows(v1, del));
  EXPECT_EQ(v2.Take(del).status().category(), StatusCode::kNotFound);
  uint64_t bogus[] = {MakeRowAddress(77, 0)};
  EXPECT_EQ(v2.Take(bogus).status().category(), StatusCode::kNotFound);
  // A scan restricted to some fragments.
  ScanOptions part;
  part.fragment_ids = std::vector<uint32_t>{2, 0};
  OG_ASSERT_OK_AND_ASSIGN(format::Batch pb, v2.ScanAll(part));
  EXPECT_EQ(pb.num_rows(), 40u + 20u);
  part.fragment_ids = std::vector<uint32_t>{9};
  EXPECT_EQ(v2.Scan(part).status().category(), StatusCode::kInvalidArgument);
  // Unknown projection column.
  ScanOptions bad;
  bad.columns = std::vector<std::string>{"nope"};
  EXPECT_EQ(v2.Scan(bad).status().category(), StatusCode::kInvalidArgument);
  // Empty projection: rows without columns.
  ScanOptions none;
  none.columns = std::vector<std::string>{};
  none.batch_rows = 7;
  OG_ASSERT_OK_AND_ASSIGN(format::Batch nb, v2.ScanAll(none));
  EXPECT_EQ(nb.num_rows(), 99u);
  EXPECT_EQ(nb.num_columns(), 0u);
  OG_ASSERT_OK_AND_ASSIGN(uint64_t n, v2.CountRows(Predicate::Lt("age", Value::I64(50))));
  EXPECT_EQ(n, 49u);
}

TEST_F(TableVersionTest, SchemaEvolutionIsMetadataOnly) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v0, TableVersion::Create(store_, "tables/t", SimpleSchema()));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(v0, BatchOf(v0.schema(), SimpleRows(0, 5))));
  const size_t objects = store_.object_count();
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v2, AddColumn(v1, "score", DataType::Scalar(TypeKind::kF64)));
  EXPECT_EQ(store_.object_count(), objects + 1);  // only the manifest
  EXPECT_EQ(v2.manifest().fragments.size(), v1.manifest().fragments.size());
  EXPECT_EQ(v2.manifest().fragments[0].file_key, v1.manifest().fragments[0].file_key);
  for (const Row& r : AllRows(v2)) EXPECT_TRUE(r[3].is_null());
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v3, RenameColumn(v2, "age", "years"));
  EXPECT_EQ(v3.schema().FindByName("years")->id, v1.schema().FindByName("age")->id);
  OG_ASSERT_OK_AND_ASSIGN(uint64_t n, v3.CountRows(Predicate::Ge("years", Value::I64(3))));
  EXPECT_EQ(n, 2u);
  // New rows carry the new column; old rows still read it as null.
  auto more = BatchOf(v3.schema(), {{Value::String("new"), Value::I64(9), Value::String("x"), Value::F64(2.5)}});
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v4, AppendRows(v3, more));
  OG_ASSERT_OK_AND_ASSIGN(uint64_t scored, v4.CountRows(Predicate::IsNotNull("score")));
  EXPECT_EQ(scored, 1u);
  OG_ASSERT_OK_AND_ASSIGN(uint64_t unscored, v4.CountRows(Predicate::IsNull("score")));
  EXPECT_EQ(unscored, 5u);
  // Drop then re-add under the same name: a new id, old values do not come back.
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v5, DropColumn(v4, "score"));
  EXPECT_EQ(v5.schema().FindByName("score"), nullptr);
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v6, AddColumn(v5, "score", DataType::Scalar(TypeKind::kF64)));
  OG_ASSERT_OK_AND_ASSIGN(uint64_t again, v6.CountRows(Predicate::IsNotNull("score")));
  EXPECT_EQ(again, 0u);
  // An explicit (catalog) id: must be fresh.
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v7, AddColumn(v6, "cat", DataType::Scalar(TypeKind::kBool), 40));
  EXPECT_EQ(v7.schema().FindByName("cat")->id, 40u);
  EXPECT_EQ(v7.schema().next_field_id, 41u);
  EXPECT_EQ(AddColumn(v7, "cat2", DataType::Scalar(TypeKind::kBool), 40).status().category(),
            StatusCode::kInvalidArgument);
  EXPECT_GT(v7.DataBytes(), 0u);
  // Errors.
  EXPECT_EQ(DropColumn(v6, "id").status().category(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RenameColumn(v6, "years", "name").status().category(), StatusCode::kInvalidArgument);
  EXPECT_EQ(AddColumn(v6, "name", DataType::Scalar(TypeKind::kI64)).status().category(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RenameColumn(v6, "missing", "x").status().category(), StatusCode::kInvalidArgument);
  // Old versions are untouched.
  OG_ASSERT_OK_AND_ASSIGN(TableVersion old, TableVersion::Open(store_, "tables/t", v1.version_id()));
  EXPECT_EQ(old.schema().fields.size(), 3u);
  EXPECT_EQ(old.schema().FindByName("age")->name, "age");
}

TEST_F(TableVersionTest, OpenIsOneGetWhateverTheHistory) {
  auto base = std::make_shared<io::MemoryStore>();
  io::CountingStore counting(base);
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v, TableVersion::Create(*base, "tables/t", SimpleSchema()));
  for (int i = 0; i < 60; ++i) {
    OG_ASSERT_OK_AND_ASSIGN(v, AppendRows(v, BatchOf(v.schema(), SimpleRows(i * 3, i * 3 + 3))));
    if (i % 10 == 0) {
      OG_ASSERT_OK_AND_ASSIGN(v, DeleteWhere(v, Predicate::Eq("age", Value::I64(i * 3))));
    }
  }
  counting.Reset();
  OG_ASSERT_OK_AND_ASSIGN(TableVersion o, TableVersion::Open(counting, "tables/t", v.version_id()));
  EXPECT_EQ(counting.counts().total(), 1u) << counting.counts().ToString();
  EXPECT_EQ(counting.counts().of(io::StoreOp::kGet), 1u);
  EXPECT_EQ(o.row_count(), 180u - 6u);
}

TEST_F(TableVersionTest, SharedCacheOutlivesAShortLivedStore) {
  auto base = std::make_shared<io::MemoryStore>();
  auto cache = std::make_shared<TableCache>();
  std::string id;
  {
    OG_ASSERT_OK_AND_ASSIGN(TableVersion v0, TableVersion::Create(*base, "tables/t", SimpleSchema()));
    OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(v0, BatchOf(v0.schema(), SimpleRows(0, 9))));
    OG_ASSERT_OK_AND_ASSIGN(TableVersion v2, DeleteWhere(v1, Predicate::Lt("age", Value::I64(2))));
    id = v2.version_id();
    auto wrapper = std::make_unique<io::CountingStore>(base);
    OG_ASSERT_OK_AND_ASSIGN(TableVersion through, TableVersion::Open(*wrapper, "tables/t", id, cache));
    EXPECT_EQ(AllRows(through).size(), 7u);  // fills the shared cache through `wrapper`
  }                                          // wrapper destroyed
  io::CountingStore counting(base);
  OG_ASSERT_OK_AND_ASSIGN(TableVersion again, TableVersion::Open(counting, "tables/t", id, cache));
  counting.Reset();
  EXPECT_EQ(AllRows(again).size(), 7u);
  EXPECT_EQ(counting.counts().of(io::StoreOp::kGet), 0u);       // the deletion vector came from the cache
  EXPECT_GT(counting.counts().of(io::StoreOp::kGetRange), 0u);  // readers are bound to their store
}

TEST_F(TableVersionTest, ReferencedKeysCoverEverythingWritten) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v0, TableVersion::Create(store_, "tables/t", SimpleSchema()));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(v0, BatchOf(v0.schema(), SimpleRows(0, 10))));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v2, DeleteWhere(v1, Predicate::Lt("age", Value::I64(3))));
  auto keys = v2.ReferencedKeys();
  // Every object but the older manifests is referenced by v2.
  auto all = store_.List("tables/t/");
  ASSERT_TRUE(all.ok());
  size_t unreferenced = 0;
  for (const auto& meta : *all) {
    if (!std::binary_search(keys.begin(), keys.end(), meta.key)) ++unreferenced;
  }
  EXPECT_EQ(unreferenced, 2u);  // versions v0 and v1
  for (const std::string& k : keys) EXPECT_TRUE(store_.Head(k).ok()) << k;
}

}  // namespace
}  // namespace omnigraph::table
