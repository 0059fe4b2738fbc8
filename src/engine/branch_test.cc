// Branches, merge and change listing (issue 7): request budgets (ARCHITECTURE.md §9), concurrent
// creates, merge with --delete-branch, incarnations, and a property test of change listing.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "common/error_codes.h"
#include "engine/change_feed.h"
#include "engine/exporter.h"
#include "engine/loader.h"
#include "engine/merge.h"
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

void Load(Graph& g, const std::string& ndjson, const std::string& branch = "main",
          LoadMode mode = LoadMode::kMerge) {
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
  std::printf("branch create: %llu requests, %llu round trips (%s); first branch write: %llu requests, %llu round trips (%s)\n",
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
        if (r.ok()) won++;
        else if (r.status().code() == ErrorCode::kAlreadyExists) exists++;
        else ADD_FAILURE() << r.status().ToString();
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
  p.filter.op = ChangeOp::kDelete;
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

// Applying the listed changes of each commit to its parent's state gives the commit's state.
TEST(ChangeListingTest, ChangesReplayParentIntoChild) {
  auto mem = std::make_shared<io::MemoryStore>();
  auto g = Graph::Init(mem, SchemaWithTypes(2));
  ASSERT_TRUE(g.ok());
  std::mt19937 rng(7);
  std::map<std::string, std::string> model;  // "node/id" or "edge/id" -> canonical image JSON
  for (int step = 0; step < 40; ++step) {
    std::string ndjson;
    LoadMode mode = LoadMode::kMerge;
    int op = static_cast<int>(rng() % 4);
    if (op == 3 && step > 5) {
      mode = LoadMode::kOverwrite;  // replaces every type: deletes included
      for (int i = 0; i < 4; ++i) ndjson += Person("p" + std::to_string(rng() % 12), static_cast<int>(rng() % 5));
    } else {
      for (int i = 0; i < 3; ++i) ndjson += Person("p" + std::to_string(rng() % 12), static_cast<int>(rng() % 5));
    }
    // Duplicate ids in one load are an error: keep the last of each.
    std::map<std::string, std::string> dedup;
    std::istringstream lines(ndjson);
    for (std::string l; std::getline(lines, l);) dedup[l.substr(0, l.find("\",\"age"))] = l;
    ndjson.clear();
    for (const auto& [k, l] : dedup) ndjson += l + "\n";
    Load(**g, ndjson, "main", mode);
    auto head = (*g)->Head();
    ASSERT_TRUE(head.ok());
    auto block = CommitChanges(**g, head->commit().id);
    ASSERT_TRUE(block.ok()) << block.status().ToString();
    for (const auto& c : block->changes) {
      std::string key = std::string(EntityKindName(c.kind)) + "/" + c.id;
      Json j = ChangeToJson(head->catalog(), c);
      if (c.op == ChangeOp::kDelete) {
        ASSERT_EQ(model.count(key), 1u) << key;
        EXPECT_EQ(model[key], CanonicalJson(j["before"]));
        model.erase(key);
      } else {
        if (c.op == ChangeOp::kUpdate) {
          ASSERT_EQ(model.count(key), 1u);
          EXPECT_EQ(model[key], CanonicalJson(j["before"]));
        } else {
          EXPECT_EQ(model.count(key), 0u) << key;
        }
        model[key] = CanonicalJson(j["after"]);
      }
    }
    // The model now equals the head's full contents.
    auto all = DiffSnapshots(*(*g)->AtCommit((*g)->CommitLog("main")->back()->id), *head);
    ASSERT_TRUE(all.ok());
    std::map<std::string, std::string> expected;
    for (const auto& c : *all) {
      expected[std::string(EntityKindName(c.kind)) + "/" + c.id] = CanonicalJson(ChangeToJson(head->catalog(), c)["after"]);
    }
    EXPECT_EQ(model, expected) << "step " << step;
  }
}

}  // namespace
}  // namespace omnigraph::engine
