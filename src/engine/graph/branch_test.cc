// Branches, merge and change listing (issue 7): request budgets (docs/architecture.md, "Branches"),
// concurrent creates, merge with --delete-branch, incarnations, and a property test of change
// listing.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <random>
#include <set>
#include <thread>
#include <utility>

#include "common/clock.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "engine/diff/change_feed.h"
#include "engine/graph/graph_layout.h"
#include "engine/load/exporter.h"
#include "engine/load/loader.h"
#include "engine/merge/merge.h"
#include "engine/mutate/mutation.h"
#include "io/counting_store.h"
#include "io/latency_store.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

std::string SchemaWithTypes(int types) {
  std::string s = "node Person { name: String @key, age: I32? }\nedge Knows: Person -> Person\n";
  for (int i = 2; i < types; ++i) s += "node Extra" + std::to_string(i) + " { slug: String @key }\n";
  return s;
}

std::string Person(const std::string& name, int age) {
  return R"({"type":"Person","data":{"name":")" + name + R"(","age":)" + std::to_string(age) + "}}\n";
}

void Load(Graph& g, const std::string& ndjson, const std::string& branch = "main", LoadMode mode = LoadMode::kMerge) {
  LoadOptions o;
  o.branch = branch;
  o.mode = mode;
  auto r = LoadNdjson(g, ndjson, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

std::string Export(const Snapshot& snap) {
  std::string out;
  EXPECT_TRUE(ExportNdjson(snap, {}, [&](std::string_view l) {
                out += std::string(l) + "\n";
                return Status::Ok();
              }).ok());
  return out;
}

struct Cost {
  uint64_t requests, rounds;
  std::string detail;
};

Cost MeasureBranchCreate(int types, bool then_write) {
  auto mem = std::make_shared<io::MemoryStore>();
  auto counting = std::make_shared<io::CountingStore>(mem);
  auto g0 = Graph::Init(counting, SchemaWithTypes(types));
  EXPECT_TRUE(g0.ok());
  Load(**g0, Person("a", 1));
  auto slow = std::make_shared<io::LatencyStore>(counting, /*delay_micros=*/20000);
  auto g = Graph::Open(slow);
  EXPECT_TRUE(g.ok());
  Load(**g, Person("warm", 1));  // a warm process: head, commit and catalog cached
  counting->Reset();
  slow->ResetRounds();
  if (!then_write) {
    EXPECT_TRUE((*g)->CreateBranch("feature/x").ok());
  } else {
    EXPECT_TRUE((*g)->CreateBranch("feature/x").ok());
    counting->Reset();
    slow->ResetRounds();
    Load(**g, Person("on-branch", 2), "feature/x");
  }
  return Cost{counting->counts().total(), slow->sequential_rounds(), counting->counts().ToString()};
}

TEST(BranchBudgetTest, CreateIsConstantAndFirstBranchWriteCostsAsMuchAsAMainWrite) {
  Cost small = MeasureBranchCreate(4, false);
  Cost large = MeasureBranchCreate(200, false);
  EXPECT_LE(small.requests, 3u) << small.detail;
  EXPECT_LE(small.rounds, 2u) << small.detail;
  EXPECT_EQ(small.requests, large.requests) << large.detail;
  EXPECT_EQ(small.rounds, large.rounds);
  Cost write_small = MeasureBranchCreate(4, true);
  Cost write_large = MeasureBranchCreate(200, true);
  EXPECT_LE(write_small.requests, 8u) << write_small.detail;
  EXPECT_LE(write_small.rounds, 4u) << write_small.detail;
  EXPECT_EQ(write_small.requests, write_large.requests) << write_large.detail;
  std::printf(
      "branch create: %llu requests, %llu round trips (%s); first branch write: %llu requests, %llu round trips (%s)\n",
      static_cast<unsigned long long>(small.requests), static_cast<unsigned long long>(small.rounds),
      small.detail.c_str(), static_cast<unsigned long long>(write_small.requests),
      static_cast<unsigned long long>(write_small.rounds), write_small.detail.c_str());
}

TEST(BranchTest, ConcurrentCreatesOfOneNameHaveExactlyOneWinner) {
  auto mem = std::make_shared<io::MemoryStore>();
  ASSERT_TRUE(Graph::Init(mem, SchemaWithTypes(2)).ok());
  for (int round = 0; round < 5; ++round) {
    std::string name = "race" + std::to_string(round);
    std::atomic<int> won{0}, exists{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&] {
        auto g = Graph::Open(mem);  // separate handles: no shared in-process state
        ASSERT_TRUE(g.ok());
        auto r = (*g)->CreateBranch(name);
        if (r.ok())
          won++;
        else if (r.status().code() == ErrorCode::kAlreadyExists)
          exists++;
        else
          ADD_FAILURE() << r.status().ToString();
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(won.load(), 1);
    EXPECT_EQ(exists.load(), 7);
  }
}

TEST(BranchTest, RecreatedBranchRejectsOldSnapshotIdsAndCursors) {
  auto mem = std::make_shared<io::MemoryStore>();
  auto g = Graph::Init(mem, SchemaWithTypes(2));
  ASSERT_TRUE(g.ok());
  ASSERT_TRUE((*g)->CreateBranch("b").ok());
  Load(**g, Person("x", 1), "b");
  auto head = (*g)->Head("b");
  ASSERT_TRUE(head.ok());
  std::string id = Graph::SnapshotId(*head);
  ASSERT_TRUE((*g)->AtSnapshotId(id).ok());
  PollOptions p;
  p.branch = "b";
  p.start = "beginning";
  auto polled = PollChanges(**g, p);
  ASSERT_TRUE(polled.ok()) << polled.status().ToString();
  EXPECT_EQ(polled->blocks.size(), 1u);
  ASSERT_TRUE((*g)->DeleteBranch("b").ok());
  ASSERT_TRUE((*g)->CreateBranch("b").ok());
  auto stale = (*g)->AtSnapshotId(id);
  EXPECT_EQ(stale.status().code(), ErrorCode::kStaleIncarnation) << stale.status().ToString();
  p.cursor = polled->cursor;
  auto rejected = PollChanges(**g, p);
  EXPECT_EQ(rejected.status().code(), ErrorCode::kCursorRejected) << rejected.status().ToString();
  EXPECT_NE(rejected.status().message().find("change cursor rejected"), std::string::npos);
  // A cursor with other filters is rejected too.
  p.branch = "main";
  p.cursor.reset();
  auto on_main = PollChanges(**g, p);
  ASSERT_TRUE(on_main.ok());
  p.cursor = on_main->cursor;
  p.filter.ops = {ChangeOp::kDelete};
  EXPECT_EQ(PollChanges(**g, p).status().code(), ErrorCode::kCursorRejected);
}

TEST(BranchTest, ChangeFeedResumesAfterCompleteCommits) {
  auto mem = std::make_shared<io::MemoryStore>();
  auto g = Graph::Init(mem, SchemaWithTypes(2));
  ASSERT_TRUE(g.ok());
  PollOptions p;  // start now: nothing yet
  auto first = PollChanges(**g, p);
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->blocks.empty());
  for (int i = 0; i < 5; ++i) Load(**g, Person("p" + std::to_string(i), i));
  p.cursor = first->cursor;
  p.max_commits = 2;
  std::vector<std::string> seen;
  for (int polls = 0; polls < 10; ++polls) {
    auto r = PollChanges(**g, p);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (const auto& b : r->blocks) {
      ASSERT_EQ(b.changes.size(), 1u);
      seen.push_back(b.changes[0].id);
    }
    p.cursor = r->cursor;
    if (r->caught_up) break;
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4"}));
  auto genesis = (*g)->CommitLog("main");
  ASSERT_TRUE(genesis.ok());
  EXPECT_EQ(CommitChanges(**g, genesis->back()->id).status().code(), ErrorCode::kParentlessCommit);
}

TEST(MergeTest, DeleteBranchAfterMergeAndTargetMovingIsAConflict) {
  auto mem = std::make_shared<io::MemoryStore>();
  auto g = Graph::Init(mem, SchemaWithTypes(2));
  ASSERT_TRUE(g.ok());
  Load(**g, Person("a", 1));
  ASSERT_TRUE((*g)->CreateBranch("f").ok());
  Load(**g, Person("b", 1), "f");
  Load(**g, Person("c", 1));
  MergeOptions o;
  o.source = "f";
  o.delete_source = true;
  auto r = MergeBranches(**g, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->outcome, MergeOutcome::kMerged);
  EXPECT_TRUE(r->branch_deleted);
  auto head = (*g)->Head();
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->commit().parents.size(), 2u);
  EXPECT_EQ((*g)->Head("f").status().category(), StatusCode::kNotFound);
  auto branches = (*g)->Branches();
  ASSERT_TRUE(branches.ok());
  EXPECT_EQ(*branches, std::vector<std::string>{"main"});
  EXPECT_EQ(MergeBranches(**g, MergeOptions{"main", "main", false}).status().category(), StatusCode::kInvalidArgument);
}

TEST(MergeTest, ConcurrentMergesIntoMainBothLandOrConflict) {
  auto mem = std::make_shared<io::MemoryStore>();
  auto g = Graph::Init(mem, SchemaWithTypes(2));
  ASSERT_TRUE(g.ok());
  Load(**g, Person("base", 1));
  for (int b = 0; b < 4; ++b) {
    std::string name = "agent" + std::to_string(b);
    ASSERT_TRUE((*g)->CreateBranch(name).ok());
    Load(**g, Person("from" + std::to_string(b), b), name);
  }
  Load(**g, Person("main-moved", 9));  // so that no merge is a fast-forward
  std::vector<Status> results(4);
  std::vector<std::thread> threads;
  for (int b = 0; b < 4; ++b) {
    threads.emplace_back([&, b] {
      auto h = Graph::Open(mem);
      ASSERT_TRUE(h.ok());
      for (int attempt = 0; attempt < 20; ++attempt) {
        auto r = MergeBranches(**h, MergeOptions{"agent" + std::to_string(b), "main", false});
        results[b] = r.status();
        if (r.ok() || r.status().code() != ErrorCode::kReadSetConflict) return;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& s : results) EXPECT_TRUE(s.ok()) << s.ToString();  // each landed after retries
  auto head = (*g)->Head();
  ASSERT_TRUE(head.ok());
  std::string exported = Export(*head);
  for (int b = 0; b < 4; ++b) EXPECT_NE(exported.find("\"from" + std::to_string(b) + "\""), std::string::npos);
  auto log = (*g)->CommitLog("main");
  ASSERT_TRUE(log.ok());
  int merges = 0;
  for (const auto& c : *log) merges += c->operation == "merge";
  EXPECT_EQ(merges, 4);
}

// A store that runs `hook` once, right after the first successful put_if_absent of a key under
// `prefix`: the seam for "another process moves a branch at exactly this point".
class HookStore : public io::ObjectStore {
 public:
  HookStore(std::shared_ptr<io::ObjectStore> base, std::string prefix, std::function<void()> hook)
      : base_(std::move(base)), prefix_(std::move(prefix)), hook_(std::move(hook)) {}
  Result<std::string> Get(std::string_view k) override { return base_->Get(k); }
  Result<std::string> GetRange(std::string_view k, uint64_t o, uint64_t n) override { return base_->GetRange(k, o, n); }
  Result<io::ObjectMeta> Head(std::string_view k) override { return base_->Head(k); }
  Result<std::vector<io::ObjectMeta>> List(std::string_view p, std::string_view a) override {
    return base_->List(p, a);
  }
  Result<std::vector<io::ObjectMeta>> ListPage(std::string_view p, std::string_view a, size_t n) override {
    return base_->ListPage(p, a, n);
  }
  Status Put(std::string_view k, std::string_view d) override { return base_->Put(k, d); }
  Status Delete(std::string_view k) override { return base_->Delete(k); }
  std::string Describe() const override { return base_->Describe(); }
  Status PutIfAbsent(std::string_view k, std::string_view d) override {
    Status s = base_->PutIfAbsent(k, d);
    if (s.ok() && hook_ && k.substr(0, prefix_.size()) == prefix_) std::exchange(hook_, nullptr)();
    return s;
  }

 private:
  std::shared_ptr<io::ObjectStore> base_;
  std::string prefix_;
  std::function<void()> hook_;
};

std::string HeadId(Graph& g, const std::string& branch = "main") {
  auto h = g.Head(branch);
  EXPECT_TRUE(h.ok()) << h.status().ToString();
  return h.ok() ? h->commit().id : "";
}

std::vector<std::string> Ids(const std::vector<ChangeBlock>& blocks) {
  std::vector<std::string> out;
  for (const auto& b : blocks) {
    std::string ids;
    for (const auto& c : b.changes) ids += (ids.empty() ? "" : ",") + c.id;
    out.push_back(ids);
  }
  return out;
}

// feat merges main (B3, parents [B2, M1]); merging feat into main fast-forwards main to B3. main's
// history is its ref log, so M1 stays in it, and a cursor at M1 gets one block: M1 -> B3.
TEST(BranchHistoryTest, FastForwardKeepsTheBranchsOwnHistoryAndCursors) {
  auto mem = std::make_shared<io::MemoryStore>();
  auto g = Graph::Init(mem, SchemaWithTypes(2));
  ASSERT_TRUE(g.ok());
  Graph& graph = **g;
  std::string genesis = HeadId(graph);
  Load(graph, Person("a", 1));
  std::string m0 = HeadId(graph);
  ASSERT_TRUE(graph.CreateBranch("feat").ok());
  Load(graph, Person("b", 1), "feat");
  std::string b1 = HeadId(graph, "feat");
  Load(graph, Person("c", 1), "feat");
  std::string b2 = HeadId(graph, "feat");
  Load(graph, Person("m", 1));
  std::string m1 = HeadId(graph);
  PollOptions p;  // a consumer of main, caught up at M1
  auto at_m1 = PollChanges(graph, p);
  ASSERT_TRUE(at_m1.ok());
  auto into_feat = MergeBranches(graph, MergeOptions{"main", "feat", false});
  ASSERT_TRUE(into_feat.ok()) << into_feat.status().ToString();
  ASSERT_EQ(into_feat->outcome, MergeOutcome::kMerged);
  std::string b3 = into_feat->commit_id;
  EXPECT_EQ((*graph.LoadCommit(b3))->parents, (std::vector<std::string>{b2, m1}));
  auto ff = MergeBranches(graph, MergeOptions{"feat", "main", false});
  ASSERT_TRUE(ff.ok()) << ff.status().ToString();
  ASSERT_EQ(ff->outcome, MergeOutcome::kFastForward);
  EXPECT_EQ(HeadId(graph), b3);

  // commit list --branch main: one row per ref move (versions 4, 3, 2, 1), M1 included.
  auto history = graph.BranchHistory("main");
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  std::vector<std::string> ids;
  std::vector<uint64_t> seqs;
  for (const auto& s : *history) {
    ids.push_back(s.commit->id);
    seqs.push_back(s.seq);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{b3, m1, m0, genesis}));
  EXPECT_EQ(seqs, (std::vector<uint64_t>{4, 3, 2, 1}));
  EXPECT_EQ(history->front().from, m1);  // the fast-forward moved main from M1
  auto log = graph.CommitLog("main");
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->size(), 4u);
  // feat: its own moves, then the commit it was created at and what that inherits.
  auto feat = graph.BranchHistory("feat");
  ASSERT_TRUE(feat.ok());
  ids.clear();
  seqs.clear();
  for (const auto& s : *feat) {
    ids.push_back(s.commit->id);
    seqs.push_back(s.seq);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{b3, b2, b1, m0, genesis}));
  EXPECT_EQ(seqs, (std::vector<uint64_t>{4, 3, 2, 1, 0}));

  // The cursor taken at M1 keeps working: one block for the fast-forward, M1 -> B3.
  p.cursor = at_m1->cursor;
  auto after_ff = PollChanges(graph, p);
  ASSERT_TRUE(after_ff.ok()) << after_ff.status().ToString();
  ASSERT_EQ(after_ff->blocks.size(), 1u);
  EXPECT_EQ(after_ff->blocks[0].commit->id, b3);
  EXPECT_EQ(after_ff->blocks[0].from_commit_id, m1);
  EXPECT_EQ(after_ff->blocks[0].seq, 4u);
  EXPECT_EQ(Ids(after_ff->blocks), (std::vector<std::string>{"b,c"}));
  // ... and so does the cursor it returned.
  Load(graph, Person("n", 1));
  p.cursor = after_ff->cursor;
  auto later = PollChanges(graph, p);
  ASSERT_TRUE(later.ok()) << later.status().ToString();
  EXPECT_EQ(Ids(later->blocks), (std::vector<std::string>{"n"}));
  // Replays: main from the beginning, from M1 by id; feat from the beginning (inherited first).
  p.cursor.reset();
  p.start = "beginning";
  auto all = PollChanges(graph, p);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(Ids(all->blocks), (std::vector<std::string>{"a", "m", "b,c", "n"}));
  p.start = "after:" + m1;
  auto from_m1 = PollChanges(graph, p);
  ASSERT_TRUE(from_m1.ok()) << from_m1.status().ToString();
  EXPECT_EQ(Ids(from_m1->blocks), (std::vector<std::string>{"b,c", "n"}));
  p.start = "after:" + b1;  // a commit main's ref never named: not a position of main's history
  EXPECT_EQ(PollChanges(graph, p).status().code(), ErrorCode::kCursorRejected);
  PollOptions f;
  f.branch = "feat";
  f.start = "beginning";
  auto feat_all = PollChanges(graph, f);
  ASSERT_TRUE(feat_all.ok());
  EXPECT_EQ(Ids(feat_all->blocks), (std::vector<std::string>{"a", "b", "c", "m"}));
  f.start = "after:" + m0;  // the inherited fork commit
  auto feat_own = PollChanges(graph, f);
  ASSERT_TRUE(feat_own.ok()) << feat_own.status().ToString();
  EXPECT_EQ(Ids(feat_own->blocks), (std::vector<std::string>{"b", "c", "m"}));
}

// The source moving between the merge's publish and the delete: the newer work is kept.
TEST(MergeTest, DeleteBranchKeepsASourceThatMovedAfterTheMergedVersion) {
  auto mem = std::make_shared<io::MemoryStore>();
  ASSERT_TRUE(Graph::Init(mem, SchemaWithTypes(2)).ok());
  auto other = Graph::Open(mem);
  ASSERT_TRUE(other.ok());
  Load(**other, Person("a", 1));
  ASSERT_TRUE((*other)->CreateBranch("f").ok());
  Load(**other, Person("b", 1), "f");
  Load(**other, Person("c", 1));
  auto hooked = std::make_shared<HookStore>(mem, RefFolder("main"), [&] { Load(**other, Person("late", 1), "f"); });
  auto g = Graph::Open(hooked);
  ASSERT_TRUE(g.ok());
  auto r = MergeBranches(**g, MergeOptions{"f", "main", true});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->outcome, MergeOutcome::kMerged);
  EXPECT_FALSE(r->branch_deleted);
  ASSERT_TRUE(r->branch_delete_error.has_value());
  EXPECT_NE(r->branch_delete_error->find("read_set_conflict"), std::string::npos) << *r->branch_delete_error;
  auto f = (*g)->Head("f");
  ASSERT_TRUE(f.ok()) << "the moved source must not be deleted";
  EXPECT_NE(Export(*f).find("\"late\""), std::string::npos);
  EXPECT_EQ(Export(*(*g)->Head()).find("\"late\""), std::string::npos);
  // Merging again brings the late work in, and now the delete goes through.
  auto again = MergeBranches(**g, MergeOptions{"f", "main", true});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->branch_deleted);
  EXPECT_EQ((*g)->Head("f").status().category(), StatusCode::kNotFound);
}

