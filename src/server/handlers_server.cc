// The server-wide routes: /healthz, /openapi.json, /metrics, /graphs; and the metrics registry.
#include <cstdio>

#include "common/error_codes.h"
#include "server/handler_util.h"
#include "server/state.h"

namespace omnigraph::server {

Result<HttpResponse> HandleHealth(RouteContext&) {
  OrderedJson j = OrderedJson::object();
  j["status"] = "ok";
  j["version"] = OG_VERSION;
  j["internal_schema_version"] = OG_STORAGE_FORMAT_VERSION;
  return JsonResponse(j);
}

Result<HttpResponse> HandleOpenApi(RouteContext& ctx) {
  HttpResponse r;
  r.body = OpenApiJson(/*with_security=*/ctx.state().auth_required);
  return r;
}

Result<HttpResponse> HandleMetrics(RouteContext& ctx) {
  HttpResponse r;
  r.content_type = "text/plain; version=0.0.4";
  r.body = ctx.state().metrics.Render();
  return r;
}

Result<HttpResponse> HandleListGraphs(RouteContext& ctx) {
  OG_RETURN_IF_ERROR(ctx.Authorize(policy::PolicyAction::kGraphList));
  OrderedJson list = OrderedJson::array();
  for (const auto& [id, g] : ctx.state().registry.graphs) {  // a std::map: sorted by id
    list.push_back(OrderedJson{{"graph_id", id}, {"uri", g->uri}});
  }
  OrderedJson j = OrderedJson::object();
  j["graphs"] = std::move(list);
  return JsonResponse(j);
}

void Metrics::Record(std::string_view operation, int status, std::string_view error_code, double seconds,
                     bool committed) {
  MutexLock lock(&mu_);
  ++requests_[{std::string(operation), status}];
  if (!error_code.empty()) ++errors_[std::string(error_code)];
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) ++bucket_counts_[i];
  }
  ++count_;
  sum_ += seconds;
  if (committed) ++commits_;
}

std::string Metrics::Render() const {
  MutexLock lock(&mu_);
  std::string out;
  char buf[256];
  out += "# HELP omnigraph_http_requests_total HTTP requests by operation and status.\n";
  out += "# TYPE omnigraph_http_requests_total counter\n";
  for (const auto& [key, n] : requests_) {
    std::snprintf(buf, sizeof(buf), "omnigraph_http_requests_total{operation=\"%s\",status=\"%d\"} %llu\n",
                  key.first.c_str(), key.second, static_cast<unsigned long long>(n));
    out += buf;
  }
  out += "# HELP omnigraph_http_request_duration_seconds Time from routing to the response.\n";
  out += "# TYPE omnigraph_http_request_duration_seconds histogram\n";
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    std::snprintf(buf, sizeof(buf), "omnigraph_http_request_duration_seconds_bucket{le=\"%g\"} %llu\n", kBuckets[i],
                  static_cast<unsigned long long>(bucket_counts_[i]));
    out += buf;
  }
  std::snprintf(buf, sizeof(buf),
                "omnigraph_http_request_duration_seconds_bucket{le=\"+Inf\"} %llu\n"
                "omnigraph_http_request_duration_seconds_sum %.6f\n"
                "omnigraph_http_request_duration_seconds_count %llu\n",
                static_cast<unsigned long long>(count_), sum_, static_cast<unsigned long long>(count_));
  out += buf;
  out += "# HELP omnigraph_commits_total Commits published by requests.\n";
  out += "# TYPE omnigraph_commits_total counter\n";
  out += "omnigraph_commits_total " + std::to_string(commits_) + "\n";
  out += "# HELP omnigraph_http_errors_total Error responses by error code (docs/errors.md).\n";
  out += "# TYPE omnigraph_http_errors_total counter\n";
  for (const auto& [code, n] : errors_) {
    out += "omnigraph_http_errors_total{error_code=\"" + code + "\"} " + std::to_string(n) + "\n";
  }
  return out;
}

}  // namespace omnigraph::server
