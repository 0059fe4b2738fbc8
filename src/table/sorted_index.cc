#include "table/sorted_index.h"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <string>

#include "common/error_codes.h"
#include "format/deletion_vector.h"
#include "format/fragment_reader.h"
#include "table/table_cache.h"

namespace omnigraph::table {

namespace {

bool SortableKind(TypeKind k) {
  return k == TypeKind::kI32 || k == TypeKind::kI64 || k == TypeKind::kDate || k == TypeKind::kDateTime;
}

// The cache keys of a fragment's run and of its scan credit: by the fragment's file (never
// rewritten: a new file gets a new name) and the field.
std::string RunKey(const TableVersion& v, const FragmentMeta& f, FieldId field) {
  return "s:" + v.AbsoluteKey(f.file_key) + '\x1f' + std::to_string(field);
}
std::string CreditKey(const TableVersion& v, const FragmentMeta& f, FieldId field) {
  return "c:" + v.AbsoluteKey(f.file_key) + '\x1f' + std::to_string(field);
}

// Sorts (value, row) pairs given in row order by value, ties keeping row order: a stable LSD radix
// sort on the value's offset from the smallest, 16 bits a pass, as many passes as the values'
// spread needs (one for years or small codes, three for millisecond times over decades).
void SortRun(SortedRun* run) {
  const size_t n = run->values.size();
  if (n < 2) return;
  if (n < 4096) {
    std::vector<uint32_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0u);
    std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) { return run->values[a] < run->values[b]; });
    SortedRun out;
    out.values.reserve(n);
    out.rows.reserve(n);
    for (uint32_t i : idx) {
      out.values.push_back(run->values[i]);
      out.rows.push_back(run->rows[i]);
    }
    *run = std::move(out);
    return;
  }
  const auto [lo_it, hi_it] = std::minmax_element(run->values.begin(), run->values.end());
  const int64_t lo = *lo_it;
  const uint64_t spread = static_cast<uint64_t>(*hi_it) - static_cast<uint64_t>(lo);
  std::vector<uint64_t> keys(n), keys_tmp(n);
  std::vector<uint32_t> rows_tmp(n);
  for (size_t i = 0; i < n; ++i) keys[i] = static_cast<uint64_t>(run->values[i]) - static_cast<uint64_t>(lo);
  std::vector<uint32_t>& rows = run->rows;
  std::vector<size_t> count(size_t{1} << 16);
  for (int shift = 0; shift < 64 && (spread >> shift) != 0; shift += 16) {
    std::fill(count.begin(), count.end(), 0);
    for (uint64_t k : keys) ++count[(k >> shift) & 0xffff];
    size_t at = 0;
    for (size_t& c : count) {
      const size_t here = c;
      c = at;
      at += here;
    }
    for (size_t i = 0; i < n; ++i) {
      const size_t to = count[(keys[i] >> shift) & 0xffff]++;
      keys_tmp[to] = keys[i];
      rows_tmp[to] = rows[i];
    }
    keys.swap(keys_tmp);
    rows.swap(rows_tmp);
  }
  for (size_t i = 0; i < n; ++i) run->values[i] = static_cast<int64_t>(keys[i] + static_cast<uint64_t>(lo));
}

// A large fragment's scan credit (NoteSelectiveScan): rows its selective scans have read.
struct Credit {
  mutable std::atomic<uint64_t> rows{0};
};

}  // namespace

bool SortableField(const TableSchema& schema, FieldId field) {
  const Field* f = schema.FindById(field);
  return f != nullptr && SortableKind(f->type.kind);
}

