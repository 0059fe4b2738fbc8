// The authorization policy model (policy.h): a strict YAML reader for policy bundles and policy
// test files, the bundle's validation rules, and the allow-only decision procedure.
#include "policy/policy.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "common/error_codes.h"
#include "common/utf8.h"
#include "common/yaml_text.h"

namespace omnigraph::policy {
namespace {

struct ActionInfo {
  PolicyAction action;
  std::string_view name;
};

constexpr ActionInfo kActions[] = {
    {PolicyAction::kRead, "read"},
    {PolicyAction::kExport, "export"},
    {PolicyAction::kChange, "change"},
    {PolicyAction::kSchemaApply, "schema_apply"},
    {PolicyAction::kBranchCreate, "branch_create"},
    {PolicyAction::kBranchDelete, "branch_delete"},
    {PolicyAction::kBranchMerge, "branch_merge"},
    {PolicyAction::kAdmin, "admin"},
    {PolicyAction::kInvokeQuery, "invoke_query"},
    {PolicyAction::kGraphList, "graph_list"},
};

struct ScopeInfo {
  BranchScope scope;
  std::string_view name;
};

constexpr ScopeInfo kScopes[] = {
    {BranchScope::kAny, "any"},
    {BranchScope::kProtected, "protected"},
    {BranchScope::kUnprotected, "unprotected"},
};

std::string Quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string ActionNameList() {
  std::string out;
  for (const ActionInfo& a : kActions) out += (out.empty() ? "" : ", ") + std::string(a.name);
  return out;
}

std::string JoinNames(std::initializer_list<std::string_view> names) {
  std::string out;
  for (std::string_view n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

// Blank = empty or only whitespace (the reference trims before testing for emptiness).
bool IsBlank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
}

std::string Child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string Index(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

using Fields = std::map<std::string, YAML::Node>;
using Entries = std::vector<std::pair<std::string, YAML::Node>>;

// Reads YAML nodes strictly and builds InvalidArgument errors prefixed with the source name and the
// key path. Remembers where each key path it visited sits in the text, so the validation pass that
// follows can point at it too.
class StrictReader {
 public:
  explicit StrictReader(std::string_view source) : source_(source) {}

  // An error at `path`, with the span recorded for it when there is one.
  Status Fail(const std::string& path, const std::string& problem) const {
    auto it = marks_.find(path);
    return FailAt(it == marks_.end() ? YAML::Mark::null_mark() : it->second, path, problem);
  }

  Status FailAt(const YAML::Mark& mark, const std::string& path, const std::string& problem) const {
    std::string message = source_.empty() ? "" : source_ + ": ";
    if (!path.empty()) message += path + ": ";
    Status status = InvalidArgumentError(message + problem);
    if (mark.is_null()) return status;
    SourceSpan span;
    span.file = source_;
    span.line = static_cast<uint32_t>(mark.line + 1);
    span.column = static_cast<uint32_t>(mark.column + 1);
    return status.WithSpan(span);
  }

  // The single document of `text`; no document at all reads as a null node.
  Result<YAML::Node> Document(std::string_view text) const {
    // yaml-cpp's handling of invalid bytes is its own (a fuzzed input made it loop): refuse them.
    if (size_t bad = FirstInvalidUtf8(text); bad != std::string_view::npos) {
      return Fail("", "is not UTF-8 text (invalid byte at offset " + std::to_string(bad) + ")");
    }
    // One document (yaml-cpp's LoadAll loops on some inputs; common/yaml_text.h).
    if (size_t line = SecondYamlDocumentLine(text); line != 0) {
      return Fail("", "holds more than one YAML document (a second one starts on line " + std::to_string(line) + ")");
    }
    try {
      if (ContentAfterFirstYamlDocument(text))
        return Fail(
            "",
            "has content after the end of its first YAML node (a flow collection closed before the end of the file?)");
      return YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      return FailAt(e.mark, "", "is not valid YAML: " + e.msg);
    }
  }

  // The entries of the mapping at `path`, in document order (a null node is empty). Keys must be
  // strings and must not repeat: yaml-cpp keeps repeated keys, so they are caught here.
  Result<Entries> MapEntries(const YAML::Node& node, const std::string& path) {
    Entries out;
    if (node.IsNull()) return out;
    if (!node.IsMap()) {
      return FailAt(node.Mark(), path, path.empty() ? "the document must be a mapping" : "must be a mapping");
    }
    std::set<std::string> seen;
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) return FailAt(kv.first.Mark(), path, "has a key that is not a string");
      const std::string& key = kv.first.Scalar();
      const std::string key_path = Child(path, key);
      if (!seen.insert(key).second) return FailAt(kv.first.Mark(), key_path, "duplicate key " + Quoted(key));
      Remember(key_path, kv.first.Mark());
      out.emplace_back(key, kv.second);
    }
    return out;
  }

  // The mapping at `path` as a struct: every key must be in `known`; every key in `required` must
  // be present (a present key with a null value counts as present).
  Result<Fields> StructFields(const YAML::Node& node, const std::string& path,
                              std::initializer_list<std::string_view> known,
                              std::initializer_list<std::string_view> required) {
    OG_ASSIGN_OR_RETURN(Entries entries, MapEntries(node, path));
    Fields out;
    for (auto& [key, value] : entries) {
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        return Fail(Child(path, key), "unknown key " + Quoted(key) + " (expected one of " + JoinNames(known) + ")");
      }
      out.emplace(key, value);
    }
    for (std::string_view key : required) {
      if (out.count(std::string(key)) == 0) {
        return FailAt(node.Mark(), path, "missing required key " + Quoted(key));
      }
    }
    return out;
  }

