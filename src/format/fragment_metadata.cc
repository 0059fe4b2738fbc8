#include "format/fragment_metadata.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/check.h"
#include "common/error_codes.h"
#include "format/byte_io.h"
#include "format/column_internal.h"
#include "format/fragment_format.h"
#include "format/page_checksum.h"

namespace omnigraph::format {

using internal::ByteReader;
using internal::ByteWriter;
using internal::Phys;
using internal::PhysOf;

std::string_view EncodingName(Encoding e) {
  switch (e) {
    case Encoding::kPlain: return "plain";
    case Encoding::kDictionary: return "dictionary";
    case Encoding::kBitPacked: return "bit-packed";
    case Encoding::kRle: return "rle";
    case Encoding::kFixedSize: return "fixed-size";
    case Encoding::kList: return "list";
  }
  return "unknown";
}

std::string_view CompressionName(Compression c) {
  switch (c) {
    case Compression::kNone: return "none";
    case Compression::kZstd: return "zstd";
    case Compression::kLz4: return "lz4";
  }
  return "unknown";
}

namespace {
bool HasValues(const ColumnStats& s) { return s.row_count > s.null_count + s.nan_count; }
}  // namespace

void ColumnStats::Merge(const ColumnStats& o) {
  bool known = (!HasValues(*this) || min.has_value()) && (!HasValues(o) || o.min.has_value());
  bool known_max = (!HasValues(*this) || max.has_value()) && (!HasValues(o) || o.max.has_value());
  std::optional<Value> mn, mx;
  if (known) {
    mn = min;
    if (o.min && (!mn || o.min->Compare(*mn) < 0)) mn = o.min;
  }
  if (known_max) {
    mx = max;
    if (o.max && (!mx || o.max->Compare(*mx) > 0)) mx = o.max;
  }
  row_count += o.row_count;
  null_count += o.null_count;
  nan_count += o.nan_count;
  min = std::move(mn);
  max = std::move(mx);
}

namespace {

template <class T, class Make>
void MinMax(const Column& c, std::span<const T> v, ColumnStats* s, Make make) {
  bool any = false;
  T lo{}, hi{};
  for (size_t i = 0; i < v.size(); ++i) {
    if (c.has_nulls() && c.IsNull(i)) continue;
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(v[i])) {
        ++s->nan_count;
        continue;
      }
    }
    if (!any) {
      lo = hi = v[i];
      any = true;
    } else {
      if (v[i] < lo) lo = v[i];
      if (v[i] > hi) hi = v[i];
    }
  }
  if (any) {
    s->min = make(lo);
    s->max = make(hi);
  }
}

}  // namespace

ColumnStats ComputeColumnStats(const Column& c) {
  ColumnStats s;
  s.row_count = c.length();
  s.null_count = c.null_count();
  switch (c.type().kind) {
    case TypeKind::kBool: MinMax(c, c.bool_values(), &s, [](uint8_t b) { return Value::Bool(b != 0); }); break;
    case TypeKind::kI32: MinMax(c, c.i32_values(), &s, [](int32_t x) { return Value::I32(x); }); break;
    case TypeKind::kDate: MinMax(c, c.i32_values(), &s, [](int32_t x) { return Value::Date(x); }); break;
    case TypeKind::kI64: MinMax(c, c.i64_values(), &s, [](int64_t x) { return Value::I64(x); }); break;
    case TypeKind::kDateTime: MinMax(c, c.i64_values(), &s, [](int64_t x) { return Value::DateTime(x); }); break;
    case TypeKind::kU32: MinMax(c, c.u32_values(), &s, [](uint32_t x) { return Value::U32(x); }); break;
    case TypeKind::kU64: MinMax(c, c.u64_values(), &s, [](uint64_t x) { return Value::U64(x); }); break;
    case TypeKind::kF32: MinMax(c, c.f32_values(), &s, [](float x) { return Value::F32(x); }); break;
    case TypeKind::kF64: MinMax(c, c.f64_values(), &s, [](double x) { return Value::F64(x); }); break;
    case TypeKind::kString:
    case TypeKind::kBlob: {
      bool any = false;
      std::string_view lo, hi;
      const uint64_t* offsets = c.offsets().data();
      const char* bytes = c.string_data().data();
      const bool nulls = c.has_nulls();
      for (size_t i = 0; i < c.length(); ++i) {
        if (nulls && c.IsNull(i)) continue;
        const std::string_view v(bytes + offsets[i], offsets[i + 1] - offsets[i]);
        if (!any) {
          lo = hi = v;
          any = true;
        } else if (v < lo) {
          lo = v;
        } else if (v > hi) {
          hi = v;
        }
      }
      if (any && lo.size() <= ColumnStats::kMaxStatBytes && hi.size() <= ColumnStats::kMaxStatBytes) {
        bool blob = c.type().kind == TypeKind::kBlob;
        s.min = blob ? Value::Blob(std::string(lo)) : Value::String(std::string(lo));
        s.max = blob ? Value::Blob(std::string(hi)) : Value::String(std::string(hi));
      }
      break;
    }
    case TypeKind::kVector:
    case TypeKind::kList: break;
  }
  return s;
}

