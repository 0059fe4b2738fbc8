#include "format/byte_io.h"

namespace omnigraph::format::internal {

void PackBits(std::span<const uint64_t> values, uint8_t width, std::string* out) {
  if (width == 0 || values.empty()) return;
  if (width == 64) {
    out->append(reinterpret_cast<const char*>(values.data()), values.size() * 8);
    return;
  }
  size_t start = out->size();
  out->reserve(start + PackedBytes(values.size(), width) + 8);
  uint64_t acc = 0;
  int bits = 0;
  for (uint64_t v : values) {
    acc |= v << bits;
    if (bits + width >= 64) {
      out->append(reinterpret_cast<const char*>(&acc), 8);
      int used = 64 - bits;
      acc = v >> used;
      bits = bits + width - 64;
    } else {
      bits += width;
    }
  }
  out->append(reinterpret_cast<const char*>(&acc), static_cast<size_t>((bits + 7) / 8));
}

bool UnpackBits(std::string_view packed, uint8_t width, size_t count, uint64_t* out) {
  if (width > 64 || packed.size() != PackedBytes(count, width)) return false;
  if (count == 0) return true;
  if (width == 0) {
    std::memset(out, 0, count * 8);
    return true;
  }
  if (width == 64) {
    std::memcpy(out, packed.data(), count * 8);
    return true;
  }
  const uint64_t mask = (uint64_t{1} << width) - 1;
  const char* p = packed.data();
  size_t n = packed.size();
  auto load = [&](size_t byte) {
    uint64_t w = 0;
    if (byte + 8 <= n) {
      std::memcpy(&w, p + byte, 8);
    } else if (byte < n) {
      std::memcpy(&w, p + byte, n - byte);
    }
    return w;
  };
  size_t bit = 0;
  for (size_t i = 0; i < count; ++i, bit += width) {
    size_t byte = bit >> 3;
    unsigned shift = bit & 7;
    uint64_t v = load(byte) >> shift;
    if (shift + width > 64) v |= load(byte + 8) << (64 - shift);
    out[i] = v & mask;
  }
  return true;
}

}  // namespace omnigraph::format::internal