  // The items of the sequence at `path` (a null node is empty); each item's path is remembered.
  Result<std::vector<YAML::Node>> Items(const YAML::Node& node, const std::string& path) {
    std::vector<YAML::Node> out;
    if (node.IsNull()) return out;
    if (!node.IsSequence()) return FailAt(node.Mark(), path, "must be a list");
    for (const auto& item : node) {
      Remember(Index(path, out.size()), item.Mark());
      out.push_back(item);
    }
    return out;
  }

  // Any scalar reads as its text (as the reference's YAML reader does); null reads as "".
  Result<std::string> String(const YAML::Node& node, const std::string& path) const {
    if (node.IsNull()) return std::string();
    if (!node.IsScalar()) return FailAt(node.Mark(), path, "must be a string");
    return node.Scalar();
  }

  Result<std::optional<std::string>> OptionalString(const YAML::Node& node, const std::string& path) const {
    if (node.IsNull()) return std::optional<std::string>();
    OG_ASSIGN_OR_RETURN(std::string s, String(node, path));
    return std::optional<std::string>(std::move(s));
  }

  Result<std::vector<std::string>> StringList(const YAML::Node& node, const std::string& path) {
    OG_ASSIGN_OR_RETURN(std::vector<YAML::Node> items, Items(node, path));
    std::vector<std::string> out;
    for (size_t i = 0; i < items.size(); ++i) {
      OG_ASSIGN_OR_RETURN(std::string s, String(items[i], Index(path, i)));
      out.push_back(std::move(s));
    }
    return out;
  }

  // A non-negative integer written as a plain scalar (a quoted "1" is a string, not a version).
  Result<uint64_t> Unsigned(const YAML::Node& node, const std::string& path) const {
    const std::string text = node.IsScalar() ? node.Scalar() : "";
    std::string_view digits = text;
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    uint64_t value = 0;
    auto r = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    const bool plain = node.Tag() == "?" || node.Tag() == "tag:yaml.org,2002:int";
    if (!node.IsScalar() || !plain || digits.empty() || r.ec != std::errc() || r.ptr != digits.data() + digits.size()) {
      return FailAt(node.Mark(), path,
                    "must be a non-negative integer" + (node.IsScalar() ? ", got " + Quoted(text) : std::string()));
    }
    return value;
  }

