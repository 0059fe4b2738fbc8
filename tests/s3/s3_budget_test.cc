// Storage-request budgets on S3 (docs/architecture.md, "S3 cost model"), as deterministic counts:
// the engine on the S3 backend against the S3 test server, every HTTP request counted by the
// client (S3Store::stats, retries included) and sequential round trips measured by a LatencyStore
// (a request that starts while no other is in flight opens a new round).
//  - a warm one-row load: <= 8 requests, <= 4 round trips; a warm one-row mutation: <= 8 requests,
//    <= 5 round trips (it reads the head once more to compile against its schema); both the same
//    whatever the history length (1, 100 commits) and the type count (4, 100 types);
//  - a warm branch create: <= 3 requests;
//  - a cold one-hop query from a key: a fixed number of round trips (kColdOneHopRounds), the same
//    on a graph 10x larger.
#include <cstdio>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "compiler/type_checker.h"
#include "engine/derived/optimize.h"
#include "engine/derived/read_cache.h"
#include "engine/exec/executor.h"
#include "engine/graph/graph.h"
#include "engine/load/loader.h"
#include "engine/mutate/mutation.h"
#include "io/counting_store.h"
#include "io/latency_store.h"
#include "s3_server/s3_test_env.h"

namespace omnigraph::engine {
namespace {

using s3server::TestS3;

// The delay that makes parallel requests overlap (LatencyStore's rounds need it).
constexpr int64_t kDelayMicros = 20000;
// Sequential round trips of a cold one-hop query from a key (open, head, plan, read): stated here
// and in docs/architecture.md.
constexpr uint64_t kColdOneHopRounds = 12;

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
    EXPECT_LE(base.rounds, what == Write::kLoad ? 4u : 5u) << name << ": " << base.detail;
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
// read structures stored, as a served graph has them).
Cost MeasureColdOneHop(int people) {
  Stack s = MakeStack();
  auto init = Graph::Init(s.counting, SchemaWithTypes(1));
  EXPECT_TRUE(init.ok()) << init.status().ToString();
  std::string data;
  for (int i = 0; i < people; ++i) data += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + R"("}})" "\n";
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

  const uint64_t before = s.http();
  s.counting->Reset();
  s.slow->ResetRounds();
  GraphReadCache cold(uint64_t{1} << 30);
  auto g = Graph::Open(s.slow);
  EXPECT_TRUE(g.ok());
  auto snap = (*g)->Head("main");
  EXPECT_TRUE(snap.ok());
  auto queries = compiler::CompileQueries(
      snap->catalog(), R"(query q() { match { $a: Person { name: "p42" } $a knows $b } return { $b.name } })");
  EXPECT_TRUE(queries.ok()) << queries.status().ToString();
  auto result = ExecuteQuery(*snap, queries->front(), {}, 0, &cold);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result.ok() ? result->rows.size() : 0u, 10u);
  return Cost{s.http() - before, s.slow->sequential_rounds(), s.counting->counts().ToString()};
}

TEST(S3BudgetTest, ColdOneHopFromAKeyTakesAFixedNumberOfRoundTrips) {
  Cost small = MeasureColdOneHop(1000);
  Cost large = MeasureColdOneHop(10000);
  EXPECT_EQ(small.rounds, kColdOneHopRounds) << small.detail;
  EXPECT_EQ(large.rounds, kColdOneHopRounds) << large.detail;
  std::printf("cold one-hop from a key on S3: %llu / %llu HTTP requests (10k / 100k edges), %llu round trips (%s)\n",
              static_cast<unsigned long long>(small.http), static_cast<unsigned long long>(large.http),
              static_cast<unsigned long long>(large.rounds), large.detail.c_str());
}

}  // namespace
}  // namespace omnigraph::engine
