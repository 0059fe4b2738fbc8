// ByteLruCache: budget in bytes, least-recently-used eviction, oversized entries, concurrency.
#include "common/lru_cache.h"

#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace omnigraph {
namespace {

std::shared_ptr<const std::string> S(std::string s) { return std::make_shared<const std::string>(std::move(s)); }

TEST(ByteLruCacheTest, EvictsLeastRecentlyUsedOverBudget) {
  ByteLruCache c(100);
  c.Put("a", S("A"), 40);
  c.Put("b", S("B"), 40);
  ASSERT_NE(c.Get<std::string>("a"), nullptr);  // a is now more recent than b
  c.Put("c", S("C"), 40);                       // 120 > 100: b goes
  EXPECT_EQ(c.Get<std::string>("b"), nullptr);
  EXPECT_EQ(*c.Get<std::string>("a"), "A");
  EXPECT_EQ(*c.Get<std::string>("c"), "C");
  auto st = c.stats();
  EXPECT_EQ(st.used, 80u);
  EXPECT_EQ(st.entries, 2u);
  EXPECT_EQ(st.evictions, 1u);
  EXPECT_LE(st.used, st.budget);
}

TEST(ByteLruCacheTest, KeepsTheFirstValueAndSkipsOversizedEntries) {
  ByteLruCache c(100);
  c.Put("k", S("first"), 10);
  c.Put("k", S("second"), 10);
  EXPECT_EQ(*c.Get<std::string>("k"), "first");
  c.Put("huge", S("x"), 101);
  EXPECT_EQ(c.Get<std::string>("huge"), nullptr);
  EXPECT_EQ(*c.Get<std::string>("k"), "first");  // nothing was evicted for it
  ByteLruCache none(0);
  none.Put("k", S("v"), 1);
  EXPECT_EQ(none.Get<std::string>("k"), nullptr);
  c.Clear();
  EXPECT_EQ(c.stats().used, 0u);
}

TEST(ByteLruCacheTest, ConcurrentUseStaysWithinBudget) {
  ByteLruCache c(1000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&c, t] {
      for (int i = 0; i < 2000; ++i) {
        std::string key = std::to_string((i * 7 + t) % 300);
        if (auto v = c.Get<std::string>(key)) {
          EXPECT_EQ(*v, key);
        } else {
          c.Put(key, S(key), 10 + i % 20);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_LE(c.stats().used, 1000u);
}

}  // namespace
}  // namespace omnigraph