  Result<PolicyAction> Action(const YAML::Node& node, const std::string& path) const {
    if (!node.IsScalar()) return FailAt(node.Mark(), path, "must be an action name (one of " + ActionNameList() + ")");
    std::optional<PolicyAction> action = ParsePolicyAction(node.Scalar());
    if (!action) {
      return FailAt(node.Mark(), path,
                    "unknown action " + Quoted(node.Scalar()) + " (expected one of " + ActionNameList() + ")");
    }
    return *action;
  }

  // Absent when null (an explicit `branch_scope: ~` is no scope).
  Result<std::optional<BranchScope>> Scope(const YAML::Node& node, const std::string& path) const {
    if (node.IsNull()) return std::optional<BranchScope>();
    std::optional<BranchScope> scope = node.IsScalar() ? ParseBranchScope(node.Scalar()) : std::nullopt;
    if (!scope) {
      return FailAt(node.Mark(), path,
                    "must be one of any, protected, unprotected" +
                        (node.IsScalar() ? ", got " + Quoted(node.Scalar()) : std::string()));
    }
    return scope;
  }

 private:
  void Remember(const std::string& path, const YAML::Mark& mark) {
    if (!mark.is_null()) marks_.emplace(path, mark);
  }

  std::string source_;
  std::map<std::string, YAML::Mark> marks_;
};

// ---- Policy bundle --------------------------------------------------------------------------

// A bundle as read, before validation.
struct RawBundle {
  uint64_t version = 0;
  std::vector<std::string> protected_branches;  // as written, for validation
  PolicyBundle bundle;
};

Result<PolicyRule> ReadRule(StrictReader& reader, const YAML::Node& node, const std::string& path) {
  PolicyRule rule;
  OG_ASSIGN_OR_RETURN(Fields fields, reader.StructFields(node, path, {"id", "allow"}, {"id", "allow"}));
  OG_ASSIGN_OR_RETURN(rule.id, reader.String(fields["id"], Child(path, "id")));

  const std::string allow_path = Child(path, "allow");
  OG_ASSIGN_OR_RETURN(Fields allow, reader.StructFields(fields["allow"], allow_path,
                                                        {"actors", "actions", "branch_scope", "target_branch_scope"},
                                                        {"actors", "actions"}));
  const std::string actors_path = Child(allow_path, "actors");
  OG_ASSIGN_OR_RETURN(Fields actors, reader.StructFields(allow["actors"], actors_path, {"group"}, {"group"}));
  OG_ASSIGN_OR_RETURN(rule.group, reader.String(actors["group"], Child(actors_path, "group")));

  const std::string actions_path = Child(allow_path, "actions");
  OG_ASSIGN_OR_RETURN(std::vector<YAML::Node> actions, reader.Items(allow["actions"], actions_path));
  for (size_t i = 0; i < actions.size(); ++i) {
    OG_ASSIGN_OR_RETURN(PolicyAction action, reader.Action(actions[i], Index(actions_path, i)));
    rule.actions.push_back(action);
  }
  if (auto it = allow.find("branch_scope"); it != allow.end()) {
    OG_ASSIGN_OR_RETURN(rule.branch_scope, reader.Scope(it->second, Child(allow_path, "branch_scope")));
  }
  if (auto it = allow.find("target_branch_scope"); it != allow.end()) {
    OG_ASSIGN_OR_RETURN(rule.target_branch_scope, reader.Scope(it->second, Child(allow_path, "target_branch_scope")));
  }
  return rule;
}

Result<RawBundle> ReadBundle(StrictReader& reader, const YAML::Node& root) {
  RawBundle raw;
  OG_ASSIGN_OR_RETURN(Fields fields,
                      reader.StructFields(root, "", {"version", "groups", "protected_branches", "rules"}, {"version"}));
  OG_ASSIGN_OR_RETURN(raw.version, reader.Unsigned(fields["version"], "version"));

  if (auto it = fields.find("groups"); it != fields.end()) {
    OG_ASSIGN_OR_RETURN(Entries groups, reader.MapEntries(it->second, "groups"));
    for (auto& [name, members] : groups) {
      OG_ASSIGN_OR_RETURN(raw.bundle.groups[name], reader.StringList(members, Child("groups", name)));
    }
  }
  if (auto it = fields.find("protected_branches"); it != fields.end()) {
    OG_ASSIGN_OR_RETURN(raw.protected_branches, reader.StringList(it->second, "protected_branches"));
    raw.bundle.protected_branches.insert(raw.protected_branches.begin(), raw.protected_branches.end());
  }
  if (auto it = fields.find("rules"); it != fields.end()) {
    OG_ASSIGN_OR_RETURN(std::vector<YAML::Node> rules, reader.Items(it->second, "rules"));
    for (size_t i = 0; i < rules.size(); ++i) {
      OG_ASSIGN_OR_RETURN(PolicyRule rule, ReadRule(reader, rules[i], Index("rules", i)));
      raw.bundle.rules.push_back(std::move(rule));
    }
  }
  return raw;
}

Status ValidateGroups(const StrictReader& reader, const PolicyBundle& bundle) {
  // In name order, as the reference walks its (sorted) group map.
  for (const auto& [name, members] : bundle.groups) {
    const std::string path = Child("groups", name);
    if (IsBlank(name)) return reader.Fail(path, "group name is blank");
    if (members.empty()) return reader.Fail(path, "group " + Quoted(name) + " lists no actors");
    for (size_t i = 0; i < members.size(); ++i) {
      if (IsBlank(members[i])) return reader.Fail(Index(path, i), "actor id is blank");
    }
  }
  return Status::Ok();
}

Status ValidateRuleScopes(const StrictReader& reader, const PolicyRule& rule, const std::string& path) {
  const std::string allow_path = Child(path, "allow");
  if (rule.branch_scope && rule.target_branch_scope) {
    return reader.Fail(allow_path, "rule " + Quoted(rule.id) +
                                       " sets both branch_scope and target_branch_scope; a rule may set at most one");
  }
  for (size_t j = 0; j < rule.actions.size() && rule.branch_scope; ++j) {
    if (!ActionTakesBranchScope(rule.actions[j])) {
      return reader.Fail(Child(allow_path, "branch_scope"),
                         "action " + Quoted(PolicyActionName(rule.actions[j])) + " (actions[" + std::to_string(j) +
                             "]) cannot be limited by branch_scope; only read, export and change take it");
    }
  }
  for (size_t j = 0; j < rule.actions.size() && rule.target_branch_scope; ++j) {
    if (!ActionTakesTargetBranchScope(rule.actions[j])) {
      return reader.Fail(Child(allow_path, "target_branch_scope"),
                         "action " + Quoted(PolicyActionName(rule.actions[j])) + " (actions[" + std::to_string(j) +
                             "]) cannot be limited by target_branch_scope; only schema_apply, branch_create, "
                             "branch_delete and branch_merge take it");
    }
  }
  const bool server = std::any_of(rule.actions.begin(), rule.actions.end(), IsServerAction);
  const bool graph = !std::all_of(rule.actions.begin(), rule.actions.end(), IsServerAction);
  if (server && graph) {
    return reader.Fail(Child(allow_path, "actions"),
                       "rule " + Quoted(rule.id) +
                           " mixes the server action graph_list with per-graph actions; split it into two rules");
  }
  return Status::Ok();
}

// The checks of the reference's validate(), in its order.
Status ValidateBundle(const StrictReader& reader, const RawBundle& raw) {
  if (raw.version != 1) return reader.Fail("version", "must be 1, got " + std::to_string(raw.version));
  OG_RETURN_IF_ERROR(ValidateGroups(reader, raw.bundle));
  for (size_t i = 0; i < raw.protected_branches.size(); ++i) {
    if (IsBlank(raw.protected_branches[i])) return reader.Fail(Index("protected_branches", i), "branch name is blank");
  }

  std::map<std::string, size_t> first_use;
  for (size_t i = 0; i < raw.bundle.rules.size(); ++i) {
    const PolicyRule& rule = raw.bundle.rules[i];
    const std::string path = Index("rules", i);
    const std::string group_path = Child(path, "allow.actors.group");
    if (IsBlank(rule.id)) return reader.Fail(Child(path, "id"), "rule id is blank");
    if (auto [it, fresh] = first_use.emplace(rule.id, i); !fresh) {
      return reader.Fail(Child(path, "id"),
                         "rule id " + Quoted(rule.id) + " is already used by " + Index("rules", it->second));
    }
    if (IsBlank(rule.group)) return reader.Fail(group_path, "group name is blank");
    if (raw.bundle.groups.count(rule.group) == 0) {
      return reader.Fail(group_path, "rule " + Quoted(rule.id) + " names group " + Quoted(rule.group) +
                                         ", which `groups` does not declare");
    }
    if (rule.actions.empty()) {
      return reader.Fail(Child(path, "allow.actions"), "rule " + Quoted(rule.id) + " must list at least one action");
    }
    OG_RETURN_IF_ERROR(ValidateRuleScopes(reader, rule, path));
  }
  return Status::Ok();
}

// Checks the reference makes when it loads a bundle into an engine: the bundle binds one resource
// kind, and no rule lists an action twice.
Status ValidateBundleShape(const StrictReader& reader, const PolicyBundle& bundle) {
  std::optional<size_t> server_rule;
  std::optional<size_t> graph_rule;
  for (size_t i = 0; i < bundle.rules.size(); ++i) {
    const auto& actions = bundle.rules[i].actions;
    if (std::any_of(actions.begin(), actions.end(), IsServerAction)) {
      if (!server_rule) server_rule = i;
    } else if (!graph_rule) {
      graph_rule = i;
    }
  }
  if (server_rule && graph_rule) {
    const size_t later = std::max(*server_rule, *graph_rule);
    return reader.Fail(Child(Index("rules", later), "allow.actions"),
                       "mixed binding kinds: " + Index("rules", *server_rule) +
                           " grants the server action graph_list and " + Index("rules", *graph_rule) +
                           " grants per-graph actions; a bundle binds either `cluster` or graphs, so split it into "
                           "two bundles");
  }
  for (size_t i = 0; i < bundle.rules.size(); ++i) {
    const auto& actions = bundle.rules[i].actions;
    for (size_t j = 0; j < actions.size(); ++j) {
      if (std::find(actions.begin(), actions.begin() + static_cast<std::ptrdiff_t>(j), actions[j]) !=
          actions.begin() + static_cast<std::ptrdiff_t>(j)) {
        return reader.Fail(Index(Child(Index("rules", i), "allow.actions"), j),
                           "action " + Quoted(PolicyActionName(actions[j])) + " is listed twice");
      }
    }
  }
  return Status::Ok();
}

// ---- Decisions ------------------------------------------------------------------------------

bool ScopeHolds(const std::optional<BranchScope>& scope, const std::optional<std::string>& branch,
                const std::set<std::string>& protected_branches) {
  if (!scope) return true;
  switch (*scope) {
    case BranchScope::kAny: return true;
    case BranchScope::kProtected: return branch.has_value() && protected_branches.count(*branch) > 0;
    case BranchScope::kUnprotected: return branch.has_value() && protected_branches.count(*branch) == 0;
  }
  return false;
}

bool InGroup(const PolicyBundle& bundle, const std::string& group, const std::string& actor) {
  auto it = bundle.groups.find(group);
  return it != bundle.groups.end() && std::find(it->second.begin(), it->second.end(), actor) != it->second.end();
}

bool KnownActor(const PolicyBundle& bundle, const std::string& actor) {
  return std::any_of(bundle.groups.begin(), bundle.groups.end(), [&](const auto& g) {
    return std::find(g.second.begin(), g.second.end(), actor) != g.second.end();
  });
}

// "'read'", "'read' on 'feature'", "'branch_merge' from 'feature' into 'main'", ...
std::string Describe(const PolicyRequest& request) {
  std::string out = Quoted(PolicyActionName(request.action));
  if (request.branch) out += (request.target_branch ? " from " : " on ") + Quoted(*request.branch);
  if (request.target_branch) out += " into " + Quoted(*request.target_branch);
  return out;
}

}  // namespace

