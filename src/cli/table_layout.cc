#include "cli/table_layout.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace omnigraph::cli {
namespace {

bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Tabs and line breaks would break the grid: shown as spaces.
std::string Flatten(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return out;
}

size_t TotalWidth(const std::vector<size_t>& w) {
  size_t t = 0;
  for (size_t x : w) t += x;
  return w.empty() ? 0 : t + kColumnGap * (w.size() - 1);
}

}  // namespace

size_t DisplayWidth(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += IsContinuation(c) ? 0 : 1;
  return n;
}

std::string FitCell(std::string_view s, size_t width) {
  if (DisplayWidth(s) <= width) return std::string(s);
  if (width == 0) return "";
  size_t keep = width - 1, points = 0, end = 0;
  for (; end < s.size(); ++end) {
    if (!IsContinuation(s[end]) && points++ == keep) break;
  }
  return std::string(s.substr(0, end)) + "\xE2\x80\xA6";  // U+2026 HORIZONTAL ELLIPSIS
}

std::vector<size_t> FitColumns(const std::vector<size_t>& natural, size_t max_width) {
  if (max_width == 0 || TotalWidth(natural) <= max_width) return natural;
  // The largest cap C such that every column at min(natural, max(C, floor)) fits; columns at the
  // cap then share what is left, one column each, left to right.
  auto capped = [&](size_t cap) {
    std::vector<size_t> w(natural.size());
    for (size_t i = 0; i < natural.size(); ++i) {
      w[i] = std::min(natural[i], std::max(cap, std::min(natural[i], kMinColumnWidth)));
    }
    return w;
  };
  auto fits = [&](size_t cap) { return TotalWidth(capped(cap)) <= max_width; };
  if (!fits(0)) return capped(0);
  size_t lo = 0, hi = *std::max_element(natural.begin(), natural.end());  // fits(lo), !fits(hi)
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  std::vector<size_t> w = capped(lo);
  size_t total = TotalWidth(w);
  for (size_t i = 0; i < w.size() && total < max_width; ++i) {
    if (w[i] == lo && w[i] < natural[i]) {
      ++w[i];
      ++total;
    }
  }
  return w;
}

size_t OutputWidth() {
  if (isatty(STDOUT_FILENO)) {
    winsize ws{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  }
  if (const char* c = std::getenv("COLUMNS")) {
    char* end = nullptr;
    long v = std::strtol(c, &end, 10);
    if (end != c && *end == '\0' && v > 0) return static_cast<size_t>(v);
  }
  return 0;
}

std::string RenderTable(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& cells,
                        size_t max_width) {
  std::vector<size_t> natural(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) natural[c] = DisplayWidth(Flatten(columns[c]));
  for (const auto& row : cells) {
    for (size_t c = 0; c < row.size() && c < natural.size(); ++c) {
      natural[c] = std::max(natural[c], DisplayWidth(Flatten(row[c])));
    }
  }
  std::vector<size_t> width = FitColumns(natural, max_width);
  std::string out;
  auto line = [&](auto cell_of) {
    std::string l;
    for (size_t c = 0; c < width.size(); ++c) {
      std::string s = FitCell(Flatten(cell_of(c)), width[c]);
      if (c > 0) l += std::string(kColumnGap, ' ');
      l += s;
      if (c + 1 < width.size()) l += std::string(width[c] - DisplayWidth(s), ' ');
    }
    out += l + "\n";
  };
  line([&](size_t c) { return columns[c]; });
  line([&](size_t c) { return std::string(width[c], '-'); });
  for (const auto& row : cells) line([&](size_t c) { return c < row.size() ? row[c] : std::string(); });
  out += "(" + std::to_string(cells.size()) + " row" + (cells.size() == 1 ? "" : "s") + ")\n";
  return out;
}

}  // namespace omnigraph::cli
