// Full-text analysis for the search functions (docs/search.md): the tokenizer shared by
// search(), match_text(), fuzzy() and bm25(), the phrase and fuzzy matchers, and the BM25 score.
// Pure functions of their inputs; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace omnigraph::engine::search {

// The longest token kept, in UTF-8 bytes: a token of this length or longer is dropped.
inline constexpr size_t kMaxTokenBytes = 40;
// The longest query text a search function takes (longer: resource_limit).
inline constexpr size_t kMaxQueryTextBytes = size_t{64} << 10;

struct Token {
  std::string text;   // the analyzed form
  uint32_t position;  // index among the words of the text, before any were dropped
};

// The analyzed tokens of `text`, in order: split on every character that is not a letter or a
// digit (Unicode), words of kMaxTokenBytes bytes or more dropped, lower-cased, Snowball English
// stemmed, English stop words dropped, accents folded to ASCII. Positions keep the gaps of
// dropped words, so a phrase keeps its shape.
std::vector<Token> Analyze(std::string_view text);

// The same words, not stemmed (fuzzy() compares these): lower-cased, accents folded, long words
// and stop words dropped.
std::vector<Token> AnalyzeUnstemmed(std::string_view text);

// Both analyses of `text` in one pass over its words (what an index build needs).
void AnalyzeBoth(std::string_view text, std::vector<Token>* stemmed, std::vector<Token>* unstemmed);

// True when `word` (lower-case) is one of the English stop words the analyzer drops.
bool IsStopWord(std::string_view word);

// True when some token of `doc` equals some token of `query` (both analyzed).
bool ContainsAnyToken(const std::vector<Token>& doc, const std::vector<Token>& query);

// True when the tokens of `query` occur in `doc` in order at the same relative positions (a
// phrase). An empty query matches nothing.
bool ContainsPhrase(const std::vector<Token>& doc, const std::vector<Token>& query);

// True when some token of `query` is within `max_edits` Levenshtein edits (insert, delete,
// substitute one character) of some token of `doc` (both unstemmed).
bool FuzzyMatches(const std::vector<Token>& doc, const std::vector<Token>& query, uint32_t max_edits);

// The Levenshtein distance of two UTF-8 strings in characters, or max_edits + 1 when it is larger.
uint32_t BoundedEditDistance(std::string_view a, std::string_view b, uint32_t max_edits);

// BM25 of one document: sum over the query terms of
//   idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * doc_len / avg_len)),
// idf(t) = ln((n_docs - df + 0.5) / (df + 0.5) + 1), k1 = 1.2, b = 0.75.
struct Bm25Term {
  double idf = 0;
  uint32_t tf = 0;  // occurrences in this document
};
double Bm25Score(const std::vector<Bm25Term>& terms, double doc_len, double avg_len);
double Bm25Idf(uint64_t n_docs, uint64_t doc_freq);

}  // namespace omnigraph::engine::search
