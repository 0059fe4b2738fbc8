// An in-memory inverted index of one String column (docs/search.md, "Indexes"): postings with
// positions per analyzed term, document lengths, and the unstemmed vocabulary for fuzzy(). Built
// from a table version's column and cached with it (GraphReadCache), so it is always the exact
// index of that version: a write makes a new version, and the next query builds its index.
// Immutable once built; thread-safe to read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/search/text.h"

namespace omnigraph::engine::search {

class TextIndex {
 public:
  // Indexes documents 0 .. n - 1 (nullopt = a null field, not a document).
  static TextIndex Build(size_t n, const std::function<std::optional<std::string_view>(size_t)>& doc);

  size_t size() const { return doc_len_.size(); }
  uint64_t memory_bytes() const { return memory_bytes_; }

  // The documents (ascending) that share a token with `query` (analyzed) / contain it as a phrase
  // / have a word within `max_edits` of a word of `query` (unstemmed).
  std::vector<uint32_t> MatchAny(const std::vector<Token>& query) const;
  std::vector<uint32_t> MatchPhrase(const std::vector<Token>& query) const;
  std::vector<uint32_t> MatchFuzzy(const std::vector<Token>& query, uint32_t max_edits) const;
  // The BM25 score of every document for `query_text` (0 without a query term), as Bm25Scores
  // over the same documents would give.
  std::vector<double> Bm25(std::string_view query_text) const;

 private:
  struct Posting {
    uint32_t doc;
    uint32_t tf;
    uint32_t first_position;  // into positions_: tf positions, ascending
  };
  std::unordered_map<std::string, std::vector<Posting>> terms_;
  std::vector<uint32_t> positions_;
  std::unordered_map<std::string, std::vector<uint32_t>> words_;  // unstemmed word -> documents
  std::vector<uint32_t> doc_len_;                                 // tokens per document
  uint64_t docs_ = 0;                                             // non-null documents
  uint64_t total_tokens_ = 0;
  uint64_t memory_bytes_ = 0;
};

}  // namespace omnigraph::engine::search
