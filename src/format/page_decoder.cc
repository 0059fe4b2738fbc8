// Decoding side of page_codec.h. Every length, index, width and value range is checked.
#include <limits>

#include <lz4.h>
#include <zstd.h>

#include "common/check.h"
#include "common/error_codes.h"
#include "format/byte_io.h"
#include "format/column_internal.h"
#include "format/fragment_format.h"
#include "format/page_codec.h"

namespace omnigraph::format::internal {

namespace {

Status Bad(std::string what) { return CorruptError(std::move(what)); }

constexpr uint64_t kMaxElements = kMaxListElementsPerPage;

// Reads u8 encoding + payload of `n` integer-like values into raw uint64 images.
Status DecodeIntegers(ByteReader& r, size_t n, size_t plain_width, bool is_signed, std::vector<uint64_t>* out) {
  uint8_t enc = 0;
  if (!r.U8(&enc)) return Bad("truncated integer block");
  out->assign(n, 0);
  switch (static_cast<Encoding>(enc)) {
    case Encoding::kPlain: {
      std::string_view s;
      if (n > r.remaining() / plain_width || !r.Take(n * plain_width, &s)) {
        return Bad("truncated plain values");
      }
      if (plain_width == 8) {
        if (n) std::memcpy(out->data(), s.data(), n * 8);
      } else {
        for (size_t i = 0; i < n; ++i) {
          (*out)[i] = PlainIntegerImage(s.data() + i * plain_width, plain_width, is_signed);
        }
      }
      return Status::Ok();
    }
    case Encoding::kBitPacked: {
      uint64_t base = 0;
      uint8_t width = 0;
      if (!r.U64(&base) || !r.U8(&width)) return Bad("truncated bit-packed header");
      if (width > 64) return Bad("bit width " + std::to_string(width) + " > 64");
      uint64_t bytes = PackedBytes(n, width);
      std::string_view s;
      if (bytes > r.remaining() || !r.Take(bytes, &s)) return Bad("truncated bit-packed values");
      if (!UnpackBits(s, width, n, out->data())) return Bad("bad bit-packed block");
      for (auto& v : *out) v += base;
      return Status::Ok();
    }
    case Encoding::kRle: {
      uint32_t runs = 0;
      if (!r.U32(&runs)) return Bad("truncated RLE header");
      if (runs > r.remaining() / 12) return Bad("RLE run count exceeds the page");
      size_t pos = 0;
      for (uint32_t k = 0; k < runs; ++k) {
        uint32_t len = 0;
        uint64_t v = 0;
        r.U32(&len);
        r.U64(&v);
        if (len == 0 || len > n - pos) return Bad("RLE runs do not add up to the row count");
        std::fill(out->begin() + pos, out->begin() + pos + len, v);
        pos += len;
      }
      if (pos != n) return Bad("RLE runs do not add up to the row count");
      return Status::Ok();
    }
    default: return Bad("encoding " + std::to_string(enc) + " is not valid for integers");
  }
}

template <class T>
Status Narrow(const std::vector<uint64_t>& raw, bool is_signed, std::vector<T>* out) {
  out->resize(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (is_signed) {
      int64_t x = static_cast<int64_t>(raw[i]);
      if (x < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
          x > static_cast<int64_t>(std::numeric_limits<T>::max())) {
        return Bad("value out of range of the column type");
      }
      (*out)[i] = static_cast<T>(x);
    } else {
      if (raw[i] > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
        return Bad("value out of range of the column type");
      }
      (*out)[i] = static_cast<T>(raw[i]);
    }
  }
  return Status::Ok();
}

bool ValidAt(const std::vector<uint8_t>& validity, size_t i) { return validity.empty() || GetBit(validity.data(), i); }

Status DecodeBytes(ByteReader& r, size_t n, uint16_t version, ColumnData* d) {
  uint8_t enc = 0;
  if (!r.U8(&enc)) return Bad("truncated string block");
  d->offsets.assign(n + 1, 0);
  if (static_cast<Encoding>(enc) == Encoding::kPlain) {
    if (n > r.remaining() / 4) return Bad("truncated string lengths");
    // Version 1 stores each row's length, later versions its end offset (random access).
    const bool end_offsets = version >= 2;
    uint64_t total = 0;
    for (size_t i = 0; i < n; ++i) {
      uint32_t v = 0;
      r.U32(&v);
      if (end_offsets && v < total) return Bad("string offsets decrease");
      total = end_offsets ? v : total + v;
      d->offsets[i + 1] = total;
    }
    std::string_view s;
    if (total > r.remaining()) return Bad("truncated string bytes");
    if (!r.Take(total, &s)) return Bad("truncated string bytes");
    d->bytes.assign(s);
  } else if (static_cast<Encoding>(enc) == Encoding::kDictionary) {
    uint32_t count = 0;
    if (!r.U32(&count)) return Bad("truncated dictionary header");
    if (count > r.remaining() / 4) return Bad("dictionary size exceeds the page");
    std::vector<uint32_t> lens(count);
    uint64_t total = 0;
    for (auto& l : lens) {
      r.U32(&l);
      total += l;
    }
    std::string_view dict;
    if (total > r.remaining() || !r.Take(total, &dict)) return Bad("truncated dictionary");
    std::vector<std::string_view> entries(count);
    size_t pos = 0;
    for (uint32_t k = 0; k < count; ++k) {
      entries[k] = dict.substr(pos, lens[k]);
      pos += lens[k];
    }
    uint8_t width = 0;
    if (!r.U8(&width) || width > 32) return Bad("bad dictionary index width");
    std::string_view packed;
    uint64_t bytes = PackedBytes(n, width);
    if (bytes > r.remaining() || !r.Take(bytes, &packed)) return Bad("truncated dictionary indices");
    std::vector<uint64_t> idx(n);
    if (!UnpackBits(packed, width, n, idx.data())) return Bad("bad dictionary indices");
    for (size_t i = 0; i < n; ++i) {
      if (!ValidAt(d->validity, i)) {
        if (idx[i] != 0) return Bad("dictionary index of a null row is not 0");
      } else {
        if (idx[i] >= count) return Bad("dictionary index out of range");
        d->bytes.append(entries[idx[i]]);
      }
      d->offsets[i + 1] = d->bytes.size();
    }
  } else {
    return Bad("encoding " + std::to_string(enc) + " is not valid for strings");
  }
  for (size_t i = 0; i < n; ++i) {
    if (!ValidAt(d->validity, i) && d->offsets[i + 1] != d->offsets[i]) {
      return Bad("null string row holds bytes");
    }
  }
  return Status::Ok();
}

Result<Column> DecodeBody(ByteReader& r, const DataType& type, size_t n, uint16_t version, int depth) {
  auto d = std::make_shared<ColumnData>();
  d->type = type;
  d->rows = n;
  uint8_t flags = 0;
  if (!r.U8(&flags)) return Bad("truncated column body");
  if (flags > 1) return Bad("unknown column body flags " + std::to_string(flags));
  if (flags & 1) {
    std::string_view bits;
    if (!r.Take((n + 7) / 8, &bits)) return Bad("truncated validity bitmap");
    d->validity.assign(bits.begin(), bits.end());
    if (n % 8 != 0 && (d->validity.back() >> (n % 8)) != 0) {
      return Bad("validity bitmap padding bits are set");
    }
  }
  Phys p = PhysOf(type.kind);
  switch (p) {
    case Phys::kBool:
    case Phys::kI32:
    case Phys::kI64:
    case Phys::kU32:
    case Phys::kU64: {
      std::vector<uint64_t> raw;
      size_t width = p == Phys::kBool ? 1 : (p == Phys::kI32 || p == Phys::kU32) ? 4 : 8;
      OG_RETURN_IF_ERROR(DecodeIntegers(r, n, width, p == Phys::kI32, &raw));
      OG_RETURN_IF_ERROR(StoreIntegerImages(std::move(raw), d.get()));
      break;
    }
    case Phys::kF32:
    case Phys::kF64:
    case Phys::kVector: {
      uint8_t enc = 0;
      if (!r.U8(&enc)) return Bad("truncated float block");
      Encoding want = p == Phys::kVector ? Encoding::kFixedSize : Encoding::kPlain;
      if (static_cast<Encoding>(enc) != want) {
        return Bad("encoding " + std::to_string(enc) + " is not valid for " + type.ToString());
      }
      size_t per_row = p == Phys::kF64 ? 8 : p == Phys::kF32 ? 4 : 4 * size_t{type.dimension};
      std::string_view s;
      if (n > r.remaining() / per_row || !r.Take(n * per_row, &s)) return Bad("truncated floats");
      StoreFloats(s, d.get());
      break;
    }
    case Phys::kBytes: OG_RETURN_IF_ERROR(DecodeBytes(r, n, version, d.get())); break;
    case Phys::kList: {
      if (depth > 0) return Bad("nested list");
      uint8_t enc = 0;
      if (!r.U8(&enc) || static_cast<Encoding>(enc) != Encoding::kList) {
        return Bad("list column without list encoding");
      }
      std::vector<uint64_t> lengths;
      OG_RETURN_IF_ERROR(DecodeIntegers(r, n, 4, false, &lengths));
      d->offsets.assign(n + 1, 0);
      uint64_t total = 0;
      for (size_t i = 0; i < n; ++i) {
        if (lengths[i] > kMaxElements || total + lengths[i] > kMaxElements) {
          return Bad("list lengths too large");
        }
        if (!ValidAt(d->validity, i) && lengths[i] != 0) return Bad("null list row has elements");
        total += lengths[i];
        d->offsets[i + 1] = total;
      }
      OG_ASSIGN_OR_RETURN(Column child, DecodeBody(r, DataType::Scalar(type.element), total, version, depth + 1));
      d->child = std::move(child);
      break;
    }
  }
  return ColumnAccess::Make(std::move(d));
}

}  // namespace

uint64_t PlainIntegerImage(const char* p, size_t width, bool is_signed) {
  uint64_t v = 0;
  std::memcpy(&v, p, width);
  if (is_signed && width == 4) {
    v = static_cast<uint64_t>(int64_t{static_cast<int32_t>(static_cast<uint32_t>(v))});
  }
  return v;
}

Status StoreIntegerImages(std::vector<uint64_t> raw, ColumnData* d) {
  OG_DCHECK(raw.size() == d->rows);
  if (!d->validity.empty()) {
    for (size_t i = 0; i < raw.size(); ++i) {
      if (!GetBit(d->validity.data(), i)) raw[i] = 0;
    }
  }
  switch (PhysOf(d->type.kind)) {
    case Phys::kBool:
      OG_RETURN_IF_ERROR(Narrow(raw, false, &d->bools));
      for (uint8_t b : d->bools) {
        if (b > 1) return Bad("boolean value other than 0 or 1");
      }
      return Status::Ok();
    case Phys::kI32: return Narrow(raw, true, &d->i32);
    case Phys::kU32: return Narrow(raw, false, &d->u32);
    case Phys::kI64:
      d->i64.resize(raw.size());
      if (!raw.empty()) std::memcpy(d->i64.data(), raw.data(), raw.size() * 8);
      return Status::Ok();
    case Phys::kU64: d->u64 = std::move(raw); return Status::Ok();
    default: OG_UNREACHABLE();
  }
}

void StoreFloats(std::string_view bytes, ColumnData* d) {
  const size_t n = d->rows;
  OG_DCHECK(bytes.size() == n * FixedWidth(d->type));
  auto fill = [&](auto& vec, size_t per_row) {
    vec.resize(bytes.size() / sizeof(vec[0]));
    if (!bytes.empty()) std::memcpy(vec.data(), bytes.data(), bytes.size());
    if (d->validity.empty()) return;
    for (size_t i = 0; i < n; ++i) {
      if (!GetBit(d->validity.data(), i)) {
        std::fill(vec.begin() + i * per_row, vec.begin() + (i + 1) * per_row, 0);
      }
    }
  };
  if (PhysOf(d->type.kind) == Phys::kF64) {
    fill(d->f64, 1);
  } else {
    fill(d->f32, d->type.kind == TypeKind::kVector ? size_t{d->type.dimension} : 1);
  }
}

Result<Column> DecodeColumnBody(std::string_view body, const DataType& type, size_t rows, uint16_t version) {
  ByteReader r(body);
  OG_ASSIGN_OR_RETURN(Column c, DecodeBody(r, type, rows, version, 0));
  if (!r.at_end()) return Bad(std::to_string(r.remaining()) + " trailing bytes after the page body");
  return c;
}

Result<std::string> DecompressPage(Compression c, std::string_view stored, uint64_t raw_length) {
  if (c == Compression::kNone) {
    if (stored.size() != raw_length) return Bad("uncompressed page length mismatch");
    return std::string(stored);
  }
  std::string out(raw_length, '\0');
  if (c == Compression::kZstd) {
    size_t n = ZSTD_decompress(out.data(), out.size(), stored.data(), stored.size());
    if (ZSTD_isError(n) || n != raw_length) return Bad("zstd page does not decompress");
    return out;
  }
  if (c == Compression::kLz4) {
    if (raw_length > static_cast<uint64_t>(LZ4_MAX_INPUT_SIZE) ||
        stored.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
      return Bad("lz4 page too large");
    }
    int n =
        LZ4_decompress_safe(stored.data(), out.data(), static_cast<int>(stored.size()), static_cast<int>(raw_length));
    if (n < 0 || static_cast<uint64_t>(n) != raw_length) return Bad("lz4 page does not decompress");
    return out;
  }
  return Bad("unknown compression " + std::to_string(static_cast<int>(c)));
}

}  // namespace omnigraph::format::internal
