// Storage-request budgets on S3 (docs/architecture.md, "S3 cost model"), as deterministic counts:
// the engine on the S3 backend against the S3 test server, every HTTP request counted by the
// client (S3Store::stats, retries included) and sequential round trips measured by a LatencyStore
// (a request that starts while no other is in flight opens a new round).
//  - a warm one-row load and a warm one-row mutation: <= 8 requests, <= 4 round trips (the
//    mutation compiles against the schema the handle last saw and reads the head once, inside the
//    write); both the same whatever the history length (1, 100 commits) and the type count (4, 100
//    types);
//  - a warm branch create: <= 3 requests;
//  - a cold one-hop query from a key: a fixed number of round trips (kColdOneHopRounds), the same
//    on a graph of 10k edges and one of 1M edges.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "compiler/type_checker.h"
#include "engine/derived/optimize.h"
#include "engine/derived/read_cache.h"
#include "engine/exec/executor.h"
#include "engine/graph/graph.h"
#include "engine/graph/graph_layout.h"
#include "engine/load/loader.h"
#include "engine/mutate/mutation.h"
#include "io/counting_store.h"
#include "io/disk_cache_store.h"
#include "io/latency_store.h"
#include "s3_server/s3_test_env.h"

namespace omnigraph::engine {
namespace {

using s3server::TestS3;

// The delay that makes parallel requests overlap (LatencyStore's rounds need it).
constexpr int64_t kDelayMicros = 20000;
// Sequential round trips of a cold one-hop query from a key (open, head, plan, read): stated here
// and in docs/architecture.md.
constexpr uint64_t kColdOneHopRounds = 13;

struct Stack {
  std::unique_ptr<TestS3> s3;
  std::shared_ptr<io::s3::S3Store> store;
  std::shared_ptr<io::CountingStore> counting;
  std::shared_ptr<io::LatencyStore> slow;  // measured requests go through this

