// omnigraph-server's runtime modes over real loopback sockets (docs/server.md "Authentication" and
// "Runtime modes"; /work/notes/server_spec.md §4-5): bearer tokens, the configurations that refuse
// to start, default-deny, open mode, policy mode with the actor recorded on commits, and per-actor
// admission.
#include <string>

#include "server/server_test_util.h"

namespace omnigraph::server::http_test {
namespace {

using AuthTest = ServerFixture;

json AddBody(const std::string& name, const std::string& branch = "main") {
  return {{"query", kAddPerson}, {"params", {{"name", name}}}, {"branch", branch}};
}

TEST_F(AuthTest, BearerTokens) {
  ASSERT_NO_FATAL_FAILURE(StartTokens());
  const std::string snapshot = G("/snapshot");
  Reply ok = Get(snapshot);
  EXPECT_EQ(ok.status, 200) << ok;

  token_.reset();
  Reply missing = Get(snapshot);
  EXPECT_EQ(missing.status, 401) << missing;
  EXPECT_EQ(missing.body_json["error"], "missing bearer token");
  EXPECT_EQ(missing.body_json["code"], "unauthorized");
  EXPECT_EQ(missing.body_json["error_code"], "unauthenticated");
  EXPECT_EQ(missing.HeaderCount("WWW-Authenticate"), 0u);

  auto with_header = [&](const std::string& value) { return Get(snapshot, {{"Authorization", value}}); };
  Reply wrong = with_header("Bearer tok-wrong");
  EXPECT_EQ(wrong.status, 401) << wrong;
  EXPECT_EQ(wrong.body_json["error"], "invalid bearer token");
  EXPECT_EQ(wrong.body_json["code"], "unauthorized");
  for (const std::string value : {"bearer tok-alice", "BEARER tok-alice", "Basic tok-alice", "tok-alice", "Bearer"}) {
    Reply r = with_header(value);
    EXPECT_EQ(r.status, 401) << value << " " << r;
    EXPECT_EQ(r.body_json["error"], "missing bearer token") << value;
  }
  Reply padded = with_header("Bearer  tok-alice");  // the token is everything after "Bearer "
  EXPECT_EQ(padded.status, 401) << padded;
  EXPECT_EQ(padded.body_json["error"], "invalid bearer token");
  EXPECT_EQ(with_header("Bearer tok-mallory").status, 200);
  EXPECT_EQ(with_header("Bearer tok-alice").status, 200);

  // Authentication comes before graph resolution: no details about graphs without a token.
  Reply unknown_graph = Get("/graphs/nope/snapshot");
  EXPECT_EQ(unknown_graph.status, 401) << unknown_graph;
  Reply bad_graph = Get("/graphs/a_b/snapshot");
  EXPECT_EQ(bad_graph.status, 401) << bad_graph;
  token_ = "tok-alice";
  EXPECT_EQ(Get("/graphs/nope/snapshot").status, 404);
  // The document names the bearer scheme when tokens are configured.
  Reply doc = Get("/openapi.json");
  ASSERT_EQ(doc.status, 200) << doc;
  EXPECT_TRUE(doc.body_json["components"].contains("securitySchemes")) << doc;
}

TEST_F(AuthTest, UnsafeConfigurationsRefuseToStart) {
  ServerOptions none = Options();
  auto no_tokens = Server::Start(none, TokenTable());
  ASSERT_FALSE(no_tokens.ok()) << "started without tokens and without --unauthenticated";
  EXPECT_NE(no_tokens.status().message().find("no bearer tokens are configured"), std::string::npos)
      << no_tokens.status().ToString();

  ServerOptions policy_open = Options();
  policy_open.boot.policy_file = WriteFile("graph.policy.yaml", kPolicy);
  policy_open.unauthenticated = true;
  auto with_policy = Server::Start(policy_open, TokenTable());
  ASSERT_FALSE(with_policy.ok()) << "started with a policy and no tokens";
  EXPECT_NE(with_policy.status().message().find("a policy is bound but no bearer tokens"), std::string::npos)
      << with_policy.status().ToString();
  policy_open.unauthenticated = false;
  EXPECT_FALSE(Server::Start(policy_open, TokenTable()).ok());

  EXPECT_FALSE(TokenTable::FromPairs({{"a", "same"}, {"b", "same"}}).ok()) << "one token given twice";
  EXPECT_FALSE(TokenTable::FromPairs({{"a", "x"}, {"a", "y"}}).ok()) << "an actor named twice";
  EXPECT_FALSE(TokenTable::FromPairs({{"a", "  "}}).ok()) << "a blank token";

  // The refused starts left the graph usable: a valid configuration starts.
  ASSERT_NO_FATAL_FAILURE(StartTokens(kPolicy));
  EXPECT_EQ(Get(G("/snapshot")).status, 200);
}

TEST_F(AuthTest, DefaultDenyAllowsOnlyReads) {
  ASSERT_NO_FATAL_FAILURE(StartTokens());
  const std::string head = HeadCommit();
  Reply query = Post(G("/query"), {{"query", kPeople}});
  EXPECT_EQ(query.status, 200) << query;
  EXPECT_EQ(Get(G("/commits")).status, 200);
  EXPECT_EQ(Get(G("/branches")).status, 200);

  Reply mutate = Post(G("/mutate"), AddBody("dee"));
  EXPECT_EQ(mutate.status, 403) << mutate;
  EXPECT_EQ(mutate.body_json["code"], "forbidden");
  EXPECT_EQ(mutate.body_json["error_code"], "policy_denied");
  EXPECT_TRUE(mutate.Message().starts_with(
      "server runs in default-deny mode (bearer tokens configured but no applied policy bundle). Only `read` "
      "actions are permitted"))
      << mutate;
  Reply branch = Post(G("/branches"), {{"name", "feature"}});
  EXPECT_EQ(branch.status, 403) << branch;
  EXPECT_EQ(branch.body_json["code"], "forbidden");
  Reply load = Post(G("/load"), {{"data", "{\"type\":\"Person\",\"data\":{\"name\":\"dee\"}}"}});
  EXPECT_EQ(load.status, 403) << load;
  Reply exported = Post(G("/export"), json::object());
  EXPECT_EQ(exported.status, 403) << exported;
  Reply invoke = Post(G("/queries/anything"), json::object());
  EXPECT_EQ(invoke.status, 404) << invoke;
  EXPECT_EQ(invoke.body_json["error"], "stored query not found");

  Reply graphs = Get("/graphs");
  EXPECT_EQ(graphs.status, 403) << graphs;
  EXPECT_EQ(graphs.body_json["code"], "forbidden");
  EXPECT_TRUE(graphs.Message().starts_with("server-scoped actions require an explicit cluster policy bundle"))
      << graphs;
  EXPECT_EQ(HeadCommit(), head) << "a denied request wrote";
  EXPECT_EQ(Branches(), std::vector<std::string>{"main"});
}

TEST_F(AuthTest, OpenModeAllowsWritesWithoutAnActor) {
  ASSERT_NO_FATAL_FAILURE(StartOpen());
  Reply doc = Get("/openapi.json");
  ASSERT_EQ(doc.status, 200) << doc;
  EXPECT_FALSE(doc.body_json["components"].contains("securitySchemes")) << "open mode strips security";
  EXPECT_FALSE(doc.body_json["paths"]["/graphs/{graph_id}/query"]["post"].contains("security"));

  Reply before = Get(G("/commits"));
  ASSERT_EQ(before.status, 200) << before;
  const size_t commits_before = before.body_json["commits"].size();

  Reply mutate = Post(G("/mutate"), AddBody("dee"));
  ASSERT_EQ(mutate.status, 200) << mutate;
  EXPECT_EQ(mutate.body_json["branch"], "main");
  EXPECT_EQ(mutate.body_json["query_name"], "add");
  EXPECT_EQ(mutate.body_json["affected_nodes"], 1);
  EXPECT_EQ(mutate.body_json["affected_edges"], 0);
  EXPECT_TRUE(NullField(mutate.body_json, "actor_id")) << mutate;
  ASSERT_TRUE(mutate.body_json["commit"].is_object()) << mutate;
  EXPECT_TRUE(NullField(mutate.body_json["commit"], "actor_id")) << mutate;
  const std::string commit = Str(mutate.body_json["commit"]["graph_commit_id"]);

  Reply rows = Post(G("/query"), {{"query", kPeople}});
  ASSERT_EQ(rows.status, 200) << rows;
  EXPECT_EQ(rows.body_json["row_count"], kSeedPeople + 1);
  EXPECT_EQ(rows.body_json["rows"][3]["p.name"], "dee");

  Reply after = Get(G("/commits"));
  ASSERT_EQ(after.status, 200) << after;
  EXPECT_EQ(after.body_json["commits"].size(), commits_before + 1);
  EXPECT_EQ(Str(after.body_json["commits"][0]["graph_commit_id"]), commit);
  Reply one = Get(G("/commits/" + commit));
  ASSERT_EQ(one.status, 200) << one;
  EXPECT_EQ(one.body_json["graph_commit_id"], commit);

  // The deprecated /change takes the `query_source` alias and says what replaces it.
  Reply change = Post(G("/change"), {{"query_source", kAddPerson}, {"params", {{"name", "eli"}}}});
  ASSERT_EQ(change.status, 200) << change;
  EXPECT_EQ(change.Header("Deprecation"), "true");
  EXPECT_EQ(change.Header("Link"), "<mutate>; rel=\"successor-version\"");
  EXPECT_EQ(CountPeople(), kSeedPeople + 2);

  Reply graphs = Get("/graphs");  // closed in every mode without a cluster policy
  EXPECT_EQ(graphs.status, 403) << graphs;
}

TEST_F(AuthTest, PolicyDecidesByActorAndBranchAndRecordsTheActor) {
  ASSERT_NO_FATAL_FAILURE(StartTokens(kPolicy));
  EXPECT_EQ(CountPeople(), kSeedPeople);  // alice reads main

  Reply on_main = Post(G("/mutate"), AddBody("dee"));
  EXPECT_EQ(on_main.status, 403) << on_main;
  EXPECT_EQ(on_main.body_json["code"], "forbidden");
  EXPECT_EQ(on_main.Message(), "policy denied action 'change' on branch 'main' for actor 'alice'");
  token_ = "tok-mallory";
  Reply stranger = Post(G("/mutate"), AddBody("dee"));
  EXPECT_EQ(stranger.status, 403) << stranger;
  EXPECT_EQ(stranger.Message(), "policy denied action 'change' for unknown actor 'mallory'");
  token_ = "tok-alice";

  Reply create = Post(G("/branches"), {{"name", "feature"}});
  ASSERT_EQ(create.status, 200) << create;
  EXPECT_EQ(create.body_json["actor_id"], "alice");
  // The actor is the token's: a header naming another actor is ignored.
  Reply mutate = Post(G("/mutate"), AddBody("dee", "feature"), {{"X-Actor-Id", "mallory"}});
  ASSERT_EQ(mutate.status, 200) << mutate;
  EXPECT_EQ(mutate.body_json["actor_id"], "alice");
  EXPECT_EQ(mutate.body_json["commit"]["actor_id"], "alice");
  const std::string commit = Str(mutate.body_json["commit"]["graph_commit_id"]);
  ASSERT_FALSE(commit.empty()) << mutate;
  Reply stored = Get(G("/commits/" + commit));
  ASSERT_EQ(stored.status, 200) << stored;
  EXPECT_EQ(stored.body_json["graph_commit_id"], commit);
  EXPECT_EQ(stored.body_json["actor_id"], "alice");
  EXPECT_EQ(stored.body_json["graph_branch"], "feature");
  EXPECT_EQ(CountPeople("feature"), kSeedPeople + 1);
  EXPECT_EQ(CountPeople("main"), kSeedPeople);

  Reply merge = Post(G("/branches/merge"), {{"source", "feature"}});
  EXPECT_EQ(merge.status, 403) << merge;
  EXPECT_EQ(merge.Message(),
            "policy denied action 'branch_merge' on branch 'feature' targeting branch 'main' for actor 'alice'");
  Reply unprotected = Post(G("/branches"), {{"name", "main2"}, {"from", "feature"}});
  EXPECT_EQ(unprotected.status, 200) << unprotected;
  Reply protected_target = Post(G("/branches"), {{"name", "main"}, {"from", "feature"}});
  EXPECT_EQ(protected_target.status, 403) << protected_target;  // denied before "already exists"
  EXPECT_EQ(protected_target.Message(),
            "policy denied action 'branch_create' on branch 'feature' targeting branch 'main' for actor 'alice'");
  EXPECT_EQ(Get("/graphs").status, 403);
  token_.reset();
  EXPECT_EQ(Post(G("/query"), {{"query", kPeople}}).status, 401);
}

TEST_F(AuthTest, AdmissionCapsWritesButNotReads) {
  ASSERT_NO_FATAL_FAILURE(StartOpen([](ServerOptions& o) { o.per_actor_inflight_max = 0; }));
  const std::string head = HeadCommit();
  auto expect_429 = [](const Reply& r) {
    EXPECT_EQ(r.status, 429) << r;
    EXPECT_EQ(r.Header("Retry-After"), "60") << r;
    EXPECT_EQ(r.body_json.value("code", ""), "too_many_requests") << r;
    EXPECT_EQ(r.body_json.value("error_code", ""), "admission_limit") << r;
  };
  Reply mutate = Post(G("/mutate"), AddBody("dee"));
  expect_429(mutate);
  EXPECT_EQ(mutate.Message(), "actor in-flight count cap 0 exceeded");
  expect_429(Post(G("/branches"), {{"name", "feature"}}));
  expect_429(Post(G("/load"), {{"data", "{\"type\":\"Person\",\"data\":{\"name\":\"dee\"}}"}}));
  expect_429(
      Send("POST", G("/load/ndjson"), "{\"type\":\"Person\",\"data\":{\"name\":\"dee\"}}", "application/x-ndjson"));
  expect_429(Delete(G("/branches/whatever")));

  Reply query = Post(G("/query"), {{"query", kPeople}});
  EXPECT_EQ(query.status, 200) << query;
  EXPECT_EQ(Post(G("/export"), json::object()).status, 200);
  EXPECT_EQ(Get(G("/snapshot")).status, 200);
  EXPECT_EQ(HeadCommit(), head);
}

TEST_F(AuthTest, AdmissionByteBudget) {
  ASSERT_NO_FATAL_FAILURE(StartOpen([](ServerOptions& o) { o.per_actor_bytes_max = 16; }));
  Reply mutate = Post(G("/mutate"), AddBody("dee"));
  EXPECT_EQ(mutate.status, 429) << mutate;
  EXPECT_EQ(mutate.Header("Retry-After"), "60");
  EXPECT_TRUE(mutate.Message().starts_with("actor byte budget exceeded: would use ")) << mutate;
  EXPECT_EQ(Post(G("/query"), {{"query", kPeople}}).status, 200);
}

// Admission comes after the policy decision: a denied write never takes (or is refused) a slot.
TEST_F(AuthTest, DenialComesBeforeAdmission) {
  ASSERT_NO_FATAL_FAILURE(StartTokens("", [](ServerOptions& o) { o.per_actor_inflight_max = 0; }));
  Reply mutate = Post(G("/mutate"), AddBody("dee"));
  EXPECT_EQ(mutate.status, 403) << mutate;
  Reply branch = Post(G("/branches"), {{"name", "feature"}});
  EXPECT_EQ(branch.status, 403) << branch;
}

// The engine checks every write of a served graph again (OpenOptions::authorize_write): a write
// that reached the Database without the HTTP boundary's check is still decided by the policy.
TEST_F(AuthTest, TheEngineRefusesWritesThePolicyDenies) {
  ASSERT_NO_FATAL_FAILURE(StartTokens(kPolicy));
  ServedGraph* g = server_->registry().Find("default");
  ASSERT_NE(g, nullptr);
  const std::string add = "query add() { insert Person { name: \"zed\" } }";
  {
    ScopedActor as("alice");
    EXPECT_EQ(g->db->Mutate(add, "", "main").status().code_string(), "policy_denied");  // main is protected
    ASSERT_TRUE(g->db->CreateBranch("scratch", "main").ok());
    EXPECT_TRUE(g->db->Mutate(add, "", "scratch").ok());
    EXPECT_EQ(g->db->DeleteBranch("scratch").status().code_string(), "policy_denied");  // no rule grants it
  }
  {
    ScopedActor as("mallory");
    EXPECT_EQ(g->db->Mutate(add, "", "scratch").status().code_string(), "policy_denied");
  }
  EXPECT_EQ(CountPeople("main"), kSeedPeople);
}

}  // namespace
}  // namespace omnigraph::server::http_test