// X (clock one day ahead) -> Y on feat (true clock) -> src from Y; main merges feat. The best common
// ancestor of src and main is Y; the newest timestamp (X) would report a false divergent_update.
TEST(MergeTest, MergeBaseIsTheBestCommonAncestorWhateverTheClocksSay) {
  auto mem = std::make_shared<io::MemoryStore>();
  auto g = Graph::Init(mem, SchemaWithTypes(2));
  ASSERT_TRUE(g.ok());
  Graph& graph = **g;
  SetClockForTesting([] {
    auto now = std::chrono::system_clock::now().time_since_epoch();
    return std::chrono::duration_cast<std::chrono::microseconds>(now).count() + int64_t{86400} * 1000000;
  });
  Load(graph, Person("p", 1));  // X, stamped a day ahead
  SetClockForTesting(nullptr);
  std::string x = HeadId(graph);
  ASSERT_TRUE(graph.CreateBranch("feat").ok());
  Load(graph, Person("p", 2), "feat");  // Y
  std::string y = HeadId(graph, "feat");
  ASSERT_GT((*graph.LoadCommit(x))->timestamp_us, (*graph.LoadCommit(y))->timestamp_us);
  ASSERT_TRUE(graph.CreateBranch("src", "feat").ok());
  Load(graph, Person("q", 1), "src");
  Load(graph, Person("r", 1));
  ASSERT_EQ(MergeBranches(graph, MergeOptions{"feat", "main", false})->outcome, MergeOutcome::kMerged);
  Load(graph, Person("p", 3));
  auto base = MergeBase(graph, HeadId(graph, "src"), HeadId(graph));
  ASSERT_TRUE(base.ok());
  EXPECT_EQ(*base, y);
  auto merged = MergeBranches(graph, MergeOptions{"src", "main", false});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  std::string out = Export(*graph.Head());
  EXPECT_NE(out.find(R"("id":"p","name":"p","age":3)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("id":"q")"), std::string::npos) << out;

  // Criss-cross: t1 = merge(X1, Y1), t2 = merge(Y1, X1); both X1 and Y1 are best common ancestors.
  ASSERT_TRUE(graph.CreateBranch("b1").ok());
  ASSERT_TRUE(graph.CreateBranch("b2").ok());
  Load(graph, Person("x1", 1), "b1");
  Load(graph, Person("y1", 1), "b2");
  ASSERT_TRUE(graph.CreateBranch("t1", "b1").ok());
  ASSERT_TRUE(graph.CreateBranch("t2", "b2").ok());
  ASSERT_TRUE(MergeBranches(graph, MergeOptions{"b2", "t1", false}).ok());
  ASSERT_TRUE(MergeBranches(graph, MergeOptions{"b1", "t2", false}).ok());
  std::string x1 = HeadId(graph, "b1"), y1 = HeadId(graph, "b2");
  auto ab = MergeBase(graph, HeadId(graph, "t1"), HeadId(graph, "t2"));
  auto ba = MergeBase(graph, HeadId(graph, "t2"), HeadId(graph, "t1"));
  ASSERT_TRUE(ab.ok() && ba.ok());
  EXPECT_EQ(*ab, *ba);
  EXPECT_EQ(*ab, std::min(x1, y1));  // same generation: the smaller commit id
  auto cross = MergeBranches(graph, MergeOptions{"t2", "t1", false});
  ASSERT_TRUE(cross.ok()) << cross.status().ToString();
  EXPECT_EQ(Export(*graph.Head("t1")), Export(*graph.Head("t2")));
}

