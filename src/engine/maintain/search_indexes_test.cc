// ANN segments (engine/maintain/search_indexes.h) end to end on the engine: `optimize` builds one
// per @index Vector property and publishes it in one entity-free commit; nearest() rankings use it
// (re-ranked exactly) and stay right after writes (new rows searched exactly, deleted and compacted
// rows never returned); a damaged or unreadable index object falls back to the exact search;
// `check` verifies the object; a crash at any request of the build leaves the graph as it was or
// indexed.
#include "engine/maintain/search_indexes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "compiler/type_checker.h"
#include "engine/derived/read_cache.h"
#include "engine/exec/executor.h"
#include "engine/exec/reference_eval.h"
#include "engine/load/loader.h"
#include "engine/maintain/check.h"
#include "engine/maintain/compact.h"
#include "io/fault_store.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr const char* kSchema = R"(
  node Doc { slug: String @key, body: String? @index, emb: Vector(8)? @index, plain: Vector(8)? }
  node Tag { name: String @key }
  edge Tagged: Doc -> Tag
)";
constexpr uint32_t kDim = 8;

// A deterministic vector in [-1, 1]^8 per seed.
std::vector<float> Vec(uint64_t seed) {
  std::vector<float> v(kDim);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 12345;
  for (float& f : v) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    f = static_cast<float>(static_cast<double>(x % 20001) / 10000.0 - 1.0);
  }
  return v;
}

std::string VecJson(const std::vector<float>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    char b[32];
    std::snprintf(b, sizeof b, "%s%.6g", i ? "," : "", static_cast<double>(v[i]));
    s += b;
  }
  return s + "]";
}

// A few words of a small vocabulary per seed (stop words and near spellings included).
std::string Body(uint64_t seed) {
  static const char* kWords[] = {"graph",  "graphs", "branch", "the",   "of",    "merging", "merge", "vector",
                                 "search", "serch",  "rank",   "ranks", "fleet", "agent",   "query", "index"};
  std::string out;
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 99;
  for (int w = 0, n = 1 + static_cast<int>(seed % 7); w < n; ++w) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out += std::string(w ? " " : "") + kWords[x % 16];
  }
  return out;
}

// Docs [from, to): every 10th without an `emb`, every 13th without a `body`.
std::string Docs(int from, int to) {
  std::string out;
  for (int i = from; i < to; ++i) {
    out += R"({"type":"Doc","data":{"slug":"d)" + std::to_string(i) + "\"";
    if (i % 10 != 3) out += R"(,"emb":)" + VecJson(Vec(static_cast<uint64_t>(i)));
    if (i % 13 != 5) out += R"(,"body":")" + Body(static_cast<uint64_t>(i)) + "\"";
    out += R"(,"plain":)" + VecJson(Vec(static_cast<uint64_t>(i))) + "}}\n";
  }
  for (int i = from; i < to; ++i) {
    out += R"({"edge":"Tagged","from":"d)" + std::to_string(i) + R"(","to":"t)" + std::to_string(i % 2) + "\"}\n";
  }
  return out;
}

const SearchIndexStatus* Find(const SearchIndexBuild& b, std::string_view property) {
  for (const auto& x : b.indexes) {
    if (x.property == property) return &x;
  }
  return nullptr;
}

class SearchIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mem_ = std::make_shared<io::MemoryStore>();
    fault_ = std::make_shared<io::FaultStore>(mem_);
    auto g = Graph::Init(fault_, kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
    LoadTags();
    Load(Docs(0, 3000));
  }
  void LoadTags() {
    Load(R"({"type":"Tag","data":{"name":"t0"}})"
         "\n"
         R"({"type":"Tag","data":{"name":"t1"}})"
         "\n");
  }
  void Load(const std::string& ndjson) {
    auto r = LoadNdjson(*graph_, ndjson, LoadOptions{});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // The slugs of the `k` rows nearest `q` on `prop`: the executor's (with cache_) and the
  // reference evaluator's (exact by construction).
  struct Answer {
    std::vector<std::string> got, want;
  };
  Answer Nearest(const std::vector<float>& q, int k, const std::string& prop = "emb") {
    Answer a;
    auto snap = graph_->Head("main");
    EXPECT_TRUE(snap.ok());
    auto qs = compiler::CompileQueries(snap->catalog(),
                                       "query q($q: Vector(8)) { match { $d: Doc } return { $d.slug } "
                                       "order { nearest($d." +
                                           prop + ", $q) } limit " + std::to_string(k) + " }");
    EXPECT_TRUE(qs.ok()) << qs.status().ToString();
    if (!qs.ok()) return a;
    compiler::ParamValues params{{"q", Value::Vector(q)}};
    auto got = ExecuteQuery(*snap, qs->front(), params, 0, cache_.get());
    auto want = EvaluateReference(*snap, qs->front(), params, 0);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(want.ok()) << want.status().ToString();
    if (got.ok()) {
      for (const auto& r : got->rows) a.got.push_back(r[0].string_value());
    }
    if (want.ok()) {
      for (const auto& r : want->rows) a.want.push_back(r[0].string_value());
    }
    return a;
  }
  // recall@k of the executor against the exact answer over `n` query vectors.
  double Recall(int n, int k) {
    size_t hit = 0, total = 0;
    for (int i = 0; i < n; ++i) {
      Answer a = Nearest(Vec(100000 + static_cast<uint64_t>(i)), k);
      total += a.want.size();
      for (const auto& s : a.want) hit += std::count(a.got.begin(), a.got.end(), s);
    }
    return total == 0 ? 0 : static_cast<double>(hit) / static_cast<double>(total);
  }
  // The executor's rows and the reference evaluator's for one query.
  void ExpectSame(const std::string& src, const compiler::ParamValues& params = {}) {
    SCOPED_TRACE(src);
    auto snap = graph_->Head("main");
    ASSERT_TRUE(snap.ok());
    auto qs = compiler::CompileQueries(snap->catalog(), src);
    ASSERT_TRUE(qs.ok()) << qs.status().ToString();
    auto got = ExecuteQuery(*snap, qs->front(), params, 0, cache_.get());
    auto want = EvaluateReference(*snap, qs->front(), params, 0);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    EXPECT_EQ(got->rows, want->rows);
  }
  // Every text function over Doc.body, against the reference.
  void ExpectTextSearchesRight() {
    for (const char* q : {"graph merge", "serch", "fleet agent", "zebra", "the"}) {
      const compiler::ParamValues p{{"q", Value::String(q)}};
      ExpectSame("query q($q: String) { match { $d: Doc search($d.body, $q) } return { $d.slug } order { $d.slug } }",
                 p);
      ExpectSame(
          "query q($q: String) { match { $d: Doc match_text($d.body, $q) } return { $d.slug } order { $d.slug } }", p);
      ExpectSame("query q($q: String) { match { $d: Doc fuzzy($d.body, $q, 1) } return { count($d) as n } }", p);
      ExpectSame(
          "query q($q: String) { match { $d: Doc } return { $d.slug, bm25($d.body, $q) as s } order { bm25($d.body, "
          "$q) } limit 20 }",
          p);
    }
  }
  std::vector<table::IndexSegmentMeta> VectorSegments() {
    auto t = graph_->Head("main")->Table("Doc");
    EXPECT_TRUE(t.ok());
    std::vector<table::IndexSegmentMeta> out;
    for (const auto& s : t->manifest().indexes) {
      if (s.kind == search::kVectorIndexKind) out.push_back(s);
    }
    return out;
  }
  std::shared_ptr<io::MemoryStore> mem_;
  std::shared_ptr<io::FaultStore> fault_;
  std::unique_ptr<Graph> graph_;
  std::unique_ptr<GraphReadCache> cache_ = std::make_unique<GraphReadCache>();
};

TEST_F(SearchIndexTest, OptimizeBuildsOneSegmentInOneEntityFreeCommit) {
  const std::string before = graph_->Head("main")->commit().id;
  auto r = BuildSearchIndexes(*graph_, "main");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->write.committed);
  EXPECT_EQ(r->write.commit.operation, "optimize");
  // Doc.slug and Tag.name (keys are indexed: text), Doc.body (text), Doc.emb (vector); `plain`
  // has no @index.
  ASSERT_EQ(r->indexes.size(), 4u);
  const SearchIndexStatus* emb = Find(*r, "emb");
  ASSERT_NE(emb, nullptr);
  EXPECT_EQ(emb->kind, "vector");
  EXPECT_TRUE(emb->built);
  EXPECT_EQ(emb->rows, 2700u);  // every 10th doc has no vector
  EXPECT_GT(emb->bytes, 2700u * kDim * 4);
  const SearchIndexStatus* body = Find(*r, "body");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(body->kind, "text");
  EXPECT_TRUE(body->built);
  EXPECT_EQ(body->rows, 3000u);
  auto segs = VectorSegments();
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_EQ(segs[0].fragment_ids.size(), graph_->Head("main")->Table("Doc")->manifest().fragments.size());
  EXPECT_NE(graph_->Head("main")->commit().id, before);

  // Covered already: nothing to build, no commit.
  auto again = BuildSearchIndexes(*graph_, "main");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->write.committed);
  ASSERT_EQ(again->indexes.size(), 4u);
  for (const auto& x : again->indexes) EXPECT_FALSE(x.built) << x.property;
}

