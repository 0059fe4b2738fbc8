#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

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

// A thread started after TuneProcessAllocator allocates from the tuned heap (arena 0) instead of
// an arena of its own, whose heaps glibc maps and unmaps apart (a server's request threads paid
// for that on every query). Run in a fresh process (a threadsafe death-test child re-runs this
// test alone), since glibc hands a new thread any arena an earlier thread of the process left.
TEST(ProcessAllocatorTest, ThreadsShareTheTunedHeap) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        if (!TuneProcessAllocator()) std::_Exit(2);
        std::thread t([] {
          void* p = std::malloc(20 << 20);
          std::memset(p, 1, 20 << 20);
          std::free(p);
        });
        t.join();
        // malloc_info lists one <heap nr="..."> per arena.
        char* text = nullptr;
        size_t size = 0;
        FILE* f = open_memstream(&text, &size);
        if (f == nullptr || malloc_info(0, f) != 0) std::_Exit(3);
        std::fclose(f);
        int arenas = 0;
        for (const char* at = text; (at = std::strstr(at, "<heap nr=")) != nullptr; ++at) ++arenas;
        std::free(text);
        std::_Exit(arenas == 1 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}
#endif

}  // namespace
}  // namespace omnigraph
