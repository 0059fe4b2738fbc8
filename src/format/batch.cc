#include "format/batch.h"

#include "common/error_codes.h"
#include "format/column_builder.h"

namespace omnigraph::format {

Batch::Batch() : schema_(std::make_shared<const Schema>()) {}

Batch::Batch(std::shared_ptr<const Schema> schema, std::vector<Column> columns, size_t num_rows)
    : schema_(std::move(schema)), columns_(std::move(columns)), num_rows_(num_rows) {}

Result<Batch> Batch::Make(Schema schema, std::vector<Column> columns) {
  if (columns.size() != schema.num_fields()) {
    return InvalidArgumentError("batch has " + std::to_string(columns.size()) + " columns for " +
                                std::to_string(schema.num_fields()) + " fields");
  }
  size_t rows = columns.empty() ? 0 : columns[0].length();
  for (size_t i = 0; i < columns.size(); ++i) {
    const Field& f = schema.field(i);
    if (!(columns[i].type() == f.type)) {
      return InvalidArgumentError("column '" + f.name + "' has type " + columns[i].type().ToString() +
                                  ", field type is " + f.type.ToString());
    }
    if (columns[i].length() != rows) {
      return InvalidArgumentError("column '" + f.name + "' has " + std::to_string(columns[i].length()) +
                                  " rows, expected " + std::to_string(rows));
    }
    if (!f.nullable && columns[i].has_nulls()) {
      return InvalidArgumentError("non-nullable column '" + f.name + "' has " +
                                  std::to_string(columns[i].null_count()) + " nulls");
    }
  }
  return Batch(std::make_shared<const Schema>(std::move(schema)), std::move(columns), rows);
}

Batch Batch::Empty(Schema schema) {
  std::vector<Column> cols;
  for (const Field& f : schema.fields()) cols.emplace_back(f.type);
  return Batch(std::make_shared<const Schema>(std::move(schema)), std::move(cols), 0);
}

Batch Batch::NoColumns(size_t num_rows) { return Batch(std::make_shared<const Schema>(), {}, num_rows); }

Result<Batch> Batch::FromRows(Schema schema, const std::vector<std::vector<Value>>& rows) {
  std::vector<ColumnBuilder> builders;
  builders.reserve(schema.num_fields());
  for (const Field& f : schema.fields()) {
    builders.emplace_back(f.type);
    builders.back().Reserve(rows.size());
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() != builders.size()) {
      return InvalidArgumentError("row " + std::to_string(r) + " has " + std::to_string(rows[r].size()) +
                                  " values for " + std::to_string(builders.size()) + " fields");
    }
    for (size_t c = 0; c < builders.size(); ++c) {
      Status s = builders[c].Append(rows[r][c]);
      if (!s.ok()) {
        return s.WithContext("row " + std::to_string(r) + ", field '" + schema.field(c).name + "'");
      }
    }
  }
  std::vector<Column> cols;
  cols.reserve(builders.size());
  for (auto& b : builders) cols.push_back(b.Finish());
  if (cols.empty()) {
    return Batch(std::make_shared<const Schema>(std::move(schema)), {}, rows.size());
  }
  return Make(std::move(schema), std::move(cols));
}

const Column* Batch::ColumnById(FieldId id) const {
  auto i = schema_->IndexOfId(id);
  return i ? &columns_[*i] : nullptr;
}

const Column* Batch::ColumnByName(std::string_view name) const {
  auto i = schema_->IndexOfName(name);
  return i ? &columns_[*i] : nullptr;
}

std::vector<Value> Batch::GetRow(size_t row) const {
  std::vector<Value> out;
  out.reserve(columns_.size());
  for (const Column& c : columns_) out.push_back(c.GetValue(row));
  return out;
}

std::vector<std::vector<Value>> Batch::ToRows() const {
  std::vector<std::vector<Value>> rows;
  rows.reserve(num_rows_);
  for (size_t r = 0; r < num_rows_; ++r) rows.push_back(GetRow(r));
  return rows;
}

Batch Batch::Slice(size_t offset, size_t length) const {
  std::vector<Column> cols;
  cols.reserve(columns_.size());
  for (const Column& c : columns_) cols.push_back(c.Slice(offset, length));
  return Batch(schema_, std::move(cols), length);
}

Batch Batch::Take(std::span<const uint64_t> indices) const {
  std::vector<Column> cols;
  cols.reserve(columns_.size());
  for (const Column& c : columns_) cols.push_back(c.Take(indices));
  return Batch(schema_, std::move(cols), indices.size());
}

Result<Batch> Batch::Select(std::span<const FieldId> ids) const {
  OG_ASSIGN_OR_RETURN(Schema s, schema_->Select(ids));
  std::vector<Column> cols;
  cols.reserve(ids.size());
  for (FieldId id : ids) cols.push_back(*ColumnById(id));
  return Batch(std::make_shared<const Schema>(std::move(s)), std::move(cols), num_rows_);
}

Result<Batch> Batch::AddColumn(Field field, Column column) const {
  std::vector<Field> fields = schema_->fields();
  fields.push_back(std::move(field));
  OG_ASSIGN_OR_RETURN(Schema s, Schema::Make(std::move(fields)));
  std::vector<Column> cols = columns_;
  if (!cols.empty() || num_rows_ == 0) {
    cols.push_back(std::move(column));
    return Make(std::move(s), std::move(cols));
  }
  if (column.length() != num_rows_) {
    return InvalidArgumentError("added column has " + std::to_string(column.length()) + " rows, batch has " +
                                std::to_string(num_rows_));
  }
  cols.push_back(std::move(column));
  return Make(std::move(s), std::move(cols));
}

Result<Batch> Batch::Concat(std::span<const Batch> batches) {
  if (batches.empty()) return InvalidArgumentError("Batch::Concat of zero batches");
  if (batches.size() == 1) return batches[0];
  const Schema& schema = batches[0].schema();
  size_t rows = 0;
  for (const Batch& b : batches) {
    if (!(b.schema() == schema)) {
      return InvalidArgumentError("Batch::Concat of different schemas " + schema.ToString() + " and " +
                                  b.schema().ToString());
    }
    rows += b.num_rows();
  }
  std::vector<Column> cols;
  for (size_t c = 0; c < schema.num_fields(); ++c) {
    std::vector<Column> parts;
    parts.reserve(batches.size());
    for (const Batch& b : batches) parts.push_back(b.column(c));
    OG_ASSIGN_OR_RETURN(Column col, Column::Concat(parts));
    cols.push_back(std::move(col));
  }
  return Batch(batches[0].schema_, std::move(cols), rows);
}

bool Batch::Equals(const Batch& other) const {
  if (!(schema() == other.schema()) || num_rows_ != other.num_rows_) return false;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!columns_[i].Equals(other.columns_[i])) return false;
  }
  return true;
}

}  // namespace omnigraph::format
