// Garbage collection (engine/maintain/cleanup.h): what a cleanup keeps (heads, the newest entries,
// recent history, merge bases, heads of the last grace period), what it takes (old versions,
// deleted branches, failed writes' leftovers), the typed error for reclaimed history, both sides
// of the grace rule under a fake clock, a crash at every delete, and writers running meanwhile.
#include "engine/maintain/cleanup.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/error_codes.h"
#include "common/ulid.h"
#include "engine/diff/change_feed.h"
#include "engine/graph/graph_layout.h"
#include "engine/graph/reclaim.h"
#include "engine/load/loader.h"
#include "engine/maintain/check.h"
#include "engine/merge/merge.h"
#include "io/disk_cache_store.h"
#include "io/fault_store.h"
#include "io/memory_store.h"
#include "table/scanner.h"
#include "table/table_writer.h"

namespace omnigraph::engine {
namespace {

constexpr const char* kSchema = R"(
  node Person { name: String @key, age: I32? }
  edge Knows: Person -> Person
)";

constexpr int64_t kHour = int64_t{3600} * 1000000;

std::string PersonLine(int i) {
  return R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + R"(","age":)" + std::to_string(i) + "}}\n";
}

using FakeClock = ScopedTestClock;  // common/clock.h

std::string Load(Graph& g, const std::string& data, const std::string& branch = "main") {
  LoadOptions o;
  o.branch = branch;
  auto r = LoadNdjson(g, data, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->write.commit.id : "";
}

std::vector<std::string> Names(const Snapshot& snap) {
  auto t = snap.Table("Person");
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return {};
  table::ScanOptions so;
  so.columns = std::vector<std::string>{"name"};
  auto b = t->ScanAll(so);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  std::vector<std::string> out;
  for (size_t r = 0; b.ok() && r < b->num_rows(); ++r) out.push_back(b->GetValue(r, 0).string_value());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> HeadNames(Graph& g, const std::string& branch = "main") {
  auto snap = g.Head(branch);
  EXPECT_TRUE(snap.ok()) << snap.status().ToString();
  return snap.ok() ? Names(*snap) : std::vector<std::string>{};
}

size_t CountKeys(io::ObjectStore& store, std::string_view prefix) {
  auto keys = store.List(prefix);
  EXPECT_TRUE(keys.ok());
  return keys.ok() ? keys->size() : 0;
}

// Opening every table of `commit_id`: ok, or the error.
Status ReadAll(Graph& g, const std::string& commit_id) {
  OG_ASSIGN_OR_RETURN(Snapshot snap, g.AtCommit(commit_id));
  for (const auto& [name, ref] : snap.commit().tables) OG_RETURN_IF_ERROR(snap.Table(name).status());
  return Status::Ok();
}

uint64_t Removed(const GraphCleanup& c, const std::string& kind) {
  auto it = c.removed.find(kind);
  return it == c.removed.end() ? 0 : it->second.objects;
}

CleanupPolicy Keep(uint64_t n, bool confirm = true) {
  CleanupPolicy p;
  p.keep = n;
  p.confirm = confirm;
  return p;
}

TEST(CleanupTest, RefusesWithoutAPolicy) {
  auto g = std::move(Graph::Init(std::make_shared<io::MemoryStore>(), kSchema)).value();
  EXPECT_EQ(std::string(CleanupGraph(*g, CleanupPolicy{}).status().code_string()),
            std::string(ErrorCodeName(ErrorCode::kInvalidArgument)));
  EXPECT_EQ(std::string(CleanupGraph(*g, Keep(0)).status().code_string()),
            std::string(ErrorCodeName(ErrorCode::kInvalidArgument)));
}

TEST(CleanupTest, ReclaimsOldVersionsKeepsTheHeadAndTheKeptHistoryStaysListable) {
  FakeClock clock;
  auto store = std::make_shared<io::MemoryStore>();
  auto g = std::move(Graph::Init(store, kSchema)).value();
  std::vector<std::string> commits;
  for (int i = 0; i < 8; ++i) commits.push_back(Load(*g, PersonLine(i)));
  const auto expected = HeadNames(*g);
  const size_t before = CountKeys(*store, "tables/");
  clock.Advance(2 * kHour);

  // A preview deletes nothing and says what would go.
  auto preview = CleanupGraph(*g, Keep(2, /*confirm=*/false));
  ASSERT_TRUE(preview.ok()) << preview.status().ToString();
  EXPECT_FALSE(preview->confirmed);
  EXPECT_EQ(Removed(*preview, "manifest"), 7u);  // Person versions of genesis and the 6 dropped loads
  EXPECT_EQ(CountKeys(*store, "tables/"), before);
  EXPECT_TRUE(ReadAll(*g, commits[0]).ok());

  auto run = CleanupGraph(*g, Keep(2));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_TRUE(run->confirmed);
  EXPECT_TRUE(run->completed);
  EXPECT_EQ(Removed(*run, "manifest"), 7u);
  EXPECT_EQ(run->unkept_commits, 7u);  // genesis + 6 loads
  EXPECT_EQ(run->removed, preview->removed);
  EXPECT_FALSE(run->record_id.empty());
  EXPECT_LT(CountKeys(*store, "tables/"), before);
  ASSERT_EQ(run->tables.size(), 1u);
  EXPECT_EQ(run->tables[0].type_name, "Person");
  EXPECT_EQ(run->tables[0].versions_removed, 7u);
  // The history goes with its data: commit objects and ref entries below the kept part.
  EXPECT_EQ(Removed(*run, "commit"), 7u);
  EXPECT_EQ(Removed(*run, "ref_entry"), 7u);
  EXPECT_EQ(CountKeys(*store, "commits/"), 2u);

  EXPECT_EQ(HeadNames(*g), expected);
  EXPECT_TRUE(ReadAll(*g, commits[6]).ok());  // the newest two entries are kept
  // Reclaimed history is a typed error: time travel, commit changes.
  auto g2 = std::move(Graph::Open(store)).value();  // no cached manifests
  EXPECT_EQ(std::string(ReadAll(*g2, commits[2]).code_string()),
            std::string(ErrorCodeName(ErrorCode::kHistoryReclaimed)))
      << ReadAll(*g2, commits[2]).ToString();
  EXPECT_EQ(std::string(CommitChanges(*g2, commits[3]).status().code_string()),
            std::string(ErrorCodeName(ErrorCode::kHistoryReclaimed)));
  EXPECT_TRUE(CommitChanges(*g2, commits[7]).ok());
  // So is a reclaimed version of the branch; the commit log lists the kept part.
  EXPECT_EQ(std::string(g2->AtBranchVersion("main", 3).status().code_string()), "history_reclaimed");
  EXPECT_TRUE(g2->AtBranchVersion("main", 8).ok());
  auto log = g2->CommitLog("main");
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  ASSERT_EQ(log->size(), 2u);
  EXPECT_EQ(log->at(0)->id, commits[7]);
  EXPECT_EQ(log->at(1)->id, commits[6]);

  // Idempotent: nothing more to take.
  auto again = CleanupGraph(*g2, Keep(2));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->removed.empty());
  EXPECT_TRUE(again->record_id.empty());
  EXPECT_EQ(again->unkept_commits, 0u);
  // keep 1 then takes one more version.
  auto one = CleanupGraph(*g2, Keep(1));
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(Removed(*one, "manifest"), 1u);
  EXPECT_EQ(HeadNames(*g2), expected);
  auto g3 = std::move(Graph::Open(store)).value();
  EXPECT_EQ(std::string(ReadAll(*g3, commits[6]).code_string()),
            std::string(ErrorCodeName(ErrorCode::kHistoryReclaimed)));
}

// A disk cache (--cache-dir) keeps fragment files of versions a cleanup later reclaims, when the
// cleanup runs in another process (its deletes never reach this folder). Those versions still read
// as reclaimed: their manifests are never cached, so the cached bytes are never reached.
TEST(CleanupTest, ReclaimedHistoryStaysReclaimedThroughADiskCache) {
  FakeClock clock;
  auto store = std::make_shared<io::MemoryStore>();
  const std::string dir = ::testing::TempDir() + "og-cleanup-cache-" + NewUlidString();
  auto cached = [&]() -> std::shared_ptr<io::ObjectStore> {
    io::DiskCacheOptions o;
    o.dir = dir;
    o.cacheable = IsDiskCacheableKey;
    auto c = io::DiskCacheStore::Open(store, o);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return std::move(*c);
  };
  auto g = std::move(Graph::Init(cached(), kSchema)).value();
  std::vector<std::string> commits;
  for (int i = 0; i < 4; ++i) commits.push_back(Load(*g, PersonLine(i)));
  auto reader = std::move(Graph::Open(cached())).value();  // a reading process fills the cache
  for (const std::string& c : commits) ASSERT_TRUE(ReadAll(*reader, c).ok());
  const auto expected = HeadNames(*g);
  size_t entries = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) entries += e.is_regular_file() ? 1 : 0;
  ASSERT_GT(entries, 0u);
  clock.Advance(2 * kHour);
  auto other = std::move(Graph::Open(store)).value();  // another process, no cache
  ASSERT_TRUE(CleanupGraph(*other, Keep(1)).ok());
  auto g2 = std::move(Graph::Open(cached())).value();  // a new process on the same cache folder
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(std::string(ReadAll(*g2, commits[i]).code_string()), "history_reclaimed") << i;
  }
  EXPECT_TRUE(ReadAll(*g2, commits[3]).ok());
  EXPECT_EQ(HeadNames(*g2), expected);
  std::filesystem::remove_all(dir);
}

