// Helpers shared by the graph commands: addressing (positional URI or --store), the actor
// (--as, else OMNIGRAPH_ACTOR), reading input files, and opening a graph.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/operator_config.h"
#include "common/json.h"

#include "omnigraph/omnigraph.h"
#include "omnigraph/result.h"

namespace omnigraph::cli {

// Flags accepted anywhere on the command line, before or after the verb (as the Rust CLI's
// `global = true` flags): `--store`, `--as`, `--profile`, `--server`, `--graph`, `--cluster`,
// `--yes`, `--quiet`, `--unsafe-single-writer`. Filled by the root app; read by every command after parsing.
struct GlobalFlags {
  std::string store;                  // --store URI: the graph's storage
  std::string actor;                  // --as ACTOR
  std::string profile;                // --profile NAME (else $OMNIGRAPH_PROFILE)
  std::string server;                 // --server NAME|URL (remote graphs: the server issue)
  std::string graph;                  // --graph ID (a graph of a server or cluster)
  std::string cluster;                // --cluster DIR|URI
  bool yes = false;                   // --yes: skip confirmation of destructive writes to non-local scopes
  bool quiet = false;                 // --quiet: no write-target line on stderr
  bool unsafe_single_writer = false;  // --unsafe-single-writer: write s3:// without conditional writes
  std::string cache_dir;              // --cache-dir (default $OMNIGRAPH_CACHE_DIR): disk cache of remote graphs
};
GlobalFlags& Globals();
// Adds the global flags to the root app and makes every subcommand created after it pass the ones
// it does not know up to the root (CLI11 fallthrough). Call before adding subcommands.
void AddGlobalFlags(CLI::App& app);

// Flags every graph command takes besides the global ones.
struct GraphFlags {
  std::string positional_uri;
  std::string uri_flag;  // --uri (the commands where the Rust CLI takes it)
  bool json = false;

  // The graph URI: from --store, --uri or the positional argument (several only when equal), else
  // the profile's or `defaults.store` of the operator config. A usage error (exit 2) otherwise.
  Result<std::string> Uri() const;
  // --as, else $OMNIGRAPH_ACTOR, else `operator.actor` of the operator config.
  std::optional<std::string> Actor() const;
  // The effective operator settings (output format, table layout, scope) for the global flags,
  // these flags and the command's `--format`.
  Result<OperatorSettings> Settings(std::optional<std::string> format) const;
};

// Adds `--json`, `--uri URI` (when `uri_flag`) and (when `positional`) a positional `URI`.
void AddGraphFlags(CLI::App* cmd, GraphFlags* flags, bool positional, bool uri_flag = false);

// The operator config (operator_config.h), read once per process; its warnings are printed on
// stderr the first time.
Result<const OperatorConfig*> LoadedOperatorConfig();

// The cluster of `policy`, `queries` and `--cluster` graph addressing: --cluster (a `clusters:`
// name resolved to its root, else the folder or URI as given), else a cluster profile. A usage
// error when there is none.
Result<std::string> ClusterRoot();
// The root of applied graph `graph` (empty: the only one) of `cluster` (a cluster folder or storage
// root), from its applied state.
Result<std::string> ClusterGraphUri(const std::string& cluster, const std::string& graph);

// Opens the graph through the public API (the CLI is a client of include/omnigraph/ only).
Result<std::unique_ptr<Database>> OpenGraph(const GraphFlags& flags, bool writable);
// The Rust CLI's write-target line on stderr before a write (`omnigraph load → /g (direct, local)`),
// unless --quiet. `label` names the command (`load`, `branch create`, ...).
void EchoWriteTarget(std::string_view label, const GraphFlags& flags);
// The actor of a handle as JSON (null when none).
Json ActorJson(const Database& db);
// Reads a source file (schema, query, parameters) whole: ReadSourceFile (common/file_util.h), with
// its typed errors (not_found, invalid_argument for a directory, resource_limit past 64 MiB).
Result<std::string> ReadFile(const std::string& path, std::string_view what);

}  // namespace omnigraph::cli
