#include "format/column.h"

#include <bit>
#include <cstring>

#include "common/check.h"
#include "common/error_codes.h"
#include "format/column_builder.h"
#include "format/column_internal.h"
#include "format/schema.h"

namespace omnigraph::format {

namespace internal {

Phys PhysOf(TypeKind kind) {
  switch (kind) {
    case TypeKind::kBool: return Phys::kBool;
    case TypeKind::kI32:
    case TypeKind::kDate: return Phys::kI32;
    case TypeKind::kI64:
    case TypeKind::kDateTime: return Phys::kI64;
    case TypeKind::kU32: return Phys::kU32;
    case TypeKind::kU64: return Phys::kU64;
    case TypeKind::kF32: return Phys::kF32;
    case TypeKind::kF64: return Phys::kF64;
    case TypeKind::kVector: return Phys::kVector;
    case TypeKind::kString:
    case TypeKind::kBlob: return Phys::kBytes;
    case TypeKind::kList: return Phys::kList;
  }
  OG_UNREACHABLE();
}

size_t FixedWidth(const DataType& type) {
  switch (PhysOf(type.kind)) {
    case Phys::kBool: return 1;
    case Phys::kI32:
    case Phys::kU32:
    case Phys::kF32: return 4;
    case Phys::kI64:
    case Phys::kU64:
    case Phys::kF64: return 8;
    case Phys::kVector: return 4 * size_t{type.dimension};
    case Phys::kBytes:
    case Phys::kList: return 0;
  }
  OG_UNREACHABLE();
}

size_t CountSetBits(const uint8_t* bits, size_t begin, size_t end) {
  size_t n = 0;
  size_t i = begin;
  while (i < end && (i & 7) != 0) n += GetBit(bits, i++);
  while (i + 64 <= end) {
    uint64_t w;
    std::memcpy(&w, bits + (i >> 3), 8);
    n += static_cast<size_t>(std::popcount(w));
    i += 64;
  }
  while (i + 8 <= end) {
    n += static_cast<size_t>(std::popcount(static_cast<unsigned>(bits[i >> 3])));
    i += 8;
  }
  while (i < end) n += GetBit(bits, i++);
  return n;
}

}  // namespace internal

using internal::ColumnData;
using internal::Phys;
using internal::PhysOf;

Column::Column() : Column(DataType{}) {}

Column::Column(const DataType& type) {
  ColumnBuilder b(type);
  *this = b.Finish();
}

Column::Column(std::shared_ptr<const ColumnData> data, size_t offset, size_t length)
    : data_(std::move(data)), offset_(offset), length_(length) {
  null_count_ = CountNulls();
  if (PhysOf(data_->type.kind) == Phys::kBytes && !data_->offsets.empty()) {
    string_offsets_ = data_->offsets.data() + offset_;
    bytes_ = data_->bytes.data();
  }
}

size_t Column::CountNulls() const {
  if (data_->validity.empty() || length_ == 0) return 0;
  return length_ - internal::CountSetBits(data_->validity.data(), offset_, offset_ + length_);
}

const DataType& Column::type() const { return data_->type; }

bool Column::IsValid(size_t i) const {
  OG_DCHECK(i < length_);
  return data_->validity.empty() || internal::GetBit(data_->validity.data(), offset_ + i);
}

#define OG_TYPED_SPAN(fn, T, member, phys)                              \
  std::span<const T> Column::fn() const {                               \
    OG_DCHECK(PhysOf(type().kind) == phys);                             \
    return std::span<const T>(data_->member.data() + offset_, length_); \
  }
OG_TYPED_SPAN(bool_values, uint8_t, bools, Phys::kBool)
OG_TYPED_SPAN(i32_values, int32_t, i32, Phys::kI32)
OG_TYPED_SPAN(i64_values, int64_t, i64, Phys::kI64)
OG_TYPED_SPAN(u32_values, uint32_t, u32, Phys::kU32)
OG_TYPED_SPAN(u64_values, uint64_t, u64, Phys::kU64)
OG_TYPED_SPAN(f64_values, double, f64, Phys::kF64)
#undef OG_TYPED_SPAN

std::span<const float> Column::f32_values() const {
  Phys p = PhysOf(type().kind);
  OG_DCHECK(p == Phys::kF32 || p == Phys::kVector);
  size_t w = p == Phys::kVector ? type().dimension : 1;
  return std::span<const float>(data_->f32.data() + offset_ * w, length_ * w);
}

std::span<const float> Column::vector_at(size_t i) const {
  OG_DCHECK(type().kind == TypeKind::kVector && i < length_);
  size_t w = type().dimension;
  return std::span<const float>(data_->f32.data() + (offset_ + i) * w, w);
}

std::span<const uint64_t> Column::offsets() const {
  OG_DCHECK(PhysOf(type().kind) == Phys::kBytes || PhysOf(type().kind) == Phys::kList);
  return std::span<const uint64_t>(data_->offsets.data() + offset_, length_ + 1);
}

std::string_view Column::string_data() const { return data_->bytes; }

const Column& Column::list_elements() const {
  OG_DCHECK(type().kind == TypeKind::kList);
  return *data_->child;
}

Column Column::list_at(size_t i) const {
  OG_DCHECK(type().kind == TypeKind::kList && i < length_);
  const uint64_t* off = data_->offsets.data() + offset_ + i;
  return data_->child->Slice(off[0], off[1] - off[0]);
}

Result<BlobDescriptor> Column::blob_at(size_t i) const {
  if (type().kind != TypeKind::kBlob) return InvalidArgumentError("blob_at on a non-Blob column");
  if (IsNull(i)) return InvalidArgumentError("blob_at on a null row");
  return BlobDescriptor::Decode(string_at(i));
}

Value Column::GetValue(size_t i) const {
  OG_DCHECK(i < length_);
  if (!IsValid(i)) return Value::Null(type());
  size_t r = offset_ + i;
  switch (type().kind) {
    case TypeKind::kBool: return Value::Bool(data_->bools[r] != 0);
    case TypeKind::kI32: return Value::I32(data_->i32[r]);
    case TypeKind::kDate: return Value::Date(data_->i32[r]);
    case TypeKind::kI64: return Value::I64(data_->i64[r]);
    case TypeKind::kDateTime: return Value::DateTime(data_->i64[r]);
    case TypeKind::kU32: return Value::U32(data_->u32[r]);
    case TypeKind::kU64: return Value::U64(data_->u64[r]);
    case TypeKind::kF32: return Value::F32(data_->f32[r]);
    case TypeKind::kF64: return Value::F64(data_->f64[r]);
    case TypeKind::kString: return Value::String(std::string(string_at(i)));
    case TypeKind::kBlob: return Value::Blob(std::string(string_at(i)));
    case TypeKind::kVector: {
      auto v = vector_at(i);
      return Value::Vector(std::vector<float>(v.begin(), v.end()));
    }
    case TypeKind::kList: {
      Column items = list_at(i);
      return Value::List(type().element, items.ToValues());
    }
  }
  OG_UNREACHABLE();
}

std::vector<Value> Column::ToValues() const {
  std::vector<Value> out;
  out.reserve(length_);
  for (size_t i = 0; i < length_; ++i) out.push_back(GetValue(i));
  return out;
}

Column Column::Slice(size_t offset, size_t length) const {
  OG_CHECK(offset + length <= length_);
  return Column(data_, offset_ + offset, length);
}

Column Column::Take(std::span<const uint64_t> indices) const {
  ColumnBuilder b(type());
  b.Reserve(indices.size());
  for (uint64_t idx : indices) {
    OG_CHECK(idx < length_);
    b.AppendColumn(*this, idx, 1).IgnoreError();  // same type: cannot fail
  }
  return b.Finish();
}

Column Column::Filter(std::span<const uint8_t> keep) const {
  OG_CHECK(keep.size() == length_);
  ColumnBuilder b(type());
  size_t i = 0;
  while (i < length_) {
    if (!keep[i]) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < length_ && keep[j]) ++j;
    b.AppendColumn(*this, i, j - i).IgnoreError();  // same type: cannot fail
    i = j;
  }
  return b.Finish();
}