std::string_view PolicyActionName(PolicyAction action) {
  for (const ActionInfo& a : kActions) {
    if (a.action == action) return a.name;
  }
  return "unknown";
}

std::optional<PolicyAction> ParsePolicyAction(std::string_view name) {
  for (const ActionInfo& a : kActions) {
    if (a.name == name) return a.action;
  }
  return std::nullopt;
}

const std::vector<PolicyAction>& AllPolicyActions() {
  static const std::vector<PolicyAction> kAll = [] {
    std::vector<PolicyAction> all;
    for (const ActionInfo& a : kActions) all.push_back(a.action);
    return all;
  }();
  return kAll;
}

bool ActionTakesBranchScope(PolicyAction action) {
  return action == PolicyAction::kRead || action == PolicyAction::kExport || action == PolicyAction::kChange;
}

bool ActionTakesTargetBranchScope(PolicyAction action) {
  return action == PolicyAction::kSchemaApply || action == PolicyAction::kBranchCreate ||
         action == PolicyAction::kBranchDelete || action == PolicyAction::kBranchMerge;
}

bool IsServerAction(PolicyAction action) { return action == PolicyAction::kGraphList; }

std::string_view BranchScopeName(BranchScope scope) {
  for (const ScopeInfo& s : kScopes) {
    if (s.scope == scope) return s.name;
  }
  return "unknown";
}

