#include "table/batch_util.h"

#include "common/check.h"
#include "common/error_codes.h"
#include "table/table_layout.h"

namespace omnigraph::table {

format::Schema SchemaOf(const std::vector<Field>& fields) {
  auto s = format::Schema::Make(fields);
  OG_CHECK(s.ok());
  return std::move(s).value();
}

Result<format::Batch> FromFileBatch(const format::Batch& file_batch, const std::vector<Field>& fields, size_t rows,
                                    std::string_view file) {
  std::vector<format::Column> cols;
  cols.reserve(fields.size());
  for (const Field& f : fields) {
    const format::Column* c = file_batch.ColumnById(f.id);
    if (c == nullptr) {
      cols.push_back(format::Column::Nulls(f.type, rows));
      continue;
    }
    if (!(c->type() == f.type) || c->length() != rows) {
      return CorruptError(std::string(file) + ": column " + std::to_string(f.id) + " ('" + f.name + "') has type " +
                          TypeToString(c->type()) + ", the manifest says " + TypeToString(f.type));
    }
    cols.push_back(*c);
  }
  auto b = format::Batch::Make(SchemaOf(fields), std::move(cols));
  if (!b.ok()) return CorruptError(std::string(file) + ": " + b.status().message());
  return std::move(b).value();
}

Result<format::Batch> ConformInputBatch(const TableSchema& schema, const format::Batch& input) {
  const format::Schema& in = input.schema();
  for (const Field& f : in.fields()) {
    if (schema.FindByName(f.name) == nullptr) {
      return InvalidArgumentError("column '" + f.name + "' is not in the table schema");
    }
  }
  std::vector<format::Column> cols;
  cols.reserve(schema.fields.size());
  for (const Field& f : schema.fields) {
    auto idx = in.IndexOfName(f.name);
    if (!idx) {
      if (!f.nullable) return InvalidArgumentError("column '" + f.name + "' is required (not nullable)");
      cols.push_back(format::Column::Nulls(f.type, input.num_rows()));
      continue;
    }
    const format::Column& c = input.column(*idx);
    if (!(c.type() == f.type)) {
      return InvalidArgumentError("column '" + f.name + "' has type " + TypeToString(c.type()) +
                                  ", the table expects " + TypeToString(f.type));
    }
    if (!f.nullable && c.has_nulls()) {
      return InvalidArgumentError("column '" + f.name + "' is not nullable but has " + std::to_string(c.null_count()) +
                                  " null(s)");
    }
    cols.push_back(c);
  }
  return format::Batch::Make(schema.ToFormatSchema(), std::move(cols));
}

Result<std::set<std::string>> BlobFilesOf(const format::Batch& batch) {
  std::set<std::string> out;
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    const format::Column& col = batch.column(c);
    if (col.type().kind != TypeKind::kBlob) continue;
    for (size_t i = 0; i < col.length(); ++i) {
      if (col.IsNull(i)) continue;
      auto d = col.blob_at(i);
      if (!d.ok())
        return InvalidArgumentError("blob column '" + batch.schema().field(c).name + "': " + d.status().message());
      if (d->file.substr(0, kBlobDir.size()) != kBlobDir || !IsValidRelativeKey(d->file)) {
        return InvalidArgumentError("blob column '" + batch.schema().field(c).name + "': descriptor names '" + d->file +
                                    "', not a blob file of this table (use TableVersion::WriteBlobs)");
      }
      out.insert(d->file);
    }
  }
  return out;
}

}  // namespace omnigraph::table
