// The policy model (policy.h): strict parsing and validation of policy bundles and policy test
// files, decisions for every action and scope, the reported rule id, and running policy tests.
#include "policy/policy.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "common/error_codes.h"

namespace omnigraph::policy {
namespace {

constexpr std::string_view kSource = "graph.policy.yaml";

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Groups team: [act-alice] and others: [act-bob], `main` protected, then the given `rules:` body.
std::string WithRules(std::string_view rules) {
  return "version: 1\n"
         "groups:\n"
         "  team: [act-alice]\n"
         "  others: [act-bob]\n"
         "protected_branches: [main]\n"
         "rules:\n" +
         std::string(rules);
}

// The error of parsing `yaml` as a bundle, which must fail with invalid_argument.
Status BundleError(std::string_view yaml) {
  Result<PolicyBundle> r = ParsePolicyBundle(yaml, kSource);
  EXPECT_FALSE(r.ok()) << "unexpectedly parsed:\n" << yaml;
  if (r.ok()) return InternalError("parsed");
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << r.status().ToString();
  return r.status();
}

// Parsing `yaml` as a bundle fails with a message that holds every one of `parts`.
void ExpectBundleRejected(std::string_view yaml, std::initializer_list<std::string_view> parts) {
  Status s = BundleError(yaml);
  for (std::string_view part : parts) EXPECT_TRUE(Contains(s.message(), part)) << s.ToString() << "\nmissing: " << part;
}

Status TestsError(std::string_view yaml) {
  Result<std::vector<PolicyTestCase>> r = ParsePolicyTests(yaml, "cases.yaml");
  EXPECT_FALSE(r.ok()) << "unexpectedly parsed:\n" << yaml;
  if (r.ok()) return InternalError("parsed");
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << r.status().ToString();
  return r.status();
}

void ExpectTestsRejected(std::string_view yaml, std::initializer_list<std::string_view> parts) {
  Status s = TestsError(yaml);
  for (std::string_view part : parts) EXPECT_TRUE(Contains(s.message(), part)) << s.ToString() << "\nmissing: " << part;
}

PolicyDecision Ask(const PolicyBundle& bundle, const std::string& actor, PolicyAction action,
                   std::optional<std::string> branch = std::nullopt, std::optional<std::string> target = std::nullopt) {
  return Decide(bundle, PolicyRequest{actor, action, std::move(branch), std::move(target)});
}

TEST(PolicyNames, ActionsRoundTrip) {
  const std::vector<std::string_view> names = {"read",          "export",        "change",       "schema_apply",
                                               "branch_create", "branch_delete", "branch_merge", "admin",
                                               "invoke_query",  "graph_list"};
  ASSERT_EQ(AllPolicyActions().size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    PolicyAction action = AllPolicyActions()[i];
    EXPECT_EQ(PolicyActionName(action), names[i]);
    EXPECT_EQ(ParsePolicyAction(names[i]), action) << names[i];
  }
  EXPECT_EQ(ParsePolicyAction("Read"), std::nullopt);
  EXPECT_EQ(ParsePolicyAction(" read"), std::nullopt);
  EXPECT_EQ(ParsePolicyAction("run_publish"), std::nullopt);  // removed in v0.4
  EXPECT_EQ(ParsePolicyAction(""), std::nullopt);
}

TEST(PolicyNames, ScopesAndScopeKinds) {
  for (BranchScope s : {BranchScope::kAny, BranchScope::kProtected, BranchScope::kUnprotected}) {
    EXPECT_EQ(ParseBranchScope(BranchScopeName(s)), s);
  }
  EXPECT_EQ(BranchScopeName(BranchScope::kUnprotected), "unprotected");
  EXPECT_EQ(ParseBranchScope("Protected"), std::nullopt);
  for (PolicyAction a : AllPolicyActions()) {
    const std::string_view n = PolicyActionName(a);
    EXPECT_EQ(ActionTakesBranchScope(a), n == "read" || n == "export" || n == "change") << n;
    EXPECT_EQ(ActionTakesTargetBranchScope(a),
              n == "schema_apply" || n == "branch_create" || n == "branch_delete" || n == "branch_merge")
        << n;
    EXPECT_EQ(IsServerAction(a), n == "graph_list") << n;
  }
}

TEST(PolicyBundleParse, ParsesAFullBundle) {
  auto r = ParsePolicyBundle(R"(version: 1
groups:
  team: [act-andrew, act-bruno]
  admins: [act-andrew]
protected_branches: [main, release]
rules:
  - id: team-read
    allow:
      actors: { group: team }
      actions: [read, export]
      branch_scope: any
  - id: admins-promote
    allow:
      actors: { group: admins }
      actions: [branch_delete, branch_merge]
      target_branch_scope: protected
  - id: team-invoke
    allow:
      actors: { group: team }
      actions: [invoke_query]
)",
                             kSource);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const PolicyBundle& b = *r;
  ASSERT_EQ(b.groups.size(), 2u);
  EXPECT_EQ(b.groups.at("team"), (std::vector<std::string>{"act-andrew", "act-bruno"}));
  EXPECT_EQ(b.groups.at("admins"), std::vector<std::string>{"act-andrew"});
  EXPECT_EQ(b.protected_branches, (std::set<std::string>{"main", "release"}));
  EXPECT_EQ(b.actor_count(), 2u);  // act-andrew is in two groups
  EXPECT_FALSE(b.server_bundle());
  ASSERT_EQ(b.rules.size(), 3u);
  EXPECT_EQ(b.rules[0].id, "team-read");
  EXPECT_EQ(b.rules[0].group, "team");
  EXPECT_EQ(b.rules[0].actions, (std::vector<PolicyAction>{PolicyAction::kRead, PolicyAction::kExport}));
  EXPECT_EQ(b.rules[0].branch_scope, BranchScope::kAny);
  EXPECT_EQ(b.rules[0].target_branch_scope, std::nullopt);
  EXPECT_EQ(b.rules[1].branch_scope, std::nullopt);
  EXPECT_EQ(b.rules[1].target_branch_scope, BranchScope::kProtected);
  EXPECT_EQ(b.rules[2].actions, std::vector<PolicyAction>{PolicyAction::kInvokeQuery});
  EXPECT_EQ(b.rules[2].branch_scope, std::nullopt);
  EXPECT_EQ(b.rules[2].target_branch_scope, std::nullopt);
}

TEST(PolicyBundleParse, OptionalSectionsAndNullScopes) {
  auto r = ParsePolicyBundle("version: 1\n", kSource);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->groups.empty() && r->protected_branches.empty() && r->rules.empty());
  EXPECT_EQ(r->actor_count(), 0u);
  EXPECT_FALSE(r->server_bundle());

