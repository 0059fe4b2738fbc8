#include "server/errors.h"

#include "common/error_codes.h"
#include "common/json.h"

namespace omnigraph::server {

int HttpStatusFor(const Status& s) {
  if (s.ok()) return 200;
  int http = InfoFor(s.code()).http_status;
  // Codes whose table status has no place on this API: a store-side refusal is the server's
  // problem (500), not the caller's permission.
  if (s.code() == ErrorCode::kStoreNoConditionalWrites) return 500;
  return http;
}

std::string_view ApiCodeFor(int http) {
  switch (http) {
    case 400:
    case 411:
    case 413:
    case 415:
    case 416: return "bad_request";
    case 401: return "unauthorized";
    case 403: return "forbidden";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 409: return "conflict";
    case 429: return "too_many_requests";
    case 500: return "internal";
    default: return "";  // 410, 412, 424, 501, 503: the status says it; structured fields tell the rest
  }
}

HttpResponse ErrorResponse(const Status& s) { return ErrorResponse(HttpStatusFor(s), s); }

HttpResponse ErrorResponse(int http, const Status& s) {
  OrderedJson body = OrderedJson::object();
  body["error"] = s.message().empty() ? std::string(s.code_string()) : s.message();
  std::string_view code = ApiCodeFor(http);
  if (!code.empty()) body["code"] = code;
  body["error_code"] = s.code_string();
  if (!s.details().empty()) {
    auto details = ParseJson(s.details(), "error details");
    if (details.ok() && details->is_object()) {
      for (const auto& [k, v] : details->items()) {
        if (k == "error" || k == "code" || k == "error_code") continue;
        if (k == "merge_conflicts" && v.is_array() && v.empty()) continue;
        body[k] = OrderedJson::parse(v.dump());
      }
    }
  }
  if (s.span()) {
    const SourceSpan& sp = *s.span();
    OrderedJson span = OrderedJson::object();
    if (!sp.file.empty()) span["file"] = sp.file;
    span["line"] = sp.line;
    span["column"] = sp.column;
    span["end_line"] = sp.end_line;
    span["end_column"] = sp.end_column;
    body["span"] = std::move(span);
  }
  HttpResponse r;
  r.status = http;
  r.body = body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  r.error_code = std::string(s.code_string());
  return r;
}

}  // namespace omnigraph::server