// Two cleanups in two processes may overlap: one takes a commit's data that the other, whose
// record is newer, meant to keep. The commit still reads as reclaimed, never as corrupt.
TEST(CleanupTest, OverlappingRunsStillClassifyReclaimedHistory) {
  FakeClock clock;
  auto store = std::make_shared<io::MemoryStore>();
  auto g = std::move(Graph::Init(store, kSchema)).value();
  std::vector<std::string> commits;
  for (int i = 0; i < 4; ++i) commits.push_back(Load(*g, PersonLine(i)));
  clock.Advance(2 * kHour);
  ASSERT_TRUE(CleanupGraph(*g, Keep(1)).ok());
  CleanupRecord other;  // a slower run with --keep 4 that read the refs before the first one deleted
  other.id = NewUlidString();
  other.started_us = NowMicros();
  other.keep = 4;
  other.kept_commits = {commits.begin(), commits.end()};
  ASSERT_TRUE(WriteCleanupRecord(*store, other).ok());
  auto g2 = std::move(Graph::Open(store)).value();
  EXPECT_EQ(std::string(ReadAll(*g2, commits[1]).code_string()), "history_reclaimed");
  EXPECT_TRUE(ReadAll(*g2, commits[3]).ok());
}

TEST(CleanupTest, OlderThanKeepsRecentEntries) {
  FakeClock clock;
  auto store = std::make_shared<io::MemoryStore>();
  auto g = std::move(Graph::Init(store, kSchema)).value();
  std::vector<std::string> commits;
  for (int i = 0; i < 3; ++i) commits.push_back(Load(*g, PersonLine(i)));
  clock.Advance(3 * kHour);
  for (int i = 3; i < 5; ++i) commits.push_back(Load(*g, PersonLine(i)));
  clock.Advance(2 * kHour);
  CleanupPolicy p;
  p.older_than_us = 4 * kHour;  // the last two loads are younger
  p.confirm = true;
  auto run = CleanupGraph(*g, p);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  auto g2 = std::move(Graph::Open(store)).value();
  EXPECT_TRUE(ReadAll(*g2, commits[3]).ok());
  EXPECT_TRUE(ReadAll(*g2, commits[4]).ok());
  EXPECT_EQ(std::string(ReadAll(*g2, commits[1]).code_string()),
            std::string(ErrorCodeName(ErrorCode::kHistoryReclaimed)));
}

