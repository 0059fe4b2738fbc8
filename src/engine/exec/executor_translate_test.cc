// Hops read from a CSR of earlier versions, translated by id (GraphReadCache::CsrBasisFor,
// Context::TranslatedLists), after node updates, deletes (with their edges), inserts and edge
// deletes, in random order: every answer equals the reference evaluator's, and no CSR is derived
// for the new versions.
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "compiler/type_checker.h"
#include "engine/derived/read_cache.h"
#include "engine/exec/executor.h"
#include "engine/exec/executor_test_util.h"
#include "engine/load/loader.h"
#include "engine/mutate/mutation.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

std::string Person(int i, int age) {
  return R"({"type":"P","data":{"n":"p)" + std::to_string(i) + R"(","age":)" + std::to_string(age) + "}}\n";
}

// Two edge types over one node table (K: parallel edges and self-loops) and across two (L: P -> T),
// so that both sides of a list and both kinds of table are translated.
TEST(ExecutorTranslatedListsTest, HopsAfterNodeWritesFollowTheReference) {
  auto g = Graph::Init(std::make_shared<io::MemoryStore>(),
                       "node P { n: String @key, age: I32? }\nnode T { t: String @key }\n"
                       "edge K: P -> P { w: I64? }\nedge L: P -> T\n");
  ASSERT_TRUE(g.ok());
  constexpr int kNodes = 120;
  std::string data;
  for (int i = 0; i < kNodes; ++i) data += Person(i, i % 12);
  for (int i = 0; i < 10; ++i) data += R"({"type":"T","data":{"t":"t)" + std::to_string(i) + "\"}}\n";
  for (int i = 0; i < kNodes; ++i) {
    for (int m : {3, 7, 3, 0}) {
      if (m == 0 && i % 12 != 5) continue;
      const int to = m == 0 ? i : (i * m + 1) % kNodes;
      data += R"({"edge":"K","from":"p)" + std::to_string(i) + R"(","to":"p)" + std::to_string(to) +
              R"(","data":{"w":)" + std::to_string(i * 10 + m) + "}}\n";
    }
    data += R"({"edge":"L","from":"p)" + std::to_string(i) + R"(","to":"t)" + std::to_string(i % 10) + "\"}\n";
  }
  ASSERT_TRUE(LoadNdjson(**g, data, LoadOptions{}).ok());
  GraphReadCache cache;
  // The queries: out and in from one key, with and without edge variables, from many keys (more
  // than the index path takes), and across to the other table and back.
  auto queries = [](int key, int age) {
    const std::string k = "p" + std::to_string(key), a = std::to_string(age);
    return std::vector<std::string>{
        "query q() { match { $a: P { n: \"" + k + "\" } $a k $b } return { $b.n, $b.age } }",
        "query q() { match { $a: P { n: \"" + k + "\" } $b $e:k $a } return { $b.n, $e.w, $e.id } }",
        "query q() { match { $a: P $a.age = " + a + " $a $e:k $b } return { $a.n, $b.n, $e.w } }",
        "query q() { match { $a: P $a.age < 3 $b k $a } return { $a.n, $b.n } }",
        "query q() { match { $a: P { n: \"" + k + "\" } $a l $t } return { $t.t } }",
        "query q() { match { $t: T { t: \"t" + std::to_string(key % 10) + "\" } $p l $t } return { $p.n } }",
    };
  };
  // The CSRs of the loaded graph, in memory.
  for (int i = 0; i < 3; ++i) {
    for (const std::string& q : queries(5, 5)) ExpectSameAsReference(*(*g)->Head(), q, &cache);
  }
  ExpectSameAsReference(*(*g)->Head(), "query q() { match { $a: P $a k $b $a l $t } return { $a.n, $b.n, $t.t } }",
                        &cache);
  const uint64_t built = cache.counts().csrs_built;
  std::mt19937 rng(7);
  int next_new = kNodes;
  for (int step = 0; step < 40; ++step) {
    const int pick = static_cast<int>(rng() % kNodes);
    std::string write;
    switch (rng() % 4) {
      case 0:
      case 1:
        write = "update P set { age: " + std::to_string(rng() % 12) + " } where n = \"p" + std::to_string(pick) + "\"";
        break;
      case 2: write = "delete P where n = \"p" + std::to_string(pick) + "\""; break;
      default: write = "delete K where w = " + std::to_string(pick * 10 + 3); break;
    }
    if (step % 9 == 8) write = "insert P { n: \"p" + std::to_string(next_new++) + "\", age: 4 }";
    SCOPED_TRACE(write);
    auto r = RunMutation(**g, "query m() { " + write + " }", "");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto snap = (*g)->Head();
    ASSERT_TRUE(snap.ok());
    for (int i = 0; i < 2; ++i) {
      for (const std::string& q : queries(static_cast<int>(rng() % kNodes), static_cast<int>(rng() % 12))) {
        ExpectSameAsReference(*snap, q, &cache);
      }
    }
  }
  // Every hop was read from the CSRs of the load (or their carried-over inserts), none built.
  EXPECT_EQ(cache.counts().csrs_built, built);
  EXPECT_GT(cache.counts().csr_bases, 40u);
}

// Two branches give one fragment id to different files (each writes its own new fragment after
// the fork): structures of one branch's versions answer for the other's rows only in the
// fragments both hold with the same file (SharedFragments), never by address alone.
TEST(ExecutorTranslatedListsTest, BranchesThatGaveOneFragmentIdToTwoFilesKeepTheirOwnRows) {
  auto g = Graph::Init(std::make_shared<io::MemoryStore>(), "node P { n: String @key, age: I32? }\nedge K: P -> P\n");
  ASSERT_TRUE(g.ok());
  std::string data;
  for (int i = 0; i < 40; ++i) data += Person(i, i);
  for (int i = 0; i < 40; ++i) {
    data += R"({"edge":"K","from":"p)" + std::to_string(i) + R"(","to":"p)" + std::to_string((i + 1) % 40) + "\"}\n";
  }
  ASSERT_TRUE(LoadNdjson(**g, data, LoadOptions{}).ok());
  ASSERT_TRUE((*g)->CreateBranch("a").ok());
  ASSERT_TRUE((*g)->CreateBranch("b").ok());
  for (const auto& [branch, write] : {std::pair("a", "update P set { age: 100 } where n = \"p1\""),
                                      std::pair("b", "update P set { age: 200 } where n = \"p2\"")}) {
    MutationOptions o;
    o.branch = branch;
    auto r = RunMutation(**g, std::string("query m() { ") + write + " }", "", o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  GraphReadCache cache;
  const std::string everything = "query q() { match { $a: P $a k $b } return { $a.n, $a.age, $b.n, $b.age } }";
  // Branch a's ordinals, columns and CSR in memory, then point reads on branch b.
  for (int i = 0; i < 2; ++i) ExpectSameAsReference(*(*g)->Head("a"), everything, &cache);
  for (int key : {0, 1, 2, 3}) {
    const std::string k = "p" + std::to_string(key);
    for (const std::string& q :
         {"query q() { match { $a: P { n: \"" + k + "\" } $a k $b } return { $b.n, $b.age } }",
          "query q() { match { $a: P { n: \"" + k + "\" } $b k $a } return { $b.n, $b.age, $a.age } }"}) {
      ExpectSameAsReference(*(*g)->Head("b"), q, &cache);
      ExpectSameAsReference(*(*g)->Head("a"), q, &cache);
    }
  }
}

}  // namespace
}  // namespace omnigraph::engine