  // An explicit null scope is no scope.
  auto n = ParsePolicyBundle(WithRules("  - id: r\n    allow: { actors: { group: team }, actions: [read], "
                                       "branch_scope: ~ }\n"),
                             kSource);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->rules[0].branch_scope, std::nullopt);
  EXPECT_TRUE(Ask(*n, "act-alice", PolicyAction::kRead, "main").allowed);
}

TEST(PolicyBundleParse, ServerBundleGrantsGraphList) {
  auto r = ParsePolicyBundle(R"(version: 1
groups:
  admins: [act-andrew]
  viewers: [act-bruno]
rules:
  - id: admins-can-list-graphs
    allow:
      actors: { group: admins }
      actions: [graph_list]
)",
                             kSource);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->server_bundle());
  PolicyDecision allow = Ask(*r, "act-andrew", PolicyAction::kGraphList);
  EXPECT_TRUE(allow.allowed);
  EXPECT_EQ(allow.matched_rule_id, "admins-can-list-graphs");
  PolicyDecision deny = Ask(*r, "act-bruno", PolicyAction::kGraphList);
  EXPECT_FALSE(deny.allowed);
  EXPECT_EQ(deny.matched_rule_id, std::nullopt);
  EXPECT_FALSE(Ask(*r, "act-andrew", PolicyAction::kRead, "main").allowed);
}

TEST(PolicyDecide, EveryGraphActionIsGrantedOnlyByARuleListingIt) {
  std::string rules;
  for (PolicyAction a : AllPolicyActions()) {
    if (IsServerAction(a)) continue;
    const std::string name(PolicyActionName(a));
    rules += "  - id: r-" + name + "\n    allow: { actors: { group: team }, actions: [" + name + "] }\n";
  }
  auto r = ParsePolicyBundle(WithRules(rules), kSource);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->server_bundle());
  for (PolicyAction a : AllPolicyActions()) {
    const std::string name(PolicyActionName(a));
    PolicyDecision member = Ask(*r, "act-alice", a, "main", "main");
    PolicyDecision outsider = Ask(*r, "act-bob", a, "main", "main");
    EXPECT_FALSE(outsider.allowed) << name;
    EXPECT_EQ(outsider.matched_rule_id, std::nullopt) << name;
    if (IsServerAction(a)) {
      EXPECT_FALSE(member.allowed) << "a graph bundle never grants " << name;
      continue;
    }
    EXPECT_TRUE(member.allowed) << name << ": " << member.message;
    EXPECT_EQ(member.matched_rule_id, "r-" + name);
  }
}

// The decision for scope `scope` on `key` (branch_scope or target_branch_scope) for `action`, asked
// with the scoped branch set to main (protected), feature (unprotected) or absent. The other branch
// of the request is set to the opposite kind, which must not matter.
struct ScopeRow {
  const char* scope;
  bool on_protected;
  bool on_unprotected;
  bool on_absent;
};
constexpr ScopeRow kScopeRows[] = {
    {"any", true, true, true},
    {"protected", true, false, false},
    {"unprotected", false, true, false},
};

