// The search room's text side (text.h, rank.h): the analyzer (split, long words, lower-case,
// Snowball English stems, NLTK stop words after stemming, ASCII folding last), the phrase, token
// and fuzzy matchers, the bounded edit distance, BM25 (the reference numbers of the search
// fixture) and the rrf() ranking helpers.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "engine/search/rank.h"
#include "engine/search/text.h"
#include "engine/search/text_index.h"

namespace omnigraph::engine::search {
namespace {

std::vector<std::string> Texts(const std::vector<Token>& tokens) {
  std::vector<std::string> out;
  for (const Token& t : tokens) out.push_back(t.text);
  return out;
}

std::vector<uint32_t> Positions(const std::vector<Token>& tokens) {
  std::vector<uint32_t> out;
  for (const Token& t : tokens) out.push_back(t.position);
  return out;
}

using Words = std::vector<std::string>;
using Places = std::vector<uint32_t>;

// The search fixture (search.jsonl), in load order.
struct FixtureDoc {
  const char* slug;
  const char* title;
  const char* body;
};
constexpr std::array<FixtureDoc, 5> kDocs = {{
    {"ml-intro", "Introduction to Machine Learning",
     "Machine learning is a subset of artificial intelligence that focuses on algorithms"},
    {"dl-basics", "Deep Learning Basics",
     "Deep learning uses neural networks with many layers to learn representations"},
    {"nlp-guide", "Natural Language Processing Guide",
     "NLP applies machine learning to understand and generate human language"},
    {"cv-overview", "Computer Vision Overview",
     "Computer vision enables machines to interpret visual information from images"},
    {"rl-intro", "Reinforcement Learning Introduction",
     "Reinforcement learning trains agents through reward and punishment signals"},
}};
constexpr size_t kMl = 0, kDl = 1, kNlp = 2, kCv = 3, kRl = 4;

// ---------------------------------------------------------------------------------------------
// Analyze

TEST(SearchAnalyzeTest, SplitsLowerCasesStemsAndKeepsStopWordGaps) {
  const std::vector<Token> t = Analyze("Introduction to Machine Learning");
  EXPECT_EQ(Texts(t), (Words{"introduct", "machin", "learn"}));
  // "to" is a stop word: dropped, but its position stays taken.
  EXPECT_EQ(Positions(t), (Places{0, 2, 3}));

  // Every character that is not a letter or a digit separates; runs of them separate once.
  const std::vector<Token> p = Analyze("deep-learning,  neural/networks!!");
  EXPECT_EQ(Texts(p), (Words{"deep", "learn", "neural", "network"}));
  EXPECT_EQ(Positions(p), (Places{0, 1, 2, 3}));

  // Upper case is lower-cased before stemming.
  EXPECT_EQ(Texts(Analyze("LEARNING Learning learning")), (Words{"learn", "learn", "learn"}));
  // Letters of other scripts are letters (one run, no segmentation of CJK).
  EXPECT_EQ(Texts(Analyze("東京 tower")), (Words{"東京", "tower"}));

  EXPECT_TRUE(Analyze("").empty());
  EXPECT_TRUE(Analyze(" -- ,, !? ").empty());
}

TEST(SearchAnalyzeTest, StopWordsAreDroppedAfterStemming) {
  // "downs" is not a stop word but stems to "down", which is; "does" is a stop word but stems to
  // "doe", which is not (search_spec.md §1, step 5).
  const std::vector<Token> t = Analyze("downs does");
  EXPECT_EQ(Texts(t), (Words{"doe"}));
  EXPECT_EQ(Positions(t), (Places{1}));
  // A query of stop words only analyses to nothing.
  EXPECT_TRUE(Analyze("the of and to a is").empty());
  // The NLTK list: "through" is a stop word (the Lucene 33-word list does not have it).
  EXPECT_EQ(Texts(Analyze("agents through reward")), (Words{"agent", "reward"}));
  EXPECT_EQ(Positions(Analyze("agents through reward")), (Places{0, 2}));

  EXPECT_TRUE(IsStopWord("through"));
  EXPECT_TRUE(IsStopWord("the"));
  EXPECT_TRUE(IsStopWord("wouldn"));
  EXPECT_TRUE(IsStopWord("down"));
  EXPECT_FALSE(IsStopWord("downs"));
  EXPECT_FALSE(IsStopWord("uses"));
  EXPECT_FALSE(IsStopWord("learning"));
  EXPECT_FALSE(IsStopWord("The"));  // the list is lower-case
  EXPECT_FALSE(IsStopWord(""));
}

TEST(SearchAnalyzeTest, FoldsAccentsToAsciiAfterStemming) {
  EXPECT_EQ(Texts(Analyze("Café Déjà")), (Words{"cafe", "deja"}));
  // Folding runs after stemming: the stemmer sees "résumé" (é is not a vowel to it) and keeps the
  // final é, so the folded stem is "resume". Folding first would give "resumes" -> "resum".
  // [hand-derived Porter2: check when run]
  EXPECT_EQ(Texts(Analyze("Résumés")), (Words{"resume"}));
  // Combining marks stay in their word and are stripped by the folding.
  EXPECT_EQ(Texts(Analyze("cafe\xcc\x81 bar")), (Words{"cafe", "bar"}));
}

TEST(SearchAnalyzeTest, DropsWordsOfFortyBytesOrMore) {
  const std::string keep(39, 'x'), drop(40, 'x');
  const std::vector<Token> t = Analyze("short " + keep + " " + drop + " end");
  EXPECT_EQ(Texts(t), (Words{"short", keep, "end"}));
  EXPECT_EQ(Positions(t), (Places{0, 1, 3}));  // the dropped word keeps its gap
  EXPECT_EQ(kMaxTokenBytes, 40u);

  // The limit is in UTF-8 bytes, not characters: 20 × "é" is 40 bytes (20 characters).
  std::string e19, e20;
  for (int i = 0; i < 19; ++i) e19 += "é";
  e20 = e19 + "é";
  EXPECT_TRUE(Analyze(e20).empty());
  EXPECT_EQ(Texts(Analyze(e19)), (Words{std::string(19, 'e')}));
}

TEST(SearchAnalyzeTest, KeepsDigits) {
  const std::vector<Token> t = Analyze("abc123 x9 2024");
  EXPECT_EQ(Texts(t), (Words{"abc123", "x9", "2024"}));
  EXPECT_EQ(Positions(t), (Places{0, 1, 2}));
}

TEST(SearchAnalyzeTest, InvalidUtf8BytesSeparateWordsAndNeverCrash) {
  const std::vector<Token> t = Analyze(
      "foo\xff"
      "bar");
  EXPECT_EQ(Texts(t), (Words{"foo", "bar"}));
  EXPECT_EQ(Positions(t), (Places{0, 1}));
  // A truncated sequence at the end, a lone continuation byte, an overlong NUL, a surrogate and a
  // code point past U+10FFFF.
  EXPECT_EQ(Texts(Analyze("abc\xc3")), (Words{"abc"}));
  EXPECT_EQ(Texts(Analyze("ab\x80"
                          "cd\xc0\x80"
                          "ef\xed\xa0\x80"
                          "gh\xf4\x90\x80\x80"
                          "ij")),
            (Words{"ab", "cd", "ef", "gh", "ij"}));
  // Every byte value, in both orders: no crash, positions strictly increasing.
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  for (int b = 255; b >= 0; --b) all.push_back(static_cast<char>(b));
  for (const std::vector<Token>& tokens : {Analyze(all), AnalyzeUnstemmed(all)}) {
    for (size_t i = 1; i < tokens.size(); ++i) EXPECT_LT(tokens[i - 1].position, tokens[i].position);
    for (const Token& tok : tokens) EXPECT_FALSE(tok.text.empty());
  }
}

TEST(SearchAnalyzeTest, TokenizesTheSearchFixtureAsTheSpecTable) {
  // search_spec.md §1, "Worked tokenization of the fixture" (NLTK stop list).
  const std::array<Words, 5> titles = {{
      {"introduct", "machin", "learn"},
      {"deep", "learn", "basic"},
      {"natur", "languag", "process", "guid"},
      {"comput", "vision", "overview"},
      {"reinforc", "learn", "introduct"},
  }};
  const std::array<Words, 5> bodies = {{
      {"machin", "learn", "subset", "artifici", "intellig", "focus", "algorithm"},
      {"deep", "learn", "use", "neural", "network", "mani", "layer", "learn", "represent"},
      {"nlp", "appli", "machin", "learn", "understand", "generat", "human", "languag"},
      {"comput", "vision", "enabl", "machin", "interpret", "visual", "inform", "imag"},
      {"reinforc", "learn", "train", "agent", "reward", "punish", "signal"},
  }};
  for (size_t i = 0; i < kDocs.size(); ++i) {
    SCOPED_TRACE(kDocs[i].slug);
    EXPECT_EQ(Texts(Analyze(kDocs[i].title)), titles[i]);
    EXPECT_EQ(Texts(Analyze(kDocs[i].body)), bodies[i]);
  }
  // Positions keep the stop-word gaps.
  EXPECT_EQ(Positions(Analyze(kDocs[kDl].body)), (Places{0, 1, 2, 3, 4, 6, 7, 9, 10}));
  EXPECT_EQ(Positions(Analyze(kDocs[kMl].body)), (Places{0, 1, 4, 6, 7, 9, 11}));
  EXPECT_EQ(Positions(Analyze(kDocs[kRl].body)), (Places{0, 1, 2, 3, 5, 7, 8}));
}

TEST(SearchAnalyzeTest, UnstemmedKeepsWordForms) {
  const std::vector<Token> t = AnalyzeUnstemmed("Introductions running");
  EXPECT_EQ(Texts(t), (Words{"introductions", "running"}));
  EXPECT_EQ(Positions(t), (Places{0, 1}));
  // Stop words, long words and accents are handled as in Analyze().
  const std::vector<Token> u = AnalyzeUnstemmed("The Café " + std::string(40, 'z') + " Networks");
  EXPECT_EQ(Texts(u), (Words{"cafe", "networks"}));
  EXPECT_EQ(Positions(u), (Places{1, 3}));
}

// ---------------------------------------------------------------------------------------------
// Matchers

TEST(SearchMatchTest, ContainsAnyToken) {
  const std::vector<Token> q = Analyze("Learning");
  EXPECT_TRUE(ContainsAnyToken(Analyze(kDocs[kMl].title), q));
  EXPECT_TRUE(ContainsAnyToken(Analyze(kDocs[kDl].title), q));
  EXPECT_FALSE(ContainsAnyToken(Analyze(kDocs[kNlp].title), q));
  EXPECT_FALSE(ContainsAnyToken(Analyze(kDocs[kCv].title), q));
  EXPECT_TRUE(ContainsAnyToken(Analyze(kDocs[kRl].title), q));
  // Any one query token is enough.
  EXPECT_TRUE(ContainsAnyToken(Analyze(kDocs[kCv].title), Analyze("xyznonexistent vision")));
  EXPECT_FALSE(ContainsAnyToken(Analyze(kDocs[kCv].title), Analyze("xyznonexistent")));
  EXPECT_FALSE(ContainsAnyToken(Analyze(kDocs[kMl].title), {}));
  EXPECT_FALSE(ContainsAnyToken({}, q));
}

TEST(SearchMatchTest, ContainsPhraseKeepsTheShapeOfThePhrase) {
  const std::vector<Token> ml = Analyze(kDocs[kMl].body);
  const std::vector<Token> dl = Analyze(kDocs[kDl].body);
  // The stop word inside the phrase keeps its gap on both sides.
  EXPECT_TRUE(ContainsPhrase(ml, Analyze("subset of artificial")));
  EXPECT_FALSE(ContainsPhrase(ml, Analyze("subset artificial")));
  EXPECT_TRUE(ContainsPhrase(dl, Analyze("neural networks")));
  EXPECT_TRUE(ContainsPhrase(dl, Analyze("Neural  Network")));  // same analyzed tokens
  EXPECT_FALSE(ContainsPhrase(dl, Analyze("networks layers")));
  EXPECT_FALSE(ContainsPhrase(dl, Analyze("networks neural")));  // order matters
  EXPECT_TRUE(ContainsPhrase(dl, Analyze("networks with many layers")));
  // A leading stop word shifts every query position alike.
  EXPECT_TRUE(ContainsPhrase(dl, Analyze("the neural networks")));
  // Single tokens; the second occurrence of "learn" (position 9) is found too.
  EXPECT_TRUE(ContainsPhrase(dl, Analyze("neural")));
  EXPECT_TRUE(ContainsPhrase(dl, Analyze("to learn representations")));
  EXPECT_FALSE(ContainsPhrase(ml, Analyze("neural")));
  // An empty query (also one of stop words only) matches nothing.
  EXPECT_FALSE(ContainsPhrase(dl, {}));
  EXPECT_FALSE(ContainsPhrase(dl, Analyze("the of")));
  EXPECT_FALSE(ContainsPhrase({}, Analyze("neural")));
}

TEST(SearchMatchTest, BoundedEditDistance) {
  EXPECT_EQ(BoundedEditDistance("kitten", "sitting", 3), 3u);
  EXPECT_EQ(BoundedEditDistance("kitten", "sitting", 10), 3u);
  EXPECT_EQ(BoundedEditDistance("sitting", "kitten", 10), 3u);
  // Larger than the cap: max_edits + 1.
  EXPECT_EQ(BoundedEditDistance("kitten", "sitting", 2), 3u);
  EXPECT_EQ(BoundedEditDistance("kitten", "sitting", 1), 2u);
  EXPECT_EQ(BoundedEditDistance("kitten", "sitting", 0), 1u);
  EXPECT_EQ(BoundedEditDistance("abc", "xyz", 1), 2u);
  EXPECT_EQ(BoundedEditDistance("a", "abcdef", 2), 3u);  // the length difference alone
  EXPECT_EQ(BoundedEditDistance("same", "same", 0), 0u);
  // Characters, not bytes.
  EXPECT_EQ(BoundedEditDistance("café", "cafe", 2), 1u);
  EXPECT_EQ(BoundedEditDistance("café", "cafe", 0), 1u);
  EXPECT_EQ(BoundedEditDistance("日本", "日本語", 5), 1u);
  EXPECT_EQ(BoundedEditDistance("日本", "本日", 5), 2u);
  // Empty strings.
  EXPECT_EQ(BoundedEditDistance("", "", 0), 0u);
  EXPECT_EQ(BoundedEditDistance("", "abc", 5), 3u);
  EXPECT_EQ(BoundedEditDistance("abc", "", 5), 3u);
  EXPECT_EQ(BoundedEditDistance("", "abc", 1), 2u);
}

TEST(SearchMatchTest, FuzzyMatches) {
  const std::vector<Token> title = AnalyzeUnstemmed(kDocs[kMl].title);
  ASSERT_EQ(Texts(title), (Words{"introduction", "machine", "learning"}));
  const std::vector<Token> q = AnalyzeUnstemmed("Introductio");
  ASSERT_EQ(Texts(q), (Words{"introductio"}));
  EXPECT_TRUE(FuzzyMatches(title, q, 2));
  EXPECT_TRUE(FuzzyMatches(title, q, 1));
  EXPECT_FALSE(FuzzyMatches(title, q, 0));
  EXPECT_TRUE(FuzzyMatches(title, AnalyzeUnstemmed("Machine"), 0));
  EXPECT_TRUE(FuzzyMatches(title, AnalyzeUnstemmed("xyz lerning"), 1));  // any query token
  EXPECT_FALSE(FuzzyMatches(title, AnalyzeUnstemmed("vision"), 2));
  EXPECT_FALSE(FuzzyMatches(title, {}, 2));
}

// ---------------------------------------------------------------------------------------------
// BM25

std::vector<double> Score(const std::vector<std::optional<std::string>>& docs, std::string_view query) {
  return Bm25Scores(
      docs.size(),
      [&docs](size_t i) -> std::optional<std::string_view> {
        if (!docs[i].has_value()) return std::nullopt;
        return std::string_view(*docs[i]);
      },
      query);
}

std::vector<std::optional<std::string>> Titles() {
  std::vector<std::optional<std::string>> out;
  for (const FixtureDoc& d : kDocs) out.emplace_back(d.title);
  return out;
}

std::vector<std::optional<std::string>> Bodies() {
  std::vector<std::optional<std::string>> out;
  for (const FixtureDoc& d : kDocs) out.emplace_back(d.body);
  return out;
}

TEST(SearchBm25Test, IdfAndScoreFormula) {
  // idf = ln((N - df + 0.5) / (df + 0.5) + 1).
  EXPECT_NEAR(Bm25Idf(5, 3), std::log(1.0 + 2.5 / 3.5), 1e-12);
  EXPECT_NEAR(Bm25Idf(5, 3), 0.5390, 1e-4);
  EXPECT_NEAR(Bm25Idf(5, 4), 0.2877, 1e-4);
  EXPECT_NEAR(Bm25Idf(2, 1), std::log(2.0), 1e-12);
  // k1 = 1.2, b = 0.75.
  EXPECT_NEAR(Bm25Score({{Bm25Idf(5, 3), 1}}, 3, 3.2), 0.5531, 1e-3);
  EXPECT_NEAR(Bm25Score({{1.0, 2}}, 9, 7.8), 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 9 / 7.8)), 1e-12);
  // Terms sum; a term with tf 0 adds nothing.
  EXPECT_NEAR(Bm25Score({{1.0, 1}, {2.0, 1}, {5.0, 0}}, 4, 4), 3.0, 1e-12);
  EXPECT_EQ(Bm25Score({{5.0, 0}}, 4, 4), 0.0);
  EXPECT_EQ(Bm25Score({}, 4, 4), 0.0);
}

