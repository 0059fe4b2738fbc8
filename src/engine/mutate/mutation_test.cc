// Mutations: upsert by key, strict generated-id inserts, read-your-writes, update/delete with
// cascade, no-change mutations, validation errors (nothing published), write kinds, and strict
// updates racing from two handles (read_set_conflict or success, never a lost update).
#include "engine/mutate/mutation.h"

#include <atomic>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "common/error_codes.h"
#include "common/json.h"
#include "common/ulid.h"
#include "compiler/type_checker.h"
#include "engine/load/exporter.h"
#include "engine/load/loader.h"
#include "io/counting_store.h"
#include "io/local_store.h"
#include "io/memory_store.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph::engine {
namespace {

constexpr const char* kSchema = R"(
node Person {
  name: String @key
  age: I32?
  email: String? @unique
  role: enum(admin, member)?
  @range(age, 0..150)
  @check(email, "[^@]+@[^@]+")
}
node Team { slug: String @key, title: String }
node Note { text: String, stars: I64? }
edge MemberOf: Person -> Team @card(0..2) { since: I64? }
edge Knows: Person -> Person
edge Leads: Team -> Person @card(1..)
)";

class MutationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_shared<io::MemoryStore>();
    auto g = Graph::Init(store_, kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(g).value();
  }
  Result<MutationResult> Mutate(std::string_view src, std::string_view params = "") {
    return RunMutation(*graph_, src, params);
  }
  MutationResult MustMutate(std::string_view src, std::string_view params = "") {
    auto r = Mutate(src, params);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : MutationResult{};
  }
  void ExpectRejected(std::string_view src, ErrorCode code, std::string_view params = "") {
    uint64_t seq = graph_->Head()->seq();
    auto r = Mutate(src, params);
    ASSERT_FALSE(r.ok()) << "accepted: " << src;
    EXPECT_EQ(r.status().code(), code) << r.status().ToString();
    EXPECT_EQ(graph_->Head()->seq(), seq);  // nothing published
  }
  uint64_t Rows(const std::string& type) { return graph_->Head()->RowCounts()->at(type); }
  std::string Export(const std::string& type) {
    std::string out;
    auto snap = graph_->Head();
    EXPECT_TRUE(ExportNdjson(*snap, {type}, [&](std::string_view l) {
                  out += std::string(l) + "\n";
                  return Status::Ok();
                }).ok());
    return out;
  }
  std::shared_ptr<io::MemoryStore> store_;
  std::unique_ptr<Graph> graph_;
};

TEST_F(MutationTest, KeyedInsertIsAnUpsert) {
  auto a = MustMutate("query q() { insert Person { name: \"Ada\", age: 36 } }");
  EXPECT_TRUE(a.write.committed);
  EXPECT_EQ(a.affected_nodes, 1u);
  EXPECT_EQ(a.changes["Person"].inserted, 1u);
  auto b = MustMutate("query q() { insert Person { name: \"Ada\", age: 37 } }");
  EXPECT_EQ(b.changes["Person"].updated, 1u);
  EXPECT_EQ(Rows("Person"), 1u);
  EXPECT_NE(Export("Person").find("\"age\":37"), std::string::npos) << Export("Person");
  // The same image again changes nothing: no commit.
  uint64_t seq = graph_->Head()->seq();
  auto c = MustMutate("query q() { insert Person { name: \"Ada\", age: 37 } }");
  EXPECT_FALSE(c.write.committed);
  EXPECT_EQ(c.affected_nodes, 0u);
  EXPECT_EQ(graph_->Head()->seq(), seq);
}

TEST_F(MutationTest, GeneratedIdInsertsAreNewRowsAndConstructive) {
  MustMutate("query q() { insert Note { text: \"a\" } }");
  MustMutate("query q() { insert Note { text: \"a\" } }");
  EXPECT_EQ(Rows("Note"), 2u);
  auto log = graph_->CommitLog("main");
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->front()->operation, "mutate:q");
}

TEST_F(MutationTest, ReadYourWrites) {
  auto r = MustMutate(R"(query q($n: String) {
    insert Person { name: $n }
    insert Team { slug: "eng", title: "Engineering" }
    insert MemberOf { from: $n, to: "eng", since: 2020 }
    update Person set { age: 40 } where name = $n
  })",
                      R"({"n":"Grace"})");
  EXPECT_EQ(r.affected_nodes, 2u);
  EXPECT_EQ(r.affected_edges, 1u);
  EXPECT_EQ(r.changes["Person"].inserted, 1u);  // inserted then updated in one query: one insert
  EXPECT_NE(Export("Person").find("\"age\":40"), std::string::npos);
  EXPECT_EQ(Rows("MemberOf"), 1u);
}