TEST(PolicyDecide, BranchScopeOnReadExportChange) {
  for (const char* action : {"read", "export", "change"}) {
    for (const ScopeRow& row : kScopeRows) {
      const std::string rules = "  - id: r\n    allow: { actors: { group: team }, actions: [" + std::string(action) +
                                "], branch_scope: " + row.scope + " }\n";
      auto r = ParsePolicyBundle(WithRules(rules), kSource);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      const PolicyAction a = *ParsePolicyAction(action);
      const std::string ctx = std::string(action) + " / " + row.scope;
      EXPECT_EQ(Ask(*r, "act-alice", a, "main", "feature").allowed, row.on_protected) << ctx;
      EXPECT_EQ(Ask(*r, "act-alice", a, "feature", "main").allowed, row.on_unprotected) << ctx;
      EXPECT_EQ(Ask(*r, "act-alice", a, std::nullopt, "main").allowed, row.on_absent) << ctx;
      EXPECT_FALSE(Ask(*r, "act-bob", a, "feature").allowed) << ctx;
    }
  }
}

TEST(PolicyDecide, TargetBranchScopeOnSchemaAndBranchOperations) {
  for (const char* action : {"schema_apply", "branch_create", "branch_delete", "branch_merge"}) {
    for (const ScopeRow& row : kScopeRows) {
      const std::string rules = "  - id: r\n    allow: { actors: { group: team }, actions: [" + std::string(action) +
                                "], target_branch_scope: " + row.scope + " }\n";
      auto r = ParsePolicyBundle(WithRules(rules), kSource);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      const PolicyAction a = *ParsePolicyAction(action);
      const std::string ctx = std::string(action) + " / " + row.scope;
      EXPECT_EQ(Ask(*r, "act-alice", a, "feature", "main").allowed, row.on_protected) << ctx;
      EXPECT_EQ(Ask(*r, "act-alice", a, "main", "feature").allowed, row.on_unprotected) << ctx;
      EXPECT_EQ(Ask(*r, "act-alice", a, "main", std::nullopt).allowed, row.on_absent) << ctx;
      EXPECT_FALSE(Ask(*r, "act-bob", a, std::nullopt, "feature").allowed) << ctx;
    }
  }
}

TEST(PolicyDecide, ProtectedIsMembershipOfTheNamedList) {
  auto r = ParsePolicyBundle(R"(version: 1
groups: { team: [act-alice] }
protected_branches: [main, release/1]
rules:
  - id: guarded
    allow: { actors: { group: team }, actions: [change], branch_scope: protected }
)",
                             kSource);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(Ask(*r, "act-alice", PolicyAction::kChange, "main").allowed);
  EXPECT_TRUE(Ask(*r, "act-alice", PolicyAction::kChange, "release/1").allowed);
  EXPECT_FALSE(Ask(*r, "act-alice", PolicyAction::kChange, "release").allowed);
  EXPECT_FALSE(Ask(*r, "act-alice", PolicyAction::kChange, "Main").allowed);
  EXPECT_FALSE(Ask(*r, "act-alice", PolicyAction::kChange, "").allowed);
}

TEST(PolicyDecide, UnscopedRuleMatchesAnyBranch) {
  auto r = ParsePolicyBundle(WithRules("  - id: r\n    allow: { actors: { group: team }, actions: [read, "
                                       "branch_merge, admin] }\n"),
                             kSource);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (PolicyAction a : {PolicyAction::kRead, PolicyAction::kBranchMerge, PolicyAction::kAdmin}) {
    EXPECT_TRUE(Ask(*r, "act-alice", a, "main", "main").allowed);
    EXPECT_TRUE(Ask(*r, "act-alice", a, "feature", "feature").allowed);
    EXPECT_TRUE(Ask(*r, "act-alice", a).allowed);
  }
  EXPECT_FALSE(Ask(*r, "act-alice", PolicyAction::kExport, "feature").allowed);
}

