#include "format/column_builder.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "common/check.h"
#include "common/error_codes.h"
#include "format/column_internal.h"
#include "format/schema.h"

namespace omnigraph::format {

using internal::ColumnData;
using internal::Phys;
using internal::PhysOf;

struct ColumnBuilder::Buffers {
  ColumnData data;
  std::unique_ptr<ColumnBuilder> child;  // kList
};

ColumnBuilder::ColumnBuilder(const DataType& type) : type_(type), buf_(std::make_unique<Buffers>()) {
  OG_CHECK(ValidateDataType(type).ok());
  buf_->data.type = type;
  Phys p = PhysOf(type.kind);
  if (p == Phys::kBytes || p == Phys::kList) buf_->data.offsets.push_back(0);
  if (p == Phys::kList) {
    buf_->child = std::make_unique<ColumnBuilder>(DataType::Scalar(type.element));
  }
}

ColumnBuilder::~ColumnBuilder() = default;
ColumnBuilder::ColumnBuilder(ColumnBuilder&&) noexcept = default;
ColumnBuilder& ColumnBuilder::operator=(ColumnBuilder&&) noexcept = default;

void ColumnBuilder::Reserve(size_t rows) {
  ColumnData& d = buf_->data;
  switch (PhysOf(type_.kind)) {
    case Phys::kBool: d.bools.reserve(rows); break;
    case Phys::kI32: d.i32.reserve(rows); break;
    case Phys::kI64: d.i64.reserve(rows); break;
    case Phys::kU32: d.u32.reserve(rows); break;
    case Phys::kU64: d.u64.reserve(rows); break;
    case Phys::kF32: d.f32.reserve(rows); break;
    case Phys::kF64: d.f64.reserve(rows); break;
    case Phys::kVector: d.f32.reserve(rows * type_.dimension); break;
    case Phys::kBytes:
    case Phys::kList: d.offsets.reserve(rows + 1); break;
  }
}

void ColumnBuilder::MarkValid() {
  if (!validity_.empty() || null_count_ != 0) {
    if ((length_ >> 3) >= validity_.size()) validity_.push_back(0);
    internal::SetBit(validity_.data(), length_);
  }
  ++length_;
}

void ColumnBuilder::MarkNull() {
  if (null_count_ == 0 && validity_.empty()) {
    // Materialize: every earlier row is valid.
    validity_.assign((length_ >> 3) + 1, 0);
    for (size_t i = 0; i < length_; ++i) internal::SetBit(validity_.data(), i);
  } else if ((length_ >> 3) >= validity_.size()) {
    validity_.push_back(0);
  }
  ++null_count_;
  ++length_;
}

void ColumnBuilder::AppendNull() {
  ColumnData& d = buf_->data;
  switch (PhysOf(type_.kind)) {
    case Phys::kBool: d.bools.push_back(0); break;
    case Phys::kI32: d.i32.push_back(0); break;
    case Phys::kI64: d.i64.push_back(0); break;
    case Phys::kU32: d.u32.push_back(0); break;
    case Phys::kU64: d.u64.push_back(0); break;
    case Phys::kF32: d.f32.push_back(0); break;
    case Phys::kF64: d.f64.push_back(0); break;
    case Phys::kVector: d.f32.resize(d.f32.size() + type_.dimension, 0.0f); break;
    case Phys::kBytes: d.offsets.push_back(d.bytes.size()); break;
    case Phys::kList: d.offsets.push_back(d.offsets.back()); break;
  }
  MarkNull();
}

void ColumnBuilder::AppendBool(bool v) {
  OG_DCHECK(type_.kind == TypeKind::kBool);
  buf_->data.bools.push_back(v ? 1 : 0);
  MarkValid();
}
void ColumnBuilder::AppendI32(int32_t v) {
  OG_DCHECK(PhysOf(type_.kind) == Phys::kI32);
  buf_->data.i32.push_back(v);
  MarkValid();
}
void ColumnBuilder::AppendI64(int64_t v) {
  OG_DCHECK(PhysOf(type_.kind) == Phys::kI64);
  buf_->data.i64.push_back(v);
  MarkValid();
}
void ColumnBuilder::AppendU32(uint32_t v) {
  OG_DCHECK(type_.kind == TypeKind::kU32);
  buf_->data.u32.push_back(v);
  MarkValid();
}
void ColumnBuilder::AppendU64(uint64_t v) {
  OG_DCHECK(type_.kind == TypeKind::kU64);
  buf_->data.u64.push_back(v);
  MarkValid();
}
void ColumnBuilder::AppendF32(float v) {
  OG_DCHECK(type_.kind == TypeKind::kF32);
  buf_->data.f32.push_back(v);
  MarkValid();
}
void ColumnBuilder::AppendF64(double v) {
  OG_DCHECK(type_.kind == TypeKind::kF64);
  buf_->data.f64.push_back(v);
  MarkValid();
}
void ColumnBuilder::AppendString(std::string_view v) {
  OG_DCHECK(PhysOf(type_.kind) == Phys::kBytes);
  ColumnData& d = buf_->data;
  d.bytes.append(v);
  d.offsets.push_back(d.bytes.size());
  MarkValid();
}
void ColumnBuilder::AppendBlob(const BlobDescriptor& desc) { AppendString(desc.Encode()); }

Status ColumnBuilder::AppendVector(std::span<const float> v) {
  if (type_.kind != TypeKind::kVector) {
    return InvalidArgumentError("AppendVector on a " + type_.ToString() + " column");
  }
  if (v.size() != type_.dimension) {
    return InvalidArgumentError("vector of " + std::to_string(v.size()) + " elements for " + type_.ToString());
  }
  buf_->data.f32.insert(buf_->data.f32.end(), v.begin(), v.end());
  MarkValid();
  return Status::Ok();
}

namespace {

// Checks that `v` (non-null) converts to scalar kind `kind`; on success stores the converted
// integer / float in *i / *u / *f as applicable.
Status CheckScalar(TypeKind kind, const Value& v) {
  auto mismatch = [&] {
    return InvalidArgumentError("value " + v.ToString() + " of type " + v.type().ToString() + " does not fit a " +
                                std::string(TypeKindName(kind)) + " column");
  };
  TypeKind vk = v.kind();
  bool v_signed = vk == TypeKind::kI32 || vk == TypeKind::kI64 || vk == TypeKind::kDate || vk == TypeKind::kDateTime;
  bool v_unsigned = vk == TypeKind::kU32 || vk == TypeKind::kU64;
  bool v_float = vk == TypeKind::kF32 || vk == TypeKind::kF64;
  auto in_range = [&](long double lo, long double hi) {
    if (v_signed) return v.int_value() >= lo && v.int_value() <= hi;
    if (v_unsigned) return static_cast<long double>(v.uint_value()) <= hi;
    return false;
  };
  switch (kind) {
    case TypeKind::kBool: return vk == TypeKind::kBool ? Status::Ok() : mismatch();
    case TypeKind::kString: return vk == TypeKind::kString ? Status::Ok() : mismatch();
    case TypeKind::kBlob: {
      if (vk != TypeKind::kBlob) return mismatch();
      auto d = BlobDescriptor::Decode(v.string_value());
      if (!d.ok()) return InvalidArgumentError("Blob cell is not a BlobDescriptor: " + d.status().message());
      return Status::Ok();
    }
    case TypeKind::kI32:
    case TypeKind::kDate:
      if (vk == TypeKind::kDate && kind == TypeKind::kI32) return mismatch();
      if (vk == TypeKind::kDateTime) return mismatch();
      return in_range(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()) ? Status::Ok()
                                                                                                : mismatch();
    case TypeKind::kI64:
    case TypeKind::kDateTime:
      if (vk == TypeKind::kDate || (vk == TypeKind::kDateTime && kind == TypeKind::kI64)) {
        return mismatch();
      }
      if (v_signed) return Status::Ok();
      return in_range(0, static_cast<long double>(std::numeric_limits<int64_t>::max())) ? Status::Ok() : mismatch();
    case TypeKind::kU32:
      if (v_signed && (vk == TypeKind::kDate || vk == TypeKind::kDateTime)) return mismatch();
      if (v_signed && v.int_value() < 0) return mismatch();
      return in_range(0, std::numeric_limits<uint32_t>::max()) ? Status::Ok() : mismatch();
    case TypeKind::kU64:
      if (v_unsigned) return Status::Ok();
      if (v_signed && vk != TypeKind::kDate && vk != TypeKind::kDateTime && v.int_value() >= 0) {
        return Status::Ok();
      }
      return mismatch();
    case TypeKind::kF32:
    case TypeKind::kF64:
      return (v_float || v_signed || v_unsigned) && vk != TypeKind::kDate && vk != TypeKind::kDateTime ? Status::Ok()
                                                                                                       : mismatch();
    case TypeKind::kVector:
    case TypeKind::kList: return mismatch();
  }
  return mismatch();
}

double AsDouble(const Value& v) {
  switch (v.kind()) {
    case TypeKind::kF32:
    case TypeKind::kF64: return v.float_value();
    case TypeKind::kU32:
    case TypeKind::kU64: return static_cast<double>(v.uint_value());
    default: return static_cast<double>(v.int_value());
  }
}

int64_t AsInt(const Value& v) {
  if (v.kind() == TypeKind::kU32 || v.kind() == TypeKind::kU64) {
    return static_cast<int64_t>(v.uint_value());
  }
  return v.int_value();
}

}  // namespace

Status ColumnBuilder::AppendScalar(const Value& value) {
  OG_RETURN_IF_ERROR(CheckScalar(type_.kind, value));
  switch (type_.kind) {
    case TypeKind::kBool: AppendBool(value.bool_value()); break;
    case TypeKind::kString:
    case TypeKind::kBlob: AppendString(value.string_value()); break;
    case TypeKind::kI32:
    case TypeKind::kDate: AppendI32(static_cast<int32_t>(AsInt(value))); break;
    case TypeKind::kI64:
    case TypeKind::kDateTime: AppendI64(AsInt(value)); break;
    case TypeKind::kU32: AppendU32(static_cast<uint32_t>(AsInt(value))); break;
    case TypeKind::kU64:
      AppendU64(value.kind() == TypeKind::kU32 || value.kind() == TypeKind::kU64
                    ? value.uint_value()
                    : static_cast<uint64_t>(value.int_value()));
      break;
    case TypeKind::kF32: AppendF32(static_cast<float>(AsDouble(value))); break;
    case TypeKind::kF64: AppendF64(AsDouble(value)); break;
    case TypeKind::kVector:
    case TypeKind::kList: OG_UNREACHABLE();
  }
  return Status::Ok();
}

Status ColumnBuilder::AppendList(std::span<const Value> items) {
  if (type_.kind != TypeKind::kList) {
    return InvalidArgumentError("AppendList on a " + type_.ToString() + " column");
  }
  for (const Value& item : items) {
    if (!item.is_null()) OG_RETURN_IF_ERROR(CheckScalar(type_.element, item));
  }
  for (const Value& item : items) {
    if (item.is_null()) {
      buf_->child->AppendNull();
    } else {
      buf_->child->AppendScalar(item).IgnoreError();  // checked above
    }
  }
  buf_->data.offsets.push_back(buf_->child->length());
  MarkValid();
  return Status::Ok();
}

Status ColumnBuilder::Append(const Value& value) {
  if (value.is_null()) {
    AppendNull();
    return Status::Ok();
  }
  if (type_.kind == TypeKind::kVector) {
    if (value.kind() != TypeKind::kVector) {
      return InvalidArgumentError("value " + value.ToString() + " does not fit a " + type_.ToString() + " column");
    }
    return AppendVector(value.vector_value());
  }
  if (type_.kind == TypeKind::kList) {
    if (value.kind() != TypeKind::kList) {
      return InvalidArgumentError("value " + value.ToString() + " does not fit a " + type_.ToString() + " column");
    }
    return AppendList(value.list_value());
  }
  return AppendScalar(value);
}

Status ColumnBuilder::AppendColumn(const Column& column, size_t offset, size_t length) {
  if (!(column.type() == type_)) {
    return InvalidArgumentError("cannot append a " + column.type().ToString() + " column to a " + type_.ToString() +
                                " column");
  }
  OG_CHECK(offset + length <= column.length());
  if (length == 0) return Status::Ok();
  ColumnData& d = buf_->data;
  const ColumnData& src = ColumnAccess::Data(column);
  size_t so = ColumnAccess::Offset(column) + offset;
  // Values.
  switch (PhysOf(type_.kind)) {
    case Phys::kBool: d.bools.insert(d.bools.end(), src.bools.begin() + so, src.bools.begin() + so + length); break;
    case Phys::kI32: d.i32.insert(d.i32.end(), src.i32.begin() + so, src.i32.begin() + so + length); break;
    case Phys::kI64: d.i64.insert(d.i64.end(), src.i64.begin() + so, src.i64.begin() + so + length); break;
    case Phys::kU32: d.u32.insert(d.u32.end(), src.u32.begin() + so, src.u32.begin() + so + length); break;
    case Phys::kU64: d.u64.insert(d.u64.end(), src.u64.begin() + so, src.u64.begin() + so + length); break;
    case Phys::kF32: d.f32.insert(d.f32.end(), src.f32.begin() + so, src.f32.begin() + so + length); break;
    case Phys::kF64: d.f64.insert(d.f64.end(), src.f64.begin() + so, src.f64.begin() + so + length); break;
    case Phys::kVector: {
      size_t w = type_.dimension;
      d.f32.insert(d.f32.end(), src.f32.begin() + so * w, src.f32.begin() + (so + length) * w);
      break;
    }
    case Phys::kBytes: {
      uint64_t b = src.offsets[so], e = src.offsets[so + length];
      uint64_t base = d.bytes.size();
      d.bytes.append(src.bytes.data() + b, e - b);
      for (size_t i = 1; i <= length; ++i) d.offsets.push_back(base + src.offsets[so + i] - b);
      break;
    }
    case Phys::kList: {
      uint64_t b = src.offsets[so], e = src.offsets[so + length];
      uint64_t base = buf_->child->length();
      OG_RETURN_IF_ERROR(buf_->child->AppendColumn(*src.child, b, e - b));
      for (size_t i = 1; i <= length; ++i) d.offsets.push_back(base + src.offsets[so + i] - b);
      break;
    }
  }
  // Validity.
  if (column.null_count() == 0) {
    if (validity_.empty() && null_count_ == 0) {
      length_ += length;
    } else {
      for (size_t i = 0; i < length; ++i) MarkValid();
    }
  } else {
    for (size_t i = 0; i < length; ++i) {
      if (src.validity.empty() || internal::GetBit(src.validity.data(), so + i)) {
        MarkValid();
      } else {
        MarkNull();
      }
    }
  }
  return Status::Ok();
}

Column ColumnBuilder::Finish() {
  auto data = std::make_shared<ColumnData>(std::move(buf_->data));
  data->rows = length_;
  if (null_count_ != 0) {
    validity_.resize((length_ + 7) / 8, 0);
    data->validity = std::move(validity_);
  }
  if (buf_->child) data->child = buf_->child->Finish();
  // Reset.
  length_ = 0;
  null_count_ = 0;
  validity_.clear();
  buf_->data = ColumnData{};
  buf_->data.type = type_;
  Phys p = PhysOf(type_.kind);
  if (p == Phys::kBytes || p == Phys::kList) buf_->data.offsets.push_back(0);
  return ColumnAccess::Make(std::move(data));
}

}  // namespace omnigraph::format
