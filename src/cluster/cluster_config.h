// The declared configuration of a cluster (docs/cluster.md): `<dir>/cluster.yaml` and the schema,
// query and policy files it names, read strictly and turned into addressed resources with digests
// (`graph.<id>`, `schema.<id>`, `query.<graph>.<name>`, `policy.<name>`,
// `provider.embedding.<name>`), the dependencies between them and diagnostics with stable codes.
// This is `omnigraph cluster validate`; plan and apply compare these digests with the state ledger.
//
// Digests are those of the existing implementation, so one cluster folder has the same resource
// digests under both: SHA-256 (lower-case hex) of each schema, query and policy file's bytes; of
// "embedding-provider\0" + the profile as compact JSON; and a composite for graphs (schema digest,
// every query digest by name, the embedding provider and its digest).
// Reads files only; writes nothing. Thread-safe (no shared state).
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"

namespace omnigraph::cluster {

inline constexpr const char* kClusterConfigFile = "cluster.yaml";

enum class Severity { kError, kWarning };

struct Diagnostic {
  std::string code;  // e.g. "schema_parse_error" (docs/cluster.md lists every code)
  Severity severity = Severity::kError;
  std::string path;  // the key path in cluster.yaml, e.g. "graphs.knowledge.schema"
  std::string message;
};

struct ResourceSummary {
  std::string address;  // "graph.knowledge"
  std::string kind;     // graph | schema | query | policy | embedding_provider
  std::string digest;
  std::optional<std::string> path;  // the file it was read from
  // What apply stores for it (not part of the JSON): the file's bytes for a schema, query or policy,
  // the profile's compact JSON for an embedding provider; empty for a graph.
  std::string content;
  std::vector<std::string> applies_to;  // a policy's bindings: "cluster" or "graph.<id>", sorted
};

struct Dependency {
  std::string from, to;
  auto operator<=>(const Dependency&) const = default;
};

struct ValidateOutput {
  bool ok = false;  // no error diagnostics
  std::string config_dir;
  std::string config_file;
  std::optional<std::string> storage;  // `storage:` as written (trimmed), when given
  std::optional<std::string> metadata_name;
  std::map<std::string, std::string> graph_providers;   // graph id -> "provider.embedding.<name>"
  std::map<std::string, std::string> resource_digests;  // address -> digest
  std::vector<ResourceSummary> resources;               // by address
  std::vector<Dependency> dependencies;                 // sorted
  std::vector<Diagnostic> diagnostics;                  // in the order found
  // The digest of the desired state when ok: every resource's address and digest, policy bindings,
  // storage and metadata.name. Formatting and comments do not change it; any edit to a file a
  // resource reads does. Delete approvals are bound to it.
  std::string config_digest;
};

// Reads and checks the cluster folder `config_dir`: YAML syntax, duplicate and unknown keys,
// reserved keys, ids, files, schema parsing and catalog, stored-query discovery, parsing and type
// checking against the graph's declared schema, policy files and their bindings, embedding
// provider profiles. Never fails: every problem is a diagnostic.
ValidateOutput ValidateClusterConfig(const std::string& config_dir);

// The composite digest of graph `id` (the existing implementation's): its schema digest, each
// query digest by name, and the embedding provider address and digest when it binds one.
std::string GraphDigest(const std::string& id, const std::string& schema_digest,
                        const std::map<std::string, std::string>& query_digests, const std::string* provider,
                        const std::string* provider_digest);
// See ValidateOutput::config_digest.
std::string ConfigDigest(const ValidateOutput& out);

// {ok, config_dir, config_file, resource_digests, resources[{address, kind, digest, path?}],
//  dependencies[{from, to}], diagnostics[{code, severity, path, message}]}.
OrderedJson ToJson(const ValidateOutput& out);

}  // namespace omnigraph::cluster
