// Entity-level diffs between two graph snapshots (ARCHITECTURE.md §7 "Changes"): for every type,
// the exact inserted, updated and deleted entities with their before/after images. Built on the
// structural table diff (table/table_diff.h), so the work is proportional to the change, not to
// the graph: only the rows whose addresses differ are read. Used by `commit changes`, `diff`, the
// change feed and three-way merge. Thread-safe (pure reads).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/json.h"
#include "engine/commit.h"
#include "engine/snapshot.h"

namespace omnigraph::engine {

enum class ChangeOp { kInsert, kUpdate, kDelete };
std::string_view ChangeOpName(ChangeOp op);
Result<ChangeOp> ParseChangeOp(std::string_view name);
Result<EntityKind> ParseEntityKind(std::string_view name);

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

struct ChangeFilter {
  std::optional<EntityKind> kind;
  std::set<std::string> types;  // empty = all
  std::optional<ChangeOp> op;
  bool Matches(EntityKind k, const std::string& type) const;
  bool Matches(const EntityChange& c) const;
  Json ToJson() const;
};

// Changes of one type from `from` to `to`, by entity id. NotFound if the type is absent from
// either snapshot.
Result<std::map<std::string, EntityChange>> DiffType(const Snapshot& from, const Snapshot& to,
                                                     const std::string& type_name);

// Every change from `from` to `to` passing `filter`, ordered nodes before edges, then type name,
// entity id, op. `schema_boundary` when the snapshots have different schemas.
Result<std::vector<EntityChange>> DiffSnapshots(const Snapshot& from, const Snapshot& to,
                                                const ChangeFilter& filter = {});

// JSON of one change in the reference shape: {kind, type{id,name}, id, op, before?, after?}
// with images {properties{...}, endpoints?{from,to}}.
Json ChangeToJson(const compiler::Catalog& catalog, const EntityChange& change);
// JSON of one stored value (Dates as ISO strings, big integers as strings, as in query output).
Json ValueToJson(const Value& v);

}  // namespace omnigraph::engine
