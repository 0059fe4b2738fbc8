#include "engine/search/text_index.h"

#include <algorithm>
#include <set>

#include "common/thread_pool.h"

namespace omnigraph::engine::search {

namespace {

std::vector<uint32_t> SortedUnique(std::vector<uint32_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

namespace {

// What one chunk of documents contributes: per term its (document, position) occurrences and per
// unstemmed word its documents, both in document order.
struct Partial {
  std::unordered_map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> occurrences;
  std::unordered_map<std::string, std::vector<uint32_t>> words;
  uint64_t docs = 0, tokens = 0;
};

}  // namespace

TextIndex TextIndex::Build(size_t n, const std::function<std::optional<std::string_view>(size_t)>& doc) {
  TextIndex idx;
  idx.doc_len_.assign(n, 0);
  // Documents are analyzed in chunks on the shared pool, then merged in chunk order, so every
  // list stays in document order.
  constexpr size_t kChunk = 4096;
  const size_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<Partial> parts(chunks);
  auto run = [&](size_t c) {
    Partial& part = parts[c];
    std::vector<Token> stemmed, unstemmed;
    for (size_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) {
      const std::optional<std::string_view> text = doc(i);
      if (!text) continue;
      ++part.docs;
      const auto d = static_cast<uint32_t>(i);
      AnalyzeBoth(*text, &stemmed, &unstemmed);
      idx.doc_len_[i] = static_cast<uint32_t>(stemmed.size());
      part.tokens += stemmed.size();
      for (Token& t : stemmed) part.occurrences[std::move(t.text)].emplace_back(d, t.position);
      for (Token& w : unstemmed) {
        std::vector<uint32_t>& docs = part.words[std::move(w.text)];
        if (docs.empty() || docs.back() != d) docs.push_back(d);
      }
    }
    return Status::Ok();
  };
  if (chunks < 2) {
    for (size_t c = 0; c < chunks; ++c) run(c).IgnoreError();
  } else {
    ThreadPool::Default().ParallelFor(chunks, run).IgnoreError();
  }
  std::unordered_map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> occurrences;
  for (Partial& part : parts) {
    idx.docs_ += part.docs;
    idx.total_tokens_ += part.tokens;
    for (auto& [term, occ] : part.occurrences) {
      auto& all = occurrences[term];
      if (all.empty()) {
        all = std::move(occ);
      } else {
        all.insert(all.end(), occ.begin(), occ.end());
      }
    }
    for (auto& [word, docs] : part.words) {
      auto& all = idx.words_[word];
      if (all.empty()) {
        all = std::move(docs);
      } else {
        all.insert(all.end(), docs.begin(), docs.end());
      }
    }
  }
  uint64_t bytes = 4 * uint64_t{n};
  for (auto& [term, occ] : occurrences) {
    std::vector<Posting>& list = idx.terms_[term];
    for (size_t k = 0; k < occ.size();) {  // occurrences arrive by document, positions ascending
      const uint32_t d = occ[k].first;
      Posting p{d, 0, static_cast<uint32_t>(idx.positions_.size())};
      for (; k < occ.size() && occ[k].first == d; ++k) {
        idx.positions_.push_back(occ[k].second);
        ++p.tf;
      }
      list.push_back(p);
    }
    bytes += term.size() + 48 + 12 * list.size();
  }
  for (const auto& [w, docs] : idx.words_) bytes += w.size() + 48 + 4 * docs.size();
  idx.memory_bytes_ = bytes + 4 * idx.positions_.size();
  return idx;
}

std::vector<uint32_t> TextIndex::MatchAny(const std::vector<Token>& query) const {
  std::vector<uint32_t> out;
  for (const Token& q : query) {
    auto it = terms_.find(q.text);
    if (it == terms_.end()) continue;
    for (const Posting& p : it->second) out.push_back(p.doc);
  }
  return SortedUnique(std::move(out));
}

std::vector<uint32_t> TextIndex::MatchPhrase(const std::vector<Token>& query) const {
  if (query.empty()) return {};
  std::vector<const std::vector<Posting>*> lists;
  for (const Token& q : query) {
    auto it = terms_.find(q.text);
    if (it == terms_.end()) return {};
    lists.push_back(&it->second);
  }
  // Documents holding every term (postings are by document, ascending), then the positions.
  std::vector<uint32_t> out;
  std::vector<size_t> at(lists.size(), 0);
  const uint32_t first = query.front().position;
  for (const Posting& head : *lists[0]) {
    std::vector<const Posting*> in_doc{&head};
    bool all = true;
    for (size_t k = 1; k < lists.size() && all; ++k) {
      const std::vector<Posting>& l = *lists[k];
      while (at[k] < l.size() && l[at[k]].doc < head.doc) ++at[k];
      all = at[k] < l.size() && l[at[k]].doc == head.doc;
      if (all) in_doc.push_back(&l[at[k]]);
    }
    if (!all) continue;
    for (uint32_t s = 0; s < head.tf; ++s) {
      const uint32_t start = positions_[head.first_position + s];
      bool phrase = true;
      for (size_t k = 1; k < in_doc.size() && phrase; ++k) {
        const uint32_t want = start + (query[k].position - first);
        const auto b = positions_.begin() + in_doc[k]->first_position;
        phrase = std::binary_search(b, b + in_doc[k]->tf, want);
      }
      if (phrase) {
        out.push_back(head.doc);
        break;
      }
    }
  }
  return out;
}

std::vector<uint32_t> TextIndex::MatchFuzzy(const std::vector<Token>& query, uint32_t max_edits) const {
  std::vector<uint32_t> out;
  for (const auto& [word, docs] : words_) {
    for (const Token& q : query) {
      if (BoundedEditDistance(word, q.text, max_edits) <= max_edits) {
        out.insert(out.end(), docs.begin(), docs.end());
        break;
      }
    }
  }
  return SortedUnique(std::move(out));
}

std::vector<double> TextIndex::Bm25(std::string_view query_text) const {
  std::vector<double> scores(doc_len_.size(), 0.0);
  if (docs_ == 0) return scores;
  std::vector<std::string> terms;
  for (Token& t : Analyze(query_text)) {
    if (std::find(terms.begin(), terms.end(), t.text) == terms.end()) terms.push_back(std::move(t.text));
  }
  const double avg = static_cast<double>(total_tokens_) / static_cast<double>(docs_);
  // Per document, its terms in query order (the same sum, in the same order, as Bm25Scores).
  std::unordered_map<uint32_t, std::vector<Bm25Term>> per_doc;
  for (size_t q = 0; q < terms.size(); ++q) {
    auto it = terms_.find(terms[q]);
    if (it == terms_.end()) continue;
    const double idf = Bm25Idf(docs_, it->second.size());
    for (const Posting& p : it->second) {
      std::vector<Bm25Term>& row = per_doc[p.doc];
      row.resize(terms.size());
      row[q] = Bm25Term{idf, p.tf};
    }
  }
  for (auto& [d, row] : per_doc) scores[d] = Bm25Score(row, static_cast<double>(doc_len_[d]), avg);
  return scores;
}

}  // namespace omnigraph::engine::search
