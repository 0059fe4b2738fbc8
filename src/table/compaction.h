// Compaction (docs/architecture.md, "Tables, fragments, manifests, versions"; docs/format/table.md
// "Writes"): rewrites small or deletion-heavy fragments into few large ones as a new staged version
// with the same logical rows (operation "compact"). Rewritten rows get new row addresses; untouched
// fragments, their deletion vectors and id segments are reused as they are.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "omnigraph/result.h"
#include "table/table_version.h"
#include "table/table_writer.h"

namespace omnigraph::table {

struct CompactOptions {
  // Output fragments hold up to this many rows.
  uint64_t target_rows_per_fragment = uint64_t{1} << 20;
  uint64_t target_bytes_per_fragment = uint64_t{256} << 20;  // estimated in-memory bytes
  // A fragment is rewritten if it has fewer live rows than this ...
  uint64_t small_fragment_rows = uint64_t{1} << 19;
  // ... or if at least this fraction of its rows is deleted.
  double max_deleted_fraction = 0.2;
  // Candidates are rewritten only if there are at least this many, or any has deletions.
  size_t min_candidates = 2;
  // When not empty: exactly these fragments are rewritten (ids not in the version are ignored) and
  // the three rules above are not applied. Automatic compaction picks one size tier this way.
  std::vector<uint32_t> only_fragments;
  format::FragmentWriterOptions fragment;
};

struct CompactResult {
  bool changed = false;  // false: nothing worth rewriting; `version` is the base
  TableVersion version;
  uint64_t fragments_removed = 0;
  uint64_t fragments_written = 0;
  uint64_t rows_rewritten = 0;
  // (old row address, new row address) of every rewritten row, ascending by old address: lets
  // an index segment over the removed fragments be relabelled instead of rebuilt.
  std::vector<std::pair<uint64_t, uint64_t>> moved;
};

// Thread-safe (reads `base`, writes only new objects).
Result<CompactResult> Compact(const TableVersion& base, const CompactOptions& options = {});

}  // namespace omnigraph::table