namespace {

// Stat value bytes: by the column's kind (docs/format/fragment.md "Statistics").
void PutStatValue(ByteWriter& w, TypeKind kind, const Value& v) {
  switch (kind) {
    case TypeKind::kBool: w.U8(v.bool_value() ? 1 : 0); break;
    case TypeKind::kI32:
    case TypeKind::kDate: w.U32(static_cast<uint32_t>(static_cast<int32_t>(v.int_value()))); break;
    case TypeKind::kI64:
    case TypeKind::kDateTime: w.U64(static_cast<uint64_t>(v.int_value())); break;
    case TypeKind::kU32: w.U32(static_cast<uint32_t>(v.uint_value())); break;
    case TypeKind::kU64: w.U64(v.uint_value()); break;
    case TypeKind::kF32: {
      float f = static_cast<float>(v.float_value());
      w.Raw(&f, 4);
      break;
    }
    case TypeKind::kF64: {
      double d = v.float_value();
      w.Raw(&d, 8);
      break;
    }
    case TypeKind::kString:
    case TypeKind::kBlob: w.Str(v.string_value()); break;
    case TypeKind::kVector:
    case TypeKind::kList: OG_UNREACHABLE();
  }
}

bool GetStatValue(ByteReader& r, TypeKind kind, Value* out) {
  switch (kind) {
    case TypeKind::kBool: {
      uint8_t b = 0;
      if (!r.U8(&b) || b > 1) return false;
      *out = Value::Bool(b);
      return true;
    }
    case TypeKind::kI32:
    case TypeKind::kDate: {
      uint32_t x = 0;
      if (!r.U32(&x)) return false;
      int32_t v = static_cast<int32_t>(x);
      *out = kind == TypeKind::kI32 ? Value::I32(v) : Value::Date(v);
      return true;
    }
    case TypeKind::kI64:
    case TypeKind::kDateTime: {
      uint64_t x = 0;
      if (!r.U64(&x)) return false;
      int64_t v = static_cast<int64_t>(x);
      *out = kind == TypeKind::kI64 ? Value::I64(v) : Value::DateTime(v);
      return true;
    }
    case TypeKind::kU32: {
      uint32_t x = 0;
      if (!r.U32(&x)) return false;
      *out = Value::U32(x);
      return true;
    }
    case TypeKind::kU64: {
      uint64_t x = 0;
      if (!r.U64(&x)) return false;
      *out = Value::U64(x);
      return true;
    }
    case TypeKind::kF32: {
      float f = 0;
      if (!r.Raw(&f, 4) || std::isnan(f)) return false;
      *out = Value::F32(f);
      return true;
    }
    case TypeKind::kF64: {
      double d = 0;
      if (!r.Raw(&d, 8) || std::isnan(d)) return false;
      *out = Value::F64(d);
      return true;
    }
    case TypeKind::kString:
    case TypeKind::kBlob: {
      std::string_view s;
      if (!r.Str(&s) || s.size() > ColumnStats::kMaxStatBytes) return false;
      *out = kind == TypeKind::kString ? Value::String(std::string(s)) : Value::Blob(std::string(s));
      return true;
    }
    case TypeKind::kVector:
    case TypeKind::kList: return false;
  }
  return false;
}

bool EncodingFits(Encoding e, const DataType& t) {
  Phys p = PhysOf(t.kind);
  switch (e) {
    case Encoding::kPlain: return p != Phys::kVector && p != Phys::kList;
    case Encoding::kDictionary: return p == Phys::kBytes;
    case Encoding::kBitPacked:
    case Encoding::kRle:
      return p == Phys::kBool || p == Phys::kI32 || p == Phys::kI64 || p == Phys::kU32 || p == Phys::kU64;
    case Encoding::kFixedSize: return p == Phys::kVector;
    case Encoding::kList: return p == Phys::kList;
  }
  return false;
}

}  // namespace

