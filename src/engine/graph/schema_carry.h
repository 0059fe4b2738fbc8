// Carrying a snapshot into a descendant schema (docs/architecture.md, "Schema migrations"): the
// same entities, seen through the types and properties of a later schema of the graph. Types and
// properties are matched by their catalog ids, which survive renames and are never reused
// (compiler/migration_planner.h, RebaseIds), so any chain of applied migrations maps exactly: a
// renamed column is renamed, an added property reads null, a dropped one disappears, a widened
// nullability is widened. Only table metadata is written (no row is read or rewritten), and a
// type whose columns need no change keeps its table version as it is. Merges across a schema
// change use it to bring one side's changes into the other side's schema. Thread-safe.
#pragma once

#include "engine/graph/snapshot.h"
#include "io/object_store.h"
#include "omnigraph/result.h"

namespace omnigraph::engine {

// What a carried snapshot holds for a type that `from`'s schema does not have (added since).
enum class AddedTypes {
  kTakeTarget,  // `to`'s table: the type's rows count as present on both sides (merges)
  kOmit,        // no table: the type had no rows at `from` (diffs list `to`'s rows as inserts)
};

// `from` seen in the schema of `to` (a snapshot whose schema descends from `from`'s): a snapshot
// with `to`'s catalog and schema id whose tables are `from`'s, carried; types added since as
// `added` says. Staged table versions are written through `store`. `schema_boundary` naming the
// type when `from`'s data has no place in `to`'s schema (a populated type whose key changed, a
// property whose type changed, an edge whose endpoints changed, a required property that was
// nullable).
Result<Snapshot> CarryToSchema(const Snapshot& from, const Snapshot& to, io::ObjectStore* store,
                               AddedTypes added = AddedTypes::kTakeTarget);

}  // namespace omnigraph::engine
