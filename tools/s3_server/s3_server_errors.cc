// S3 error codes in a Status (s3_server_errors.h): the code travels in the Status details as
// {"s3_code":"<Code>"}; codes are plain ASCII words, so no JSON library is needed either way.
#include "s3_server/s3_server_errors.h"

#include <utility>

#include "common/error_codes.h"

namespace omnigraph::s3server {
namespace {

constexpr std::string_view kDetailsPrefix = "{\"s3_code\":\"";
constexpr std::string_view kDetailsSuffix = "\"}";

struct CodeStatus {
  std::string_view code;
  int http_status;
};

// Every code this server answers with, and its HTTP status as AWS S3 documents it.
constexpr CodeStatus kCodes[] = {
    {"AccessDenied", 403},
    {"AuthorizationHeaderMalformed", 400},
    {"BadDigest", 400},
    {"BucketAlreadyOwnedByYou", 409},
    {"ConditionalRequestConflict", 409},
    {"EntityTooLarge", 400},
    {"EntityTooSmall", 400},
    {"IncompleteBody", 400},
    {"InternalError", 500},
    {"InvalidAccessKeyId", 403},
    {"InvalidArgument", 400},
    {"InvalidBucketName", 400},
    {"InvalidDigest", 400},
    {"InvalidPart", 400},
    {"InvalidPartOrder", 400},
    {"InvalidRange", 416},
    {"InvalidRequest", 400},
    {"InvalidURI", 400},
    {"KeyTooLongError", 400},
    {"MalformedXML", 400},
    {"MissingContentLength", 411},
    {"NoSuchBucket", 404},
    {"NoSuchKey", 404},
    {"NoSuchUpload", 404},
    {"NotImplemented", 501},
    {"PreconditionFailed", 412},
    {"SignatureDoesNotMatch", 403},
    {"SlowDown", 503},
    {"XAmzContentSHA256Mismatch", 400},
};

ErrorCode ErrorCodeForHttp(int http_status) {
  switch (http_status) {
    case 403: return ErrorCode::kPermissionDenied;
    case 404: return ErrorCode::kNotFound;
    case 409: return ErrorCode::kConflict;
    case 412: return ErrorCode::kPreconditionFailed;
    case 501: return ErrorCode::kUnimplemented;
    case 503: return ErrorCode::kTransient;
    default: break;
  }
  return http_status >= 400 && http_status < 500 ? ErrorCode::kInvalidArgument : ErrorCode::kInternal;
}

}  // namespace

int HttpStatusOf(std::string_view code) {
  for (const CodeStatus& c : kCodes) {
    if (c.code == code) return c.http_status;
  }
  return 500;
}

Status S3Failure(std::string_view code, std::string message) {
  const std::string details = std::string(kDetailsPrefix) + std::string(code) + std::string(kDetailsSuffix);
  return Status(ErrorCodeForHttp(HttpStatusOf(code)), std::move(message)).WithDetails(details);
}

S3Error ToS3Error(const Status& status) {
  std::string_view details = status.details();
  if (details.size() > kDetailsPrefix.size() + kDetailsSuffix.size() && details.starts_with(kDetailsPrefix) &&
      details.ends_with(kDetailsSuffix)) {
    details.remove_prefix(kDetailsPrefix.size());
    details.remove_suffix(kDetailsSuffix.size());
    return S3Error{HttpStatusOf(details), std::string(details), status.message()};
  }
  return S3Error{500, "InternalError", "We encountered an internal error: " + status.ToString()};
}

}  // namespace omnigraph::s3server