std::optional<BranchScope> ParseBranchScope(std::string_view name) {
  for (const ScopeInfo& s : kScopes) {
    if (s.name == name) return s.scope;
  }
  return std::nullopt;
}

bool PolicyBundle::server_bundle() const {
  return std::any_of(rules.begin(), rules.end(), [](const PolicyRule& r) {
    return std::any_of(r.actions.begin(), r.actions.end(), IsServerAction);
  });
}

size_t PolicyBundle::actor_count() const {
  std::set<std::string> actors;
  for (const auto& group : groups) actors.insert(group.second.begin(), group.second.end());
  return actors.size();
}

Result<PolicyBundle> ParsePolicyBundle(std::string_view yaml_text, std::string_view source_name) {
  StrictReader reader(source_name);
  OG_ASSIGN_OR_RETURN(YAML::Node root, reader.Document(yaml_text));
  try {
    OG_ASSIGN_OR_RETURN(RawBundle raw, ReadBundle(reader, root));
    OG_RETURN_IF_ERROR(ValidateBundle(reader, raw));
    OG_RETURN_IF_ERROR(ValidateBundleShape(reader, raw.bundle));
    return std::move(raw.bundle);
  } catch (const YAML::Exception& e) {  // defensive: node access is not expected to throw
    return reader.FailAt(e.mark, "", "could not be read: " + e.msg);
  }
}

