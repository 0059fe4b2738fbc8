// The footer of a fragment file (.ogf) as data: schema, page index, per-page encoding, compression,
// checksums and statistics (docs/format/fragment.md "Footer"). Shared by FragmentWriter and
// FragmentReader; the table layer reads it for page pruning and manifest statistics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/column.h"
#include "format/schema.h"
#include "omnigraph/result.h"
#include "omnigraph/value.h"

namespace omnigraph::format {

// The version written; readers read every version from the oldest on (docs/format/fragment.md).
inline constexpr uint16_t kFragmentFormatVersion = 2;
inline constexpr uint16_t kOldestFragmentFormatVersion = 1;

// Top-level encoding of a page's values (docs/format/fragment.md "Encodings").
enum class Encoding : uint8_t {
  kPlain = 0,       // fixed-width little-endian values / length-prefixed strings
  kDictionary = 1,  // strings/blobs: distinct values + bit-packed indices
  kBitPacked = 2,   // integers (and bools): frame of reference + fixed bit width
  kRle = 3,         // integers and bools: (run length, value) pairs
  kFixedSize = 4,   // vectors: rows * dimension float32
  kList = 5,        // lists: encoded lengths + encoded element column
};
std::string_view EncodingName(Encoding e);

enum class Compression : uint8_t { kNone = 0, kZstd = 1, kLz4 = 2 };
std::string_view CompressionName(Compression c);

// Statistics of a page or a whole column chunk. min/max are over non-null, non-NaN values and are
// present only for scalar kinds (not Vector/List) when at least one such value exists; for
// String/Blob only when both are at most kMaxStatBytes long. Values carry the column's type
// (Value::I64 for I64, Value::Date for Date, ...).
struct ColumnStats {
  static constexpr size_t kMaxStatBytes = 64;
  uint64_t row_count = 0;
  uint64_t null_count = 0;
  uint64_t nan_count = 0;  // F32/F64 only
  std::optional<Value> min;
  std::optional<Value> max;

  // Merges `other` (of the same column) into this.
  void Merge(const ColumnStats& other);
  bool operator==(const ColumnStats&) const = default;
};

// Statistics of all rows of `column` (as the writer records them per page).
ColumnStats ComputeColumnStats(const Column& column);

struct PageInfo {
  uint64_t offset = 0;         // of the page's stored bytes in the file
  uint64_t stored_length = 0;  // bytes in the file (after compression)
  uint64_t raw_length = 0;     // bytes after decompression
  uint64_t first_row = 0;      // first row of the fragment this page holds
  uint32_t row_count = 0;      // >= 1
  Encoding encoding = Encoding::kPlain;
  Compression compression = Compression::kNone;
  // xxhash64 (seed 0) of the chunk checksums (version >= 2) or of the stored bytes (version 1).
  uint64_t checksum = 0;
  ColumnStats stats;
  // Bytes of the chunk-checksum array that follows the stored bytes (page_checksum.h); computed
  // from stored_length and the format version, not stored in the footer.
  uint64_t checksums_length = 0;

  uint64_t end_row() const { return first_row + row_count; }
  // The file offset just past the page: its stored bytes and its chunk checksums.
  uint64_t file_end() const { return offset + stored_length + checksums_length; }
};

struct ColumnChunkInfo {
  std::vector<PageInfo> pages;  // ascending, contiguous rows covering [0, num_rows)
  ColumnStats stats;            // merged over pages (computed, not stored)
};

struct FragmentMetadata {
  Schema schema;
  uint64_t num_rows = 0;
  std::vector<ColumnChunkInfo> columns;  // parallel to schema.fields()

  // Index of the first page of column `col` whose rows include `row`; precondition row < num_rows.
  size_t PageForRow(size_t col, uint64_t row) const;

  // The footer bytes (without the 24-byte trailer).
  std::string Serialize() const;
  // Parses and validates footer bytes (already checksum-verified) of a file of format `version`.
  // Corrupt, naming `file`, if the structure is inconsistent (bad kinds, a page with its chunk
  // checksums out of [16, data_end), rows not contiguous).
  static Result<FragmentMetadata> Parse(std::string_view footer, uint64_t data_end, uint16_t version,
                                        std::string_view file);
};

}  // namespace omnigraph::format
