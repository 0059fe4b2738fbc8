#include "compiler/diagnostic.h"

#include <algorithm>
#include <vector>

namespace omnigraph::compiler {
namespace {

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

// Splits a line into code points (as byte strings).
std::vector<std::string_view> CodePoints(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t n = 1;
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0xF0) {
      n = 4;
    } else if (c >= 0xE0) {
      n = 3;
    } else if (c >= 0xC0) {
      n = 2;
    }
    n = std::min(n, s.size() - i);
    out.push_back(s.substr(i, n));
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
  auto cps = CodePoints(text);
  out += pad + " |\n";
  out += lineno + " | " + std::string(text) + "\n";
  uint32_t first = std::max<uint32_t>(span->column, 1);
  uint32_t last;  // exclusive
  if (span->end_line == span->line && span->end_column > first) {
    last = span->end_column;
  } else if (span->end_line > span->line) {
    last = static_cast<uint32_t>(cps.size()) + 1;
  } else {
    last = first + 1;
  }
  last = std::max(last, first + 1);
  std::string carets;
  for (uint32_t c = 1; c < first; ++c) {
    carets += (c - 1 < cps.size() && cps[c - 1] == "\t") ? '\t' : ' ';
  }
  carets += std::string(last - first, '^');
  out += pad + " | " + carets + "\n";
  return out;
}

}  // namespace omnigraph::compiler
