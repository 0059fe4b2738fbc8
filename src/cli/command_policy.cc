// `omnigraph policy validate|test --tests F|explain --actor A --action X [--branch B]
// [--target-branch T]` and `omnigraph queries validate|list [--json]`: tooling over what a cluster
// has applied (--cluster DIR|URI, with --graph ID to pick a graph), read from its serving snapshot.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "cluster/serving.h"
#include "cluster/stored_queries.h"
#include "common/error_codes.h"
#include "policy/policy.h"

namespace omnigraph::cli {
namespace {

struct PolicyFlags {
  std::string tests;
  std::string actor;
  std::string action;
  std::string branch;
  std::string target_branch;
  bool json = false;
};

Result<cluster::ServingSnapshot> Snapshot() {
  OG_ASSIGN_OR_RETURN(std::string root, ClusterRoot());
  return cluster::ReadServingSnapshot(root);
}

Result<policy::PolicyBundle> SelectedBundle(std::string* name, bool server_action = false) {
  OG_ASSIGN_OR_RETURN(cluster::ServingSnapshot snap, Snapshot());
  OG_ASSIGN_OR_RETURN(const cluster::ServingPolicy* p, cluster::SelectPolicy(snap, Globals().graph, server_action));
  *name = p->name;
  return policy::ParsePolicyBundle(p->source, "policy." + p->name);
}

int PolicyValidate() {
  std::string name;
  auto bundle = SelectedBundle(&name);
  if (!bundle.ok()) return ReportError(bundle.status(), false);
  std::printf("policy valid: bundle '%s' [%zu actors]\n", name.c_str(), bundle->actor_count());
  return kExitOk;
}

int PolicyTest(const PolicyFlags& f) {
  std::string name;
  auto bundle = SelectedBundle(&name);
  if (!bundle.ok()) return ReportError(bundle.status(), false);
  auto text = ReadFile(f.tests, "policy tests file");
  if (!text.ok()) return ReportError(text.status(), false);
  auto cases = policy::ParsePolicyTests(*text, f.tests);
  if (!cases.ok()) return ReportError(cases.status(), false);
  std::string failures;
  for (const auto& r : policy::RunPolicyTests(*bundle, *cases)) {
    if (r.passed) continue;
    failures += "\n" + r.id + ": expected " + (r.expected_allow ? "allow" : "deny") + " but got " +
                (r.decision.allowed ? "allow" : "deny");
  }
  if (!failures.empty()) {
    return ReportError(Status(ErrorCode::kPolicyTestFailed, "policy tests failed:" + failures), false);
  }
  std::printf("policy tests passed: %zu cases\n", cases->size());
  return kExitOk;
}

int PolicyExplain(const PolicyFlags& f) {
  auto action = policy::ParsePolicyAction(f.action);
  if (!action) return ReportError(UsageError("--action: unknown policy action '" + f.action + "'"), false);
  std::string name;
  auto bundle = SelectedBundle(&name, policy::IsServerAction(*action));
  if (!bundle.ok()) return ReportError(bundle.status(), false);
  policy::PolicyRequest request;
  request.actor = f.actor;
  request.action = *action;
  if (!f.branch.empty()) request.branch = f.branch;
  if (!f.target_branch.empty()) request.target_branch = f.target_branch;
  const policy::PolicyDecision d = policy::Decide(*bundle, request);
  std::printf("decision: %s\n", d.allowed ? "allow" : "deny");
  std::printf("actor: %s\n", f.actor.c_str());
  std::printf("action: %s\n", f.action.c_str());
  if (request.branch) std::printf("branch: %s\n", request.branch->c_str());
  if (request.target_branch) std::printf("target_branch: %s\n", request.target_branch->c_str());
  if (d.matched_rule_id) std::printf("matched_rule: %s\n", d.matched_rule_id->c_str());
  std::printf("message: %s\n", d.message.c_str());
  return kExitOk;
}

int QueriesValidate(bool json) {
  auto snap = Snapshot();
  if (!snap.ok()) return ReportError(snap.status(), json);
  auto report = cluster::ValidateStoredQueries(*snap, Globals().graph);
  if (!report.ok()) return ReportError(report.status(), json);
  if (json) {
    OrderedJson j = OrderedJson::object();
    j["ok"] = report->breakages.empty();
    auto issues = [](const std::vector<cluster::QueryIssue>& v) {
      OrderedJson a = OrderedJson::array();
      for (const auto& i : v) a.push_back({{"query", i.query}, {"message", i.message}});
      return a;
    };
    j["breakages"] = issues(report->breakages);
    j["warnings"] = issues(report->warnings);
    PrintJson(j);
  } else {
    if (report->breakages.empty()) {
      std::printf("OK  %zu stored quer%s type-check against the schema\n", report->total,
                  report->total == 1 ? "y" : "ies");
    }
    for (const auto& i : report->breakages) std::printf("ERROR  query '%s': %s\n", i.query.c_str(), i.message.c_str());
    for (const auto& i : report->warnings) std::printf("WARN   query '%s': %s\n", i.query.c_str(), i.message.c_str());
  }
  std::fflush(stdout);
  return report->breakages.empty() ? kExitOk : kExitError;
}

void PrintAnnotation(const char* label, const std::string& value) {
  const std::string prefix = std::string("    ") + label + ": ";
  size_t start = 0;
  bool first = true;
  while (true) {
    const size_t nl = value.find('\n', start);
    const std::string line = value.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    std::printf("%s%s\n", first ? prefix.c_str() : std::string(prefix.size(), ' ').c_str(), line.c_str());
    first = false;
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
}

int QueriesList(bool json) {
  auto snap = Snapshot();
  if (!snap.ok()) return ReportError(snap.status(), json);
  auto list = cluster::ListStoredQueries(*snap, Globals().graph);
  if (!list.ok()) return ReportError(list.status(), json);
  if (json) {
    PrintJson(*list);
    return kExitOk;
  }
  const OrderedJson& queries = (*list)["queries"];
  if (queries.empty()) std::printf("(no stored queries registered)\n");
  for (const auto& q : queries) {
    std::string params;
    for (const auto& p : q["params"]) {
      params += (params.empty() ? "$" : ", $") + p["name"].get<std::string>() + ": " + p["type"].get<std::string>() +
                (p["nullable"].get<bool>() ? "?" : "");
    }
    std::printf("%s  %s(%s)\n", q["mutation"].get<bool>() ? "mutation" : "read", q["name"].get<std::string>().c_str(),
                params.c_str());
    if (q.contains("description")) PrintAnnotation("description", q["description"].get<std::string>());
    if (q.contains("instruction")) PrintAnnotation("instruction", q["instruction"].get<std::string>());
  }
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace

void AddPolicyCommands(CLI::App& app, CommandAction* run) {
  auto f = std::make_shared<PolicyFlags>();
  auto* policy = app.add_subcommand("policy", "Policy tooling over a cluster's applied bundles (--cluster, --graph)");
  policy->require_subcommand(1);
  policy->add_subcommand("validate", "Check the applied bundle and count its actors")->callback([run] {
    *run = [] { return PolicyValidate(); };
  });
  auto* test = policy->add_subcommand("test", "Run policy test cases against the applied bundle");
  test->add_option("--tests", f->tests, "A policy tests file (version: 1, cases: [...])")->required();
  test->callback([run, f] { *run = [f] { return PolicyTest(*f); }; });
  auto* explain = policy->add_subcommand("explain", "Decide one request and name the rule that allowed it");
  explain->add_option("--actor", f->actor, "The actor")->required();
  explain->add_option("--action", f->action, "read, export, change, schema_apply, branch_create, ...")->required();
  explain->add_option("--branch", f->branch, "The branch acted on");
  explain->add_option("--target-branch", f->target_branch, "The branch the operation lands on");
  explain->callback([run, f] { *run = [f] { return PolicyExplain(*f); }; });

  auto* queries = app.add_subcommand("queries", "The stored queries a cluster has applied (--cluster, --graph)");
  queries->require_subcommand(1);
  auto* validate = queries->add_subcommand("validate", "Type-check every stored query against its graph's schema");
  validate->add_flag("--json", f->json, "Print JSON");
  validate->callback([run, f] { *run = [f] { return QueriesValidate(f->json); }; });
  auto* list = queries->add_subcommand("list", "List the stored queries: name, kind, parameters");
  list->add_flag("--json", f->json, "Print JSON");
  list->callback([run, f] { *run = [f] { return QueriesList(f->json); }; });
}

}  // namespace omnigraph::cli
