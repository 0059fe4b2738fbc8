// A table version handle (docs/architecture.md, "Tables, fragments, manifests, versions";
// docs/format/table.md): one immutable manifest plus where the table lives. Opening is one Get of
// versions/<version_id>; scans, takes and blob reads go through the format layer. New versions come
// from table_writer.h (staged: written, but visible to nobody until the graph layer's commit names
// them). Row addresses are (fragment id << 32) | row offset within the fragment file.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/batch.h"
#include "format/blob_descriptor.h"
#include "format/deletion_vector.h"
#include "format/fragment_reader.h"
#include "io/object_store.h"
#include "omnigraph/result.h"
#include "table/manifest.h"
#include "table/predicate.h"
#include "table/table_cache.h"

namespace omnigraph::table {

class Scanner;

inline constexpr uint64_t MakeRowAddress(uint32_t fragment_id, uint32_t offset) {
  return (static_cast<uint64_t>(fragment_id) << 32) | offset;
}
inline constexpr uint32_t RowAddressFragment(uint64_t addr) { return static_cast<uint32_t>(addr >> 32); }
inline constexpr uint32_t RowAddressOffset(uint64_t addr) { return static_cast<uint32_t>(addr); }

// The optional row-address output column (U64, not null).
inline constexpr FieldId kRowAddressFieldId = 0xFFFFFFFFu;
inline constexpr std::string_view kRowAddressColumn = "_row_address";

struct ScanOptions {
  // Columns to return, in this order; nullopt = every column in schema order; empty = none (a
  // count-style scan: batches carry only rows, plus the row address if asked).
  std::optional<std::vector<std::string>> columns;
  Predicate filter;               // rows where it is TRUE
  bool with_row_address = false;  // appends `_row_address`
  size_t batch_rows = 65536;      // upper bound per output batch (>= 1)
  bool use_statistics = true;     // fragment and page pruning (off only to test pruning)
  // Only these fragments (e.g. to split a scan across threads, or to scan what an index does not
  // cover); nullopt = all. InvalidArgument for an id not in the version.
  std::optional<std::vector<uint32_t>> fragment_ids;
};

// Counters of one scan (for tests and benchmarks).
struct ScanMetrics {
  uint64_t fragments = 0;
  uint64_t fragments_pruned = 0;  // skipped by manifest statistics, without opening the file
  uint64_t ranges_read = 0;
  uint64_t ranges_pruned = 0;  // page ranges skipped by page statistics or deletions
  uint64_t rows_read = 0;      // rows decoded (before filtering)
};

// Immutable and cheap to copy (shared manifest and caches). Thread-safe. The store must outlive
// every handle and scanner made from it. `cache` (deletion vectors, id segments) may be shared
// across stores; fragment readers are cached per handle family, bound to this handle's store.
class TableVersion {
 public:
  // Stages the first version of a new table under `prefix` (e.g. "tables/<table_id>"): an empty
  // manifest with operation "create". InvalidArgument for a bad schema or prefix.
  static Result<TableVersion> Create(io::ObjectStore& store, std::string prefix, TableSchema schema);
  // Exactly one Get. NotFound if the version does not exist; Corrupt for a damaged manifest.
  // `cache` (optional) is shared with other handles of the same table.
  static Result<TableVersion> Open(io::ObjectStore& store, std::string prefix, std::string_view version_id,
                                   std::shared_ptr<TableCache> cache = nullptr);
  // A handle for a manifest already in memory (e.g. just staged); no I/O.
  static TableVersion FromManifest(io::ObjectStore& store, std::string prefix, std::shared_ptr<const Manifest> manifest,
                                   std::shared_ptr<TableCache> cache);

  const Manifest& manifest() const { return *manifest_; }
  const std::shared_ptr<const Manifest>& shared_manifest() const { return manifest_; }
  const std::string& version_id() const { return manifest_->version_id; }
  const TableSchema& schema() const { return manifest_->schema; }
  uint64_t row_count() const { return manifest_->row_count; }
  const std::string& prefix() const { return prefix_; }
  io::ObjectStore& store() const { return *store_; }
  const std::shared_ptr<TableCache>& cache() const { return cache_; }
  // A handle for another (e.g. newer, just staged) manifest of the same table, sharing this
  // handle's store and caches (including its open fragment readers). No I/O.
  TableVersion Derive(std::shared_ptr<const Manifest> manifest) const;

  // A streaming scan. InvalidArgument for unknown columns or an ill-typed predicate.
  Result<std::unique_ptr<Scanner>> Scan(ScanOptions options) const;
  // The whole scan as one batch (tests, small tables).
  Result<format::Batch> ScanAll(ScanOptions options) const;
  // Live rows matching `filter`.
  Result<uint64_t> CountRows(const Predicate& filter) const;
  // Rows at `addresses`, in that order (columns as ScanOptions::columns). NotFound for an address
  // that is not a live row of this version.
  Result<format::Batch> Take(std::span<const uint64_t> addresses,
                             const std::optional<std::vector<std::string>>& columns = std::nullopt) const;

  // Writes `payloads` into one new blob file of this table and returns their descriptors, whose
  // `file` is table-relative ("blob/<ulid>.blob"): put them into Blob columns of appended batches.
  Result<std::vector<format::BlobDescriptor>> WriteBlobs(std::span<const std::string> payloads) const;
  // Reads a payload named by a descriptor from a Blob column of this table.
  Result<std::string> ReadBlob(const format::BlobDescriptor& blob) const;

  // Reachability for GC: every object this version references, as store keys (manifest, fragments,
  // deletion vectors, blob files, index objects), sorted and unique.
  std::vector<std::string> ReferencedKeys() const;
  // Bytes of the fragment files of this version (the stored size of its rows; for benchmarks).
  uint64_t DataBytes() const;

  // Building blocks for writers, the id index and diffs (cached, thread-safe).
  std::string AbsoluteKey(std::string_view relative) const;
  Result<std::shared_ptr<const format::FragmentReader>> OpenFragment(const FragmentMeta& f) const;
  // The fragment's deletion vector (an empty one when it has none).
  Result<std::shared_ptr<const format::DeletionVector>> LoadDeletion(const FragmentMeta& f) const;

 private:
  TableVersion(io::ObjectStore* store, std::string prefix, std::shared_ptr<const Manifest> m,
               std::shared_ptr<TableCache> cache)
      : store_(store),
        prefix_(std::move(prefix)),
        manifest_(std::move(m)),
        cache_(std::move(cache)),
        readers_(std::make_shared<ReaderCache>()) {}

  io::ObjectStore* store_;
  std::string prefix_;
  std::shared_ptr<const Manifest> manifest_;
  std::shared_ptr<TableCache> cache_;
  std::shared_ptr<ReaderCache> readers_;  // bound to store_
};

// Resolves column names to fields of `schema` (nullopt = all). InvalidArgument for unknown names or
// duplicates.
Result<std::vector<Field>> ResolveColumns(const TableSchema& schema,
                                          const std::optional<std::vector<std::string>>& columns);

}  // namespace omnigraph::table