Result<std::shared_ptr<const SortedRun>> BuildSortedRun(const TableVersion& version, const FragmentMeta& f,
                                                        FieldId field) {
  auto run = std::make_shared<SortedRun>();
  OG_ASSIGN_OR_RETURN(std::shared_ptr<const format::FragmentReader> reader, version.OpenFragment(f));
  if (!reader->ColumnIndex(field)) return std::shared_ptr<const SortedRun>(std::move(run));
  const FieldId ids[1] = {field};
  OG_ASSIGN_OR_RETURN(format::Batch batch, reader->ReadAll(ids));
  const format::Column& c = batch.column(0);
  if (!SortableKind(c.type().kind)) {
    return InvalidArgumentError("sorted index: field " + std::to_string(field) + " is not an integer or date column");
  }
  const size_t n = c.length();
  run->values.reserve(n - c.null_count());
  run->rows.reserve(n - c.null_count());
  auto add = [&](auto values) {
    for (size_t i = 0; i < n; ++i) {
      if (c.has_nulls() && !c.IsValid(i)) continue;
      run->values.push_back(static_cast<int64_t>(values[i]));
      run->rows.push_back(static_cast<uint32_t>(i));
    }
  };
  const TypeKind k = c.type().kind;
  if (k == TypeKind::kI32 || k == TypeKind::kDate) {
    add(c.i32_values());
  } else {
    add(c.i64_values());
  }
  SortRun(run.get());
  return std::shared_ptr<const SortedRun>(std::move(run));
}

void NoteSelectiveScan(const TableVersion& version, FieldId field) {
  if (version.cache() == nullptr) return;
  ByteLruCache& cache = version.cache()->sorted();
  for (const FragmentMeta& f : version.manifest().fragments) {
    if (f.live_rows() == 0) continue;
    const std::string key = CreditKey(version, f, field);
    std::shared_ptr<const Credit> credit = cache.Get<Credit>(key);
    if (credit == nullptr) {
      cache.Put(key, std::make_shared<const Credit>(), 128 + key.size());
      credit = cache.Get<Credit>(key);
      if (credit == nullptr) continue;  // evicted at once: a cache too small to hold runs anyway
    }
    credit->rows.fetch_add(f.physical_rows);
  }
}

namespace {

// Whether the fragment's statistics show that no row of `field` lies in `range` (no run needed).
bool StatsExclude(const FragmentMeta& f, FieldId field, IntRange range) {
  auto it = f.stats.find(field);
  if (it == f.stats.end()) return false;  // not recorded: look
  const ColumnStats& st = it->second;
  if (st.row_count > 0 && st.null_count == st.row_count) return true;
  if (!st.min || !st.max || st.min->is_null() || st.max->is_null()) return false;
  return st.max->int_value() < range.lo || st.min->int_value() > range.hi;
}

}  // namespace

