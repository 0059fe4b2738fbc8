// Schema evolution (`omnigraph schema apply`): plans the migration from a branch head's schema to a
// new one (compiler/migration_planner.h) and applies every step as ONE strict commit (operation
// "schema_apply") that names the new schema: new types get new empty tables, renamed types keep
// their table (table ids survive renames), added properties become nullable columns that existing
// rows read as null, renamed properties keep their field id, dropped properties and types leave the
// new head (their data stays readable by time travel until cleanup reclaims it); enum extensions,
// nullability relaxations, constraint drops and metadata change only the catalog. A drop of
// populated data is applied whether the planner calls it soft or hard (`allow_data_loss` only
// changes the reported mode; docs/decisions.md "Schema evolution"). Refused, changing nothing: an
// unsupported change (its OG-MF code); an added @range, @check, @unique or @card that existing rows
// violate (load_range / load_check / load_unique / load_cardinality, naming the rows). An added
// @unique also gives its tuple's first String column a value index (metadata only); @index and
// @key (planned only for an empty type) change only the catalog. Works on any branch.
// Thread-safe (one Graph::Write).
#pragma once

#include <optional>
#include <string>

#include "engine/graph/graph.h"
#include "omnigraph/result.h"

namespace omnigraph::engine {

struct SchemaApplyOptions {
  std::string branch = "main";
  bool allow_data_loss = false;
  std::optional<std::string> if_commit;
};

struct SchemaApplyResult {
  WriteResult write;  // committed = false: the schema was already this one
  std::string schema_id;
  size_t steps = 0;
};

Result<SchemaApplyResult> ApplySchema(Graph& graph, std::string_view schema_source, const SchemaApplyOptions& options);

}  // namespace omnigraph::engine
