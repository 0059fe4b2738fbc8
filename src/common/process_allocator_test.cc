#include <cstdlib>
#include <cstring>

#include <gtest/gtest.h>

#include "omnigraph/omnigraph.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace omnigraph {
namespace {

#if defined(__GLIBC__)
// After TuneProcessAllocator a 16 MiB block comes from the heap (no mapping of its own), and
// freeing it keeps the memory in the process.
TEST(ProcessAllocatorTest, LargeBlocksStayInTheHeap) {
  ASSERT_TRUE(TuneProcessAllocator());
  const size_t mapped_before = mallinfo2().hblkhd;
  void* p = std::malloc(16 << 20);
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, 16 << 20);
  EXPECT_EQ(mallinfo2().hblkhd, mapped_before);
  const size_t heap = mallinfo2().arena;
  std::free(p);
  EXPECT_EQ(mallinfo2().arena, heap);  // not trimmed
}
#endif

}  // namespace
}  // namespace omnigraph
