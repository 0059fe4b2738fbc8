// `cluster validate` (cluster_config.h) on cluster folders written by each test: resources,
// digests (golden values computed outside this code), dependencies, and every diagnostic code.
#include "cluster/cluster_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/ulid.h"

namespace omnigraph::cluster {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSchema = "\nnode Person {\n  name: String @key\n  age: I32?\n}\n";
constexpr const char* kQuery =
    "\nquery find_person($name: String) {\n  match { $p: Person { name: $name } }\n  return { $p.name, $p.age }\n}\n";
constexpr const char* kCluster = R"(
version: 1
metadata:
  name: test
state:
  backend: cluster
  lock: true
graphs:
  knowledge:
    schema: ./people.pg
    queries:
      find_person:
        file: ./people.gq
policies:
  base:
    file: ./base.policy.yaml
    applies_to: [knowledge]
)";

class ClusterConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() / ("og-cluster-" + NewUlidString())).string();
    fs::create_directories(dir_);
    Write("people.pg", kSchema);
    Write("people.gq", kQuery);
    Write("base.policy.yaml", "version: 1\nrules: []\n");
    Write("cluster.yaml", kCluster);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories((fs::path(dir_) / rel).parent_path());
    std::ofstream(fs::path(dir_) / rel) << text;
  }
  ValidateOutput Run() { return ValidateClusterConfig(dir_); }
  // The codes of the diagnostics, in order.
  static std::vector<std::string> Codes(const ValidateOutput& out) {
    std::vector<std::string> codes;
    for (const auto& d : out.diagnostics) codes.push_back(d.code);
    return codes;
  }
  // Whether `code` was reported at `path`.
  static bool Has(const ValidateOutput& out, const std::string& code, const std::string& path = "") {
    for (const auto& d : out.diagnostics) {
      if (d.code == code && (path.empty() || d.path == path)) return true;
    }
    return false;
  }

  std::string dir_;
};

TEST_F(ClusterConfigTest, ValidFolderHasResourcesDigestsAndDependencies) {
  ValidateOutput out = Run();
  EXPECT_TRUE(out.ok) << ToJson(out).dump(2);
  EXPECT_TRUE(out.diagnostics.empty());
  // SHA-256 of the files' bytes, and the composite graph digest, computed independently.
  EXPECT_EQ(out.resource_digests["schema.knowledge"],
            "ab8674c2deeb33b15bd7a1f7d98acd8fdf6e5634230dc0349e3e2920475f26d6");
  EXPECT_EQ(out.resource_digests["query.knowledge.find_person"],
            "f7f1ccd40aa44f39a0d149d06e19ade31102e2dc45aa7c9009b99147f82aed43");
  EXPECT_EQ(out.resource_digests["graph.knowledge"],
            "19e5610fde4e069bc42bf576cb1d49f3ea9e69b7c5a01b9f69d577a4a76109a9");
  ASSERT_EQ(out.resources.size(), 4u);
  EXPECT_EQ(out.resources[0].address, "graph.knowledge");
  EXPECT_EQ(out.resources[0].kind, "graph");
  EXPECT_FALSE(out.resources[0].path.has_value());
  EXPECT_EQ(out.resources[1].address, "policy.base");
  EXPECT_EQ(out.resources[2].address, "query.knowledge.find_person");
  EXPECT_EQ(*out.resources[2].path, (fs::path(dir_) / "./people.gq").string());
  EXPECT_EQ(out.resources[3].address, "schema.knowledge");
  std::vector<Dependency> want = {{"policy.base", "graph.knowledge"},
                                  {"query.knowledge.find_person", "graph.knowledge"},
                                  {"query.knowledge.find_person", "schema.knowledge"},
                                  {"schema.knowledge", "graph.knowledge"}};
  EXPECT_EQ(out.dependencies, want);
  Json j = ToJson(out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["resources"][2]["path"], *out.resources[2].path);
  EXPECT_FALSE(j["resources"][0].contains("path"));
}

TEST_F(ClusterConfigTest, EmbeddingProviderJoinsTheGraphDigest) {
  Write("cluster.yaml", R"(
version: 1
providers:
  embedding:
    default:
      kind: mock
      model: m1
graphs:
  knowledge:
    schema: ./people.pg
    embedding_provider: default
    queries:
      find_person:
        file: ./people.gq
)");
  ValidateOutput out = Run();
  EXPECT_TRUE(out.ok) << ToJson(out).dump(2);
  EXPECT_EQ(out.resource_digests["provider.embedding.default"],
            "49832ebd4cdc9eba94904808f372fc2ea84017de7fd678ae7707efa5213f9ec8");
  EXPECT_EQ(out.resource_digests["graph.knowledge"],
            "7094e393bf3943ce9c3af0a46434fc7abadf8ec68d5a9b8f935e0448bea2deaf");
  EXPECT_EQ(out.dependencies.front(), (Dependency{"graph.knowledge", "provider.embedding.default"}));
}

