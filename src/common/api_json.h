// The JSON shapes of command results that the CLI prints with --json and the server returns as
// response bodies (the Rust implementation's ReadOutput, SnapshotOutput, LoadOutput/IngestOutput),
// built in one place so both surfaces spell a result the same way. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "common/json.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph {

// What a read read: `snapshot` set for a read at a snapshot or commit, else `branch`.
struct ReadTargetText {
  std::string branch;
  std::string snapshot;
};

// {branch, snapshot}, the one that was not given as null.
OrderedJson TargetJson(const ReadTargetText& target);

// One result row as {column: value} in projection order.
OrderedJson RowJson(const QueryRows& rows, size_t i);

// ReadOutput: {query_name, target, row_count, columns?, rows: [{col: value}], graph_commit_id}
// (`with_commit` false drops graph_commit_id: the deprecated /read route's byte-stable shape).
OrderedJson ReadOutputJson(const QueryRows& rows, const ReadTargetText& target, bool with_commit = true);

// SnapshotOutput: {graph_branch, graph_manifest_version, internal_schema_version, datasets: [{entity_kind,
// type_name, dataset_path, published_dataset_version, native_dataset_branch, entity_count, table_id}]
// (edges first, then nodes, by name), then ours: graph_commit_id, schema_id, snapshot_id}.
OrderedJson SnapshotOutputJson(const std::string& branch, const SnapshotInfo& snapshot);

// What a load was asked to do, for its output.
struct LoadRequestText {
  std::string uri;     // the graph's URI ("" = leave `uri` out: the server's /load/ndjson shape)
  std::string branch;  // the branch loaded into
  std::string from;    // the branch it was created from when missing ("" = none)
  std::string mode;    // overwrite | append | merge
  // The IngestOutput shape (the server's load routes and the CLI's deprecated `ingest`):
  // base_branch always present (null without `from`), actor before commit.
  bool ingest = false;
  std::optional<std::string> actor;
};

// LoadOutput / IngestOutput: {uri?, branch, mode, base_branch?, branch_created, nodes: [{name,
// entities_loaded, inserted, updated, deleted}], edges: [...], total_entities, commit, committed,
// version, actor_id}. `commit` is the published commit (null when nothing was committed).
OrderedJson LoadOutputJson(const LoadRequestText& request, const LoadSummary& summary,
                           const std::optional<CommitInfo>& commit);

// ChangeOutput (a mutation): {branch, query_name, affected_nodes, affected_edges, actor_id, commit}.
OrderedJson ChangeOutputJson(const std::string& branch, const MutationSummary& summary,
                             const std::optional<std::string>& actor);

// The answer of a schema apply: {uri, supported, applied, step_count, graph_manifest_version, steps,
// branch, graph_commit_id, schema_id}.
OrderedJson SchemaApplyOutputJson(const std::string& uri, const Database::SchemaApplyResult& result);

}  // namespace omnigraph
