// S3 error codes carried in a Status: the store and the operations fail with S3Failure("NoSuchKey",
// ...), and the HTTP layer turns any Status back into the S3 error response (HTTP status, code,
// message) with ToS3Error. A Status that carries no S3 code (an I/O failure) is an InternalError.
#pragma once

#include <string>
#include <string_view>

#include "omnigraph/status.h"

namespace omnigraph::s3server {

// One S3 error response.
struct S3Error {
  int http_status = 500;
  std::string code;  // "NoSuchKey", "PreconditionFailed", ...
  std::string message;
};

// The HTTP status S3 answers `code` with (500 for a code this server does not know).
int HttpStatusOf(std::string_view code);

// A failed Status that carries the S3 error `code` (its category follows the HTTP status).
Status S3Failure(std::string_view code, std::string message);

// The S3 error `status` (not ok) stands for.
S3Error ToS3Error(const Status& status);

}  // namespace omnigraph::s3server
