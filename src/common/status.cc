#include <cerrno>
#include <cstring>

#include "common/check.h"
#include "common/error_codes.h"
#include "common/json.h"

namespace omnigraph {

struct Status::State {
  ErrorCode code;
  std::string message;
  std::optional<SourceSpan> span;
  std::string details;
  std::vector<ErrorItem> errors;
  bool errors_truncated = false;
};

namespace {
constexpr ErrorCodeInfo kCodes[] = {
#define OG_ERROR(name, str, category, http, meaning) {ErrorCode::name, str, StatusCode::category, http, meaning},
#include "common/error_codes.def"
#undef OG_ERROR
};
const std::string kEmpty;
const std::optional<SourceSpan> kNoSpan;
const std::vector<ErrorItem> kNoErrors;
}  // namespace

std::span<const ErrorCodeInfo> AllErrorCodes() { return kCodes; }

const ErrorCodeInfo& InfoFor(ErrorCode code) {
  auto i = static_cast<size_t>(code);
  OG_CHECK(i < std::size(kCodes));
  return kCodes[i];
}

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kNotFound: return "NotFound";
    case StatusCode::kAlreadyExists: return "AlreadyExists";
    case StatusCode::kTransient: return "Transient";
    case StatusCode::kPermissionDenied: return "PermissionDenied";
    case StatusCode::kCorrupt: return "Corrupt";
    case StatusCode::kIo: return "Io";
    case StatusCode::kInvalidArgument: return "InvalidArgument";
    case StatusCode::kConflict: return "Conflict";
    case StatusCode::kPreconditionFailed: return "PreconditionFailed";
    case StatusCode::kResourceExhausted: return "ResourceExhausted";
    case StatusCode::kSnapshotReclaimed: return "SnapshotReclaimed";
    case StatusCode::kUnimplemented: return "Unimplemented";
    case StatusCode::kInternal: return "Internal";
  }
  return "?";
}

Status::Status(ErrorCode code, std::string message)
    : state_(new State{code, std::move(message), std::nullopt, {}, {}, false}) {}

Status::Status(const Status& other) : state_(other.state_ ? new State(*other.state_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) state_.reset(other.state_ ? new State(*other.state_) : nullptr);
  return *this;
}

void Status::StateDeleter::operator()(State* s) const { delete s; }

StatusCode Status::category() const { return ok() ? StatusCode::kOk : InfoFor(state_->code).category; }
ErrorCode Status::code() const {
  OG_CHECK(!ok());
  return state_->code;
}
std::string_view Status::code_string() const { return ok() ? std::string_view("ok") : InfoFor(state_->code).name; }
const std::string& Status::message() const { return ok() ? kEmpty : state_->message; }
const std::optional<SourceSpan>& Status::span() const { return ok() ? kNoSpan : state_->span; }
const std::string& Status::details() const { return ok() ? kEmpty : state_->details; }

Status Status::WithSpan(SourceSpan span) const {
  Status s(*this);
  if (s.state_) s.state_->span = std::move(span);
  return s;
}
Status Status::WithDetails(std::string json) const {
  Status s(*this);
  if (s.state_) s.state_->details = std::move(json);
  return s;
}
std::string_view ErrorCodeName(ErrorCode code) { return InfoFor(code).name; }

const std::vector<ErrorItem>& Status::errors() const { return ok() ? kNoErrors : state_->errors; }
bool Status::errors_truncated() const { return !ok() && state_->errors_truncated; }

Status Status::WithErrors(std::vector<ErrorItem> errors, bool truncated) const {
  Json list = Json::array();
  for (const auto& e : errors) {
    Json j = Json::object();
    if (e.line) j["line"] = *e.line;
    if (e.statement) j["statement"] = *e.statement;
    j["code"] = std::string(InfoFor(e.code).name);
    j["message"] = e.message;
    list.push_back(std::move(j));
  }
  Status s = WithDetails(CanonicalJson(Json{{"errors", list}, {"truncated", truncated}}));
  if (s.state_) {
    s.state_->errors = std::move(errors);
    s.state_->errors_truncated = truncated;
  }
  return s;
}

Status Status::WithContext(std::string_view context) const {
  Status s(*this);
  if (s.state_) s.state_->message = std::string(context) + ": " + s.state_->message;
  return s;
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  std::string out(code_string());
  out += ": ";
  out += state_->message;
  if (state_->span) {
    const SourceSpan& sp = *state_->span;
    out += " (at ";
    if (!sp.file.empty()) out += sp.file + ":";
    out += std::to_string(sp.line) + ":" + std::to_string(sp.column) + ")";
  }
  return out;
}

Status ErrnoError(std::string_view what, int err) {
  std::string msg = std::string(what) + ": " + std::strerror(err) + " (errno " + std::to_string(err) + ")";
  switch (err) {
    case ENOENT: return Status(ErrorCode::kNotFound, std::move(msg));
    case EACCES:
    case EPERM:
    case EROFS: return Status(ErrorCode::kPermissionDenied, std::move(msg));
    case ENOSPC:
    case EDQUOT: return Status(ErrorCode::kResourceExhausted, std::move(msg));
    case EAGAIN:
    case EINTR: return Status(ErrorCode::kTransient, std::move(msg));
    case EEXIST: return Status(ErrorCode::kAlreadyExists, std::move(msg));
    default: return Status(ErrorCode::kIo, std::move(msg));
  }
}

namespace internal {
void CheckFailed(const char* file, int line, const char* expr) {
  std::fprintf(stderr, "omnigraph: check failed at %s:%d: %s\n", file, line, expr);
  std::abort();
}
}  // namespace internal

}  // namespace omnigraph
