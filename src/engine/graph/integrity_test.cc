// Commit objects and ref entries are verified on read (docs/format/commits_and_refs.md): every
// flipped byte is `corrupt` naming the object, a gap in a ref log is `corrupt` for readers and
// refused by writers (nothing written), objects named by other objects are `corrupt` when missing,
// and objects written before checksums (legacy) still read.
#include <gtest/gtest.h>

#include "common/error_codes.h"
#include "common/json.h"
#include "engine/graph/commit.h"
#include "engine/graph/graph.h"
#include "engine/graph/graph_layout.h"
#include "engine/graph/ref_log.h"
#include "engine/load/loader.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

// The keys under `prefix` (by value: a range-for over a dereferenced temporary Result dangles).
std::vector<io::ObjectMeta> Keys(io::ObjectStore& store, std::string_view prefix) {
  auto keys = store.List(prefix);
  EXPECT_TRUE(keys.ok()) << keys.status().ToString();
  return keys.ok() ? *keys : std::vector<io::ObjectMeta>{};
}

constexpr const char* kSchema = R"(
node Person { name: String @key, age: I32? }
edge Knows: Person -> Person
)";

std::string Person(const std::string& name) { return R"({"type":"Person","data":{"name":")" + name + R"("}})"; }

Commit SampleCommit() {
  Commit c;
  c.id = "01JCOMMIT00000000000000000A";
  c.parents = {"01JPARENT00000000000000000A"};
  c.branch = "main";
  c.actor = "ada";
  c.timestamp_us = 1700000000000001;
  c.operation = "load:append";
  c.schema_id = "abc";
  c.tables["Person"] = TableRef{EntityKind::kNode, "T1", "V1"};
  c.tables["Knows"] = TableRef{EntityKind::kEdge, "T2", "V2"};
  c.summary["Person"] = ChangeCounts{3, 1, 0};
  c.message = "m";
  return c;
}

// Every byte of `bytes` flipped in several ways (one bit, letter case, high bit, all bits).
template <class Check>
void ForEveryFlip(const std::string& bytes, Check check) {
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned char mask : {0x01, 0x20, 0x80, 0xff}) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(static_cast<unsigned char>(damaged[i]) ^ mask);
      check(damaged, i, mask);
    }
  }
}

TEST(IntegrityTest, EveryFlippedByteOfACommitObjectIsCorrupt) {
  const Commit c = SampleCommit();
  const std::string bytes = EncodeCommit(c);
  ASSERT_EQ(*DecodeCommit(bytes, c.id), c);
  ForEveryFlip(bytes, [&](const std::string& damaged, size_t i, unsigned mask) {
    auto r = DecodeCommit(damaged, c.id);
    ASSERT_FALSE(r.ok()) << "byte " << i << " ^ " << mask << " went unnoticed: " << damaged;
    EXPECT_EQ(r.status().category(), StatusCode::kCorrupt) << r.status().ToString();
    EXPECT_NE(r.status().message().find(CommitKey(c.id)), std::string::npos) << r.status().ToString();
  });
}

