// How the row ordinals (scan positions of live rows, adjacency.h) of one version of a table map to
// those of a later version written by deletes, upserts and appends: the derived structures of the
// earlier version (TableOrdinals, Csr) are carried over to the later one in one pass over memory
// instead of being built again from the tables (adjacency.cc, adjacency_delta.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "omnigraph/result.h"
#include "table/manifest.h"
#include "table/table_version.h"

namespace omnigraph::engine {

inline constexpr uint32_t kDropped = UINT32_MAX;

// Old ordinal -> new one: the kept rows keep their order, so a row's new ordinal is its old one
// minus the dropped rows before it. The dropped rows are a few ranges (a write deletes a few rows,
// or whole fragments), searched instead of a table over every row.
class RowRemap {
 public:
  // Marks old ordinals [lo, hi) dropped; ranges arrive ascending.
  void Drop(uint32_t lo, uint32_t hi);
  void Finish();
  bool identity() const { return ranges_.empty(); }
  // The first dropped ordinal when the dropped ones are exactly [start, old_rows) (or none:
  // old_rows), so that no kept row is renumbered; nullopt otherwise.
  std::optional<uint64_t> SuffixStart(uint64_t old_rows) const;
  uint32_t operator()(uint32_t e) const {
    if (ranges_.empty() || e < ranges_.front().first) return e;
    return Search(e);
  }
  // The dropped ranges [lo, hi), ascending and disjoint.
  const std::vector<std::pair<uint32_t, uint32_t>>& ranges() const { return ranges_; }
  // The map as an array over old ordinals [0, old_rows): entry o is (*this)(o).
  std::vector<uint32_t> Dense(uint64_t old_rows) const;

 private:
  uint32_t Search(uint32_t e) const;
  std::vector<std::pair<uint32_t, uint32_t>> ranges_;
  std::vector<uint32_t> cum_;  // dropped rows up to the end of each range
};

// The fragments two versions of a table share: the same id and the same file. A row address in
// one of them names the same immutable row in both versions (its id and values), so a structure
// of one version can answer for such rows of the other. Fragment ids are unique within a line of
// history only: two branches can give one id to different files, hence the file check.
class SharedFragments {
 public:
  SharedFragments() = default;
  SharedFragments(const table::Manifest& a, const table::Manifest& b);
  bool Holds(uint64_t address) const;

 private:
  std::vector<uint32_t> ids_;  // ascending
};

// How version `after` of a table follows a version with manifest `before`.
struct VersionStep {
  RowRemap remap;             // old ordinal -> new (kDropped: a deleted row)
  size_t kept_fragments = 0;  // after's fragments [0, kept_fragments) are before's, in order
  uint64_t old_rows = 0;      // before's live rows
  uint64_t kept_rows = 0;     // after's ordinals [0, kept_rows) are before's surviving rows
};

// The step when `after` keeps before's fragments that it still has, in before's order and first,
// each with the same file and the same or more deleted rows, and appends new ones (deletes,
// upserts and inserts do; compaction and overwrites do not): nullopt otherwise, and also when a
// deletion vector it needs cannot be read. Reads the deletion vectors of the fragments whose
// deletions changed.
Result<std::optional<VersionStep>> RelateVersions(const table::Manifest& before, const table::TableVersion& after);

}  // namespace omnigraph::engine
