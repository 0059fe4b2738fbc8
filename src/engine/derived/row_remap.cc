#include "engine/derived/row_remap.h"

#include <algorithm>
#include <unordered_map>

namespace omnigraph::engine {

void RowRemap::Drop(uint32_t lo, uint32_t hi) {
  if (lo == hi) return;
  if (!ranges_.empty() && ranges_.back().second == lo) {
    ranges_.back().second = hi;
  } else {
    ranges_.emplace_back(lo, hi);
  }
}

void RowRemap::Finish() {
  cum_.clear();
  uint32_t total = 0;
  for (const auto& [lo, hi] : ranges_) cum_.push_back(total += hi - lo);
}

std::optional<uint64_t> RowRemap::SuffixStart(uint64_t old_rows) const {
  if (ranges_.empty()) return old_rows;
  if (ranges_.size() == 1 && ranges_[0].second == old_rows) return ranges_[0].first;
  return std::nullopt;
}

uint32_t RowRemap::Search(uint32_t e) const {
  // The last range starting at or before e.
  const size_t i = static_cast<size_t>(
      std::upper_bound(ranges_.begin(), ranges_.end(), e, [](uint32_t x, const auto& r) { return x < r.first; }) -
      ranges_.begin() - 1);
  return e < ranges_[i].second ? kDropped : e - cum_[i];
}

std::vector<uint32_t> RowRemap::Dense(uint64_t old_rows) const {
  std::vector<uint32_t> out(old_rows);
  uint32_t at = 0, shift = 0;
  auto keep = [&](uint64_t until) {
    for (; at < until; ++at) out[at] = at - shift;
  };
  for (const auto& [lo, hi] : ranges_) {
    keep(std::min<uint64_t>(lo, old_rows));
    for (; at < std::min<uint64_t>(hi, old_rows); ++at) out[at] = kDropped;
    shift += hi - lo;
  }
  keep(old_rows);
  return out;
}

Result<std::optional<VersionStep>> RelateVersions(const table::Manifest& before, const table::TableVersion& after) {
  using Nothing = std::optional<VersionStep>;
  const auto& bf = before.fragments;
  const auto& nf = after.manifest().fragments;
  std::unordered_map<uint32_t, size_t> in_new;
  for (size_t i = 0; i < nf.size(); ++i) in_new.emplace(nf[i].id, i);
  VersionStep step;
  // The kept fragments must open the new version, in `before`'s order, with the same rows.
  for (const auto& f : bf) {
    auto it = in_new.find(f.id);
    if (it == in_new.end()) continue;
    if (it->second != step.kept_fragments || nf[it->second].file_key != f.file_key ||
        nf[it->second].physical_rows != f.physical_rows) {
      return Nothing();
    }
    ++step.kept_fragments;
  }
  for (const auto& f : bf) step.old_rows += f.live_rows();
  if (step.old_rows >= UINT32_MAX) return Nothing();
  // Scan order: fragments in order, live rows in row order.
  uint32_t ob = 0, nb = 0;
  for (const auto& f : bf) {
    auto it = in_new.find(f.id);
    if (it == in_new.end()) {  // the whole fragment is gone
      step.remap.Drop(ob, static_cast<uint32_t>(ob + f.live_rows()));
      ob += static_cast<uint32_t>(f.live_rows());
      continue;
    }
    const table::FragmentMeta& g = nf[it->second];
    if (g.deletion_key == f.deletion_key) {  // the same rows live: consecutive
      ob += static_cast<uint32_t>(f.live_rows());
      nb += static_cast<uint32_t>(f.live_rows());
      continue;
    }
    // One table: its objects are shared. One that cannot be read (the old version's, removed by
    // cleanup since) only means the versions cannot be related: the caller builds.
    auto was_deleted = after.LoadDeletion(f);
    auto now_deleted = after.LoadDeletion(g);
    if (!was_deleted.ok() || !now_deleted.ok()) return Nothing();
    if (!(*was_deleted)->Difference(**now_deleted).empty()) return Nothing();  // a row came back: not a later version
    const std::vector<uint32_t> gone = (*now_deleted)->Difference(**was_deleted).ToVector();
    const std::vector<uint32_t> was = (*was_deleted)->ToVector();
    size_t wi = 0, gi = 0;
    uint32_t at = 0;  // the next row offset to account for
    // Between deleted rows the live ones are consecutive: count them in runs.
    while (at < f.physical_rows) {
      const uint32_t next_was = wi < was.size() ? was[wi] : static_cast<uint32_t>(f.physical_rows);
      const uint32_t next_gone = gi < gone.size() ? gone[gi] : static_cast<uint32_t>(f.physical_rows);
      const uint32_t stop = std::min(next_was, next_gone);
      ob += stop - at;
      nb += stop - at;
      at = stop;
      if (at == f.physical_rows) break;
      if (at == next_was) {
        ++wi;
      } else {
        step.remap.Drop(ob, ob + 1);
        ++ob;
        ++gi;
      }
      ++at;
    }
  }
  step.remap.Finish();
  if (ob != step.old_rows) return Nothing();
  step.kept_rows = nb;
  return Nothing(std::move(step));
}

SharedFragments::SharedFragments(const table::Manifest& a, const table::Manifest& b) {
  // Both lists ascend by id.
  auto i = a.fragments.begin(), j = b.fragments.begin();
  while (i != a.fragments.end() && j != b.fragments.end()) {
    if (i->id < j->id) {
      ++i;
    } else if (j->id < i->id) {
      ++j;
    } else {
      if (i->file_key == j->file_key) ids_.push_back(i->id);
      ++i;
      ++j;
    }
  }
}

bool SharedFragments::Holds(uint64_t address) const {
  return std::binary_search(ids_.begin(), ids_.end(), table::RowAddressFragment(address));
}

}  // namespace omnigraph::engine