TEST(IntegrityTest, EveryFlippedByteOfARefEntryIsCorrupt) {
  io::MemoryStore store;
  RefLog refs(store);
  RefEntry first;
  first.seq = 1;
  first.op = RefOp::kCreate;
  first.commit_id = "c1";
  first.incarnation = "inc";
  ASSERT_TRUE(refs.Publish("main", nullptr, &first).ok());
  RefEntry second = first;
  second.seq = 2;
  second.op = RefOp::kAdvance;
  second.commit_id = "c2";
  second.actor = "ada";
  ASSERT_TRUE(refs.Publish("main", &first, &second).ok());
  const std::string key = RefEntryKey("main", 2);
  const std::string bytes = *store.Get(key);
  ASSERT_EQ(*RefLog::Parse(bytes, key), second);
  ForEveryFlip(bytes, [&](const std::string& damaged, size_t i, unsigned mask) {
    auto r = RefLog::Parse(damaged, key);
    ASSERT_FALSE(r.ok()) << "byte " << i << " ^ " << mask << " went unnoticed: " << damaged;
    EXPECT_EQ(r.status().category(), StatusCode::kCorrupt) << r.status().ToString();
    EXPECT_NE(r.status().message().find(key), std::string::npos) << r.status().ToString();
  });
  // Through the store: a damaged head entry is corrupt for a reader (the intact hint is not
  // trusted in its place), and a damaged hint alone is ignored.
  const std::string hint = *store.Get(RefHeadHintKey("main"));
  std::string damaged = bytes;
  damaged[damaged.find("\"c2\"") + 1] = 'd';
  ASSERT_TRUE(store.Put(key, damaged).ok());
  EXPECT_EQ(refs.ReadHead("main").status().category(), StatusCode::kCorrupt);
  ASSERT_TRUE(store.Delete(RefHeadHintKey("main")).ok());
  EXPECT_EQ(refs.ReadHead("main").status().category(), StatusCode::kCorrupt);
  ASSERT_TRUE(store.Put(key, bytes).ok());
  std::string bad_hint = hint;
  bad_hint[bad_hint.find("\"c2\"") + 1] = 'd';
  ASSERT_TRUE(store.Put(RefHeadHintKey("main"), bad_hint).ok());
  ASSERT_TRUE(refs.ReadHead("main").ok());
  EXPECT_EQ((*refs.ReadHead("main"))->commit_id, "c2");
}

TEST(IntegrityTest, AFlippedByteInAStoredCommitIsCorruptNamingIt) {
  auto store = std::make_shared<io::MemoryStore>();
  auto g = std::move(Graph::Init(store, kSchema)).value();
  ASSERT_TRUE(LoadNdjson(*g, Person("ada"), {}).ok());
  const Commit head = g->Head()->commit();
  const std::string key = CommitKey(head.id);
  std::string bytes = *store->Get(key);
  // The digit of a count, as in the report: shown as truth before.
  size_t at = bytes.find("\"inserted\":1");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 11] = '7';
  ASSERT_TRUE(store->Put(key, bytes).ok());
  auto fresh = std::move(Graph::Open(store)).value();
  auto snap = fresh->Head();
  ASSERT_EQ(snap.status().category(), StatusCode::kCorrupt);
  EXPECT_NE(snap.status().message().find(key), std::string::npos) << snap.status().ToString();
  EXPECT_EQ(fresh->LoadCommit(head.id).status().category(), StatusCode::kCorrupt);
}

// A graph whose branch `b` has `n` ref entries (a create and n - 1 loads).
struct BranchFixture {
  std::shared_ptr<io::MemoryStore> store = std::make_shared<io::MemoryStore>();
  std::unique_ptr<Graph> graph;
  explicit BranchFixture(int n) {
    graph = std::move(Graph::Init(store, kSchema)).value();
    EXPECT_TRUE(graph->CreateBranch("b").ok());
    LoadOptions o;
    o.branch = "b";
    for (int i = 1; i < n; ++i) EXPECT_TRUE(LoadNdjson(*graph, Person("p" + std::to_string(i)), o).ok());
  }
};

TEST(IntegrityTest, AGapInARefLogIsCorruptForReadersAndRefusedByWriters) {
  BranchFixture f(5);
  ASSERT_EQ(f.graph->Head("b")->seq(), 5u);
  ASSERT_TRUE(f.store->Delete(RefEntryKey("b", 4)).ok());  // entry N-1 of N
  const uint64_t objects = f.store->object_count();
  auto g = std::move(Graph::Open(f.store)).value();  // another process
  EXPECT_EQ(g->Head("b").status().category(), StatusCode::kCorrupt) << g->Head("b").status().ToString();
  EXPECT_EQ(g->CommitLog("b").status().category(), StatusCode::kCorrupt);
  EXPECT_EQ(g->AtBranchVersion("b", 4).status().category(), StatusCode::kCorrupt);
  EXPECT_EQ(RefLog(*f.store).Entries("b").status().category(), StatusCode::kCorrupt);
  EXPECT_EQ(g->Branches().status().category(), StatusCode::kCorrupt);
  LoadOptions o;
  o.branch = "b";
  auto w = LoadNdjson(*g, Person("late"), o);
  EXPECT_EQ(w.status().category(), StatusCode::kCorrupt) << w.status().ToString();
  EXPECT_EQ(g->DeleteBranch("b").status().category(), StatusCode::kCorrupt);
  EXPECT_EQ(f.store->object_count(), objects);  // nothing written over or past the gap
  // The process that wrote the log (warm) walks its history into the gap too.
  EXPECT_EQ(f.graph->CommitLog("b").status().category(), StatusCode::kCorrupt);
  // Without the HEAD hint, the listing shows the gap.
  ASSERT_TRUE(f.store->Delete(RefHeadHintKey("b")).ok());
  auto cold = std::move(Graph::Open(f.store)).value();
  EXPECT_EQ(cold->Head("b").status().category(), StatusCode::kCorrupt);
}

