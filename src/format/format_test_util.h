// Test helpers for the format layer's unit tests: an every-type schema with tricky rows.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "format/batch.h"
#include "format/blob_descriptor.h"
#include "format/schema.h"
#include "omnigraph/value.h"

namespace omnigraph::format::testing {

inline Schema AllTypesSchema() {
  std::vector<Field> f = {
      {1, "s", DataType::Scalar(TypeKind::kString), true},     {2, "blob", DataType::Scalar(TypeKind::kBlob), true},
      {3, "b", DataType::Scalar(TypeKind::kBool), true},       {4, "i32", DataType::Scalar(TypeKind::kI32), true},
      {5, "i64", DataType::Scalar(TypeKind::kI64), true},      {6, "u32", DataType::Scalar(TypeKind::kU32), true},
      {7, "u64", DataType::Scalar(TypeKind::kU64), true},      {8, "f32", DataType::Scalar(TypeKind::kF32), true},
      {9, "f64", DataType::Scalar(TypeKind::kF64), true},      {10, "date", DataType::Scalar(TypeKind::kDate), true},
      {11, "dt", DataType::Scalar(TypeKind::kDateTime), true}, {12, "vec", DataType::Vector(3), true},
      {13, "tags", DataType::List(TypeKind::kString), true},   {14, "nums", DataType::List(TypeKind::kI64), true},
      {15, "id", DataType::Scalar(TypeKind::kString), false},
  };
  return *Schema::Make(std::move(f));
}

inline Value BlobCell(const std::string& file, uint64_t off, uint64_t len) {
  return Value::Blob(BlobDescriptor{file, off, len}.Encode());
}

// Row r of the every-type table: nulls, extremes, NaN, unicode, empty strings and lists.
inline std::vector<Value> AllTypesRow(size_t r) {
  auto null = [](TypeKind k) { return Value::Null(DataType::Scalar(k)); };
  bool n = r % 5 == 3;  // every fifth row is null everywhere nullable
  double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<Value> row;
  const char* strs[] = {"", "héllo wörld", "日本語テキスト", "🙂 emoji", "plain"};
  row.push_back(n ? null(TypeKind::kString) : Value::String(strs[r % 5] + std::to_string(r % 3)));
  row.push_back(n ? null(TypeKind::kBlob) : BlobCell("blob/01J.blob", 16 + r * 10, r));
  row.push_back(n ? null(TypeKind::kBool) : Value::Bool(r % 2 == 0));
  int32_t i32s[] = {std::numeric_limits<int32_t>::min(), -1, 0, std::numeric_limits<int32_t>::max()};
  row.push_back(n ? null(TypeKind::kI32) : Value::I32(i32s[r % 4]));
  int64_t i64s[] = {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), 0, -42, 7};
  row.push_back(n ? null(TypeKind::kI64) : Value::I64(i64s[r % 5] + (r % 5 >= 2 ? int64_t(r) : 0)));
  row.push_back(n ? null(TypeKind::kU32) : Value::U32(r % 2 ? std::numeric_limits<uint32_t>::max() : uint32_t(r)));
  row.push_back(n ? null(TypeKind::kU64) : Value::U64(r % 2 ? std::numeric_limits<uint64_t>::max() : uint64_t(r)));
  row.push_back(n ? null(TypeKind::kF32) : Value::F32(r % 7 == 1 ? std::nanf("") : float(r) * 0.5f - 3));
  row.push_back(n ? null(TypeKind::kF64)
                  : Value::F64(r % 7 == 2   ? nan
                               : r % 7 == 4 ? -0.0
                                            : double(r) / 3.0 - 1e300 * (r % 2)));
  row.push_back(n ? null(TypeKind::kDate) : Value::Date(static_cast<int32_t>(r) - 1000));
  row.push_back(n ? null(TypeKind::kDateTime) : Value::DateTime(int64_t(r) * 86'400'000 - 5));
  row.push_back(n ? Value::Null(DataType::Vector(3))
                  : Value::Vector({float(r), -float(r), r % 3 == 0 ? std::nanf("") : 1.5f}));
  if (n) {
    row.push_back(Value::Null(DataType::List(TypeKind::kString)));
    row.push_back(Value::Null(DataType::List(TypeKind::kI64)));
  } else {
    std::vector<Value> tags;
    for (size_t k = 0; k < r % 4; ++k) {
      tags.push_back(k == 1 ? Value::Null(DataType::Scalar(TypeKind::kString))
                            : Value::String("t" + std::to_string(k) + (k == 2 ? "ü" : "")));
    }
    row.push_back(Value::List(TypeKind::kString, tags));
    std::vector<Value> nums;
    for (size_t k = 0; k < (r * 7) % 5; ++k) nums.push_back(Value::I64(int64_t(k * r) - 3));
    row.push_back(Value::List(TypeKind::kI64, nums));
  }
  row.push_back(Value::String("id-" + std::to_string(r)));
  return row;
}

inline Batch AllTypesBatch(size_t rows) {
  std::vector<std::vector<Value>> data;
  for (size_t r = 0; r < rows; ++r) data.push_back(AllTypesRow(r));
  return *Batch::FromRows(AllTypesSchema(), data);
}

}  // namespace omnigraph::format::testing
