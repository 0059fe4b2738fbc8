// CountingStore, LatencyStore and FaultStore behaviour.
#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "common/clock.h"
#include "common/error_codes.h"
#include "io/counting_store.h"
#include "io/fault_store.h"
#include "io/latency_store.h"
#include "io/memory_store.h"

namespace omnigraph::io {
namespace {

TEST(CountingStoreTest, CountsRequestsAndBytes) {
  auto mem = std::make_shared<MemoryStore>();
  CountingStore c(mem);
  ASSERT_TRUE(c.Put("a", "12345").ok());
  ASSERT_TRUE(c.PutIfAbsent("b", "xy").ok());
  EXPECT_FALSE(c.PutIfAbsent("b", "zz").ok());
  ASSERT_TRUE(c.Get("a").ok());
  ASSERT_TRUE(c.GetRange("a", 1, 2).ok());
  ASSERT_TRUE(c.Head("a").ok());
  ASSERT_TRUE(c.Delete("a").ok());
  StoreCounts n = c.counts();
  EXPECT_EQ(n.of(StoreOp::kPut), 1u);
  EXPECT_EQ(n.of(StoreOp::kPutIfAbsent), 2u);
  EXPECT_EQ(n.of(StoreOp::kGet), 1u);
  EXPECT_EQ(n.of(StoreOp::kGetRange), 1u);
  EXPECT_EQ(n.of(StoreOp::kHead), 1u);
  EXPECT_EQ(n.of(StoreOp::kDelete), 1u);
  EXPECT_EQ(n.total(), 7u);
  EXPECT_EQ(n.bytes_read, 7u);
  EXPECT_EQ(n.bytes_written, 9u);
  c.Reset();
  EXPECT_EQ(c.counts().total(), 0u);
}

TEST(CountingStoreTest, ListCountsOnePerPage) {
  auto mem = std::make_shared<MemoryStore>();
  for (int i = 0; i < 2500; ++i) ASSERT_TRUE(mem->Put("k/" + std::to_string(10000 + i), "").ok());
  CountingStore c(mem);
  auto all = c.List("k/");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 2500u);
  EXPECT_EQ(c.counts().of(StoreOp::kList), 3u);
}

// Records the maximum number of concurrent requests it sees.
class ProbeStore : public MemoryStore {
 public:
  Result<std::string> Get(std::string_view key) override {
    int now = ++in_flight_;
    int prev = max_.load();
    while (now > prev && !max_.compare_exchange_weak(prev, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    --in_flight_;
    return MemoryStore::Get(key);
  }
  std::atomic<int> in_flight_{0}, max_{0};
};

TEST(LatencyStoreTest, DelaysEveryRequestAndCapsConcurrency) {
  auto probe = std::make_shared<ProbeStore>();
  ASSERT_TRUE(probe->Put("k", "v").ok());
  LatencyStore slow(probe, /*delay_micros=*/3000, /*max_concurrency=*/2);
  int64_t start = MonotonicNanos();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(slow.Get("k").ok());
  EXPECT_GE(MonotonicNanos() - start, 5 * 3'000'000);  // 5 sequential round trips at least
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) threads.emplace_back([&] { EXPECT_TRUE(slow.Get("k").ok()); });
  for (auto& th : threads) th.join();
  EXPECT_LE(probe->max_.load(), 2);
  EXPECT_GE(probe->max_.load(), 1);
}

TEST(FaultStoreTest, FailsTheNthMatchingRequestOnly) {
  auto mem = std::make_shared<MemoryStore>();
  FaultStore f(mem);
  FaultRule r;
  r.ops = OpBit(StoreOp::kPut);
  r.key_contains = "data/";
  r.nth = 2;
  f.AddRule(r);
  EXPECT_TRUE(f.Put("data/1", "a").ok());
  EXPECT_TRUE(f.Put("meta/1", "a").ok());  // does not match the key pattern
  Status s = f.Put("data/2", "b");
  EXPECT_EQ(s.code(), ErrorCode::kInjectedFault);
  EXPECT_EQ(mem->Get("data/2").status().category(), StatusCode::kNotFound);  // did not happen
  EXPECT_TRUE(f.Put("data/3", "c").ok());                                    // fires once
  EXPECT_TRUE(f.fired());
  EXPECT_FALSE(f.crashed());
  EXPECT_EQ(f.requests(), 4u);
}

TEST(FaultStoreTest, CrashBeforeAndAfter) {
  auto mem = std::make_shared<MemoryStore>();
  {
    FaultStore f(mem);
    f.FailAt(2, FaultAction::kCrashBefore);
    EXPECT_TRUE(f.Put("a", "1").ok());
    EXPECT_FALSE(f.PutIfAbsent("b", "2").ok());
    EXPECT_TRUE(f.crashed());
    EXPECT_FALSE(f.Get("a").ok());  // everything fails after the crash
    EXPECT_EQ(mem->Get("b").status().category(), StatusCode::kNotFound);
    EXPECT_EQ(*mem->Get("a"), "1");  // "reopen" on the base store
  }
  {
    FaultStore f(mem);
    f.FailAt(1, FaultAction::kCrashAfter);
    EXPECT_FALSE(f.PutIfAbsent("c", "3").ok());  // caller sees an error...
    EXPECT_EQ(*mem->Get("c"), "3");              // ...but the write landed
    EXPECT_TRUE(f.crashed());
    f.Reset();
    EXPECT_TRUE(f.Get("c").ok());
  }
}

TEST(FaultStoreTest, CrashBeforeAPutLeavesNoVisibleObject) {
  auto mem = std::make_shared<MemoryStore>();
  ASSERT_TRUE(mem->Put("obj", "old").ok());
  FaultStore f(mem);
  FaultRule r;
  r.ops = kWriteOps;
  r.action = FaultAction::kCrashBefore;
  f.AddRule(r);
  EXPECT_FALSE(f.Put("obj", "new").ok());
  EXPECT_FALSE(f.PutIfAbsent("fresh", "x").ok());
  EXPECT_EQ(*mem->Get("obj"), "old");
  EXPECT_EQ(mem->Get("fresh").status().category(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace omnigraph::io
