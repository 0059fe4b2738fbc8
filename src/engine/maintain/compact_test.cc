// Compaction (engine/maintain/compact.h) through the public API and the engine: `optimize` is one
// commit that changes no entity (same answers, empty change listing, skipped by the feed, invisible
// to merges, nothing to do = no commit); automatic compaction keeps the fragment count bounded by
// size tiers; a crash at any request of a compaction leaves the graph as it was or compacted.
#include "engine/maintain/compact.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/load/loader.h"
#include "io/fault_store.h"
#include "io/memory_store.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph {
namespace {

constexpr const char* kSchema = R"(
  node Person { name: String @key, age: I32? }
  edge Knows: Person -> Person
)";

std::string PersonLine(int i) {
  return R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + R"(","age":)" + std::to_string(i) + "}}\n";
}

std::unique_ptr<Database> NewDb(uint32_t fanout) {
  OpenOptions o;
  o.auto_compact_fanout = fanout;
  auto db = Database::Init("memory://" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()),
                           kSchema, o);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? std::move(*db) : nullptr;
}

// Every person and edge, in a canonical order.
std::vector<std::string> Everything(Database& db, const ReadTarget& at = "main") {
  std::vector<std::string> out;
  auto p = db.Query("query q() { match { $p: Person } return { $p.name, $p.age } order { $p.name } }", "", at);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  if (p.ok()) {
    for (const auto& row : p->rows) out.push_back(row[0].string_value() + "/" + row[1].ToString());
  }
  auto e = db.Query(
      "query q() { match { $a: Person $a knows $b } return { $a.name, $b.name } order { $a.name, $b.name } }", "", at);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  if (e.ok()) {
    for (const auto& row : e->rows) out.push_back(row[0].string_value() + "->" + row[1].string_value());
  }
  return out;
}

// Ten small loads, edges between them, then updates and deletes: many small fragments and
// deletion vectors.
void WriteSmallPieces(Database& db, std::string_view branch = "main") {
  for (int i = 0; i < 10; ++i) {
    std::string data = PersonLine(2 * i) + PersonLine(2 * i + 1);
    LoadOptions lo;
    lo.branch = std::string(branch);
    ASSERT_TRUE(db.Load(data, lo).ok());
  }
  for (int i = 0; i < 9; ++i) {
    std::string e =
        R"({"edge":"Knows","from":"p)" + std::to_string(i) + R"(","to":"p)" + std::to_string(i + 1) + "\"}\n";
    LoadOptions lo;
    lo.branch = std::string(branch);
    ASSERT_TRUE(db.Load(e, lo).ok());
  }
  ASSERT_TRUE(db.Mutate("query m() { update Person set { age: 99 } where name = \"p3\" }", "", branch).ok());
  ASSERT_TRUE(db.Mutate("query m() { delete Person where name = \"p7\" }", "", branch).ok());
}

const OptimizeSummary::Table* Find(const OptimizeSummary& s, std::string_view type) {
  for (const auto& t : s.tables) {
    if (t.type_name == type) return &t;
  }
  return nullptr;
}