TEST(PolicyDecide, ReportsTheSmallestMatchingRuleId) {
  auto r = ParsePolicyBundle(R"(version: 1
groups:
  team: [act-alice, act-carol]
  others: [act-bob, act-carol]
protected_branches: [main]
rules:
  - id: zeta
    allow: { actors: { group: team }, actions: [read], branch_scope: any }
  - id: mid
    allow: { actors: { group: team }, actions: [read, export] }
  - id: beta
    allow: { actors: { group: team }, actions: [change] }
  - id: Aardvark
    allow: { actors: { group: others }, actions: [read] }
  - id: alpha
    allow: { actors: { group: team }, actions: [read], branch_scope: protected }
)",
                             kSource);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Ask(*r, "act-alice", PolicyAction::kRead, "main").matched_rule_id, "alpha");
  EXPECT_EQ(Ask(*r, "act-alice", PolicyAction::kRead, "feature").matched_rule_id, "mid");  // alpha's scope fails
  EXPECT_EQ(Ask(*r, "act-alice", PolicyAction::kExport, "main").matched_rule_id, "mid");
  EXPECT_EQ(Ask(*r, "act-alice", PolicyAction::kChange, "main").matched_rule_id, "beta");
  // Byte order: an upper-case id sorts before every lower-case one, but only a granting rule counts.
  EXPECT_EQ(Ask(*r, "act-carol", PolicyAction::kRead, "main").matched_rule_id, "Aardvark");
  EXPECT_EQ(Ask(*r, "act-bob", PolicyAction::kRead, "main").matched_rule_id, "Aardvark");
  PolicyDecision denied = Ask(*r, "act-bob", PolicyAction::kExport, "main");
  EXPECT_FALSE(denied.allowed);
  EXPECT_EQ(denied.matched_rule_id, std::nullopt);
}

TEST(PolicyDecide, ReferenceScenario) {
  auto r = ParsePolicyBundle(R"(version: 1
groups:
  team: [act-andrew, act-bruno]
  admins: [act-andrew]
protected_branches: [main]
rules:
  - id: team-read
    allow: { actors: { group: team }, actions: [read, export], branch_scope: any }
  - id: team-write
    allow: { actors: { group: team }, actions: [change], branch_scope: unprotected }
  - id: admins-promote
    allow: { actors: { group: admins }, actions: [branch_delete, branch_merge], target_branch_scope: protected }
)",
                             kSource);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  PolicyDecision write = Ask(*r, "act-bruno", PolicyAction::kChange, "feature");
  EXPECT_TRUE(write.allowed);
  EXPECT_EQ(write.matched_rule_id, "team-write");
  EXPECT_FALSE(Ask(*r, "act-bruno", PolicyAction::kChange, "main").allowed);
  EXPECT_FALSE(Ask(*r, "act-bruno", PolicyAction::kBranchDelete, std::nullopt, "main").allowed);
  PolicyDecision promote = Ask(*r, "act-andrew", PolicyAction::kBranchDelete, std::nullopt, "main");
  EXPECT_TRUE(promote.allowed);
  EXPECT_EQ(promote.matched_rule_id, "admins-promote");
  EXPECT_FALSE(Ask(*r, "act-andrew", PolicyAction::kBranchMerge, "feature", "feature").allowed);
}

TEST(PolicyDecide, UnknownActorsAndMessages) {
  auto r = ParsePolicyBundle(WithRules("  - id: team-read\n    allow: { actors: { group: team }, actions: [read] }\n"),
                             kSource);
  ASSERT_TRUE(r.ok()) << r.status().ToString();

  PolicyDecision stranger = Ask(*r, "act-mallory", PolicyAction::kRead, "main");
  EXPECT_FALSE(stranger.allowed);
  EXPECT_EQ(stranger.matched_rule_id, std::nullopt);
  EXPECT_TRUE(Contains(stranger.message, "act-mallory")) << stranger.message;
  EXPECT_TRUE(Contains(stranger.message, "no policy group")) << stranger.message;
  EXPECT_FALSE(Ask(*r, "", PolicyAction::kRead, "main").allowed);

  PolicyDecision allowed = Ask(*r, "act-alice", PolicyAction::kRead, "main");
  EXPECT_TRUE(allowed.allowed);
  EXPECT_TRUE(Contains(allowed.message, "allowed")) << allowed.message;
  EXPECT_TRUE(Contains(allowed.message, "'act-alice'")) << allowed.message;
  EXPECT_TRUE(Contains(allowed.message, "'team-read'")) << allowed.message;

  // A known actor that no rule covers.
  PolicyDecision denied = Ask(*r, "act-bob", PolicyAction::kBranchMerge, "feature", "main");
  EXPECT_FALSE(denied.allowed);
  EXPECT_EQ(denied.matched_rule_id, std::nullopt);
  EXPECT_TRUE(Contains(denied.message, "denied")) << denied.message;
  EXPECT_TRUE(Contains(denied.message, "'branch_merge'")) << denied.message;
  EXPECT_TRUE(Contains(denied.message, "'feature'")) << denied.message;
  EXPECT_TRUE(Contains(denied.message, "'main'")) << denied.message;
}

