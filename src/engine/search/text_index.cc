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
  idx.present_.assign(n, 0);
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
      idx.present_[i] = 1;
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
  }
  idx.ComputeMemory();
  return idx;
}

void TextIndex::ComputeMemory() {
  uint64_t bytes = 5 * uint64_t{doc_len_.size()} + 4 * positions_.size();
  for (const auto& [term, list] : terms_) bytes += term.size() + 48 + 12 * list.size();
  for (const auto& [w, docs] : words_) bytes += w.size() + 48 + 4 * docs.size();
  memory_bytes_ = bytes;
}

TextIndex TextIndex::Merge(size_t n, const std::vector<Part>& parts) {
  TextIndex idx;
  idx.doc_len_.assign(n, 0);
  idx.present_.assign(n, 0);
  for (const Part& part : parts) {
    const TextIndex& from = *part.index;
    for (size_t d = 0; d < from.doc_len_.size(); ++d) {
      const uint32_t to = part.docs[d];
      if (to == kDropped || !from.present_[d]) continue;
      idx.doc_len_[to] = from.doc_len_[d];
      idx.present_[to] = 1;
      ++idx.docs_;
      idx.total_tokens_ += from.doc_len_[d];
    }
    for (const auto& [term, list] : from.terms_) {
      std::vector<Posting>* out = nullptr;
      for (const Posting& p : list) {
        const uint32_t to = part.docs[p.doc];
        if (to == kDropped) continue;
        if (out == nullptr) out = &idx.terms_[term];
        out->push_back(Posting{to, p.tf, static_cast<uint32_t>(idx.positions_.size())});
        const auto b = from.positions_.begin() + p.first_position;
        idx.positions_.insert(idx.positions_.end(), b, b + p.tf);
      }
    }
    for (const auto& [word, docs] : from.words_) {
      std::vector<uint32_t>* out = nullptr;
      for (uint32_t d : docs) {
        const uint32_t to = part.docs[d];
        if (to == kDropped) continue;
        if (out == nullptr) out = &idx.words_[word];
        out->push_back(to);
      }
    }
  }
  // Lists stay by document when the parts map in order (the usual case); sort them otherwise.
  for (auto& [term, list] : idx.terms_) {
    auto by_doc = [](const Posting& a, const Posting& b) { return a.doc < b.doc; };
    if (!std::is_sorted(list.begin(), list.end(), by_doc)) std::sort(list.begin(), list.end(), by_doc);
  }
  for (auto& [word, docs] : idx.words_) {
    if (!std::is_sorted(docs.begin(), docs.end())) std::sort(docs.begin(), docs.end());
  }
  idx.ComputeMemory();
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
