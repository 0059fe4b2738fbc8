// The policy matrix (docs/server.md, the table of "the action and branches each route asks the
// policy about"; docs/cluster.md "Policies"): every per-graph action the server checks × every scope
// the action takes × the branch acted on (main, which the policy declares protected, vs feature,
// unprotected) × the actor (alice, whose group the rule names, vs mallory, in a group that may only
// read). Each cell starts a fresh server over a policy of exactly that rule and sends the action's
// request once: where the rule holds the route answers as it does without a policy; elsewhere it
// is 403 `forbidden` and nothing changed. The expected outcome is computed from the rules the
// policy is generated from (Allows below), not listed per cell.
//
// Not in the matrix:
//  - invoke_query (POST /queries/{name}): a --store server, which this fixture is, serves no stored
//    queries, so every name answers 404 whatever the policy says (a denial is a 404 too, by design).
//  - schema_apply on feature: the route always targets main (it takes no branch), so its cells act
//    on main only. A --store server applies schema changes when the policy grants schema_apply.
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "server/server_test_util.h"

namespace omnigraph::server::http_test {
namespace {

constexpr const char* kProtected = "main";   // the one branch in protected_branches
constexpr const char* kFeature = "feature";  // unprotected
constexpr const char* kTeamType = "node Team { name: String @key }\n";

// Each action and the scope key a rule may qualify it with.
struct ActionKind {
  const char* name;
  const char* scope_key;
};
constexpr ActionKind kActions[] = {
    {"read", "branch_scope"},
    {"export", "branch_scope"},
    {"change", "branch_scope"},
    {"branch_create", "target_branch_scope"},  // POST /branches: the target is `name`
    {"branch_delete", "target_branch_scope"},  // DELETE /branches/{b}: the target is b
    {"branch_merge", "target_branch_scope"},   // POST /branches/merge: the target is `target`
    {"schema_apply", "target_branch_scope"},   // POST /schema/apply: the target is always main
};

// One `rules:` entry of a generated policy.
struct Rule {
  std::string id, group, action, scope_key, scope;
};

std::string GroupOf(const std::string& actor) { return actor == "alice" ? "team" : "others"; }

struct Cell {
  std::string action, scope_key, scope;
  std::string branch;  // the branch the scope is checked against: the branch, or the target branch
  std::string actor;

  std::string Name() const { return action + "_" + scope + "_" + branch + "_" + actor; }
  // The cell's rule for `team`, and `others` reading everywhere (so mallory can observe each cell).
  std::vector<Rule> Rules() const {
    return {{"team-" + action, "team", action, scope_key, scope},
            {"others-read", "others", "read", "branch_scope", "any"}};
  }
};

void PrintTo(const Cell& c, std::ostream* os) { *os << c.Name(); }

// any: always; protected: the (target) branch is in protected_branches; unprotected: it is not.
bool ScopeHolds(const std::string& scope, const std::string& branch) {
  if (scope == "any") return true;
  const bool is_protected = branch == kProtected;
  return scope == "protected" ? is_protected : !is_protected;
}

// Allow-only: some rule names a group the actor is in, lists the action, and its scope holds.
bool Allows(const Cell& c) {
  for (const Rule& r : c.Rules()) {
    if (r.group == GroupOf(c.actor) && r.action == c.action && ScopeHolds(r.scope, c.branch)) return true;
  }
  return false;
}

std::string PolicyYaml(const Cell& c) {
  std::string y = "version: 1\ngroups:\n  team: [alice]\n  others: [mallory]\nprotected_branches: [" +
                  std::string(kProtected) + "]\nrules:\n";
  for (const Rule& r : c.Rules()) {
    y += "  - id: " + r.id + "\n    allow:\n      actors: { group: " + r.group + " }\n      actions: [" + r.action +
         "]\n      " + r.scope_key + ": " + r.scope + "\n";
  }
  return y;
}

std::vector<Cell> AllCells() {
  std::vector<Cell> cells;
  for (const ActionKind& a : kActions) {
    for (const char* scope : {"any", "protected", "unprotected"}) {
      for (const char* branch : {kProtected, kFeature}) {
        if (std::string(a.name) == "schema_apply" && std::string(branch) != kProtected) continue;  // main only
        for (const char* actor : {"alice", "mallory"}) cells.push_back({a.name, a.scope_key, scope, branch, actor});
      }
    }
  }
  return cells;
}

class PolicyMatrixTest : public ServerFixture, public ::testing::WithParamInterface<Cell> {
 protected:
  // What a write could change.
  struct State {
    std::vector<std::string> branches;
    std::map<std::string, std::string> heads;  // branch -> head commit
    std::string schema;
  };

