// The stored-query routes: the catalog (/queries) and invocation (/queries/{name}).
#include "common/error_codes.h"
#include "compiler/lint.h"
#include "server/handler_util.h"

namespace omnigraph::server {

namespace {

Status NotFoundQuery() { return NotFoundError("stored query not found"); }

Result<HttpResponse> Invoke(RouteContext& ctx, bool conditional) {
  const std::string name = ctx.request().params.at("name");
  std::optional<std::string> expected_head;
  if (conditional) {
    OG_ASSIGN_OR_RETURN(expected_head, ExpectedHead(ctx.request()));
  } else {
    OG_RETURN_IF_ERROR(RejectExpectedHead(ctx.request(), "/queries/" + name + "/if-graph-commit"));
  }
  auto parsed = ctx.JsonBody(/*empty_ok=*/true);
  if (!parsed.ok()) return InvalidArgumentError("invalid stored-query invocation body: " + parsed.status().message());
  const Json& body = *parsed;
  OG_ASSIGN_OR_RETURN(std::string params, ParamsText(body));
  OG_ASSIGN_OR_RETURN(auto branch, OptionalString(body, "branch"));
  OG_ASSIGN_OR_RETURN(auto snapshot, OptionalString(body, "snapshot"));
  std::optional<bool> expect_mutation;
  if (auto it = body.find("expect_mutation"); it != body.end() && !it->is_null()) {
    if (!it->is_boolean()) return InvalidArgumentError("`expect_mutation` must be true or false");
    expect_mutation = it->get<bool>();
  }
  // A denial and an unknown name are the same 404: the catalog's contents are not revealed.
  Status may = ctx.Authorize(policy::PolicyAction::kInvokeQuery);
  if (!may.ok()) return may.code() == ErrorCode::kPolicyDenied ? NotFoundQuery() : may;
  auto it = ctx.graph().queries.find(name);
  if (it == ctx.graph().queries.end()) return NotFoundQuery();
  const StoredQuery& q = it->second;
  const bool mutation = q.prepared.is_mutation();
  if (expect_mutation && *expect_mutation != mutation) {
    return InvalidArgumentError(mutation ? "'" + name + "' is a mutation; use omnigraph mutate " + name
                                         : "'" + name + "' is a read; use omnigraph query " + name);
  }
  if (mutation) {
    if (snapshot) return InvalidArgumentError("stored mutation cannot target a snapshot");
    MutationCall call{q.source, q.name, params, branch.value_or("main"), expected_head};
    return RunMutation(ctx, call);
  }
  if (conditional) return InvalidArgumentError("the graph-commit conditional route applies only to stored mutations");
  ReadCall call{q.source, q.name, params, branch, snapshot, true, true};
  return RunRead(ctx, call);
}

}  // namespace

Result<HttpResponse> HandleListQueries(RouteContext& ctx) {
  OG_RETURN_IF_ERROR(ctx.Authorize(policy::PolicyAction::kRead, std::string("main")));
  OrderedJson list = OrderedJson::array();
  for (const auto& [name, q] : ctx.graph().queries) {  // a std::map: by name
    OrderedJson e = OrderedJson::object();
    e["name"] = name;
    e["tool_name"] = name;
    if (q.description) e["description"] = *q.description;
    if (q.instruction) e["instruction"] = *q.instruction;
    e["mutation"] = q.prepared.is_mutation();
    OrderedJson params = OrderedJson::array();
    for (const ParamInfo& p : q.prepared.params()) {
      OrderedJson pj = OrderedJson::object();
      pj["name"] = p.name;
      pj["kind"] = compiler::ParamKindName(p.type.kind);
      if (p.type.kind == TypeKind::kList) pj["item_kind"] = compiler::ParamKindName(p.type.element);
      if (p.type.kind == TypeKind::kVector) pj["vector_dim"] = p.type.dimension;
      pj["nullable"] = p.nullable;
      params.push_back(std::move(pj));
    }
    e["params"] = std::move(params);
    list.push_back(std::move(e));
  }
  OrderedJson j = OrderedJson::object();
  j["queries"] = std::move(list);
  return JsonResponse(j);
}

Result<HttpResponse> HandleInvokeQuery(RouteContext& ctx) { return Invoke(ctx, false); }
Result<HttpResponse> HandleInvokeQueryIfGraphCommit(RouteContext& ctx) { return Invoke(ctx, true); }

}  // namespace omnigraph::server
