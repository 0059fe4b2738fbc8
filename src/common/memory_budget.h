// The default memory budget of one load or one read query: half of the memory this process may
// use (the physical memory, or a smaller cgroup v1/v2 limit), at least 1 GiB; 4 GiB when neither
// can be read. Computed once per process. Thread-safe.
#pragma once

#include <cstdint>

namespace omnigraph {

uint64_t DefaultMemoryBudgetBytes();

}  // namespace omnigraph
