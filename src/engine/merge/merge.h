// Three-way branch merge (docs/architecture.md, "Merges and change listing"): merge base from the
// commit DAG; fast-forward when the target is an ancestor of the source; otherwise entity-level,
// property-level three-way merge per type (base->source and base->target entity diffs), validation
// of the merged result, and one commit with two parents through the shared write path (a strict
// write: the target moving is a `read_set_conflict`). Any conflict publishes nothing; the conflicts
// are returned as data in the error's details:
// {"merge_conflicts":[{entity_kind, type_name, entity_id, kind, message}...]}.
// Thread-safe as Graph::Write: merges into one branch are serialized, a lost race is an error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/graph/graph.h"

namespace omnigraph::engine {

enum class MergeOutcome { kAlreadyUpToDate, kFastForward, kMerged };
std::string_view MergeOutcomeName(MergeOutcome outcome);

struct MergeOptions {
  std::string source;
  std::string target = "main";
  bool delete_source = false;  // delete the source branch after a successful merge
};

struct MergeResult {
  MergeOutcome outcome = MergeOutcome::kAlreadyUpToDate;
  std::string commit_id;  // the target's head after the merge
  uint64_t seq = 0;
  std::map<std::string, ChangeCounts> summary;  // changes applied to the target, per type
  bool branch_deleted = false;
  // The merge stands, but the source was not deleted: it moved since the merged version was read
  // (`read_set_conflict`: newer work that is not in the target), or the delete failed.
  std::optional<std::string> branch_delete_error;
};

// The kinds of merge conflict (snake_case on the wire, as the reference).
inline constexpr std::string_view kDivergentInsert = "divergent_insert";
inline constexpr std::string_view kDivergentUpdate = "divergent_update";
inline constexpr std::string_view kDeleteVsUpdate = "delete_vs_update";
inline constexpr std::string_view kOrphanEdge = "orphan_edge";
inline constexpr std::string_view kUniqueViolation = "unique_violation";
inline constexpr std::string_view kCardinalityViolation = "cardinality_violation";
inline constexpr std::string_view kValueConstraintViolation = "value_constraint_violation";

struct MergeConflict {
  EntityKind kind = EntityKind::kNode;
  std::string type_name;
  std::string entity_id;
  std::string_view conflict;  // one of the k* kinds above
  std::string message;
  std::string property;  // divergent_update: the properties both sides changed (", "-separated)
  Json ToJson() const;
};

// `merge_conflict` (with the list in details) when the branches conflict, and then, when
// `conflicts` is given, every conflict in it (sorted); NotFound for a missing branch;
// `schema_boundary` when both branches changed the schema since their merge base (a fast-forward
// always works). When only one side changed it, the other side's changes are carried into the
// newer schema (graph/schema_carry.h) and merged there; the merged commit has the newer schema,
// and an older-schema change that violates a newer @range/@check is a value_constraint_violation.
Result<MergeResult> MergeBranches(Graph& graph, const MergeOptions& options,
                                  std::vector<MergeConflict>* conflicts = nullptr);

// The merge base of two commits: the best common ancestor (a common ancestor that is not an
// ancestor of another common ancestor). With several (criss-cross history), the one with the
// greatest generation (longest parent path to the genesis commit), then the smallest commit id:
// a choice by the shape of the DAG only, never by (skewable) timestamps.
Result<std::string> MergeBase(Graph& graph, const std::string& a, const std::string& b);

}  // namespace omnigraph::engine