TEST(SearchBm25Test, TitleLearningMatchesTheReferenceNumbers) {
  // search_spec.md §10.4: N = 5, df = 3, avgdl = 16 / 5; ml, dl and rl have dl = 3, tf = 1.
  const std::vector<double> s = Score(Titles(), "learning");
  ASSERT_EQ(s.size(), 5u);
  EXPECT_NEAR(s[kMl], 0.5531, 1e-3);
  EXPECT_NEAR(s[kDl], 0.5531, 1e-3);
  EXPECT_NEAR(s[kRl], 0.5531, 1e-3);
  EXPECT_EQ(s[kMl], s[kDl]);  // an exact three-way tie
  EXPECT_EQ(s[kMl], s[kRl]);
  EXPECT_DOUBLE_EQ(s[kMl], Bm25Score({{Bm25Idf(5, 3), 1}}, 3, 16.0 / 5.0));
  EXPECT_EQ(s[kNlp], 0.0);
  EXPECT_EQ(s[kCv], 0.0);
  // The query is analyzed like the documents; a repeated term counts once.
  EXPECT_EQ(Score(Titles(), "Learning"), s);
  EXPECT_EQ(Score(Titles(), "learning LEARNING learn"), s);
}

TEST(SearchBm25Test, BodyLearningMatchesTheReferenceNumbers) {
  // NLTK stop list: lengths 7, 9, 8, 8, 7, avgdl 7.8, df 4; dl has tf 2 ("learning", "learn").
  const std::vector<double> s = Score(Bodies(), "learning");
  ASSERT_EQ(s.size(), 5u);
  EXPECT_NEAR(s[kDl], 0.3792, 1e-3);
  EXPECT_NEAR(s[kMl], 0.3003, 1e-3);
  EXPECT_NEAR(s[kRl], 0.3003, 1e-3);
  EXPECT_NEAR(s[kNlp], 0.2847, 1e-3);
  EXPECT_EQ(s[kCv], 0.0);
  EXPECT_EQ(s[kMl], s[kRl]);
  EXPECT_GT(s[kDl], s[kMl]);
  EXPECT_GT(s[kMl], s[kNlp]);
}

