// Status: the error type of every Omnigraph API (docs/architecture.md, "Code conventions").
// A Status is ok, or carries a user-facing error code (from src/common/error_codes.def), a category,
// a message, an optional source span and optional structured details (a JSON text).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace omnigraph {

// Broad category of an error. Only the server maps categories to HTTP statuses and only the CLI maps
// them to exit codes.
enum class StatusCode : uint8_t {
  kOk = 0,
  kNotFound,
  kAlreadyExists,
  kTransient,
  kPermissionDenied,
  kCorrupt,
  kIo,
  kInvalidArgument,
  kConflict,
  kPreconditionFailed,
  kResourceExhausted,
  kSnapshotReclaimed,
  kUnimplemented,
  kInternal,
};

// The user-facing code (e.g. "T12", "key_conflict"). Defined in src/common/error_codes.h; embedders
// compare `code_string()` instead.
enum class ErrorCode : uint16_t;

// 1-based position in a source file (query, schema, NDJSON line).
struct SourceSpan {
  std::string file;  // may be empty
  uint32_t line = 0;
  uint32_t column = 0;
  uint32_t end_line = 0;
  uint32_t end_column = 0;
};

// One error of a rejected load (an input line) or mutation (a statement): a load or mutation that
// fails validation lists every error it found (up to its max_errors), not just the first.
struct ErrorItem {
  ErrorCode code;
  std::string message;
  std::optional<uint64_t> line;       // loads: the 1-based input line (0: the load as a whole)
  std::optional<uint64_t> statement;  // mutations: the 1-based statement (0: the query as a whole)
};

// The user-facing name of a code ("load_enum_value", "merge_conflict", ...; docs/errors.md).
std::string_view ErrorCodeName(ErrorCode code);

// Value type; cheap to copy when ok (a null pointer). Thread-compatible.
class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(ErrorCode code, std::string message);
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;

  static Status Ok() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  StatusCode category() const;
  ErrorCode code() const;                // precondition: !ok()
  std::string_view code_string() const;  // "ok" when ok
  const std::string& message() const;    // empty when ok
  const std::optional<SourceSpan>& span() const;
  const std::string& details() const;  // JSON text or empty
  // The errors of a rejected load or mutation (empty otherwise), and whether more were found than
  // listed. The same list is in details() as {"errors":[...],"truncated":bool}.
  const std::vector<ErrorItem>& errors() const;
  bool errors_truncated() const;

  // Builders; return a copy with the field set (no-ops on an ok status).
  Status WithSpan(SourceSpan span) const;
  Status WithDetails(std::string json) const;
  // Sets errors() and details() (the JSON form of the list) together.
  Status WithErrors(std::vector<ErrorItem> errors, bool truncated) const;
  // Prefixes the message with "context: ".
  Status WithContext(std::string_view context) const;

  // "code: message (at file:line:col)".
  std::string ToString() const;

  // Deliberately ignores the status; spelled out at the call site.
  void IgnoreError() const {}

 private:
  struct State;
  struct StateDeleter {
    void operator()(State* s) const;
  };
  std::unique_ptr<State, StateDeleter> state_;
};

}  // namespace omnigraph
