// Little-endian loads and stores of u32/u64 at any (unaligned) byte address, for the on-disk
// codecs (docs/format/*.md). memcpy-based: each compiles to one plain load or store.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace omnigraph {

static_assert(std::endian::native == std::endian::little, "the codecs assume a little-endian host");

inline uint32_t LoadLe32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t LoadLe64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
// The value at byte `at` of `s`. Precondition: at + 4 (or 8) <= s.size().
inline uint32_t LoadLe32(std::string_view s, size_t at) { return LoadLe32(s.data() + at); }
inline uint64_t LoadLe64(std::string_view s, size_t at) { return LoadLe64(s.data() + at); }

inline void StoreLe32(char* p, uint32_t v) { std::memcpy(p, &v, 4); }
inline void StoreLe64(char* p, uint64_t v) { std::memcpy(p, &v, 8); }

inline void AppendLe32(std::string* out, uint32_t v) { out->append(reinterpret_cast<const char*>(&v), 4); }
inline void AppendLe64(std::string* out, uint64_t v) { out->append(reinterpret_cast<const char*>(&v), 8); }

}  // namespace omnigraph
