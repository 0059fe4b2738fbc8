#include <atomic>

#include <gtest/gtest.h>

#include "common/error_codes.h"
#include "common/thread_pool.h"

namespace omnigraph {
namespace {

TEST(ThreadPoolTest, SubmitReturnsValues) {
  ThreadPool pool(3);
  auto a = pool.Submit([] { return 40; });
  auto b = pool.Submit([] { return 2; });
  EXPECT_EQ(a.get() + b.get(), 42);
}

TEST(ThreadPoolTest, ParallelForRunsEveryIndexOnceAndReportsFirstError) {
  ThreadPool pool(4);
  std::vector<std::atomic<int>> seen(1000);
  Status s = pool.ParallelFor(1000, [&](size_t i) {
    seen[i].fetch_add(1);
    if (i == 700 || i == 300) return InvalidArgumentError("bad " + std::to_string(i));
    return Status::Ok();
  });
  for (auto& v : seen) EXPECT_EQ(v.load(), 1);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "bad 300");
  EXPECT_TRUE(pool.ParallelFor(0, [](size_t) { return Status::Ok(); }).ok());
}

TEST(ThreadPoolTest, DestructorDrainsQueue) {
  std::atomic<int> n{0};
  {
    ThreadPool pool(2);
    for (int i = 0; i < 100; ++i) (void)pool.Submit([&] { n.fetch_add(1); });
  }
  EXPECT_EQ(n.load(), 100);
}

}  // namespace
}  // namespace omnigraph

namespace omnigraph {
namespace {
TEST(ThreadPoolTest, NestedParallelForDoesNotDeadlock) {
  ThreadPool pool(2);
  std::atomic<int> leaves{0};
  Status s = pool.ParallelFor(8, [&](size_t) {
    return pool.ParallelFor(8, [&](size_t) {
      leaves++;
      return Status::Ok();
    });
  });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(leaves.load(), 64);
}
}  // namespace
}  // namespace omnigraph