TEST(CompactTest, OptimizeIsOneCommitThatChangesNoEntity) {
  auto db = NewDb(0);
  ASSERT_NE(db, nullptr);
  WriteSmallPieces(*db);
  const auto before = Everything(*db);
  auto head_before = db->Snapshot();
  ASSERT_TRUE(head_before.ok());
  const size_t commits_before = db->Commits("main")->size();

  auto r = db->Optimize("main");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->compacted);
  const auto* person = Find(*r, "Person");
  const auto* knows = Find(*r, "Knows");
  ASSERT_NE(person, nullptr);
  ASSERT_NE(knows, nullptr);
  EXPECT_EQ(person->kind, EntityKind::kNode);
  EXPECT_TRUE(person->committed);
  EXPECT_GE(person->fragments_before, 10u);
  EXPECT_GE(person->fragments_removed, 10u);
  EXPECT_EQ(person->fragments_added, 1u);
  EXPECT_EQ(person->rows_rewritten, 19u);  // p7 is deleted: dropped, not rewritten
  EXPECT_TRUE(knows->committed);
  EXPECT_EQ(knows->fragments_added, 1u);

  // One commit, operation optimize, and it is the head the derived objects were built for.
  auto commits = db->Commits("main");
  ASSERT_TRUE(commits.ok());
  ASSERT_EQ(commits->size(), commits_before + 1);
  EXPECT_EQ(commits->front().operation, "optimize");
  EXPECT_EQ(commits->front().id, r->commit_id);
  EXPECT_EQ(Everything(*db), before);
  EXPECT_EQ(Everything(*db, ReadTarget::Commit(head_before->commit_id)), before);  // time travel intact

  // No entity changes: the commit's listing, the diff across it and the feed.
  auto changes = db->CommitChanges(r->commit_id);
  ASSERT_TRUE(changes.ok()) << changes.status().ToString();
  EXPECT_TRUE(changes->changes.empty());
  auto diff = db->Diff(ReadTarget::Commit(head_before->commit_id), "main");
  ASSERT_TRUE(diff.ok()) << diff.status().ToString();
  EXPECT_TRUE(diff->changes.empty());
  ChangePollRequest poll;
  poll.start = "beginning";
  poll.max_commits = 1000;
  auto feed = db->PollChanges(poll);
  ASSERT_TRUE(feed.ok()) << feed.status().ToString();
  for (const auto& b : feed->blocks) EXPECT_NE(b.commit.operation, "optimize");
  EXPECT_EQ(feed->blocks.size(), commits_before - 1);  // every write but genesis, not the optimize
  // The cursor moved past it: a poll from it has nothing.
  poll.cursor = feed->cursor;
  auto again = db->PollChanges(poll);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->blocks.empty());

  // Nothing left to rewrite: no commit, the derived objects are already there.
  auto second = db->Optimize("main");
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->compacted);
  EXPECT_EQ(second->commit_id, r->commit_id);
  EXPECT_EQ(second->built, 0u);
  for (const auto& t : second->tables) EXPECT_FALSE(t.committed) << t.type_name;
  EXPECT_EQ(db->Commits("main")->size(), commits_before + 1);
  EXPECT_EQ(Everything(*db), before);
}

TEST(CompactTest, MergesSeeThroughCompactionOnEitherSide) {
  auto db = NewDb(0);
  ASSERT_NE(db, nullptr);
  WriteSmallPieces(*db);
  ASSERT_TRUE(db->CreateBranch("dev").ok());
  ASSERT_TRUE(db->CreateBranch("ops").ok());
  // dev changes entities; main compacts, then merges dev.
  ASSERT_TRUE(db->Mutate("query m() { update Person set { age: 7 } where name = \"p1\" }", "", "dev").ok());
  ASSERT_TRUE(db->Mutate("query m() { delete Person where name = \"p2\" }", "", "dev").ok());
  ASSERT_TRUE(db->Mutate("query m() { insert Person { name: \"new\", age: 1 } }", "", "dev").ok());
  auto opt = db->Optimize("main");
  ASSERT_TRUE(opt.ok() && opt->compacted);
  const auto expected = Everything(*db, "dev");
  MergeOptions mo;
  mo.target = "main";
  auto m = db->Merge("dev", mo);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->outcome, MergeOutcome::kMerged);
  EXPECT_EQ(m->summary.at("Person").updated, 1u);
  EXPECT_EQ(m->summary.at("Person").deleted, 1u);
  EXPECT_EQ(m->summary.at("Person").inserted, 1u);
  EXPECT_EQ(Everything(*db), expected);

  // ops compacts only; merging it into main changes nothing there.
  auto opt_ops = db->Optimize("ops");
  ASSERT_TRUE(opt_ops.ok() && opt_ops->compacted);
  const auto main_now = Everything(*db);
  auto m2 = db->Merge("ops", mo);
  ASSERT_TRUE(m2.ok()) << m2.status().ToString();
  for (const auto& [type, counts] : m2->summary) EXPECT_EQ(counts, ChangeCounts{}) << type;
  EXPECT_EQ(Everything(*db), main_now);
}

