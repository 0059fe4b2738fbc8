// The operator config file (operator_config.h): parsing, warnings, typed errors with lines, the
// path from the environment, and the precedence of flags, environment, profile and defaults.
#include "cli/operator_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/error_codes.h"

namespace omnigraph::cli {
namespace {

// Sets (or, with nullptr, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

OperatorConfig Parse(std::string_view yaml) {
  auto c = ParseOperatorConfig(yaml, "/h/config.yaml");
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? *c : OperatorConfig{};
}

// The error of parsing `yaml`, which must fail.
Status ParseError(std::string_view yaml) {
  auto c = ParseOperatorConfig(yaml, "/h/config.yaml");
  EXPECT_FALSE(c.ok()) << yaml;
  return c.ok() ? InternalError("parsed") : c.status();
}

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

TEST(OperatorConfig, ParsesAFullFile) {
  OperatorConfig c = Parse(R"(# operator config
operator:
  actor: act-andrew
defaults:
  output: jsonl
  table_max_column_width: 40
  table_cell_layout: wrap
  server: prod
  default_graph: knowledge
servers:
  prod:
    url: https://graph.example.com
clusters:
  brain:
    root: s3://acme/clusters/brain
profiles:
  staging: { server: staging, default_graph: kb }
  brain-admin: { cluster: brain }
  local:
    store: file:///data/dev.omni
aliases:
  triage:
    server: prod
    graph: spike
    query: weekly_triage
    args: [since]
    params: { limit: 20, code: "007", on: true, none: ~, ratio: 1.5, tags: [a, 2] }
    format: table
)");
  EXPECT_TRUE(c.warnings.empty()) << c.warnings[0];
  EXPECT_EQ(c.path, "/h/config.yaml");
  EXPECT_EQ(c.actor, "act-andrew");
  EXPECT_EQ(c.output, "jsonl");
  EXPECT_EQ(c.table_max_column_width, 40u);
  EXPECT_EQ(c.table_cell_layout, "wrap");
  EXPECT_EQ(c.default_server, "prod");
  EXPECT_EQ(c.default_store, std::nullopt);
  EXPECT_EQ(c.default_graph, "knowledge");
  ASSERT_EQ(c.servers.size(), 1u);
  EXPECT_EQ(c.servers["prod"].url, "https://graph.example.com");
  EXPECT_EQ(c.clusters["brain"].root, "s3://acme/clusters/brain");
  ASSERT_EQ(c.profiles.size(), 3u);
  EXPECT_EQ(c.profiles["staging"].server, "staging");
  EXPECT_EQ(c.profiles["staging"].default_graph, "kb");
  EXPECT_EQ(c.profiles["brain-admin"].cluster, "brain");
  EXPECT_EQ(c.profiles["local"].store, "file:///data/dev.omni");
  const OperatorAlias& a = c.aliases["triage"];
  EXPECT_EQ(a.server, "prod");
  EXPECT_EQ(a.graph, "spike");
  EXPECT_EQ(a.query, "weekly_triage");
  EXPECT_EQ(a.args, std::vector<std::string>{"since"});
  EXPECT_EQ(a.format, "table");
  EXPECT_EQ(a.params, Json::parse(R"({"limit":20,"code":"007","on":true,"none":null,"ratio":1.5,"tags":["a",2]})"));
}

TEST(OperatorConfig, EmptyFilesAndNullValuesAreAbsent) {
  for (const char* text : {"", "# nothing yet\n", "---\n", "operator:\ndefaults: ~\nprofiles:\n"}) {
    OperatorConfig c = Parse(text);
    EXPECT_FALSE(c.actor || c.output || c.default_store) << text;
    EXPECT_TRUE(c.profiles.empty() && c.warnings.empty()) << text;
  }
  OperatorConfig c = Parse("operator:\n  actor: ~\ndefaults:\n  output:\nprofiles:\n  bare:\n");
  EXPECT_EQ(c.actor, std::nullopt);
  EXPECT_EQ(c.output, std::nullopt);
  EXPECT_EQ(c.profiles.count("bare"), 1u);  // loads; selecting it is the error
  // A plain scalar is a string where a string is expected (as serde_yaml).
  EXPECT_EQ(Parse("operator:\n  actor: 42\n").actor, "42");
}

TEST(OperatorConfig, UnknownKeysWarnWithTheirLine) {
  OperatorConfig c = Parse(
      "operator:\n  actor: act-a\n  color: green\ncolour: blue\nprofiles:\n  p:\n    server: prod\n    flavour: spicy\n"
      "servers:\n  prod:\n    url: https://x\n    token: nope\n");
  EXPECT_EQ(c.actor, "act-a");
  EXPECT_EQ(c.servers["prod"].url, "https://x");
  ASSERT_EQ(c.warnings.size(), 4u);
  EXPECT_EQ(c.warnings[0],
            "unknown key `operator.color` (newer CLI feature or typo); ignored in operator config '/h/config.yaml' "
            "(line 3)");
  EXPECT_TRUE(Contains(c.warnings[1], "`colour`") && Contains(c.warnings[1], "(line 4)")) << c.warnings[1];
  EXPECT_TRUE(Contains(c.warnings[2], "`profiles.p.flavour`") && Contains(c.warnings[2], "(line 8)"));
  EXPECT_TRUE(Contains(c.warnings[3], "`servers.prod.token`") && Contains(c.warnings[3], "(line 12)"));
}

TEST(OperatorConfig, WrongTypesAreErrorsNamingFileKeyAndLine) {
  struct Case {
    const char* yaml;
    const char* key;
    uint32_t line;
  };
  for (const Case& t : {
           Case{"defaults:\n  table_max_column_width: wide\n", "`defaults.table_max_column_width`", 2},
           Case{"defaults:\n  table_max_column_width: -3\n", "`defaults.table_max_column_width`", 2},
           Case{"defaults:\n  table_max_column_width: \"80\"\n", "`defaults.table_max_column_width`", 2},
           Case{"\noperator:\n  actor: [a, b]\n", "`operator.actor`", 3},
           Case{"defaults:\n  output: yaml\n", "must be one of table, kv, csv, jsonl, json, got 'yaml'", 2},
           Case{"defaults:\n  table_cell_layout: Wrap\n", "`defaults.table_cell_layout`", 2},
           Case{"defaults: [output]\n", "`defaults` must be a mapping", 1},
           Case{"profiles:\n  p: prod\n", "`profiles.p` must be a mapping", 2},
           Case{"servers:\n  prod:\n    uri: https://x\n", "`servers.prod.url` is missing", 3},
           Case{"aliases:\n  a:\n    server: prod\n", "`aliases.a.query` is missing", 3},
           Case{"aliases:\n  a: {server: s, query: q, args: since}\n", "`aliases.a.args`", 2},
           Case{"clusters:\n  c:\n    root: {uri: x}\n", "`clusters.c.root` must be a string", 3},
           Case{"operator:\n  actor: a\n  actor: b\n", "`operator.actor` is given twice", 3},
           Case{"just a string\n", "the top level must be a mapping", 1},
           Case{"a: 1\n---\nb: 2\n", "more than one YAML document", 2},
       }) {
    Status s = ParseError(t.yaml);
    EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument) << t.yaml;
    EXPECT_TRUE(Contains(s.message(), "operator config '/h/config.yaml'")) << s.message();
    EXPECT_TRUE(Contains(s.message(), t.key)) << s.message();
    ASSERT_TRUE(s.span().has_value()) << t.yaml;
    EXPECT_EQ(s.span()->file, "/h/config.yaml");
    EXPECT_EQ(s.span()->line, t.line) << s.message();
  }
}

TEST(OperatorConfig, MalformedYamlIsAnErrorWithALine) {
  for (const char* yaml : {"operator: [not, a, mapping\n", "operator:\n  actor: a: b\n"}) {
    Status s = ParseError(yaml);
    EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
    EXPECT_TRUE(Contains(s.message(), "operator config '/h/config.yaml': could not parse")) << s.message();
    ASSERT_TRUE(s.span().has_value());
    EXPECT_GE(s.span()->line, 1u) << s.message();
    EXPECT_LE(s.span()->line, 2u) << s.message();
  }
}

TEST(OperatorConfig, DefaultsBindOneScope) {
  EXPECT_TRUE(
      Contains(ParseError("defaults:\n  server: prod\n  store: file:///d.omni\n").message(), "binds one entity"));
  EXPECT_TRUE(Contains(ParseError("defaults:\n  store: file:///d.omni\n  default_graph: kb\n").message(),
                       "already a single graph"));
}

class OperatorConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/og-operator-config-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(OperatorConfigFileTest, MissingFileIsAnEmptyConfig) {
  auto c = LoadOperatorConfig(dir_ + "/nope/config.yaml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(c->actor.has_value());
  EXPECT_TRUE(c->warnings.empty());
  EXPECT_TRUE(LoadOperatorConfig("").ok());
  EXPECT_FALSE(LoadOperatorConfig(dir_).ok());  // a directory is not a missing file
}

TEST_F(OperatorConfigFileTest, LoadsAFileAndNamesItInErrors) {
  std::string path = dir_ + "/config.yaml";
  std::ofstream(path) << "operator:\n  actor: act-file\n";
  auto c = LoadOperatorConfig(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->actor, "act-file");
  EXPECT_EQ(c->path, path);
  std::ofstream(path) << "defaults:\n  output: xml\n";
  auto bad = LoadOperatorConfig(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().span()->file, path);
  EXPECT_TRUE(Contains(bad.status().message(), path));
}

TEST_F(OperatorConfigFileTest, PathComesFromOmnigraphHomeElseHome) {
  ScopedEnv home("HOME", dir_.c_str());
  {
    ScopedEnv og("OMNIGRAPH_HOME", "/etc/og");
    EXPECT_EQ(OperatorConfigPath(), "/etc/og/config.yaml");
  }
  {
    ScopedEnv og("OMNIGRAPH_HOME", "/etc/og/");
    EXPECT_EQ(OperatorConfigPath(), "/etc/og/config.yaml");
  }
  {
    ScopedEnv og("OMNIGRAPH_HOME", "~/alt");
    EXPECT_EQ(OperatorConfigPath(), dir_ + "/alt/config.yaml");
  }
  {
    ScopedEnv og("OMNIGRAPH_HOME", "");  // empty counts as unset
    EXPECT_EQ(OperatorConfigPath(), dir_ + "/.omnigraph/config.yaml");
  }
  ScopedEnv og("OMNIGRAPH_HOME", nullptr);
  EXPECT_EQ(OperatorConfigPath(), dir_ + "/.omnigraph/config.yaml");
  std::filesystem::create_directories(dir_ + "/.omnigraph");
  std::ofstream(dir_ + "/.omnigraph/config.yaml") << "operator:\n  actor: from-home\n";
  auto c = LoadOperatorConfig(OperatorConfigPath());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->actor, "from-home");
}

const char* const kScoped = R"(
operator: { actor: act-config }
defaults: { output: csv, server: prod, default_graph: main-kb }
servers: { prod: { url: "https://prod.example" } }
clusters: { brain: { root: "s3://acme/brain" } }
profiles:
  staging: { server: staging }
  served: { server: prod, default_graph: kb }
  admin: { cluster: brain, default_graph: kb }
  local: { store: "file:///dev.omni" }
  local-graph: { store: "file:///dev.omni", default_graph: kb }
  none: {}
  two: { server: prod, store: "file:///x.omni" }
)";