TEST(CleanupTest, YoungObjectsAndRecentHeadsAreNeverTaken) {
  FakeClock clock;
  auto store = std::make_shared<io::MemoryStore>();
  auto g = std::move(Graph::Init(store, kSchema)).value();
  std::vector<std::string> commits;
  for (int i = 0; i < 4; ++i) commits.push_back(Load(*g, PersonLine(i)));
  // Half an hour later: everything is younger than the grace period, and every entry was the head
  // within it (a writer may still be reading it).
  clock.Advance(kHour / 2);
  auto run = CleanupGraph(*g, Keep(1));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_TRUE(run->removed.empty());
  EXPECT_EQ(run->kept_commits, 5u);
  // 2 hours later: the old entries were superseded long ago.
  clock.Advance(2 * kHour);
  run = CleanupGraph(*g, Keep(1));
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(Removed(*run, "manifest"), 4u);
  EXPECT_EQ(run->kept_commits, 1u);
}

TEST(CleanupTest, WritersNeverPublishAnAttemptOlderThanHalfTheGrace) {
  FakeClock clock;
  auto store = std::make_shared<io::MemoryStore>();
  GraphOptions go;
  go.constructive_retry_deadline_us = 4 * kHour;
  auto g = std::move(Graph::Init(store, kSchema, go)).value();
  int prepares = 0;
  WriteRequest w;
  w.kind = WriteKind::kConstructive;
  w.prepare = [&](const Snapshot& s) -> Result<PreparedWrite> {
    if (++prepares == 1) clock.Advance(kHour / 2 + 1);  // a stalled first attempt
    OG_ASSIGN_OR_RETURN(table::TableVersion people, s.Table("Person"));
    OG_ASSIGN_OR_RETURN(format::Batch rows,
                        format::Batch::FromRows(people.schema().ToFormatSchema(),
                                                {{Value::String("x"), Value::String("x"), Value::Null()}}));
    OG_ASSIGN_OR_RETURN(table::TableVersion next, table::AppendRows(people, rows));
    PreparedWrite out;
    out.tables.emplace("Person", std::move(next));
    out.operation = "test:append";
    return out;
  };
  auto r = g->Write(w);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(prepares, 2);  // prepared again, never published stale
  EXPECT_EQ(HeadNames(*g), std::vector<std::string>{"x"});
}

