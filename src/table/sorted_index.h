// The sorted index of an orderable column (`@index` on an integer, Date or DateTime property): one
// run per fragment file, its non-null values in ascending order with their row offsets. A
// fragment file never changes, so its run never does: a write adds runs for its new fragments and
// invalidates none (deletions are applied when the run is read, from the version's deletion
// vectors). Runs are derived in memory from the fragment's column (read from the fragment file)
// and kept in the TableCache; a
// range or equality test then costs two binary searches per fragment plus the rows it keeps,
// instead of a pass over the column.
//
// When a large fragment's run is built is the caller's choice (`build`): sorting costs about ten
// passes over the column, so the engine builds after a column's selective tests have paid for it
// in scans (NoteSelectiveScan, the ski-rental rule; docs/decisions.md).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "omnigraph/result.h"
#include "table/table_version.h"

namespace omnigraph::table {

struct SortedRun {
  std::vector<int64_t> values;  // ascending; null rows are absent
  std::vector<uint32_t> rows;   // the row offset of each value (ties ascending)
  uint64_t memory_bytes() const { return 64 + 8 * values.capacity() + 4 * rows.capacity(); }
};

// Whether `field` is a column a sorted run can hold (I32, I64, Date, DateTime).
bool SortableField(const TableSchema& schema, FieldId field);

// The run of `field` over every physical row of fragment `f` (deleted rows included). A fragment
// written before the column was added has an empty run (its rows read as null).
Result<std::shared_ptr<const SortedRun>> BuildSortedRun(const TableVersion& version, const FragmentMeta& f,
                                                        FieldId field);

// Inclusive bounds on the stored integer (a Date's days, a DateTime's milliseconds).
struct IntRange {
  int64_t lo = INT64_MIN;
  int64_t hi = INT64_MAX;
};

struct SortedStats {
  uint64_t runs_cached = 0;  // runs found in the cache
  uint64_t runs_built = 0;   // runs built by this call
  uint64_t hits = 0;         // rows returned
};

// A fragment's run is built once selective scans of it have read this many times its rows
// (NoteSelectiveScan); a fragment of at most kSmallRunRows rows gets its run without, while the
// fragments missing a run hold at most an eighth of the table's rows (a write's new fragments
// beside runs already built). So a property tested once never pays for a sort of its column.
inline constexpr uint64_t kScansBeforeRun = 4;
inline constexpr uint64_t kSmallRunRows = uint64_t{1} << 16;

// The positions in scan order (the live rows of `version` numbered from 0, fragments in manifest
// order, rows in offset order) of the live rows whose `field` lies in `range`, ascending.
// Fragments whose statistics exclude the range are skipped. nullopt (the caller scans the
// column) when more than `max_hits` rows may match, or a fragment's run is missing and may not
// be built yet (above). InvalidArgument if `field` is not SortableField.
Result<std::optional<std::vector<uint32_t>>> SortedPositions(const TableVersion& version, FieldId field, IntRange range,
                                                             uint64_t max_hits, SortedStats* stats = nullptr);

// Records that a selective test of `field` read the whole column of `version`: each fragment's
// credit grows by its rows (kept in the TableCache, by fragment file).
void NoteSelectiveScan(const TableVersion& version, FieldId field);

}  // namespace omnigraph::table
