// Builds a Column (format/column.h) row by row, from Values or through typed fast paths.
// See docs/architecture.md, "Tables, fragments, manifests, versions". Not thread-safe (one builder
// per thread).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/blob_descriptor.h"
#include "format/column.h"
#include "omnigraph/result.h"
#include "omnigraph/value.h"

namespace omnigraph::format {

class ColumnBuilder {
 public:
  // Precondition: ValidateDataType(type) is ok (checked; a malformed type aborts).
  explicit ColumnBuilder(const DataType& type);
  ~ColumnBuilder();
  ColumnBuilder(ColumnBuilder&&) noexcept;
  ColumnBuilder& operator=(ColumnBuilder&&) noexcept;

  const DataType& type() const { return type_; }
  size_t length() const { return length_; }
  void Reserve(size_t rows);

  // Appends one value. Accepted: null of any type; for integer kinds any integer Value (signed or
  // unsigned representation) that fits the column's range; for F32/F64 any numeric Value; Date
  // from Date or I32/I64 in int32 range; DateTime from DateTime or integers; String from String;
  // Blob from Blob (the bytes must be an encoded BlobDescriptor: Corrupt-free decode is checked);
  // Vector from a Vector of exactly `dimension` floats; List from a List whose items each convert
  // to the element kind. InvalidArgument otherwise (the builder is unchanged).
  Status Append(const Value& value);
  void AppendNull();

  // Typed fast paths; precondition: the column's kind matches (checked in debug builds).
  void AppendBool(bool v);
  void AppendI32(int32_t v);  // kI32, kDate
  void AppendI64(int64_t v);  // kI64, kDateTime
  void AppendU32(uint32_t v);
  void AppendU64(uint64_t v);
  void AppendF32(float v);
  void AppendF64(double v);
  void AppendString(std::string_view v);     // kString, kBlob (raw cell bytes)
  void AppendBlob(const BlobDescriptor& d);  // kBlob
  // kVector; InvalidArgument if v.size() != dimension.
  Status AppendVector(std::span<const float> v);
  // kList: appends one list row; InvalidArgument if an item does not convert to the element kind.
  Status AppendList(std::span<const Value> items);

  // Appends rows [offset, offset+length) of `column` (same type; InvalidArgument otherwise).
  Status AppendColumn(const Column& column, size_t offset, size_t length);

  // The built column; the builder is reset to empty (same type).
  Column Finish();

 private:
  void MarkValid();
  void MarkNull();
  Status AppendScalar(const Value& value);

  DataType type_;
  size_t length_ = 0;
  // Validity bits, materialized on the first null (empty = all valid so far).
  std::vector<uint8_t> validity_;
  size_t null_count_ = 0;
  struct Buffers;
  std::unique_ptr<Buffers> buf_;
};

}  // namespace omnigraph::format