TEST(PolicyBundleValidate, UnknownKeysAtEveryLevel) {
  ExpectBundleRejected("version: 1\nkind: server\nrules: []\n", {"graph.policy.yaml: ", "kind", "unknown key 'kind'"});
  ExpectBundleRejected(WithRules("  - id: r\n    deny: {}\n    allow: { actors: { group: team }, actions: [read] }\n"),
                       {"rules[0].deny", "unknown key 'deny'"});
  ExpectBundleRejected(WithRules("  - id: typo-must-not-widen-access\n    allow:\n      actors: { group: team }\n"
                                 "      actions: [read]\n      branch_scpoe: protected\n"),
                       {"rules[0].allow.branch_scpoe", "unknown key 'branch_scpoe'"});
  ExpectBundleRejected(WithRules("  - id: r\n    allow: { actors: { group: team, user: act-x }, actions: [read] }\n"),
                       {"rules[0].allow.actors.user", "unknown key 'user'"});
}

TEST(PolicyBundleValidate, DuplicateKeysAtEveryLevel) {
  ExpectBundleRejected("version: 1\nversion: 1\n", {"duplicate key 'version'"});
  ExpectBundleRejected("version: 1\ngroups:\n  team: [a]\n  team: [b]\n", {"groups.team", "duplicate key 'team'"});
  ExpectBundleRejected(WithRules("  - id: r\n    id: s\n    allow: { actors: { group: team }, actions: [read] }\n"),
                       {"rules[0].id", "duplicate key 'id'"});
  ExpectBundleRejected(
      WithRules("  - id: r\n    allow: { actors: { group: team }, actions: [read], actions: [change] }\n"),
      {"rules[0].allow.actions", "duplicate key 'actions'"});
  ExpectBundleRejected(WithRules("  - id: r\n    allow: { actors: { group: team, group: others }, actions: [read] }\n"),
                       {"rules[0].allow.actors.group", "duplicate key 'group'"});
}

TEST(PolicyBundleValidate, VersionMustBeOne) {
  ExpectBundleRejected("version: 2\n", {"version", "must be 1"});
  ExpectBundleRejected("version: 0\n", {"version", "must be 1"});
  ExpectBundleRejected("groups: {}\n", {"missing required key 'version'"});
  ExpectBundleRejected("", {"missing required key 'version'"});
  ExpectBundleRejected("version: \"1\"\n", {"version", "integer"});
  ExpectBundleRejected("version: one\n", {"version", "integer"});
  ExpectBundleRejected("version: -1\n", {"version", "integer"});
  ExpectBundleRejected("version: [1]\n", {"version", "integer"});
}

TEST(PolicyBundleValidate, MalformedDocuments) {
  ExpectBundleRejected("version: [1\n", {"graph.policy.yaml", "not valid YAML"});
  ExpectBundleRejected("version: 1\n---\nversion: 1\n", {"more than one YAML document"});
  ExpectBundleRejected("- version: 1\n", {"the document must be a mapping"});
  ExpectBundleRejected("version: 1\ngroups: [team]\n", {"groups", "must be a mapping"});
  ExpectBundleRejected("version: 1\nrules: {}\n", {"rules", "must be a list"});
  ExpectBundleRejected("version: 1\ngroups:\n  team: act-alice\n", {"groups.team", "must be a list"});
  ExpectBundleRejected("version: 1\nprotected_branches: main\n", {"protected_branches", "must be a list"});
  ExpectBundleRejected(WithRules("  - id: r\n    allow: { actors: team, actions: [read] }\n"),
                       {"rules[0].allow.actors", "must be a mapping"});
}

TEST(PolicyBundleValidate, GroupsAndProtectedBranches) {
  ExpectBundleRejected("version: 1\ngroups:\n  team: []\n", {"groups.team", "no actors"});
  ExpectBundleRejected("version: 1\ngroups:\n  team:\n", {"groups.team", "no actors"});
  ExpectBundleRejected("version: 1\ngroups:\n  team: [act-a, \"  \"]\n", {"groups.team[1]", "actor id is blank"});
  ExpectBundleRejected("version: 1\ngroups:\n  \" \": [act-a]\n", {"group name is blank"});
  ExpectBundleRejected("version: 1\nprotected_branches: [main, \"\"]\n", {"protected_branches[1]", "blank"});
}

TEST(PolicyBundleValidate, RuleIds) {
  const std::string allow = "    allow: { actors: { group: team }, actions: [read] }\n";
  ExpectBundleRejected(WithRules("  - id: \"\"\n" + allow), {"rules[0].id", "blank"});
  ExpectBundleRejected(WithRules("  - id: \"  \"\n" + allow), {"rules[0].id", "blank"});
  ExpectBundleRejected(WithRules("  - allow: { actors: { group: team }, actions: [read] }\n"),
                       {"rules[0]", "missing required key 'id'"});
  ExpectBundleRejected(WithRules("  - id: same\n" + allow + "  - id: other\n" + allow + "  - id: same\n" + allow),
                       {"rules[2].id", "'same'", "rules[0]"});
  ExpectBundleRejected(WithRules("  - id: r\n"), {"rules[0]", "missing required key 'allow'"});
}