TEST_F(ClusterConfigTest, QueryDiscoveryForms) {
  Write("queries/b.gq", "query second() { match { $p: Person } return { $p.name } }\n");
  Write("queries/a.gq", std::string(kQuery) + "query other() { match { $p: Person } return { $p.age } }\n");
  Write("queries/notes.txt", "not a query");
  for (const char* form : {"queries/", "[queries/]", "[queries/a.gq, queries/b.gq]"}) {
    Write("cluster.yaml",
          std::string("version: 1\ngraphs:\n  g1:\n    schema: people.pg\n    queries: ") + form + "\n");
    ValidateOutput out = Run();
    EXPECT_TRUE(out.ok) << form << "\n" << ToJson(out).dump(2);
    EXPECT_EQ(out.resources.size(), 5u) << form;  // graph, schema, 3 queries
    // One file, one digest for all its queries.
    EXPECT_EQ(out.resource_digests["query.g1.find_person"], out.resource_digests["query.g1.other"]) << form;
    EXPECT_NE(out.resource_digests["query.g1.second"], out.resource_digests["query.g1.other"]) << form;
  }
  // The same name in two files; an unparseable file; an empty directory (a warning).
  Write("queries/c.gq", "query second() { match { $p: Person } return { $p.age } }\n");
  Write("cluster.yaml", "version: 1\ngraphs:\n  g1:\n    schema: people.pg\n    queries: queries/\n");
  EXPECT_TRUE(Has(Run(), "duplicate_query_name", "graphs.g1.queries.second"));
  fs::remove(fs::path(dir_) / "queries/c.gq");
  Write("queries/c.gq", "query broken( {\n");
  EXPECT_TRUE(Has(Run(), "query_parse_error", "graphs.g1.queries"));
  fs::create_directories(fs::path(dir_) / "empty");
  Write("cluster.yaml", "version: 1\ngraphs:\n  g1:\n    schema: people.pg\n    queries: empty/\n");
  ValidateOutput empty = Run();
  EXPECT_TRUE(empty.ok);
  ASSERT_EQ(empty.diagnostics.size(), 1u);
  EXPECT_EQ(empty.diagnostics[0].code, "query_dir_empty");
  EXPECT_EQ(empty.diagnostics[0].severity, Severity::kWarning);
}

TEST_F(ClusterConfigTest, QueriesAreTypeCheckedAgainstTheDeclaredSchema) {
  Write("bad.gq", "query q() { match { $p: Nobody } return { $p.name } }\n");
  Write("cluster.yaml",
        "version: 1\ngraphs:\n  g1:\n    schema: people.pg\n    queries:\n      q:\n        file: bad.gq\n      "
        "missing:\n        file: people.gq\n      gone:\n        file: nowhere.gq\n");
  ValidateOutput out = Run();
  EXPECT_FALSE(out.ok);
  EXPECT_TRUE(Has(out, "query_typecheck_error", "graphs.g1.queries.q")) << ToJson(out).dump(2);
  EXPECT_TRUE(Has(out, "query_key_mismatch", "graphs.g1.queries.missing"));
  EXPECT_TRUE(Has(out, "query_file_missing", "graphs.g1.queries.gone.file"));
  // With a broken schema the queries are parsed but not type-checked.
  Write("people.pg", "node Person { name: Strin @key }\n");
  Write("cluster.yaml", "version: 1\ngraphs:\n  g1:\n    schema: people.pg\n    queries: [people.gq]\n");
  ValidateOutput broken = Run();
  EXPECT_TRUE(Has(broken, "schema_catalog_error") || Has(broken, "schema_parse_error")) << ToJson(broken).dump(2);
  EXPECT_TRUE(Has(broken, "query_typecheck_skipped", "graphs.g1.queries.find_person"));
  Write("people.pg", "node Person { name: String @key \n");
  EXPECT_TRUE(Has(Run(), "schema_parse_error", "graphs.g1.schema"));
  fs::remove(fs::path(dir_) / "people.pg");
  EXPECT_TRUE(Has(Run(), "schema_file_missing", "graphs.g1.schema"));
}