OperatorSettings Resolve(const OperatorConfig& c, const OperatorInputs& in) {
  auto s = ResolveOperatorSettings(c, in);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : OperatorSettings{};
}

TEST(OperatorSettings, BuiltInsWithAnEmptyConfig) {
  OperatorSettings s = Resolve(OperatorConfig{}, {});
  EXPECT_EQ(s.actor, std::nullopt);
  EXPECT_EQ(s.output, "table");
  EXPECT_EQ(s.table_max_column_width, 80u);
  EXPECT_EQ(s.table_cell_layout, "truncate");
  EXPECT_EQ(s.scope, ScopeKind::kNone);
  EXPECT_EQ(s.profile, std::nullopt);
}

TEST(OperatorSettings, ActorAndFormatPrecedence) {
  OperatorConfig c = Parse(kScoped);
  OperatorInputs in;
  EXPECT_EQ(Resolve(c, in).actor, "act-config");
  EXPECT_EQ(Resolve(c, in).output, "csv");
  in.env_actor = "act-env";
  EXPECT_EQ(Resolve(c, in).actor, "act-env");
  in.actor = "";  // empty counts as unset
  EXPECT_EQ(Resolve(c, in).actor, "act-env");
  in.actor = "act-flag";
  EXPECT_EQ(Resolve(c, in).actor, "act-flag");
  in.format = "kv";
  EXPECT_EQ(Resolve(c, in).output, "kv");
  in.json = true;
  EXPECT_EQ(Resolve(c, in).output, "json");
  in.profile = "local";  // a profile carries neither actor nor format
  EXPECT_EQ(Resolve(c, in).actor, "act-flag");
}

