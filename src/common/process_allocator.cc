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
  return mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 && mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1;
#else
  return false;
#endif
}

}  // namespace omnigraph