TEST(CompactTest, AutomaticCompactionKeepsFragmentsBounded) {
  auto manual = NewDb(0);
  OpenOptions o;
  o.auto_compact_fanout = 4;
  auto db = Database::Init("memory://auto_compact_bounded", kSchema, o);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_NE(manual, nullptr);
  for (int i = 0; i < 70; ++i) {
    std::string q =
        "query m() { insert Person { name: \"p" + std::to_string(i) + "\", age: " + std::to_string(i) + " } }";
    ASSERT_TRUE((*db)->Mutate(q).ok());
    ASSERT_TRUE(manual->Mutate(q).ok());
  }
  EXPECT_EQ(Everything(**db), Everything(*manual));
  size_t optimize_commits = 0;
  auto commits = (*db)->Commits("main");
  ASSERT_TRUE(commits.ok());
  for (const auto& c : *commits) optimize_commits += c.operation == "optimize";
  EXPECT_GT(optimize_commits, 0u);
  // 70 single-row fragments with fanout 4: at most 3 per tier below 4^3 rows, plus the last write.
  auto tiers = (*db)->Optimize("main");
  ASSERT_TRUE(tiers.ok());
  EXPECT_LE(Find(*tiers, "Person")->fragments_before, 10u);
  auto flat = manual->Optimize("main");
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ(Find(*flat, "Person")->fragments_before, 70u);
  // The feed still lists exactly the 70 inserts.
  ChangePollRequest poll;
  poll.start = "beginning";
  poll.max_commits = 1000;
  auto feed = (*db)->PollChanges(poll);
  ASSERT_TRUE(feed.ok());
  size_t inserts = 0;
  for (const auto& b : feed->blocks) inserts += b.changes.size();
  EXPECT_EQ(inserts, 70u);
}

// A conditional write names a logical state: the automatic compaction right after the writer's
// previous write does not make its next --if-commit stale; a real change still does.
TEST(CompactTest, IfCommitSeesThroughCompactionCommits) {
  auto db = NewDb(2);
  ASSERT_NE(db, nullptr);
  auto a = db->Mutate("query m() { insert Person { name: \"a\" } }");
  ASSERT_TRUE(a.ok());
  auto b = db->Mutate("query m() { insert Person { name: \"b\" } }");
  ASSERT_TRUE(b.ok());
  auto head = db->Commits("main");
  ASSERT_TRUE(head.ok());
  ASSERT_EQ(head->front().operation, "optimize");  // two one-row fragments, fanout 2
  ASSERT_EQ(head->front().parents.front(), b->commit_id);
  auto c = db->Mutate("query m() { insert Person { name: \"c\" } }", "", "main", std::nullopt, b->commit_id);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto stale = db->Mutate("query m() { insert Person { name: \"d\" } }", "", "main", std::nullopt, a->commit_id);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code_string(), "precondition_failure");
}