TEST_F(SearchIndexTest, RankingsUseTheIndexAndAgreeWithTheExactAnswer) {
  ASSERT_TRUE(BuildSearchIndexes(*graph_, "main").ok());
  // The first query reads the index object: make that read fail once, so the ranking falls back
  // to the exact search (same answer) and shows it went to the index.
  io::FaultRule rule;
  rule.key_contains = std::string(search::kVectorIndexFile);
  fault_->AddRule(rule);
  Answer first = Nearest(Vec(7), 10);
  EXPECT_TRUE(fault_->fired());
  EXPECT_EQ(first.got, first.want);
  // Then from the index: 8-d vectors and ef 128 leave nothing to miss at this size.
  EXPECT_GE(Recall(20, 10), 0.99);
  // A property without @index is always exact.
  Answer plain = Nearest(Vec(9), 10, "plain");
  EXPECT_EQ(plain.got, plain.want);
}

TEST_F(SearchIndexTest, WritesAfterTheIndexAreSeen) {
  ASSERT_TRUE(BuildSearchIndexes(*graph_, "main").ok());
  const std::vector<float> q = Vec(424242);
  Answer a = Nearest(q, 5);
  ASSERT_EQ(a.got, a.want);
  // A new row exactly at the query: in no segment, found by the exact delta search.
  Load(R"({"type":"Doc","data":{"slug":"fresh","emb":)" + VecJson(q) + "}}\n");
  Answer b = Nearest(q, 5);
  ASSERT_FALSE(b.got.empty());
  EXPECT_EQ(b.got[0], "fresh");
  EXPECT_EQ(b.got, b.want);
  // Overwrite the previous nearest (an update: delete + append) far away: the index still holds
  // its old address, which is no longer a live row.
  std::vector<float> far(kDim, 50.0f);
  LoadOptions upsert;
  upsert.mode = LoadMode::kMerge;
  auto r = LoadNdjson(*graph_, R"({"type":"Doc","data":{"slug":")" + a.got[0] + R"(","emb":)" + VecJson(far) + "}}\n",
                      upsert);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Answer c = Nearest(q, 5);
  EXPECT_EQ(c.got, c.want);
  EXPECT_EQ(std::count(c.got.begin(), c.got.end(), a.got[0]), 0);
  // Compaction rewrites the fragments the segment covered: every row is then searched exactly
  // until the next build, which covers the new fragments.
  ASSERT_TRUE(CompactGraph(*graph_, CompactGraphOptions{}).ok());
  Answer d = Nearest(q, 5);
  EXPECT_EQ(d.got, d.want);
  auto rebuilt = BuildSearchIndexes(*graph_, "main");
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
  ASSERT_NE(Find(*rebuilt, "emb"), nullptr);
  EXPECT_TRUE(Find(*rebuilt, "emb")->built);
  EXPECT_EQ(Find(*rebuilt, "emb")->rows, 2701u);
  EXPECT_EQ(VectorSegments().size(), 1u);  // the rebuilt segment replaced the old one
  Answer e = Nearest(q, 5);
  EXPECT_EQ(e.got, e.want);
}

