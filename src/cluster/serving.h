// What a cluster serves: the graphs, stored queries and policies of its newest applied state
// revision, with every catalog object read and checked against its digest. `omnigraph policy` and
// `omnigraph queries` read it, `--cluster DIR --graph ID` resolves graphs through it, and the
// server will boot from it. Read-only: takes no lock (a published revision never changes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/ledger.h"
#include "omnigraph/result.h"

namespace omnigraph::cluster {

struct ServingGraph {
  std::string id;
  std::string uri;  // its root
};

struct ServingQuery {
  std::string graph;
  std::string name;
  std::string source;  // the whole .gq file the query was declared in
};

struct ServingPolicy {
  std::string name;
  std::string source;                   // the policy file
  std::vector<std::string> applies_to;  // "cluster" | "graph.<id>"
};

struct ServingSnapshot {
  StorageRoot root;
  uint64_t revision = 0;
  std::vector<ServingGraph> graphs;     // by id
  std::vector<ServingQuery> queries;    // by graph, then name
  std::vector<ServingPolicy> policies;  // by name
};

// `cluster` is a cluster folder (holding cluster.yaml: its `storage:` root, else the folder) or a
// storage root (a folder holding __cluster/, or s3://bucket/prefix). `cluster_not_servable`
// errors, their message starting with the specific code: cluster_state_missing (never applied),
// catalog_payload_missing / catalog_payload_digest_mismatch (a catalog object lost or tampered:
// `cluster refresh`, then `cluster apply`), policy_bindings_missing.
Result<ServingSnapshot> ReadServingSnapshot(const std::string& cluster);

// The root of graph `graph_id` of `snapshot`; with `graph_id` empty, the only graph. NotFound
// (naming the applied graphs) otherwise.
Result<ServingGraph> SelectServingGraph(const ServingSnapshot& snapshot, const std::string& graph_id);

}  // namespace omnigraph::cluster