size_t FragmentMetadata::PageForRow(size_t col, uint64_t row) const {
  const auto& pages = columns[col].pages;
  auto it =
      std::upper_bound(pages.begin(), pages.end(), row, [](uint64_t r, const PageInfo& p) { return r < p.first_row; });
  OG_DCHECK(it != pages.begin());
  return static_cast<size_t>(it - pages.begin()) - 1;
}

std::string FragmentMetadata::Serialize() const {
  std::string out;
  ByteWriter w(&out);
  w.U32(static_cast<uint32_t>(schema.num_fields()));
  for (const Field& f : schema.fields()) {
    w.U32(f.id);
    w.U8(static_cast<uint8_t>(f.type.kind));
    w.U8(static_cast<uint8_t>(f.type.kind == TypeKind::kList ? f.type.element : TypeKind::kString));
    w.U8(f.nullable ? 1 : 0);
    w.U32(f.type.kind == TypeKind::kVector ? f.type.dimension : 0);
    w.Str(f.name);
  }
  w.U64(num_rows);
  for (size_t c = 0; c < columns.size(); ++c) {
    TypeKind kind = schema.field(c).type.kind;
    w.U32(static_cast<uint32_t>(columns[c].pages.size()));
    for (const PageInfo& p : columns[c].pages) {
      w.U64(p.offset);
      w.U64(p.stored_length);
      w.U64(p.raw_length);
      w.U64(p.first_row);
      w.U32(p.row_count);
      w.U8(static_cast<uint8_t>(p.encoding));
      w.U8(static_cast<uint8_t>(p.compression));
      w.U64(p.checksum);
      w.U64(p.stats.null_count);
      w.U64(p.stats.nan_count);
      w.U8((p.stats.min ? 1 : 0) | (p.stats.max ? 2 : 0));
      if (p.stats.min) PutStatValue(w, kind, *p.stats.min);
      if (p.stats.max) PutStatValue(w, kind, *p.stats.max);
    }
  }
  return out;
}

