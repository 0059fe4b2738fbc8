// Result<T>: a value or an error Status (docs/architecture.md, "Code conventions").
#pragma once

#include <cstdlib>
#include <optional>
#include <utility>

#include "omnigraph/status.h"

namespace omnigraph {

template <class T>
class [[nodiscard]] Result {
 public:
  // Implicit from a value or from an error status (never from an ok status: that aborts).
  Result(T value) : value_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (status_.ok()) std::abort();                     // a Result needs a value or an error
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const& { return status_; }
  Status status() && { return std::move(status_); }

  // Preconditions: ok(). Violations abort.
  T& value() & {
    Check();
    return *value_;
  }
  const T& value() const& {
    Check();
    return *value_;
  }
  T&& value() && {
    Check();
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  T value_or(T fallback) const& { return ok() ? *value_ : std::move(fallback); }

 private:
  void Check() const {
    if (!value_.has_value()) std::abort();
  }
  Status status_;
  std::optional<T> value_;
};

}  // namespace omnigraph

#define OG_STATUS_CONCAT_INNER_(a, b) a##b
#define OG_STATUS_CONCAT_(a, b) OG_STATUS_CONCAT_INNER_(a, b)

// Returns the status from the enclosing function if `expr` (a Status or Result) is an error.
#define OG_RETURN_IF_ERROR(expr)                                                                      \
  do {                                                                                                \
    auto&& og_status_tmp_ = (expr);                                                                   \
    if (!og_status_tmp_.ok())                                                                         \
      return ::omnigraph::internal::ToStatus(std::forward<decltype(og_status_tmp_)>(og_status_tmp_)); \
  } while (0)

// `OG_ASSIGN_OR_RETURN(auto x, MakeX());` declares/assigns x or returns the error.
#define OG_ASSIGN_OR_RETURN(lhs, expr) OG_ASSIGN_OR_RETURN_IMPL_(OG_STATUS_CONCAT_(og_result_, __LINE__), lhs, expr)
#define OG_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return std::move(tmp).status();  \
  lhs = std::move(tmp).value()

namespace omnigraph::internal {
inline Status ToStatus(const Status& s) { return s; }
inline Status ToStatus(Status&& s) { return std::move(s); }
template <class T>
Status ToStatus(const Result<T>& r) {
  return r.status();
}
template <class T>
Status ToStatus(Result<T>&& r) {
  return std::move(r).status();
}
}  // namespace omnigraph::internal