PolicyDecision Decide(const PolicyBundle& bundle, const PolicyRequest& request) {
  PolicyDecision decision;
  if (!KnownActor(bundle, request.actor)) {
    decision.message = "denied: actor " + Quoted(request.actor) +
                       " belongs to no policy group, so it may not perform " + Describe(request);
    return decision;
  }
  for (const PolicyRule& rule : bundle.rules) {
    if (std::find(rule.actions.begin(), rule.actions.end(), request.action) == rule.actions.end()) continue;
    if (!InGroup(bundle, rule.group, request.actor)) continue;
    if (!ScopeHolds(rule.branch_scope, request.branch, bundle.protected_branches)) continue;
    if (!ScopeHolds(rule.target_branch_scope, request.target_branch, bundle.protected_branches)) continue;
    // Several rules may grant the request; report the smallest id so the answer is stable.
    if (!decision.matched_rule_id || rule.id < *decision.matched_rule_id) decision.matched_rule_id = rule.id;
  }
  decision.allowed = decision.matched_rule_id.has_value();
  decision.message = decision.allowed
                         ? "allowed: actor " + Quoted(request.actor) + " may perform " + Describe(request) +
                               " under rule " + Quoted(*decision.matched_rule_id)
                         : "denied: no rule lets actor " + Quoted(request.actor) + " perform " + Describe(request);
  return decision;
}

