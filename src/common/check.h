// Programming-error checks (never for user input): OG_CHECK always aborts with file:line;
// OG_DCHECK only in debug builds; OG_UNREACHABLE marks impossible paths.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace omnigraph::internal {
[[noreturn]] void CheckFailed(const char* file, int line, const char* expr);
}  // namespace omnigraph::internal

#define OG_CHECK(cond)                                                     \
  do {                                                                     \
    if (!(cond)) ::omnigraph::internal::CheckFailed(__FILE__, __LINE__, #cond); \
  } while (0)

#ifndef NDEBUG
#define OG_DCHECK(cond) OG_CHECK(cond)
#else
#define OG_DCHECK(cond) \
  do {                  \
  } while (false && (cond))
#endif

#define OG_UNREACHABLE() ::omnigraph::internal::CheckFailed(__FILE__, __LINE__, "unreachable")

// Clang thread-safety annotations (no-ops elsewhere).
#if defined(__clang__)
#define OG_GUARDED_BY(x) __attribute__((guarded_by(x)))
#define OG_REQUIRES(...) __attribute__((requires_capability(__VA_ARGS__)))
#else
#define OG_GUARDED_BY(x)
#define OG_REQUIRES(...)
#endif
