// The read routes: snapshot, query, read (deprecated), schema, branches, commits, export.
#include "common/api_json.h"
#include "common/error_codes.h"
#include "common/output_json.h"
#include "server/handler_util.h"

namespace omnigraph::server {

using policy::PolicyAction;

Result<HttpResponse> HandleSnapshot(RouteContext& ctx) {
  const std::string branch = ctx.request().Query("branch").value_or("main");
  OG_RETURN_IF_ERROR(ctx.Authorize(PolicyAction::kRead, branch));
  OG_ASSIGN_OR_RETURN(SnapshotInfo snap, ctx.db().Snapshot(ReadTarget::Head(branch)));
  return JsonResponse(SnapshotOutputJson(branch, snap));
}

namespace {

// A read request's body: the source under `query_field`, the name under `name_field`.
Result<ReadCall> ReadBody(RouteContext& ctx, std::string_view query_field, std::string_view name_field) {
  OG_ASSIGN_OR_RETURN(Json body, ctx.JsonBody());
  ReadCall call;
  OG_ASSIGN_OR_RETURN(call.source, RequiredString(body, query_field));
  OG_ASSIGN_OR_RETURN(call.name, OptionalString(body, name_field));
  OG_ASSIGN_OR_RETURN(call.params, ParamsText(body));
  OG_ASSIGN_OR_RETURN(call.branch, OptionalString(body, "branch"));
  OG_ASSIGN_OR_RETURN(call.snapshot, OptionalString(body, "snapshot"));
  return call;
}

}  // namespace

Result<HttpResponse> HandleQuery(RouteContext& ctx) {
  OG_ASSIGN_OR_RETURN(ReadCall call, ReadBody(ctx, "query", "name"));
  return RunRead(ctx, call);
}

// The deprecated /read: the old field names, mutations not refused here, no graph_commit_id.
Result<HttpResponse> HandleLegacyRead(RouteContext& ctx) {
  OG_ASSIGN_OR_RETURN(ReadCall call, ReadBody(ctx, "query_source", "query_name"));
  call.reject_mutation = false;
  call.with_commit = false;
  return RunRead(ctx, call);
}

Result<HttpResponse> HandleGetSchema(RouteContext& ctx) {
  OG_RETURN_IF_ERROR(ctx.Authorize(PolicyAction::kRead));
  OG_ASSIGN_OR_RETURN(std::string source, ctx.db().SchemaSource());
  OrderedJson j = OrderedJson::object();
  j["schema_source"] = source;
  return JsonResponse(j);
}

Result<HttpResponse> HandleListBranches(RouteContext& ctx) {
  OG_RETURN_IF_ERROR(ctx.Authorize(PolicyAction::kRead));
  OG_ASSIGN_OR_RETURN(std::vector<std::string> branches, ctx.db().Branches());
  OrderedJson j = OrderedJson::object();
  j["branches"] = branches;
  return JsonResponse(j);
}

Result<HttpResponse> HandleListCommits(RouteContext& ctx) {
  const std::string branch = ctx.request().Query("branch").value_or("main");
  OG_RETURN_IF_ERROR(ctx.Authorize(PolicyAction::kRead, branch));
  OG_ASSIGN_OR_RETURN(std::vector<CommitInfo> commits, ctx.db().Commits(branch));
  OrderedJson list = OrderedJson::array();
  for (const auto& c : commits) list.push_back(CommitOutputJson(c));
  OrderedJson j = OrderedJson::object();
  j["commits"] = std::move(list);
  return JsonResponse(j);
}

Result<HttpResponse> HandleGetCommit(RouteContext& ctx) {
  OG_RETURN_IF_ERROR(ctx.Authorize(PolicyAction::kRead));
  OG_ASSIGN_OR_RETURN(CommitInfo c, ctx.db().GetCommit(ctx.request().params.at("commit_id")));
  return JsonResponse(CommitOutputJson(c));
}

namespace {

// `branch` of a streaming request: trimmed, not empty, main by default.
Result<std::string> StreamBranch(const Json& body) {
  OG_ASSIGN_OR_RETURN(auto branch, OptionalString(body, "branch"));
  if (!branch) return std::string("main");
  std::string b = *branch;
  while (!b.empty() && b.front() == ' ') b.erase(b.begin());
  while (!b.empty() && b.back() == ' ') b.pop_back();
  if (b.empty()) return InvalidArgumentError("branch name cannot be empty");
  return b;
}

Result<std::vector<std::string>> StringList(const Json& body, std::string_view field) {
  std::vector<std::string> out;
  auto it = body.find(std::string(field));
  if (it == body.end() || it->is_null()) return out;
  if (!it->is_array()) return InvalidArgumentError("`" + std::string(field) + "` must be a list of strings");
  for (const auto& v : *it) {
    if (!v.is_string()) return InvalidArgumentError("`" + std::string(field) + "` must be a list of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace

Result<HttpResponse> HandleExport(RouteContext& ctx) {
  auto parsed = ctx.JsonBody(/*empty_ok=*/true);
  if (!parsed.ok()) return InvalidArgumentError("invalid export request: " + parsed.status().message());
  Json body = std::move(*parsed);
  for (const auto& [k, v] : body.items()) {
    if (k != "branch" && k != "type_names") {
      return InvalidArgumentError("invalid export request: unknown field `" + k +
                                  "`, expected `branch` or `type_names`");
    }
  }
  OG_ASSIGN_OR_RETURN(std::string branch, StreamBranch(body));
  OG_ASSIGN_OR_RETURN(std::vector<std::string> types, StringList(body, "type_names"));
  OG_RETURN_IF_ERROR(ctx.Authorize(PolicyAction::kExport, branch));
  // Everything that can fail before the first byte is checked here, so a 200 means the stream
  // starts; the snapshot is pinned by commit so the stream reads what was checked.
  OG_ASSIGN_OR_RETURN(SnapshotInfo snap, ctx.db().Snapshot(ReadTarget::Head(branch)));
  for (const auto& t : types) {
    bool known = false;
    for (const auto& ti : snap.types) known = known || ti.name == t;
    if (!known) return NotFoundError("unknown type '" + t + "' in type_names");
  }
  Database* db = &ctx.db();
  const std::string commit = snap.commit_id;
  HttpResponse r;
  r.content_type = "application/x-ndjson; charset=utf-8";
  r.SetHeader("Omnigraph-Snapshot-Id", snap.snapshot_id);
  r.stream = [db, commit, types](const ChunkSink& sink) -> Status {
    std::string buffer;
    Status s = db->Export(
        [&](std::string_view line) -> Status {
          buffer.append(line);
          buffer.push_back('\n');
          if (buffer.size() >= (size_t{1} << 16)) {
            if (!sink(buffer)) return Status(ErrorCode::kIo, "the client went away");
            buffer.clear();
          }
          return Status::Ok();
        },
        ReadTarget::Commit(commit), types);
    if (!s.ok()) return s;
    if (!buffer.empty() && !sink(buffer)) return Status(ErrorCode::kIo, "the client went away");
    return Status::Ok();
  };
  return r;
}

}  // namespace omnigraph::server
