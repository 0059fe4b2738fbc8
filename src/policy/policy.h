// The authorization policy model (docs/reference/RUST_SURFACE.md §3): parsing and validating a
// `*.policy.yaml` bundle, deciding whether an actor may perform an action on a branch, and running
// the declarative policy test cases of `omnigraph policy test`. Allow-only: a request no rule grants
// is denied. Pure values; no I/O.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/result.h"
#include "omnigraph/status.h"

namespace omnigraph::policy {

// What a request wants to do. Every action but kGraphList applies to one graph; kGraphList applies
// to the server's graph registry.
enum class PolicyAction {
  kRead,
  kExport,
  kChange,
  kSchemaApply,
  kBranchCreate,
  kBranchDelete,
  kBranchMerge,
  kAdmin,
  kInvokeQuery,
  kGraphList,
};

// The YAML name of an action: "read", "export", "change", "schema_apply", "branch_create",
// "branch_delete", "branch_merge", "admin", "invoke_query", "graph_list".
std::string_view PolicyActionName(PolicyAction action);
// The action named exactly `name` (no trimming, case-sensitive), or nullopt.
std::optional<PolicyAction> ParsePolicyAction(std::string_view name);
// Every action, in enum order.
const std::vector<PolicyAction>& AllPolicyActions();

// True for the actions a rule may qualify with `branch_scope` (read, export, change).
bool ActionTakesBranchScope(PolicyAction action);
// True for the actions a rule may qualify with `target_branch_scope` (schema_apply, branch_create,
// branch_delete, branch_merge). admin, invoke_query and graph_list take neither scope.
bool ActionTakesTargetBranchScope(PolicyAction action);
// True for the server-scoped actions (graph_list).
bool IsServerAction(PolicyAction action);

// Which branches a rule covers. kAny: always; kProtected: the (target) branch is given and is in
// protected_branches; kUnprotected: it is given and is not.
enum class BranchScope { kAny, kProtected, kUnprotected };

std::string_view BranchScopeName(BranchScope scope);  // "any", "protected", "unprotected"
std::optional<BranchScope> ParseBranchScope(std::string_view name);

// One `rules:` entry: members of `group` may perform `actions`, limited by at most one scope.
struct PolicyRule {
  std::string id;
  std::string group;
  std::vector<PolicyAction> actions;
  std::optional<BranchScope> branch_scope;
  std::optional<BranchScope> target_branch_scope;
};

// One parsed and validated `*.policy.yaml`.
struct PolicyBundle {
  std::map<std::string, std::vector<std::string>> groups;  // group -> actors (as written)
  std::set<std::string> protected_branches;
  std::vector<PolicyRule> rules;

  // True when the rules grant the server-scoped action graph_list (such a bundle binds `cluster`)
  // rather than per-graph actions. A validated bundle never mixes the two; a bundle without rules
  // is a per-graph bundle.
  bool server_bundle() const;
  // Distinct actors across all groups (the actors a decision can know).
  size_t actor_count() const;
};

// Parses and validates the text of a policy file. `source_name` (usually its path) prefixes every
// message. Strict: unknown keys and repeated keys at any level are errors, as is more than one YAML
// document. Every violation is an InvalidArgument status whose message names the key path (e.g.
// "rules[2].allow.actions[0]") and, where known, carries its source span. Checked: `version` is
// present and 1; group names and actors are non-blank and groups are non-empty; protected branch
// names are non-blank; rule ids are non-blank and unique; each rule names an existing group, lists
// at least one known action (each once), sets at most one of branch_scope/target_branch_scope and
// only for actions that take it, and does not mix graph_list with per-graph actions; the bundle
// as a whole is either per-graph or server-scoped (mixed binding kinds are rejected).
// Pure; thread-safe.
Result<PolicyBundle> ParsePolicyBundle(std::string_view yaml_text, std::string_view source_name);

// A request to decide. `actor` is the server-resolved identity; `branch` is the branch acted on and
// `target_branch` the branch an operation lands on (absent when the operation has none).
struct PolicyRequest {
  std::string actor;
  PolicyAction action = PolicyAction::kRead;
  std::optional<std::string> branch;
  std::optional<std::string> target_branch;
};

// The outcome of a decision. `matched_rule_id` is the lexicographically smallest id among the rules
// that grant the request (absent when denied). `message` is a one-line explanation for logs.
struct PolicyDecision {
  bool allowed = false;
  std::optional<std::string> matched_rule_id;
  std::string message;
};

// Decides `request` against `bundle`. An actor in no group is denied outright. A rule grants the
// request when the actor is a member of its group, it lists the action, and its scope (if any)
// holds for the request's branch (branch_scope) or target branch (target_branch_scope).
// Pure; thread-safe.
PolicyDecision Decide(const PolicyBundle& bundle, const PolicyRequest& request);

// One case of a policy tests file (`version: 1`, `cases: [{id, actor, action, branch?,
// target_branch?, expect: allow|deny}]`).
struct PolicyTestCase {
  std::string id;
  PolicyRequest request;
  bool expect_allow = false;
};

// Parses a policy tests file, as strictly as ParsePolicyBundle (same message style). Checked:
// `version` is present and 1; case ids are non-blank and unique; actors are non-blank; actions
// are known; `expect` is allow or deny. Pure; thread-safe.
Result<std::vector<PolicyTestCase>> ParsePolicyTests(std::string_view yaml_text, std::string_view source_name);

struct PolicyTestResult {
  std::string id;
  bool passed = false;  // decision.allowed == expected_allow
  PolicyDecision decision;
  bool expected_allow = false;
};

// Decides every case against `bundle`, in order. A failing case is a result, not an error (the CLI
// exits 1 when any case did not pass). Pure; thread-safe.
std::vector<PolicyTestResult> RunPolicyTests(const PolicyBundle& bundle, const std::vector<PolicyTestCase>& cases);

}  // namespace omnigraph::policy
