// Ranking over a set of rows for bm25() and rrf() (docs/search.md), shared by the executor and
// the reference evaluator so both rank alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace omnigraph::engine::search {

// The most rows a nearest() or rrf() ranking may ask for (its limit; more: resource_limit).
inline constexpr uint64_t kMaxRankedRows = 1'000'000;

// The BM25 score of every document of a corpus for `query`: statistics (document count, average
// length in analyzed tokens, document frequency of each distinct query term) over the non-null
// documents `doc(0) .. doc(n - 1)`. 0 for a document with no query term, a null one, or an empty
// query.
std::vector<double> Bm25Scores(size_t n, const std::function<std::optional<std::string_view>(size_t)>& doc,
                               std::string_view query);

// One arm of rrf(): a score per candidate entity (an entity may appear several times; its best
// score counts). `ascending`: lower is better (nearest); else higher is better (bm25), and an
// entity scoring 0 is not in the arm. `keep`: at most that many entities (0 = all). Ties go to the
// smaller `id`.
struct ArmEntry {
  int64_t entity;  // the entity's key (a row ordinal of its table)
  double score;
  std::string_view id;
};
// The arm's entities, best first.
std::vector<int64_t> RankArm(std::vector<ArmEntry> entries, bool ascending, size_t keep);

// Reciprocal rank fusion: sum over the arms an entity is in of 1 / (k + rank + 1), rank 0-based.
// Entities best first (fused score descending; ties: the primary arm's order, then entities only
// in the secondary arm in its order), with their scores.
struct Fused {
  int64_t entity;
  double score;
};
std::vector<Fused> FuseRrf(const std::vector<int64_t>& primary, const std::vector<int64_t>& secondary, double k);

}  // namespace omnigraph::engine::search
