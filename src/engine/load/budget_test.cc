// Storage-request budgets (docs/architecture.md, "Commits, ref logs and the write protocol"), as
// deterministic counts: a warm one-row load costs the same number of requests (<= 8) and sequential
// round trips (<= 4) whatever the commit history depth (1, 100, 1,000) and the number of types (4,
// 200).
#include <gtest/gtest.h>

#include "engine/load/loader.h"
#include "io/counting_store.h"
#include "io/latency_store.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

std::string SchemaWithTypes(int types) {
  std::string s = "node Person { name: String @key, age: I32? }\n";
  for (int i = 1; i < types; ++i) s += "node Extra" + std::to_string(i) + " { slug: String @key }\n";
  return s;
}

struct Cost {
  uint64_t requests;
  uint64_t rounds;
  std::string detail;
};

Cost MeasureOneRowLoad(int prior_commits, int types) {
  auto mem = std::make_shared<io::MemoryStore>();
  auto counting = std::make_shared<io::CountingStore>(mem);
  auto latency = std::make_shared<io::LatencyStore>(counting, /*delay_micros=*/0);
  auto g = Graph::Init(latency, SchemaWithTypes(types));
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  LoadOptions o;
  for (int i = 1; i < prior_commits; ++i) {
    auto r = LoadNdjson(**g, R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + R"("}})", o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
  }
  // Measure with a delay long enough that parallel requests overlap.
  auto slow = std::make_shared<io::LatencyStore>(counting, /*delay_micros=*/20000);
  auto measured = Graph::Open(slow);
  EXPECT_TRUE(measured.ok());
  // Warm the process: one write first (caches the head, manifests, id segments).
  EXPECT_TRUE(LoadNdjson(**measured, R"({"type":"Person","data":{"name":"warm"}})", o).ok());
  counting->Reset();
  slow->ResetRounds();
  auto r = LoadNdjson(**measured, R"({"type":"Person","data":{"name":"measured","age":3}})", o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return Cost{counting->counts().total(), slow->sequential_rounds(), counting->counts().ToString()};
}

TEST(BudgetTest, OneRowLoadCostIsIndependentOfHistoryAndTypes) {
  Cost base = MeasureOneRowLoad(1, 4);
  EXPECT_LE(base.requests, 8u) << base.detail;
  EXPECT_LE(base.rounds, 4u) << base.detail;
  for (auto [commits, types] : {std::pair{100, 4}, std::pair{1000, 4}, std::pair{1, 200}, std::pair{100, 200}}) {
    Cost c = MeasureOneRowLoad(commits, types);
    EXPECT_EQ(c.requests, base.requests) << commits << " commits, " << types << " types: " << c.detail;
    EXPECT_EQ(c.rounds, base.rounds) << commits << " commits, " << types << " types";
  }
  std::printf("one-row load: %llu requests, %llu sequential round trips (%s)\n",
              static_cast<unsigned long long>(base.requests), static_cast<unsigned long long>(base.rounds),
              base.detail.c_str());
}

}  // namespace
}  // namespace omnigraph::engine