TEST(SearchBm25Test, NullDocumentsScoreZeroAndAreNotCounted) {
  // Statistics over the two non-null documents only: N = 2, df = 1, avgdl = (3 + 3) / 2 = 3, so
  // idf = ln((2 - 1 + 0.5) / 1.5 + 1) = ln 2 and the ml title (dl = avgdl, tf = 1) scores idf.
  // Were the null counted (N = 3, avgdl 2) the score would be about 0.85.
  const std::vector<std::optional<std::string>> docs = {std::string(kDocs[kMl].title), std::nullopt,
                                                        std::string(kDocs[kCv].title)};
  const std::vector<double> s = Score(docs, "learning");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_NEAR(s[0], std::log(2.0), 1e-12);
  EXPECT_EQ(s[1], 0.0);
  EXPECT_EQ(s[2], 0.0);
  // Only nulls: all zero.
  EXPECT_EQ(Score({std::nullopt, std::nullopt}, "learning"), (std::vector<double>{0.0, 0.0}));
}

TEST(SearchBm25Test, EmptyOrUnknownQueriesScoreZero) {
  const std::vector<double> zeros(5, 0.0);
  EXPECT_EQ(Score(Titles(), ""), zeros);
  EXPECT_EQ(Score(Titles(), "the of and"), zeros);  // stop words only
  EXPECT_EQ(Score(Titles(), "xyznonexistent"), zeros);
  EXPECT_TRUE(Score({}, "learning").empty());
}