TEST(PolicyBundleValidate, UnknownOrBlankGroup) {
  Status s =
      BundleError(WithRules("  - id: bad\n    allow:\n      actors: { group: admins }\n      actions: [read]\n"));
  EXPECT_TRUE(Contains(s.message(), "rules[0].allow.actors.group")) << s.ToString();
  EXPECT_TRUE(Contains(s.message(), "'admins'")) << s.ToString();
  // The span points at the `group` key (line 9 of the file).
  ASSERT_TRUE(s.span().has_value()) << s.ToString();
  EXPECT_EQ(s.span()->line, 9u);
  EXPECT_EQ(s.span()->file, "graph.policy.yaml");

  ExpectBundleRejected(WithRules("  - id: r\n    allow: { actors: { group: \"\" }, actions: [read] }\n"),
                       {"rules[0].allow.actors.group", "blank"});
  ExpectBundleRejected(WithRules("  - id: r\n    allow: { actors: {}, actions: [read] }\n"),
                       {"rules[0].allow.actors", "missing required key 'group'"});
}

TEST(PolicyBundleValidate, UnknownAndMissingActions) {
  ExpectBundleRejected(WithRules("  - id: r\n    allow: { actors: { group: team }, actions: [read, run_publish] }\n"),
                       {"rules[0].allow.actions[1]", "unknown action 'run_publish'"});
  ExpectBundleRejected(WithRules("  - id: r\n    allow: { actors: { group: team }, actions: [READ] }\n"),
                       {"rules[0].allow.actions[0]", "unknown action 'READ'"});
  ExpectBundleRejected(WithRules("  - id: r\n    allow: { actors: { group: team }, actions: [] }\n"),
                       {"rules[0].allow.actions", "at least one action"});
  ExpectBundleRejected(WithRules("  - id: r\n    allow:\n      actors: { group: team }\n      actions:\n"),
                       {"rules[0].allow.actions", "at least one action"});
  ExpectBundleRejected(WithRules("  - id: r\n    allow: { actors: { group: team } }\n"),
                       {"rules[0].allow", "missing required key 'actions'"});
  ExpectBundleRejected(WithRules("  - id: r\n    allow: { actors: { group: team }, actions: read }\n"),
                       {"rules[0].allow.actions", "must be a list"});
  ExpectBundleRejected(WithRules("  - id: r\n    allow: { actors: { group: team }, actions: [read, export, read] }\n"),
                       {"rules[0].allow.actions[2]", "'read'", "twice"});
}

TEST(PolicyBundleValidate, ScopeValues) {
  ExpectBundleRejected(
      WithRules("  - id: r\n    allow: { actors: { group: team }, actions: [read], branch_scope: everywhere }\n"),
      {"rules[0].allow.branch_scope", "'everywhere'"});
  ExpectBundleRejected(
      WithRules("  - id: r\n    allow: { actors: { group: team }, actions: [read], branch_scope: Protected }\n"),
      {"rules[0].allow.branch_scope", "'Protected'"});
  ExpectBundleRejected(
      WithRules("  - id: r\n    allow: { actors: { group: team }, actions: [branch_merge], target_branch_scope: [any] "
                "}\n"),
      {"rules[0].allow.target_branch_scope", "must be one of"});
}

TEST(PolicyBundleValidate, BothScopesOnOneRule) {
  ExpectBundleRejected(WithRules("  - id: both\n    allow: { actors: { group: team }, actions: [branch_merge], "
                                 "branch_scope: any, target_branch_scope: protected }\n"),
                       {"rules[0].allow", "'both'", "branch_scope", "target_branch_scope"});
}

TEST(PolicyBundleValidate, ScopeOnAnActionThatDoesNotTakeIt) {
  struct Case {
    const char* actions;
    const char* key;
    const char* action;
  };
  for (const Case& c :
       {Case{"[admin]", "branch_scope", "'admin'"}, Case{"[admin]", "target_branch_scope", "'admin'"},
        Case{"[invoke_query]", "branch_scope", "'invoke_query'"},
        Case{"[invoke_query]", "target_branch_scope", "'invoke_query'"},
        Case{"[graph_list]", "branch_scope", "'graph_list'"},
        Case{"[graph_list]", "target_branch_scope", "'graph_list'"},
        Case{"[branch_merge]", "branch_scope", "'branch_merge'"},
        Case{"[schema_apply]", "branch_scope", "'schema_apply'"}, Case{"[read]", "target_branch_scope", "'read'"},
        Case{"[change]", "target_branch_scope", "'change'"},
        Case{"[read, schema_apply]", "branch_scope", "'schema_apply'"}}) {
    for (const char* scope : {"any", "protected", "unprotected"}) {
      const std::string rules = "  - id: r\n    allow: { actors: { group: team }, actions: " + std::string(c.actions) +
                                ", " + c.key + ": " + scope + " }\n";
      ExpectBundleRejected(WithRules(rules), {std::string("rules[0].allow.") + c.key, c.action});
    }
  }
}

