#include "engine/graph/schema_store.h"

#include <algorithm>

#include "common/error_codes.h"
#include "common/hash.h"
#include "common/json.h"
#include "engine/graph/graph_layout.h"

namespace omnigraph::engine {
namespace {

std::vector<table::Field> PropertyFields(const std::vector<compiler::Property>& props) {
  std::vector<table::Field> out;
  for (const auto& p : props) {
    table::Field f;
    f.name = p.name;
    f.type = p.type;
    f.nullable = p.nullable;
    out.push_back(std::move(f));
  }
  return out;
}

table::Field StringField(std::string_view name) {
  table::Field f;
  f.name = std::string(name);
  f.type = DataType::Scalar(TypeKind::kString);
  f.nullable = false;
  return f;
}

// Sets the String columns the table keeps a value index on (table/index_probe.h): `always` (an
// edge's endpoints: incident edges of a node, @card counts) and the first String column of each
// @unique tuple (collision checks), so that a merge reads what its changes touch, not the table.
Result<table::TableSchema> WithValueIndexes(table::TableSchema s, std::vector<std::string_view> always,
                                            const std::vector<std::vector<std::string>>& uniques) {
  for (const auto& tuple : uniques) {
    for (const auto& name : tuple) {
      const table::Field* f = s.FindByName(name);
      if (f != nullptr && f->type.kind == TypeKind::kString) {
        always.push_back(f->name);
        break;
      }
    }
  }
  for (std::string_view name : always) {
    const table::Field* f = s.FindByName(name);
    if (f == nullptr || f->id == s.key_field_id || f->type.kind != TypeKind::kString) continue;
    s.indexed_field_ids.push_back(f->id);
  }
  std::sort(s.indexed_field_ids.begin(), s.indexed_field_ids.end());
  s.indexed_field_ids.erase(std::unique(s.indexed_field_ids.begin(), s.indexed_field_ids.end()),
                            s.indexed_field_ids.end());
  OG_RETURN_IF_ERROR(s.Validate(/*corrupt=*/false));
  return s;
}

}  // namespace

Result<std::string> WriteSchema(io::ObjectStore& store, const compiler::Catalog& catalog, std::string_view source) {
  std::string id = catalog.SchemaId();
  OG_ASSIGN_OR_RETURN(Json ir, ParseJson(catalog.ToJson(), "catalog IR"));
  Json doc = {{"schema_id", id}, {"catalog", ir}, {"source", std::string(source)}};
  Status s = store.PutIfAbsent(SchemaKey(id), CanonicalJson(doc));
  if (!s.ok() && s.category() != StatusCode::kAlreadyExists) return s;
  return id;
}

Result<StoredSchema> ReadSchema(io::ObjectStore& store, std::string_view schema_id) {
  OG_ASSIGN_OR_RETURN(std::string bytes, store.Get(SchemaKey(schema_id)));
  OG_ASSIGN_OR_RETURN(Json doc, ParseJson(bytes, "schema " + std::string(schema_id), true));
  if (!doc.is_object() || !doc.contains("catalog") || !doc.contains("source") || !doc["source"].is_string()) {
    return CorruptError("schema object " + std::string(schema_id) + " is malformed");
  }
  OG_ASSIGN_OR_RETURN(compiler::Catalog catalog, compiler::Catalog::FromJson(CanonicalJson(doc["catalog"])));
  if (catalog.SchemaId() != schema_id) {
    return CorruptError("schema object " + std::string(schema_id) + " does not hash to its id");
  }
  StoredSchema out;
  out.id = std::string(schema_id);
  out.source = doc["source"].get<std::string>();
  out.catalog = std::make_shared<const compiler::Catalog>(std::move(catalog));
  return out;
}

Result<table::TableSchema> NodeTableSchema(const compiler::NodeType& node) {
  std::vector<table::Field> fields{StringField(kIdColumn)};
  for (auto& f : PropertyFields(node.properties)) fields.push_back(std::move(f));
  OG_ASSIGN_OR_RETURN(table::TableSchema s, table::TableSchema::Make(std::move(fields), kIdColumn));
  return WithValueIndexes(std::move(s), {}, node.uniques);
}

Result<table::TableSchema> EdgeTableSchema(const compiler::EdgeType& edge) {
  std::vector<table::Field> fields{StringField(kIdColumn), StringField(kSrcColumn), StringField(kDstColumn)};
  for (auto& f : PropertyFields(edge.properties)) fields.push_back(std::move(f));
  OG_ASSIGN_OR_RETURN(table::TableSchema s, table::TableSchema::Make(std::move(fields), kIdColumn));
  return WithValueIndexes(std::move(s), {kSrcColumn, kDstColumn}, edge.uniques);
}

}  // namespace omnigraph::engine