bool Column::Equals(const Column& other) const {
  if (!(type() == other.type()) || length_ != other.length_ || null_count_ != other.null_count_) {
    return false;
  }
  Phys p = PhysOf(type().kind);
  size_t w = internal::FixedWidth(type());
  for (size_t i = 0; i < length_; ++i) {
    bool va = IsValid(i);
    if (va != other.IsValid(i)) return false;
    if (!va) continue;
    size_t a = offset_ + i, b = other.offset_ + i;
    switch (p) {
      case Phys::kBool:
        if ((data_->bools[a] != 0) != (other.data_->bools[b] != 0)) return false;
        break;
      case Phys::kI32:
        if (data_->i32[a] != other.data_->i32[b]) return false;
        break;
      case Phys::kI64:
        if (data_->i64[a] != other.data_->i64[b]) return false;
        break;
      case Phys::kU32:
        if (data_->u32[a] != other.data_->u32[b]) return false;
        break;
      case Phys::kU64:
        if (data_->u64[a] != other.data_->u64[b]) return false;
        break;
      case Phys::kF32:
      case Phys::kVector: {
        size_t n = w / 4;
        if (std::memcmp(data_->f32.data() + a * n, other.data_->f32.data() + b * n, w) != 0) {
          return false;
        }
        break;
      }
      case Phys::kF64:
        if (std::memcmp(&data_->f64[a], &other.data_->f64[b], 8) != 0) return false;
        break;
      case Phys::kBytes:
        if (string_at(i) != other.string_at(i)) return false;
        break;
      case Phys::kList:
        if (!list_at(i).Equals(other.list_at(i))) return false;
        break;
    }
  }
  return true;
}

