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
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/search/text.h"
#include "omnigraph/result.h"

namespace omnigraph::engine::search {

class TextIndex {
 public:
  // Indexes documents 0 .. n - 1 (nullopt = a null field, not a document).
  static TextIndex Build(size_t n, const std::function<std::optional<std::string_view>(size_t)>& doc);

  // Where one index's documents go in a merged one: docs[d] is document d's number there, or
  // kDropped (a deleted row).
  static constexpr uint32_t kDropped = UINT32_MAX;
  struct Part {
    const TextIndex* index = nullptr;
    std::vector<uint32_t> docs;  // one per document of *index
  };
  // The index of `n` documents made of `parts` (no text analyzed again): equal to Build over the
  // documents the parts map to (a document no part maps to is a null field). Precondition: every
  // mapped number is < n and used once.
  static TextIndex Merge(size_t n, const std::vector<Part>& parts);

  // The persisted form (a text index segment, docs/format/table.md): the index and the row
  // address of each document. Decode: `corrupt` (naming `key`) for damaged bytes, a failed
  // checksum or an inconsistent structure; `format_too_new` above kFormatVersion.
  static constexpr uint32_t kFormatVersion = 1;
  std::string Encode(std::span<const uint64_t> labels) const;
  struct Decoded;
  static Result<Decoded> Decode(std::string_view object, std::string_view key);

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
  void ComputeMemory();

  struct Posting {
    uint32_t doc;
    uint32_t tf;
    uint32_t first_position;  // into positions_: tf positions, ascending
  };
  std::unordered_map<std::string, std::vector<Posting>> terms_;
  std::vector<uint32_t> positions_;
  std::unordered_map<std::string, std::vector<uint32_t>> words_;  // unstemmed word -> documents
  std::vector<uint32_t> doc_len_;                                 // tokens per document
  std::vector<uint8_t> present_;                                  // 1: a document (non-null field)
  uint64_t docs_ = 0;                                             // non-null documents
  uint64_t total_tokens_ = 0;
  uint64_t memory_bytes_ = 0;
};

// A decoded text index segment: the index and its documents' row addresses.
struct TextIndex::Decoded {
  TextIndex index;
  std::vector<uint64_t> labels;
  uint64_t memory_bytes() const { return index.memory_bytes() + 8 * labels.size(); }
};

// The index kind a manifest's IndexSegmentMeta::kind names for a text segment, and its object's
// file name inside its idx/<ulid>/ folder.
inline constexpr std::string_view kTextIndexKind = "text";
inline constexpr std::string_view kTextIndexFile = "text.idx";

}  // namespace omnigraph::engine::search
