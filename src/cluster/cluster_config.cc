#include "cluster/cluster_config.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <string_view>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "common/file_util.h"
#include "common/hash.h"
#include "common/utf8.h"
#include "common/yaml_text.h"
#include "compiler/catalog_builder.h"
#include "compiler/query_parser.h"
#include "compiler/schema_parser.h"
#include "compiler/type_checker.h"
#include "policy/policy.h"

namespace omnigraph::cluster {

namespace fs = std::filesystem;

namespace {

// ---- The parsed shape of cluster.yaml -----------------------------------------------------------

struct EmbeddingProfile {
  std::optional<std::string> kind, base_url, model, api_key;
};

struct QueriesDecl {
  enum class Form { kExplicit, kDiscover } form = Form::kExplicit;
  std::vector<std::string> paths;              // kDiscover: directories or files
  std::map<std::string, std::string> entries;  // kExplicit: name -> file
};

struct GraphDecl {
  std::string schema;
  QueriesDecl queries;
  std::optional<std::string> embedding_provider;
  size_t external_blob_allows = 0;
};

struct PolicyDecl {
  std::string file;
  std::vector<std::string> applies_to;
};

struct RawConfig {
  int64_t version = 0;
  std::optional<std::string> metadata_name;
  std::optional<std::string> storage;
  std::optional<std::string> state_backend;
  std::map<std::string, EmbeddingProfile> providers;
  std::map<std::string, GraphDecl> graphs;
  std::map<std::string, PolicyDecl> policies;
};

void Error(std::vector<Diagnostic>* d, std::string code, std::string path, std::string message) {
  d->push_back(Diagnostic{std::move(code), Severity::kError, std::move(path), std::move(message)});
}
void Warning(std::vector<Diagnostic>* d, std::string code, std::string path, std::string message) {
  d->push_back(Diagnostic{std::move(code), Severity::kWarning, std::move(path), std::move(message)});
}
bool HasErrors(const std::vector<Diagnostic>& d) {
  return std::any_of(d.begin(), d.end(), [](const Diagnostic& x) { return x.severity == Severity::kError; });
}

// `s` without leading and trailing whitespace.
std::string Trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r\n\v\f");
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(" \t\r\n\v\f") - b + 1));
}

