#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "common/error_codes.h"
#include "engine/graph/commit.h"
#include "engine/graph/format_stamp.h"
#include "engine/graph/graph_layout.h"
#include "engine/graph/ref_log.h"
#include "io/counting_store.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

RefEntry Entry(uint64_t seq, std::string commit, RefOp op = RefOp::kAdvance) {
  RefEntry e;
  e.seq = seq;
  e.op = op;
  e.commit_id = std::move(commit);
  e.incarnation = "inc1";
  e.time_us = 1000 + static_cast<int64_t>(seq);
  return e;
}

// Publishes `e` after `*last` (the previous entry, none for the first) and remembers it.
Status PublishAfter(const RefLog& refs, std::string_view branch, std::optional<RefEntry>* last, RefEntry e) {
  OG_RETURN_IF_ERROR(refs.Publish(branch, *last ? &**last : nullptr, &e));
  *last = e;
  return Status::Ok();
}

TEST(GraphLayoutTest, KeysAndBranchNames) {
  EXPECT_EQ(RefEntryKey("main", 7), "refs/6d61696e/00000000000000000007");
  EXPECT_EQ(RefHeadHintKey("main"), "refs/6d61696e/HEAD");
  EXPECT_EQ(*ParseRefSeq("refs/6d61696e/00000000000000000007"), 7u);
  EXPECT_FALSE(ParseRefSeq("refs/6d61696e/HEAD").has_value());
  EXPECT_EQ(*BranchFromHex(BranchHex("review/2026-07")), "review/2026-07");
  // `review` and `review/2026-07` live in disjoint folders.
  EXPECT_NE(RefFolder("review").rfind(RefFolder("review/2026-07"), 0), 0u);
  EXPECT_NE(RefFolder("review/2026-07").rfind(RefFolder("review"), 0), 0u);
  EXPECT_TRUE(ValidateBranchName("feature/ü-1").ok());
  EXPECT_FALSE(ValidateBranchName("").ok());
  EXPECT_FALSE(ValidateBranchName("a\nb").ok());
  EXPECT_FALSE(ValidateBranchName("\xff").ok());
  EXPECT_FALSE(ValidateBranchName(std::string(201, 'a')).ok());
}

TEST(RefLogTest, PublishAndReadHead) {
  io::MemoryStore store;
  RefLog refs(store);
  EXPECT_FALSE(refs.ReadHead("main")->has_value());
  std::optional<RefEntry> last;
  ASSERT_TRUE(PublishAfter(refs, "main", &last, Entry(1, "c1", RefOp::kCreate)).ok());
  const RefEntry first = *last;
  ASSERT_TRUE(PublishAfter(refs, "main", &last, Entry(2, "c2")).ok());
  EXPECT_EQ(last->prev, first.digest);
  auto head = refs.ReadHead("main");
  ASSERT_TRUE(head.ok());
  ASSERT_TRUE(head->has_value());
  EXPECT_EQ((*head)->seq, 2u);
  EXPECT_EQ((*head)->commit_id, "c2");
  RefEntry other = Entry(2, "c2-other");
  Status lost = refs.Publish("main", &first, &other);
  EXPECT_EQ(lost.code(), ErrorCode::kReadSetConflict);
  RefEntry skipping = Entry(3, "c3");
  EXPECT_EQ(refs.Publish("main", &first, &skipping).category(), StatusCode::kInternal);
  EXPECT_EQ((*refs.ReadHead("main"))->commit_id, "c2");
  auto entries = refs.Entries("main");
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0], first);
  EXPECT_EQ((*entries)[1], **head);
  EXPECT_FALSE(first.legacy);
}

TEST(RefLogTest, StaleOrMissingHintIsNeverTrustedAlone) {
  io::MemoryStore store;
  RefLog refs(store);
  std::optional<RefEntry> last;
  ASSERT_TRUE(PublishAfter(refs, "main", &last, Entry(1, "c1", RefOp::kCreate)).ok());
  std::string old_hint = *store.Get(RefHeadHintKey("main"));
  ASSERT_TRUE(PublishAfter(refs, "main", &last, Entry(2, "c2")).ok());
  ASSERT_TRUE(PublishAfter(refs, "main", &last, Entry(3, "c3")).ok());
  ASSERT_TRUE(store.Put(RefHeadHintKey("main"), old_hint).ok());  // a late, stale hint write
  EXPECT_EQ((*refs.ReadHead("main"))->commit_id, "c3");
  ASSERT_TRUE(store.Delete(RefHeadHintKey("main")).ok());
  EXPECT_EQ((*refs.ReadHead("main"))->commit_id, "c3");
  ASSERT_TRUE(store.Put(RefHeadHintKey("main"), "garbage").ok());
  EXPECT_EQ((*refs.ReadHead("main"))->commit_id, "c3");
}

