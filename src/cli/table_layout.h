// Layout of `omnigraph query --format table` (docs/cli.md): column widths that fit the terminal,
// cells cut with an ellipsis. Widths count UTF-8 code points (one column each). Thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace omnigraph::cli {

// The narrowest a column is shrunk to (a column whose content is narrower keeps its width).
inline constexpr size_t kMinColumnWidth = 5;
// Spaces between two columns.
inline constexpr size_t kColumnGap = 2;

// Display width of `s`: its UTF-8 code points.
size_t DisplayWidth(std::string_view s);

// `s` cut to at most `width` columns: when it is wider, its first width - 1 code points and "…".
std::string FitCell(std::string_view s, size_t width);

// Widths for columns of natural widths `natural` (the widest cell or header of each) within
// `max_width` columns in all, gaps included (0 = no limit). The widest columns shrink first;
// none below min(natural, kMinColumnWidth), so a very narrow terminal may still overflow.
std::vector<size_t> FitColumns(const std::vector<size_t>& natural, size_t max_width);

// The width to fit: the terminal's (TIOCGWINSZ) when stdout is a terminal, else $COLUMNS when it
// is a positive number, else 0 (no limit, e.g. piped into a file).
size_t OutputWidth();

// The table: header, dashes, rows, "(N rows)". `cells` are the rows' display texts.
std::string RenderTable(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& cells,
                        size_t max_width);

}  // namespace omnigraph::cli