std::string Join(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string Where(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.is_null() ? "" : " (line " + std::to_string(m.line + 1) + ")";
}

// Every mapping key that appears twice, anywhere in the document. An alias shares its anchor's node
// (and start position), so each container is walked once: a "billion laughs" document of nested
// aliases costs its size, not its expansion.
void DuplicateKeys(const YAML::Node& n, const std::string& path, std::set<int>* seen_containers,
                   std::vector<Diagnostic>* d) {
  if (!n.IsMap() && !n.IsSequence()) return;
  if (!seen_containers->insert(n.Mark().pos).second) return;
  if (n.IsMap()) {
    std::set<std::string> seen;
    for (const auto& e : n) {
      const std::string key = e.first.IsScalar() ? e.first.Scalar() : "?";
      if (!seen.insert(key).second) {
        Error(d, "duplicate_yaml_key", Join(path, key),
              "duplicate key `" + key + "`" + Where(e.first) + ": YAML would silently keep only one of them");
      }
      DuplicateKeys(e.second, Join(path, key), seen_containers, d);
    }
  } else {
    for (size_t i = 0; i < n.size(); ++i) {
      DuplicateKeys(n[i], path + "[" + std::to_string(i) + "]", seen_containers, d);
    }
  }
}

// Strict decoding: unknown keys and wrong types become invalid_cluster_yaml diagnostics.
class Decoder {
 public:
  explicit Decoder(std::vector<Diagnostic>* d) : d_(d) {}

  void Bad(const std::string& path, const YAML::Node& at, const std::string& problem) {
    Error(d_, "invalid_cluster_yaml", path.empty() ? kClusterConfigFile : path,
          "could not parse cluster.yaml: " + (path.empty() ? std::string("the document") : "`" + path + "`") + " " +
              problem + Where(at));
  }
  // Visits each entry of mapping `n`; keys not in `known` are errors.
  template <class Fn>
  void Map(const YAML::Node& n, const std::string& path, std::initializer_list<std::string_view> known, Fn&& fn) {
    if (!n.IsMap()) return Bad(path, n, "must be a mapping");
    for (const auto& e : n) {
      const std::string key = e.first.Scalar();
      if (known.size() > 0 && std::find(known.begin(), known.end(), key) == known.end()) {
        Bad(Join(path, key), e.first, "is not a known key here");
        continue;
      }
      fn(key, e.second);
    }
  }
  // A string, or nullopt: an explicit null (`key:` or `key: ~`) reads as absent, as for any
  // optional key.
  std::optional<std::string> String(const YAML::Node& n, const std::string& path) {
    if (n.IsNull()) return std::nullopt;
    if (!n.IsScalar()) {
      Bad(path, n, "must be a string");
      return std::nullopt;
    }
    return n.Scalar();
  }
  std::vector<std::string> Strings(const YAML::Node& n, const std::string& path) {
    std::vector<std::string> out;
    if (!n.IsSequence()) {
      Bad(path, n, "must be a list of strings");
      return out;
    }
    for (size_t i = 0; i < n.size(); ++i) {
      if (auto s = String(n[i], path + "[" + std::to_string(i) + "]")) out.push_back(*s);
    }
    return out;
  }

  RawConfig Decode(const YAML::Node& root) {
    RawConfig c;
    bool has_version = false;
    Map(root, "", {"version", "metadata", "storage", "state", "providers", "graphs", "policies"},
        [&](const std::string& k, const YAML::Node& v) {
          if (k == "version") {
            has_version = true;
            try {
              if (!v.IsScalar() || v.Tag() != "?") throw YAML::Exception(v.Mark(), "quoted");
              c.version = v.as<int64_t>();
            } catch (const YAML::Exception&) {
              Bad("version", v, "must be an integer");
            }
          } else if (k == "metadata") {
            Map(v, "metadata", {"name"},
                [&](const std::string&, const YAML::Node& x) { c.metadata_name = String(x, "metadata.name"); });
          } else if (k == "storage") {
            c.storage = String(v, "storage");
          } else if (k == "state") {
            Map(v, "state", {"backend", "lock"}, [&](const std::string& sk, const YAML::Node& x) {
              if (sk == "backend") {
                c.state_backend = String(x, "state.backend");
              } else if (!x.IsNull() &&
                         (!x.IsScalar() || x.Tag() != "?" || (x.Scalar() != "true" && x.Scalar() != "false"))) {
                Bad("state.lock", x, "must be true or false");
              } else if (!x.IsNull() && x.Scalar() == "false") {
                Warning(d_, "state_lock_disabled", "state.lock",
                        "state.lock: false is not honoured: every command that writes the ledger takes the lock, "
                        "which is what keeps two concurrent applies apart");
              }
            });
          } else if (k == "providers") {
            Map(v, "providers", {"embedding"}, [&](const std::string&, const YAML::Node& x) { Providers(x, &c); });
          } else if (k == "graphs") {
            Map(v, "graphs", {}, [&](const std::string& id, const YAML::Node& x) { c.graphs[id] = Graph(x, id); });
          } else if (k == "policies") {
            Map(v, "policies", {}, [&](const std::string& name, const YAML::Node& x) {
              c.policies[name] = Policy(x, "policies." + name);
            });
          }
        });
    if (root.IsMap() && !has_version) Bad("version", root, "is required");
    return c;
  }

 private:
  void Providers(const YAML::Node& n, RawConfig* c) {
    Map(n, "providers.embedding", {}, [&](const std::string& name, const YAML::Node& x) {
      const std::string path = "providers.embedding." + name;
      EmbeddingProfile p;
      Map(x, path, {"kind", "provider", "base_url", "model", "api_key"},
          [&](const std::string& k, const YAML::Node& v) {
            auto s = String(v, Join(path, k));
            if (k == "kind" || k == "provider") {
              if (p.kind) Bad(Join(path, k), v, "repeats the provider kind (`provider` is another name for `kind`)");
              p.kind = s;
            } else if (k == "base_url") {
              p.base_url = s;
            } else if (k == "model") {
              p.model = s;
            } else {
              p.api_key = s;
            }
          });
      c->providers[name] = p;
    });
  }

  GraphDecl Graph(const YAML::Node& n, const std::string& id) {
    const std::string path = "graphs." + id;
    GraphDecl g;
    bool has_schema = false;
    Map(n, path, {"schema", "queries", "embedding_provider", "external_blobs"},
        [&](const std::string& k, const YAML::Node& v) {
          if (k == "schema") {
            has_schema = true;
            g.schema = String(v, path + ".schema").value_or("");
          } else if (k == "embedding_provider") {
            g.embedding_provider = String(v, path + ".embedding_provider");
          } else if (k == "queries") {
            Queries(v, path + ".queries", &g.queries);
          } else {
            Map(v, path + ".external_blobs", {"allow"}, [&](const std::string&, const YAML::Node& a) {
              if (!a.IsSequence()) return Bad(path + ".external_blobs.allow", a, "must be a list");
              for (size_t i = 0; i < a.size(); ++i) {
                Map(a[i], path + ".external_blobs.allow[" + std::to_string(i) + "]", {"base", "scope"},
                    [](const std::string&, const YAML::Node&) {});
              }
              g.external_blob_allows = a.size();
            });
          }
        });
    if (n.IsMap() && !has_schema) Bad(path + ".schema", n, "is required");
    return g;
  }

  void Queries(const YAML::Node& n, const std::string& path, QueriesDecl* q) {
    if (n.IsScalar()) {
      q->form = QueriesDecl::Form::kDiscover;
      q->paths = {n.Scalar()};
    } else if (n.IsSequence()) {
      q->form = QueriesDecl::Form::kDiscover;
      q->paths = Strings(n, path);
    } else if (n.IsMap()) {
      Map(n, path, {}, [&](const std::string& name, const YAML::Node& e) {
        Map(e, path + "." + name, {"file"}, [&](const std::string&, const YAML::Node& f) {
          if (auto s = String(f, path + "." + name + ".file")) q->entries[name] = *s;
        });
        if (e.IsMap() && !e["file"]) Bad(path + "." + name + ".file", e, "is required");
      });
    } else {
      Bad(path, n, "must be a directory or file, a list of them, or a map of name: {file}");
    }
  }

  PolicyDecl Policy(const YAML::Node& n, const std::string& path) {
    PolicyDecl p;
    bool has_file = false;
    Map(n, path, {"file", "applies_to"}, [&](const std::string& k, const YAML::Node& v) {
      if (k == "file") {
        has_file = true;
        p.file = String(v, path + ".file").value_or("");
      } else {
        p.applies_to = Strings(v, path + ".applies_to");
      }
    });
    if (n.IsMap() && !has_file) Bad(path + ".file", n, "is required");
    return p;
  }

  std::vector<Diagnostic>* d_;
};

// ---- Checks -------------------------------------------------------------------------------------

void ValidateId(const std::string& kind, const std::string& path, const std::string& value,
                std::vector<Diagnostic>* d) {
  bool ok = !value.empty() && (std::isalpha(static_cast<unsigned char>(value[0])) || value[0] == '_');
  for (char ch : value) {
    ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-');
  }
  if (!ok) {
    Error(d, "invalid_resource_id", path,
          kind + " `" + value + "` must start with a letter or `_` and contain only ASCII letters, digits, `_` or `-`");
  }
}

bool IsSecretRef(const std::string& raw) {
  std::string_view v = raw;
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
  if (!v.starts_with("${") || !v.ends_with("}")) return false;
  std::string_view name = v.substr(2, v.size() - 3);
  return name.find_first_not_of(" \t") != std::string_view::npos;
}

void ValidateProfile(const EmbeddingProfile& p, const std::string& path, std::vector<Diagnostic>* d) {
  const std::string kind = p.kind.value_or("openai-compatible");
  if (kind != "openai-compatible" && kind != "openai" && kind != "gemini" && kind != "mock") {
    Error(d, "invalid_embedding_provider", path,
          "unknown embedding provider kind `" + kind + "`; use openai-compatible, openai, gemini or mock");
  }
  if (p.base_url && !p.base_url->starts_with("http://") && !p.base_url->starts_with("https://")) {
    Error(d, "invalid_embedding_provider", path, "base_url `" + *p.base_url + "` must be an http(s) URL");
  }
  if (p.api_key && !IsSecretRef(*p.api_key)) {
    Error(d, "embedding_api_key_inline", path + ".api_key",
          "embedding api_key must be a ${NAME} environment reference, not an inline secret");
  } else if (!p.api_key && kind != "mock") {
    Error(d, "embedding_api_key_required", path + ".api_key",
          "non-mock embedding providers must set api_key to a ${NAME} environment reference");
  }
}

// Compact JSON with the fields in declaration order and absent ones left out.
std::string ProfileJson(const EmbeddingProfile& p) {
  std::string json = "{";
  auto field = [&](const char* name, const std::optional<std::string>& v) {
    if (!v) return;
    if (json.size() > 1) json += ",";
    json += Json(name).dump() + ":" + Json(*v).dump();
  };
  field("kind", p.kind);
  field("base_url", p.base_url);
  field("model", p.model);
  field("api_key", p.api_key);
  json += "}";
  return json;
}

std::string ProfileDigest(const EmbeddingProfile& p) {
  return Sha256Hex(std::string("embedding-provider") + '\0' + ProfileJson(p));
}

std::string Resolve(const std::string& config_dir, const std::string& path) {
  return (fs::path(config_dir) / fs::path(path)).string();
}

std::optional<std::string> ReadText(const std::string& path, std::string* error) {
  auto r = ReadSourceFile(path, "file");
  if (!r.ok()) {
    *error = r.status().message();
    return std::nullopt;
  }
  return std::move(*r);
}

// The query registry of one graph: name -> declared file (relative to the config folder), and the
// contents of discovered files (read once).
struct Registry {
  std::map<std::string, std::string> files;
  std::map<std::string, std::string> contents;
};

Registry DiscoverQueries(const std::string& config_dir, const std::string& graph_id, const QueriesDecl& decl,
                         std::vector<Diagnostic>* d) {
  Registry reg;
  const std::string path = "graphs." + graph_id + ".queries";
  if (decl.form == QueriesDecl::Form::kExplicit) {
    reg.files = decl.entries;
    return reg;
  }
  std::vector<std::pair<std::string, std::string>> files;  // (declared-relative, resolved)
  for (const std::string& declared : decl.paths) {
    const std::string resolved = Resolve(config_dir, declared);
    std::error_code ec;
    if (!fs::is_directory(resolved, ec)) {
      files.emplace_back(declared, resolved);
      continue;
    }
    std::vector<fs::path> entries;
    for (auto it = fs::directory_iterator(resolved, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      if (it->path().extension() == ".gq") entries.push_back(it->path());
    }
    if (ec) {
      Error(d, "query_dir_unreadable", path, "could not list query directory '" + resolved + "': " + ec.message());
      continue;
    }
    std::sort(entries.begin(), entries.end());
    if (entries.empty())
      Warning(d, "query_dir_empty", path, "query directory '" + resolved + "' contains no .gq files");
    for (const fs::path& e : entries) files.emplace_back((fs::path(declared) / e.filename()).string(), e.string());
  }
  std::map<std::string, std::string> origin;
  for (const auto& [declared, resolved] : files) {
    std::string error;
    auto source = ReadText(resolved, &error);
    if (!source) {
      Error(d, "query_file_missing", path, "could not read query file '" + resolved + "': " + error);
      continue;
    }
    auto parsed = compiler::ParseQueryFile(*source);
    if (!parsed.ok()) {
      Error(d, "query_parse_error", path, "'" + resolved + "' does not parse: " + parsed.status().ToString());
      continue;
    }
    for (const auto& q : parsed->queries) {
      if (auto it = origin.find(q.name); it != origin.end()) {
        Error(d, "duplicate_query_name", path + "." + q.name,
              "query '" + q.name + "' is declared in both '" + it->second + "' and '" + declared + "'");
        continue;
      }
      origin[q.name] = declared;
      reg.files[q.name] = declared;
    }
    reg.contents[declared] = std::move(*source);
  }
  return reg;
}

void CheckQuery(const std::string& graph_id, const std::string& name, const std::string& source,
                const compiler::Catalog* catalog, std::vector<Diagnostic>* d) {
  const std::string path = "graphs." + graph_id + ".queries." + name;
  auto parsed = compiler::ParseQueryFile(source);
  if (!parsed.ok()) return Error(d, "query_parse_error", path, parsed.status().ToString());
  auto it = std::find_if(parsed->queries.begin(), parsed->queries.end(),
                         [&](const compiler::Query& q) { return q.name == name; });
  if (it == parsed->queries.end()) {
    return Error(d, "query_key_mismatch", path, "no `query " + name + "` declaration found in the referenced .gq file");
  }
  if (catalog == nullptr) {
    return Warning(d, "query_typecheck_skipped", path,
                   "query parsed, but type-check was skipped because the graph schema is invalid");
  }
  auto checked = compiler::TypeCheckQuery(*catalog, *it);
  if (!checked.ok()) Error(d, "query_typecheck_error", path, checked.status().ToString());
}

struct Loaded {
  std::map<std::string, ResourceSummary> resources;
  std::set<Dependency> dependencies;
  std::map<std::string, std::string> graph_providers;
};

void LoadProviders(const RawConfig& raw, Loaded* out, std::map<std::string, std::string>* digests,
                   std::vector<Diagnostic>* d) {
  for (const auto& [name, profile] : raw.providers) {
    const std::string path = "providers.embedding." + name;
    ValidateId("embedding provider name", path, name, d);
    ValidateProfile(profile, path, d);
    const std::string address = "provider.embedding." + name;
    (*digests)[address] = ProfileDigest(profile);
    out->resources[address] =
        ResourceSummary{address, "embedding_provider", (*digests)[address], std::nullopt, ProfileJson(profile), {}};
  }
}

void LoadGraphs(const std::string& config_dir, const RawConfig& raw,
                const std::map<std::string, std::string>& providers, Loaded* out, std::vector<Diagnostic>* d) {
  for (const auto& [id, graph] : raw.graphs) {
    const std::string gpath = "graphs." + id;
    ValidateId("graph id", gpath, id, d);
    const std::string graph_address = "graph." + id;
    const std::string schema_address = "schema." + id;
    if (graph.external_blob_allows > 0) {
      Error(
          d, "unimplemented", gpath + ".external_blobs",
          "external_blobs allow-lists are not implemented yet; omit the key (or leave `allow` empty) to deny external "
          "Blob URIs");
    }
    out->dependencies.insert({schema_address, graph_address});
    std::optional<std::string> provider_address;
    if (graph.embedding_provider) {
      std::string name = *graph.embedding_provider;
      if (name.starts_with("provider.embedding.")) name = name.substr(std::string("provider.embedding.").size());
      if (name.find('.') != std::string::npos) {
        Error(d, "wrong_kind_reference", gpath + ".embedding_provider",
              "embedding_provider expects a providers.embedding ref or a bare provider name, got `" +
                  *graph.embedding_provider + "`");
      } else if (raw.providers.count(name) == 0) {
        Error(d, "dangling_embedding_provider_reference", gpath + ".embedding_provider",
              "graph references embedding provider `" + name + "`, but no providers.embedding." + name +
                  " profile is declared");
      } else {
        provider_address = "provider.embedding." + name;
        out->dependencies.insert({graph_address, *provider_address});
        out->graph_providers[id] = *provider_address;
      }
    }
    // The schema: its digest, then its catalog (for type-checking the graph's queries).
    const std::string schema_path = Resolve(config_dir, graph.schema);
    std::string error;
    std::optional<compiler::Catalog> catalog;
    std::string schema_digest;
    if (auto source = ReadText(schema_path, &error)) {
      schema_digest = Sha256Hex(*source);
      out->resources[schema_address] =
          ResourceSummary{schema_address, "schema", schema_digest, schema_path, *source, {}};
      auto ast = compiler::ParseSchema(*source);
      if (!ast.ok()) {
        Error(d, "schema_parse_error", gpath + ".schema", ast.status().ToString());
      } else if (auto built = compiler::BuildCatalog(*ast); !built.ok()) {
        Error(d, "schema_catalog_error", gpath + ".schema", built.status().ToString());
      } else {
        catalog = std::move(*built);
      }
    } else {
      Error(d, "schema_file_missing", gpath + ".schema", "could not read schema file '" + schema_path + "': " + error);
    }
    // The stored queries.
    Registry reg = DiscoverQueries(config_dir, id, graph.queries, d);
    std::map<std::string, std::string> query_digests;
    for (const auto& [name, file] : reg.files) {
      ValidateId("query name", gpath + ".queries." + name, name, d);
      const std::string address = "query." + id + "." + name;
      out->dependencies.insert({address, graph_address});
      out->dependencies.insert({address, schema_address});
      const std::string query_path = Resolve(config_dir, file);
      std::optional<std::string> source;
      if (auto it = reg.contents.find(file); it != reg.contents.end()) {
        source = it->second;
      } else {
        source = ReadText(query_path, &error);
      }
      if (!source) {
        Error(d, "query_file_missing", gpath + ".queries." + name + ".file",
              "could not read query file '" + query_path + "': " + error);
        continue;
      }
      query_digests[name] = Sha256Hex(*source);
      CheckQuery(id, name, *source, catalog ? &*catalog : nullptr, d);
      out->resources[address] =
          ResourceSummary{address, "query", query_digests[name], query_path, std::move(*source), {}};
    }
    const std::string* provider_digest = nullptr;
    if (provider_address) {
      auto it = providers.find(*provider_address);
      if (it != providers.end()) provider_digest = &it->second;
    }
    out->resources[graph_address] = ResourceSummary{
        graph_address,
        "graph",
        GraphDigest(id, schema_digest, query_digests, provider_address ? &*provider_address : nullptr, provider_digest),
        std::nullopt,
        "",
        {}};
  }
}

// Whether some rule of `bundle` grants an action on graphs (not a server action).
bool GrantsGraphActions(const policy::PolicyBundle& bundle) {
  for (const auto& rule : bundle.rules) {
    for (policy::PolicyAction a : rule.actions) {
      if (!policy::IsServerAction(a)) return true;
    }
  }
  return false;
}

void LoadPolicies(const std::string& config_dir, const RawConfig& raw, Loaded* out, std::vector<Diagnostic>* d) {
  std::map<std::string, std::string> binding_owner;
  for (const auto& [name, policy] : raw.policies) {
    const std::string ppath = "policies." + name;
    ValidateId("policy name", ppath, name, d);
    if (policy.applies_to.empty()) {
      Error(d, "policy_missing_applies_to", ppath + ".applies_to",
            "policy.applies_to must name `cluster` or at least one graph");
    }
    const std::string address = "policy." + name;
    std::set<std::string> bindings;
    bool binds_cluster = false, binds_graph = false;
    for (size_t i = 0; i < policy.applies_to.size(); ++i) {
      const std::string& target = policy.applies_to[i];
      const std::string at = ppath + ".applies_to[" + std::to_string(i) + "]";
      if (target == "cluster") {
        binds_cluster = true;
        bindings.insert("cluster");
        continue;
      }
      std::string graph = target.starts_with("graph.") ? target.substr(6) : target;
      if (!target.starts_with("graph.") && target.find('.') != std::string::npos) {
        Error(d, "wrong_kind_reference", at, "policy applies_to expects graph refs or `cluster`, got `" + target + "`");
        continue;
      }
      binds_graph = true;
      bindings.insert("graph." + graph);
      if (raw.graphs.count(graph) != 0) {
        out->dependencies.insert({address, "graph." + graph});
      } else {
        Error(d, "dangling_graph_reference", at,
              "policy references graph `" + graph + "`, but no graph with that id is declared");
      }
    }
    if (binds_cluster && binds_graph) {
      Error(d, "policy_mixed_binding_kinds", ppath + ".applies_to",
            "one policy bundle cannot bind both `cluster` and graph scopes; split server and graph rules into separate "
            "bundles");
    }
    for (const std::string& b : bindings) {
      auto [it, fresh] = binding_owner.emplace(b, name);
      if (!fresh) {
        Error(d, "duplicate_policy_binding", ppath + ".applies_to",
              "policy bundles `" + it->second + "` and `" + name + "` both bind `" + b +
                  "`; merge them or leave exactly one bundle for that scope");
      }
    }
    const std::string file = Resolve(config_dir, policy.file);
    std::string error;
    auto source = ReadText(file, &error);
    if (!source) {
      Error(d, "policy_file_missing", ppath + ".file", "could not read policy file '" + file + "': " + error);
      continue;
    }
    out->resources[address] =
        ResourceSummary{address, "policy", Sha256Hex(*source),
                        file,    *source,  std::vector<std::string>(bindings.begin(), bindings.end())};
    auto bundle = policy::ParsePolicyBundle(*source, file);
    std::string problem;
    if (!bundle.ok()) {
      problem = bundle.status().message();
    } else if (binds_cluster && !binds_graph && GrantsGraphActions(*bundle)) {
      problem = "a bundle bound to `cluster` may grant only server actions (graph_list)";
    } else if (binds_graph && !binds_cluster && bundle->server_bundle()) {
      problem = "a bundle bound to graphs may not grant server actions (graph_list); bind it to `cluster`";
    }
    if (!problem.empty()) {
      Error(d, "policy_invalid", ppath + ".file", "policy file '" + file + "' is invalid: " + problem);
    }
  }
}

}  // namespace

std::string GraphDigest(const std::string& id, const std::string& schema_digest,
                        const std::map<std::string, std::string>& query_digests, const std::string* provider,
                        const std::string* provider_digest) {
  std::string in;
  auto part = [&](std::string_view s) {
    in.append(s);
    in.push_back('\0');
  };
  part("graph");
  part(id);
  part("schema");
  part(schema_digest);
  for (const auto& [name, digest] : query_digests) {
    part("query");
    part(name);
    part(digest);
  }
  if (provider != nullptr) {
    part("embedding_provider");
    part(*provider);
    part(provider_digest != nullptr ? *provider_digest : "");
  }
  return Sha256Hex(in);
}

std::string ConfigDigest(const ValidateOutput& out) {
  std::string in = "cluster-config";
  auto part = [&](std::string_view s) {
    in.push_back('\0');
    in.append(s);
  };
  part("name");
  part(out.metadata_name.value_or(""));
  part("storage");
  part(out.storage.value_or(""));
  for (const auto& r : out.resources) {
    part(r.address);
    part(r.digest);
    for (const auto& b : r.applies_to) {
      part("applies_to");
      part(b);
    }
  }
  return Sha256Hex(in);
}

ValidateOutput ValidateClusterConfig(const std::string& config_dir) {
  ValidateOutput out;
  out.config_dir = config_dir;
  out.config_file = (fs::path(config_dir) / kClusterConfigFile).string();
  std::vector<Diagnostic>* d = &out.diagnostics;
  std::error_code ec;
  if (!fs::is_directory(config_dir, ec)) {
    Error(d, "config_dir_not_found", config_dir, "`--config` must point at a directory containing cluster.yaml");
    return out;
  }
  std::string error;
  auto text = ReadText(out.config_file, &error);
  if (!text) {
    Error(d, "cluster_config_read_error", kClusterConfigFile, "could not read cluster.yaml: " + error);
    return out;
  }
  if (size_t bad = FirstInvalidUtf8(*text); bad != std::string_view::npos) {
    Error(d, "invalid_cluster_yaml", kClusterConfigFile,
          "could not parse cluster.yaml: not UTF-8 text (invalid byte at offset " + std::to_string(bad) + ")");
    return out;
  }
  if (size_t line = SecondYamlDocumentLine(*text); line != 0) {
    Error(d, "invalid_cluster_yaml", kClusterConfigFile,
          "could not parse cluster.yaml: it holds more than one YAML document (a second one starts on line " +
              std::to_string(line) + ")");
    return out;
  }
  YAML::Node root;
  try {
    if (ContentAfterFirstYamlDocument(*text)) {
      Error(d, "invalid_cluster_yaml", kClusterConfigFile,
            "could not parse cluster.yaml: it has content after the end of its first YAML node (a flow collection "
            "closed before the end of the file?)");
      return out;
    }
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    Error(d, "invalid_cluster_yaml", kClusterConfigFile, std::string("could not parse cluster.yaml: ") + e.what());
    return out;
  }
  std::set<int> seen_containers;
  DuplicateKeys(root, "", &seen_containers, d);
  if (root.IsMap()) {
    for (const auto& e : root) {
      const std::string key = e.first.Scalar();
      for (const char* reserved : {"apply", "env_file", "pipelines", "embeddings", "ui", "aliases", "bindings"}) {
        if (key == reserved) {
          Error(d, "future_phase_field", key, "`" + key + "` is reserved for a later cluster-control phase");
        }
      }
    }
    if (root["graphs"].IsMap()) {
      for (const auto& g : root["graphs"]) {
        if (g.second.IsMap() && g.second["streaming"]) {
          Error(d, "removed_streaming_declaration", "graphs." + g.first.Scalar() + ".streaming",
                "`streaming` was removed: graphs no longer carry a stream profile; delete this key");
        }
      }
    }
  }
  if (HasErrors(*d)) return out;
  RawConfig raw = Decoder(d).Decode(root);
  if (HasErrors(*d)) return out;

  if (raw.version != 1) {
    Error(d, "unsupported_cluster_config_version", "version",
          "unsupported cluster config version " + std::to_string(raw.version) + "; this build supports version 1");
  }
  if (raw.metadata_name && Trim(*raw.metadata_name).empty()) {
    Error(d, "empty_metadata_name", "metadata.name", "metadata.name must not be empty when provided");
  }
  if (raw.state_backend && *raw.state_backend != "cluster") {
    Error(d, "unsupported_state_backend", "state.backend", "state.backend may only be omitted or `cluster`");
  }
  out.metadata_name = raw.metadata_name;
  if (raw.storage) {
    const std::string s = Trim(*raw.storage);
    out.storage = s;
    if (s.empty()) {
      Error(d, "invalid_storage_root", "storage",
            "storage must be a non-empty URI (e.g. s3://bucket/prefix) when provided");
    } else if (s.starts_with("s3://") && s.find_first_not_of('/', 5) == std::string::npos) {
      Error(d, "invalid_storage_root", "storage", "storage s3:// URI must name a bucket");
    }
  }

  Loaded loaded;
  std::map<std::string, std::string> provider_digests;
  LoadProviders(raw, &loaded, &provider_digests, d);
  LoadGraphs(config_dir, raw, provider_digests, &loaded, d);
  LoadPolicies(config_dir, raw, &loaded, d);
  for (auto& [address, r] : loaded.resources) {
    out.resource_digests[address] = r.digest;
    out.resources.push_back(std::move(r));
  }
  out.dependencies.assign(loaded.dependencies.begin(), loaded.dependencies.end());
  out.graph_providers = std::move(loaded.graph_providers);
  out.ok = !HasErrors(*d);
  if (out.ok) out.config_digest = ConfigDigest(out);
  return out;
}

OrderedJson ToJson(const ValidateOutput& out) {
  OrderedJson j = OrderedJson::object();
  j["ok"] = out.ok;
  j["config_dir"] = out.config_dir;
  j["config_file"] = out.config_file;
  j["resource_digests"] = OrderedJson::object();
  for (const auto& [a, dg] : out.resource_digests) j["resource_digests"][a] = dg;
  j["resources"] = OrderedJson::array();
  for (const auto& r : out.resources) {
    OrderedJson x = {{"address", r.address}, {"kind", r.kind}, {"digest", r.digest}};
    if (r.path) x["path"] = *r.path;
    j["resources"].push_back(std::move(x));
  }
  j["dependencies"] = OrderedJson::array();
  for (const auto& dep : out.dependencies) j["dependencies"].push_back({{"from", dep.from}, {"to", dep.to}});
  j["diagnostics"] = OrderedJson::array();
  for (const auto& dg : out.diagnostics) {
    j["diagnostics"].push_back({{"code", dg.code},
                                {"severity", dg.severity == Severity::kError ? "error" : "warning"},
                                {"path", dg.path},
                                {"message", dg.message}});
  }
  return j;
}

}  // namespace omnigraph::cluster
