#include "server/server.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <exception>
#include <utility>

#include "common/clock.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/ulid.h"
#include "server/errors.h"
#include "server/routes.h"
#include "server/state.h"

namespace omnigraph::server {

struct Server::Impl {
  ServerState state;
  std::unique_ptr<HttpListener> listener;
};

namespace {

constexpr std::string_view kDefaultDeny =
    "server runs in default-deny mode (bearer tokens configured but no applied policy bundle). Only `read` actions "
    "are permitted; configure a graph or cluster policy bundle in the cluster config, run `omnigraph cluster apply`, "
    "and restart the server to enable other actions.";
constexpr std::string_view kServerScoped =
    "server-scoped actions require an explicit cluster policy bundle applied with `omnigraph cluster apply` and served "
    "after restart; the management surface is closed by default in every runtime state, including --unauthenticated, "
    "so that server topology is never exposed without operator opt-in.";

bool ValidGraphIdChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

Status CheckGraphId(const std::string& id) {
  if (id.empty()) return InvalidArgumentError("graph_id must not be empty");
  if (id.size() > 64) {
    return InvalidArgumentError("graph_id '" + id + "' is " + std::to_string(id.size()) + " chars; max 64");
  }
  for (char c : id) {
    if (!ValidGraphIdChar(c)) {
      return InvalidArgumentError("graph_id '" + id +
                                  "' must match ^[a-zA-Z0-9-]{1,64}$ — no underscores (engine reserves them), no path "
                                  "separators, no unicode");
    }
  }
  if (id == "policies" || id == "healthz" || id == "openapi" || id == "graphs") {
    return InvalidArgumentError("graph_id '" + id +
                                "' is reserved (would collide with engine-managed names or future cluster routes)");
  }
  return Status::Ok();
}

// The client's request id when it is a plain token, else a new one.
std::string RequestId(const HttpRequest& req) {
  if (auto v = req.Header("X-Request-Id")) {
    bool ok = !v->empty() && v->size() <= 64;
    for (char c : *v) {
      ok = ok && (ValidGraphIdChar(c) || c == '_' || c == '.' || c == ':');
    }
    if (ok) return *v;
  }
  return NewUlidString();
}

size_t BodyLimit(const ServerState& st, const Route& r) {
  return r.large_body ? st.options.load_body_limit_bytes : st.options.body_limit_bytes;
}

Status TooLarge(size_t limit, uint64_t actual, bool large) {
  const std::string resource = large ? "graph_batch_request_bytes" : "request_body_bytes";
  OrderedJson detail = {{"resource", resource}, {"limit", limit}, {"actual", actual}};
  return ResourceExhaustedError("request body exceeds " + std::to_string(limit) + " bytes")
      .WithDetails(OrderedJson{{"resource_limit", detail}}.dump());
}

std::string MediaType(const HttpRequest& req) {
  std::string v = req.Header("Content-Type").value_or("");
  v = v.substr(0, v.find(';'));
  while (!v.empty() && v.back() == ' ') v.pop_back();
  while (!v.empty() && v.front() == ' ') v.erase(v.begin());
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return v;
}

// How the body is framed: one Content-Length or chunked transfer coding, never both (the
// request-smuggling ambiguity; the parser refuses it too). Refused: other transfer codings,
// compressed bodies (415: a small body could inflate without bound), a repeated Content-Length,
// and a body on a method that takes none.
std::optional<HttpResponse> CheckFraming(const HttpRequest& head) {
  if (auto te = head.Header("Transfer-Encoding")) {
    if (head.HeaderCount("Transfer-Encoding") > 1 || !HeaderNameEquals(*te, "chunked")) {
      return ErrorResponse(Status(ErrorCode::kUnimplemented,
                                  "Transfer-Encoding `" + *te + "` is not accepted; send chunked or a Content-Length"));
    }
    if (head.Header("Content-Length")) {
      return ErrorResponse(InvalidArgumentError("a request has Content-Length or Transfer-Encoding, not both"));
    }
  }
  if (head.Header("Content-Encoding")) {
    return ErrorResponse(Status(ErrorCode::kUnsupportedMediaType, "compressed request bodies are not accepted"));
  }
  if (head.HeaderCount("Content-Length") > 1) return ErrorResponse(InvalidArgumentError("repeated Content-Length"));
  const std::string length = head.Header("Content-Length").value_or("");
  if ((head.method == "GET" || head.method == "HEAD" || head.method == "OPTIONS") && !length.empty() && length != "0") {
    return ErrorResponse(InvalidArgumentError(head.method + " takes no request body"));
  }
  return std::nullopt;
}

// The checks that need only the request line and headers. `actor` receives the token's actor.
std::optional<HttpResponse> CheckHead(const ServerState& st, const HttpRequest& req, const RouteMatch& m,
                                      std::optional<std::string>* actor) {
  if (!m.error.ok()) return ErrorResponse(m.error);
  if (m.route == nullptr) {
    if (m.path_known) {
      HttpResponse r = ErrorResponse(
          Status(ErrorCode::kMethodNotAllowed, "method " + req.method + " is not allowed on " + req.path));
      r.SetHeader("Allow", m.allowed);
      return r;
    }
    return ErrorResponse(NotFoundError("no route for " + req.method + " " + req.path));
  }
  const Route& route = *m.route;
  if (route.authenticated && st.auth_required) {
    auto header = req.Header("Authorization");
    auto token = header ? ParseBearer(*header) : std::nullopt;
    if (!token) return ErrorResponse(Status(ErrorCode::kUnauthenticated, "missing bearer token"));
    *actor = st.tokens.Authenticate(*token);
    if (!*actor) return ErrorResponse(Status(ErrorCode::kUnauthenticated, "invalid bearer token"));
  }
  if (route.body != BodyKind::kNone) {
    const size_t limit = BodyLimit(st, route);
    if (auto len = req.Header("Content-Length")) {
      uint64_t n = 0;
      bool numeric = !len->empty() && len->size() <= 19;
      for (char c : *len) numeric = numeric && c >= '0' && c <= '9';
      if (numeric) n = std::stoull(*len);
      if (!numeric) return ErrorResponse(InvalidArgumentError("malformed Content-Length"));
      if (n > limit) return ErrorResponse(TooLarge(limit, n, route.large_body));
    }
    const std::string type = MediaType(req);
    const bool has_body = req.Header("Transfer-Encoding") || (!req.Header("Content-Length").value_or("").empty() &&
                                                              req.Header("Content-Length").value_or("") != "0");
    // An optional body must be JSON too when there is one: a text/plain POST is what a browser
    // sends cross-site without a preflight.
    const bool json_required = route.body == BodyKind::kJson || (route.body == BodyKind::kOptionalJson && has_body);
    if (json_required && type != "application/json" && !type.ends_with("+json")) {
      return ErrorResponse(
          Status(ErrorCode::kUnsupportedMediaType, "Expected request with `Content-Type: application/json`"));
    }
    if (route.body == BodyKind::kNdjson && type != "application/x-ndjson") {
      return ErrorResponse(
          Status(ErrorCode::kUnsupportedMediaType, "graph-batch load requires Content-Type: application/x-ndjson"));
    }
  }
  return std::nullopt;
}

void WriteAccessLog(const ServerState& st, const HttpRequest& req, const HttpResponse& res, const std::string& id,
                    const std::optional<std::string>& actor, std::string_view operation, double seconds,
                    std::string_view error_code) {
  if (st.options.access_log == nullptr) return;
  OrderedJson line = OrderedJson::object();
  line["ts_us"] = NowMicros();
  line["request_id"] = id;
  line["method"] = req.method;
  line["path"] = req.path;
  line["operation"] = operation;
  line["status"] = res.status;
  line["duration_ms"] = seconds * 1000.0;
  line["actor"] = actor ? OrderedJson(*actor) : OrderedJson(nullptr);
  line["remote"] = req.remote;
  line["bytes_in"] = req.body.size();
  if (!res.stream) line["bytes_out"] = res.body.size();
  if (!error_code.empty()) line["error_code"] = error_code;
  std::string text = line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  std::fwrite(text.data(), 1, text.size(), st.options.access_log);
  std::fflush(st.options.access_log);
}

}  // namespace

// ---- RouteContext -----------------------------------------------------------------------------

Status RouteContext::Authorize(policy::PolicyAction action, std::optional<std::string> branch,
                               std::optional<std::string> target) const {
  const bool server_action = policy::IsServerAction(action);
  const std::optional<policy::PolicyBundle>& bundle = server_action ? state_.registry.server_policy : graph_->policy;
  const std::string action_name(policy::PolicyActionName(action));
  if (!bundle) {
    if (server_action) return Status(ErrorCode::kPolicyDenied, std::string(kServerScoped));
    if (actor_ && action != policy::PolicyAction::kRead)
      return Status(ErrorCode::kPolicyDenied, std::string(kDefaultDeny));
    return Status::Ok();  // Open mode: everything; default-deny: reads
  }
  if (!actor_) return Status(ErrorCode::kUnauthenticated, "missing bearer token");
  policy::PolicyDecision d = policy::Decide(*bundle, {*actor_, action, branch, target});
  if (d.allowed) return Status::Ok();
  bool known = false;
  for (const auto& [group, actors] : bundle->groups) {
    for (const auto& a : actors) known = known || a == *actor_;
  }
  if (!known)
    return Status(ErrorCode::kPolicyDenied,
                  "policy denied action '" + action_name + "' for unknown actor '" + *actor_ + "'");
  std::string m = "policy denied action '" + action_name + "'";
  if (branch) m += " on branch '" + *branch + "'";
  if (target) m += " targeting branch '" + *target + "'";
  return Status(ErrorCode::kPolicyDenied, m + " for actor '" + *actor_ + "'");
}

Status RouteContext::Admit(uint64_t bytes) {
  if (admitted_) return Status::Ok();
  const std::string key = actor_.value_or("anonymous");
  MutexLock lock(&state_.admission_mu);
  ServerState::Usage& u = state_.admission[key];
  const auto& o = state_.options;
  if (u.inflight >= o.per_actor_inflight_max) {
    return Status(ErrorCode::kAdmissionLimit,
                  "actor in-flight count cap " + std::to_string(o.per_actor_inflight_max) + " exceeded");
  }
  if (u.bytes + bytes > o.per_actor_bytes_max) {
    return Status(ErrorCode::kAdmissionLimit, "actor byte budget exceeded: would use " +
                                                  std::to_string(u.bytes + bytes) + " bytes against cap " +
                                                  std::to_string(o.per_actor_bytes_max));
  }
  ++u.inflight;
  u.bytes += bytes;
  admitted_ = true;
  admitted_bytes_ = bytes;
  return Status::Ok();
}

RouteContext::~RouteContext() {
  if (!admitted_) return;
  MutexLock lock(&state_.admission_mu);
  auto it = state_.admission.find(actor_.value_or("anonymous"));
  if (it == state_.admission.end()) return;
  --it->second.inflight;
  it->second.bytes -= admitted_bytes_;
  if (it->second.inflight == 0) state_.admission.erase(it);
}

Result<Json> RouteContext::JsonBody(bool empty_ok) const {
  std::string_view body = request_.body;
  size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    if (empty_ok) return Json::object();
    return InvalidArgumentError("the request body is empty; expected a JSON object");
  }
  OG_ASSIGN_OR_RETURN(Json j, ParseJsonUnique(body, "request body"));
  if (j.is_null() && empty_ok) return Json::object();
  if (!j.is_object()) return InvalidArgumentError("the request body must be a JSON object");
  return j;
}