Result<FragmentMetadata> FragmentMetadata::Parse(std::string_view footer, uint64_t data_end, uint16_t version,
                                                 std::string_view file) {
  auto bad = [&](const std::string& what) {
    return CorruptError("fragment " + std::string(file) + ": footer: " + what);
  };
  ByteReader r(footer);
  uint32_t nf = 0;
  if (!r.U32(&nf) || nf > r.remaining() / 15) return bad("bad field count");
  std::vector<Field> fields(nf);
  for (Field& f : fields) {
    uint8_t kind = 0, elem = 0, nullable = 0;
    uint32_t dim = 0;
    std::string_view name;
    if (!r.U32(&f.id) || !r.U8(&kind) || !r.U8(&elem) || !r.U8(&nullable) || !r.U32(&dim) || !r.Str(&name)) {
      return bad("truncated schema");
    }
    if (kind > static_cast<uint8_t>(TypeKind::kList) || nullable > 1) return bad("bad field type");
    f.type.kind = static_cast<TypeKind>(kind);
    f.type.element = static_cast<TypeKind>(elem);
    f.type.dimension = dim;
    if ((f.type.kind != TypeKind::kList && elem != 0) || (f.type.kind != TypeKind::kVector && dim != 0)) {
      return bad("bad field type");
    }
    f.nullable = nullable == 1;
    f.name = std::string(name);
  }
  auto schema = Schema::Make(std::move(fields));
  if (!schema.ok()) return bad("bad schema: " + schema.status().message());
  FragmentMetadata m;
  m.schema = std::move(*schema);
  if (!r.U64(&m.num_rows) || m.num_rows > UINT32_MAX) return bad("bad row count");
  m.columns.resize(nf);
  for (uint32_t c = 0; c < nf; ++c) {
    const Field& f = m.schema.field(c);
    uint32_t np = 0;
    if (!r.U32(&np) || np > r.remaining() / 63) return bad("bad page count of column " + f.name);
    if ((np == 0) != (m.num_rows == 0)) return bad("page count of column " + f.name);
    ColumnChunkInfo& chunk = m.columns[c];
    chunk.pages.resize(np);
    uint64_t next_row = 0;
    for (uint32_t k = 0; k < np; ++k) {
      PageInfo& p = chunk.pages[k];
      uint8_t enc = 0, comp = 0, flags = 0;
      if (!r.U64(&p.offset) || !r.U64(&p.stored_length) || !r.U64(&p.raw_length) || !r.U64(&p.first_row) ||
          !r.U32(&p.row_count) || !r.U8(&enc) || !r.U8(&comp) || !r.U64(&p.checksum) || !r.U64(&p.stats.null_count) ||
          !r.U64(&p.stats.nan_count) || !r.U8(&flags)) {
        return bad("truncated page index");
      }
      std::string where = "column " + f.name + " page " + std::to_string(k) + ": ";
      if (enc > static_cast<uint8_t>(Encoding::kList) || !EncodingFits(static_cast<Encoding>(enc), f.type)) {
        return bad(where + "bad encoding");
      }
      if (comp > static_cast<uint8_t>(Compression::kLz4)) return bad(where + "bad compression");
      p.encoding = static_cast<Encoding>(enc);
      p.compression = static_cast<Compression>(comp);
      p.checksums_length = internal::ChunkChecksumsLength(p.stored_length, version);
      if (p.offset < 16 || p.stored_length > data_end || p.checksums_length > data_end - p.stored_length ||
          p.offset > data_end - p.stored_length - p.checksums_length) {
        return bad(where + "page outside the data area");
      }
      if (p.raw_length > (uint64_t{1} << 31)) return bad(where + "page too large");
      if (p.compression == Compression::kNone && p.raw_length != p.stored_length) {
        return bad(where + "length mismatch");
      }
      if (p.row_count == 0 || p.row_count > kMaxPageRows || p.first_row != next_row ||
          p.row_count > m.num_rows - next_row) {
        return bad(where + "rows not contiguous");
      }
      next_row += p.row_count;
      p.stats.row_count = p.row_count;
      if (p.stats.null_count > p.row_count || p.stats.nan_count > p.row_count - p.stats.null_count) {
        return bad(where + "bad null count");
      }
      bool floating = f.type.kind == TypeKind::kF32 || f.type.kind == TypeKind::kF64;
      if (flags > 3 || (!floating && p.stats.nan_count != 0) || (!f.nullable && p.stats.null_count)) {
        return bad(where + "bad statistics");
      }
      if (flags && !f.type.is_scalar()) return bad(where + "statistics for a non-scalar column");
      Value v;
      if (flags & 1) {
        if (!GetStatValue(r, f.type.kind, &v)) return bad(where + "bad min");
        p.stats.min = v;
      }
      if (flags & 2) {
        if (!GetStatValue(r, f.type.kind, &v)) return bad(where + "bad max");
        p.stats.max = v;
      }
      if (p.stats.min && p.stats.max && p.stats.min->Compare(*p.stats.max) > 0) {
        return bad(where + "min > max");
      }
      chunk.stats.Merge(p.stats);
    }
    if (next_row != m.num_rows) return bad("pages of column " + f.name + " do not cover the rows");
  }
  if (!r.at_end()) return bad("trailing bytes");
  return m;
}

}  // namespace omnigraph::format
