// Private to src/format: encoding and decoding of one page's column body (validity bitmap +
// encoded values), docs/format/fragment.md "Page body". Decoders never trust their input: any
// inconsistency is a Corrupt status (the caller adds file/column/page context).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/column.h"
#include "format/column_internal.h"
#include "format/fragment_metadata.h"
#include "omnigraph/result.h"

namespace omnigraph::format::internal {

struct EncodeOptions {
  bool allow_encodings = true;
  std::optional<Encoding> force_encoding;
  // The fragment format version whose body layout to write: plain String/Blob payloads hold u32
  // lengths in version 1 and u32 end offsets from version 2 on.
  uint16_t version = kFragmentFormatVersion;
};

// Appends the body of all rows of `column` to *out; returns the top-level encoding chosen.
Encoding EncodeColumnBody(const Column& column, const EncodeOptions& options, std::string* out);
// An upper bound of the bytes EncodeColumnBody appends for `column` under any options (the writer
// reserves a fragment's buffer once with it; an underestimate would only cost a reallocation).
size_t EncodedBodyBound(const Column& column);

// Decodes a body of `rows` rows of `type` written by fragment format `version`, which must consume
// all of `body`.
Result<Column> DecodeColumnBody(std::string_view body, const DataType& type, size_t rows, uint16_t version);

// Building blocks of the decoder shared with the row-granular reader (ranged_take.cc). `d` already
// holds type, rows and validity (empty = all valid).
// The 64-bit image of a plain integer of `width` bytes (1, 4 or 8) at `p`, sign-extended for
// 4-byte signed values.
uint64_t PlainIntegerImage(const char* p, size_t width, bool is_signed);
// Stores integer-like images into d's typed buffer, zeroing null rows; Corrupt if a value does not
// fit the column type (Bool: 0/1). Precondition: raw.size() == d->rows.
Status StoreIntegerImages(std::vector<uint64_t> raw, ColumnData* d);
// Stores d->rows plain F32 / F64 / Vector values, zeroing null rows. Precondition: `bytes` holds
// exactly d->rows * FixedWidth(d->type) bytes.
void StoreFloats(std::string_view bytes, ColumnData* d);

// Compression of a whole page body. CompressPage returns false if the codec failed or did not
// make the page smaller (the caller then stores it uncompressed).
bool CompressPage(Compression c, int zstd_level, std::string_view raw, std::string* out);
// Corrupt unless the stored bytes decompress to exactly raw_length bytes.
Result<std::string> DecompressPage(Compression c, std::string_view stored, uint64_t raw_length);

}  // namespace omnigraph::format::internal
