#include "server/errors.h"

#include "common/error_codes.h"
#include "common/json.h"

namespace omnigraph::server {

int HttpStatusFor(const Status& s) {
  if (s.ok()) return 200;
  // The server's own configuration and storage are not the caller's doing: a storage refusal
  // (EACCES, S3 AccessDenied, a read-only handle), a bad store URI or configuration, a format too
  // new are 500. A policy refusal has its own code (policy_denied, 403).
  switch (s.code()) {
    case ErrorCode::kPermissionDenied:
    case ErrorCode::kStoreNoConditionalWrites:
    case ErrorCode::kStoreConfig:
    case ErrorCode::kStoreUnsupported:
    case ErrorCode::kBadUri:
    case ErrorCode::kFormatTooNew:
    case ErrorCode::kFormatUnknown: return 500;
    default: return InfoFor(s.code()).http_status;
  }
}

std::string_view ApiCodeFor(int http) {
  switch (http) {
    case 400:
    case 408:
    case 411:
    case 413:
    case 415:
    case 416:
    case 431: return "bad_request";
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
