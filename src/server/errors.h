// The server's error model (docs/server.md, "Errors"): every failure is one JSON body
// {error, code?, error_code, <structured fields>} with an HTTP status. `code` is the closed set of
// the existing implementation (unauthorized, forbidden, bad_request, not_found,
// method_not_allowed, conflict, too_many_requests, internal), left out for 410/412/424/501/503 as
// there; `error_code` is our exact code from docs/errors.md ("T12", "key_conflict", ...); the
// status's structured details (merge_conflicts, precondition_failure, errors, ...) are copied in.
#pragma once

#include <string>
#include <string_view>

#include "omnigraph/status.h"
#include "server/http.h"

namespace omnigraph::server {

// The HTTP status of an engine error (its row of the error table, with the server's exceptions).
int HttpStatusFor(const Status& status);

// The closed-enum `code` of an HTTP status; empty for the statuses whose body carries none.
std::string_view ApiCodeFor(int http_status);

// The response for a failed request.
HttpResponse ErrorResponse(const Status& status);
// The same with an explicit HTTP status (the server's own refusals: 401, 405, 415, 429, ...).
HttpResponse ErrorResponse(int http_status, const Status& status);

}  // namespace omnigraph::server
