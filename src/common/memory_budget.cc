#include "common/memory_budget.h"

#include <algorithm>
#include <fstream>

#include <unistd.h>

namespace omnigraph {

namespace {
// The memory this process may use: the physical memory, or a smaller cgroup (container) limit
// (v2 memory.max, v1 memory.limit_in_bytes; "max" and absurd values mean none). 0 if unknown.
uint64_t AvailableMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  uint64_t bytes = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    uint64_t limit = 0;
    if (in >> limit && limit > 0 && limit < (uint64_t{1} << 50)) bytes = bytes == 0 ? limit : std::min(bytes, limit);
  }
  return bytes;
}
}  // namespace

uint64_t DefaultMemoryBudgetBytes() {
  static const uint64_t bytes = [] {
    const uint64_t available = AvailableMemoryBytes();
    if (available == 0) return uint64_t{4} << 30;
    return std::max<uint64_t>(uint64_t{1} << 30, available / 2);
  }();
  return bytes;
}

}  // namespace omnigraph