TEST(RefLogTest, WarmHeadReadIsOneList) {
  auto mem = std::make_shared<io::MemoryStore>();
  io::CountingStore counting(mem);
  RefLog refs(counting);
  std::optional<RefEntry> last;
  for (uint64_t i = 1; i <= 50; ++i) {
    ASSERT_TRUE(
        PublishAfter(refs, "main", &last, Entry(i, "c" + std::to_string(i), i == 1 ? RefOp::kCreate : RefOp::kAdvance))
            .ok());
  }
  RefEntry known = **refs.ReadHead("main");
  counting.Reset();
  auto head = refs.ReadHeadAfter("main", known);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ((*head)->seq, 50u);
  EXPECT_EQ(counting.counts().total(), 1u);
  counting.Reset();
  ASSERT_TRUE(refs.ReadHead("main").ok());
  // Hint GET, then in parallel the entry it names, that entry's predecessor (the link) and a HEAD
  // of the next one (nothing newer), whatever the history.
  EXPECT_EQ(counting.counts().total(), 4u) << counting.counts().ToString();
}

TEST(RefLogTest, ConcurrentPublishersProduceOneLinearLog) {
  io::MemoryStore store;
  RefLog refs(store);
  std::optional<RefEntry> genesis;
  ASSERT_TRUE(PublishAfter(refs, "main", &genesis, Entry(1, "genesis", RefOp::kCreate)).ok());
  std::atomic<int> acknowledged{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        for (;;) {
          auto head = refs.ReadHead("main");
          ASSERT_TRUE(head.ok());
          RefEntry next = Entry((*head)->seq + 1, "t" + std::to_string(t) + "-" + std::to_string(i));
          Status s = refs.Publish("main", &**head, &next);
          if (s.ok()) {
            acknowledged++;
            break;
          }
          ASSERT_EQ(s.code(), ErrorCode::kReadSetConflict);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  auto entries = refs.Entries("main");
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 121u);
  for (size_t i = 0; i < entries->size(); ++i) EXPECT_EQ((*entries)[i].seq, i + 1);
  EXPECT_EQ(acknowledged.load(), 120);
}

TEST(RefLogTest, LiveBranchesSkipsDeleted) {
  io::MemoryStore store;
  RefLog refs(store);
  std::optional<RefEntry> main, review, dated;
  ASSERT_TRUE(PublishAfter(refs, "main", &main, Entry(1, "c1", RefOp::kCreate)).ok());
  ASSERT_TRUE(PublishAfter(refs, "review", &review, Entry(1, "c1", RefOp::kCreate)).ok());
  ASSERT_TRUE(PublishAfter(refs, "review/2026-07", &dated, Entry(1, "c1", RefOp::kCreate)).ok());
  ASSERT_TRUE(PublishAfter(refs, "review", &review, Entry(2, "", RefOp::kDelete)).ok());
  auto live = refs.LiveBranches();
  ASSERT_TRUE(live.ok());
  EXPECT_EQ(*live, (std::vector<std::string>{"main", "review/2026-07"}));
}

// Truncation: a floor makes the entries below it history (deleted or not); everything at and
// above it must still be there and linked.
TEST(RefLogTest, AFloorTruncatesTheLogAndGapsAboveItAreStillCorrupt) {
  io::MemoryStore store;
  RefLog refs(store);
  std::optional<RefEntry> last;
  ASSERT_TRUE(PublishAfter(refs, "main", &last, Entry(1, "c1", RefOp::kCreate)).ok());
  for (uint64_t seq = 2; seq <= 6; ++seq)
    ASSERT_TRUE(PublishAfter(refs, "main", &last, Entry(seq, "c" + std::to_string(seq))).ok());
  EXPECT_EQ(*refs.Floor("main"), 0u);
  EXPECT_EQ(RefFloorKey("main", 4), "refs/6d61696e/F00000000000000000004");
  EXPECT_EQ(*ParseRefFloor(RefFloorKey("main", 4)), 4u);
  EXPECT_FALSE(ParseRefSeq(RefFloorKey("main", 4)).has_value());

  ASSERT_TRUE(refs.WriteFloor("main", 4).ok());
  ASSERT_TRUE(refs.WriteFloor("main", 2).ok());  // a lower floor never wins
  EXPECT_EQ(*refs.Floor("main"), 4u);
  // Below the floor, half deleted (a crashed cleanup): ignored.
  ASSERT_TRUE(store.Delete(RefEntryKey("main", 2)).ok());
  auto entries = refs.Entries("main");
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ(entries->front().seq, 4u);
  EXPECT_EQ(entries->back().commit_id, "c6");
  EXPECT_EQ(*refs.LiveBranches(), std::vector<std::string>{"main"});
  ASSERT_TRUE(store.Delete(RefEntryKey("main", 1)).ok());
  ASSERT_TRUE(store.Delete(RefEntryKey("main", 3)).ok());
  EXPECT_EQ(refs.Entries("main")->size(), 3u);
  ASSERT_TRUE(store.Delete(RefHeadHintKey("main")).ok());
  EXPECT_EQ((*refs.ReadHead("main"))->commit_id, "c6");  // by listing
  ASSERT_TRUE(PublishAfter(refs, "main", &last, Entry(7, "c7")).ok());
  EXPECT_EQ(refs.Entries("main")->size(), 4u);
  // At or above the floor a missing entry is a gap.
  ASSERT_TRUE(store.Delete(RefEntryKey("main", 5)).ok());
  EXPECT_EQ(refs.Entries("main").status().category(), StatusCode::kCorrupt);
  EXPECT_EQ(refs.LiveBranches().status().category(), StatusCode::kCorrupt);
  ASSERT_TRUE(store.Delete(RefEntryKey("main", 4)).ok());  // the floor's own entry
  EXPECT_EQ(refs.Entries("main").status().category(), StatusCode::kCorrupt);
}

TEST(CommitTest, RoundTripAndCorruption) {
  io::MemoryStore store;
  Commit c;
  c.id = "01JCOMMIT";
  c.parents = {"01JPARENT"};
  c.branch = "main";
  c.actor = "ada";
  c.timestamp_us = 1700000000000001;
  c.operation = "load:append";
  c.schema_id = "abc";
  c.tables["Person"] = TableRef{EntityKind::kNode, "T1", "V1"};
  c.tables["Knows"] = TableRef{EntityKind::kEdge, "T2", "V2"};
  c.summary["Person"] = ChangeCounts{3, 1, 0};
  ASSERT_TRUE(WriteCommit(store, c).ok());
  EXPECT_EQ(WriteCommit(store, c).category(), StatusCode::kAlreadyExists);
  auto back = ReadCommit(store, "01JCOMMIT");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, c);
  EXPECT_EQ(ReadCommit(store, "nope").status().category(), StatusCode::kNotFound);
  ASSERT_TRUE(store.Put(CommitKey("bad"), "{\"format_version\":1}").ok());
  EXPECT_EQ(ReadCommit(store, "bad").status().category(), StatusCode::kCorrupt);
  ASSERT_TRUE(store.Put(CommitKey("other"), *store.Get(CommitKey("01JCOMMIT"))).ok());
  EXPECT_EQ(ReadCommit(store, "other").status().category(), StatusCode::kCorrupt);
}

TEST(FormatStampTest, VersionsAreChecked) {
  FormatStamp s;
  s.graph_id = "G";
  s.created_by = "omnigraph test";
  auto back = ParseStamp(SerializeStamp(s));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->graph_id, "G");
  auto newer = ParseStamp(R"({"format":"omnigraph","format_version":99})");
  EXPECT_EQ(newer.status().code(), ErrorCode::kFormatTooNew);
  EXPECT_NE(newer.status().message().find("upgrade omnigraph"), std::string::npos);
  EXPECT_EQ(ParseStamp(R"({"format":"omnigraph","format_version":0})").status().code(), ErrorCode::kFormatUnknown);
  EXPECT_EQ(ParseStamp(R"({"format":"lance"})").status().code(), ErrorCode::kFormatUnknown);
  EXPECT_EQ(ParseStamp("not json").status().code(), ErrorCode::kFormatUnknown);
  io::MemoryStore empty;
  EXPECT_EQ(ReadStamp(empty).status().category(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace omnigraph::engine
