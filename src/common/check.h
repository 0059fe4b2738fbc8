// Programming-error checks (never for user input): OG_CHECK always aborts with file:line;
// OG_DCHECK only in debug builds; OG_UNREACHABLE marks impossible paths.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace omnigraph::internal {
[[noreturn]] void CheckFailed(const char* file, int line, const char* expr);
}  // namespace omnigraph::internal

#define OG_CHECK(cond)                                                          \
  do {                                                                          \
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
// Use them with omnigraph::Mutex (common/mutex.h); clang builds check them (-Wthread-safety).
#if defined(__clang__)
#define OG_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define OG_THREAD_ANNOTATION(x)
#endif
#define OG_GUARDED_BY(x) OG_THREAD_ANNOTATION(guarded_by(x))
#define OG_PT_GUARDED_BY(x) OG_THREAD_ANNOTATION(pt_guarded_by(x))
#define OG_REQUIRES(...) OG_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define OG_EXCLUDES(...) OG_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define OG_CAPABILITY(x) OG_THREAD_ANNOTATION(capability(x))
#define OG_SCOPED_CAPABILITY OG_THREAD_ANNOTATION(scoped_lockable)
#define OG_ACQUIRE(...) OG_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define OG_RELEASE(...) OG_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define OG_ACQUIRE_SHARED(...) OG_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define OG_RELEASE_SHARED(...) OG_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define OG_RELEASE_GENERIC(...) OG_THREAD_ANNOTATION(release_generic_capability(__VA_ARGS__))
#define OG_NO_THREAD_SAFETY_ANALYSIS OG_THREAD_ANNOTATION(no_thread_safety_analysis)
