// Private to src/format: the row-granular path of FragmentReader::Take (docs/format/fragment.md
// "Row-granular reads"). For uncompressed pages with a random-access body it computes the byte
// ranges of just the requested rows, rounds them out to the checksummed chunks holding them and
// fetches those (with the page's chunk checksums) by coalesced GetRange calls (in parallel on the
// I/O pool), in at most two rounds shared by all pages of one Take; every chunk is verified
// before anything is decoded from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/column.h"
#include "format/fragment_metadata.h"
#include "format/fragment_reader.h"
#include "io/object_store.h"
#include "omnigraph/result.h"

namespace omnigraph::format::internal {

// The requested rows of one page.
struct RangedPage {
  size_t col = 0;              // schema position
  size_t page = 0;             // page index within the column
  std::vector<uint32_t> rows;  // page-relative, ascending, unique
};

// Whether `rows` requested rows of `page` (of a column of `type`, in a file of format `version`)
// should be read row-granularly: the file has chunk checksums (version >= 2), the page is stored
// uncompressed, its encoding is random-access (plain fixed-width values, plain strings, bit-packed
// integers, dictionary strings, fixed-size vectors), it is at least options.min_page_bytes long
// and the rows are sparse enough.
bool WantRanged(const PageInfo& page, const DataType& type, uint16_t version, size_t rows,
                const RangedTakeOptions& options);

// Reads the requested rows of every page of `pages`: result[i] holds the rows of pages[i] in its
// `rows` order, or nullopt when the page is better or only safely read whole — a chunk or the
// chunk checksums do not match their checksum, its layout is not the expected one, its ranged
// bytes would exceed options.max_byte_fraction of it, or a structure check failed (an offset out
// of order or beyond the page, a dictionary index out of range, a null in a non-nullable column,
// ...). The caller then reads that page whole, which verifies all its checksums and reports any
// corruption. Errors: store errors; Corrupt naming `key` if the object is shorter than the page
// index says. Precondition: every page passed WantRanged. Thread-safe.
Result<std::vector<std::optional<Column>>> ReadRanged(io::ObjectStore& store, const std::string& key,
                                                      const FragmentMetadata& meta, std::span<const RangedPage> pages,
                                                      const RangedTakeOptions& options);

// A store range error on a file we sized ourselves means the object is shorter than recorded:
// Corrupt naming `key`. Other statuses pass through.
Status MapRangeError(Status s, std::string_view key);

}  // namespace omnigraph::format::internal