// A later optimize folds the writes into the existing HNSW segment (new rows added, rows deleted
// or updated since marked deleted) instead of rebuilding it; after a compaction rewrote what it
// covered, it rebuilds.
TEST_F(SearchIndexTest, LaterBuildsFoldTheDeltaIntoTheSegment) {
  ASSERT_TRUE(BuildSearchIndexes(*graph_, "main").ok());
  Load(Docs(3000, 3100));  // 90 more vectors
  LoadOptions merge;
  merge.mode = LoadMode::kMerge;
  ASSERT_TRUE(
      LoadNdjson(*graph_, R"({"type":"Doc","data":{"slug":"d1","emb":)" + VecJson(Vec(777777)) + "}}\n", merge).ok());
  auto r = BuildSearchIndexes(*graph_, "main");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const SearchIndexStatus* emb = Find(*r, "emb");
  ASSERT_NE(emb, nullptr);
  EXPECT_TRUE(emb->built);
  EXPECT_TRUE(emb->folded);
  EXPECT_EQ(emb->rows, 2790u);  // 2,700 + 90 (d1's old vector deleted, its new one added)
  ASSERT_NE(Find(*r, "body"), nullptr);
  EXPECT_TRUE(Find(*r, "body")->folded);  // the text segment carried forward too
  EXPECT_EQ(Find(*r, "body")->rows, 3100u);
  ExpectTextSearchesRight();
  EXPECT_EQ(VectorSegments().size(), 1u);
  EXPECT_EQ(VectorSegments()[0].fragment_ids.size(), graph_->Head("main")->Table("Doc")->manifest().fragments.size());
  EXPECT_GE(Recall(20, 10), 0.99);
  Answer a = Nearest(Vec(777777), 3);
  ASSERT_FALSE(a.got.empty());
  EXPECT_EQ(a.got[0], "d1");  // its new vector, from the folded segment
  EXPECT_EQ(a.got, a.want);
  auto check = CheckGraph(*graph_);
  ASSERT_TRUE(check.ok());
  EXPECT_EQ(check->problems_total, 0u);
  // Compaction rewrites every fragment: nothing of the old graph is live, so a new build.
  ASSERT_TRUE(CompactGraph(*graph_, CompactGraphOptions{}).ok());
  auto again = BuildSearchIndexes(*graph_, "main");
  ASSERT_TRUE(again.ok());
  ASSERT_NE(Find(*again, "emb"), nullptr);
  EXPECT_TRUE(Find(*again, "emb")->built);
  EXPECT_FALSE(Find(*again, "emb")->folded);
  EXPECT_GE(Recall(20, 10), 0.99);
}

// `optimize` compacts and indexes in one write: the segment's rows the compaction moved are
// relabelled to their new addresses (not re-added), the rows written since are added.
TEST_F(SearchIndexTest, OptimizeRelabelsTheSegmentAcrossItsCompaction) {
  CompactGraphOptions optimize;
  optimize.search_indexes = true;
  ASSERT_TRUE(CompactGraph(*graph_, optimize).ok());
  Load(Docs(3000, 3050));  // 45 more vectors, in a small fragment
  auto r = CompactGraph(*graph_, optimize);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->write.committed);
  const SearchIndexStatus* emb = nullptr;
  for (const auto& x : r->indexes) {
    if (x.property == "emb") emb = &x;
  }
  ASSERT_NE(emb, nullptr);
  EXPECT_TRUE(emb->built);
  EXPECT_TRUE(emb->folded);
  EXPECT_EQ(emb->rows, 2745u);
  for (const auto& x : r->indexes) {
    if (x.property == "body") {
      EXPECT_TRUE(x.folded);  // relabelled, and the 50 new rows analyzed
      EXPECT_EQ(x.rows, 3050u);
    }
  }
  ExpectTextSearchesRight();
  auto t = graph_->Head("main")->Table("Doc");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->manifest().fragments.size(), 1u);  // everything was rewritten
  ASSERT_EQ(VectorSegments().size(), 1u);
  EXPECT_EQ(VectorSegments()[0].fragment_ids.size(), 1u);
  EXPECT_GE(Recall(20, 10), 0.99);
  Answer a = Nearest(Vec(3001), 3);  // a row of the new fragment, by its own vector
  ASSERT_FALSE(a.got.empty());
  EXPECT_EQ(a.got[0], "d3001");
  EXPECT_EQ(a.got, a.want);
  auto check = CheckGraph(*graph_);
  ASSERT_TRUE(check.ok());
  EXPECT_EQ(check->problems_total, 0u);
}

