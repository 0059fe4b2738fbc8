#include "server/http.h"

#include "common/hash.h"

namespace omnigraph::server {

bool HeaderNameEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::optional<std::string> HttpRequest::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (HeaderNameEquals(k, name)) return v;
  }
  return std::nullopt;
}

size_t HttpRequest::HeaderCount(std::string_view name) const {
  size_t n = 0;
  for (const auto& [k, v] : headers) n += HeaderNameEquals(k, name) ? 1 : 0;
  return n;
}

std::optional<std::string> HttpRequest::Query(std::string_view name) const {
  auto it = query.find(std::string(name));
  if (it == query.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> HttpRequest::QueryAll(std::string_view name) const {
  std::vector<std::string> out;
  auto [lo, hi] = query.equal_range(std::string(name));
  for (auto it = lo; it != hi; ++it) out.push_back(it->second);
  return out;
}

std::optional<std::string> DecodePathSegment(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      int hi = HexDigitValue(s[i + 1]), lo = HexDigitValue(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    }
    if (c == '/' || c == '\0') return std::nullopt;
    out.push_back(c);
  }
  return out;
}

}  // namespace omnigraph::server
