// The stored queries and policies of an applied cluster, for `omnigraph queries validate|list` and
// `omnigraph policy validate|test|explain` (docs/cluster.md): read from a ServingSnapshot, so they
// describe what is applied, not what cluster.yaml says.
#pragma once

#include <string>
#include <vector>

#include "cluster/serving.h"
#include "common/json.h"
#include "omnigraph/result.h"

namespace omnigraph::cluster {

struct QueryIssue {
  std::string query;
  std::string message;
};

struct StoredQueriesReport {
  size_t total = 0;
  std::vector<QueryIssue> breakages;  // a query that no longer parses or type-checks
  std::vector<QueryIssue> warnings;
};

// Type-checks every stored query of each applied graph (only `graph`, when not empty) against that
// graph's live schema at main's head. NotFound for a `graph` that is not applied.
Result<StoredQueriesReport> ValidateStoredQueries(const ServingSnapshot& snapshot, const std::string& graph);

// {queries: [{name, mcp_expose, tool_name, mutation, description?, instruction?, params: [{name,
// type, nullable}]}]} by name, for every applied graph (or only `graph`). A cluster exposes no
// query as an MCP tool (mcp_expose false, tool_name null). InvalidArgument for a catalog object
// that does not declare its query.
Result<OrderedJson> ListStoredQueries(const ServingSnapshot& snapshot, const std::string& graph);

// The policy bundle that decides requests on `graph`: the one bound to graph.<id> (a bundle bound
// to `cluster` only when none is); without a graph, the only graph-bound bundle. For a server
// action (graph_list), the bundle bound to `cluster`. InvalidArgument naming the candidates when
// there are none or several.
Result<const ServingPolicy*> SelectPolicy(const ServingSnapshot& snapshot, const std::string& graph,
                                          bool server_action = false);

}  // namespace omnigraph::cluster
