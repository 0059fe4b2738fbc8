// The user-facing error-code enum and its metadata, generated from error_codes.def.
// Convenience constructors for the generic codes live here too.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "omnigraph/result.h"
#include "omnigraph/status.h"

namespace omnigraph {

enum class ErrorCode : uint16_t {
#define OG_ERROR(name, str, category, http, meaning) name,
#include "common/error_codes.def"
#undef OG_ERROR
};

struct ErrorCodeInfo {
  ErrorCode code;
  std::string_view name;  // stable string, e.g. "T12"
  StatusCode category;
  int http_status;
  std::string_view meaning;
};

// Every code, in table order.
std::span<const ErrorCodeInfo> AllErrorCodes();
const ErrorCodeInfo& InfoFor(ErrorCode code);
std::string_view StatusCodeName(StatusCode code);

// Generic constructors.
inline Status NotFoundError(std::string m) { return Status(ErrorCode::kNotFound, std::move(m)); }
inline Status AlreadyExistsError(std::string m) { return Status(ErrorCode::kAlreadyExists, std::move(m)); }
inline Status TransientError(std::string m) { return Status(ErrorCode::kTransient, std::move(m)); }
inline Status PermissionDeniedError(std::string m) { return Status(ErrorCode::kPermissionDenied, std::move(m)); }
inline Status CorruptError(std::string m) { return Status(ErrorCode::kCorrupt, std::move(m)); }
inline Status IoError(std::string m) { return Status(ErrorCode::kIo, std::move(m)); }
inline Status InvalidArgumentError(std::string m) { return Status(ErrorCode::kInvalidArgument, std::move(m)); }
inline Status ConflictError(std::string m) { return Status(ErrorCode::kConflict, std::move(m)); }
inline Status PreconditionFailedError(std::string m) { return Status(ErrorCode::kPreconditionFailed, std::move(m)); }
inline Status ResourceExhaustedError(std::string m) { return Status(ErrorCode::kResourceExhausted, std::move(m)); }
inline Status UnimplementedError(std::string m) { return Status(ErrorCode::kUnimplemented, std::move(m)); }
inline Status InternalError(std::string m) { return Status(ErrorCode::kInternal, std::move(m)); }

// errno-based I/O error: "<what>: <strerror> (errno N)"; ENOENT -> NotFound, EACCES/EPERM ->
// PermissionDenied, ENOSPC/EDQUOT -> ResourceExhausted, EAGAIN/EINTR -> Transient, others -> Io.
Status ErrnoError(std::string_view what, int err);

}  // namespace omnigraph
