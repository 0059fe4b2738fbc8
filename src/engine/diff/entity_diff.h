// Entity-level diffs between two graph snapshots (docs/architecture.md,
// "Merges and change listing"): for every type, the exact inserted, updated and deleted entities
// with their before/after images. Built on the structural table diff (table/table_diff.h), so the
// work is proportional to the change, not to the graph: only the rows whose addresses differ are
// read. Used by `commit changes`, `diff`, the change feed and three-way merge. Thread-safe (pure
// reads).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/output_json.h"
#include "engine/graph/commit.h"
#include "engine/graph/snapshot.h"

namespace omnigraph::engine {

using omnigraph::ChangeOp;  // one enum for the project (omnigraph/records.h)
using omnigraph::ChangeOpName;
using omnigraph::ParseChangeOp;
using omnigraph::ParseEntityKind;

// One entity as stored: its properties in declaration order (catalog), plus edge endpoints.
struct EntityImage {
  std::vector<Value> properties;
  std::string src, dst;  // edges only
  bool operator==(const EntityImage&) const = default;
};

struct EntityChange {
  EntityKind kind = EntityKind::kNode;
  std::string type_name;
  std::string type_id;  // the table id: opaque, survives renames
  std::string id;
  ChangeOp op = ChangeOp::kInsert;
  std::optional<EntityImage> before, after;  // insert: after; update: both; delete: before
};

// A change matches when its kind, type name and op are each in the set; an empty set = all.
struct ChangeFilter {
  std::set<EntityKind> kinds;
  std::set<std::string> types;
  std::set<ChangeOp> ops;
  bool Matches(EntityKind k, const std::string& type) const;
  bool Matches(const EntityChange& c) const;
  // The filter as cursors and page tokens bind it: equal for filters that select the same changes
  // by kind and op (every kind or op listed = none listed), and, for at most one kind and op,
  // the spelling of the single-valued filter ({"kind":"node","op":"insert","types":[...]}), so
  // cursors made before filters took several values still resume.
  Json ToJson() const;
};

// Changes of one type from `from` to `to`, by entity id. A type absent from `from` (added since)
// had no rows there: every row of `to` is an insert. NotFound if the type is absent from `to`.
Result<std::map<std::string, EntityChange>> DiffType(const Snapshot& from, const Snapshot& to,
                                                     const std::string& type_name);

// How the two snapshots of a diff are related in history.
enum class Lineage {
  kUnknown,         // unrelated, or `to` older: a schema change between them is `schema_boundary`
  kFromIsAncestor,  // `from` is an ancestor of `to` (a commit's parent, a branch's earlier head)
};

// Every change from `from` to `to` passing `filter`, ordered nodes before edges, then type name,
// entity id, op. When the snapshots have different schemas and `from` is an ancestor, `from` is
// first carried into `to`'s schema (graph/schema_carry.h): changes are listed in `to`'s types and
// names, rows of types added since are inserts, rows of types dropped since are not listed, a
// dropped property is absent from both images. Otherwise different schemas are `schema_boundary`
// (also when a populated type's data has no place in the later schema, e.g. its @key changed).
Result<std::vector<EntityChange>> DiffSnapshots(const Snapshot& from, const Snapshot& to,
                                                const ChangeFilter& filter = {}, Lineage lineage = Lineage::kUnknown);

// The change as the public API hands it out: images with property names (from the catalog).
omnigraph::EntityChange ToPublicChange(const compiler::Catalog& catalog, const EntityChange& change);
// JSON of one change (common/output_json.h ChangeToJson of ToPublicChange).
Json ChangeToJson(const compiler::Catalog& catalog, const EntityChange& change);

}  // namespace omnigraph::engine
