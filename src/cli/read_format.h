// Rendering of read query results (`omnigraph query --format table|kv|csv|jsonl|json`), with the
// Rust CLI's layouts so scripts and eyes move over unchanged (docs/cli.md, "Query output"):
//   json   {query_name, target: {branch, snapshot}, row_count, columns, rows: [{col: value}],
//          graph_commit_id}, pretty-printed, row keys in projection order;
//   jsonl  a {"kind":"metadata", query_name, target, row_count} line, then one object per row;
//   csv    a header line, then rows (quoted when they hold `,`, `"`, CR or LF);
//   kv     "N rows from branch B via Q", then per row "row N" and "column: value" lines;
//   table  the same header line, then a grid: columns padded to their width (the widest cell or
//          header, at most max_column_width, at least min(8, max_column_width) when cut), " | "
//          between columns, "-+-" in the rule; over-wide cells cut with "…" or wrapped.
// Cell text outside json/jsonl: null is `null`, strings as they are, other values as JSON; a line
// break inside a cell shows as `\n` in table. Widths count UTF-8 code points. Thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/api_json.h"
#include "common/json.h"

#include "omnigraph/omnigraph.h"

namespace omnigraph::cli {

enum class CellLayout { kTruncate, kWrap };

struct ReadRenderOptions {
  size_t max_column_width = 80;  // defaults.table_max_column_width of the operator config
  CellLayout cell_layout = CellLayout::kTruncate;
};

// The whole output of `format` (one of table, kv, csv, jsonl, json), ending in a newline.
std::string RenderRead(const QueryRows& rows, const ReadTargetText& target, std::string_view format,
                       const ReadRenderOptions& options);

// Display width of `s`: its UTF-8 code points.
size_t DisplayWidth(std::string_view s);

}  // namespace omnigraph::cli
