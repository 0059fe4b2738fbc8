// The table-version manifest (docs/format/table.md): the one immutable object that describes a
// table version completely — schema with stable field ids, fragments with their deletion vectors
// and per-column statistics, index segments, row count, parent and operation
// (docs/architecture.md, "Tables, fragments, manifests, versions"). Plain data plus a JSON codec;
// no I/O here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/fragment_metadata.h"
#include "format/schema.h"
#include "omnigraph/result.h"
#include "omnigraph/value.h"

namespace omnigraph::table {

inline constexpr uint32_t kManifestFormatVersion = 1;

// A column of the table schema. `id` is stable for the life of the table: renames keep it, a drop
// retires it for good (never reused), fragment files store columns by it.
using Field = format::Field;
using FieldId = format::FieldId;
// Per-fragment column statistics (the format layer's merged page statistics).
using ColumnStats = format::ColumnStats;

// Thread-compatible value type.
struct TableSchema {
  std::vector<Field> fields;  // in display order
  uint32_t next_field_id = 1;
  // Field id of the row key (`id` column): the id index and upserts use it. 0 = no key.
  uint32_t key_field_id = 0;
  // Non-key String columns with a hash value index (segments of kind "value", maintained by every
  // write like the id index; see table/index_probe.h). Ascending, distinct.
  std::vector<uint32_t> indexed_field_ids;

  const Field* FindByName(std::string_view name) const;
  const Field* FindById(uint32_t id) const;
  // Builds a schema with ids 1..n; `key_column` (may be empty) names the key. InvalidArgument for
  // duplicate/invalid names, a nullable or non-String/integer key, a bad type.
  static Result<TableSchema> Make(std::vector<Field> fields_without_ids, std::string_view key_column);
  // The format-layer schema of all fields (display order).
  format::Schema ToFormatSchema() const;
  // InvalidArgument (or Corrupt when `corrupt`) unless ids/names are unique and valid.
  Status Validate(bool corrupt) const;
  bool operator==(const TableSchema&) const = default;
};

struct FragmentMeta {
  // Stable within a table lineage: assigned from Manifest::next_fragment_id, never reused. A row
  // address is (id << 32) | row offset.
  uint32_t id = 0;
  std::string file_key;  // "data/<ulid>.ogf"
  uint64_t file_size = 0;
  uint64_t tail_size = 0;                 // footer + trailer bytes: one ranged read opens the file
  uint64_t physical_rows = 0;             // rows in the file, deleted or not
  std::string deletion_key;               // "del/<ulid>.del" or empty (no deletions)
  uint64_t deleted_rows = 0;              // cardinality of the deletion vector
  std::vector<std::string> blob_keys;     // blob files this fragment's Blob columns point into
  std::map<uint32_t, ColumnStats> stats;  // by field id; fields absent from the file are absent

  uint64_t live_rows() const { return physical_rows - deleted_rows; }
};

// A persisted index segment covering a set of fragments.
struct IndexSegmentMeta {
  std::string kind;                    // "id" (the key column) or "value" (an indexed column)
  uint32_t field_id = 0;               // the indexed column
  std::vector<uint32_t> fragment_ids;  // covered fragments (sorted)
  std::vector<std::string> keys;       // objects of the segment ("idx/<ulid>/...")
  uint64_t entries = 0;
};

// What produced a version: kind is one of create, append, delete, upsert, overwrite, add_column,
// rename_column, drop_column, compact, update (a combined change).
struct Operation {
  std::string kind;
  uint64_t rows_inserted = 0;
  uint64_t rows_deleted = 0;
  std::string note;  // free text for humans (e.g. the renamed column)
};

// One table version. Thread-compatible; shared as shared_ptr<const Manifest> once built.
struct Manifest {
  uint32_t format_version = kManifestFormatVersion;
  std::string version_id;         // ULID; the object lives at versions/<version_id>
  std::string parent_version_id;  // empty for the first version
  uint64_t sequence = 0;          // 1 for the first version, parent + 1 after
  int64_t created_ms = 0;
  Operation operation;
  TableSchema schema;
  std::vector<FragmentMeta> fragments;  // in row-address order of their ids (ascending)
  uint32_t next_fragment_id = 0;
  std::vector<IndexSegmentMeta> indexes;
  uint64_t row_count = 0;  // live rows = sum of fragment live rows

  const FragmentMeta* FindFragment(uint32_t id) const;
};

// Serializes to the stored object (an envelope with an xxhash64 checksum of the canonical JSON
// body; see docs/format/table.md). Never fails for a manifest that passed Validate.
std::string EncodeManifest(const Manifest& m);
// Parses and fully validates a stored manifest; kCorrupt naming `what` on any problem
// (checksum, JSON, missing field, inconsistent counts, foreign keys), kInvalidArgument
// (`format_too_new`) for a newer format version.
Result<Manifest> DecodeManifest(std::string_view bytes, std::string_view what);
// Consistency checks shared by the encoder's callers and the decoder.
Status ValidateManifest(const Manifest& m, bool corrupt);

// Type spelling used in manifests ("I64", "Vector(128)", "[String]") and its parser.
std::string TypeToString(const DataType& type);
Result<DataType> TypeFromString(std::string_view text);

}  // namespace omnigraph::table