  uint64_t http() const { return store->stats().requests.load(); }
};

Stack MakeStack() {
  Stack s;
  auto env = TestS3::Start();
  EXPECT_TRUE(env.ok()) << env.status().ToString();
  s.s3 = std::move(env).value();
  auto store = s.s3->Open();
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  s.store = std::shared_ptr<io::s3::S3Store>(std::move(store).value());
  s.counting = std::make_shared<io::CountingStore>(s.store);
  s.slow = std::make_shared<io::LatencyStore>(s.counting, kDelayMicros);
  return s;
}

std::string SchemaWithTypes(int types) {
  std::string s = "node Person { name: String @key, age: I32? }\nedge Knows: Person -> Person\n";
  for (int i = 1; i < types; ++i) s += "node Extra" + std::to_string(i) + " { slug: String @key }\n";
  return s;
}

struct Cost {
  uint64_t http = 0, rounds = 0;
  std::string detail;
};

enum class Write { kLoad, kMutation, kBranchCreate };

Cost MeasureWarmWrite(Write what, int prior_commits, int types) {
  Stack s = MakeStack();
  auto init = Graph::Init(s.counting, SchemaWithTypes(types));
  EXPECT_TRUE(init.ok()) << init.status().ToString();
  LoadOptions o;
  for (int i = 1; i < prior_commits; ++i) {
    EXPECT_TRUE(LoadNdjson(**init, R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + R"("}})", o).ok());
  }
  auto g = Graph::Open(s.slow);
  EXPECT_TRUE(g.ok());
  // Warm the handle: one write first (caches the head, manifests, id segments).
  EXPECT_TRUE(LoadNdjson(**g, R"({"type":"Person","data":{"name":"warm"}})", o).ok());
  EXPECT_TRUE((*g)->CreateBranch("warm").ok());
  const uint64_t before = s.http();
  s.counting->Reset();
  s.slow->ResetRounds();
  switch (what) {
    case Write::kLoad:
      EXPECT_TRUE(LoadNdjson(**g, R"({"type":"Person","data":{"name":"measured","age":3}})", o).ok());
      break;
    case Write::kMutation: {
      MutationOptions m;
      auto r = RunMutation(**g, R"(query q() { insert Person { name: "measured", age: 3 } })", "{}", m);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      break;
    }
    case Write::kBranchCreate: EXPECT_TRUE((*g)->CreateBranch("measured").ok()); break;
  }
  return Cost{s.http() - before, s.slow->sequential_rounds(), s.counting->counts().ToString()};
}

TEST(S3BudgetTest, OneRowWritesAreFlatInHistoryAndTypes) {
  for (Write what : {Write::kLoad, Write::kMutation}) {
    const char* name = what == Write::kLoad ? "one-row load" : "one-row mutation";
    Cost base = MeasureWarmWrite(what, 1, 4);
    EXPECT_LE(base.http, 8u) << name << ": " << base.detail;
    EXPECT_LE(base.rounds, 4u) << name << ": " << base.detail;
    for (auto [commits, types] : {std::pair{100, 4}, std::pair{1, 100}}) {
      Cost c = MeasureWarmWrite(what, commits, types);
      EXPECT_EQ(c.http, base.http) << name << ", " << commits << " commits, " << types << " types: " << c.detail;
      EXPECT_EQ(c.rounds, base.rounds) << name << ", " << commits << " commits, " << types << " types";
    }
    std::printf("%s on S3: %llu HTTP requests, %llu sequential round trips (%s)\n", name,
                static_cast<unsigned long long>(base.http), static_cast<unsigned long long>(base.rounds),
                base.detail.c_str());
  }
}

TEST(S3BudgetTest, BranchCreateIsAtMostThreeRequests) {
  Cost c = MeasureWarmWrite(Write::kBranchCreate, 1, 4);
  EXPECT_LE(c.http, 3u) << c.detail;
  std::printf("branch create on S3: %llu HTTP requests, %llu sequential round trips (%s)\n",
              static_cast<unsigned long long>(c.http), static_cast<unsigned long long>(c.rounds), c.detail.c_str());
}

// A graph of `people` persons, each knowing 10 others, loaded in one commit and optimized (the
// read structures stored, as a served graph has them). With `disk_cache`, the measured process
// reads through a local disk cache (io/disk_cache_store.h) that an earlier cold process filled.
Cost MeasureColdOneHop(int people, bool disk_cache = false) {
  Stack s = MakeStack();
  auto init = Graph::Init(s.counting, SchemaWithTypes(1));
  EXPECT_TRUE(init.ok()) << init.status().ToString();
  std::string data;
  for (int i = 0; i < people; ++i)
    data += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) +
            R"("}})"
            "\n";
  for (int i = 0; i < people; ++i) {
    for (int k = 1; k <= 10; ++k) {
      data += R"({"edge":"Knows","from":"p)" + std::to_string(i) + R"(","to":"p)" +
              std::to_string((i * 7 + k * 13) % people) + "\"}\n";
    }
  }
  auto loaded = LoadNdjson(**init, data, LoadOptions{});
  EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  auto head = (*init)->Head("main");
  EXPECT_TRUE(head.ok());
  auto derived = BuildDerivedObjects(*head);
  EXPECT_TRUE(derived.ok()) << derived.status().ToString();

  std::shared_ptr<io::ObjectStore> measured = s.slow;
  std::string cache_dir;
  if (disk_cache) {
    cache_dir = ::testing::TempDir() + "og-budget-cache-" + std::to_string(people);
    std::filesystem::remove_all(cache_dir);
    io::DiskCacheOptions o;
    o.dir = cache_dir;
    o.cacheable = IsDiskCacheableKey;
    auto cached = io::DiskCacheStore::Open(s.slow, o);
    EXPECT_TRUE(cached.ok()) << cached.status().ToString();
    measured = std::move(*cached);
  }
  // A fresh process: no handle, no caches in memory.
  auto cold_query = [&] {
    GraphReadCache cold(uint64_t{1} << 30);
    auto g = Graph::Open(measured);
    EXPECT_TRUE(g.ok());
    auto snap = (*g)->Head("main");
    EXPECT_TRUE(snap.ok());
    auto queries = compiler::CompileQueries(
        snap->catalog(), R"(query q() { match { $a: Person { name: "p42" } $a knows $b } return { $b.name } })");
    EXPECT_TRUE(queries.ok()) << queries.status().ToString();
    auto result = ExecuteQuery(*snap, queries->front(), {}, 0, &cold);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(result.ok() ? result->rows.size() : 0u, 10u);
  };
  if (disk_cache) cold_query();  // fills the disk cache

  const uint64_t before = s.http();
  s.counting->Reset();
  s.counting->set_trace(true);
  s.slow->ResetRounds();
  cold_query();
  std::string detail = s.counting->counts().ToString();
  for (const std::string& line : s.counting->trace()) detail += "\n  " + line;
  if (!cache_dir.empty()) std::filesystem::remove_all(cache_dir);
  return Cost{s.http() - before, s.slow->sequential_rounds(), detail};
}