TEST(OperatorSettings, ExplicitStoreIgnoresProfileAndDefaults) {
  OperatorConfig c = Parse(kScoped);
  OperatorInputs in;
  in.store = "file:///explicit.omni";
  in.profile = "no-such-profile";  // not even looked up
  OperatorSettings s = Resolve(c, in);
  EXPECT_EQ(s.scope, ScopeKind::kStore);
  EXPECT_EQ(s.target, "file:///explicit.omni");
  EXPECT_EQ(s.scope_source, "--store");
  EXPECT_EQ(s.profile, std::nullopt);
  in.graph = "kb";
  auto r = ResolveOperatorSettings(c, in);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_string(), "usage_error");
}

TEST(OperatorSettings, ProfileFlagBeatsEnvBeatsDefaults) {
  OperatorConfig c = Parse(kScoped);
  OperatorInputs in;
  OperatorSettings d = Resolve(c, in);  // defaults.server + default_graph
  EXPECT_EQ(d.scope, ScopeKind::kServer);
  EXPECT_EQ(d.target, "prod");
  EXPECT_EQ(d.server_url, "https://prod.example");
  EXPECT_EQ(d.graph, "main-kb");
  EXPECT_EQ(d.scope_source, "operator defaults");
  in.env_profile = "local";
  OperatorSettings e = Resolve(c, in);
  EXPECT_EQ(e.scope, ScopeKind::kStore);
  EXPECT_EQ(e.target, "file:///dev.omni");
  EXPECT_EQ(e.profile, "local");
  EXPECT_EQ(e.graph, std::nullopt);
  in.profile = "admin";
  OperatorSettings f = Resolve(c, in);
  EXPECT_EQ(f.scope, ScopeKind::kCluster);
  EXPECT_EQ(f.target, "s3://acme/brain");  // a clusters: name resolved to its root
  EXPECT_EQ(f.graph, "kb");
  EXPECT_EQ(f.scope_source, "profile 'admin'");
  in.graph = "archive";
  EXPECT_EQ(Resolve(c, in).graph, "archive");  // --graph beats the profile's default_graph
}