Result<std::vector<PolicyTestCase>> ParsePolicyTests(std::string_view yaml_text, std::string_view source_name) {
  StrictReader reader(source_name);
  OG_ASSIGN_OR_RETURN(YAML::Node root, reader.Document(yaml_text));
  std::vector<PolicyTestCase> cases;
  try {
    OG_ASSIGN_OR_RETURN(Fields fields, reader.StructFields(root, "", {"version", "cases"}, {"version"}));
    OG_ASSIGN_OR_RETURN(uint64_t version, reader.Unsigned(fields["version"], "version"));
    std::vector<YAML::Node> items;
    if (auto it = fields.find("cases"); it != fields.end()) {
      OG_ASSIGN_OR_RETURN(items, reader.Items(it->second, "cases"));
    }
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string path = Index("cases", i);
      OG_ASSIGN_OR_RETURN(
          Fields f, reader.StructFields(items[i], path, {"id", "actor", "action", "branch", "target_branch", "expect"},
                                        {"id", "actor", "action", "expect"}));
      PolicyTestCase c;
      OG_ASSIGN_OR_RETURN(c.id, reader.String(f["id"], Child(path, "id")));
      OG_ASSIGN_OR_RETURN(c.request.actor, reader.String(f["actor"], Child(path, "actor")));
      OG_ASSIGN_OR_RETURN(c.request.action, reader.Action(f["action"], Child(path, "action")));
      if (auto it = f.find("branch"); it != f.end()) {
        OG_ASSIGN_OR_RETURN(c.request.branch, reader.OptionalString(it->second, Child(path, "branch")));
      }
      if (auto it = f.find("target_branch"); it != f.end()) {
        OG_ASSIGN_OR_RETURN(c.request.target_branch, reader.OptionalString(it->second, Child(path, "target_branch")));
      }
      const YAML::Node& expect = f["expect"];
      const std::string expect_text = expect.IsScalar() ? expect.Scalar() : "";
      if (expect_text != "allow" && expect_text != "deny") {
        return reader.FailAt(expect.Mark(), Child(path, "expect"),
                             "must be allow or deny" + (expect.IsScalar() ? ", got " + Quoted(expect_text) : ""));
      }
      c.expect_allow = expect_text == "allow";
      cases.push_back(std::move(c));
    }
    if (version != 1) return reader.Fail("version", "must be 1, got " + std::to_string(version));
  } catch (const YAML::Exception& e) {  // defensive: node access is not expected to throw
    return reader.FailAt(e.mark, "", "could not be read: " + e.msg);
  }

  std::map<std::string, size_t> first_use;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string path = Index("cases", i);
    if (IsBlank(cases[i].id)) return reader.Fail(Child(path, "id"), "case id is blank");
    if (auto [it, fresh] = first_use.emplace(cases[i].id, i); !fresh) {
      return reader.Fail(Child(path, "id"),
                         "case id " + Quoted(cases[i].id) + " is already used by " + Index("cases", it->second));
    }
    if (IsBlank(cases[i].request.actor)) return reader.Fail(Child(path, "actor"), "actor is blank");
  }
  return cases;
}

std::vector<PolicyTestResult> RunPolicyTests(const PolicyBundle& bundle, const std::vector<PolicyTestCase>& cases) {
  std::vector<PolicyTestResult> results;
  results.reserve(cases.size());
  for (const PolicyTestCase& c : cases) {
    PolicyTestResult r;
    r.id = c.id;
    r.decision = Decide(bundle, c.request);
    r.expected_allow = c.expect_allow;
    r.passed = r.decision.allowed == c.expect_allow;
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace omnigraph::policy