// A node deleted on one side (its edges cascading) and updated on the other is one
// delete_vs_update; the graph-level checks, run anyway, do not report the target's edge to the
// node it keeps as an orphan, but do report real cross-entity conflicts in the same attempt.
TEST(MergeTest, EveryConflictIsListedInOneAttempt) {
  auto mem = std::make_shared<io::MemoryStore>();
  auto g = Graph::Init(mem,
                       "node Person { name: String @key, age: I32?, email: String? @unique }\n"
                       "edge Knows: Person -> Person\n");
  ASSERT_TRUE(g.ok());
  Graph& graph = **g;
  Load(graph, Person("n", 1) + Person("k", 1) + Person("gone", 1));
  ASSERT_TRUE(graph.CreateBranch("f").ok());
  MutationOptions on_f;
  on_f.branch = "f";
  ASSERT_TRUE(RunMutation(graph, R"(query q() { delete Person where name = "n" })", "", on_f).ok());
  Load(graph,
       R"({"type":"Person","data":{"name":"u1","email":"e@x"}})"
       "\n",
       "f");
  Load(graph,
       R"({"edge":"Knows","from":"k","to":"gone","data":{"id":"orphan"}})"
       "\n",
       "f");
  Load(graph, Person("n", 2) +
                  R"({"edge":"Knows","from":"k","to":"n","data":{"id":"kept"}})"
                  "\n" +
                  R"({"type":"Person","data":{"name":"u2","email":"e@x"}})"
                  "\n");
  ASSERT_TRUE(RunMutation(graph, R"(query q() { delete Person where name = "gone" })", "").ok());
  auto r = MergeBranches(graph, MergeOptions{"f", "main", false});
  ASSERT_EQ(r.status().code(), ErrorCode::kMergeConflict) << r.status().ToString();
  auto details = ParseJson(r.status().details(), "details");
  ASSERT_TRUE(details.ok());
  std::vector<std::string> listed;
  for (const auto& c : (*details)["merge_conflicts"]) {
    listed.push_back(c["kind"].get<std::string>() + " " + c["entity_id"].get<std::string>());
  }
  EXPECT_EQ(listed, (std::vector<std::string>{"delete_vs_update n", "unique_violation u1", "unique_violation u2",
                                              "orphan_edge orphan"}));
}