TEST(PolicyBundleValidate, MixedBindingKinds) {
  // Within one rule.
  ExpectBundleRejected(
      WithRules("  - id: mixed\n    allow: { actors: { group: team }, actions: [graph_list, read] }\n"),
      {"rules[0].allow.actions", "graph_list", "split"});
  // Across rules of one bundle.
  ExpectBundleRejected(WithRules("  - id: list\n    allow: { actors: { group: team }, actions: [graph_list] }\n"
                                 "  - id: read\n    allow: { actors: { group: team }, actions: [read] }\n"),
                       {"rules[1].allow.actions", "mixed binding kinds", "rules[0]"});
  ExpectBundleRejected(WithRules("  - id: read\n    allow: { actors: { group: team }, actions: [admin] }\n"
                                 "  - id: list\n    allow: { actors: { group: others }, actions: [graph_list] }\n"),
                       {"rules[1].allow.actions", "mixed binding kinds"});
}

TEST(PolicyBundleValidate, ShapeErrorsComeBeforeRuleChecks) {
  // rules[0] names an unknown group, but rules[1] is malformed: the malformed text is reported, as
  // the reference reads the whole file before validating it.
  Status s =
      BundleError(WithRules("  - id: a\n    allow: { actors: { group: nobody }, actions: [read] }\n"
                            "  - id: b\n    allow: { actors: { group: team }, actions: [read], scope: any }\n"));
  EXPECT_TRUE(Contains(s.message(), "rules[1].allow.scope")) << s.ToString();
}

TEST(PolicyBundleValidate, UnknownKeyErrorsCarryTheirLine) {
  Status s = BundleError(
      "version: 1\ngroups:\n  team: [a]\nrules:\n  - id: r\n    allow:\n      actors: { group: team }\n"
      "      actions: [read]\n      branch_scpoe: any\n");
  ASSERT_TRUE(s.span().has_value()) << s.ToString();
  EXPECT_EQ(s.span()->line, 9u);
  EXPECT_EQ(s.span()->column, 7u);
}

constexpr std::string_view kTests = R"(version: 1
cases:
  - id: alice-reads-main
    actor: act-alice
    action: read
    branch: main
    expect: allow
  - id: bob-merges-into-main
    actor: act-bob
    action: branch_merge
    branch: feature
    target_branch: main
    expect: deny
  - id: alice-invokes
    actor: act-alice
    action: invoke_query
    expect: allow
)";

