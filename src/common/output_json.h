// The one output module: the JSON spelling of values, entity changes, commits and merge conflicts
// shared by the CLI, change listing and (coming) the server, so every surface prints a value the
// same way. Pure functions; thread-safe.
#pragma once

#include "common/json.h"
#include "omnigraph/records.h"
#include "omnigraph/value.h"

namespace omnigraph {

// An F32 at its stored width: the double nearest the float's shortest decimal, so 0.1f prints
// 0.1, not 0.10000000149011612 (the float widened to double); it reads back as the same float.
// Finite values only. Used by ValueToJson and by export.
Json F32Json(float f);

// One stored value: null as null; Bool, numbers as JSON numbers, except I64/U64 beyond ±2^53 as
// decimal strings (most JSON readers lose precision there); F32 and vector elements at their
// stored width (0.1f as 0.1, not the float widened to double); NaN and infinities as
// "NaN"/"Infinity"/"-Infinity"; Date as "YYYY-MM-DD", DateTime as ISO-8601 with milliseconds; Blob
// as "<blob>"; Vector and List as arrays.
Json ValueToJson(const Value& v);

// An entity change: {kind, type{id,name}, id, op, before?, after?}, images as
// {properties{name: value...}, endpoints?{from,to}}.
Json ChangeToJson(const EntityChange& change);

// An entity change as the Rust CLI prints it (its EntityChangeOutput): the keys of ChangeToJson in
// that order, {kind, type{id, name}, id, op, before?, after?}, with image properties in declaration
// order. type.id is the type's table id (opaque; survives renames).
OrderedJson EntityChangeOutputJson(const EntityChange& change);

// A commit as the cause of a change block, as the Rust CLI prints it (ChangeCauseOutput):
// {graph_commit_id, parent_commit_id?, merged_parent_commit_id?, authored_branch, actor_id?,
// authored_at (Unix microseconds)}.
OrderedJson ChangeCauseOutputJson(const CommitInfo& commit);

// A commit as `commit list`, `commit show`, `load` and `mutate --json` print it: the Rust CLI's
// CommitOutput {graph_commit_id, graph_branch, graph_manifest_version, parent_commit_id,
// merged_parent_commit_id, actor_id, created_at (Unix microseconds)}, then our operation and
// schema_id (absent parents, actor and version as null).
OrderedJson CommitOutputJson(const CommitInfo& commit);

// A merge conflict: {entity_kind, type_name, entity_id, kind, message} (the shape of the
// `merge_conflict` error's details; MergeConflict::property is API-only).
Json MergeConflictJson(const MergeConflict& conflict);

// The `merge_conflict` error of a merge of `source` into `target` that found `conflicts` (not
// empty): its message names the count and the first, its details list all as merge_conflicts.
Status MergeConflictStatus(const std::string& source, const std::string& target,
                           const std::vector<MergeConflict>& conflicts);

// The steps of a schema migration plan as `schema plan --json` prints them (and cluster plan embeds
// them): [{kind, type_kind, type_name, property?, old_name?, constraint?, added_values?, mode?,
// code?, entity?, reason?}] (empty strings and lists left out).
OrderedJson SchemaPlanStepsJson(const SchemaPlan& plan);

}  // namespace omnigraph
