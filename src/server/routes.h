// The route table: every path the server answers, with what the OpenAPI document says of it and
// the handler that serves it. Routing (MatchRoute), the body limits and the OpenAPI document are
// all read from this one table, so a route cannot be served without being documented or the other
// way round (server_test checks every documented route and status is served).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/json.h"
#include "omnigraph/result.h"
#include "policy/policy.h"
#include "server/http.h"
#include "server/registry.h"

namespace omnigraph::server {

struct ServerState;  // server.cc: the registry, tokens, admission, metrics

// What a handler gets: the request, the graph of a /graphs/{graph_id}/... route, the actor its
// token names, and the checks it runs once it knows the branches involved.
class RouteContext {
 public:
  RouteContext(ServerState& state, HttpRequest& request, ServedGraph* graph, std::optional<std::string> actor)
      : state_(state), request_(request), graph_(graph), actor_(std::move(actor)) {}

  HttpRequest& request() { return request_; }
  ServedGraph& graph() { return *graph_; }
  Database& db() { return *graph_->db; }
  const std::optional<std::string>& actor() const { return actor_; }
  const ServerState& state() const { return state_; }

  // The graph's policy mode decides (docs/server.md, "Runtime modes"): `policy_denied` (403)
  // with the reason, else ok.
  Status Authorize(policy::PolicyAction action, std::optional<std::string> branch = std::nullopt,
                   std::optional<std::string> target_branch = std::nullopt) const;

  // Admits a write of about `bytes` request bytes for this actor (per-actor caps, taken until the
  // context ends): `admission_limit` (429) when over a cap.
  Status Admit(uint64_t bytes);
  ~RouteContext();

  // The JSON object of the body (an empty body is `{}` when `empty_ok`): `invalid_argument`.
  Result<Json> JsonBody(bool empty_ok = false) const;

  // Set by write handlers that published a commit (the commits metric).
  bool committed = false;

 private:
  ServerState& state_;
  HttpRequest& request_;
  ServedGraph* graph_;
  std::optional<std::string> actor_;
  uint64_t admitted_bytes_ = 0;
  bool admitted_ = false;
};

using RouteHandler = Result<HttpResponse> (*)(RouteContext& ctx);

enum class BodyKind { kNone, kJson, kOptionalJson, kNdjson };

struct Route {
  std::string_view method;        // GET, HEAD, POST, DELETE
  std::string_view path;          // "/graphs/{graph_id}/branches/{branch}"
  std::string_view operation_id;  // the existing implementation's
  std::string_view tag;
  std::string_view summary;
  bool authenticated = true;  // false: /healthz, /openapi.json, /metrics
  BodyKind body = BodyKind::kNone;
  bool large_body = false;     // the load limit (32 MiB) instead of 1 MiB
  std::string_view successor;  // deprecated routes: the route that replaces them ("query")
  std::vector<std::string_view> query_params;
  std::vector<int> statuses;  // every status the route answers with
  RouteHandler handler = nullptr;
};

// The routes, in the order the OpenAPI document lists them (by path).
const std::vector<Route>& Routes();

struct RouteMatch {
  const Route* route = nullptr;  // the route for this method and path
  std::map<std::string, std::string> params;
  bool path_known = false;  // some route has this path (then a miss is 405)
  std::string allowed;      // the methods of that path, for `Allow`
  Status error;             // a path segment that does not decode
};

RouteMatch MatchRoute(std::string_view method, std::string_view path);

// The handlers (handlers_*.cc).
Result<HttpResponse> HandleHealth(RouteContext& ctx);
Result<HttpResponse> HandleOpenApi(RouteContext& ctx);
Result<HttpResponse> HandleMetrics(RouteContext& ctx);
Result<HttpResponse> HandleListGraphs(RouteContext& ctx);
Result<HttpResponse> HandleSnapshot(RouteContext& ctx);
Result<HttpResponse> HandleQuery(RouteContext& ctx);
Result<HttpResponse> HandleLegacyRead(RouteContext& ctx);
Result<HttpResponse> HandleMutate(RouteContext& ctx);
Result<HttpResponse> HandleMutateIfGraphCommit(RouteContext& ctx);
Result<HttpResponse> HandleLegacyChange(RouteContext& ctx);
Result<HttpResponse> HandleListQueries(RouteContext& ctx);
Result<HttpResponse> HandleInvokeQuery(RouteContext& ctx);
Result<HttpResponse> HandleInvokeQueryIfGraphCommit(RouteContext& ctx);
Result<HttpResponse> HandleGetSchema(RouteContext& ctx);
Result<HttpResponse> HandleApplySchema(RouteContext& ctx);
Result<HttpResponse> HandleLoad(RouteContext& ctx);
Result<HttpResponse> HandleLoadNdjson(RouteContext& ctx);
Result<HttpResponse> HandleIngest(RouteContext& ctx);
Result<HttpResponse> HandleExport(RouteContext& ctx);
Result<HttpResponse> HandleListBranches(RouteContext& ctx);
Result<HttpResponse> HandleCreateBranch(RouteContext& ctx);
Result<HttpResponse> HandleDeleteBranch(RouteContext& ctx);
Result<HttpResponse> HandleMergeBranches(RouteContext& ctx);
Result<HttpResponse> HandleListCommits(RouteContext& ctx);
Result<HttpResponse> HandleGetCommit(RouteContext& ctx);
Result<HttpResponse> HandleCommitChanges(RouteContext& ctx);
Result<HttpResponse> HandlePollChanges(RouteContext& ctx);
Result<HttpResponse> HandleChangeBaseline(RouteContext& ctx);
Result<HttpResponse> HandleGetBlob(RouteContext& ctx);

// A 200 JSON response.
HttpResponse JsonResponse(const OrderedJson& body, int status = 200);

}  // namespace omnigraph::server
