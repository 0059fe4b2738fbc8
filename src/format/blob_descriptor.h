// The cell of a Blob column (docs/architecture.md, "Tables, fragments, manifests, versions"): where
// a payload lives — the object key of a blob file, the payload's byte offset and length inside it.
// A Blob column stores each descriptor as an opaque byte string (Encode/Decode below);
// docs/format/blob.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "omnigraph/result.h"

namespace omnigraph::format {

struct BlobDescriptor {
  std::string file;     // object key of the blob file (as given to BlobFileWriter)
  uint64_t offset = 0;  // of the payload's first byte in the file
  uint64_t length = 0;  // payload bytes

  // 8-byte LE offset, 8-byte LE length, then the file key bytes.
  std::string Encode() const;
  // Corrupt if `bytes` is shorter than 16 bytes or names an empty file.
  static Result<BlobDescriptor> Decode(std::string_view bytes);
  bool operator==(const BlobDescriptor&) const = default;
};

}  // namespace omnigraph::format
