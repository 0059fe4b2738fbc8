// Streaming scan over one table version (docs/architecture.md,
// "Tables, fragments, manifests, versions"; docs/format/table.md "Scans"): fragment pruning by
// manifest statistics, page-range pruning by the fragment footer's page statistics, reading only
// projected + filter columns of surviving ranges, dropping deleted rows, evaluating the predicate,
// and emitting format Batches (plus `_row_address` on request). Columns added after a fragment was
// written read as nulls.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "format/batch.h"
#include "omnigraph/result.h"
#include "table/predicate.h"
#include "table/table_version.h"

namespace omnigraph::table {

// Not thread-safe (one consumer); independent scanners over one version may run concurrently.
class Scanner {
 public:
  // Use TableVersion::Scan.
  Scanner(TableVersion version, ScanOptions options, BoundPredicate filter, std::vector<Field> projection);

  // The schema of every batch Next returns.
  const format::Schema& output_schema() const { return output_schema_; }
  // The next non-empty batch, or nullopt at the end. Errors from the store/format propagate
  // (Corrupt, NotFound, ...); after an error the scanner is finished.
  Result<std::optional<format::Batch>> Next();
  const ScanMetrics& metrics() const { return metrics_; }

 private:
  struct Range {
    uint64_t begin = 0;
    uint64_t end = 0;
  };
  // Plans the next fragment (pruning); false when no fragments are left.
  Result<bool> StartNextFragment();
  Result<std::optional<format::Batch>> ReadRange(Range r);

  TableVersion version_;
  ScanOptions options_;
  BoundPredicate filter_;
  std::vector<Field> projection_;
  std::vector<Field> needed_;  // projection + filter fields, by ascending id
  format::Schema output_schema_;
  ScanMetrics metrics_;

  size_t next_fragment_ = 0;
  const FragmentMeta* fragment_ = nullptr;
  std::shared_ptr<const format::FragmentReader> reader_;
  std::shared_ptr<const format::DeletionVector> deletion_;
  std::vector<FieldId> read_ids_;  // fields to read from the current fragment (present in the file)
  std::deque<Range> ranges_;
  bool done_ = false;
};

}  // namespace omnigraph::table
