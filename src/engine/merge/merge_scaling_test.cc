// Merge cost follows the change, not the graph (issue 7; docs/architecture.md,
// "Merges and change listing"), as deterministic counts: the same 70 changes, spread over the whole
// id range, merged three-way from a cold handle into graphs of 20k and 200k entities. The bytes
// read may not grow with the graph: rows are found through the id, src/dst and @unique hash indexes
// (ranged reads of their buckets) and read by row (ranged Take), never by scanning a column. Before
// value indexes and ranged reads the larger graph read about 10x the bytes.
#include <gtest/gtest.h>

#include <cstdio>

#include "engine/load/loader.h"
#include "engine/merge/merge.h"
#include "engine/mutate/mutation.h"
#include "io/counting_store.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr const char* kSchema = R"(node Person {
  name: String @key
  email: String? @unique
  age: I32?
}
edge Knows: Person -> Person {
  w: I32?
}
)";

std::string Pid(uint64_t i) {
  char b[32];
  std::snprintf(b, sizeof(b), "p%08llu", static_cast<unsigned long long>(i));
  return b;
}
std::string Person(uint64_t i, const std::string& email, int age) {
  return R"({"type":"Person","data":{"name":")" + Pid(i) + R"(","email":")" + email + R"(","age":)" +
         std::to_string(age) + "}}\n";
}
std::string Edge(uint64_t from, uint64_t to, int w) {
  return R"({"edge":"Knows","from":")" + Pid(from) + R"(","to":")" + Pid(to) + R"(","data":{"w":)" + std::to_string(w) +
         "}}\n";
}

struct Cost {
  uint64_t bytes_read = 0;
  uint64_t requests = 0;
  std::string detail;
};

// A graph of n persons and n edges (i -> i*7919+13), then on branch "b": 20 person updates (new
// email), 10 person deletes (with their edges), 20 edge inserts; on main: 10 person updates.
// Every change is spread evenly over the id range. Returns the cold merge's reads.
Cost MergeCost(uint64_t n) {
  auto mem = std::make_shared<io::MemoryStore>();
  auto counting = std::make_shared<io::CountingStore>(mem);
  auto g = Graph::Init(counting, kSchema);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  if (!g.ok()) return {};
  auto load = [&](const std::string& doc, const std::string& branch) {
    LoadOptions o;
    o.branch = branch;
    o.mode = LoadMode::kMerge;
    auto r = LoadNdjson(**g, doc, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
  };
  std::string doc;
  for (uint64_t i = 0; i < n / 2; ++i) doc += Person(i, "e" + std::to_string(i) + "@x.org", static_cast<int>(i % 90));
  for (uint64_t i = 0; i < n / 2; ++i) doc += Edge(i, (i * 7919 + 13) % (n / 2), 1);
  load(doc, "main");
  EXPECT_TRUE((*g)->CreateBranch("b").ok());
  const uint64_t persons = n / 2, step = persons / 40;
  std::string src, main_side;
  for (uint64_t k = 0; k < 20; ++k) src += Person(k * 2 * step + 1, "new" + std::to_string(k) + "@x.org", 95);
  for (uint64_t k = 0; k < 20; ++k) src += Edge(k * 2 * step + 5, k * 2 * step + 9, 2);
  for (uint64_t k = 0; k < 10; ++k) main_side += Person(k * 4 * step + 3, "m" + std::to_string(k) + "@x.org", 96);
  load(src, "b");
  load(main_side, "main");
  std::string deletes = "query d() {";
  for (uint64_t k = 0; k < 10; ++k) deletes += " delete Person where name = \"" + Pid(k * 4 * step + 7) + "\"";
  deletes += " }";
  MutationOptions mo;
  mo.branch = "b";
  auto del = RunMutation(**g, deletes, "{}", mo);
  EXPECT_TRUE(del.ok()) << del.status().ToString();
  auto cold = Graph::Open(counting);
  EXPECT_TRUE(cold.ok());
  counting->Reset();
  MergeOptions opts;
  opts.source = "b";
  auto merged = MergeBranches(**cold, opts);
  EXPECT_TRUE(merged.ok()) << merged.status().ToString();
  if (merged.ok()) {
    EXPECT_EQ(merged->outcome, MergeOutcome::kMerged);
  }
  const io::StoreCounts c = counting->counts();
  return Cost{c.bytes_read, c.total(), c.ToString()};
}

TEST(MergeScalingTest, BytesReadFollowTheChangeNotTheGraph) {
  const Cost small = MergeCost(20000);
  const Cost large = MergeCost(200000);
  // The larger graph holds 10x the rows; a merge that scanned columns would read ~10x.
  EXPECT_LT(large.bytes_read, 2 * small.bytes_read) << "20k: " << small.detail << "\n200k: " << large.detail;
  EXPECT_LT(large.bytes_read, 4'000'000u) << large.detail;  // whole columns would be ~10 MB
}

}  // namespace
}  // namespace omnigraph::engine