  // Before the server starts, through an embedded handle of its own (the served handle refuses a
  // write without an actor once a policy is bound): feature from main with dee on it (unless the
  // cell creates feature), then eve on main, so each branch has one person the other lacks.
  void Prepare(const Cell& c) {
    auto db = Database::Open(store_);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    if (c.action != "branch_create") {
      auto created = (*db)->CreateBranch(kFeature, "main");
      ASSERT_TRUE(created.ok()) << created.status().ToString();
      auto dee = (*db)->Mutate(kAddPerson, R"({"name":"dee"})", kFeature);
      ASSERT_TRUE(dee.ok()) << dee.status().ToString();
    }
    auto eve = (*db)->Mutate(kAddPerson, R"({"name":"eve"})", "main");
    ASSERT_TRUE(eve.ok()) << eve.status().ToString();
  }

  // Read as the current token (the test observes as mallory).
  State Observe() const {
    State s;
    s.branches = Branches();
    for (const auto& b : s.branches) s.heads[b] = HeadCommit(b);
    Reply schema = Get(G("/schema"));
    EXPECT_EQ(schema.status, 200) << schema;
    s.schema = Str(schema.body_json["schema_source"]);
    return s;
  }

  // The one request of the cell's action on its branch.
  Reply Act(const Cell& c) const {
    const std::string& b = c.branch;
    const std::string other = b == kProtected ? kFeature : kProtected;
    if (c.action == "read") return Query(kCountPeople, b);
    if (c.action == "export") return Post(G("/export"), {{"branch", b}});
    if (c.action == "change") return AddPerson("zed", b);
    if (c.action == "branch_create") return Post(G("/branches"), {{"name", b}, {"from", "main"}});
    if (c.action == "branch_delete") return Delete(G("/branches/" + b));
    if (c.action == "branch_merge") return Post(G("/branches/merge"), {{"source", other}, {"target", b}});
    if (c.action == "schema_apply") {
      return Post(G("/schema/apply"), {{"schema_source", std::string(kSchema) + kTeamType}});
    }
    ADD_FAILURE() << "no request for action " << c.action;
    return {};
  }

  // Every branch live before and after has moved iff it is in `moved`.
  static void ExpectMoved(const State& before, const State& after, const std::set<std::string>& moved) {
    for (const auto& [branch, head] : before.heads) {
      auto it = after.heads.find(branch);
      if (it == after.heads.end()) continue;
      EXPECT_EQ(it->second != head, moved.count(branch) > 0) << "head of " << branch;
    }
  }

  static void ExpectUnchanged(const State& before, const State& after) {
    EXPECT_EQ(after.branches, before.branches);
    ExpectMoved(before, after, {});
    EXPECT_EQ(after.schema, before.schema);
  }

