// UTF-8 validity (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF). Text formats
// we hand to third-party parsers (YAML) are checked first: a parser's behaviour on invalid bytes is
// theirs, and a user's file with invalid bytes gets a typed error from us instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace omnigraph {

// The offset of the first byte that does not start a valid UTF-8 sequence, or npos.
inline size_t FirstInvalidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<uint8_t>(s[i]);
    size_t n = 0;
    uint32_t min = 0, cp = 0;
    if (b < 0x80) {
      ++i;
      continue;
    } else if ((b & 0xE0) == 0xC0) {
      n = 1, min = 0x80, cp = b & 0x1F;
    } else if ((b & 0xF0) == 0xE0) {
      n = 2, min = 0x800, cp = b & 0x0F;
    } else if ((b & 0xF8) == 0xF0) {
      n = 3, min = 0x10000, cp = b & 0x07;
    } else {
      return i;
    }
    for (size_t k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return i;
      const auto c = static_cast<uint8_t>(s[i + k]);
      if ((c & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += n + 1;
  }
  return std::string_view::npos;
}

inline bool IsValidUtf8(std::string_view s) { return FirstInvalidUtf8(s) == std::string_view::npos; }

}  // namespace omnigraph