HttpResponse JsonResponse(const OrderedJson& body, int status) {
  HttpResponse r;
  r.status = status;
  r.body = body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  return r;
}

// ---- Server -----------------------------------------------------------------------------------

Result<std::unique_ptr<Server>> Server::Start(ServerOptions options, TokenTable tokens) {
  auto impl = std::make_unique<Impl>();
  ServerState& st = impl->state;
  OG_ASSIGN_OR_RETURN(st.registry, BootRegistry(options.boot));
  if (tokens.empty() && st.registry.any_policy) {
    return InvalidArgumentError(
        "a policy is bound but no bearer tokens are configured: set OMNIGRAPH_SERVER_BEARER_TOKENS_FILE, "
        "OMNIGRAPH_SERVER_BEARER_TOKENS_JSON or OMNIGRAPH_SERVER_BEARER_TOKEN");
  }
  if (tokens.empty() && !options.unauthenticated) {
    return InvalidArgumentError(
        "no bearer tokens are configured: set OMNIGRAPH_SERVER_BEARER_TOKENS_FILE, OMNIGRAPH_SERVER_BEARER_TOKENS_JSON "
        "or OMNIGRAPH_SERVER_BEARER_TOKEN, or pass --unauthenticated to serve without authentication");
  }
  st.auth_required = !tokens.empty();
  st.tokens = std::move(tokens);
  st.options = std::move(options);
  st.options.listen.max_body_bytes = std::max(st.options.body_limit_bytes, st.options.load_body_limit_bytes);
  std::unique_ptr<Server> server(new Server(std::move(impl)));
  Server* raw = server.get();
  OG_ASSIGN_OR_RETURN(server->impl_->listener,
                      HttpListener::Bind(
                          server->impl_->state.options.listen, [raw](HttpRequest& head) { return raw->Precheck(head); },
                          [raw](HttpRequest& req) { return raw->Handle(req); },
                          [raw](int status, const Status& why) {
                            HttpResponse r = ErrorResponse(status, why);
                            r.SetHeader("X-Request-Id", NewUlidString());
                            raw->impl_->state.metrics.Record("unmatched", status, r.error_code, 0, false);
                            return r;
                          }));
  return server;
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

int Server::port() const { return impl_->listener->port(); }
std::string Server::listen_address() const {
  return impl_->listener->host() + ":" + std::to_string(impl_->listener->port());
}
Status Server::Run() { return impl_->listener->Run(); }
void Server::Stop() { impl_->listener->Stop(); }
const Registry& Server::registry() const { return impl_->state.registry; }

std::optional<HttpResponse> Server::Precheck(HttpRequest& head) {
  // Everything that can be refused from the head is refused here, before a byte of the body is
  // read. The body of a refused request stays unread, so its connection is closed after the answer
  // (http_listener.cc), never parsed for a next request.
  RouteMatch m = MatchRoute(head.method, head.path);
  std::optional<std::string> actor;
  std::optional<HttpResponse> refusal = CheckFraming(head);
  if (!refusal) refusal = CheckHead(impl_->state, head, m, &actor);
  if (!refusal && m.route != nullptr) head.max_body = BodyLimit(impl_->state, *m.route);
  if (refusal) {
    const std::string length = head.Header("Content-Length").value_or("");
    if (head.Header("Transfer-Encoding") || (!length.empty() && length != "0")) refusal->close_connection = true;
    const std::string id = RequestId(head);
    refusal->SetHeader("X-Request-Id", id);
    const std::string& code = refusal->error_code;
    impl_->state.metrics.Record(m.route ? m.route->operation_id : "unmatched", refusal->status, code, 0, false);
    WriteAccessLog(impl_->state, head, *refusal, id, actor, m.route ? m.route->operation_id : "", 0, code);
  }
  return refusal;
}

HttpResponse Server::Handle(HttpRequest& req) {
  ServerState& st = impl_->state;
  const auto started = std::chrono::steady_clock::now();
  const std::string id = RequestId(req);
  RouteMatch m = MatchRoute(req.method, req.path);
  std::optional<std::string> actor;
  std::optional<HttpResponse> response = CheckHead(st, req, m, &actor);
  std::string error_code;
  bool committed = false;
  if (!response) {
    const Route& route = *m.route;
    req.params = m.params;
    ServedGraph* graph = nullptr;
    Status graph_status;
    if (auto it = req.params.find("graph_id"); it != req.params.end()) {
      // Validated as sent (not percent-decoded): an escaped id is not an id.
      const std::string raw = req.path.substr(8, req.path.find('/', 8) - 8);  // after "/graphs/"
      graph_status = CheckGraphId(raw);
      if (graph_status.ok()) {
        graph = st.registry.Find(it->second);
        if (graph == nullptr) graph_status = NotFoundError("graph '" + it->second + "' not found");
      }
    }
    if (!graph_status.ok()) {
      response = ErrorResponse(graph_status);
    } else if (route.body != BodyKind::kNone && req.body.size() > BodyLimit(st, route)) {
      response = ErrorResponse(TooLarge(BodyLimit(st, route), req.body.size(), route.large_body));
    } else {
      RouteContext ctx(st, req, graph, actor);
      Result<HttpResponse> r = InternalError("no response");
      try {
        r = route.handler(ctx);
      } catch (const std::exception& e) {
        r = InternalError(std::string("unexpected failure: ") + e.what());
      }
      committed = ctx.committed;
      if (r.ok()) {
        response = std::move(*r);
        if (!route.successor.empty() && response->status < 300) {
          response->SetHeader("Deprecation", "true");
          response->SetHeader("Link", "<" + std::string(route.successor) + ">; rel=\"successor-version\"");
        }
      } else {
        response = ErrorResponse(r.status());
        if (r.status().code() == ErrorCode::kAdmissionLimit) response->SetHeader("Retry-After", "60");
      }
    }
  }
  error_code = response->error_code;
  response->SetHeader("X-Request-Id", id);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::string_view op = m.route ? m.route->operation_id : "unmatched";
  st.metrics.Record(op, response->status, error_code, seconds, committed);
  WriteAccessLog(st, req, *response, id, actor, op, seconds, error_code);
  return std::move(*response);
}

}  // namespace omnigraph::server
