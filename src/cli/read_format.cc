#include "cli/read_format.h"

#include <algorithm>

#include "common/api_json.h"
#include "common/output_json.h"

namespace omnigraph::cli {
namespace {

bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The code points of `s`, each as its bytes.
std::vector<std::string_view> CodePoints(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 1; i <= s.size(); ++i) {
    if (i == s.size() || !IsContinuation(s[i])) {
      out.push_back(s.substr(start, i - start));
      start = i;
    }
  }
  return out;
}

std::string CellText(const Value& v) {
  if (v.is_null()) return "null";
  if (v.kind() == TypeKind::kString) return v.string_value();
  Json j = ValueToJson(v);
  return j.is_string() ? j.get<std::string>() : j.dump();
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string HeaderLine(const QueryRows& r, const ReadTargetText& t) {
  const std::string where = t.snapshot.empty() ? "branch " + t.branch : "snapshot " + t.snapshot;
  return std::to_string(r.rows.size()) + " rows from " + where + " via " + r.query_name;
}

std::string Pad(const std::string& s, size_t width) {
  const size_t w = DisplayWidth(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

std::string EscapeBreaks(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  return out;
}

// The display lines of one cell in a column `width` wide.
std::vector<std::string> SplitCell(const std::string& s, size_t width, CellLayout layout) {
  if (s.empty() || DisplayWidth(s) <= width) return {s};
  std::vector<std::string_view> points = CodePoints(s);
  if (layout == CellLayout::kTruncate) {
    std::string out;
    const size_t keep = width <= 1 ? width : width - 1;
    for (size_t i = 0; i < keep; ++i) out += points[i];
    if (width > 1) out += "…";
    return {out};
  }
  std::vector<std::string> lines;
  const size_t step = std::max<size_t>(width, 1);
  for (size_t i = 0; i < points.size(); i += step) {
    std::string line;
    for (size_t k = i; k < std::min(points.size(), i + step); ++k) line += points[k];
    lines.push_back(std::move(line));
  }
  return lines;
}

std::string RenderTable(const QueryRows& r, const ReadTargetText& t, const ReadRenderOptions& o) {
  std::string out = HeaderLine(r, t) + "\n";
  if (r.columns.empty()) return out + "(no rows)\n";
  std::vector<std::vector<std::string>> cells;
  for (const auto& row : r.rows) {
    std::vector<std::string> line;
    for (const Value& v : row) line.push_back(EscapeBreaks(CellText(v)));
    cells.push_back(std::move(line));
  }
  std::vector<size_t> widths;
  for (size_t c = 0; c < r.columns.size(); ++c) {
    size_t w = DisplayWidth(r.columns[c]);
    for (const auto& line : cells) w = std::max(w, std::min(DisplayWidth(line[c]), o.max_column_width));
    widths.push_back(std::min(w, std::max<size_t>(o.max_column_width, 8)));
  }
  for (size_t c = 0; c < r.columns.size(); ++c) out += (c ? " | " : "") + Pad(r.columns[c], widths[c]);
  out += "\n";
  for (size_t c = 0; c < widths.size(); ++c) out += (c ? "-+-" : "") + std::string(widths[c], '-');
  out += "\n";
  for (const auto& line : cells) {
    std::vector<std::vector<std::string>> parts;
    size_t height = 1;
    for (size_t c = 0; c < line.size(); ++c) {
      parts.push_back(SplitCell(line[c], widths[c], o.cell_layout));
      height = std::max(height, parts.back().size());
    }
    for (size_t k = 0; k < height; ++k) {
      for (size_t c = 0; c < parts.size(); ++c) {
        out += (c ? " | " : "") + Pad(k < parts[c].size() ? parts[c][k] : "", widths[c]);
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace

size_t DisplayWidth(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += IsContinuation(c) ? 0 : 1;
  return n;
}

std::string RenderRead(const QueryRows& r, const ReadTargetText& target, std::string_view format,
                       const ReadRenderOptions& options) {
  if (format == "json") return ReadOutputJson(r, target).dump(2) + "\n";
  std::string out;
  if (format == "jsonl") {
    OrderedJson meta = OrderedJson::object();
    meta["kind"] = "metadata";
    meta["query_name"] = r.query_name;
    meta["target"] = TargetJson(target);
    meta["row_count"] = r.rows.size();
    out = meta.dump() + "\n";
    for (size_t i = 0; i < r.rows.size(); ++i) out += RowJson(r, i).dump() + "\n";
    return out;
  }
  if (format == "csv") {
    for (size_t c = 0; c < r.columns.size(); ++c) out += (c ? "," : "") + CsvField(r.columns[c]);
    out += "\n";
    for (const auto& row : r.rows) {
      for (size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + CsvField(CellText(row[c]));
      out += "\n";
    }
    return out;
  }
  if (format == "kv") {
    out = HeaderLine(r, target) + "\n";
    if (r.rows.empty()) return out + "(no rows)\n";
    for (size_t i = 0; i < r.rows.size(); ++i) {
      if (i) out += "\n";
      out += "row " + std::to_string(i + 1) + "\n";
      for (size_t c = 0; c < r.columns.size(); ++c) out += r.columns[c] + ": " + CellText(r.rows[i][c]) + "\n";
    }
    return out;
  }
  return RenderTable(r, target, options);
}

}  // namespace omnigraph::cli