Result<std::optional<std::vector<uint32_t>>> SortedPositions(const TableVersion& version, FieldId field, IntRange range,
                                                             uint64_t max_hits, SortedStats* stats) {
  using Answer = std::optional<std::vector<uint32_t>>;
  if (!SortableField(version.schema(), field)) {
    return InvalidArgumentError("sorted index: field " + std::to_string(field) + " is not an integer or date column");
  }
  if (range.lo > range.hi) return Answer(std::vector<uint32_t>());
  const auto& frags = version.manifest().fragments;
  TableCache* cache = version.cache().get();
  // The runs in the cache, and the rows of the fragments that would need one.
  std::vector<std::shared_ptr<const SortedRun>> runs(frags.size());
  std::vector<bool> needed(frags.size(), false);
  uint64_t missing_rows = 0;
  for (size_t i = 0; i < frags.size(); ++i) {
    const FragmentMeta& f = frags[i];
    if (f.live_rows() == 0 || StatsExclude(f, field, range)) continue;
    needed[i] = true;
    if (cache != nullptr) runs[i] = cache->sorted().Get<SortedRun>(RunKey(version, f, field));
    if (runs[i] != nullptr) {
      if (stats != nullptr) ++stats->runs_cached;
    } else {
      missing_rows += f.physical_rows;
    }
  }
  // Runs that would take more than half their cache's budget could not all stay: each query would
  // sort again. Such a table is scanned.
  uint64_t run_bytes = 0;
  for (size_t i = 0; i < frags.size(); ++i) run_bytes += needed[i] ? 12 * frags[i].physical_rows : 0;
  if (cache != nullptr && run_bytes > cache->sorted().stats().budget / 2) return Answer();
  // A missing run is built when selective scans of its fragment have paid for the sort
  // (NoteSelectiveScan), or when it is small and the missing runs together are a small part of
  // the table (a write's new fragments beside runs already built): never a sort of the whole
  // column for a property tested once.
  const bool small_ok = missing_rows * 8 <= version.row_count();
  for (size_t i = 0; i < frags.size(); ++i) {
    if (!needed[i] || runs[i] != nullptr) continue;
    const FragmentMeta& f = frags[i];
    if (!small_ok || f.physical_rows > kSmallRunRows) {
      std::shared_ptr<const Credit> credit =
          cache != nullptr ? cache->sorted().Get<Credit>(CreditKey(version, f, field)) : nullptr;
      if (credit == nullptr || credit->rows.load() < kScansBeforeRun * f.physical_rows) return Answer();
    }
  }
  std::vector<std::pair<size_t, size_t>> spans(frags.size());
  uint64_t may_match = 0;
  for (size_t i = 0; i < frags.size(); ++i) {
    if (!needed[i]) continue;
    if (runs[i] == nullptr) {
      OG_ASSIGN_OR_RETURN(runs[i], BuildSortedRun(version, frags[i], field));
      if (stats != nullptr) ++stats->runs_built;
      if (cache != nullptr) cache->sorted().Put(RunKey(version, frags[i], field), runs[i], runs[i]->memory_bytes());
    }
    const SortedRun& run = *runs[i];
    const auto b = std::lower_bound(run.values.begin(), run.values.end(), range.lo);
    const auto e = std::upper_bound(b, run.values.end(), range.hi);
    spans[i] = {static_cast<size_t>(b - run.values.begin()), static_cast<size_t>(e - run.values.begin())};
    may_match += spans[i].second - spans[i].first;
    if (may_match > max_hits) return Answer();
  }
  std::vector<uint32_t> out;
  out.reserve(may_match);
  uint64_t live_before = 0;  // positions of the fragments before this one
  std::vector<uint32_t> rows;
  for (size_t i = 0; i < frags.size(); ++i) {
    const FragmentMeta& f = frags[i];
    if (needed[i] && spans[i].second > spans[i].first) {
      rows.assign(runs[i]->rows.begin() + static_cast<std::ptrdiff_t>(spans[i].first),
                  runs[i]->rows.begin() + static_cast<std::ptrdiff_t>(spans[i].second));
      std::sort(rows.begin(), rows.end());
      if (f.deleted_rows == 0) {
        for (uint32_t r : rows) out.push_back(static_cast<uint32_t>(live_before + r));
      } else {
        OG_ASSIGN_OR_RETURN(std::shared_ptr<const format::DeletionVector> dv, version.LoadDeletion(f));
        if (rows.size() * 16 < f.deleted_rows) {  // few hits: a membership test and a rank each
          for (uint32_t r : rows) {
            if (dv->Contains(r)) continue;
            out.push_back(static_cast<uint32_t>(live_before + r - dv->CountInRange(0, r)));
          }
        } else {                                                 // else one merge with the deleted rows
          const std::vector<uint32_t> deleted = dv->ToVector();  // ascending
          size_t d = 0;
          for (uint32_t r : rows) {
            while (d < deleted.size() && deleted[d] < r) ++d;
            if (d < deleted.size() && deleted[d] == r) continue;
            out.push_back(static_cast<uint32_t>(live_before + r - d));
          }
        }
      }
    }
    live_before += f.live_rows();
  }
  if (stats != nullptr) stats->hits += out.size();
  return Answer(std::move(out));
}

}  // namespace omnigraph::table
