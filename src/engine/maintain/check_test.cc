// Integrity check (engine/maintain/check.h): a healthy graph has no problem; every kind of damage
// (a flipped byte in a fragment, a deletion vector or an index segment, a missing manifest, commit
// or ref entry) is one typed problem naming the object, and the check goes on past it; history
// reclaimed by cleanup is counted, not reported.
#include "engine/maintain/check.h"

#include <gtest/gtest.h>

#include <string>

#include "common/clock.h"
#include "engine/graph/graph_layout.h"
#include "engine/load/loader.h"
#include "engine/maintain/cleanup.h"
#include "engine/mutate/mutation.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr const char* kSchema = R"(
  node Person { name: String @key, age: I32? }
  edge Knows: Person -> Person
)";

std::shared_ptr<io::MemoryStore> NewGraph() {
  auto store = std::make_shared<io::MemoryStore>();
  auto g = std::move(Graph::Init(store, kSchema)).value();
  std::string three;  // one fragment of three rows, so deleting one writes a deletion vector
  for (int i = 0; i < 3; ++i)
    three += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) +
             R"(","age":1}})"
             "\n";
  EXPECT_TRUE(LoadNdjson(*g, three, LoadOptions{}).ok());
  EXPECT_TRUE(LoadNdjson(*g,
                         R"({"type":"Person","data":{"name":"p3"}})"
                         "\n",
                         LoadOptions{})
                  .ok());
  EXPECT_TRUE(LoadNdjson(*g,
                         R"({"type":"Person","data":{"name":"p4"}})"
                         "\n",
                         LoadOptions{})
                  .ok());
  EXPECT_TRUE(LoadNdjson(*g,
                         R"({"edge":"Knows","from":"p0","to":"p1"})"
                         "\n",
                         LoadOptions{})
                  .ok());
  auto m = RunMutation(*g, R"(query m() { delete Person where name = "p2" })", "");
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return store;
}

// The first key under `prefix` containing `part`.
std::string KeyWith(io::ObjectStore& store, std::string_view part) {
  const std::vector<io::ObjectMeta> keys = std::move(store.List("")).value();
  for (const auto& m : keys) {
    if (m.key.find(part) != std::string::npos) return m.key;
  }
  ADD_FAILURE() << "no key with " << part;
  return "";
}

void FlipByte(io::ObjectStore& store, const std::string& key, size_t at) {
  std::string bytes = std::move(store.Get(key)).value();
  bytes[at % bytes.size()] ^= 0x5a;
  ASSERT_TRUE(store.Put(key, bytes).ok());
}

GraphCheck RunCheck(std::shared_ptr<io::ObjectStore> store, bool verify_data = true) {
  auto g = std::move(Graph::Open(store)).value();
  CheckOptions o;
  o.verify_data = verify_data;
  auto r = CheckGraph(*g, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : GraphCheck{};
}

bool HasProblem(const GraphCheck& c, std::string_view code, std::string_view object) {
  for (const auto& p : c.problems) {
    if (p.code == code && p.object == object) return true;
  }
  return false;
}

TEST(CheckTest, AHealthyGraphHasNoProblem) {
  auto store = NewGraph();
  GraphCheck c = RunCheck(store);
  EXPECT_EQ(c.problems_total, 0u) << (c.problems.empty() ? "" : c.problems[0].message);
  EXPECT_EQ(c.branches, 1u);
  EXPECT_EQ(c.commits, 6u);  // genesis + 5 loads
  EXPECT_GE(c.fragments, 4u);
  EXPECT_GE(c.deletion_vectors, 1u);  // the delete
  EXPECT_GE(c.index_objects, 1u);
  EXPECT_GT(c.bytes_verified, 0u);
}

TEST(CheckTest, EveryDamagedObjectIsOneTypedProblem) {
  auto store = NewGraph();
  const std::string fragment = KeyWith(*store, "/data/");
  const std::string dv = KeyWith(*store, "/del/");
  const std::string seg = KeyWith(*store, "/idx/");
  FlipByte(*store, fragment, 40);
  FlipByte(*store, dv, 20);
  FlipByte(*store, seg, 30);
  GraphCheck c = RunCheck(store);
  EXPECT_EQ(c.problems_total, 3u);
  EXPECT_TRUE(HasProblem(c, "corrupt", fragment));
  EXPECT_TRUE(HasProblem(c, "corrupt", dv));
  EXPECT_TRUE(HasProblem(c, "corrupt", seg));
  // References only: data damage goes unseen, a missing object does not.
  EXPECT_EQ(RunCheck(store, /*verify_data=*/false).problems_total, 0u);
  ASSERT_TRUE(store->Delete(fragment).ok());
  GraphCheck refs = RunCheck(store, /*verify_data=*/false);
  EXPECT_TRUE(HasProblem(refs, "not_found", fragment));
}

TEST(CheckTest, MissingManifestsCommitsAndRefEntriesAreProblems) {
  auto store = NewGraph();
  auto g = std::move(Graph::Open(store)).value();
  const Commit head = g->Head()->commit();
  const std::string parent = head.parents.at(0);
  const std::string manifest =
      TablePrefix(head.tables.at("Knows").table_id) + "/versions/" + head.tables.at("Knows").version_id;
  ASSERT_TRUE(store->Delete(manifest).ok());
  ASSERT_TRUE(store->Delete(CommitKey(parent)).ok());
  GraphCheck c = RunCheck(store);
  EXPECT_TRUE(HasProblem(c, "corrupt", manifest)) << (c.problems.empty() ? "" : c.problems[0].message);
  EXPECT_TRUE(HasProblem(c, "corrupt", CommitKey(parent)));
  ASSERT_TRUE(store->Delete(RefEntryKey("main", 2)).ok());
  c = RunCheck(store);
  EXPECT_TRUE(HasProblem(c, "corrupt", RefFolder("main")));
}

TEST(CheckTest, ReclaimedHistoryIsCountedNotReported) {
  ScopedTestClock clock;
  auto store = NewGraph();
  auto g = std::move(Graph::Open(store)).value();
  clock.Advance(int64_t{2} * 3600 * 1000000);
  CleanupPolicy p;
  p.keep = 1;
  p.grace_us = 0;
  p.confirm = true;
  auto run = CleanupGraph(*g, p);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  GraphCheck c = RunCheck(store);
  EXPECT_EQ(c.problems_total, 0u) << (c.problems.empty() ? "" : c.problems[0].message);
  // What is left of the history: the head's ref entry and its predecessor's, whose commit went.
  EXPECT_EQ(c.ref_entries, 2u);
  EXPECT_EQ(c.commits, 2u);
  EXPECT_EQ(c.reclaimed_commits, 1u);
}

}  // namespace
}  // namespace omnigraph::engine
