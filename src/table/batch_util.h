// Internal helpers that move batches between the table schema and fragment files
// (docs/format/table.md "Schema evolution"): by stable field id, with nulls for fields a file
// does not have. Used by scans, takes, writers and compaction. Thread-safe (pure functions).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "format/batch.h"
#include "omnigraph/result.h"
#include "table/manifest.h"

namespace omnigraph::table {

// A format schema of `fields` (already validated as part of a TableSchema).
format::Schema SchemaOf(const std::vector<Field>& fields);

// The columns of `fields` taken from `file_batch` by field id (current names), nulls of `rows`
// rows for fields the file lacks. Corrupt naming `file` if a stored column has the wrong type.
Result<format::Batch> FromFileBatch(const format::Batch& file_batch, const std::vector<Field>& fields, size_t rows,
                                    std::string_view file);

// An appended batch in table-schema order: columns matched by name, missing nullable columns
// filled with nulls. InvalidArgument for unknown columns, type mismatches, missing non-nullable
// columns or nulls in non-nullable columns.
Result<format::Batch> ConformInputBatch(const TableSchema& schema, const format::Batch& input);

// Table-relative blob files referenced by the Blob columns of `batch` (descriptors must name a
// "blob/" key of this table; InvalidArgument otherwise).
Result<std::set<std::string>> BlobFilesOf(const format::Batch& batch);

}  // namespace omnigraph::table
