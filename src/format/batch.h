// A batch of rows in columnar form (docs/architecture.md,
// "Tables, fragments, manifests, versions"): a Schema plus one Column per field, all of the same
// length. Batches own their (shared, immutable) buffers, so copies and slices are cheap. Scans,
// writes and query operators all exchange Batches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "format/column.h"
#include "format/schema.h"
#include "omnigraph/result.h"
#include "omnigraph/value.h"

namespace omnigraph::format {

// Immutable value type; safe to share and read from many threads.
class Batch {
 public:
  // 0 columns, 0 rows.
  Batch();
  // InvalidArgument unless there is one column per field, every column's type equals its field's
  // type, all lengths are equal, and non-nullable fields have no nulls.
  static Result<Batch> Make(Schema schema, std::vector<Column> columns);
  // 0 rows, one empty column per field.
  static Batch Empty(Schema schema);
  // `num_rows` rows and no columns (e.g. the result of a count-only scan).
  static Batch NoColumns(size_t num_rows);
  // Row-wise construction (tests, loaders): rows[r][c] is field c's value in row r. InvalidArgument
  // on a wrong row width or a value that does not fit its field (see ColumnBuilder::Append).
  static Result<Batch> FromRows(Schema schema, const std::vector<std::vector<Value>>& rows);

  const Schema& schema() const { return *schema_; }
  size_t num_rows() const { return num_rows_; }
  size_t num_columns() const { return columns_.size(); }
  const Column& column(size_t i) const { return columns_[i]; }
  const std::vector<Column>& columns() const { return columns_; }
  // nullptr if absent.
  const Column* ColumnById(FieldId id) const;
  const Column* ColumnByName(std::string_view name) const;

  // Precondition: row < num_rows(), col < num_columns().
  Value GetValue(size_t row, size_t col) const { return columns_[col].GetValue(row); }
  std::vector<Value> GetRow(size_t row) const;
  // All rows, row-major (tests).
  std::vector<std::vector<Value>> ToRows() const;

  // Rows [offset, offset + length); precondition offset + length <= num_rows().
  Batch Slice(size_t offset, size_t length) const;
  // Precondition: every index < num_rows().
  Batch Take(std::span<const uint64_t> indices) const;
  // The columns with these field ids, in this order. NotFound on an unknown id.
  Result<Batch> Select(std::span<const FieldId> ids) const;
  // Adds a column at the end. InvalidArgument on a duplicate id/name, type mismatch or a length
  // different from num_rows() (when the batch already has columns).
  Result<Batch> AddColumn(Field field, Column column) const;

  // InvalidArgument unless every batch has an equal schema. Zero batches: InvalidArgument.
  static Result<Batch> Concat(std::span<const Batch> batches);

  // Same schema and Column::Equals for every column.
  bool Equals(const Batch& other) const;

 private:
  Batch(std::shared_ptr<const Schema> schema, std::vector<Column> columns, size_t num_rows);
  std::shared_ptr<const Schema> schema_;
  std::vector<Column> columns_;
  size_t num_rows_ = 0;
};

}  // namespace omnigraph::format