TEST_F(SearchIndexTest, FilteredRankingsNeverStarve) {
  ASSERT_TRUE(BuildSearchIndexes(*graph_, "main").ok());
  auto snap = graph_->Head("main");
  ASSERT_TRUE(snap.ok());
  // Half the docs (slug > "d5"): the index is searched deeper; 1 in 300: exact over the few rows.
  for (const char* filter : {R"($d.slug > "d5")", R"($d.slug >= "d29" $d.slug < "d2910")"}) {
    auto qs =
        compiler::CompileQueries(snap->catalog(), std::string("query q($q: Vector(8)) { match { $d: Doc ") + filter +
                                                      " } return { $d.slug } order { nearest($d.emb, $q) } "
                                                      "limit 10 }");
    ASSERT_TRUE(qs.ok()) << qs.status().ToString();
    for (uint64_t s = 0; s < 5; ++s) {
      compiler::ParamValues params{{"q", Value::Vector(Vec(777 + s))}};
      auto got = ExecuteQuery(*snap, qs->front(), params, 0, cache_.get());
      auto want = EvaluateReference(*snap, qs->front(), params, 0);
      ASSERT_TRUE(got.ok() && want.ok());
      EXPECT_EQ(got->rows.size(), want->rows.size()) << filter;
      EXPECT_EQ(got->rows.size(), 10u) << filter;
    }
  }
}

// Text searches over a persisted segment: the version's index is the segment's documents
// renumbered (deleted rows dropped) plus the rows written since, analyzed at query time; every
// answer and every BM25 score equals the reference evaluator's.
TEST_F(SearchIndexTest, TextSearchesUseTheSegmentAndSeeEveryWrite) {
  ASSERT_TRUE(BuildSearchIndexes(*graph_, "main").ok());
  io::FaultRule rule;  // the first read of the body's segment fails: rebuilt from the rows
  rule.key_contains = std::string(search::kTextIndexFile);
  fault_->AddRule(rule);
  ExpectTextSearchesRight();
  EXPECT_TRUE(fault_->fired());
  cache_ = std::make_unique<GraphReadCache>();  // the segment, read this time
  ExpectTextSearchesRight();
  // Rows written since, an update (delete + append) and a delete by overwrite of a body.
  Load(R"({"type":"Doc","data":{"slug":"zz1","body":"zebra graph"}})"
       "\n"
       R"({"type":"Doc","data":{"slug":"zz2","body":"the zebra of merging"}})"
       "\n");
  LoadOptions merge;
  merge.mode = LoadMode::kMerge;
  ASSERT_TRUE(LoadNdjson(*graph_,
                         R"({"type":"Doc","data":{"slug":"d1","body":"zebra"}})"
                         "\n",
                         merge)
                  .ok());
  ASSERT_TRUE(LoadNdjson(*graph_,
                         R"({"type":"Doc","data":{"slug":"d2"}})"
                         "\n",
                         merge)
                  .ok());
  ExpectTextSearchesRight();
  // Compacted away: the segment covers nothing, every row is analyzed; optimize covers it again.
  ASSERT_TRUE(CompactGraph(*graph_, CompactGraphOptions{}).ok());
  ExpectTextSearchesRight();
  ASSERT_TRUE(BuildSearchIndexes(*graph_, "main").ok());
  ExpectTextSearchesRight();
}

// Rows of two variables (a doc and its tag): the ranking takes the index's candidates among the
// rows' docs (Context::AnnDistances) and keeps a row per candidate.
TEST_F(SearchIndexTest, RankingsOverTraversalsUseTheIndexToo) {
  ASSERT_TRUE(BuildSearchIndexes(*graph_, "main").ok());
  auto snap = graph_->Head("main");
  ASSERT_TRUE(snap.ok());
  io::FaultRule rule;  // the first query's read of the index fails (it then ranks exactly)
  rule.key_contains = std::string(search::kVectorIndexFile);
  fault_->AddRule(rule);
  for (const char* match : {"$d: Doc $d tagged $t", R"($t: Tag { name: "t1" } $d tagged $t)"}) {
    auto qs = compiler::CompileQueries(snap->catalog(), std::string("query q($q: Vector(8)) { match { ") + match +
                                                            " } return { $d.slug, $t.name } order { "
                                                            "nearest($d.emb, $q) } limit 10 }");
    ASSERT_TRUE(qs.ok()) << qs.status().ToString();
    size_t hit = 0, total = 0;
    for (uint64_t s = 0; s < 10; ++s) {
      compiler::ParamValues params{{"q", Value::Vector(Vec(555 + s))}};
      auto got = ExecuteQuery(*snap, qs->front(), params, 0, cache_.get());
      auto want = EvaluateReference(*snap, qs->front(), params, 0);
      ASSERT_TRUE(got.ok() && want.ok());
      ASSERT_EQ(got->rows.size(), 10u) << match;
      total += want->rows.size();
      for (const auto& r : want->rows) hit += std::count(got->rows.begin(), got->rows.end(), r);
    }
    EXPECT_GE(static_cast<double>(hit) / static_cast<double>(total), 0.99) << match;
    EXPECT_TRUE(fault_->fired());  // 3000 rows binding every doc: the index was asked
  }
}

