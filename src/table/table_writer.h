// Writes that stage new table versions (docs/architecture.md,
// "Tables, fragments, manifests, versions"; docs/format/table.md "Writes"): append, delete by row
// address or predicate, upsert by key, overwrite, and metadata-only column changes. Every write
// creates only new objects (fragments, deletion vectors, id segments, then the manifest with
// PutIfAbsent under versions/); nothing existing is modified, so a failure at any request leaves
// every earlier version intact. The result is staged: no reader sees it until the graph layer's
// commit names it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/batch.h"
#include "format/deletion_vector.h"
#include "format/fragment_writer.h"
#include "omnigraph/result.h"
#include "table/id_index.h"
#include "table/predicate.h"
#include "table/table_version.h"

namespace omnigraph::table {

struct WriteOptions {
  format::FragmentWriterOptions fragment;
  // New fragments hold at most this many rows (an append of more writes several).
  uint64_t max_rows_per_fragment = uint64_t{1} << 20;
  // ... and about at most this many bytes (estimated from the rows' in-memory size). A large
  // append is split into fragments of even size, which are encoded and written in parallel.
  uint64_t max_bytes_per_fragment = uint64_t{256} << 20;
  // Overrides the operation kind recorded in the manifest (default: derived from the changes).
  std::string operation;
};

// Accumulates the changes of one write against `base`, applied in call order, then stages them as
// one new version. Not thread-safe. Deletes and upserts see the rows of `base` plus rows appended
// earlier in this writer.
class TableWriter {
 public:
  explicit TableWriter(TableVersion base, WriteOptions options = {});

  // Rows to append; columns matched by name (missing nullable columns become null).
  // InvalidArgument on schema mismatch (see ConformInputBatch).
  Status Append(const format::Batch& rows);
  // Deletes live rows of `base` by address. NotFound for an address outside every fragment;
  // addresses already deleted are ignored.
  Status Delete(std::span<const uint64_t> addresses);
  // Deletes every live row (of base and of pending appends) where `filter` is TRUE.
  Status DeleteWhere(const Predicate& filter);
  // Replaces rows with the same key (base or pending) by `rows`, appends the others.
  // InvalidArgument if the table has no key column or `rows` repeats a key.
  Status Upsert(const format::Batch& rows);
  // Drops every row of base and every pending append (overwrite = ReplaceAll + Append).
  void ReplaceAll();

  uint64_t rows_inserted() const { return inserted_; }
  uint64_t rows_deleted() const { return deleted_; }

  // Writes the files and the manifest; returns the staged version. The writer may not be reused.
  Result<TableVersion> Commit();

 private:
  Status EnsureIdIndex();
  Status DeleteRow(uint64_t addr, bool* deleted);
  std::string DerivedOperation() const;

  TableVersion base_;
  WriteOptions options_;
  std::vector<format::Batch> pending_;                      // conformed to base schema
  std::map<uint32_t, format::DeletionVector> new_deletes_;  // base fragment id -> added rows
  std::optional<IdIndex> id_index_;
  bool replace_all_ = false;
  bool used_append_ = false, used_delete_ = false, used_upsert_ = false;
  uint64_t inserted_ = 0;
  uint64_t deleted_ = 0;
  bool committed_ = false;
};

// One-call forms (each stages one version).
Result<TableVersion> AppendRows(const TableVersion& base, const format::Batch& rows, const WriteOptions& options = {});
Result<TableVersion> DeleteRows(const TableVersion& base, std::span<const uint64_t> addresses,
                                const WriteOptions& options = {});
Result<TableVersion> DeleteWhere(const TableVersion& base, const Predicate& filter, const WriteOptions& options = {});
Result<TableVersion> UpsertRows(const TableVersion& base, const format::Batch& rows, const WriteOptions& options = {});
Result<TableVersion> Overwrite(const TableVersion& base, const format::Batch& rows, const WriteOptions& options = {});

// Metadata-only schema changes: a new manifest with the same fragments. AddColumn gives the
// (always nullable) field a fresh id — `id`, if non-zero (e.g. the catalog's stable property id;
// it must be >= the schema's next_field_id, ids are never reused), else next_field_id; old
// fragments read it as null. RenameColumn keeps the id. DropColumn retires the id (the key column
// cannot be dropped). InvalidArgument on unknown or duplicate names or a reused id.
Result<TableVersion> AddColumn(const TableVersion& base, std::string name, DataType type, FieldId id = 0);
Result<TableVersion> RenameColumn(const TableVersion& base, std::string_view from, std::string to);
Result<TableVersion> DropColumn(const TableVersion& base, std::string_view name);
// The column accepts nulls from this version on (a required property made optional). A no-op
// manifest when it already does; InvalidArgument for the key column or an unknown name.
Result<TableVersion> MakeColumnNullable(const TableVersion& base, std::string_view name);
// The String column gets a value index (TableSchema::indexed_field_ids) from this version on: rows
// written later are indexed as they are written, existing fragments when compaction rewrites them,
// and probes scan the fragments no segment covers yet (index_probe.h), so answers never depend on
// coverage. The base itself when the column is the key or already indexed; InvalidArgument for an
// unknown or non-String column.
Result<TableVersion> AddValueIndex(const TableVersion& base, std::string_view name);

// A version with the same rows whose segments of (segment.kind, segment.field_id) are replaced by
// `segment` (its objects already written; e.g. an ANN index built by `optimize`), with operation
// "index". InvalidArgument for a segment without objects or covering a fragment `base` lacks.
Result<TableVersion> ReplaceIndexSegments(const TableVersion& base, IndexSegmentMeta segment);

// Shared by writers and compaction: stages `m` (fills version id, parent, sequence, time) with
// one PutIfAbsent and returns its handle sharing `base`'s cache.
Result<TableVersion> StageManifest(const TableVersion& base, Manifest m);

// A new fragment planned by PlanFragments: id and key assigned, rows sliced, not yet written.
struct PlannedFragment {
  FragmentMeta meta;                  // id, file_key, physical_rows and blob_keys filled in
  std::vector<format::Batch> slices;  // the rows, in order
};

// Cuts `rows` (already in table-schema order) into fragments of at most `max_rows` rows and about
// `max_bytes` estimated bytes (a larger batch is cut into even pieces), taking ids from
// `*next_fragment_id`, and appends each piece's slice of each feed's column (sharing `rows`'
// buffers) with the piece's first row address to that feed when `feeds` is non-null. No I/O.
Result<std::vector<PlannedFragment>> PlanFragments(const TableVersion& table, const std::vector<format::Batch>& rows,
                                                   uint64_t max_rows, uint64_t max_bytes, uint32_t* next_fragment_id,
                                                   std::vector<IndexFeed>* feeds);
// Encodes and stores one planned fragment (one PutIfAbsent) and fills in its size and statistics.
Status WritePlannedFragment(const TableVersion& table, const format::FragmentWriterOptions& options,
                            PlannedFragment* fragment);
// Runs independent effects (object writes) concurrently on the table layer's I/O pool, so a write
// costs one round trip for all its data objects; returns the first error in task order.
Status RunEffects(const std::vector<std::function<Status()>>& tasks);

}  // namespace omnigraph::table