// ---------------------------------------------------------------------------------------------
// rrf() ranking

TEST(SearchRankTest, RankArmDescendingKeepsTheBestScoreAndDropsZero) {
  const std::vector<ArmEntry> entries = {
      {1, 0.5, "b"}, {2, 0.9, "a"}, {3, 0.0, "c"}, {1, 0.95, "b"}, {4, -1.0, "d"}, {5, 0.0, "e"}, {5, 0.3, "e"},
  };
  // 1 -> 0.95 (its best), 2 -> 0.9, 5 -> 0.3 (its 0 entry does not count); 3 and 4 are not in the arm.
  EXPECT_EQ(RankArm(entries, /*ascending=*/false, 0), (std::vector<int64_t>{1, 2, 5}));
}

TEST(SearchRankTest, RankArmAscendingKeepsTheLowestScoreAndZero) {
  const std::vector<ArmEntry> entries = {
      {1, 0.5, "b"}, {2, 0.9, "a"}, {3, 0.0, "c"}, {1, 0.95, "b"}, {4, -1.0, "d"}, {2, 0.1, "a"},
  };
  // 4 -> -1, 3 -> 0, 2 -> 0.1 (its best), 1 -> 0.5 (its best).
  EXPECT_EQ(RankArm(entries, /*ascending=*/true, 0), (std::vector<int64_t>{4, 3, 2, 1}));
}

