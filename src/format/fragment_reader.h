// Reads a fragment file (.ogf, docs/format/fragment.md) through an ObjectStore: Open costs one
// ranged read of the file tail (a second only if the footer is larger than the first guess, plus a
// Head when the file size is not given); reads then fetch only the pages of the requested columns
// and rows (the pages of all columns of one read in one round of parallel, coalesced GetRange
// calls; Take of a few rows of a large page fetches just their bytes). docs/architecture.md, "Tables, fragments,
// manifests, versions".
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/check.h"
#include "common/mutex.h"
#include "format/batch.h"
#include "format/column.h"
#include "format/fragment_metadata.h"
#include "io/object_store.h"
#include "omnigraph/result.h"

namespace omnigraph::format {

namespace internal {
struct RangedPage;  // ranged_take.h
}  // namespace internal

// When FragmentReader::Take reads just the checksummed 4 KiB chunks holding the requested rows of
// a page instead of the whole page (docs/format/fragment.md "Row-granular reads"). Only
// uncompressed pages of random-access encodings in version-2 files qualify; the thresholds keep
// dense or small requests on the whole-page path, which costs one request.
struct RangedTakeOptions {
  bool enabled = true;
  // Pages stored in fewer bytes are read whole.
  uint64_t min_page_bytes = 16 * 1024;
  // A page is read whole when more than this fraction of its rows is requested...
  double max_row_fraction = 1.0 / 8;
  // ...or when its ranged reads (the chunks of values, offsets, dictionary, and the chunk
  // checksums; as coalesced) would fetch more than this fraction of it.
  double max_byte_fraction = 0.5;
  // Ranges separated by fewer bytes are fetched with one GetRange.
  uint64_t coalesce_gap = 1024;
};

struct FragmentOpenOptions {
  // The object's size (from the manifest's FragmentInfo::file_size); saves a Head request.
  std::optional<uint64_t> file_size;
  // Bytes to fetch from the end on open (FragmentInfo::tail_size reads the footer exactly); if the
  // footer turns out larger, a second ranged read fetches the rest.
  uint64_t tail_size_hint = 64 * 1024;
  RangedTakeOptions ranged_take;
  // Page reads (Read, ReadPages, the whole pages of a Take): the pages of all requested columns
  // are fetched in one round, in parallel; pages less than this many bytes apart share one
  // GetRange (the bytes between are read and dropped).
  uint64_t page_coalesce_gap = 64 * 1024;
};

// Errors of every method: NotFound / Transient / Io from the store; Corrupt naming the file (and
// the column and page) when a checksum, magic or structure check fails — corrupt bytes are never
// returned as data. Take's row-granular reads verify the chunk checksums of every chunk they use
// (version 2; version-1 pages are always read whole); a page that fails is read whole, which
// reports it.
// Thread-safe: after Open the reader is immutable (apart from an internal, locked cache of the last
// decoded page per column); concurrent reads are fine. The store must outlive the reader.
class FragmentReader {
 public:
  static Result<std::unique_ptr<FragmentReader>> Open(io::ObjectStore& store, std::string key,
                                                      const FragmentOpenOptions& options = {});

  const std::string& key() const { return key_; }
  const Schema& schema() const { return metadata_.schema; }
  uint64_t num_rows() const { return metadata_.num_rows; }
  uint64_t file_size() const { return file_size_; }
  // kOldestFragmentFormatVersion..kFragmentFormatVersion.
  uint16_t format_version() const { return version_; }
  // Page index and statistics, for pruning: metadata().columns[i].pages[p].stats.
  const FragmentMetadata& metadata() const { return metadata_; }
  // Column position of a field id in schema(), or nullopt.
  std::optional<size_t> ColumnIndex(FieldId id) const { return metadata_.schema.IndexOfId(id); }

  // Rows [begin_row, end_row) of the fields `ids` (in that order; the batch schema is
  // schema().Select(ids)). Reads only the pages overlapping the range. NotFound for an id not in
  // the fragment; InvalidArgument if begin_row > end_row or end_row > num_rows().
  Result<Batch> Read(std::span<const FieldId> ids, uint64_t begin_row, uint64_t end_row) const;
  Result<Batch> ReadAll(std::span<const FieldId> ids) const;

  // The rows at `rows` (any order, repeats allowed), in that order. Reads only pages holding at
  // least one of them, and of a large page holding few of them only the bytes of those rows (see
  // RangedTakeOptions; results are the same either way). InvalidArgument if a row is >= num_rows().
  Result<Batch> Take(std::span<const FieldId> ids, std::span<const uint64_t> rows) const;

  // Rows of pages [first_page, end_page) of column `col` (schema position), i.e. rows
  // [pages[first_page].first_row, pages[end_page-1].end_row()). For page-pruned scans.
  // InvalidArgument on an empty or out-of-range page span.
  Result<Column> ReadPages(size_t col, size_t first_page, size_t end_page) const;

  // Reads and checks every page of every column (and the header magic); Corrupt on the first bad one.
  Status Verify() const;

 private:
  FragmentReader(io::ObjectStore& store, std::string key, uint64_t file_size, uint16_t version,
                 FragmentMetadata metadata, const FragmentOpenOptions& options);
  // Verifies and decodes the page `page` of column `col` from its stored bytes followed by its
  // chunk checksums (none in version 1).
  Result<Column> DecodePage(size_t col, size_t page, std::string_view bytes) const;
  // Some pages of one column: `col` a schema position, `pages` sorted unique page indices.
  struct ColumnPages {
    size_t col = 0;
    std::vector<size_t> pages;
  };
  // The decoded pages of each entry (same order), from the last-page cache or the store: all
  // missing pages of all entries in one round of GetRange calls (ranges less than
  // page_coalesce_gap_ apart share one; the others run in parallel).
  Result<std::vector<std::vector<Column>>> LoadColumnPages(std::span<const ColumnPages> wanted) const;
  Result<std::vector<Column>> LoadPages(size_t col, const std::vector<size_t>& pages) const;
  // Whether page `page` of column `col` is the cached one.
  bool IsCached(size_t col, size_t page) const;
  // Take, per column: which pages hold the rows (`sorted`: ascending, unique) and which of them to
  // read row-granularly (appended to *ranged); then the column of the requested rows in order.
  struct TakePlan;
  TakePlan PlanTake(size_t col, std::span<const uint64_t> sorted, std::vector<internal::RangedPage>* ranged) const;
  // Whether page plan.pages[k] was read row-granularly (else it is among the whole pages).
  static bool IsRanged(const TakePlan& plan, size_t k, std::span<const std::optional<Column>> partial);
  // `whole`: the pages of plan.col read whole, decoded as `decoded`.
  Result<Column> AssembleTake(const TakePlan& plan, std::span<const uint64_t> rows,
                              std::span<const internal::RangedPage> ranged,
                              std::span<const std::optional<Column>> partial, const ColumnPages& whole,
                              std::span<const Column> decoded) const;

  struct CachedPage {
    size_t page = SIZE_MAX;
    Column column;
  };

  io::ObjectStore& store_;
  std::string key_;
  uint64_t file_size_ = 0;
  uint16_t version_ = kFragmentFormatVersion;
  FragmentMetadata metadata_;
  RangedTakeOptions ranged_take_;
  uint64_t page_coalesce_gap_ = 0;
  // The last decoded page of each column, so consecutive range reads that share a page (batch
  // boundaries inside pages) fetch and decode it once.
  mutable Mutex cache_mu_;
  mutable std::vector<CachedPage> last_page_ OG_GUARDED_BY(cache_mu_);
};

}  // namespace omnigraph::format
