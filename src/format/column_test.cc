#include "format/column.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/error_codes.h"
#include "format/batch.h"
#include "format/column_builder.h"
#include "format/format_test_util.h"

namespace omnigraph::format {
namespace {

TEST(ColumnTest, EveryTypeRoundTripsThroughValues) {
  Schema schema = testing::AllTypesSchema();
  for (size_t c = 0; c < schema.num_fields(); ++c) {
    std::vector<Value> values;
    for (size_t r = 0; r < 23; ++r) values.push_back(testing::AllTypesRow(r)[c]);
    auto col = Column::FromValues(schema.field(c).type, values);
    ASSERT_TRUE(col.ok()) << schema.field(c).name << ": " << col.status().ToString();
    ASSERT_EQ(col->length(), values.size());
    for (size_t r = 0; r < values.size(); ++r) {
      Value got = col->GetValue(r);
      EXPECT_EQ(got.is_null(), values[r].is_null()) << schema.field(c).name << " row " << r;
      EXPECT_EQ(got.ToString(), values[r].ToString()) << schema.field(c).name << " row " << r;
      EXPECT_TRUE(got.type() == schema.field(c).type) << schema.field(c).name;
    }
    EXPECT_EQ(col->null_count(), c + 1 == schema.num_fields() ? 0u : 4u) << schema.field(c).name;
  }
}

TEST(ColumnTest, TypedAccessAndExtremes) {
  ColumnBuilder b(DataType::Scalar(TypeKind::kI64));
  b.AppendI64(std::numeric_limits<int64_t>::min());
  b.AppendNull();
  b.AppendI64(std::numeric_limits<int64_t>::max());
  Column c = b.Finish();
  ASSERT_EQ(c.length(), 3u);
  EXPECT_EQ(c.i64_values()[0], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(c.i64_values()[1], 0);  // null slot holds 0
  EXPECT_TRUE(c.IsNull(1));
  EXPECT_EQ(c.i64_values()[2], std::numeric_limits<int64_t>::max());

  ColumnBuilder u(DataType::Scalar(TypeKind::kU64));
  ASSERT_TRUE(u.Append(Value::U64(std::numeric_limits<uint64_t>::max())).ok());
  EXPECT_EQ(u.Finish().u64_values()[0], std::numeric_limits<uint64_t>::max());

  ColumnBuilder s(DataType::Scalar(TypeKind::kString));
  s.AppendString("");
  s.AppendString("ünï");
  s.AppendNull();
  Column sc = s.Finish();
  EXPECT_EQ(sc.string_at(0), "");
  EXPECT_EQ(sc.string_at(1), "ünï");
  EXPECT_EQ(sc.string_at(2), "");
  EXPECT_EQ(sc.offsets().size(), 4u);
}

TEST(ColumnTest, AppendRejectsMismatchedValues) {
  ColumnBuilder b(DataType::Scalar(TypeKind::kI32));
  EXPECT_EQ(b.Append(Value::I64(int64_t{1} << 40)).category(), StatusCode::kInvalidArgument);
  EXPECT_EQ(b.Append(Value::String("x")).category(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(b.Append(Value::I64(5)).ok());
  EXPECT_EQ(b.length(), 1u);
  ColumnBuilder u(DataType::Scalar(TypeKind::kU32));
  EXPECT_FALSE(u.Append(Value::I64(-1)).ok());
  ColumnBuilder v(DataType::Vector(2));
  EXPECT_FALSE(v.Append(Value::Vector({1, 2, 3})).ok());
  EXPECT_TRUE(v.Append(Value::Vector({1, 2})).ok());
  ColumnBuilder l(DataType::List(TypeKind::kI64));
  EXPECT_FALSE(l.Append(Value::List(TypeKind::kString, {Value::String("a")})).ok());
  EXPECT_EQ(l.length(), 0u);
  ColumnBuilder blob(DataType::Scalar(TypeKind::kBlob));
  EXPECT_FALSE(blob.Append(Value::Blob("short")).ok());
  EXPECT_TRUE(blob.Append(testing::BlobCell("f", 1, 2)).ok());
  auto d = blob.Finish().blob_at(0);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, (BlobDescriptor{"f", 1, 2}));
}

TEST(ColumnTest, SliceTakeFilterConcat) {
  Batch all = testing::AllTypesBatch(40);
  for (const Column& c : all.columns()) {
    Column s = c.Slice(7, 20);
    ASSERT_EQ(s.length(), 20u);
    for (size_t i = 0; i < 20; ++i) EXPECT_EQ(s.GetValue(i).ToString(), c.GetValue(7 + i).ToString());
    Column ss = s.Slice(3, 5);
    for (size_t i = 0; i < 5; ++i) EXPECT_EQ(ss.GetValue(i).ToString(), c.GetValue(10 + i).ToString());
    std::vector<uint64_t> idx = {39, 0, 3, 3, 17};
    Column t = c.Take(idx);
    for (size_t i = 0; i < idx.size(); ++i) EXPECT_EQ(t.GetValue(i).ToString(), c.GetValue(idx[i]).ToString());
    std::vector<Column> parts = {c.Slice(0, 13), c.Slice(13, 0), c.Slice(13, 27)};
    auto cat = Column::Concat(parts);
    ASSERT_TRUE(cat.ok());
    EXPECT_TRUE(cat->Equals(c)) << c.type().ToString();
    std::vector<uint8_t> keep(40);
    for (size_t i = 0; i < 40; ++i) keep[i] = i % 3 == 0;
    Column f = c.Filter(keep);
    ASSERT_EQ(f.length(), 14u);
    EXPECT_EQ(f.GetValue(2).ToString(), c.GetValue(6).ToString());
  }
  EXPECT_FALSE(Column::Concat(std::vector<Column>{Column::FromI64({1}), Column::FromU64({1})}).ok());
}

TEST(ColumnTest, EqualsDistinguishesValuesAndNulls) {
  Column a = Column::FromF64({1.0, std::nan(""), -0.0});
  Column b = Column::FromF64({1.0, std::nan(""), -0.0});
  Column c = Column::FromF64({1.0, std::nan(""), 0.0});
  EXPECT_TRUE(a.Equals(b));
  EXPECT_FALSE(a.Equals(c));
  EXPECT_FALSE(Column::Nulls(DataType::Scalar(TypeKind::kF64), 3).Equals(a));
  EXPECT_EQ(Column::Nulls(DataType::Vector(4), 5).null_count(), 5u);
}

TEST(BatchTest, MakeValidatesAndSelects) {
  Schema s = *Schema::Make(
      {{1, "a", DataType::Scalar(TypeKind::kI64), false}, {2, "b", DataType::Scalar(TypeKind::kString), true}});
  EXPECT_FALSE(Batch::Make(s, {Column::FromI64({1, 2})}).ok());
  EXPECT_FALSE(Batch::Make(s, {Column::FromI64({1, 2}), Column::FromStrings({"x"})}).ok());
  EXPECT_FALSE(Batch::Make(s, {Column::FromU64({1}), Column::FromStrings({"x"})}).ok());
  EXPECT_FALSE(Batch::Make(s, {Column::Nulls(DataType::Scalar(TypeKind::kI64), 1), Column::FromStrings({"x"})}).ok());
  auto b = Batch::Make(s, {Column::FromI64({1, 2}), Column::FromStrings({"x", "y"})});
  ASSERT_TRUE(b.ok());
  std::vector<FieldId> ids = {2};
  auto sel = b->Select(ids);
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ(sel->num_columns(), 1u);
  EXPECT_EQ(sel->GetValue(1, 0).string_value(), "y");
  std::vector<FieldId> missing = {9};
  EXPECT_EQ(b->Select(missing).status().category(), StatusCode::kNotFound);
  EXPECT_EQ(b->Slice(1, 1).GetRow(0)[0].int_value(), 2);
  auto added = b->AddColumn({3, "c", DataType::Scalar(TypeKind::kF64), true}, Column::FromF64({1, 2}));
  ASSERT_TRUE(added.ok());
  EXPECT_EQ(added->num_columns(), 3u);
  EXPECT_FALSE(b->AddColumn({1, "dup", DataType::Scalar(TypeKind::kF64), true}, Column::FromF64({1, 2})).ok());
  std::vector<Batch> two = {*b, b->Slice(0, 1)};
  auto cat = Batch::Concat(two);
  ASSERT_TRUE(cat.ok());
  EXPECT_EQ(cat->num_rows(), 3u);
  EXPECT_FALSE(Schema::Make({{1, "a", DataType::Vector(0), true}}).ok());
  EXPECT_FALSE(Schema::Make({{1, "a", DataType::List(TypeKind::kList), true}}).ok());
  EXPECT_FALSE(Schema::Make({{1, "a", DataType{}, true}, {1, "b", DataType{}, true}}).ok());
}

TEST(BatchTest, FromRowsReportsRowAndField) {
  Schema s = *Schema::Make({{1, "a", DataType::Scalar(TypeKind::kI64), true}});
  auto b = Batch::FromRows(s, {{Value::I64(1)}, {Value::String("x")}});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("row 1"), std::string::npos) << b.status().message();
  Batch ok = testing::AllTypesBatch(10);
  EXPECT_EQ(ok.num_rows(), 10u);
  EXPECT_EQ(ok.ToRows().size(), 10u);
  EXPECT_EQ(Batch::NoColumns(7).num_rows(), 7u);
}

}  // namespace
}  // namespace omnigraph::format
