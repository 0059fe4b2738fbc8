#include "server/registry.h"

#include <cctype>
#include <utility>

#include "cluster/serving.h"
#include "cluster/stored_queries.h"
#include "common/error_codes.h"
#include "common/file_util.h"
#include "compiler/query_parser.h"

namespace omnigraph::server {

ServedGraph* Registry::Find(const std::string& id) const {
  auto it = graphs.find(id);
  return it == graphs.end() ? nullptr : it->second.get();
}

namespace {

Result<std::optional<policy::PolicyBundle>> BundleFor(const cluster::ServingSnapshot& snap, const std::string& graph,
                                                      bool server_action) {
  bool bound = false;
  for (const auto& p : snap.policies) {
    for (const auto& a : p.applies_to) {
      if (a == "cluster" || (!server_action && a == "graph." + graph)) bound = true;
    }
  }
  if (!bound) return std::optional<policy::PolicyBundle>();
  OG_ASSIGN_OR_RETURN(const cluster::ServingPolicy* p, cluster::SelectPolicy(snap, graph, server_action));
  OG_ASSIGN_OR_RETURN(policy::PolicyBundle bundle, policy::ParsePolicyBundle(p->source, p->name));
  // A server-scoped bundle decides graph_list only; a graph falls back to `cluster` only when the
  // bundle there speaks of graph actions.
  if (!server_action && bundle.server_bundle()) return std::optional<policy::PolicyBundle>();
  return std::optional<policy::PolicyBundle>(std::move(bundle));
}

// The engine's own check of every write, behind the server's at its HTTP boundary: the graph's
// bundle decides; without one, a write by an authenticated actor is refused (default-deny) and a
// write without an actor (open mode) passes.
Status CheckWrite(const ServedGraph& g, const WriteIntent& w) {
  auto action = policy::ParsePolicyAction(w.action);
  if (!action) return InternalError("unknown write action '" + std::string(w.action) + "'");
  if (!g.policy) {
    if (w.actor)
      return Status(ErrorCode::kPolicyDenied, "write refused by the engine's policy check: default-deny mode");
    return Status::Ok();
  }
  if (!w.actor) return Status(ErrorCode::kPolicyDenied, "write refused by the engine's policy check: no actor");
  policy::PolicyDecision d = policy::Decide(*g.policy, {*w.actor, *action, w.branch, w.target_branch});
  if (d.allowed) return Status::Ok();
  return Status(ErrorCode::kPolicyDenied, "write refused by the engine's policy check: " + d.message);
}

Result<std::unique_ptr<ServedGraph>> OpenServed(const std::string& id, const std::string& uri, OpenOptions open,
                                                const std::vector<cluster::ServingQuery>& queries) {
  auto g = std::make_unique<ServedGraph>();
  g->id = id;
  g->uri = uri;
  const ServedGraph* self = g.get();  // stable: the registry keeps it by unique_ptr
  open.authorize_write = [self](const WriteIntent& w) { return CheckWrite(*self, w); };
  OG_ASSIGN_OR_RETURN(g->db, Database::Open(uri, open));
  for (const auto& q : queries) {
    if (q.graph != id) continue;
    auto prepared = g->db->Prepare(q.source, q.name);
    if (!prepared.ok()) return prepared.status().WithContext("stored query '" + q.name + "'");
    StoredQuery sq{q.name, q.source, *prepared, std::nullopt, std::nullopt};
    if (auto file = compiler::ParseQueryFile(q.source); file.ok()) {
      for (const auto& decl : file->queries) {
        if (decl.name != q.name) continue;
        for (const auto& a : decl.annotations) {
          if (a.name == "description") sq.description = a.text;
          if (a.name == "instruction") sq.instruction = a.text;
        }
      }
    }
    g->queries.emplace(q.name, std::move(sq));
  }
  return g;
}

}  // namespace

Result<Registry> BootRegistry(const BootOptions& options) {
  Registry reg;
  if (options.cluster.empty() == options.store.empty()) {
    return InvalidArgumentError("serve a cluster (--cluster DIR|s3://ROOT) or one graph (--store URI), exactly one");
  }
  if (!options.store.empty()) {
    const std::string& id = options.graph_id;
    bool valid =
        !id.empty() && id.size() <= 64 && id != "policies" && id != "healthz" && id != "openapi" && id != "graphs";
    for (char c : id) valid = valid && (std::isalnum(static_cast<unsigned char>(c)) || c == '-');
    if (!valid) {
      return InvalidArgumentError("--graph-id '" + id + "' must match ^[a-zA-Z0-9-]{1,64}$ and not be a reserved name");
    }
    reg.source = options.store;
    OG_ASSIGN_OR_RETURN(auto g, OpenServed(options.graph_id, options.store, options.open, {}));
    g->uri = g->db->uri();
    if (!options.policy_file.empty()) {
      OG_ASSIGN_OR_RETURN(std::string text, ReadSourceFile(options.policy_file, "policy file"));
      OG_ASSIGN_OR_RETURN(policy::PolicyBundle bundle, policy::ParsePolicyBundle(text, options.policy_file));
      if (bundle.server_bundle())
        reg.server_policy = std::move(bundle);
      else
        g->policy = std::move(bundle);
      reg.any_policy = true;
    }
    reg.graphs.emplace(g->id, std::move(g));
    return reg;
  }
  OG_ASSIGN_OR_RETURN(cluster::ServingSnapshot snap, cluster::ReadServingSnapshot(options.cluster));
  reg.cluster_served = true;
  reg.source = snap.root.display;
  reg.revision = snap.revision;
  reg.any_policy = !snap.policies.empty();
  OG_ASSIGN_OR_RETURN(reg.server_policy, BundleFor(snap, "", /*server_action=*/true));
  for (const auto& sg : snap.graphs) {
    OG_ASSIGN_OR_RETURN(auto bundle, BundleFor(snap, sg.id, /*server_action=*/false));
    auto g = OpenServed(sg.id, sg.uri, options.open, snap.queries);
    if (!g.ok()) {
      if (options.require_all_graphs) return g.status().WithContext("graph '" + sg.id + "'");
      reg.quarantined.push_back({sg.id, g.status().ToString()});
      continue;
    }
    (*g)->policy = std::move(bundle);
    reg.graphs.emplace(sg.id, std::move(*g));
  }
  if (reg.graphs.empty()) {
    std::string why;
    for (const auto& q : reg.quarantined) why += "; " + q.id + ": " + q.reason;
    return Status(ErrorCode::kClusterNotServable, "no graph of cluster '" + reg.source + "' could be served" + why);
  }
  return reg;
}

}  // namespace omnigraph::server
