#include "engine/search/rank.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "engine/search/text.h"

namespace omnigraph::engine::search {

std::vector<double> Bm25Scores(size_t n, const std::function<std::optional<std::string_view>(size_t)>& doc,
                               std::string_view query) {
  std::vector<double> scores(n, 0.0);
  std::vector<std::string> terms;
  for (Token& t : Analyze(query)) {
    if (std::find(terms.begin(), terms.end(), t.text) == terms.end()) terms.push_back(std::move(t.text));
  }
  if (terms.empty() || n == 0) return scores;
  // One pass over the corpus: each document's length and its counts of the query terms.
  std::vector<uint32_t> lengths(n, 0);
  std::vector<uint32_t> tf(n * terms.size(), 0);
  std::vector<uint64_t> df(terms.size(), 0);
  uint64_t docs = 0, total = 0;
  for (size_t i = 0; i < n; ++i) {
    const std::optional<std::string_view> text = doc(i);
    if (!text) continue;
    ++docs;
    const std::vector<Token> tokens = Analyze(*text);
    lengths[i] = static_cast<uint32_t>(tokens.size());
    total += tokens.size();
    for (const Token& t : tokens) {
      for (size_t q = 0; q < terms.size(); ++q) {
        if (t.text == terms[q]) ++tf[i * terms.size() + q];
      }
    }
    for (size_t q = 0; q < terms.size(); ++q) df[q] += tf[i * terms.size() + q] > 0 ? 1 : 0;
  }
  if (docs == 0) return scores;
  const double avg = static_cast<double>(total) / static_cast<double>(docs);
  std::vector<double> idf(terms.size());
  for (size_t q = 0; q < terms.size(); ++q) idf[q] = Bm25Idf(docs, df[q]);
  std::vector<Bm25Term> row(terms.size());
  for (size_t i = 0; i < n; ++i) {
    bool any = false;
    for (size_t q = 0; q < terms.size(); ++q) {
      row[q] = Bm25Term{idf[q], tf[i * terms.size() + q]};
      any = any || row[q].tf > 0;
    }
    if (any) scores[i] = Bm25Score(row, static_cast<double>(lengths[i]), avg);
  }
  return scores;
}

std::vector<int64_t> RankArm(std::vector<ArmEntry> entries, bool ascending, size_t keep) {
  // The best score of each entity.
  std::unordered_map<int64_t, size_t> best;
  std::vector<ArmEntry> unique;
  for (const ArmEntry& e : entries) {
    if (!ascending && !(e.score > 0)) continue;
    auto [it, fresh] = best.emplace(e.entity, unique.size());
    if (fresh) {
      unique.push_back(e);
    } else {
      ArmEntry& u = unique[it->second];
      if (ascending ? e.score < u.score : e.score > u.score) u.score = e.score;
    }
  }
  std::sort(unique.begin(), unique.end(), [ascending](const ArmEntry& a, const ArmEntry& b) {
    if (a.score != b.score) return ascending ? a.score < b.score : a.score > b.score;
    if (a.id != b.id) return a.id < b.id;
    return a.entity < b.entity;
  });
  if (keep > 0 && unique.size() > keep) unique.resize(keep);
  std::vector<int64_t> out;
  out.reserve(unique.size());
  for (const ArmEntry& e : unique) out.push_back(e.entity);
  return out;
}

std::vector<Fused> FuseRrf(const std::vector<int64_t>& primary, const std::vector<int64_t>& secondary, double k) {
  std::vector<Fused> out;
  std::unordered_map<int64_t, size_t> at;
  for (size_t r = 0; r < primary.size(); ++r) {
    at.emplace(primary[r], out.size());
    out.push_back(Fused{primary[r], 1.0 / (k + static_cast<double>(r) + 1.0)});
  }
  for (size_t r = 0; r < secondary.size(); ++r) {
    const double s = 1.0 / (k + static_cast<double>(r) + 1.0);
    auto [it, fresh] = at.emplace(secondary[r], out.size());
    if (fresh) {
      out.push_back(Fused{secondary[r], s});
    } else {
      out[it->second].score += s;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Fused& a, const Fused& b) { return a.score > b.score; });
  return out;
}

}  // namespace omnigraph::engine::search