TEST_F(ClusterConfigTest, StrictYaml) {
  struct Case {
    const char* yaml;
    const char* code;
    const char* path;
  };
  const Case cases[] = {
      {"version: 1\nversion: 1\n", "duplicate_yaml_key", "version"},
      {"version: 1\ngraphs:\n  g: {schema: people.pg, schema: x.pg}\n", "duplicate_yaml_key", "graphs.g.schema"},
      {"version: 1\npipelines: {}\n", "future_phase_field", "pipelines"},
      {"version: 1\nui: {}\n", "future_phase_field", "ui"},
      {"version: 1\ngraphs:\n  g:\n    schema: people.pg\n    streaming: {}\n", "removed_streaming_declaration",
       "graphs.g.streaming"},
      {"version: 1\ncolour: blue\n", "invalid_cluster_yaml", "colour"},
      {"version: 1\ngraphs:\n  g:\n    schema: people.pg\n    qeuries: x\n", "invalid_cluster_yaml",
       "graphs.g.qeuries"},
      {"version: 1\nproviders:\n  search: {}\n", "invalid_cluster_yaml", "providers.search"},
      {"version: 1\ngraphs:\n  g: {}\n", "invalid_cluster_yaml", "graphs.g.schema"},
      {"metadata: {name: x}\n", "invalid_cluster_yaml", "version"},
      {"version: one\n", "invalid_cluster_yaml", "version"},
      {"version: [1\n", "invalid_cluster_yaml", "cluster.yaml"},
      {"version: 2\n", "unsupported_cluster_config_version", "version"},
      {"version: 1\nmetadata: {name: '  '}\n", "empty_metadata_name", "metadata.name"},
      {"version: 1\nstate: {backend: postgres}\n", "unsupported_state_backend", "state.backend"},
      {"version: 1\nstate: {lock: maybe}\n", "invalid_cluster_yaml", "state.lock"},
      {"version: 1\nstorage: 's3://'\n", "invalid_storage_root", "storage"},
      {"version: 1\nstorage: ' '\n", "invalid_storage_root", "storage"},
      {"version: 1\ngraphs:\n  9lives: {schema: people.pg}\n", "invalid_resource_id", "graphs.9lives"},
  };
  for (const Case& c : cases) {
    Write("cluster.yaml", c.yaml);
    ValidateOutput out = Run();
    EXPECT_FALSE(out.ok) << c.yaml;
    EXPECT_TRUE(Has(out, c.code, c.path)) << c.yaml << "\n" << ToJson(out).dump(2);
  }
  fs::remove(fs::path(dir_) / "cluster.yaml");
  EXPECT_TRUE(Has(Run(), "cluster_config_read_error"));
  EXPECT_TRUE(Has(ValidateClusterConfig(dir_ + "/nope"), "config_dir_not_found"));
}

// Hostile documents: nested aliases ("billion laughs": 10^9 nodes when expanded), invalid bytes,
// a second document, a stray comma (on which yaml-cpp's multi-document loader never returns).
TEST_F(ClusterConfigTest, HostileYamlIsRejectedQuickly) {
  std::string laughs = "version: 1\nmetadata: {name: x}\nx0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    laughs += "x" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) laughs += std::string(k ? ", " : "") + "*a" + std::to_string(i - 1);
    laughs += "]\n";
  }
  Write("cluster.yaml", laughs);
  EXPECT_TRUE(Has(Run(), "invalid_cluster_yaml", "x0"));
  Write("cluster.yaml", "version: 1\nmetadata: {name: \"\xff\"}\n");
  EXPECT_TRUE(Has(Run(), "invalid_cluster_yaml", "cluster.yaml"));
  Write("cluster.yaml", "version: 1\n---\nversion: 1\n");
  EXPECT_TRUE(Has(Run(), "invalid_cluster_yaml", "cluster.yaml"));
  Write("cluster.yaml", ",");
  EXPECT_TRUE(Has(Run(), "invalid_cluster_yaml"));
  // yaml-cpp's Load keeps only the first root node: block content after a flow mapping would be
  // dropped silently.
  Write("cluster.yaml", "{version: 1}\ngraphs:\n  g: {schema: people.pg}\n");
  EXPECT_TRUE(Has(Run(), "invalid_cluster_yaml", "cluster.yaml"));
  // Null optional values read as absent; a quoted version is not an integer.
  Write("cluster.yaml", "version: 1\nstorage:\nmetadata: {name: ~}\nstate: {backend: ~, lock: ~}\n");
  ValidateOutput nulls = Run();
  EXPECT_TRUE(nulls.ok) << ToJson(nulls).dump(2);
  Write("cluster.yaml", "version: '1'\n");
  EXPECT_TRUE(Has(Run(), "invalid_cluster_yaml", "version"));
  Write("cluster.yaml", "version: 1\nstorage: \"s3:// \\n\"\n");
  EXPECT_TRUE(Has(Run(), "invalid_storage_root", "storage"));
}

