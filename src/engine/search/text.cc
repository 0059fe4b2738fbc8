#include "engine/search/text.h"

#include <libstemmer.h>
#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <unordered_map>

namespace omnigraph::engine::search {

namespace {

// The English stop words: NLTK's English list (153 words), the list the existing implementation's
// full-text search drops. Compared with the stemmed token, as there.
constexpr std::array<std::string_view, 153> kStopWords = {
    "i",       "me",       "my",         "myself",  "we",     "our",    "ours",    "ourselves", "you",        "your",
    "yours",   "yourself", "yourselves", "he",      "him",    "his",    "himself", "she",       "her",        "hers",
    "herself", "it",       "its",        "itself",  "they",   "them",   "their",   "theirs",    "themselves", "what",
    "which",   "who",      "whom",       "this",    "that",   "these",  "those",   "am",        "is",         "are",
    "was",     "were",     "be",         "been",    "being",  "have",   "has",     "had",       "having",     "do",
    "does",    "did",      "doing",      "a",       "an",     "the",    "and",     "but",       "if",         "or",
    "because", "as",       "until",      "while",   "of",     "at",     "by",      "for",       "with",       "about",
    "against", "between",  "into",       "through", "during", "before", "after",   "above",     "below",      "to",
    "from",    "up",       "down",       "in",      "out",    "on",     "off",     "over",      "under",      "again",
    "further", "then",     "once",       "here",    "there",  "when",   "where",   "why",       "how",        "all",
    "any",     "both",     "each",       "few",     "more",   "most",   "other",   "some",      "such",       "no",
    "nor",     "not",      "only",       "own",     "same",   "so",     "than",    "too",       "very",       "s",
    "t",       "can",      "will",       "just",    "don",    "should", "now",     "d",         "ll",         "m",
    "o",       "re",       "ve",         "y",       "ain",    "aren",   "couldn",  "didn",      "doesn",      "hadn",
    "hasn",    "haven",    "isn",        "ma",      "mightn", "mustn",  "needn",   "shan",      "shouldn",    "wasn",
    "weren",   "won",      "wouldn"};

// One Snowball English stemmer per thread (a stemmer object is not thread-safe).
struct StemmerDeleter {
  void operator()(sb_stemmer* s) const { sb_stemmer_delete(s); }
};

std::string Stem(const std::string& word) {
  thread_local std::unique_ptr<sb_stemmer, StemmerDeleter> stemmer(sb_stemmer_new("english", "UTF_8"));
  if (!stemmer) return word;
  const sb_symbol* out =
      sb_stemmer_stem(stemmer.get(), reinterpret_cast<const sb_symbol*>(word.data()), static_cast<int>(word.size()));
  if (out == nullptr) return word;
  return std::string(reinterpret_cast<const char*>(out), static_cast<size_t>(sb_stemmer_length(stemmer.get())));
}

bool IsWordChar(utf8proc_int32_t cp) {
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
    case UTF8PROC_CATEGORY_MN:  // combining marks stay with their letter
    case UTF8PROC_CATEGORY_MC: return true;
    default: return false;
  }
}

void AppendUtf8(std::string* out, utf8proc_int32_t cp) {
  utf8proc_uint8_t buf[4];
  const utf8proc_ssize_t n = utf8proc_encode_char(cp, buf);
  out->append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

// The words of `text` (maximal runs of letters and digits), lower-cased, with their positions.
// Invalid UTF-8 bytes separate words.
std::vector<Token> Words(std::string_view text) {
  std::vector<Token> words;
  std::string current;
  uint32_t position = 0;
  auto flush = [&] {
    if (current.empty()) return;
    words.push_back(Token{std::move(current), position++});
    current.clear();
  };
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(text.size());
  while (left > 0) {
    utf8proc_int32_t cp = -1;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n <= 0) {  // an invalid byte: a separator
      flush();
      ++p;
      --left;
      continue;
    }
    p += n;
    left -= n;
    if (IsWordChar(cp)) {
      AppendUtf8(&current, utf8proc_tolower(cp));
    } else {
      flush();
    }
  }
  flush();
  return words;
}

// Accents and other marks removed, compatibility forms unfolded (é -> e, ﬁ -> fi).
std::string FoldToAscii(const std::string& word) {
  bool ascii = true;
  for (char c : word) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  if (ascii) return word;
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n = utf8proc_map(
      reinterpret_cast<const utf8proc_uint8_t*>(word.data()), static_cast<utf8proc_ssize_t>(word.size()), &out,
      static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPAT | UTF8PROC_DECOMPOSE | UTF8PROC_STRIPMARK |
                                     UTF8PROC_CASEFOLD));
  if (n < 0 || out == nullptr) {
    std::free(out);
    return word;
  }
  std::string folded(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
  std::free(out);
  return folded;
}

// One word through the filters after the split: nullopt when dropped.
std::optional<std::string> Filter(const std::string& word, bool stem) {
  if (word.size() >= kMaxTokenBytes) return std::nullopt;
  std::string t = stem ? Stem(word) : word;
  if (IsStopWord(t)) return std::nullopt;
  t = FoldToAscii(t);
  if (t.empty()) return std::nullopt;
  return t;
}

std::vector<Token> AnalyzeImpl(std::string_view text, bool stem) {
  std::vector<Token> out;
  for (Token& w : Words(text)) {
    if (auto t = Filter(w.text, stem)) out.push_back(Token{std::move(*t), w.position});
  }
  return out;
}

std::vector<utf8proc_int32_t> CodePoints(std::string_view s) {
  std::vector<utf8proc_int32_t> out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(s.size());
  while (left > 0) {
    utf8proc_int32_t cp = -1;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n <= 0) {
      cp = 0xFFFD;
      n = 1;
    }
    out.push_back(cp);
    p += n;
    left -= n;
  }
  return out;
}

}  // namespace