  // The route's answer when the policy let the request through, and its effect.
  void ExpectDone(const Cell& c, Reply& r, const State& before, const State& after) const {
    const std::string& b = c.branch;
    const bool on_main = b == kProtected;
    if (c.action == "read") {
      ASSERT_EQ(r.status, 200) << r;
      EXPECT_EQ(r.body_json["rows"][0]["n"], kSeedPeople + 1) << r;  // the seed and the branch's own person
      ExpectUnchanged(before, after);
    } else if (c.action == "export") {
      ASSERT_EQ(r.status, 200) << r;
      EXPECT_NE(r.body.find(on_main ? "\"eve\"" : "\"dee\""), std::string::npos) << r;
      EXPECT_EQ(r.body.find(on_main ? "\"dee\"" : "\"eve\""), std::string::npos) << r;
      ExpectUnchanged(before, after);
    } else if (c.action == "change") {
      ASSERT_EQ(r.status, 200) << r;
      EXPECT_EQ(r.body_json["affected_nodes"], 1) << r;
      EXPECT_EQ(r.body_json["actor_id"], c.actor) << r;
      EXPECT_EQ(after.branches, before.branches);
      ExpectMoved(before, after, {b});
      EXPECT_EQ(CountPeople(b), kSeedPeople + 2);
    } else if ((c.action == "branch_create" || c.action == "branch_delete") && on_main) {
      // Past the policy, the engine refuses to create or delete main itself (not a 403).
      EXPECT_EQ(r.status, 400) << r;
      EXPECT_EQ(r.body_json["error_code"], "invalid_argument") << r;
      EXPECT_NE(r.Message().find("'main' cannot be"), std::string::npos) << r;
      ExpectUnchanged(before, after);
    } else if (c.action == "branch_create") {
      ASSERT_EQ(r.status, 200) << r;
      EXPECT_EQ(r.body_json["actor_id"], c.actor) << r;
      EXPECT_EQ(after.branches, (std::vector<std::string>{kFeature, kProtected}));
      EXPECT_EQ(after.heads.count(kFeature) ? after.heads.at(kFeature) : "", before.heads.at(kProtected));
      ExpectMoved(before, after, {});
    } else if (c.action == "branch_delete") {
      ASSERT_EQ(r.status, 200) << r;
      EXPECT_EQ(r.body_json["name"], b) << r;
      EXPECT_EQ(after.branches, std::vector<std::string>{kProtected});
      ExpectMoved(before, after, {});
    } else if (c.action == "branch_merge") {
      ASSERT_EQ(r.status, 200) << r;
      EXPECT_EQ(r.body_json["target"], b) << r;
      EXPECT_EQ(r.body_json["outcome"], "merged") << r;
      EXPECT_EQ(after.branches, before.branches);
      ExpectMoved(before, after, {b});
      EXPECT_EQ(CountPeople(b), kSeedPeople + 2);  // its own person and the source's
    } else if (c.action == "schema_apply") {
      ASSERT_EQ(r.status, 200) << r;
      EXPECT_EQ(r.body_json["applied"], true) << r;
      EXPECT_EQ(after.branches, before.branches);
      ExpectMoved(before, after, {kProtected});
      EXPECT_NE(after.schema.find("node Team"), std::string::npos) << after.schema;
    } else {
      ADD_FAILURE() << "no expectation for action " << c.action;
    }
  }
};

TEST_P(PolicyMatrixTest, TheRuleDecides) {
  const Cell& c = GetParam();
  SCOPED_TRACE("cell " + c.Name() + (Allows(c) ? " (allowed)" : " (denied)") + "\n" + PolicyYaml(c));
  ASSERT_NO_FATAL_FAILURE(Prepare(c));
  ASSERT_NO_FATAL_FAILURE(StartTokens(PolicyYaml(c)));

  token_ = "tok-mallory";  // mallory's `others-read` reads every branch: the observer
  const State before = Observe();
  ASSERT_EQ(before.branches.size(), c.action == "branch_create" ? 1u : 2u);
  token_ = "tok-" + c.actor;
  Reply r = Act(c);
  token_ = "tok-mallory";
  const State after = Observe();

  if (Allows(c)) {
    ExpectDone(c, r, before, after);
    return;
  }
  EXPECT_EQ(r.status, 403) << r;
  EXPECT_EQ(r.body_json["code"], "forbidden") << r;
  EXPECT_EQ(r.body_json["error_code"], "policy_denied") << r;
  EXPECT_TRUE(r.Message().starts_with("policy denied action '" + c.action + "'")) << r;
  EXPECT_TRUE(r.Message().ends_with("for actor '" + c.actor + "'")) << r;
  ExpectUnchanged(before, after);
}

INSTANTIATE_TEST_SUITE_P(Cells, PolicyMatrixTest, ::testing::ValuesIn(AllCells()),
                         [](const ::testing::TestParamInfo<Cell>& info) { return info.param.Name(); });

// The matrix covers what it says: every cell an action takes, each actor allowed somewhere and
// denied somewhere.
TEST(PolicyMatrixShape, EveryActionScopeBranchAndActor) {
  const std::vector<Cell> cells = AllCells();
  EXPECT_EQ(cells.size(), 6u * 3 * 2 * 2 + 1u * 3 * 1 * 2);
  std::set<std::string> names;
  size_t alice_allowed = 0, mallory_allowed = 0;
  for (const Cell& c : cells) {
    names.insert(c.Name());
    if (Allows(c)) ++(c.actor == "alice" ? alice_allowed : mallory_allowed);
  }
  EXPECT_EQ(names.size(), cells.size());
  EXPECT_EQ(mallory_allowed, 6u);  // her reads: 3 scopes × 2 branches
  // alice: any → both branches; protected → main; unprotected → feature (schema_apply: main only).
  EXPECT_EQ(alice_allowed, 6u * 4 + 2u);
}

}  // namespace
}  // namespace omnigraph::server::http_test