TEST(CleanupTest, CleanupStopsDeletingAtHalfTheGrace) {
  FakeClock clock;
  auto store = std::make_shared<io::MemoryStore>();
  auto g = std::move(Graph::Init(store, kSchema)).value();
  for (int i = 0; i < 4; ++i) Load(*g, PersonLine(i));
  clock.Advance(3 * kHour);
  const size_t before = CountKeys(*store, "tables/");
  clock.SetTick(20 * 60 * int64_t{1000000});  // every clock read takes 20 minutes: a very slow run
  auto run = CleanupGraph(*g, Keep(1));
  clock.SetTick(0);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_FALSE(run->completed);
  EXPECT_TRUE(run->removed.empty());
  EXPECT_EQ(CountKeys(*store, "tables/"), before);
  run = CleanupGraph(*g, Keep(1));
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->completed);
  EXPECT_EQ(Removed(*run, "manifest"), 4u);
}

TEST(CleanupTest, MergeBasesOfLiveBranchesAreKept) {
  FakeClock clock;
  auto store = std::make_shared<io::MemoryStore>();
  auto g = std::move(Graph::Init(store, kSchema)).value();
  Load(*g, PersonLine(0));
  ASSERT_TRUE(g->CreateBranch("feature", "main").ok());
  Load(*g, PersonLine(1), "feature");
  Load(*g, PersonLine(6), "feature");
  for (int i = 2; i < 6; ++i) Load(*g, PersonLine(i));  // main moves on
  clock.Advance(2 * kHour);
  auto run = CleanupGraph(*g, Keep(1));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->kept_commits, 3u);  // two heads and their merge base
  // Only their commit objects are left; the record grafts each head onto the base (and the base,
  // whose parent went, onto nothing).
  EXPECT_EQ(CountKeys(*store, "commits/"), 3u);
  auto records = CleanupRecords(*store);
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 1u);
  EXPECT_EQ(records->at(0).grafts.size(), 3u);
  auto g2 = std::move(Graph::Open(store)).value();
  auto check = CheckGraph(*g2, CheckOptions{});
  ASSERT_TRUE(check.ok());
  EXPECT_EQ(check->problems_total, 0u) << (check->problems.empty() ? "" : check->problems[0].message);
  MergeOptions mo;
  mo.source = "feature";
  auto merged = MergeBranches(*g2, mo);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->outcome, MergeOutcome::kMerged);
  EXPECT_EQ(HeadNames(*g2), (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4", "p5", "p6"}));
  // Another round on both sides, another cleanup, another merge: grafts over grafts.
  Load(*g2, PersonLine(7), "feature");
  Load(*g2, PersonLine(8), "feature");
  Load(*g2, PersonLine(9));
  clock.Advance(2 * kHour);
  ASSERT_TRUE(CleanupGraph(*g2, Keep(1)).ok());
  auto g3 = std::move(Graph::Open(store)).value();
  merged = MergeBranches(*g3, mo);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->outcome, MergeOutcome::kMerged);
  EXPECT_EQ(HeadNames(*g3), (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"}));
}

// The change feed never answers across truncated history: a cursor or start position below the
// kept part is `history_reclaimed`; a cursor inside it goes on.
TEST(CleanupTest, TheFeedRefusesReclaimedPositions) {
  FakeClock clock;
  auto store = std::make_shared<io::MemoryStore>();
  auto g = std::move(Graph::Init(store, kSchema)).value();
  for (int i = 0; i < 3; ++i) Load(*g, PersonLine(i));
  auto old_cursor = CursorAtHead(*g, *g->Head(), ChangeFilter{});
  ASSERT_TRUE(old_cursor.ok());
  for (int i = 3; i < 6; ++i) Load(*g, PersonLine(i));
  auto kept_cursor = CursorAtHead(*g, *g->Head(), ChangeFilter{});  // the head's predecessor, once loaded
  ASSERT_TRUE(kept_cursor.ok());
  Load(*g, PersonLine(6));
  clock.Advance(2 * kHour);
  ASSERT_TRUE(CleanupGraph(*g, Keep(2)).ok());
  auto g2 = std::move(Graph::Open(store)).value();
  PollOptions o;
  o.cursor = *old_cursor;
  EXPECT_EQ(std::string(PollChanges(*g2, o).status().code_string()), "history_reclaimed");
  o.cursor.reset();
  o.start = "beginning";
  EXPECT_EQ(std::string(PollChanges(*g2, o).status().code_string()), "history_reclaimed");
  // The head's step is kept (both of its commits are): a cursor at its predecessor reads it.
  o.cursor = *kept_cursor;
  auto polled = PollChanges(*g2, o);
  ASSERT_TRUE(polled.ok()) << polled.status().ToString();
  ASSERT_EQ(polled->blocks.size(), 1u);
  EXPECT_EQ(polled->blocks[0].changes.size(), 1u);
}

TEST(CleanupTest, DeletedBranchesAndFailedWritesAreReclaimed) {
  FakeClock clock;
  auto base = std::make_shared<io::MemoryStore>();
  {
    auto g = std::move(Graph::Init(base, kSchema)).value();
    Load(*g, PersonLine(0));
    ASSERT_TRUE(g->CreateBranch("scratch", "main").ok());
    for (int i = 1; i < 4; ++i) Load(*g, PersonLine(i), "scratch");
    ASSERT_TRUE(g->DeleteBranch("scratch").ok());
  }
  // A write that crashes at its publish leaves a commit object and table objects nobody names.
  {
    auto faulty = std::make_shared<io::FaultStore>(base);
    io::FaultRule rule;
    rule.ops = io::OpBit(io::StoreOp::kPutIfAbsent);
    rule.key_contains = "refs/";
    rule.action = io::FaultAction::kCrashBefore;
    faulty->AddRule(rule);
    auto g = std::move(Graph::Open(faulty)).value();
    EXPECT_FALSE(LoadNdjson(*g, PersonLine(9), LoadOptions{}).ok());
  }
  clock.Advance(2 * kHour);
  auto g = std::move(Graph::Open(base)).value();
  const size_t commits_before = CountKeys(*base, "commits/");
  auto run = CleanupGraph(*g, Keep(1));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  // Genesis, the 3 scratch loads and the failed write's: only main's head is left.
  EXPECT_EQ(Removed(*run, "commit"), 5u);
  EXPECT_EQ(CountKeys(*base, "commits/"), commits_before - 5);
  EXPECT_EQ(CountKeys(*base, "commits/"), 1u);
  EXPECT_EQ(Removed(*run, "manifest"), 5u);  // genesis Person, 3 scratch loads, the failed write
  EXPECT_EQ(HeadNames(*g), std::vector<std::string>{"p0"});
  // What is left is exactly what main's head needs: one manifest per table.
  size_t manifests = 0;
  const std::vector<io::ObjectMeta> left = std::move(base->List("tables/")).value();
  for (const auto& m : left) {
    if (m.key.find("/versions/") != std::string::npos) ++manifests;
  }
  EXPECT_EQ(manifests, 2u);
}

// A crash at every request of a cleanup leaves a graph whose kept history reads correctly, and the
// next run finishes the job.
TEST(CleanupTest, CrashSweep) {
  FakeClock clock;
  auto base = std::make_shared<io::MemoryStore>();
  std::vector<std::string> commits;
  {
    auto g = std::move(Graph::Init(base, kSchema)).value();
    for (int i = 0; i < 5; ++i) commits.push_back(Load(*g, PersonLine(i)));
  }
  clock.Advance(2 * kHour);
  const std::vector<io::ObjectMeta> objects = std::move(base->List("")).value();
  std::vector<std::string> expected, expected_prev;
  {
    auto g = std::move(Graph::Open(base)).value();
    expected = HeadNames(*g);
    expected_prev = Names(*g->AtCommit(commits[3]));
  }
  for (uint64_t k = 1;; ++k) {
    auto copy = std::make_shared<io::MemoryStore>();
    for (const auto& m : objects) ASSERT_TRUE(copy->Put(m.key, *base->Get(m.key)).ok());
    auto faulty = std::make_shared<io::FaultStore>(copy);
    faulty->FailAt(k, io::FaultAction::kCrashAfter);
    {
      auto g = Graph::Open(faulty);
      if (g.ok()) (void)CleanupGraph(**g, Keep(2));
    }
    const bool fired = faulty->fired();
    auto after = std::move(Graph::Open(copy)).value();
    ASSERT_EQ(HeadNames(*after), expected) << "k=" << k;
    ASSERT_EQ(Names(*after->AtCommit(commits[3])), expected_prev) << "k=" << k;
    auto old = ReadAll(*after, commits[0]);
    EXPECT_TRUE(old.ok() || old.code() == ErrorCode::kHistoryReclaimed) << "k=" << k << ": " << old.ToString();
    auto finish = CleanupGraph(*after, Keep(2));
    ASSERT_TRUE(finish.ok()) << "k=" << k << ": " << finish.status().ToString();
    auto fresh = std::move(Graph::Open(copy)).value();  // no cached manifests
    EXPECT_EQ(std::string(ReadAll(*fresh, commits[0]).code_string()),
              std::string(ErrorCodeName(ErrorCode::kHistoryReclaimed)))
        << "k=" << k;
    if (!fired) break;
  }
}

// Writers in two handles keep loading while cleanups run with a short grace (and the writers honour
// it): no write is lost and every kept snapshot reads.
TEST(CleanupTest, ConcurrentWritersLoseNothing) {
  auto store = std::make_shared<io::MemoryStore>();
  GraphOptions go;
  go.cleanup_grace_us = 300'000;
  ASSERT_TRUE(Graph::Init(store, kSchema, go).ok());
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> writers;
  constexpr int kPerWriter = 25;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      auto g = std::move(Graph::Open(store, go)).value();
      for (int i = 0; i < kPerWriter; ++i) {
        auto r = LoadNdjson(*g, PersonLine(w * 1000 + i), LoadOptions{});
        if (!r.ok()) {
          ADD_FAILURE() << r.status().ToString();
          failures++;
        }
      }
    });
  }
  int runs = 0;
  std::thread cleaner([&] {
    auto g = std::move(Graph::Open(store, go)).value();
    while (!stop) {
      CleanupPolicy p = Keep(1);
      p.grace_us = go.cleanup_grace_us;
      auto r = CleanupGraph(*g, p);
      if (!r.ok()) {
        ADD_FAILURE() << r.status().ToString();
        failures++;
      }
      ++runs;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  for (auto& t : writers) t.join();
  stop = true;
  cleaner.join();
  EXPECT_EQ(failures, 0);
  EXPECT_GT(runs, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  auto g = std::move(Graph::Open(store, go)).value();
  CleanupPolicy p = Keep(1);
  p.grace_us = go.cleanup_grace_us;
  ASSERT_TRUE(CleanupGraph(*g, p).ok());
  EXPECT_EQ(HeadNames(*g).size(), 2u * kPerWriter);
}

}  // namespace
}  // namespace omnigraph::engine
