// Encoding side of page_codec.h: chooses the smallest applicable encoding per page.
#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include <lz4.h>
#include <zstd.h>

#include "common/check.h"
#include "format/byte_io.h"
#include "format/column_internal.h"
#include "format/page_codec.h"

namespace omnigraph::format::internal {

namespace {

bool IsIntegerLike(Phys p) {
  return p == Phys::kBool || p == Phys::kI32 || p == Phys::kI64 || p == Phys::kU32 || p == Phys::kU64;
}
bool IsSigned(Phys p) { return p == Phys::kI32 || p == Phys::kI64; }
size_t PlainWidth(Phys p) {
  switch (p) {
    case Phys::kBool: return 1;
    case Phys::kI32:
    case Phys::kU32: return 4;
    default: return 8;
  }
}

// Raw uint64 image of an integer-like column (sign-extended for signed kinds); null slots take the
// previous valid value (or the first valid one) so they neither widen ranges nor break runs.
std::vector<uint64_t> IntegerImage(const Column& c, Phys p) {
  size_t n = c.length();
  std::vector<uint64_t> v(n);
  switch (p) {
    case Phys::kBool: {
      auto s = c.bool_values();
      for (size_t i = 0; i < n; ++i) v[i] = s[i] ? 1 : 0;
      break;
    }
    case Phys::kI32: {
      auto s = c.i32_values();
      for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint64_t>(int64_t{s[i]});
      break;
    }
    case Phys::kI64: {
      auto s = c.i64_values();
      for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint64_t>(s[i]);
      break;
    }
    case Phys::kU32: {
      auto s = c.u32_values();
      for (size_t i = 0; i < n; ++i) v[i] = s[i];
      break;
    }
    case Phys::kU64: {
      auto s = c.u64_values();
      std::copy(s.begin(), s.end(), v.begin());
      break;
    }
    default: OG_UNREACHABLE();
  }
  if (c.has_nulls()) {
    size_t first = 0;
    while (first < n && c.IsNull(first)) ++first;
    uint64_t fill = first < n ? v[first] : 0;
    for (size_t i = 0; i < n; ++i) {
      if (c.IsNull(i)) {
        v[i] = fill;
      } else {
        fill = v[i];
      }
    }
  }
  return v;
}

void EncodePlainInts(std::span<const uint64_t> v, size_t width, std::string* out) {
  size_t start = out->size();
  out->resize(start + v.size() * width);
  char* p = out->data() + start;
  for (size_t i = 0; i < v.size(); ++i) std::memcpy(p + i * width, &v[i], width);
}

// Writes u8 encoding + payload for integer-like values.
Encoding EncodeIntegers(std::span<const uint64_t> v, bool is_signed, size_t plain_width, const EncodeOptions& opt,
                        std::string* out) {
  ByteWriter w(out);
  uint64_t lo = 0, hi = 0;
  size_t runs = 0;
  if (!v.empty()) {
    lo = hi = v[0];
    runs = 1;
    for (size_t i = 0; i < v.size(); ++i) {
      if (is_signed) {
        int64_t x = static_cast<int64_t>(v[i]);
        if (x < static_cast<int64_t>(lo)) lo = v[i];
        if (x > static_cast<int64_t>(hi)) hi = v[i];
      } else {
        lo = std::min(lo, v[i]);
        hi = std::max(hi, v[i]);
      }
      if (i > 0 && v[i] != v[i - 1]) ++runs;
    }
  }
  uint8_t width = BitWidth(hi - lo);
  size_t plain_size = v.size() * plain_width;
  size_t packed_size = 9 + PackedBytes(v.size(), width);
  size_t rle_size = 4 + runs * 12;
  Encoding e = Encoding::kPlain;
  if (opt.force_encoding == Encoding::kBitPacked || opt.force_encoding == Encoding::kRle) {
    e = *opt.force_encoding;
  } else if (opt.allow_encodings) {
    size_t best = plain_size;
    if (packed_size < best) {
      e = Encoding::kBitPacked;
      best = packed_size;
    }
    if (rle_size < best) e = Encoding::kRle;
  }
  w.U8(static_cast<uint8_t>(e));
  switch (e) {
    case Encoding::kPlain: EncodePlainInts(v, plain_width, out); break;
    case Encoding::kBitPacked: {
      w.U64(lo);
      w.U8(width);
      std::vector<uint64_t> d(v.size());
      for (size_t i = 0; i < v.size(); ++i) d[i] = v[i] - lo;
      PackBits(d, width, out);
      break;
    }
    case Encoding::kRle: {
      w.U32(static_cast<uint32_t>(runs));
      size_t i = 0;
      while (i < v.size()) {
        size_t j = i + 1;
        while (j < v.size() && v[j] == v[i]) ++j;
        w.U32(static_cast<uint32_t>(j - i));
        w.U64(v[i]);
        i = j;
      }
      break;
    }
    default: OG_UNREACHABLE();
  }
  return e;
}

void EncodeValidity(const Column& c, std::string* out) {
  ByteWriter w(out);
  if (!c.has_nulls()) {
    w.U8(0);
    return;
  }
  w.U8(1);
  size_t start = out->size();
  out->resize(start + (c.length() + 7) / 8, 0);
  uint8_t* bits = reinterpret_cast<uint8_t*>(out->data() + start);
  for (size_t i = 0; i < c.length(); ++i) {
    if (c.IsValid(i)) SetBit(bits, i);
  }
}

// Whether over 90% of a strided sample of the page's values are distinct and under 10% of them
// equal the next row (runs, e.g. edges grouped by source, which a stride would step over): the
// dictionary (which needs at most n/2 distinct values) then almost surely fails, and trying it
// would hash half the page for nothing (ids, names, random references). Small pages are always
// tried.
bool MostlyDistinct(const Column& c) {
  constexpr size_t kSample = 1024;
  const size_t n = c.length();
  if (n <= 2 * kSample) return false;
  std::unordered_set<std::string_view> seen;
  seen.reserve(kSample);
  size_t sampled = 0, repeats = 0;  // repeats: sampled rows equal to the next row (runs a stride skips)
  for (size_t k = 0; k < kSample; ++k) {
    const size_t i = k * n / kSample;
    if (c.IsNull(i)) continue;
    seen.insert(c.string_at(i));
    ++sampled;
    if (i + 1 < n && c.IsValid(i + 1) && c.string_at(i + 1) == c.string_at(i)) ++repeats;
  }
  return sampled > 0 && seen.size() * 10 > sampled * 9 && repeats * 10 < sampled;
}

Encoding EncodeBytes(const Column& c, const EncodeOptions& opt, std::string* out) {
  ByteWriter w(out);
  size_t n = c.length();
  auto off = c.offsets();
  size_t data_bytes = off[n] - off[0];
  bool try_dict = opt.force_encoding == Encoding::kDictionary || (opt.allow_encodings && !MostlyDistinct(c));
  std::unordered_map<std::string_view, uint32_t> dict;
  std::vector<std::string_view> entries;
  std::vector<uint64_t> idx;
  if (try_dict && n > 0) {
    size_t limit = opt.force_encoding == Encoding::kDictionary ? n : n / 2;
    idx.resize(n, 0);
    for (size_t i = 0; i < n; ++i) {
      if (c.IsNull(i)) continue;
      auto [it, inserted] = dict.emplace(c.string_at(i), static_cast<uint32_t>(entries.size()));
      if (inserted) {
        entries.push_back(it->first);
        if (entries.size() > limit) break;
      }
      idx[i] = it->second;
    }
    if (entries.size() > limit || entries.empty()) try_dict = false;
  } else {
    try_dict = false;
  }
  if (try_dict) {
    uint8_t width = BitWidth(entries.size() - 1);
    size_t dict_bytes = 0;
    for (auto e : entries) dict_bytes += e.size();
    size_t dict_size = 4 + 4 * entries.size() + dict_bytes + 1 + PackedBytes(n, width);
    if (opt.force_encoding == Encoding::kDictionary || dict_size < 4 * n + data_bytes) {
      w.U8(static_cast<uint8_t>(Encoding::kDictionary));
      w.U32(static_cast<uint32_t>(entries.size()));
      for (auto e : entries) w.U32(static_cast<uint32_t>(e.size()));
      for (auto e : entries) w.Bytes(e);
      w.U8(width);
      PackBits(idx, width, out);
      return Encoding::kDictionary;
    }
  }
  w.U8(static_cast<uint8_t>(Encoding::kPlain));
  // Version 1: row lengths; later versions: end offsets, so that a reader can locate one row.
  const bool end_offsets = opt.version >= 2;
  const size_t at = out->size();
  out->resize(at + 4 * n);
  char* p = out->data() + at;
  for (size_t i = 0; i < n; ++i) {
    const auto v = static_cast<uint32_t>(end_offsets ? off[i + 1] - off[0] : off[i + 1] - off[i]);
    std::memcpy(p + 4 * i, &v, 4);
  }
  w.Bytes(c.string_data().substr(off[0], data_bytes));
  return Encoding::kPlain;
}

}  // namespace

Encoding EncodeColumnBody(const Column& c, const EncodeOptions& opt, std::string* out) {
  EncodeValidity(c, out);
  ByteWriter w(out);
  Phys p = PhysOf(c.type().kind);
  if (IsIntegerLike(p)) {
    std::vector<uint64_t> v = IntegerImage(c, p);
    return EncodeIntegers(v, IsSigned(p), PlainWidth(p), opt, out);
  }
  switch (p) {
    case Phys::kF32: {
      w.U8(static_cast<uint8_t>(Encoding::kPlain));
      auto s = c.f32_values();
      w.Raw(s.data(), s.size() * 4);
      return Encoding::kPlain;
    }
    case Phys::kF64: {
      w.U8(static_cast<uint8_t>(Encoding::kPlain));
      auto s = c.f64_values();
      w.Raw(s.data(), s.size() * 8);
      return Encoding::kPlain;
    }
    case Phys::kVector: {
      w.U8(static_cast<uint8_t>(Encoding::kFixedSize));
      auto s = c.f32_values();
      w.Raw(s.data(), s.size() * 4);
      return Encoding::kFixedSize;
    }
    case Phys::kBytes: return EncodeBytes(c, opt, out);
    case Phys::kList: {
      w.U8(static_cast<uint8_t>(Encoding::kList));
      auto off = c.offsets();
      std::vector<uint64_t> lengths(c.length());
      for (size_t i = 0; i < c.length(); ++i) lengths[i] = off[i + 1] - off[i];
      EncodeOptions lopt = opt;
      lopt.force_encoding.reset();
      EncodeIntegers(lengths, false, 4, lopt, out);
      Column elems = c.list_elements().Slice(off[0], off[c.length()] - off[0]);
      EncodeColumnBody(elems, lopt, out);
      return Encoding::kList;
    }
    default: OG_UNREACHABLE();
  }
}

size_t EncodedBodyBound(const Column& c) {
  const size_t n = c.length();
  const size_t validity = 1 + (n + 7) / 8;
  // Integer-like: the largest of plain (<= 8n), bit-packed (9 + 8n) and RLE (4 + 12n), + 1 tag.
  auto integers = [](size_t rows) { return 14 + 12 * rows; };
  Phys p = PhysOf(c.type().kind);
  if (IsIntegerLike(p)) return validity + integers(n);
  switch (p) {
    case Phys::kF32:
    case Phys::kF64:
    case Phys::kVector: return validity + 1 + n * FixedWidth(c.type());
    case Phys::kBytes: {
      // Plain: 4n + data; dictionary (even forced): 4 + 4e + data + 1 + <= 4n with e <= n.
      auto off = c.offsets();
      return validity + 6 + 8 * n + (off[n] - off[0]);
    }
    case Phys::kList: {
      auto off = c.offsets();
      Column elems = c.list_elements().Slice(off[0], off[n] - off[0]);
      return validity + 1 + integers(n) + EncodedBodyBound(elems);
    }
    default: OG_UNREACHABLE();
  }
}

bool CompressPage(Compression c, int zstd_level, std::string_view raw, std::string* out) {
  out->clear();
  if (c == Compression::kNone || raw.empty()) return false;
  if (c == Compression::kZstd) {
    out->resize(ZSTD_compressBound(raw.size()));
    size_t n = ZSTD_compress(out->data(), out->size(), raw.data(), raw.size(), zstd_level);
    if (ZSTD_isError(n)) return false;
    out->resize(n);
  } else {
    if (raw.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) return false;
    out->resize(static_cast<size_t>(LZ4_compressBound(static_cast<int>(raw.size()))));
    int n = LZ4_compress_default(raw.data(), out->data(), static_cast<int>(raw.size()), static_cast<int>(out->size()));
    if (n <= 0) return false;
    out->resize(static_cast<size_t>(n));
  }
  return out->size() < raw.size();
}

}  // namespace omnigraph::format::internal
