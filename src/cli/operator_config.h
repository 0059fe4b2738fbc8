// The operator config of the `omnigraph` CLI: `$OMNIGRAPH_HOME/config.yaml` when OMNIGRAPH_HOME is
// set (a leading `~` expanded), else `~/.omnigraph/config.yaml`. It says who the operator is
// (identity, output ergonomics, addressing shortcuts); the engine and servers never read it.
// Semantics follow the Rust CLI's operator config (crates/omnigraph-cli/src/operator.rs, scope.rs).
//
//   operator:  { actor: STR }                         # default actor
//   defaults:  { output: table|kv|csv|jsonl|json,     # default read format
//                table_max_column_width: UINT,        # table cell width cap (built-in 80)
//                table_cell_layout: truncate|wrap,    # over-wide cells (built-in truncate)
//                server: NAME, store: URI,            # default scope (at most one of the two)
//                default_graph: STR }                 # graph in a server/cluster scope (not with store)
//   servers:   { NAME: { url: STR } }                 # required url; no tokens in this file
//   clusters:  { NAME: { root: URI } }                # required root
//   profiles:  { NAME: { server: NAME|URL, cluster: NAME|ROOT, store: URI, default_graph: STR } }
//   aliases:   { NAME: { server: NAME, query: STR (both required), graph: STR, args: [STR],
//                        params: MAPPING, format: table|kv|csv|jsonl|json } }
//
// Loading. An absent file (or no resolvable home) is an empty config. An empty or comment-only
// file is an empty config. A null value (`key:` or `key: ~`) is the same as an absent key.
// Unknown keys, at any level outside `params`, are not errors: each adds a warning string to
// `warnings` (a file written for a newer CLI loads on this one); the CLI prints them on stderr.
// Errors are InvalidArgument with a span (file, 1-based line and column; common/error_codes.h):
// malformed YAML, several documents, a repeated or non-scalar key, a value of the wrong type (a
// mapping/sequence where a string is expected, a non-integer width, a format or layout outside
// its list), a missing required key, and `defaults` setting both `server` and `store` or both
// `store` and `default_graph`. A file that exists but cannot be read is an error too. A profile
// that binds zero or several scopes loads; it is an error only when selected (as in Rust).
//
// Precedence (ResolveOperatorSettings), highest first:
//   actor:   --as  >  $OMNIGRAPH_ACTOR (ours; Rust has no env var)  >  operator.actor  >  none.
//            Empty values count as unset. Profiles carry no actor.
//   output:  --json  >  --format  >  (alias `format`: `alias` only)  >  defaults.output  >  "table".
//            No env var; profiles carry no format.
//   table:   defaults.table_max_column_width > 80;  defaults.table_cell_layout > "truncate".
//   scope:   1. an explicit address (--store / positional URI): used as is; profile and defaults
//               are ignored entirely (an unknown --profile is not even looked up); --graph with it
//               is a usage error (a store is one graph).
//            2. the profile named by --profile, else $OMNIGRAPH_PROFILE (empty = unset): unknown
//               name -> error; it must bind exactly one of server/cluster/store; graph = --graph,
//               else the profile's default_graph (NOT defaults.default_graph); a store binding
//               with any graph (flag or the profile's default_graph) is an error.
//            3. defaults.server, graph = --graph, else defaults.default_graph.
//            4. defaults.store (a --graph is an error).
//            5. none: the command's own fallback (today: "no graph given").
// Whether a scope kind suits a command (a server scope needs a served verb, a cluster scope a
// maintenance verb) is for the caller to check, as Rust's capability check does.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"

#include "omnigraph/result.h"