TEST(CompactTest, DueFragmentsPicksTheLowestFullTier) {
  table::Manifest m;
  auto add = [&](uint32_t id, uint64_t rows) {
    table::FragmentMeta f;
    f.id = id;
    f.physical_rows = rows;
    m.fragments.push_back(f);
  };
  engine::AutoCompactPolicy p;
  p.fanout = 4;
  p.small_rows = 1000;
  add(0, 5000);  // large: never
  add(1, 20);    // tier 2
  add(2, 1);     // tier 0
  add(3, 2);
  add(4, 3);
  EXPECT_TRUE(engine::DueFragments(m, p).empty());  // 3 in tier 0 < 4
  add(5, 1);
  EXPECT_EQ(engine::DueFragments(m, p), (std::vector<uint32_t>{2, 3, 4, 5}));
  add(6, 5);
  add(7, 6);
  add(8, 7);  // tier 1 has 3; tier 0 is due and tier 1 is not
  EXPECT_EQ(engine::DueFragments(m, p), (std::vector<uint32_t>{2, 3, 4, 5}));
  m.fragments.erase(m.fragments.begin() + 2, m.fragments.begin() + 6);  // tier 0 compacted away
  add(9, 4);                                                            // tier 1: 4 now
  EXPECT_EQ(engine::DueFragments(m, p), (std::vector<uint32_t>{6, 7, 8, 9}));
}

// A crash at any request of a compaction leaves the head as it was, or compacted; the entities are
// the same either way, and a retry from there succeeds.
TEST(CompactTest, CrashSweepLeavesTheGraphAsItWasOrCompacted) {
  using engine::Graph;
  auto base = std::make_shared<io::MemoryStore>();
  {
    auto g = Graph::Init(base, kSchema);
    ASSERT_TRUE(g.ok());
    for (int i = 0; i < 6; ++i) {
      ASSERT_TRUE(engine::LoadNdjson(**g, PersonLine(i), engine::LoadOptions{}).ok());
    }
  }
  auto names = [](Graph& g) {
    auto snap = g.Head("main");
    EXPECT_TRUE(snap.ok());
    auto t = snap->Table("Person");
    EXPECT_TRUE(t.ok());
    table::ScanOptions so;
    so.columns = std::vector<std::string>{"name"};
    auto b = t->ScanAll(so);
    EXPECT_TRUE(b.ok());
    std::vector<std::string> out;
    for (size_t r = 0; b.ok() && r < b->num_rows(); ++r) out.push_back(b->GetValue(r, 0).string_value());
    std::sort(out.begin(), out.end());
    return out;
  };
  auto g0 = std::move(Graph::Open(base)).value();
  const auto expected = names(*g0);
  const std::string head0 = g0->Head("main")->commit().id;
  const std::vector<io::ObjectMeta> objects = std::move(base->List("")).value();
  size_t compacted = 0;
  for (uint64_t k = 1;; ++k) {
    bool fired = false;
    for (io::FaultAction action : {io::FaultAction::kCrashBefore, io::FaultAction::kCrashAfter}) {
      auto copy = std::make_shared<io::MemoryStore>();
      for (const auto& m : objects) ASSERT_TRUE(copy->Put(m.key, *base->Get(m.key)).ok());
      auto faulty = std::make_shared<io::FaultStore>(copy);
      faulty->FailAt(k, action);
      auto g = Graph::Open(faulty);
      if (g.ok()) (void)engine::CompactGraph(**g, engine::CompactGraphOptions{});
      fired = fired || faulty->fired();
      auto after = std::move(Graph::Open(copy)).value();
      const auto head = after->Head("main");
      ASSERT_TRUE(head.ok()) << "k=" << k << ": " << head.status().ToString();
      if (head->commit().id != head0) {
        EXPECT_EQ(head->commit().operation, "optimize") << "k=" << k;
        ++compacted;
      }
      ASSERT_EQ(names(*after), expected) << "k=" << k;
      auto retry = engine::CompactGraph(*after, engine::CompactGraphOptions{});
      ASSERT_TRUE(retry.ok()) << "k=" << k << ": " << retry.status().ToString();
      EXPECT_EQ(after->Head("main")->Table("Person")->manifest().fragments.size(), 1u) << "k=" << k;
      ASSERT_EQ(names(*after), expected) << "k=" << k;
    }
    if (!fired) break;
    ASSERT_LT(k, 300u);
  }
  EXPECT_GT(compacted, 0u);  // some crash came after the commit point
}

}  // namespace
}  // namespace omnigraph