TEST(IntegrityTest, ADeletedHeadEntryIsNotReadFromItsHint) {
  BranchFixture f(3);
  ASSERT_TRUE(f.store->Delete(RefEntryKey("b", 3)).ok());  // the hint still names entry 3
  const uint64_t objects = f.store->object_count();
  auto g = std::move(Graph::Open(f.store)).value();
  EXPECT_EQ(g->Head("b").status().category(), StatusCode::kCorrupt);
  LoadOptions o;
  o.branch = "b";
  EXPECT_EQ(LoadNdjson(*g, Person("late"), o).status().category(), StatusCode::kCorrupt);
  EXPECT_EQ(f.store->object_count(), objects);
}

TEST(IntegrityTest, AReplacedEntryBreaksItsSuccessorsLink) {
  BranchFixture f(4);
  // Entry 3 replaced by a well-formed, checksummed entry naming another commit.
  RefEntry e = *RefLog(*f.store).ReadEntry("b", 3);
  RefEntry pred = *RefLog(*f.store).ReadEntry("b", 2);
  e.commit_id = f.graph->Head("main")->commit().id;
  io::MemoryStore scratch;
  ASSERT_TRUE(scratch.Put(RefEntryKey("b", 2), *f.store->Get(RefEntryKey("b", 2))).ok());
  ASSERT_TRUE(RefLog(scratch).Publish("b", &pred, &e, /*update_hint=*/false).ok());
  ASSERT_TRUE(f.store->Put(RefEntryKey("b", 3), *scratch.Get(RefEntryKey("b", 3))).ok());
  auto g = std::move(Graph::Open(f.store)).value();
  auto log = g->CommitLog("b");
  ASSERT_EQ(log.status().category(), StatusCode::kCorrupt);
  EXPECT_NE(log.status().message().find("predecessor link"), std::string::npos) << log.status().ToString();
  EXPECT_EQ(g->Head("b").status().category(), StatusCode::kCorrupt);  // the head's link too
}

