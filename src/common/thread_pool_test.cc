#include <atomic>
#include <thread>

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

TEST(ThreadPoolTest, StartsThreadsOnlyWhenWorkIsQueued) {
  ThreadPool pool(8);
  EXPECT_EQ(pool.size(), 8u);
  EXPECT_EQ(pool.started(), 0u);
  // Tasks one after another: the first starts a thread, which is idle when the next arrives.
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(pool.Submit([i] { return i; }).get(), i);
    while (pool.idle() < pool.started()) std::this_thread::yield();  // back to waiting
  }
  EXPECT_EQ(pool.started(), 1u);
  // Four bodies that can only finish together need the caller and three more threads; the pool
  // never starts more than its maximum.
  std::atomic<int> arrived{0};
  ASSERT_TRUE(pool.ParallelFor(4,
                               [&](size_t) {
                                 arrived.fetch_add(1);
                                 while (arrived.load() < 4) std::this_thread::yield();
                                 return Status::Ok();
                               })
                  .ok());
  EXPECT_GE(pool.started(), 3u);
  EXPECT_LE(pool.started(), 8u);
  std::atomic<int> done{0};
  ASSERT_TRUE(pool.ParallelFor(100,
                               [&](size_t) {
                                 done.fetch_add(1);
                                 return Status::Ok();
                               })
                  .ok());
  EXPECT_EQ(done.load(), 100);
  EXPECT_LE(pool.started(), 8u);
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