TEST_F(MutationTest, UpdateOfAKeyPropertyIsRejected) {
  MustMutate("query q() { insert Person { name: \"Ada\" } }");
  ExpectRejected("query q() { update Person set { name: \"Bob\" } where name = \"Ada\" }", ErrorCode::kKeyImmutable);
  // Setting the key to its current value is not a change of it.
  auto same = MustMutate("query q() { update Person set { name: \"Ada\", age: 3 } where name = \"Ada\" }");
  EXPECT_EQ(same.changes["Person"].updated, 1u);
}

TEST_F(MutationTest, UpdateMatchingNothingPublishesNothing) {
  auto r = MustMutate("query q() { update Person set { age: 1 } where name = \"nobody\" }");
  EXPECT_FALSE(r.write.committed);
  EXPECT_TRUE(r.changes.empty());
}

TEST_F(MutationTest, DeleteCascadesToIncidentEdges) {
  MustMutate(R"(query q() {
    insert Person { name: "a" }
    insert Person { name: "b" }
    insert Team { slug: "t", title: "T" }
    insert Knows { from: "a", to: "b" }
    insert Knows { from: "b", to: "a" }
    insert MemberOf { from: "a", to: "t" }
    insert MemberOf { from: "b", to: "t" }
  })");
  auto r = MustMutate("query q() { delete Person where name = \"a\" }");
  EXPECT_EQ(r.affected_nodes, 1u);
  EXPECT_EQ(r.affected_edges, 3u);
  EXPECT_EQ(Rows("Person"), 1u);
  EXPECT_EQ(Rows("Knows"), 0u);
  EXPECT_EQ(Rows("MemberOf"), 1u);
}

TEST_F(MutationTest, DeletingTheLastRequiredEdgeFails) {
  MustMutate(R"(query q() {
    insert Person { name: "a" }
    insert Team { slug: "t", title: "T" }
    insert Leads { from: "t", to: "a" }
  })");
  ExpectRejected("query q() { delete Leads where src = \"t\" }", ErrorCode::kLoadCardinality);
  // Deleting the person cascades the edge away: the team loses its only leader.
  ExpectRejected("query q() { delete Person where name = \"a\" }", ErrorCode::kLoadCardinality);
  // Deleting the team itself is fine.
  auto r = MustMutate("query q() { delete Team where slug = \"t\" }");
  EXPECT_EQ(r.affected_edges, 1u);
}

TEST_F(MutationTest, ValidationErrorsPublishNothing) {
  MustMutate("query q() { insert Person { name: \"Ada\", email: \"ada@x\" } }");
  ExpectRejected("query q() { insert Person { name: \"B\", age: 200 } }", ErrorCode::kLoadRange);
  ExpectRejected("query q() { insert Person { name: \"B\", email: \"nope\" } }", ErrorCode::kLoadCheck);
  ExpectRejected("query q() { insert Person { name: \"B\", email: \"ada@x\" } }", ErrorCode::kLoadUnique);
  ExpectRejected("query q($r: String) { insert Person { name: \"B\", role: $r } }", ErrorCode::kLoadEnumValue,
                 R"({"r":"boss"})");
  ExpectRejected("query q($t: String?) { insert Team { slug: \"x\", title: $t } }", ErrorCode::kLoadMissingProperty);
  ExpectRejected("query q() { insert Knows { from: \"Ada\", to: \"ghost\" } }", ErrorCode::kLoadDanglingEdge);
  ExpectRejected(R"(query q() {
    insert Team { slug: "t1", title: "1" }
    insert Team { slug: "t2", title: "2" }
    insert Team { slug: "t3", title: "3" }
    insert MemberOf { from: "Ada", to: "t1" }
    insert MemberOf { from: "Ada", to: "t2" }
    insert MemberOf { from: "Ada", to: "t3" }
  })",
                 ErrorCode::kLoadCardinality);
  // A later statement fixing an earlier one's value: only the final image is checked.
  auto r = Mutate(R"(query q() {
    insert Person { name: "C", age: 200 }
    update Person set { age: 20 } where name = "C"
  })");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  // The error names its statement and lists every error in details().
  auto bad = Mutate(R"(query q() {
    insert Person { name: "D" }
    insert Person { name: "E", age: 999 }
  })");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("statement 2"), std::string::npos) << bad.status().ToString();
  auto details = ParseJson(bad.status().details(), "details");
  ASSERT_TRUE(details.ok());
  EXPECT_EQ((*details)["errors"][0]["statement"].get<uint64_t>(), 2u);
}

