// Private to src/format: constants of the fragment file layout (docs/format/fragment.md).
#pragma once

#include <cstdint>

namespace omnigraph::format {

inline constexpr char kFragmentMagic[4] = {'O', 'G', 'F', 'R'};
inline constexpr uint64_t kHeaderSize = 16;   // magic, u16 version, u16 flags, u64 zero
inline constexpr uint64_t kTrailerSize = 24;  // u64 footer length, u64 checksum, u16, u16, magic
inline constexpr uint64_t kMaxFragmentRows = UINT32_MAX;
// Bounds that keep a (checksum-valid but hostile) page from demanding huge allocations.
inline constexpr uint32_t kMaxPageRows = uint32_t{1} << 20;
inline constexpr uint64_t kMaxListElementsPerPage = uint64_t{1} << 26;

}  // namespace omnigraph::format
