#include "cli/cli_graph.h"

#include <cstdio>
#include <cstdlib>

#include "cli/cli_util.h"
#include "cli/operator_config.h"
#include "cluster/serving.h"
#include "common/error_codes.h"
#include "common/file_util.h"

namespace omnigraph::cli {

GlobalFlags& Globals() {
  static GlobalFlags flags;
  return flags;
}

void AddGlobalFlags(CLI::App& app) {
  GlobalFlags& g = Globals();
  app.fallthrough();  // inherited by subcommands: unknown options go up to the root
  app.add_option("--store", g.store, "Graph storage URI (path, file://, memory://); anywhere on the line");
  app.add_option("--as", g.actor, "Actor recorded on commits (default: $OMNIGRAPH_ACTOR, operator.actor)");
  app.add_option("--profile", g.profile, "Profile of ~/.omnigraph/config.yaml (default: $OMNIGRAPH_PROFILE)");
  app.add_option("--server", g.server, "Server name or http(s):// URL (remote graphs)");
  app.add_option("--graph", g.graph, "Graph id within a server or cluster");
  app.add_option("--cluster", g.cluster, "Cluster directory or storage root (maintenance)");
  app.add_flag("--yes", g.yes, "Skip the confirmation of destructive writes to non-local graphs");
  app.add_flag("--quiet", g.quiet, "No write-target line on stderr");
  app.add_flag("--unsafe-single-writer", g.unsafe_single_writer,
               "Write an s3:// graph although its endpoint ignores conditional writes (UNSAFE with more "
               "than one writer; also OMNIGRAPH_UNSAFE_SINGLE_WRITER=1)");
  app.add_option("--cache-dir", g.cache_dir,
                 "Local folder caching immutable objects of s3:// graphs between runs (default: "
                 "$OMNIGRAPH_CACHE_DIR; none when unset)");
}

Result<const OperatorConfig*> LoadedOperatorConfig() {
  static const Result<OperatorConfig>* loaded = [] {
    auto* r = new Result<OperatorConfig>(LoadOperatorConfig(OperatorConfigPath()));
    if (r->ok()) {
      for (const std::string& w : (*r)->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    }
    return r;
  }();
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

Result<OperatorSettings> GraphFlags::Settings(std::optional<std::string> format) const {
  const GlobalFlags& g = Globals();
  std::optional<std::string> explicit_store;
  for (const std::string* given : {&g.store, &uri_flag, &positional_uri}) {
    if (!given->empty() && !explicit_store) explicit_store = *given;
  }
  OperatorInputs in;
  ReadOperatorEnvironment(&in);
  auto given = [](const std::string& s) { return s.empty() ? std::nullopt : std::optional<std::string>(s); };
  in.profile = given(g.profile);
  in.actor = given(g.actor);
  in.graph = given(g.graph);
  in.store = std::move(explicit_store);
  in.json = json;
  in.format = std::move(format);
  OG_ASSIGN_OR_RETURN(const OperatorConfig* config, LoadedOperatorConfig());
  return ResolveOperatorSettings(*config, in);
}

Result<std::string> GraphFlags::Uri() const {
  const GlobalFlags& g = Globals();
  if (!g.server.empty()) {
    return UsageError(
        "this command needs direct storage access; --server addresses a served graph. Pass the "
        "graph's storage with --store <uri> (or --cluster <dir> --graph <id>)");
  }
  if (!g.cluster.empty()) {
    for (const std::string* given : {&g.store, &uri_flag, &positional_uri}) {
      if (!given->empty()) return UsageError("--cluster names the graph's cluster; give no store URI with it");
    }
    OG_ASSIGN_OR_RETURN(std::string root, ClusterRoot());
    return ClusterGraphUri(root, g.graph);
  }
  std::string uri;
  for (const std::string* given : {&g.store, &uri_flag, &positional_uri}) {
    if (given->empty()) continue;
    if (!uri.empty() && uri != *given) {
      return UsageError("give the graph once: --store, --uri and the positional URI name different graphs ('" + uri +
                        "', '" + *given + "')");
    }
    uri = *given;
  }
  if (!uri.empty() && !g.graph.empty()) {
    return UsageError("--graph selects a graph of a --server or --cluster; a store URI names one graph already");
  }
  if (!uri.empty()) return uri;
  OG_ASSIGN_OR_RETURN(OperatorSettings settings, Settings(std::nullopt));
  switch (settings.scope) {
    case ScopeKind::kStore: return settings.target;
    case ScopeKind::kServer:
      return UsageError("this command needs direct storage access, but " + settings.scope_source +
                        " resolves a server scope ('" + settings.target +
                        "'); name storage explicitly with --store <uri> (or --cluster <dir> --graph <id>)");
    case ScopeKind::kCluster: return ClusterGraphUri(settings.target, settings.graph.value_or(""));
    case ScopeKind::kNone: break;
  }
  return UsageError(
      "no graph addressed — pass a positional URI, --store <uri>, --profile <name>, or set a default scope in "
      "~/.omnigraph/config.yaml");
}

Result<std::string> ClusterRoot() {
  const GlobalFlags& g = Globals();
  if (!g.cluster.empty()) {
    OG_ASSIGN_OR_RETURN(const OperatorConfig* config, LoadedOperatorConfig());
    auto it = config->clusters.find(g.cluster);
    return it != config->clusters.end() ? it->second.root : g.cluster;
  }
  OG_ASSIGN_OR_RETURN(OperatorSettings settings, GraphFlags{}.Settings(std::nullopt));
  if (settings.scope == ScopeKind::kCluster) return settings.target;
  return UsageError(
      "this command needs a cluster: pass --cluster DIR|URI (or a name from `clusters:` in "
      "~/.omnigraph/config.yaml), or select a cluster profile");
}

Result<std::string> ClusterGraphUri(const std::string& cluster, const std::string& graph) {
  OG_ASSIGN_OR_RETURN(cluster::ServingSnapshot snapshot, cluster::ReadServingSnapshot(cluster));
  OG_ASSIGN_OR_RETURN(cluster::ServingGraph selected, cluster::SelectServingGraph(snapshot, graph));
  return selected.uri;
}

std::optional<std::string> GraphFlags::Actor() const {
  if (!Globals().actor.empty()) return Globals().actor;
  if (const char* env = std::getenv("OMNIGRAPH_ACTOR"); env != nullptr && *env != '\0') return std::string(env);
  auto config = LoadedOperatorConfig();
  if (config.ok() && (*config)->actor && !(*config)->actor->empty()) return *(*config)->actor;
  return std::nullopt;
}

void AddGraphFlags(CLI::App* cmd, GraphFlags* flags, bool positional, bool uri_flag) {
  if (positional) cmd->add_option("uri", flags->positional_uri, "Graph URI (path, file://, memory://)");
  if (uri_flag) cmd->add_option("--uri", flags->uri_flag, "Graph URI (same as --store)");
  cmd->add_flag("--json", flags->json, "Print JSON");
}

Result<std::unique_ptr<Database>> OpenGraph(const GraphFlags& flags, bool writable) {
  OG_ASSIGN_OR_RETURN(std::string uri, flags.Uri());
  OG_RETURN_IF_ERROR(LoadedOperatorConfig().status());  // a broken config is an error, not ignored
  OpenOptions o;
  o.actor = flags.Actor();
  o.read_only = !writable;
  o.unsafe_single_writer = Globals().unsafe_single_writer;
  o.disk_cache_dir = Globals().cache_dir;
  if (o.disk_cache_dir.empty()) {
    if (const char* env = std::getenv("OMNIGRAPH_CACHE_DIR")) o.disk_cache_dir = env;
  }
  return Database::Open(uri, o);
}

void EchoWriteTarget(std::string_view label, const GraphFlags& flags) {
  if (Globals().quiet) return;
  auto uri = flags.Uri();
  if (!uri.ok()) return;
  const bool local =
      uri->find("://") == std::string::npos || uri->starts_with("file://") || uri->starts_with("memory://");
  std::fprintf(stderr, "omnigraph %.*s \u2192 %s (%s)\n", static_cast<int>(label.size()), label.data(), uri->c_str(),
               local ? "direct, local" : "direct, remote");
}

Json ActorJson(const Database& db) { return db.actor() ? Json(*db.actor()) : Json(nullptr); }

Result<std::string> ReadFile(const std::string& path, std::string_view what) { return ReadSourceFile(path, what); }

}  // namespace omnigraph::cli
