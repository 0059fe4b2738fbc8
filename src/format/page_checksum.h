// Private to src/format: page checksums of the fragment format (docs/format/fragment.md "Page
// checksums"). From version 2 the stored bytes of a page are cut into kChecksumChunkBytes chunks,
// each with a 32-bit checksum in an array stored right after the page; the footer's page checksum
// covers that array. A ranged read can thus verify exactly the chunks it uses.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "omnigraph/status.h"

namespace omnigraph::format::internal {

// Chunk size of the page checksums (fixed by format version 2).
inline constexpr uint64_t kChecksumChunkBytes = 1024;
// The first format version with chunk checksums; older pages have one checksum of their bytes.
inline constexpr uint16_t kFirstChunkedVersion = 2;

// Number of chunks of a page of `stored_length` bytes.
inline uint64_t ChunkCount(uint64_t stored_length) {
  return (stored_length + kChecksumChunkBytes - 1) / kChecksumChunkBytes;
}

// Bytes of the chunk-checksum array stored after a page of `stored_length` bytes written by
// format `version`: 4 per chunk from version 2 on, none before.
inline uint64_t ChunkChecksumsLength(uint64_t stored_length, uint16_t version) {
  return version >= kFirstChunkedVersion ? 4 * ChunkCount(stored_length) : 0;
}

// The checksum of one chunk: the low 32 bits of its xxhash64 (seed 0).
uint32_t ChunkChecksum(std::string_view chunk);

// Appends the chunk-checksum array of the stored page bytes `stored` to *out (which must not
// alias `stored`) and returns the page checksum the footer records for it: xxhash64 of the array.
uint64_t AppendChunkChecksums(std::string_view stored, std::string* out);

// Whether chunk `chunk` (its bytes) matches entry `chunk` of the checksum array `sums`.
// Precondition: sums holds at least chunk + 1 entries.
bool ChunkMatches(std::string_view sums, uint64_t chunk, std::string_view bytes);

// Verifies a whole page: for version >= 2 that `sums` (its chunk-checksum array) hashes to the
// footer's `checksum` and every chunk of `stored` matches its entry; for version 1 (sums empty)
// that xxhash64 of `stored` is `checksum`. Corrupt (without file context) on a mismatch.
Status VerifyPageChecksums(std::string_view stored, std::string_view sums, uint64_t checksum, uint16_t version);

}  // namespace omnigraph::format::internal
