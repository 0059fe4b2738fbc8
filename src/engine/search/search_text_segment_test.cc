// Text index segments (engine/search/text_index.h): a merge of renumbered parts is the index a
// build over the same documents gives (how a query assembles a version's index from a persisted
// segment plus the rows written since), and the persisted form round-trips and refuses damage.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/error_codes.h"
#include "common/hash.h"
#include "engine/search/text.h"
#include "engine/search/text_index.h"

namespace omnigraph::engine::search {
namespace {

using Docs = std::vector<std::optional<std::string>>;

Docs Corpus(int n, uint32_t seed) {
  const std::vector<std::string> vocab = {"graph",  "graphs", "branch", "the",  "of",   "merging", "merge", "vector",
                                          "search", "serch",  "Café",   "cafe", "rank", "ranks",   "fleet", "agent"};
  std::mt19937 rng(seed);
  Docs docs;
  for (int i = 0; i < n; ++i) {
    if (rng() % 23 == 0) {
      docs.push_back(std::nullopt);
      continue;
    }
    std::string d;
    for (int w = 0, k = static_cast<int>(rng() % 9); w < k; ++w) d += vocab[rng() % vocab.size()] + " ";
    docs.push_back(d);  // k = 0: an empty (non-null) document
  }
  return docs;
}

TextIndex BuildOf(const Docs& docs) {
  return TextIndex::Build(docs.size(), [&](size_t i) -> std::optional<std::string_view> {
    if (!docs[i]) return std::nullopt;
    return std::string_view(*docs[i]);
  });
}

void ExpectSameAnswers(const TextIndex& got, const TextIndex& want) {
  ASSERT_EQ(got.size(), want.size());
  for (const std::string q : {"graph merge", "the of", "vector search", "serch", "cafe rank", "fleet agent", ""}) {
    SCOPED_TRACE(q);
    EXPECT_EQ(got.MatchAny(Analyze(q)), want.MatchAny(Analyze(q)));
    EXPECT_EQ(got.MatchPhrase(Analyze(q)), want.MatchPhrase(Analyze(q)));
    EXPECT_EQ(got.MatchFuzzy(AnalyzeUnstemmed(q), 1), want.MatchFuzzy(AnalyzeUnstemmed(q), 1));
    EXPECT_EQ(got.Bm25(q), want.Bm25(q));  // statistics over exactly the live documents
  }
}

// A segment of 300 documents, 40 of them deleted since, plus 120 documents written since.
TEST(SearchTextSegmentTest, MergeOfSegmentAndDeltaEqualsABuild) {
  const Docs old_docs = Corpus(300, 1), fresh_docs = Corpus(120, 2);
  const TextIndex segment = BuildOf(old_docs), delta = BuildOf(fresh_docs);
  for (bool reversed : {false, true}) {
    SCOPED_TRACE(reversed);
    Docs now;  // the version's documents in ordinal order
    TextIndex::Part base{&segment, {}}, fresh{&delta, {}};
    std::vector<size_t> kept;
    for (size_t d = 0; d < old_docs.size(); ++d) {
      if (d % 7 == 3) {
        base.docs.push_back(TextIndex::kDropped);
      } else {
        base.docs.push_back(0);
        kept.push_back(d);
      }
    }
    const size_t n = kept.size() + fresh_docs.size();
    now.resize(n);
    // In order, or every number reversed (lists then need sorting).
    auto place = [&](size_t i) { return static_cast<uint32_t>(reversed ? n - 1 - i : i); };
    for (size_t i = 0, j = 0; i < old_docs.size(); ++i) {
      if (base.docs[i] == TextIndex::kDropped) continue;
      base.docs[i] = place(j);
      now[place(j)] = old_docs[i];
      ++j;
    }
    for (size_t i = 0; i < fresh_docs.size(); ++i) {
      fresh.docs.push_back(place(kept.size() + i));
      now[place(kept.size() + i)] = fresh_docs[i];
    }
    ExpectSameAnswers(TextIndex::Merge(n, {base, fresh}), BuildOf(now));
  }
}

TEST(SearchTextSegmentTest, RoundTripsThroughItsObject) {
  const Docs docs = Corpus(500, 3);
  const TextIndex idx = BuildOf(docs);
  std::vector<uint64_t> labels;
  for (size_t i = 0; i < docs.size(); ++i) labels.push_back((uint64_t{3} << 32) | i);
  const std::string bytes = idx.Encode(labels);
  auto back = TextIndex::Decode(bytes, "idx/x/text.idx");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->labels, labels);
  ExpectSameAnswers(back->index, idx);
  EXPECT_GT(back->memory_bytes(), 0u);
  // An empty index too.
  auto empty = TextIndex::Decode(BuildOf({}).Encode({}), "k");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->index.size(), 0u);
}

TEST(SearchTextSegmentTest, DamagedObjectsAreTypedErrors) {
  const Docs docs = Corpus(50, 4);
  std::vector<uint64_t> labels(docs.size(), 7);
  const std::string good = BuildOf(docs).Encode(labels);
  auto code = [](std::string_view b) { return TextIndex::Decode(b, "the-key").status(); };
  EXPECT_EQ(code("").code(), ErrorCode::kCorrupt);
  EXPECT_EQ(code(good.substr(0, good.size() - 1)).code(), ErrorCode::kCorrupt);
  for (size_t at : {size_t{0}, size_t{14}, size_t{20}, good.size() / 2, good.size() - 1}) {  // not the version
    std::string bad = good;
    bad[at] ^= 0x10;
    Status s = code(bad);
    EXPECT_EQ(s.code(), ErrorCode::kCorrupt) << at;
    EXPECT_NE(s.message().find("the-key"), std::string::npos) << s.ToString();
  }
  // With a valid checksum: a newer version, and a structure that lies (a count past the end).
  auto resum = [](std::string b) {
    const uint64_t h = XxHash64(std::string_view(b).substr(0, b.size() - 8));
    std::memcpy(b.data() + b.size() - 8, &h, 8);
    return b;
  };
  std::string newer = good;
  const uint32_t v = TextIndex::kFormatVersion + 1;
  std::memcpy(newer.data() + 8, &v, 4);
  EXPECT_EQ(code(resum(newer)).code(), ErrorCode::kFormatTooNew);
  std::string huge = good;
  const uint64_t n = uint64_t{1} << 31;
  std::memcpy(huge.data() + 12, &n, 8);
  EXPECT_EQ(code(resum(huge)).code(), ErrorCode::kCorrupt);
  std::string trailing = good.substr(0, good.size() - 8) + "xx" + good.substr(good.size() - 8);
  EXPECT_EQ(code(resum(trailing)).code(), ErrorCode::kCorrupt);
}

}  // namespace
}  // namespace omnigraph::engine::search
