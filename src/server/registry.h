// What a server serves: its graphs, opened once at boot, each with the policy bundle bound to it
// and its stored queries compiled. Booted from an applied cluster revision (cluster/serving.h) or,
// for one graph without a cluster, from a store URI. Immutable after boot (no hot reload): a
// request reads it without locks; the Databases in it are thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "omnigraph/omnigraph.h"
#include "policy/policy.h"

namespace omnigraph::server {

struct StoredQuery {
  std::string name;
  std::string source;      // the whole .gq file it was declared in
  PreparedQuery prepared;  // compiled at boot against main's schema
  std::optional<std::string> description, instruction;
};

struct ServedGraph {
  std::string id;
  std::string uri;
  std::optional<policy::PolicyBundle> policy;  // the bundle bound to it (graph.<id>, else cluster)
  std::map<std::string, StoredQuery> queries;  // by name
  // Last, so it is destroyed first: its write check reads `policy`.
  std::unique_ptr<Database> db;
};

struct BootOptions {
  std::string cluster;               // a cluster folder or storage root (--cluster)
  std::string store;                 // or one graph's URI (--store)
  std::string graph_id = "default";  // the id a --store graph is served under
  std::string policy_file;           // --store: a policy bundle for that graph (optional)
  bool require_all_graphs = false;
  OpenOptions open;  // how graphs are opened (caches, disk cache)
};

struct Quarantined {
  std::string id;
  std::string reason;
};

struct Registry {
  bool cluster_served = false;  // booted from a cluster: schema changes go through `cluster apply`
  std::string source;           // the cluster root or store URI, for logs
  uint64_t revision = 0;        // the applied cluster revision served
  std::map<std::string, std::unique_ptr<ServedGraph>> graphs;  // healthy graphs by id
  std::vector<Quarantined> quarantined;                        // graphs that failed to open (absent from /graphs)
  std::optional<policy::PolicyBundle> server_policy;           // the bundle bound to `cluster` (graph_list)
  bool any_policy = false;

  ServedGraph* Find(const std::string& id) const;
};

// Boots the registry. Cluster-wide failures (no applied state, a damaged catalog, an unreadable
// policy) refuse the boot; a graph that fails to open or whose stored query no longer compiles is
// quarantined (or refuses the boot with require_all_graphs); zero healthy graphs refuse it.
Result<Registry> BootRegistry(const BootOptions& options);

}  // namespace omnigraph::server
