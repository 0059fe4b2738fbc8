// TuneProcessAllocator (include/omnigraph/omnigraph.h): glibc malloc settings for query processes.
#include <cstddef>

#include "omnigraph/omnigraph.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace omnigraph {

bool TuneProcessAllocator() {
#if defined(__GLIBC__)
  constexpr int kMmapThreshold = 32 << 20;   // blocks below this come from the heap
  constexpr int kTrimThreshold = 256 << 20;  // free heap kept before any is returned
  // Setting either turns off glibc's dynamic threshold, which otherwise follows the largest
  // block freed so far and so keeps changing while a process runs queries of different sizes.
  // One arena for every thread. glibc otherwise gives threads (a server's request threads, the
  // thread pool) arenas of their own, whose heaps are mapped in pieces of at most 64 MiB and
  // returned when freed, so their large blocks fault in again on every query whatever the
  // thresholds (a grouped query over 278k edges: 37 ms from a request thread, 21 ms from the main
  // one). Small blocks still come from per-thread caches without the arena's lock. Only threads
  // that have not allocated yet are affected: call this first thing.
  return mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 && mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1 &&
         mallopt(M_ARENA_MAX, 1) == 1;
#else
  return false;
#endif
}

}  // namespace omnigraph