TEST_F(MutationTest, EdgeEndpointsByKeyValue) {
  auto g = Graph::Init(std::make_shared<io::MemoryStore>(), "node Item { n: I64 @key }\nedge Next: Item -> Item");
  ASSERT_TRUE(g.ok());
  auto r = RunMutation(**g, R"(query q() {
    insert Item { n: 1 }
    insert Item { n: 2 }
    insert Next { from: 1, to: 2 }
  })",
                       "");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->affected_edges, 1u);
  auto bad = RunMutation(**g, "query q() { insert Next { from: 1, to: 3 } }", "");
  EXPECT_EQ(bad.status().code(), ErrorCode::kLoadDanglingEdge);
}

TEST_F(MutationTest, IfCommitPrecondition) {
  std::string head = graph_->Head()->commit().id;
  MutationOptions o;
  o.if_commit = head;
  ASSERT_TRUE(RunMutation(*graph_, "query q() { insert Note { text: \"x\" } }", "", o).ok());
  auto stale = RunMutation(*graph_, "query q() { insert Note { text: \"y\" } }", "", o);
  EXPECT_EQ(stale.status().code(), ErrorCode::kPreconditionFailed);
}

TEST_F(MutationTest, ReadQueriesAndUnknownNamesAreRejected) {
  auto read = Mutate("query q() { match { $p: Person } return { $p.name } }");
  EXPECT_EQ(read.status().code(), ErrorCode::kInvalidArgument);
  MutationOptions o;
  o.query_name = "nope";
  auto missing = RunMutation(*graph_, "query q() { insert Note { text: \"x\" } }", "", o);
  EXPECT_EQ(missing.status().category(), StatusCode::kNotFound);
}

TEST_F(MutationTest, WriteKindFollowsTheStatements) {
  auto kind = [&](std::string_view src) {
    auto q = compiler::CompileQueries(graph_->Head()->catalog(), src);
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    return MutationWriteKind(q->front());
  };
  EXPECT_EQ(kind("query q() { insert Note { text: \"x\" } }"), WriteKind::kConstructive);
  EXPECT_EQ(kind("query q() { insert Note { text: \"x\" } update Note set { stars: 1 } where text = \"x\" }"),
            WriteKind::kStrict);
  EXPECT_EQ(kind("query q() { delete Note where text = \"x\" }"), WriteKind::kStrict);
}

TEST(DatabaseMutateTest, EmbeddedApi) {
  auto db = Database::Init("memory://mutate-api-" + NewUlidString(), "node P { n: String @key, v: I64? }");
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto r = (*db)->Mutate("query set($n: String, $v: I64) { insert P { n: $n, v: $v } }", R"({"n":"a","v":1})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->query_name, "set");
  EXPECT_EQ(r->branch, "main");
  EXPECT_EQ(r->affected_nodes, 1u);
  EXPECT_TRUE(r->committed);
  EXPECT_EQ((*db)->Snapshot()->commit_id, r->commit_id);
  auto again = (*db)->Mutate("query set($n: String, $v: I64) { insert P { n: $n, v: $v } }", R"({"n":"a","v":1})");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->committed);
  EXPECT_TRUE(again->commit_id.empty());
  auto stale = (*db)->Mutate("query d() { delete P where n = \"a\" }", "", "main", std::nullopt, "0000");
  EXPECT_EQ(stale.status().code(), ErrorCode::kPreconditionFailed);
}

