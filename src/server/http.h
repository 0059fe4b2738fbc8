// The server's own view of HTTP: a request as the route handlers see it and the response they
// build. Only http_listener.cc knows the HTTP library (Boost.Beast); handlers, routing, auth and
// the tests of them see these values, so the library can be swapped without touching a handler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "omnigraph/status.h"

namespace omnigraph::server {

struct HttpRequest {
  std::string method;                                        // GET, HEAD, POST, DELETE, ...
  std::string path;                                          // as sent, without the query string (not percent-decoded)
  std::multimap<std::string, std::string> query;             // decoded query parameters
  std::vector<std::pair<std::string, std::string>> headers;  // as sent
  std::string body;
  std::string remote;                         // peer address
  std::map<std::string, std::string> params;  // path parameters of the matched route (decoded)
  // The most body bytes the request may carry; the precheck sets the route's limit.
  size_t max_body = SIZE_MAX;

  // The value of header `name` (case-insensitive): the first one, or nullopt.
  std::optional<std::string> Header(std::string_view name) const;
  size_t HeaderCount(std::string_view name) const;
  // The query parameter `name`: its only value; nullopt when absent. Repeated -> the first.
  std::optional<std::string> Query(std::string_view name) const;
  std::vector<std::string> QueryAll(std::string_view name) const;
};

// Writes one chunk of a streamed body; false when the client went away (stop writing).
using ChunkSink = std::function<bool(std::string_view chunk)>;

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string content_type = "application/json";
  std::string body;
  // A streamed body (then `body` is unused): called once with a sink, after the status and
  // headers are sent. An error it returns aborts the body (the client sees a cut stream).
  std::function<Status(const ChunkSink& sink)> stream;
  // Close the connection after this response (a refusal that left the request's body unread).
  bool close_connection = false;
  // HEAD: the Content-Length the GET would have (no body is sent).
  std::optional<uint64_t> head_content_length;
  // The error code of an error response, for logs and metrics (not sent as a header).
  std::string error_code;

  void SetHeader(std::string name, std::string value) { headers.emplace_back(std::move(name), std::move(value)); }
};

// Case-insensitive ASCII comparison of header names.
bool HeaderNameEquals(std::string_view a, std::string_view b);

// The parameters of a query string (after the '?'): `&`-separated `name=value` pairs, '+' as a
// space, percent escapes decoded (a malformed escape is kept as written), empty pairs skipped.
std::multimap<std::string, std::string> ParseQueryString(std::string_view query);

// Percent-decodes one path segment; nullopt for a malformed escape or a decoded '/' or NUL.
std::optional<std::string> DecodePathSegment(std::string_view segment);

}  // namespace omnigraph::server
