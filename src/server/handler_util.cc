#include "server/handler_util.h"

#include "common/api_json.h"
#include "common/error_codes.h"

namespace omnigraph::server {

namespace {
const Json* Field(const Json& body, std::string_view field, std::string_view alias, std::string* name) {
  auto it = body.find(std::string(field));
  if (it != body.end()) {
    *name = std::string(field);
    return &*it;
  }
  if (!alias.empty()) {
    it = body.find(std::string(alias));
    if (it != body.end()) {
      *name = std::string(alias);
      return &*it;
    }
  }
  return nullptr;
}
}  // namespace

Result<std::optional<std::string>> OptionalString(const Json& body, std::string_view field, std::string_view alias) {
  if (!alias.empty() && body.contains(std::string(field)) && body.contains(std::string(alias))) {
    return InvalidArgumentError("give `" + std::string(field) + "` or its alias `" + std::string(alias) +
                                "`, not both");
  }
  std::string name;
  const Json* v = Field(body, field, alias, &name);
  if (v == nullptr || v->is_null()) return std::optional<std::string>();
  if (!v->is_string()) return InvalidArgumentError("`" + name + "` must be a string");
  return std::optional<std::string>(v->get<std::string>());
}

Result<std::string> RequiredString(const Json& body, std::string_view field, std::string_view alias) {
  OG_ASSIGN_OR_RETURN(auto v, OptionalString(body, field, alias));
  if (!v) return InvalidArgumentError("missing field `" + std::string(field) + "`");
  return *v;
}

Result<bool> OptionalBool(const Json& body, std::string_view field, bool default_value) {
  auto it = body.find(std::string(field));
  if (it == body.end() || it->is_null()) return default_value;
  if (!it->is_boolean()) return InvalidArgumentError("`" + std::string(field) + "` must be true or false");
  return it->get<bool>();
}

Result<std::string> ParamsText(const Json& body) {
  auto it = body.find("params");
  if (it == body.end() || it->is_null()) return std::string();
  if (!it->is_object()) return InvalidArgumentError("`params` must be a JSON object of parameter values");
  return it->dump();
}

Status CheckBranchXorSnapshot(const std::optional<std::string>& branch, const std::optional<std::string>& snapshot) {
  if (branch && snapshot) return InvalidArgumentError("request may specify branch or snapshot, not both");
  return Status::Ok();
}

ReadTarget ReadTargetOf(const std::optional<std::string>& branch, const std::optional<std::string>& snapshot) {
  if (snapshot) return ReadTarget::Any(*snapshot);
  return ReadTarget::Head(branch.value_or("main"));
}

Result<std::string> ExpectedHead(const HttpRequest& req) {
  constexpr std::string_view kName = "Omnigraph-If-Graph-Commit";
  const size_t n = req.HeaderCount(kName);
  if (n == 0) return InvalidArgumentError("Omnigraph-If-Graph-Commit is required on this conditional mutation route");
  if (n > 1) return InvalidArgumentError("Omnigraph-If-Graph-Commit must be sent exactly once");
  std::string v = *req.Header(kName);
  for (char c : v) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) {
      return InvalidArgumentError("Omnigraph-If-Graph-Commit is not valid UTF-8");
    }
  }
  while (!v.empty() && v.front() == ' ') v.erase(v.begin());
  while (!v.empty() && v.back() == ' ') v.pop_back();
  if (v.empty()) return InvalidArgumentError("Omnigraph-If-Graph-Commit must name a graph commit id");
  if (v == "*" || v.starts_with("W/") || v.front() == '"' || v.back() == '"' || v.find(',') != std::string::npos) {
    return InvalidArgumentError(
        "Omnigraph-If-Graph-Commit must contain one raw graph commit id, not entity-tag syntax");
  }
  return v;
}

Status RejectExpectedHead(const HttpRequest& req, std::string_view conditional_route) {
  if (req.HeaderCount("Omnigraph-If-Graph-Commit") == 0) return Status::Ok();
  return InvalidArgumentError("Omnigraph-If-Graph-Commit requires the fail-closed conditional route " +
                              std::string(conditional_route));
}

Result<std::string> SnapshotBranch(Database& db, const ReadTarget& at) {
  OG_ASSIGN_OR_RETURN(SnapshotInfo snap, db.Snapshot(at));
  if (!snap.branch.empty()) return snap.branch;
  OG_ASSIGN_OR_RETURN(CommitInfo commit, db.GetCommit(snap.commit_id));
  return commit.branch.empty() ? std::string("main") : commit.branch;
}

Result<HttpResponse> RunRead(RouteContext& ctx, const ReadCall& call) {
  OG_RETURN_IF_ERROR(CheckBranchXorSnapshot(call.branch, call.snapshot));
  const ReadTarget at = ReadTargetOf(call.branch, call.snapshot);
  std::optional<std::string> policy_branch = call.branch.value_or("main");
  if (call.snapshot) {
    policy_branch.reset();
    if (ctx.graph().policy && ctx.actor()) {  // a snapshot is read under its branch's rules
      OG_ASSIGN_OR_RETURN(policy_branch, SnapshotBranch(ctx.db(), at));
    }
  }
  OG_RETURN_IF_ERROR(ctx.Authorize(policy::PolicyAction::kRead, policy_branch));
  OG_ASSIGN_OR_RETURN(PreparedQuery q, ctx.db().Prepare(call.source, call.name, at));
  if (call.reject_mutation && q.is_mutation()) {
    return InvalidArgumentError("query '" + q.name() +
                                "' contains mutations (insert/update/delete); use POST /mutate for write queries");
  }
  OG_ASSIGN_OR_RETURN(QueryRows rows, ctx.db().Query(call.source, call.params, at, q.name()));
  ReadTargetText target{call.branch.value_or("main"), call.snapshot.value_or("")};
  return JsonResponse(ReadOutputJson(rows, target, call.with_commit));
}

Result<HttpResponse> RunMutation(RouteContext& ctx, const MutationCall& call) {
  OG_RETURN_IF_ERROR(ctx.Authorize(policy::PolicyAction::kChange, call.branch));
  OG_RETURN_IF_ERROR(ctx.Admit(call.source.size() + call.params.size()));
  std::optional<ScopedActor> as;
  if (ctx.actor()) as.emplace(*ctx.actor());
  OG_ASSIGN_OR_RETURN(MutationSummary r,
                      ctx.db().Mutate(call.source, call.params, call.branch, call.name, call.if_commit));
  ctx.committed = r.committed;
  return JsonResponse(ChangeOutputJson(call.branch, r, ctx.actor()));
}

}  // namespace omnigraph::server