TEST(IntegrityTest, MissingReferencedObjectsAreCorruptNotNotFound) {
  auto store = std::make_shared<io::MemoryStore>();
  auto g = std::move(Graph::Init(store, kSchema)).value();
  ASSERT_TRUE(LoadNdjson(*g, Person("ada"), {}).ok());
  ASSERT_TRUE(LoadNdjson(*g, Person("bob"), {}).ok());
  const Commit head = g->Head()->commit();
  const Commit parent = **g->LoadCommit(head.parents.front());
  // An unknown id given by a user is simply not there.
  EXPECT_EQ(g->AtCommit("01JNOSUCHCOMMIT00000000000").status().category(), StatusCode::kNotFound);
  {  // the parent of the head: history is corrupt
    auto copy = std::make_shared<io::MemoryStore>();
    for (const auto& m : Keys(*store, "")) ASSERT_TRUE(copy->Put(m.key, *store->Get(m.key)).ok());
    ASSERT_TRUE(copy->Delete(CommitKey(parent.id)).ok());
    auto h = std::move(Graph::Open(copy)).value();
    EXPECT_EQ(h->CommitLog("main").status().category(), StatusCode::kCorrupt);
    EXPECT_EQ(h->AtBranchVersion("main", 2).status().category(), StatusCode::kCorrupt);
  }
  {  // the commit the head entry names
    auto copy = std::make_shared<io::MemoryStore>();
    for (const auto& m : Keys(*store, "")) ASSERT_TRUE(copy->Put(m.key, *store->Get(m.key)).ok());
    ASSERT_TRUE(copy->Delete(CommitKey(head.id)).ok());
    auto h = std::move(Graph::Open(copy)).value();
    auto snap = h->Head();
    EXPECT_EQ(snap.status().category(), StatusCode::kCorrupt);
    EXPECT_NE(snap.status().message().find(CommitKey(head.id)), std::string::npos);
    EXPECT_EQ(LoadNdjson(*h, Person("carl"), {}).status().category(), StatusCode::kCorrupt);
  }
  {  // a table version the head commit names
    auto copy = std::make_shared<io::MemoryStore>();
    for (const auto& m : Keys(*store, "")) ASSERT_TRUE(copy->Put(m.key, *store->Get(m.key)).ok());
    const TableRef& t = head.tables.at("Person");
    ASSERT_TRUE(copy->Delete(TablePrefix(t.table_id) + "/versions/" + t.version_id).ok());
    auto h = std::move(Graph::Open(copy)).value();
    auto snap = h->Head();
    ASSERT_TRUE(snap.ok());
    EXPECT_EQ(snap->Table("Person").status().category(), StatusCode::kCorrupt);
    EXPECT_EQ(LoadNdjson(*h, Person("carl"), {}).status().category(), StatusCode::kCorrupt);
  }
  {  // the schema
    auto copy = std::make_shared<io::MemoryStore>();
    for (const auto& m : Keys(*store, "")) ASSERT_TRUE(copy->Put(m.key, *store->Get(m.key)).ok());
    ASSERT_TRUE(copy->Delete(SchemaKey(head.schema_id)).ok());
    auto h = std::move(Graph::Open(copy)).value();
    EXPECT_EQ(h->Head().status().category(), StatusCode::kCorrupt);
  }
}

// Rewrites every commit object and ref entry (and hint) of `store` as the previous binary wrote
// them: no checksum, no predecessor link.
void MakeLegacy(io::MemoryStore& store) {
  for (const auto& m : Keys(store, "")) {
    const bool commit = m.key.rfind(std::string(kCommitsPrefix), 0) == 0;
    const bool ref = m.key.rfind(std::string(kRefsPrefix), 0) == 0;
    if (!commit && !ref) continue;
    Json j = *ParseJson(*store.Get(m.key), m.key);
    j.erase("checksum");
    if (ref) j.erase("prev");
    ASSERT_TRUE(store.Put(m.key, CanonicalJson(j)).ok());
  }
}

TEST(IntegrityTest, LegacyObjectsWithoutChecksumsStillReadAndAreLinkedOnto) {
  auto store = std::make_shared<io::MemoryStore>();
  {
    auto g = std::move(Graph::Init(store, kSchema)).value();
    ASSERT_TRUE(LoadNdjson(*g, Person("ada"), {}).ok());
    ASSERT_TRUE(g->CreateBranch("b").ok());
  }
  MakeLegacy(*store);
  auto g = std::move(Graph::Open(store)).value();
  ASSERT_TRUE(g->Head().ok()) << g->Head().status().ToString();
  EXPECT_TRUE(g->Head()->ref()->legacy);
  ASSERT_EQ(g->CommitLog("main")->size(), 2u);
  ASSERT_TRUE(LoadNdjson(*g, Person("bob"), {}).ok());  // a checksummed entry after a legacy one
  auto fresh = std::move(Graph::Open(store)).value();
  ASSERT_TRUE(fresh->Head().ok()) << fresh->Head().status().ToString();
  EXPECT_FALSE(fresh->Head()->ref()->legacy);
  ASSERT_EQ(fresh->CommitLog("main")->size(), 3u);
  EXPECT_EQ(*fresh->Branches(), (std::vector<std::string>{"b", "main"}));
  // A legacy object with a member it never had (e.g. a damaged "checksum" name) is corrupt.
  const std::string key = CommitKey(fresh->Head()->commit().parents.front());
  Json j = *ParseJson(*store->Get(key), key);
  j["checksuM"] = "0000000000000000";
  ASSERT_TRUE(store->Put(key, CanonicalJson(j)).ok());
  auto again = std::move(Graph::Open(store)).value();
  EXPECT_EQ(again->CommitLog("main").status().category(), StatusCode::kCorrupt);
}

}  // namespace
}  // namespace omnigraph::engine