TEST(SearchRankTest, RankArmBreaksTiesById) {
  const std::vector<ArmEntry> entries = {{10, 1.0, "zeta"}, {11, 1.0, "alpha"}, {12, 1.0, "mid"}, {13, 2.0, "zz"}};
  EXPECT_EQ(RankArm(entries, false, 0), (std::vector<int64_t>{13, 11, 12, 10}));
  EXPECT_EQ(RankArm(entries, true, 0), (std::vector<int64_t>{11, 12, 10, 13}));
}

TEST(SearchRankTest, RankArmKeepsAtMostKeep) {
  const std::vector<ArmEntry> entries = {{1, 0.1, "a"}, {2, 0.2, "b"}, {3, 0.3, "c"}, {4, 0.4, "d"}, {5, 0.5, "e"}};
  EXPECT_EQ(RankArm(entries, false, 2), (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(RankArm(entries, true, 3), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(RankArm(entries, true, 0), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(RankArm(entries, true, 99), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_TRUE(RankArm({}, true, 3).empty());
}

TEST(SearchRankTest, FuseRrfTwoVectorArms) {
  // search_spec.md §10.4 #26: arm 1 ml, nlp, rl; arm 2 dl, rl, cv; k = 60.
  constexpr int64_t ml = 1, dl = 2, nlp = 3, cv = 4, rl = 5;
  const std::vector<Fused> f = FuseRrf({ml, nlp, rl}, {dl, rl, cv}, 60);
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(f[0].entity, rl);
  EXPECT_EQ(f[1].entity, ml);  // ties with dl: the primary arm's entity first
  EXPECT_EQ(f[2].entity, dl);
  EXPECT_EQ(f[3].entity, nlp);
  EXPECT_EQ(f[4].entity, cv);
  EXPECT_DOUBLE_EQ(f[0].score, 1.0 / 63 + 1.0 / 62);
  EXPECT_NEAR(f[0].score, 0.032002, 1e-6);
  EXPECT_DOUBLE_EQ(f[1].score, 1.0 / 61);
  EXPECT_DOUBLE_EQ(f[2].score, 1.0 / 61);
  EXPECT_DOUBLE_EQ(f[3].score, 1.0 / 62);
  EXPECT_DOUBLE_EQ(f[4].score, 1.0 / 63);
}

TEST(SearchRankTest, FuseRrfTiesKeepThePrimaryOrder) {
  // Equal sums: the candidate order (primary arm first) decides, either way round.
  auto entities = [](const std::vector<Fused>& f) {
    std::vector<int64_t> out;
    for (const Fused& x : f) out.push_back(x.entity);
    return out;
  };
  EXPECT_EQ(entities(FuseRrf({7, 9}, {9, 7}, 60)), (std::vector<int64_t>{7, 9}));
  EXPECT_EQ(entities(FuseRrf({9, 7}, {7, 9}, 60)), (std::vector<int64_t>{9, 7}));
  // Only-secondary entities come after a primary one of the same score.
  EXPECT_EQ(entities(FuseRrf({7}, {8}, 60)), (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(entities(FuseRrf({}, {8, 6}, 60)), (std::vector<int64_t>{8, 6}));
  // k enters every term.
  const std::vector<Fused> one = FuseRrf({4}, {}, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_DOUBLE_EQ(one[0].score, 0.5);
  EXPECT_TRUE(FuseRrf({}, {}, 60).empty());
}

// The index answers exactly what the per-row functions answer, on a random corpus with nulls,
// repeated words, stop words and near-miss spellings.
TEST(SearchTextIndexTest, AgreesWithTheRowByRowFunctions) {
  const std::vector<std::string> vocab = {"graph",  "graphs", "branch", "the",  "of",   "merging", "merge", "vector",
                                          "search", "serch",  "Café",   "cafe", "rank", "ranks",   "fleet", "agent"};
  std::mt19937 rng(7);
  std::vector<std::optional<std::string>> docs;
  for (int i = 0; i < 400; ++i) {
    if (i % 23 == 0) {
      docs.push_back(std::nullopt);
      continue;
    }
    std::string d;
    for (int w = 0, n = 1 + static_cast<int>(rng() % 9); w < n; ++w) d += vocab[rng() % vocab.size()] + " ";
    docs.push_back(d);
  }
  auto doc = [&](size_t i) -> std::optional<std::string_view> {
    if (!docs[i]) return std::nullopt;
    return std::string_view(*docs[i]);
  };
  const TextIndex idx = TextIndex::Build(docs.size(), doc);
  const std::vector<std::string> queries = {"graph merge", "the of",      "vector search", "serch",
                                            "cafe rank",   "fleet agent", "branch branch", ""};
  for (const std::string& q : queries) {
    SCOPED_TRACE(q);
    std::vector<uint32_t> any, phrase, fuzzy;
    for (size_t i = 0; i < docs.size(); ++i) {
      if (!docs[i]) continue;
      const auto d = static_cast<uint32_t>(i);
      if (ContainsAnyToken(Analyze(*docs[i]), Analyze(q))) any.push_back(d);
      if (ContainsPhrase(Analyze(*docs[i]), Analyze(q))) phrase.push_back(d);
      if (FuzzyMatches(AnalyzeUnstemmed(*docs[i]), AnalyzeUnstemmed(q), 1)) fuzzy.push_back(d);
    }
    EXPECT_EQ(idx.MatchAny(Analyze(q)), any);
    EXPECT_EQ(idx.MatchPhrase(Analyze(q)), phrase);
    EXPECT_EQ(idx.MatchFuzzy(AnalyzeUnstemmed(q), 1), fuzzy);
    EXPECT_EQ(idx.Bm25(q), Bm25Scores(docs.size(), doc, q));  // bit for bit: the same sums in order
  }
  EXPECT_FALSE(idx.MatchPhrase(Analyze("fleet agent")).empty());
  EXPECT_GT(idx.memory_bytes(), 0u);
}

}  // namespace
}  // namespace omnigraph::engine::search
