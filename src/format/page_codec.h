// Private to src/format: encoding and decoding of one page's column body (validity bitmap +
// encoded values), docs/format/fragment.md "Page body". Decoders never trust their input: any
// inconsistency is a Corrupt status (the caller adds file/column/page context).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "format/column.h"
#include "format/fragment_metadata.h"
#include "omnigraph/result.h"

namespace omnigraph::format::internal {

struct EncodeOptions {
  bool allow_encodings = true;
  std::optional<Encoding> force_encoding;
};

// Appends the body of all rows of `column` to *out; returns the top-level encoding chosen.
Encoding EncodeColumnBody(const Column& column, const EncodeOptions& options, std::string* out);
// An upper bound of the bytes EncodeColumnBody appends for `column` under any options (the writer
// reserves a fragment's buffer once with it; an underestimate would only cost a reallocation).
size_t EncodedBodyBound(const Column& column);

// Decodes a body of `rows` rows of `type`, which must consume all of `body`.
Result<Column> DecodeColumnBody(std::string_view body, const DataType& type, size_t rows);

// Compression of a whole page body. CompressPage returns false if the codec failed or did not
// make the page smaller (the caller then stores it uncompressed).
bool CompressPage(Compression c, int zstd_level, std::string_view raw, std::string* out);
// Corrupt unless the stored bytes decompress to exactly raw_length bytes.
Result<std::string> DecompressPage(Compression c, std::string_view stored, uint64_t raw_length);

}  // namespace omnigraph::format::internal