TEST(OperatorSettings, ProfileGraphDoesNotFallBackToDefaults) {
  OperatorConfig c = Parse(kScoped);
  OperatorInputs in;
  in.profile = "staging";
  OperatorSettings s = Resolve(c, in);
  EXPECT_EQ(s.target, "staging");
  EXPECT_EQ(s.server_url, std::nullopt);  // not under servers:, not a URL
  EXPECT_EQ(s.graph, std::nullopt);       // not defaults.default_graph
}

TEST(OperatorSettings, BadProfilesAreErrorsOnUse) {
  OperatorConfig c = Parse(kScoped);
  auto err = [&](const char* profile, std::optional<std::string> graph = std::nullopt) {
    OperatorInputs in;
    in.profile = profile;
    in.graph = std::move(graph);
    auto r = ResolveOperatorSettings(c, in);
    EXPECT_FALSE(r.ok()) << profile;
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_TRUE(Contains(err("nope"), "unknown profile 'nope'"));
  EXPECT_TRUE(Contains(err("none"), "binds no scope"));
  EXPECT_TRUE(Contains(err("two"), "binds 2 scopes (server, store)"));
  EXPECT_TRUE(Contains(err("local-graph"), "a store is already a single graph"));
  EXPECT_TRUE(Contains(err("local", "kb"), "--graph does not apply to a store scope"));
}

TEST(OperatorSettings, DefaultStoreScope) {
  OperatorConfig c = Parse("defaults: { store: \"file:///dev.omni\", table_max_column_width: 0 }\n");
  OperatorInputs in;
  OperatorSettings s = Resolve(c, in);
  EXPECT_EQ(s.scope, ScopeKind::kStore);
  EXPECT_EQ(s.target, "file:///dev.omni");
  EXPECT_EQ(s.table_max_column_width, 0u);
  in.graph = "kb";
  auto r = ResolveOperatorSettings(c, in);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_string(), "usage_error");
}

TEST(OperatorSettings, EnvironmentIsRead) {
  ScopedEnv p("OMNIGRAPH_PROFILE", "staging");
  ScopedEnv a("OMNIGRAPH_ACTOR", "");
  OperatorInputs in;
  ReadOperatorEnvironment(&in);
  EXPECT_EQ(in.env_profile, "staging");
  EXPECT_EQ(in.env_actor, std::nullopt);  // empty counts as unset
}

}  // namespace
}  // namespace omnigraph::cli
