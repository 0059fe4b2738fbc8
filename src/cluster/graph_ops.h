// Internal to src/cluster: what the control plane does to one graph, through the public embedded
// API (include/omnigraph/). Every operation is idempotent: it looks at the live graph first, so
// re-running it after a crash at any point finishes the job instead of repeating it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cluster/ledger.h"
#include "omnigraph/records.h"
#include "omnigraph/result.h"

namespace omnigraph::cluster {

struct LiveGraph {
  bool exists = false;                       // a graph (or something that fails to open as one)
  std::optional<std::string> schema_digest;  // sha256 of its schema source at main's head
  std::optional<uint64_t> version;           // main's ref version
  std::string error;                         // why it exists but did not open
  bool matches_desired = false;              // its schema is the desired one (same schema id)
};

// Opens `uri` read-only and reports what is there, compared with `desired_source` (schemas that
// compile to the same schema id match, whatever their comments and layout).
LiveGraph ObserveGraph(const std::string& uri, const std::string& desired_source);

// The migration from the live graph's schema to `schema_source` (read-only).
Result<SchemaPlan> PreviewMigration(const std::string& uri, const std::string& schema_source);

// Makes the graph at `uri` hold `schema_source` at main's head: creates it when there is none (an
// unfinished create is written over), applies the migration when its schema differs (soft drops
// only; an unsupported change is refused, changing nothing), does nothing when it already matches.
struct ConvergeResult {
  bool created = false;   // the graph was created by this call
  bool migrated = false;  // a schema_apply commit was made by this call
};
Result<ConvergeResult> ConvergeGraph(const std::string& uri, const std::string& schema_source,
                                     const std::optional<std::string>& actor, bool may_create);

// Deletes everything under the graph's prefix in the cluster root's store: its refs first, so an
// interrupted delete leaves no graph that opens, then the rest. Idempotent.
Status DeleteGraph(Ledger& ledger, const std::string& graph_id);

// Sets the composite digest of graph `g` in `state` from what the state records: schema.<g>,
// every query.<g>.*, and graph.<g>'s embedding provider with that provider's digest.
void RecomputeGraphDigest(const std::string& g, ClusterState* state);

}  // namespace omnigraph::cluster