// Change-listing replay property, with the exports as the independent oracle: for random
// histories (loads, mutations with cascading edge deletes, overwrites, merges both ways) on main
// and a branch, applying `commit changes` of every commit to its first parent's export gives the
// commit's export exactly, and the change feed of each branch replays to the branch's export.
using Records = std::map<std::string, std::string>;  // "kind/type/id" -> canonical NDJSON record

Records ExportRecords(const Snapshot& snap) {
  Records out;
  Status s = ExportNdjson(snap, {}, [&](std::string_view l) {
    auto j = ParseJson(l, "export line");
    if (!j.ok()) return j.status();
    bool edge = j->contains("edge");
    std::string key = std::string(edge ? "edge/" : "node/") + (*j)[edge ? "edge" : "type"].get<std::string>() + "/" +
                      (*j)["data"]["id"].get<std::string>();
    EXPECT_EQ(out.count(key), 0u) << key;
    out[key] = CanonicalJson(*j);
    return Status::Ok();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

// The export record that one image of a change describes.
std::string RecordOf(const compiler::Catalog& catalog, const EntityChange& c, const char* side) {
  Json image = ChangeToJson(catalog, c)[side];
  Json data = image["properties"];
  data["id"] = c.id;
  bool edge = c.kind == EntityKind::kEdge;
  Json line = {{edge ? "edge" : "type", c.type_name}, {"data", data}};
  if (edge) {
    line["from"] = image["endpoints"]["from"];
    line["to"] = image["endpoints"]["to"];
  }
  return CanonicalJson(line);
}

void Apply(const compiler::Catalog& catalog, const std::vector<EntityChange>& changes, Records* records,
           const std::string& where) {
  for (const auto& c : changes) {
    std::string key = std::string(EntityKindName(c.kind)) + "/" + c.type_name + "/" + c.id;
    auto it = records->find(key);
    if (c.op == ChangeOp::kInsert) {
      EXPECT_TRUE(it == records->end()) << where << ": insert of existing " << key;
    } else {
      ASSERT_TRUE(it != records->end()) << where << ": " << ChangeOpName(c.op) << " of missing " << key;
      EXPECT_EQ(it->second, RecordOf(catalog, c, "before")) << where << ": before image of " << key;
      records->erase(it);
    }
    if (c.op != ChangeOp::kDelete) (*records)[key] = RecordOf(catalog, c, "after");
  }
}

// One random write on `branch`: its failures are expected outcomes (a missing endpoint, a merge
// conflict), never anything else.
void RandomWrite(Graph& g, std::mt19937& rng, const std::string& branch) {
  // Mostly the branch's own entities, sometimes shared ones (which can conflict when merged).
  auto name = [&] { return (rng() % 5 ? branch.substr(0, 1) : std::string("s")) + std::to_string(rng() % 6); };
  auto records = [&](int persons, int edges) {
    std::map<std::string, std::string> lines;  // one record per id
    std::vector<std::string> names;
    for (int i = 0; i < persons; ++i) {
      names.push_back(name());
      lines["n" + names.back()] = Person(names.back(), static_cast<int>(rng() % 4));
    }
    for (int i = 0; i < edges; ++i) {
      std::string id = branch.substr(0, 1) + "k" + std::to_string(rng() % 6);
      lines["e" + id] = R"({"edge":"Knows","from":")" + names[rng() % names.size()] + R"(","to":")" +
                        names[rng() % names.size()] + R"(","data":{"id":")" + id + "\"}}\n";
    }
    std::string out;
    for (const auto& [k, l] : lines) out += l;
    return out;
  };
  MutationOptions mo;
  mo.branch = branch;
  Result<MutationResult> m = InvalidArgumentError("no mutation");
  switch (rng() % 9) {
    case 0:
    case 1: Load(g, records(1 + static_cast<int>(rng() % 3), static_cast<int>(rng() % 3)), branch); return;
    case 2:
      if (rng() % 3) return;
      Load(g, records(2 + static_cast<int>(rng() % 3), 1 + static_cast<int>(rng() % 2)), branch, LoadMode::kOverwrite);
      return;
    case 3:
      m = RunMutation(
          g,
          "query q() { update Person set { age: " + std::to_string(rng() % 4) + " } where name = \"" + name() + "\" }",
          "", mo);
      break;
    case 4: m = RunMutation(g, "query q() { delete Person where name = \"" + name() + "\" }", "", mo); break;
    case 5:
      m = RunMutation(g, "query q() { insert Knows { from: \"" + name() + "\", to: \"" + name() + "\" } }", "", mo);
      break;
    default: {
      auto r = MergeBranches(g, MergeOptions{branch == "main" ? "dev" : "main", branch, false});
      EXPECT_TRUE(r.ok() || r.status().code() == ErrorCode::kMergeConflict) << r.status().ToString();
      return;
    }
  }
  EXPECT_TRUE(m.ok() || m.status().category() == StatusCode::kInvalidArgument) << m.status().ToString();
}

TEST(ChangeListingTest, ListedChangesReplayEveryParentExportIntoTheChildExport) {
  size_t total_cascades = 0;  // mutations whose node delete cascaded to edges
  for (uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    auto mem = std::make_shared<io::MemoryStore>();
    auto g = Graph::Init(mem, SchemaWithTypes(2));
    ASSERT_TRUE(g.ok());
    Graph& graph = **g;
    std::mt19937 rng(seed);
    Load(graph, Person("s0", 0) + Person("s1", 1));
    ASSERT_TRUE(graph.CreateBranch("dev").ok());
    for (int step = 0; step < 60; ++step) RandomWrite(graph, rng, rng() % 2 ? "main" : "dev");
    // Every commit of the DAG, merges and both sides of them included.
    std::set<std::string> seen;
    std::vector<std::string> todo{HeadId(graph), HeadId(graph, "dev")};
    size_t checked = 0, merges = 0, cascades = 0;
    while (!todo.empty()) {
      std::string id = todo.back();
      todo.pop_back();
      if (!seen.insert(id).second) continue;
      auto c = graph.LoadCommit(id);
      ASSERT_TRUE(c.ok());
      if ((*c)->parents.empty()) continue;
      for (const auto& p : (*c)->parents) todo.push_back(p);
      merges += (*c)->parents.size() > 1;
      bool node_deleted = false, edge_deleted = false;
      auto child = graph.AtCommit(id);
      auto parent = graph.AtCommit((*c)->parents.front());
      ASSERT_TRUE(child.ok() && parent.ok());
      auto block = CommitChanges(graph, id);
      ASSERT_TRUE(block.ok()) << block.status().ToString();
      Records records = ExportRecords(*parent);
      for (const auto& ch : block->changes) {
        (ch.kind == EntityKind::kNode ? node_deleted : edge_deleted) |= ch.op == ChangeOp::kDelete;
      }
      cascades += (*c)->operation.rfind("mutat", 0) == 0 && node_deleted && edge_deleted;
      Apply(child->catalog(), block->changes, &records, "commit " + id + " (" + (*c)->operation + ")");
      EXPECT_EQ(records, ExportRecords(*child)) << "commit " << id << " (" << (*c)->operation << ")";
      ++checked;
    }
    EXPECT_GT(checked, 20u);
    total_cascades += cascades;
    EXPECT_GT(merges, 0u);
    // The feed of each branch, from the beginning, block after block, rebuilds the branch.
    for (const std::string branch : {"main", "dev"}) {
      PollOptions p;
      p.branch = branch;
      p.start = "beginning";
      p.max_commits = 1000;
      auto feed = PollChanges(graph, p);
      ASSERT_TRUE(feed.ok()) << feed.status().ToString();
      auto head = graph.Head(branch);
      ASSERT_TRUE(head.ok());
      Records records;
      std::string at = graph.CommitLog(branch)->back()->id;  // genesis: the empty graph
      for (const auto& b : feed->blocks) {
        EXPECT_EQ(b.from_commit_id, at) << branch << ": the feed's blocks must be contiguous";
        Apply(head->catalog(), b.changes, &records, branch + " block " + b.commit->id);
        at = b.commit->id;
      }
      EXPECT_EQ(at, head->commit().id);
      EXPECT_EQ(records, ExportRecords(*head)) << branch;
    }
  }
  EXPECT_GT(total_cascades, 0u);
}

}  // namespace
}  // namespace omnigraph::engine
