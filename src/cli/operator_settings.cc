// ResolveOperatorSettings: the precedence rules at the top of operator_config.h.
#include "cli/operator_config.h"

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_util.h"
#include "common/error_codes.h"

namespace omnigraph::cli {

void ReadOperatorEnvironment(OperatorInputs* inputs) {
  auto get = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' ? std::optional<std::string>(v) : std::nullopt;
  };
  inputs->env_profile = get("OMNIGRAPH_PROFILE");
  inputs->env_actor = get("OMNIGRAPH_ACTOR");
}

namespace {

// `s` with a scope bound: `kind` named by `value`, graph `graph` (from --graph when `graph_flag`).
Status Bind(const OperatorConfig& c, ScopeKind kind, const std::string& value, std::optional<std::string> graph,
            bool graph_flag, std::string source, OperatorSettings* s) {
  if (kind == ScopeKind::kStore && graph && graph_flag) {
    return UsageError("--graph does not apply to a store scope (" + source + "): a store is already a single graph");
  }
  if (kind == ScopeKind::kStore && graph) {
    return InvalidArgumentError(source +
                                " binds a store and sets default_graph: a store is already a single "
                                "graph; drop default_graph");
  }
  s->scope = kind;
  s->scope_source = std::move(source);
  s->target = value;
  s->graph = std::move(graph);
  if (kind == ScopeKind::kServer) {
    if (auto it = c.servers.find(value); it != c.servers.end()) {
      s->server_url = it->second.url;
    } else if (value.find("://") != std::string::npos) {
      s->server_url = value;
    }
  } else if (kind == ScopeKind::kCluster) {
    if (auto it = c.clusters.find(value); it != c.clusters.end()) s->target = it->second.root;
  }
  return Status::Ok();
}

}  // namespace

Result<OperatorSettings> ResolveOperatorSettings(const OperatorConfig& config, const OperatorInputs& in) {
  OperatorSettings s;
  for (const auto* a : {&in.actor, &in.env_actor, &config.actor}) {
    if (a->has_value() && !(*a)->empty()) {
      s.actor = **a;
      break;
    }
  }
  s.output = in.json ? "json" : in.format ? *in.format : config.output.value_or("table");
  s.table_max_column_width = config.table_max_column_width.value_or(80);
  s.table_cell_layout = config.table_cell_layout.value_or("truncate");

  // 1. An explicit address wins; profile and defaults are not consulted.
  if (in.store) {
    OG_RETURN_IF_ERROR(Bind(config, ScopeKind::kStore, *in.store, in.graph, true, "--store", &s));
    return s;
  }
  // 2. A profile: --profile, else $OMNIGRAPH_PROFILE.
  std::optional<std::string> name = in.profile ? in.profile : in.env_profile;
  if (name) {
    auto it = config.profiles.find(*name);
    if (it == config.profiles.end()) {
      return InvalidArgumentError("unknown profile '" + *name +
                                  "' (not defined under `profiles:` in operator config '" + config.path + "')");
    }
    const OperatorProfile& p = it->second;
    std::vector<std::pair<ScopeKind, const char*>> set;
    if (p.server) set.emplace_back(ScopeKind::kServer, "server");
    if (p.cluster) set.emplace_back(ScopeKind::kCluster, "cluster");
    if (p.store) set.emplace_back(ScopeKind::kStore, "store");
    if (set.size() != 1) {
      std::string which;
      for (const auto& bound : set) which += (which.empty() ? "" : ", ") + std::string(bound.second);
      return InvalidArgumentError("profile '" + *name + "' binds " +
                                  (set.empty() ? "no scope" : std::to_string(set.size()) + " scopes (" + which + ")") +
                                  "; a profile must bind exactly one of `server`, `cluster` or `store`");
    }
    const std::string& value = p.server ? *p.server : p.cluster ? *p.cluster : *p.store;
    s.profile = name;
    OG_RETURN_IF_ERROR(Bind(config, set[0].first, value, in.graph ? in.graph : p.default_graph, in.graph.has_value(),
                            "profile '" + *name + "'", &s));
    return s;
  }
  // 3./4. The flat defaults (at most one of server and store; checked at load).
  if (config.default_server) {
    OG_RETURN_IF_ERROR(Bind(config, ScopeKind::kServer, *config.default_server,
                            in.graph ? in.graph : config.default_graph, in.graph.has_value(), "operator defaults", &s));
  } else if (config.default_store) {
    OG_RETURN_IF_ERROR(Bind(config, ScopeKind::kStore, *config.default_store, in.graph, true, "operator defaults", &s));
  } else {
    s.graph = in.graph;  // 5. No scope: the command's own fallback.
  }
  return s;
}

}  // namespace omnigraph::cli
