// Lookups of a few values in a hash-indexed column of one table version — the key column (id
// index) or an indexed String column (value index, TableSchema::indexed_field_ids) — that read
// only what those values need: segments already in the cache are probed in memory, small ones
// (up to 4096 entries, or 8 per value) are read whole, verified and cached, and the others by
// ranged reads of the checksummed chunks holding the buckets the values hash to (docs/format/
// table.md "Id-index segment"), so the bytes read follow the number of values, not the table, and
// every byte used is verified. Fragments no segment of the column covers
// are scanned on that column (with the caller's filter, so statistics can prune). This is how a
// merge checks 1,000 changed entities against a table of millions of rows.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "omnigraph/result.h"
#include "table/predicate.h"
#include "table/table_version.h"

namespace omnigraph::table {

struct ProbeStats {
  uint64_t segments_in_memory = 0;   // probed from the cache
  uint64_t segments_ranged = 0;      // probed by ranged reads
  uint64_t segments_remembered = 0;  // every value answered by an earlier probe (TableCache::GetProbe)
  uint64_t ranged_reads = 0;         // GetRange requests issued (after coalescing)
  uint64_t whole_reads = 0;          // segments without chunk checksums (before version 3), read whole
  uint64_t bytes_read = 0;           // bytes of those requests
  uint64_t fragments_scanned = 0;    // uncovered fragments scanned on the column
};

// Every live row whose String column `field` holds one of `values` (exact bytes), as
// (index into `values`, row address), sorted by address. `fallback_filter` restricts the scan of
// uncovered fragments (it must be TRUE for every row holding one of the values, e.g. an IN or
// range predicate on the column; an empty Predicate scans the whole column). InvalidArgument if
// `field` is not a String column of the table; Corrupt naming the segment for an inconsistent
// segment; format_too_new for a segment version this build cannot read.
// `whole_segment_entries`: segments of at most this many entries (or 8 per value) are read whole
// and cached (0 = always ranged unless cached; for tests).
inline constexpr uint64_t kWholeSegmentEntries = 4096;
Result<std::vector<std::pair<size_t, uint64_t>>> ProbeColumn(const TableVersion& version, FieldId field,
                                                             std::span<const std::string> values,
                                                             const Predicate& fallback_filter,
                                                             ProbeStats* stats = nullptr,
                                                             uint64_t whole_segment_entries = kWholeSegmentEntries);

// Whether `field` has hash-index segments in `version` (the key column, or an indexed column).
bool HasHashIndex(const TableVersion& version, FieldId field);

// The rows (physical, deleted ones included) of the fragments no hash-index segment of `field`
// covers: what ProbeColumn scans instead of probing (the few small fragments a local write defers,
// or a whole table whose index was added later).
uint64_t UncoveredRows(const TableVersion& version, FieldId field);

// Whether looking up `n` values is cheaper by probing (ProbeColumn) than by opening the column's
// whole index (IdIndex::Open reads every segment): few values against a large table.
inline bool FewLookups(const TableVersion& version, size_t n) { return n * 64 <= version.row_count(); }

// The live row of each id of the key column, like IdIndex::LookupMany (the highest address when
// several rows hold one id), through ProbeColumn. InvalidArgument if the table has no key.
Result<std::vector<std::optional<uint64_t>>> ProbeIds(const TableVersion& version, std::span<const std::string> ids);

// The live rows matching `filter`, found through hash indexes, as sorted row addresses — when
// `filter` is an equality or IN on hash-indexed String columns, or an OR of those, with few
// values in all (FewLookups). nullopt when the filter has another shape, names a column without
// a hash index, or has too many values: scan instead. (A mutation's `delete ... where id = $x`
// and its cascade to edges whose src or dst is one of the deleted ids.)
Result<std::optional<std::vector<uint64_t>>> ProbeMatch(const TableVersion& version, const Predicate& filter);

}  // namespace omnigraph::table