TEST_F(SearchIndexTest, DamagedIndexObjectIsSearchedExactlyAndReportedByCheck) {
  ASSERT_TRUE(BuildSearchIndexes(*graph_, "main").ok());
  auto check = CheckGraph(*graph_);
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_EQ(check->problems_total, 0u);
  auto segs = VectorSegments();
  ASSERT_EQ(segs.size(), 1u);
  auto t = graph_->Head("main")->Table("Doc");
  const std::string key = t->AbsoluteKey(segs[0].keys[0]);
  auto bytes = mem_->Get(key);
  ASSERT_TRUE(bytes.ok());
  std::string damaged = *bytes;
  damaged[damaged.size() / 2] ^= 0x5A;
  ASSERT_TRUE(mem_->Put(key, damaged).ok());
  Answer a = Nearest(Vec(11), 10);
  EXPECT_EQ(a.got, a.want);
  auto check2 = CheckGraph(*graph_);
  ASSERT_TRUE(check2.ok()) << check2.status().ToString();
  ASSERT_GE(check2->problems.size(), 1u);
  EXPECT_EQ(check2->problems[0].code, "corrupt");
  EXPECT_NE(check2->problems[0].object.find("vector.hnsw"), std::string::npos);
}

TEST(SearchIndexCrashTest, CrashAtAnyRequestLeavesTheGraphAsItWasOrIndexed) {
  auto base = std::make_shared<io::MemoryStore>();
  {
    auto g = Graph::Init(base, kSchema);
    ASSERT_TRUE(g.ok());
    ASSERT_TRUE(LoadNdjson(**g,
                           R"({"type":"Tag","data":{"name":"t0"}})"
                           "\n"
                           R"({"type":"Tag","data":{"name":"t1"}})"
                           "\n",
                           LoadOptions{})
                    .ok());
    ASSERT_TRUE(LoadNdjson(**g, Docs(0, 300), LoadOptions{}).ok());
  }
  const std::vector<io::ObjectMeta> objects = std::move(base->List("")).value();
  size_t indexed = 0;
  for (uint64_t k = 1;; ++k) {
    bool fired = false;
    for (io::FaultAction action : {io::FaultAction::kCrashBefore, io::FaultAction::kCrashAfter}) {
      auto copy = std::make_shared<io::MemoryStore>();
      for (const auto& m : objects) ASSERT_TRUE(copy->Put(m.key, *base->Get(m.key)).ok());
      auto faulty = std::make_shared<io::FaultStore>(copy);
      faulty->FailAt(k, action);
      auto g = Graph::Open(faulty);
      if (g.ok()) (void)BuildSearchIndexes(**g, "main");
      fired = fired || faulty->fired();
      auto after = std::move(Graph::Open(copy)).value();
      auto head = after->Head("main");
      ASSERT_TRUE(head.ok()) << "k=" << k << ": " << head.status().ToString();
      auto t = head->Table("Doc");
      ASSERT_TRUE(t.ok());
      EXPECT_EQ(t->row_count(), 300u) << "k=" << k;
      const bool has = std::any_of(t->manifest().indexes.begin(), t->manifest().indexes.end(), [](const auto& s) {
        return s.kind == search::kVectorIndexKind || s.kind == search::kTextIndexKind;
      });
      if (has) {
        ++indexed;
        auto c = CheckGraph(*after);
        ASSERT_TRUE(c.ok());
        EXPECT_EQ(c->problems_total, 0u) << "k=" << k;
      }
      auto retry = BuildSearchIndexes(*after, "main");
      ASSERT_TRUE(retry.ok()) << "k=" << k << ": " << retry.status().ToString();
      EXPECT_EQ(retry->write.committed, !has) << "k=" << k;
    }
    if (!fired) break;
    ASSERT_LT(k, 300u);
  }
  EXPECT_GT(indexed, 0u);
}

}  // namespace
}  // namespace omnigraph::engine
