#include "format/page_checksum.h"

#include <cstring>
#include <string>

#include "common/error_codes.h"
#include "common/hash.h"
#include "format/byte_io.h"  // little-endian hosts only

namespace omnigraph::format::internal {

uint32_t ChunkChecksum(std::string_view chunk) { return static_cast<uint32_t>(XxHash64(chunk)); }

uint64_t AppendChunkChecksums(std::string_view stored, std::string* out) {
  const size_t at = out->size();
  const uint64_t n = ChunkCount(stored.size());
  out->resize(at + 4 * n);
  char* sums = out->data() + at;
  for (uint64_t c = 0; c < n; ++c) {
    uint32_t sum = ChunkChecksum(stored.substr(c * kChecksumChunkBytes, kChecksumChunkBytes));
    std::memcpy(sums + 4 * c, &sum, 4);
  }
  return XxHash64(std::string_view(sums, 4 * n));
}

bool ChunkMatches(std::string_view sums, uint64_t chunk, std::string_view bytes) {
  uint32_t want = 0;
  std::memcpy(&want, sums.data() + 4 * chunk, 4);
  return ChunkChecksum(bytes) == want;
}

Status VerifyPageChecksums(std::string_view stored, std::string_view sums, uint64_t checksum, uint16_t version) {
  if (version < kFirstChunkedVersion) {
    if (XxHash64(stored) != checksum) return CorruptError("page checksum mismatch");
    return Status::Ok();
  }
  if (sums.size() != ChunkChecksumsLength(stored.size(), version)) {
    return CorruptError("short chunk checksums");
  }
  if (XxHash64(sums) != checksum) return CorruptError("chunk checksums do not match the footer");
  for (uint64_t c = 0; c < ChunkCount(stored.size()); ++c) {
    if (!ChunkMatches(sums, c, stored.substr(c * kChecksumChunkBytes, kChecksumChunkBytes))) {
      return CorruptError("checksum mismatch in chunk " + std::to_string(c));
    }
  }
  return Status::Ok();
}

}  // namespace omnigraph::format::internal