namespace omnigraph::cli {

// The read output formats and table cell layouts the config accepts (as `query --format`).
inline constexpr std::string_view kOutputFormats[] = {"table", "kv", "csv", "jsonl", "json"};
inline constexpr std::string_view kTableCellLayouts[] = {"truncate", "wrap"};

struct OperatorServer {
  std::string url;
};

struct OperatorCluster {
  std::string root;
};

// A named scope bundle; valid when exactly one of server/cluster/store is set (checked on use).
struct OperatorProfile {
  std::optional<std::string> server;   // a `servers:` name or a literal URL
  std::optional<std::string> cluster;  // a `clusters:` name or a literal root
  std::optional<std::string> store;    // a graph's storage URI
  std::optional<std::string> default_graph;
};

// A binding to a stored query on a named server (the `alias` command, command_alias.cc).
struct OperatorAlias {
  std::string server;  // a `servers:` name
  std::optional<std::string> graph;
  std::string query;              // the stored query's name
  std::vector<std::string> args;  // positional CLI args bind to these parameter names, in order
  Json params = Json::object();   // fixed default parameters (plain YAML scalars typed as in JSON)
  std::optional<std::string> format;
};

struct OperatorConfig {
  std::string path;                                // the file read (for messages); empty when there was none
  std::optional<std::string> actor;                // operator.actor
  std::optional<std::string> output;               // defaults.output (one of kOutputFormats)
  std::optional<uint64_t> table_max_column_width;  // defaults.table_max_column_width
  std::optional<std::string> table_cell_layout;    // defaults.table_cell_layout (kTableCellLayouts)
  std::optional<std::string> default_server;       // defaults.server
  std::optional<std::string> default_store;        // defaults.store
  std::optional<std::string> default_graph;        // defaults.default_graph
  std::map<std::string, OperatorProfile> profiles;
  std::map<std::string, OperatorServer> servers;
  std::map<std::string, OperatorCluster> clusters;
  std::map<std::string, OperatorAlias> aliases;
  // "unknown key `operator.color` (newer CLI feature or typo); ignored in operator config '<path>'
  // (line 3)". Print each as "warning: <text>" on stderr.
  std::vector<std::string> warnings;
};

// The config file's path from the environment (see the top of this file); empty when neither
// OMNIGRAPH_HOME nor a home directory ($HOME, else the password database) is known. An empty
// OMNIGRAPH_HOME counts as unset (Rust would read ./config.yaml).
[[nodiscard]] std::string OperatorConfigPath();

// Parses the text of a config file; `path_for_messages` names it in errors and warnings.
[[nodiscard]] Result<OperatorConfig> ParseOperatorConfig(std::string_view yaml_text,
                                                         std::string_view path_for_messages);

// Reads and parses `path`; a missing file (or an empty path) is an empty config.
[[nodiscard]] Result<OperatorConfig> LoadOperatorConfig(const std::string& path);

// What a command was given. An empty optional is "not given"; map an empty CLI11 string to nullopt.
struct OperatorInputs {
  std::optional<std::string> profile;      // --profile NAME
  std::optional<std::string> actor;        // --as ACTOR
  std::optional<std::string> format;       // --format F (validated by the command)
  bool json = false;                       // --json
  std::optional<std::string> store;        // --store URI or the positional URI
  std::optional<std::string> graph;        // --graph ID (server/cluster scopes)
  std::optional<std::string> env_profile;  // $OMNIGRAPH_PROFILE
  std::optional<std::string> env_actor;    // $OMNIGRAPH_ACTOR
};

// Sets env_profile and env_actor from the environment (an empty variable is unset).
void ReadOperatorEnvironment(OperatorInputs* inputs);

enum class ScopeKind { kNone, kStore, kServer, kCluster };

struct OperatorSettings {
  std::optional<std::string> actor;
  std::string output = "table";
  uint64_t table_max_column_width = 80;
  std::string table_cell_layout = "truncate";
  std::optional<std::string> profile;  // the profile used for the scope, if any
  ScopeKind scope = ScopeKind::kNone;
  std::string scope_source;  // "--store", "profile 'p'", "operator defaults" (empty for kNone)
  // kStore: the URI; kServer: the server name or literal URL; kCluster: the cluster root (a
  // `clusters:` name resolved, else the value as given).
  std::string target;
  std::optional<std::string> server_url;  // kServer: its `servers:` url, or the target when it has "://"
  std::optional<std::string> graph;
};

// Applies the precedence rules above. Errors: unknown profile, a profile binding zero or several
// scopes, a graph with a store scope (InvalidArgument; usage_error when it came from --graph).
[[nodiscard]] Result<OperatorSettings> ResolveOperatorSettings(const OperatorConfig& config,
                                                               const OperatorInputs& inputs);

}  // namespace omnigraph::cli