TEST(PolicyTests, ParsesCases) {
  auto r = ParsePolicyTests(kTests, "cases.yaml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 3u);
  const PolicyTestCase& a = (*r)[0];
  EXPECT_EQ(a.id, "alice-reads-main");
  EXPECT_EQ(a.request.actor, "act-alice");
  EXPECT_EQ(a.request.action, PolicyAction::kRead);
  EXPECT_EQ(a.request.branch, "main");
  EXPECT_EQ(a.request.target_branch, std::nullopt);
  EXPECT_TRUE(a.expect_allow);
  const PolicyTestCase& b = (*r)[1];
  EXPECT_EQ(b.request.action, PolicyAction::kBranchMerge);
  EXPECT_EQ(b.request.branch, "feature");
  EXPECT_EQ(b.request.target_branch, "main");
  EXPECT_FALSE(b.expect_allow);
  const PolicyTestCase& c = (*r)[2];
  EXPECT_EQ(c.request.action, PolicyAction::kInvokeQuery);
  EXPECT_EQ(c.request.branch, std::nullopt);
  EXPECT_EQ(c.request.target_branch, std::nullopt);

  auto empty = ParsePolicyTests("version: 1\n", "cases.yaml");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE(empty->empty());
}

TEST(PolicyTests, RejectsMalformedFiles) {
  const std::string one = "  - id: c\n    actor: act-a\n    action: read\n    expect: allow\n";
  ExpectTestsRejected("version: 2\ncases: []\n", {"cases.yaml: ", "version", "must be 1"});
  ExpectTestsRejected("cases: []\n", {"missing required key 'version'"});
  ExpectTestsRejected("version: 1\ncases: []\nbundle: x\n", {"unknown key 'bundle'"});
  ExpectTestsRejected("version: 1\ncases:\n  - id: c\n    actor: act-a\n    action: read\n    expected: allow\n",
                      {"cases[0].expected", "unknown key 'expected'"});
  ExpectTestsRejected("version: 1\ncases:\n  - id: c\n    actor: act-a\n    action: read\n",
                      {"cases[0]", "missing required key 'expect'"});
  ExpectTestsRejected("version: 1\ncases:\n" + one + "    expect: deny\n",
                      {"cases[0].expect", "duplicate key 'expect'"});
  ExpectTestsRejected("version: 1\nversion: 1\n", {"duplicate key 'version'"});
  ExpectTestsRejected("version: 1\ncases:\n  - id: c\n    actor: act-a\n    action: publish\n    expect: allow\n",
                      {"cases[0].action", "unknown action 'publish'"});
  ExpectTestsRejected("version: 1\ncases:\n  - id: c\n    actor: act-a\n    action: read\n    expect: maybe\n",
                      {"cases[0].expect", "'maybe'"});
  ExpectTestsRejected("version: 1\ncases:\n" + one + one, {"cases[1].id", "'c'", "cases[0]"});
  ExpectTestsRejected("version: 1\ncases:\n  - id: \" \"\n    actor: act-a\n    action: read\n    expect: allow\n",
                      {"cases[0].id", "blank"});
  ExpectTestsRejected("version: 1\ncases:\n  - id: c\n    actor: \"\"\n    action: read\n    expect: allow\n",
                      {"cases[0].actor", "blank"});
  ExpectTestsRejected("version: 1\ncases: {}\n", {"cases", "must be a list"});
}

TEST(PolicyTests, RunReportsPassesAndFailures) {
  auto bundle = ParsePolicyBundle(WithRules("  - id: team-read\n    allow: { actors: { group: team }, actions: [read], "
                                            "branch_scope: any }\n"
                                            "  - id: team-invoke\n    allow: { actors: { group: team }, actions: "
                                            "[invoke_query] }\n"),
                                  kSource);
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  auto passing = ParsePolicyTests(kTests, "cases.yaml");
  ASSERT_TRUE(passing.ok()) << passing.status().ToString();
  std::vector<PolicyTestResult> results = RunPolicyTests(*bundle, *passing);
  ASSERT_EQ(results.size(), 3u);
  for (const PolicyTestResult& r : results) EXPECT_TRUE(r.passed) << r.id << ": " << r.decision.message;
  EXPECT_EQ(results[0].id, "alice-reads-main");
  EXPECT_EQ(results[0].decision.matched_rule_id, "team-read");
  EXPECT_TRUE(results[0].expected_allow);
  EXPECT_FALSE(results[1].decision.allowed);
  EXPECT_FALSE(results[1].expected_allow);
  EXPECT_EQ(results[2].decision.matched_rule_id, "team-invoke");

  auto failing = ParsePolicyTests(R"(version: 1
cases:
  - id: bob-reads
    actor: act-bob
    action: read
    branch: main
    expect: allow
  - id: alice-reads-feature
    actor: act-alice
    action: read
    branch: feature
    expect: deny
  - id: alice-change
    actor: act-alice
    action: change
    branch: feature
    expect: deny
)",
                                  "cases.yaml");
  ASSERT_TRUE(failing.ok()) << failing.status().ToString();
  results = RunPolicyTests(*bundle, *failing);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].id, "bob-reads");
  EXPECT_FALSE(results[0].passed);  // expected allow, got deny
  EXPECT_FALSE(results[0].decision.allowed);
  EXPECT_TRUE(results[0].expected_allow);
  EXPECT_FALSE(results[1].passed);  // expected deny, got allow
  EXPECT_TRUE(results[1].decision.allowed);
  EXPECT_EQ(results[1].decision.matched_rule_id, "team-read");
  EXPECT_TRUE(results[2].passed);
  EXPECT_TRUE(RunPolicyTests(*bundle, {}).empty());
}

// A flow mapping on line 1 ends the root node; yaml-cpp's Load would drop line 2 (here: the
// protected branches, so `unprotected` would match main). It must be an error instead.
TEST(PolicyYamlTest, ContentAfterTheRootNodeIsAnError) {
  const std::string text =
      "{version: 1, groups: {devs: [bob]}, rules: [{id: r, allow: {actors: {group: devs}, actions: [change], "
      "branch_scope: unprotected}}]}\nprotected_branches: [main]\n";
  auto bundle = ParsePolicyBundle(text, "p.yaml");
  ASSERT_FALSE(bundle.ok());
  EXPECT_NE(bundle.status().message().find("content after"), std::string::npos) << bundle.status().ToString();
  EXPECT_FALSE(ParsePolicyBundle("version: 1\n---\nversion: 1\n", "p.yaml").ok());
  EXPECT_FALSE(ParsePolicyBundle(",", "p.yaml").ok());
  EXPECT_FALSE(ParsePolicyBundle("version: 1\ngroups: {g: [\"\xff\"]}\n", "p.yaml").ok());
  EXPECT_TRUE(ParsePolicyBundle("version: 1\n# trailing comment\n...\n", "p.yaml").ok());
}

}  // namespace
}  // namespace omnigraph::policy
