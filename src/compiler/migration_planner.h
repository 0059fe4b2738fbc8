// Schema migration planner (issue 4; as the existing implementation does; docs/decisions.md):
// compares the accepted catalog with a new one and produces ordered steps, or `unsupported_change`
// steps with stable OG-... codes. Pure: row counts per (old) type name are an input for the
// "populated type" rules.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/catalog.h"
#include "omnigraph/result.h"

namespace omnigraph::compiler {

enum class MigrationStepKind : uint8_t {
  kAddType,                 // type_name (+ is_edge)
  kRenameType,              // old_name -> type_name
  kAddProperty,             // type_name.property (nullable, or any on an empty type)
  kRenameProperty,          // type_name: old_name -> property
  kExtendEnum,              // type_name.property gains added_values (metadata only)
  kMakeNullable,            // type_name.property: required -> nullable (metadata only)
  kUpdateTypeMetadata,      // description / instruction / unknown annotations changed
  kUpdatePropertyMetadata,  // the same for a property (also adding/removing @embed)
  kDropConstraint,          // constraint: "@unique(a, b)", "@index(p)", "@key(k)", "@card(1..2)", ...
  kAddConstraint,           // the same; existing data is validated when the plan is applied
  kDropProperty,            // mode soft|hard; code OG-DS-104 when the type is populated
  kDropType,                // mode soft|hard; code OG-DS-102 (node) / OG-DS-103 (edge) if populated
  kUnsupportedChange,       // code OG-MF-..., entity, reason
};
std::string_view MigrationStepKindName(MigrationStepKind kind);  // "add_type", ...

enum class DropMode : uint8_t { kSoft, kHard };

struct MigrationStep {
  MigrationStepKind kind = MigrationStepKind::kAddType;
  std::string type_name;  // the type in the NEW schema (the old name for drops)
  bool is_edge = false;
  std::string property;                   // property in the new schema (old name for drop_property)
  std::string old_name;                   // renames: the old type or property name
  std::string constraint;                 // add/drop_constraint
  std::vector<std::string> added_values;  // extend_enum, sorted
  DropMode mode = DropMode::kSoft;        // drops
  std::string code;                       // unsupported_change: OG-MF-...; drops of populated types: OG-DS-10x
  std::string entity;                     // "Person" or "Person.age"
  std::string reason;                     // human-readable explanation
  bool operator==(const MigrationStep&) const = default;
};

struct MigrationPlan {
  std::vector<MigrationStep> steps;
  // False when any step is kUnsupportedChange (the plan must not be applied).
  bool supported() const;
  bool empty() const { return steps.empty(); }
  // {"supported": bool, "steps": [{"kind": "...", ...}]} with sorted keys; empty fields omitted.
  std::string ToJson() const;
};

struct MigrationOptions {
  bool allow_data_loss = false;                // drops are hard instead of soft
  std::map<std::string, uint64_t> row_counts;  // rows per OLD type name; absent = 0 (empty)
};

// Plans the change from `from` (accepted) to `to` (proposed). Step order: type renames, type
// additions, then per type of `to` (in id order): type metadata, then per property of `to` (in
// order) its rename / add / extend_enum / make_nullable / metadata steps, then constraint drops,
// constraint additions, property drops; then type drops (edges before nodes). Unsupported changes
// appear where found. Pure; thread-safe.
MigrationPlan PlanMigration(const Catalog& from, const Catalog& to, const MigrationOptions& options);

// Returns `to` with stable ids carried over from `from`: a type or property matched by name or by
// @rename_from keeps its old id; new ones get ids above the old maximum. Apply this before storing
// the new catalog so ids survive renames and re-orderings. Pure.
Catalog RebaseIds(const Catalog& from, const Catalog& to);

}  // namespace omnigraph::compiler
