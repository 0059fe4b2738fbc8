// In-memory column vectors (docs/architecture.md, "Tables, fragments, manifests, versions"): one
// immutable, nullable column of any DataType with shared buffers, so copies and slices are O(1).
// Build with ColumnBuilder (format/column_builder.h); group into batches with format/batch.h
// (schema in format/schema.h). Layout: fixed-width values in typed arrays (null slots hold 0),
// strings/blobs/lists as offsets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/blob_descriptor.h"
#include "omnigraph/result.h"
#include "omnigraph/value.h"

namespace omnigraph::format {

namespace internal {
struct ColumnData;  // the shared, immutable buffers (column.cc)
}  // namespace internal

// Physical layout per TypeKind:
//   kBool                 bool_values(): one byte per row, 0 or 1
//   kI32, kDate           i32_values()
//   kI64, kDateTime       i64_values()
//   kU32 / kU64           u32_values() / u64_values()
//   kF32 / kF64           f32_values() / f64_values()
//   kVector(n)            f32_values(): length()*n floats, row i at [i*n, (i+1)*n); vector_at(i)
//   kString, kBlob        offsets(): length()+1 byte offsets into string_data(); string_at(i).
//                         A Blob cell is an encoded BlobDescriptor (blob_at(i)).
//   kList(elem)           offsets(): length()+1 element indices into list_elements(), a column
//                         of type `elem` (elements may be null); list_at(i).
// Null rows hold 0 / empty values. Spans and views stay valid while any Column sharing the buffers
// lives. Immutable after construction: safe to share and read from many threads.
class Column {
 public:
  // An empty (0-row) String column.
  Column();
  // An empty column of `type`. Precondition (here, in Nulls and in ColumnBuilder): `type` passes
  // ValidateDataType (format/schema.h); every Field of a Schema does.
  explicit Column(const DataType& type);

  const DataType& type() const;
  size_t length() const { return length_; }
  size_t null_count() const { return null_count_; }
  bool has_nulls() const { return null_count_ != 0; }
  // Precondition: i < length().
  bool IsValid(size_t i) const;
  bool IsNull(size_t i) const { return !IsValid(i); }

  // Typed views (see the layout table). Precondition: the physical type matches (checked in debug).
  std::span<const uint8_t> bool_values() const;
  std::span<const int32_t> i32_values() const;
  std::span<const int64_t> i64_values() const;
  std::span<const uint32_t> u32_values() const;
  std::span<const uint64_t> u64_values() const;
  std::span<const float> f32_values() const;
  std::span<const double> f64_values() const;
  std::span<const float> vector_at(size_t i) const;  // kVector
  std::span<const uint64_t> offsets() const;         // kString, kBlob, kList: length()+1 entries
  std::string_view string_data() const;              // kString, kBlob: all bytes offsets() index
  // kString, kBlob ("" for null). Inline: the hot loop of every string scan and index build.
  std::string_view string_at(size_t i) const {
    return std::string_view(bytes_ + string_offsets_[i], string_offsets_[i + 1] - string_offsets_[i]);
  }
  const Column& list_elements() const;  // kList
  Column list_at(size_t i) const;       // kList: elements of row i (a slice)
  // kBlob: the decoded descriptor of row i; Corrupt if the cell is not a descriptor.
  Result<BlobDescriptor> blob_at(size_t i) const;

  // Row i as a Value of type(): Value::Null(type()) for null rows; a Blob cell becomes
  // Value::Blob(<encoded descriptor bytes>). Precondition: i < length().
  Value GetValue(size_t i) const;
  std::vector<Value> ToValues() const;

  // Rows [offset, offset + length): O(1) plus a popcount of the validity range. Precondition:
  // offset + length <= length().
  Column Slice(size_t offset, size_t length) const;
  // Rows at `indices` (any order, repeats allowed), copied. Precondition: every index < length().
  Column Take(std::span<const uint64_t> indices) const;
  // Rows where keep[i] != 0; precondition keep.size() == length().
  Column Filter(std::span<const uint8_t> keep) const;

  // Logical equality: same type, length, nulls and values (floats compared bitwise, so NaN == NaN).
  bool Equals(const Column& other) const;

  // All columns must have the same type (InvalidArgument otherwise). Zero columns: InvalidArgument.
  static Result<Column> Concat(std::span<const Column> columns);
  // InvalidArgument if a non-null value does not match `type` (see ColumnBuilder::Append).
  static Result<Column> FromValues(const DataType& type, std::span<const Value> values);
  // `length` nulls of `type` (e.g. a column added after a fragment was written).
  static Column Nulls(const DataType& type, size_t length);
  // Non-null columns taking ownership of the values.
  static Column FromI64(std::vector<int64_t> values);
  static Column FromU64(std::vector<uint64_t> values);
  static Column FromF64(std::vector<double> values);
  static Column FromStrings(const std::vector<std::string>& values);

  // Approximate heap bytes referenced by this column (whole shared buffers).
  size_t memory_bytes() const;

 private:
  friend class ColumnBuilder;
  friend struct ColumnAccess;  // internal construction helpers (column.cc, decoders)
  Column(std::shared_ptr<const internal::ColumnData> data, size_t offset, size_t length);
  size_t CountNulls() const;

  std::shared_ptr<const internal::ColumnData> data_;
  size_t offset_ = 0;  // first row of this view inside data_
  size_t length_ = 0;
  size_t null_count_ = 0;
  // kString, kBlob: data_'s offsets from this view's first row, and its bytes (data_ is immutable,
  // so these stay valid while data_ lives).
  const uint64_t* string_offsets_ = nullptr;
  const char* bytes_ = nullptr;
};

}  // namespace omnigraph::format
