// Accepted schemas, content-addressed (docs/architecture.md, "A graph root"):
// schemas/<schema_id>.json holds the catalog IR and the .pg source it was compiled from. Also maps
// catalog types to table schemas.
// Thread-safe: stateless functions over a thread-safe store; schema objects are immutable.
#pragma once

#include <memory>
#include <string>

#include "compiler/catalog.h"
#include "io/object_store.h"
#include "omnigraph/result.h"
#include "table/manifest.h"

namespace omnigraph::engine {

struct StoredSchema {
  std::shared_ptr<const compiler::Catalog> catalog;
  std::string source;  // the .pg text
  std::string id;      // catalog->SchemaId()
};

// Writes schemas/<id>.json (PutIfAbsent; an existing object with the same id is fine: content
// addressed). Returns the id.
Result<std::string> WriteSchema(io::ObjectStore& store, const compiler::Catalog& catalog, std::string_view source);
// NotFound if absent; Corrupt if malformed or if its content does not hash to `schema_id`.
Result<StoredSchema> ReadSchema(io::ObjectStore& store, std::string_view schema_id);

// Physical table schemas (docs/language.md, "Types"): a node table is `id: String` (the key) +
// properties; an edge table is `id`, `src`, `dst` (String) + properties. Enums are Strings.
Result<table::TableSchema> NodeTableSchema(const compiler::NodeType& node);
Result<table::TableSchema> EdgeTableSchema(const compiler::EdgeType& edge);

inline constexpr std::string_view kIdColumn = "id";
inline constexpr std::string_view kSrcColumn = "src";
inline constexpr std::string_view kDstColumn = "dst";

}  // namespace omnigraph::engine