bool IsStopWord(std::string_view word) {
  return std::find(kStopWords.begin(), kStopWords.end(), word) != kStopWords.end();
}

std::vector<Token> Analyze(std::string_view text) { return AnalyzeImpl(text, /*stem=*/true); }
std::vector<Token> AnalyzeUnstemmed(std::string_view text) { return AnalyzeImpl(text, /*stem=*/false); }

void AnalyzeBoth(std::string_view text, std::vector<Token>* stemmed, std::vector<Token>* unstemmed) {
  stemmed->clear();
  unstemmed->clear();
  for (Token& w : Words(text)) {
    if (auto t = Filter(w.text, true)) stemmed->push_back(Token{std::move(*t), w.position});
    if (auto t = Filter(w.text, false)) unstemmed->push_back(Token{std::move(*t), w.position});
  }
}

bool ContainsAnyToken(const std::vector<Token>& doc, const std::vector<Token>& query) {
  for (const Token& q : query) {
    for (const Token& d : doc) {
      if (d.text == q.text) return true;
    }
  }
  return false;
}

bool ContainsPhrase(const std::vector<Token>& doc, const std::vector<Token>& query) {
  if (query.empty()) return false;
  // doc position -> token, for the offset checks.
  std::unordered_map<uint32_t, const std::string*> at;
  at.reserve(doc.size());
  for (const Token& d : doc) at.emplace(d.position, &d.text);
  const uint32_t first = query.front().position;
  for (const Token& d : doc) {
    if (d.text != query.front().text) continue;
    bool all = true;
    for (size_t i = 1; i < query.size() && all; ++i) {
      const uint32_t want = d.position + (query[i].position - first);
      auto it = at.find(want);
      all = it != at.end() && *it->second == query[i].text;
    }
    if (all) return true;
  }
  return false;
}

uint32_t BoundedEditDistance(std::string_view a_text, std::string_view b_text, uint32_t max_edits) {
  const std::vector<utf8proc_int32_t> a = CodePoints(a_text), b = CodePoints(b_text);
  const size_t n = a.size(), m = b.size();
  const size_t diff = n > m ? n - m : m - n;
  if (diff > max_edits) return max_edits + 1;
  // Two rows of the Wagner-Fischer table; a row whose minimum passes max_edits ends the search.
  std::vector<uint32_t> prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = static_cast<uint32_t>(j);
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = static_cast<uint32_t>(i);
    uint32_t row_min = cur[0];
    for (size_t j = 1; j <= m; ++j) {
      const uint32_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > max_edits) return max_edits + 1;
    std::swap(prev, cur);
  }
  return std::min(prev[m], max_edits + 1);
}

bool FuzzyMatches(const std::vector<Token>& doc, const std::vector<Token>& query, uint32_t max_edits) {
  for (const Token& q : query) {
    for (const Token& d : doc) {
      if (BoundedEditDistance(d.text, q.text, max_edits) <= max_edits) return true;
    }
  }
  return false;
}

double Bm25Idf(uint64_t n_docs, uint64_t doc_freq) {
  const double n = static_cast<double>(n_docs), df = static_cast<double>(doc_freq);
  return std::log((n - df + 0.5) / (df + 0.5) + 1.0);
}

double Bm25Score(const std::vector<Bm25Term>& terms, double doc_len, double avg_len) {
  constexpr double kK1 = 1.2, kB = 0.75;
  const double norm = avg_len > 0 ? doc_len / avg_len : 0.0;
  double score = 0;
  for (const Bm25Term& t : terms) {
    if (t.tf == 0) continue;
    const double tf = static_cast<double>(t.tf);
    score += t.idf * tf * (kK1 + 1) / (tf + kK1 * (1 - kB + kB * norm));
  }
  return score;
}

}  // namespace omnigraph::engine::search