// Threads on separate handles each set a distinct property of the same node with strict updates.
// Every acknowledged update must be visible at the end (a lost update would drop one).
TEST(MutationConcurrencyTest, StrictUpdatesNeverLoseAnUpdate) {
  std::string dir = (std::filesystem::temp_directory_path() / ("og-mut-" + NewUlidString())).string();
  io::LocalStoreOptions lo;
  lo.create_root = true;
  lo.fsync = false;
  auto store = std::shared_ptr<io::ObjectStore>(std::move(io::LocalStore::Open(dir, lo)).value());
  constexpr int kThreads = 4;
  constexpr int kRounds = 8;
  std::string schema = "node Counter { name: String @key";
  for (int t = 0; t < kThreads; ++t) schema += ", c" + std::to_string(t) + ": I64?";
  schema += " }";
  auto init = Graph::Init(store, schema);
  ASSERT_TRUE(init.ok()) << init.status().ToString();
  ASSERT_TRUE(RunMutation(**init, "query q() { insert Counter { name: \"x\" } }", "").ok());
  std::vector<int64_t> acked(kThreads, -1);
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto g = std::move(Graph::Open(store)).value();  // one handle per thread: real races
      std::string src = "query q($v: I64) { update Counter set { c" + std::to_string(t) + ": $v } where name = \"x\" }";
      for (int i = 0; i < kRounds; ++i) {
        auto r = RunMutation(*g, src, "{\"v\":" + std::to_string(i) + "}");
        if (r.ok()) {
          acked[t] = i;
        } else {
          ASSERT_EQ(r.status().code(), ErrorCode::kReadSetConflict) << r.status().ToString();
          conflicts++;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  auto head = init.value()->Head();
  ASSERT_TRUE(head.ok());
  std::string out;
  ASSERT_TRUE(ExportNdjson(*head, {"Counter"}, [&](std::string_view l) {
                out += std::string(l);
                return Status::Ok();
              }).ok());
  auto row = ParseJson(out, "row");
  ASSERT_TRUE(row.ok()) << out;
  int successes = 0;
  for (int t = 0; t < kThreads; ++t) {
    const Json& v = (*row)["data"]["c" + std::to_string(t)];
    if (acked[t] < 0) {
      EXPECT_TRUE(v.is_null()) << out;
    } else {
      // The last acknowledged value of each thread survives every other thread's later commits.
      ASSERT_FALSE(v.is_null()) << "lost update of c" << t << ": " << out;
      EXPECT_EQ(v.get<int64_t>(), acked[t]) << out;
    }
  }
  auto log = init.value()->CommitLog("main");
  ASSERT_TRUE(log.ok());
  for (int t = 0; t < kThreads; ++t) successes += acked[t] >= 0 ? 1 : 0;
  EXPECT_GE(successes, 1);
  ::testing::Test::RecordProperty("read_set_conflicts", conflicts.load());
  EXPECT_EQ(log->size(), static_cast<size_t>(2 + kThreads * kRounds - conflicts.load()));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace
}  // namespace omnigraph::engine

namespace omnigraph::engine {
namespace {

// `where <key> = $x` on a node with one @key reads the row through the id index (the id the key
// derives), as `where id = $x` does: the bytes read do not grow with the table (a scan reads the
// whole key column). Also for a key that is not a String.
TEST(MutationKeyLookupTest, UpdateAndDeleteByKeyReadTheRowNotTheTable) {
  auto counting = std::make_shared<io::CountingStore>(std::make_shared<io::MemoryStore>());
  auto g = Graph::Init(counting, "node P { n: String @key, v: I32? }\nnode Q { k: I64 @key, v: I32? }\n");
  ASSERT_TRUE(g.ok());
  const std::string long_key(200, 'k');  // keys of 200+ bytes: the key column is large
  std::string data;
  for (int i = 0; i < 4000; ++i) {
    data += R"({"type":"P","data":{"n":")" + long_key + std::to_string(i) + R"(","v":1}})" + "\n";
    data += R"({"type":"Q","data":{"k":)" + std::to_string(i) + R"(,"v":1}})" + "\n";
  }
  ASSERT_TRUE(LoadNdjson(**g, data, LoadOptions{}).ok());
  const uint64_t key_column_bytes = 4000 * long_key.size();
  for (const std::string& m : {"query m() { update P set { v: 2 } where n = \"" + long_key + "77\" }",
                               "query m() { delete P where n = \"" + long_key + "78\" }",
                               std::string("query m() { update P set { v: 2 } where n = \"absent\" }"),
                               std::string("query m() { update Q set { v: 2 } where k = 79 }")}) {
    SCOPED_TRACE(m);
    const io::StoreCounts before = counting->counts();
    auto r = RunMutation(**g, m, "");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_LT((counting->counts() - before).bytes_read, key_column_bytes / 8);
  }
  auto head = (*g)->Head();
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->Table("P")->row_count(), 3999u);
  auto p = RunMutation(**g, "query m() { update P set { v: 3 } where n = \"" + long_key + "77\" }", "");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->affected_nodes, 1u);
  auto q = RunMutation(**g, "query m() { update Q set { v: 3 } where k = 79 }", "");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->affected_nodes, 1u);
}

}  // namespace
}  // namespace omnigraph::engine