TEST(S3BudgetTest, ColdOneHopFromAKeyTakesAFixedNumberOfRoundTrips) {
  Cost small = MeasureColdOneHop(1000);
  Cost large = MeasureColdOneHop(100000);
  EXPECT_LE(small.rounds, kColdOneHopRounds) << small.detail;
  EXPECT_LE(large.rounds, kColdOneHopRounds) << large.detail;
  std::printf("cold one-hop from a key on S3: %llu / %llu HTTP requests (10k / 1M edges), %llu round trips (%s)\n",
              static_cast<unsigned long long>(small.http), static_cast<unsigned long long>(large.http),
              static_cast<unsigned long long>(large.rounds), large.detail.c_str());
}

}  // namespace
}  // namespace omnigraph::engine

namespace omnigraph::engine {
namespace {

// With a disk cache that an earlier process filled, a cold process asks the store only for what
// can change or names a version (format stamp, refs, commit, schema, manifests): no fragment,
// index or derived object, and a few kilobytes instead of the adjacency.
TEST(S3BudgetTest, ColdOneHopThroughAFilledDiskCacheReadsOnlyMetadata) {
  Cost c = MeasureColdOneHop(100000, /*disk_cache=*/true);
  EXPECT_LE(c.http, 10u) << c.detail;
  EXPECT_EQ(c.detail.find(".ogf"), std::string::npos) << c.detail;
  EXPECT_EQ(c.detail.find("derived/"), std::string::npos) << c.detail;
  std::printf(
      "cold one-hop from a key on S3 through a filled disk cache (1M edges): %llu HTTP requests, %llu round "
      "trips (%s)\n",
      static_cast<unsigned long long>(c.http), static_cast<unsigned long long>(c.rounds), c.detail.c_str());
}

}  // namespace
}  // namespace omnigraph::engine

namespace omnigraph::engine {
namespace {

// A warm handle answering a key lookup reads the branch head (to see other processes' commits)
// and nothing else: the first lookups read just their rows' bytes, and once a column has been read
// by point GraphReadCache::kPointReadsBeforeWhole times it is read whole and kept.
TEST(S3BudgetTest, WarmKeyLookupReadsOnlyTheHead) {
  Stack s = MakeStack();
  auto init = Graph::Init(s.counting, SchemaWithTypes(1));
  ASSERT_TRUE(init.ok()) << init.status().ToString();
  std::string data;
  for (int i = 0; i < 20000; ++i)
    data += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) +
            R"(","age":1}})"
            "\n";
  ASSERT_TRUE(LoadNdjson(**init, data, LoadOptions{}).ok());
  auto g = Graph::Open(s.slow);
  ASSERT_TRUE(g.ok());
  GraphReadCache cache(uint64_t{1} << 30);
  auto lookup = [&](const std::string& key) {
    auto snap = (*g)->Head("main");
    ASSERT_TRUE(snap.ok());
    auto queries = compiler::CompileQueries(
        snap->catalog(), "query q() { match { $p: Person { name: \"" + key + "\" } } return { $p.age } }");
    ASSERT_TRUE(queries.ok()) << queries.status().ToString();
    auto result = ExecuteQuery(*snap, queries->front(), {}, 0, &cache);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(result->rows.size(), 1u);
  };
  for (uint32_t i = 0; i <= GraphReadCache::kPointReadsBeforeWhole; ++i) lookup("p" + std::to_string(17 + i * 1000));
  s.counting->Reset();
  s.counting->set_trace(true);
  s.slow->ResetRounds();
  lookup("p19999");
  std::string detail = s.counting->counts().ToString();
  for (const std::string& line : s.counting->trace()) detail += "\n  " + line;
  EXPECT_LE(s.counting->counts().total(), 1u) << detail;
  std::printf("warm key lookup on S3: %llu requests, %llu round trips (%s)\n",
              static_cast<unsigned long long>(s.counting->counts().total()),
              static_cast<unsigned long long>(s.slow->sequential_rounds()), detail.c_str());
}

}  // namespace
}  // namespace omnigraph::engine
