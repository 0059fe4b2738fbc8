#include "compiler/diagnostic.h"

#include <algorithm>
#include <vector>

namespace omnigraph::compiler {
namespace {

// A source line is echoed as at most this many code points, from a little before the error.
constexpr size_t kMaxEchoedGlyphs = 200;
constexpr size_t kEchoContextBefore = 60;

// Byte range of 1-based line `line` in `source` (without the newline); false if absent.
bool FindLine(std::string_view source, uint32_t line, std::string_view* out) {
  size_t start = 0;
  for (uint32_t l = 1; l < line; ++l) {
    size_t nl = source.find('\n', start);
    if (nl == std::string_view::npos) return false;
    start = nl + 1;
  }
  if (start > source.size()) return false;
  size_t end = source.find('\n', start);
  if (end == std::string_view::npos) end = source.size();
  std::string_view l = source.substr(start, end - start);
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  *out = l;
  return true;
}

// One code point of a source line (its bytes), or one byte of an invalid UTF-8 sequence, with
// the text it is echoed as.
struct Glyph {
  std::string_view bytes;
  std::string shown;  // the bytes, or an escape such as \x07 or \u{202e}
  size_t width;       // columns of `shown` (a tab counts 1: it is kept in the caret line)
};

// Code points that are escaped even though they are valid: C1 controls and the bidirectional
// overrides and isolates, which reorder how a terminal shows the rest of the line.
bool EscapedCodePoint(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
         cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

std::string Hex(uint32_t v, int digits) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (int i = digits - 1; i >= 0; --i) out.push_back(kHex[(v >> (4 * i)) & 0xf]);
  return out;
}

// Splits a line into glyphs: valid UTF-8 sequences are one code point each, every other byte is
// its own glyph; control bytes, invalid bytes and the code points above are escaped.
std::vector<Glyph> Glyphs(std::string_view s) {
  std::vector<Glyph> out;
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    uint32_t cp = c;
    if (c < 0x80) {
      n = 1;
    } else if (c >= 0xc2 && c <= 0xdf) {
      n = 2;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 3;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 4;
      cp = c & 0x07;
    }
    bool valid = n > 0 && i + n <= s.size();
    for (size_t k = 1; valid && k < n; ++k) {
      const unsigned char cc = static_cast<unsigned char>(s[i + k]);
      valid = (cc & 0xc0) == 0x80;
      cp = (cp << 6) | (cc & 0x3f);
    }
    // Overlong forms, surrogates and values past U+10FFFF are invalid too.
    if (valid &&
        ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))) {
      valid = false;
    }
    if (!valid) {
      std::string shown = "\\x" + Hex(c, 2);
      out.push_back(Glyph{s.substr(i, 1), shown, shown.size()});
      ++i;
      continue;
    }
    std::string_view bytes = s.substr(i, n);
    if (n == 1 && c != '\t' && (c < 0x20 || c == 0x7f)) {
      std::string shown = "\\x" + Hex(c, 2);
      out.push_back(Glyph{bytes, shown, shown.size()});
    } else if (n > 1 && EscapedCodePoint(cp)) {
      std::string shown = "\\u{" + Hex(cp, 4) + "}";
      out.push_back(Glyph{bytes, shown, shown.size()});
    } else {
      out.push_back(Glyph{bytes, std::string(bytes), 1});
    }
    i += n;
  }
  return out;
}

}  // namespace

std::string RenderDiagnostic(const Status& status, std::string_view source, std::string_view file) {
  if (status.ok()) return "";
  std::string out = "error[" + std::string(status.code_string()) + "]: " + status.message() + "\n";
  const auto& span = status.span();
  if (!span.has_value() || span->line == 0) return out;
  std::string fname = file.empty() ? span->file : std::string(file);
  std::string lineno = std::to_string(span->line);
  std::string pad(lineno.size(), ' ');
  out += pad + "--> " + (fname.empty() ? std::string("<source>") : fname) + ":" + lineno + ":" +
         std::to_string(span->column) + "\n";
  std::string_view text;
  if (!FindLine(source, span->line, &text)) return out;
  const std::vector<Glyph> glyphs = Glyphs(text);
  uint32_t first = std::max<uint32_t>(span->column, 1);
  uint32_t last;  // exclusive
  if (span->end_line == span->line && span->end_column > first) {
    last = span->end_column;
  } else if (span->end_line > span->line) {
    last = static_cast<uint32_t>(glyphs.size()) + 1;
  } else {
    last = first + 1;
  }
  // A column past the end of the line points just after it (e.g. "unexpected end of input").
  first = std::min<uint32_t>(first, static_cast<uint32_t>(glyphs.size()) + 1);
  last = std::min<uint32_t>(std::max(last, first + 1), static_cast<uint32_t>(glyphs.size()) + 2);
  last = std::max(last, first + 1);
  // A long line is echoed as a window of at most kMaxEchoedGlyphs glyphs around the span's start,
  // with "…" where it was cut.
  size_t begin = 0;
  size_t end = glyphs.size();
  if (glyphs.size() > kMaxEchoedGlyphs) {
    begin = first - 1 > kEchoContextBefore ? first - 1 - kEchoContextBefore : 0;
    begin = std::min(begin, glyphs.size() - kMaxEchoedGlyphs);
    end = begin + kMaxEchoedGlyphs;
  }
  std::string shown = begin > 0 ? "\u2026" : "";
  for (size_t g = begin; g < end; ++g) shown += glyphs[g].shown;
  if (end < glyphs.size()) shown += "\u2026";
  std::string carets = begin > 0 ? " " : "";
  for (uint32_t column = static_cast<uint32_t>(begin) + 1; column < last; ++column) {
    const size_t g = column - 1;
    if (g >= end && end < glyphs.size()) break;  // the span goes on past the cut
    const bool in_line = g < glyphs.size();
    const size_t width = in_line ? glyphs[g].width : 1;
    if (column < first) {
      carets += in_line && glyphs[g].bytes == "\t" ? std::string("\t") : std::string(width, ' ');
    } else {
      carets += std::string(width, '^');
    }
  }
  out += pad + " |\n";
  out += lineno + " | " + shown + "\n";
  out += pad + " | " + carets + "\n";
  return out;
}

}  // namespace omnigraph::compiler