Result<Column> Column::Concat(std::span<const Column> columns) {
  if (columns.empty()) return InvalidArgumentError("Column::Concat of zero columns");
  if (columns.size() == 1) return columns[0];
  ColumnBuilder b(columns[0].type());
  size_t total = 0;
  for (const Column& c : columns) total += c.length();
  b.Reserve(total);
  for (const Column& c : columns) OG_RETURN_IF_ERROR(b.AppendColumn(c, 0, c.length()));
  return b.Finish();
}

Result<Column> Column::FromValues(const DataType& type, std::span<const Value> values) {
  OG_RETURN_IF_ERROR(ValidateDataType(type));
  ColumnBuilder b(type);
  b.Reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    Status s = b.Append(values[i]);
    if (!s.ok()) return s.WithContext("row " + std::to_string(i));
  }
  return b.Finish();
}

Column Column::Nulls(const DataType& type, size_t length) {
  ColumnBuilder b(type);
  b.Reserve(length);
  for (size_t i = 0; i < length; ++i) b.AppendNull();
  return b.Finish();
}

namespace {
template <class T, class F>
Column FromVector(DataType type, std::vector<T> values, F member) {
  auto d = std::make_shared<ColumnData>();
  d->type = type;
  d->rows = values.size();
  (*d).*member = std::move(values);
  return ColumnAccess::Make(std::move(d));
}
}  // namespace

Column Column::FromI64(std::vector<int64_t> values) {
  return FromVector(DataType::Scalar(TypeKind::kI64), std::move(values), &ColumnData::i64);
}
Column Column::FromU64(std::vector<uint64_t> values) {
  return FromVector(DataType::Scalar(TypeKind::kU64), std::move(values), &ColumnData::u64);
}
Column Column::FromF64(std::vector<double> values) {
  return FromVector(DataType::Scalar(TypeKind::kF64), std::move(values), &ColumnData::f64);
}
Column Column::FromStrings(const std::vector<std::string>& values) {
  ColumnBuilder b(DataType::Scalar(TypeKind::kString));
  b.Reserve(values.size());
  for (const auto& s : values) b.AppendString(s);
  return b.Finish();
}

size_t Column::memory_bytes() const {
  const ColumnData& d = *data_;
  size_t n = d.validity.size() + d.bools.size() + 4 * d.i32.size() + 8 * d.i64.size() + 4 * d.u32.size() +
             8 * d.u64.size() + 4 * d.f32.size() + 8 * d.f64.size() + 8 * d.offsets.size() + d.bytes.size();
  if (d.child) n += d.child->memory_bytes();
  return n;
}

}  // namespace omnigraph::format
