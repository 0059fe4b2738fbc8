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

namespace {

std::string DecodeQueryComponent(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%' && i + 2 < s.size() && HexDigitValue(s[i + 1]) >= 0 && HexDigitValue(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexDigitValue(s[i + 1]) * 16 + HexDigitValue(s[i + 2])));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

std::multimap<std::string, std::string> ParseQueryString(std::string_view query) {
  std::multimap<std::string, std::string> out;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    if (eq == std::string_view::npos) {
      out.emplace(DecodeQueryComponent(pair), std::string());
    } else {
      out.emplace(DecodeQueryComponent(pair.substr(0, eq)), DecodeQueryComponent(pair.substr(eq + 1)));
    }
  }
  return out;
}

}  // namespace omnigraph::server
