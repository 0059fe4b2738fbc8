// The write routes: mutate (plain, conditional, deprecated), schema apply, loads, branches.
#include <algorithm>

#include "common/api_json.h"
#include "common/error_codes.h"
#include "common/output_json.h"
#include "server/handler_util.h"
#include "server/state.h"

namespace omnigraph::server {

using policy::PolicyAction;

namespace {

Result<MutationCall> MutationBody(RouteContext& ctx) {
  OG_ASSIGN_OR_RETURN(Json body, ctx.JsonBody());
  MutationCall call;
  OG_ASSIGN_OR_RETURN(call.source, RequiredString(body, "query", "query_source"));
  OG_ASSIGN_OR_RETURN(call.name, OptionalString(body, "name", "query_name"));
  OG_ASSIGN_OR_RETURN(call.params, ParamsText(body));
  OG_ASSIGN_OR_RETURN(auto branch, OptionalString(body, "branch"));
  call.branch = branch.value_or("main");
  return call;
}

constexpr uint64_t kSmallWriteBytes = 256;  // what a branch operation is admitted as

}  // namespace

Result<HttpResponse> HandleMutate(RouteContext& ctx) {
  OG_ASSIGN_OR_RETURN(MutationCall call, MutationBody(ctx));
  OG_RETURN_IF_ERROR(RejectExpectedHead(ctx.request(), "/mutate/if-graph-commit"));
  return RunMutation(ctx, call);
}

Result<HttpResponse> HandleLegacyChange(RouteContext& ctx) { return HandleMutate(ctx); }

Result<HttpResponse> HandleMutateIfGraphCommit(RouteContext& ctx) {
  OG_ASSIGN_OR_RETURN(MutationCall call, MutationBody(ctx));
  OG_ASSIGN_OR_RETURN(call.if_commit, ExpectedHead(ctx.request()));
  return RunMutation(ctx, call);
}

Result<HttpResponse> HandleApplySchema(RouteContext& ctx) {
  OG_ASSIGN_OR_RETURN(Json body, ctx.JsonBody());
  OG_ASSIGN_OR_RETURN(std::string source, RequiredString(body, "schema_source"));
  OG_ASSIGN_OR_RETURN(bool allow_data_loss, OptionalBool(body, "allow_data_loss", false));
  OG_RETURN_IF_ERROR(ctx.Authorize(PolicyAction::kSchemaApply, std::nullopt, "main"));
  if (ctx.state().registry.cluster_served) {
    return ConflictError(
        "server-side schema apply is disabled for cluster-backed serving; update the cluster config, run "
        "`omnigraph cluster apply`, and restart the server.");
  }
  OG_RETURN_IF_ERROR(ctx.Admit(source.size()));
  std::optional<ScopedActor> as;
  if (ctx.actor()) as.emplace(*ctx.actor());
  OG_ASSIGN_OR_RETURN(Database::SchemaApplyResult r, ctx.db().ApplySchema(source, allow_data_loss, "main"));
  ctx.committed = r.applied;
  return JsonResponse(SchemaApplyOutputJson(ctx.db().uri(), r));
}

namespace {

struct LoadCall {
  std::string data;
  std::string branch = "main";
  std::optional<std::string> from;
  std::string mode = "merge";
  bool with_uri = true;
};

Result<HttpResponse> RunLoad(RouteContext& ctx, const LoadCall& call) {
  OG_ASSIGN_OR_RETURN(LoadMode mode, ParseLoadMode(call.mode));
  // A missing branch is created from `from` in the load's own commit (branch_create); without
  // `from` it is an error, not an implicit create.
  OG_ASSIGN_OR_RETURN(std::vector<std::string> branches, ctx.db().Branches());
  const bool exists = std::find(branches.begin(), branches.end(), call.branch) != branches.end();
  if (!exists) {
    if (!call.from) return NotFoundError("branch '" + call.branch + "' not found; pass `from` to create it");
    OG_RETURN_IF_ERROR(ctx.Authorize(PolicyAction::kBranchCreate, *call.from, call.branch));
  }
  OG_RETURN_IF_ERROR(ctx.Authorize(PolicyAction::kChange, call.branch));
  OG_RETURN_IF_ERROR(ctx.Admit(call.data.size()));
  LoadOptions options;
  options.mode = mode;
  options.branch = call.branch;
  if (call.from) options.create_branch_from = *call.from;
  std::optional<ScopedActor> as;
  if (ctx.actor()) as.emplace(*ctx.actor());
  OG_ASSIGN_OR_RETURN(LoadSummary r, ctx.db().Load(call.data, options));
  ctx.committed = r.committed;
  std::optional<CommitInfo> commit;
  if (r.committed) {
    OG_ASSIGN_OR_RETURN(commit, ctx.db().GetCommit(r.commit_id));
    commit->version = r.version;
  }
  LoadRequestText text{call.with_uri ? ctx.db().uri() : "", call.branch,     call.from.value_or(""),
                       std::string(LoadModeName(mode)),     /*ingest=*/true, ctx.actor()};
  return JsonResponse(LoadOutputJson(text, r, commit));
}

Result<LoadCall> LoadBody(RouteContext& ctx) {
  OG_ASSIGN_OR_RETURN(Json body, ctx.JsonBody());
  LoadCall call;
  OG_ASSIGN_OR_RETURN(call.data, RequiredString(body, "data"));
  OG_ASSIGN_OR_RETURN(auto branch, OptionalString(body, "branch"));
  call.branch = branch.value_or("main");
  OG_ASSIGN_OR_RETURN(call.from, OptionalString(body, "from"));
  OG_ASSIGN_OR_RETURN(auto mode, OptionalString(body, "mode"));
  call.mode = mode.value_or("merge");
  return call;
}

}  // namespace

Result<HttpResponse> HandleLoad(RouteContext& ctx) {
  OG_ASSIGN_OR_RETURN(LoadCall call, LoadBody(ctx));
  return RunLoad(ctx, call);
}

Result<HttpResponse> HandleIngest(RouteContext& ctx) {
  OG_ASSIGN_OR_RETURN(LoadCall call, LoadBody(ctx));
  return RunLoad(ctx, call);
}

Result<HttpResponse> HandleLoadNdjson(RouteContext& ctx) {
  LoadCall call;
  const HttpRequest& req = ctx.request();
  call.branch = req.Query("branch").value_or("main");
  call.from = req.Query("from");
  call.mode = req.Query("mode").value_or("merge");
  call.with_uri = false;
  call.data = req.body;
  return RunLoad(ctx, call);
}

Result<HttpResponse> HandleCreateBranch(RouteContext& ctx) {
  OG_ASSIGN_OR_RETURN(Json body, ctx.JsonBody());
  OG_ASSIGN_OR_RETURN(std::string name, RequiredString(body, "name"));
  OG_ASSIGN_OR_RETURN(auto from_opt, OptionalString(body, "from"));
  const std::string from = from_opt.value_or("main");
  OG_RETURN_IF_ERROR(ctx.Authorize(PolicyAction::kBranchCreate, from, name));
  OG_RETURN_IF_ERROR(ctx.Admit(kSmallWriteBytes));
  std::optional<ScopedActor> as;
  if (ctx.actor()) as.emplace(*ctx.actor());
  OG_ASSIGN_OR_RETURN(BranchInfo b, ctx.db().CreateBranch(name, from));
  OrderedJson j = OrderedJson::object();
  j["uri"] = ctx.db().uri();
  j["from"] = from;
  j["name"] = name;
  j["actor_id"] = ctx.actor() ? OrderedJson(*ctx.actor()) : OrderedJson(nullptr);
  j["commit"] = b.commit_id;
  return JsonResponse(j);
}

Result<HttpResponse> HandleDeleteBranch(RouteContext& ctx) {
  const std::string name = ctx.request().params.at("branch");
  OG_RETURN_IF_ERROR(ctx.Authorize(PolicyAction::kBranchDelete, std::nullopt, name));
  OG_RETURN_IF_ERROR(ctx.Admit(kSmallWriteBytes));
  std::optional<ScopedActor> as;
  if (ctx.actor()) as.emplace(*ctx.actor());
  OG_RETURN_IF_ERROR(ctx.db().DeleteBranch(name).status());
  OrderedJson j = OrderedJson::object();
  j["uri"] = ctx.db().uri();
  j["name"] = name;
  j["actor_id"] = ctx.actor() ? OrderedJson(*ctx.actor()) : OrderedJson(nullptr);
  return JsonResponse(j);
}

Result<HttpResponse> HandleMergeBranches(RouteContext& ctx) {
  OG_ASSIGN_OR_RETURN(Json body, ctx.JsonBody());
  OG_ASSIGN_OR_RETURN(std::string source, RequiredString(body, "source"));
  OG_ASSIGN_OR_RETURN(auto target_opt, OptionalString(body, "target"));
  OG_ASSIGN_OR_RETURN(bool delete_branch, OptionalBool(body, "delete_branch", false));
  MergeOptions options;
  options.target = target_opt.value_or("main");
  OG_RETURN_IF_ERROR(ctx.Authorize(PolicyAction::kBranchMerge, source, options.target));
  // Deleting the source is a branch_delete of its own: refused, the merge still happens and the
  // answer says why the branch stayed.
  std::optional<std::string> delete_refused;
  if (delete_branch) {
    Status may_delete = ctx.Authorize(PolicyAction::kBranchDelete, std::nullopt, source);
    if (may_delete.ok())
      options.delete_source = true;
    else
      delete_refused = may_delete.message();
  }
  OG_RETURN_IF_ERROR(ctx.Admit(kSmallWriteBytes));
  std::optional<ScopedActor> as;
  if (ctx.actor()) as.emplace(*ctx.actor());
  OG_ASSIGN_OR_RETURN(MergeResult r, ctx.db().Merge(source, options));
  if (r.outcome == MergeOutcome::kConflicts) return MergeConflictStatus(source, options.target, r.conflicts);
  ctx.committed = r.outcome != MergeOutcome::kAlreadyUpToDate;
  OrderedJson j = OrderedJson::object();
  j["source"] = source;
  j["target"] = options.target;
  j["outcome"] = std::string(MergeOutcomeName(r.outcome));
  j["actor_id"] = ctx.actor() ? OrderedJson(*ctx.actor()) : OrderedJson(nullptr);
  if (delete_branch) {
    j["branch_deleted"] = r.branch_deleted;
    if (delete_refused)
      j["branch_delete_error"] = *delete_refused;
    else if (r.branch_delete_error)
      j["branch_delete_error"] = *r.branch_delete_error;
  }
  j["commit"] = r.commit_id;
  j["version"] = r.version;
  return JsonResponse(j);
}

}  // namespace omnigraph::server