TEST_F(ClusterConfigTest, PoliciesAndTheirBindings) {
  Write("server.policy.yaml",
        "version: 1\ngroups: {ops: [alice]}\nrules:\n  - id: list\n    allow:\n      actors: {group: ops}\n      "
        "actions: [graph_list]\n");
  Write("bad.policy.yaml", "version: 1\nrules: []\nextra: 1\n");
  struct Case {
    std::string policies;
    const char* code;
    const char* path;
  };
  const Case cases[] = {
      {"  p: {file: base.policy.yaml, applies_to: []}\n", "policy_missing_applies_to", "policies.p.applies_to"},
      {"  p: {file: base.policy.yaml, applies_to: [nope]}\n", "dangling_graph_reference", "policies.p.applies_to[0]"},
      {"  p: {file: base.policy.yaml, applies_to: [query.x]}\n", "wrong_kind_reference", "policies.p.applies_to[0]"},
      {"  p: {file: base.policy.yaml, applies_to: [cluster, knowledge]}\n", "policy_mixed_binding_kinds",
       "policies.p.applies_to"},
      {"  p: {file: base.policy.yaml, applies_to: [knowledge]}\n  q: {file: base.policy.yaml, applies_to: "
       "[graph.knowledge]}\n",
       "duplicate_policy_binding", "policies.q.applies_to"},
      {"  p: {file: missing.policy.yaml, applies_to: [knowledge]}\n", "policy_file_missing", "policies.p.file"},
      {"  p: {file: bad.policy.yaml, applies_to: [knowledge]}\n", "policy_invalid", "policies.p.file"},
      {"  p: {file: server.policy.yaml, applies_to: [knowledge]}\n", "policy_invalid", "policies.p.file"},
  };
  for (const Case& c : cases) {
    Write("cluster.yaml", "version: 1\ngraphs:\n  knowledge: {schema: people.pg}\npolicies:\n" + c.policies);
    ValidateOutput out = Run();
    EXPECT_FALSE(out.ok) << c.policies;
    EXPECT_TRUE(Has(out, c.code, c.path)) << c.policies << "\n" << ToJson(out).dump(2);
  }
  // An empty bundle may be bound to `cluster` (it grants nothing).
  Write("cluster.yaml", "version: 1\npolicies:\n  s: {file: base.policy.yaml, applies_to: [cluster]}\n");
  EXPECT_TRUE(Run().ok);
  // A server bundle bound to `cluster` is fine.
  Write("cluster.yaml", "version: 1\npolicies:\n  s: {file: server.policy.yaml, applies_to: [cluster]}\n");
  ValidateOutput ok = Run();
  EXPECT_TRUE(ok.ok) << ToJson(ok).dump(2);
}

TEST_F(ClusterConfigTest, EmbeddingProviders) {
  struct Case {
    const char* provider;
    const char* code;
    const char* path;
  };
  const Case cases[] = {
      {"{kind: openai, api_key: sk-inline}", "embedding_api_key_inline", "providers.embedding.p.api_key"},
      {"{kind: openai}", "embedding_api_key_required", "providers.embedding.p.api_key"},
      {"{kind: cohere, api_key: '${K}'}", "invalid_embedding_provider", "providers.embedding.p"},
      {"{kind: mock, colour: red}", "invalid_cluster_yaml", "providers.embedding.p.colour"},
  };
  for (const Case& c : cases) {
    Write("cluster.yaml", std::string("version: 1\nproviders:\n  embedding:\n    p: ") + c.provider + "\n");
    ValidateOutput out = Run();
    EXPECT_TRUE(Has(out, c.code, c.path)) << c.provider << "\n" << ToJson(out).dump(2);
  }
  Write("cluster.yaml", "version: 1\nproviders:\n  embedding:\n    p: {provider: gemini, api_key: '${KEY}'}\n");
  EXPECT_TRUE(Run().ok);
  Write("cluster.yaml", "version: 1\ngraphs:\n  g: {schema: people.pg, embedding_provider: nope}\n");
  EXPECT_TRUE(Has(Run(), "dangling_embedding_provider_reference", "graphs.g.embedding_provider"));
  Write("cluster.yaml", "version: 1\ngraphs:\n  g: {schema: people.pg, embedding_provider: graph.x}\n");
  EXPECT_TRUE(Has(Run(), "wrong_kind_reference", "graphs.g.embedding_provider"));
  // External Blob allow-lists are not implemented: a typed diagnostic, never a silent deny.
  Write("cluster.yaml",
        "version: 1\ngraphs:\n  g:\n    schema: people.pg\n    external_blobs:\n      allow:\n        - {base: "
        "'s3://b/x/', scope: server_safe}\n");
  EXPECT_TRUE(Has(Run(), "unimplemented", "graphs.g.external_blobs"));
  Write("cluster.yaml", "version: 1\ngraphs:\n  g:\n    schema: people.pg\n    external_blobs: {allow: []}\n");
  EXPECT_TRUE(Run().ok);
}

}  // namespace
}  // namespace omnigraph::cluster
