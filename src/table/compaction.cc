#include "table/compaction.h"

#include <set>

#include "common/error_codes.h"
#include "table/batch_util.h"
#include "table/id_index.h"

namespace omnigraph::table {

Result<CompactResult> Compact(const TableVersion& base, const CompactOptions& options) {
  if (options.target_rows_per_fragment == 0)
    return InvalidArgumentError("compact: target_rows_per_fragment must be >= 1");
  const Manifest& bm = base.manifest();
  std::vector<const FragmentMeta*> candidates;
  bool any_deletes = false;
  const std::set<uint32_t> only(options.only_fragments.begin(), options.only_fragments.end());
  for (const FragmentMeta& f : bm.fragments) {
    if (!only.empty()) {
      if (only.count(f.id)) {
        candidates.push_back(&f);
        any_deletes |= f.deleted_rows > 0;
      }
      continue;
    }
    const bool small = f.live_rows() < options.small_fragment_rows;
    const bool heavy =
        f.physical_rows > 0 &&
        static_cast<double>(f.deleted_rows) >= options.max_deleted_fraction * static_cast<double>(f.physical_rows) &&
        f.deleted_rows > 0;
    if (small || heavy) {
      candidates.push_back(&f);
      any_deletes |= f.deleted_rows > 0;
    }
  }
  CompactResult result{false, base, 0, 0, 0, {}};
  if (candidates.empty() || (only.empty() && candidates.size() < options.min_candidates && !any_deletes)) {
    return result;
  }

  // Read the live rows of every candidate, in fragment order, with every current column.
  const std::vector<Field>& fields = bm.schema.fields;
  std::vector<format::Batch> rows;
  std::set<uint32_t> removed;
  for (const FragmentMeta* f : candidates) {
    removed.insert(f->id);
    OG_ASSIGN_OR_RETURN(auto reader, base.OpenFragment(*f));
    OG_ASSIGN_OR_RETURN(auto dv, base.LoadDeletion(*f));
    std::vector<FieldId> ids;
    for (const Field& fl : fields) {
      if (reader->ColumnIndex(fl.id)) ids.push_back(fl.id);
    }
    std::vector<uint64_t> live;
    live.reserve(f->live_rows());
    for (uint64_t r = 0; r < f->physical_rows; ++r) {
      if (!dv->Contains(static_cast<uint32_t>(r))) live.push_back(r);
    }
    for (uint64_t r : live) result.moved.emplace_back(MakeRowAddress(f->id, static_cast<uint32_t>(r)), 0);
    if (live.empty()) continue;
    format::Batch fb = format::Batch::NoColumns(live.size());
    if (!ids.empty()) {
      if (live.size() == f->physical_rows) {
        OG_ASSIGN_OR_RETURN(fb, reader->ReadAll(ids));
      } else {
        OG_ASSIGN_OR_RETURN(fb, reader->Take(ids, live));
      }
    }
    OG_ASSIGN_OR_RETURN(format::Batch b, FromFileBatch(fb, fields, live.size(), reader->key()));
    result.rows_rewritten += b.num_rows();
    rows.push_back(std::move(b));
  }

  Manifest m;
  m.schema = bm.schema;
  m.next_fragment_id = bm.next_fragment_id;
  std::set<uint32_t> kept;
  for (const FragmentMeta& f : bm.fragments) {
    if (!removed.count(f.id)) {
      m.fragments.push_back(f);
      kept.insert(f.id);
    }
  }
  for (const IndexSegmentMeta& s : bm.indexes) {
    IndexSegmentMeta ns = s;
    ns.fragment_ids.clear();
    for (uint32_t fid : s.fragment_ids) {
      if (kept.count(fid)) ns.fragment_ids.push_back(fid);
    }
    if (!ns.fragment_ids.empty()) m.indexes.push_back(std::move(ns));
  }
  std::vector<IndexFeed> feeds = IndexFeeds(m.schema);
  OG_ASSIGN_OR_RETURN(std::vector<PlannedFragment> fresh,
                      PlanFragments(base, rows, options.target_rows_per_fragment, options.target_bytes_per_fragment,
                                    &m.next_fragment_id, &feeds));
  std::vector<std::function<Status()>> effects;
  std::vector<uint32_t> fresh_ids;
  for (PlannedFragment& f : fresh) {
    fresh_ids.push_back(f.meta.id);
    effects.push_back([&] { return WritePlannedFragment(base, options.fragment, &f); });
  }
  // The rewritten rows' new addresses: the planned fragments hold them in the order they were read.
  size_t at = 0;
  for (const PlannedFragment& f : fresh) {
    for (uint64_t r = 0; r < f.meta.physical_rows && at < result.moved.size(); ++r) {
      result.moved[at++].second = MakeRowAddress(f.meta.id, static_cast<uint32_t>(r));
    }
  }
  if (at != result.moved.size()) return InternalError("compact: planned fragments do not hold every rewritten row");
  std::vector<MergedSegment> segments;
  AddIndexEffects(base, &feeds, kept, fresh_ids, m.indexes, &effects, &segments);
  OG_RETURN_IF_ERROR(RunEffects(effects));
  ApplyMergedSegments(std::move(segments), &m.indexes);
  for (PlannedFragment& f : fresh) m.fragments.push_back(std::move(f.meta));
  m.operation.kind = "compact";
  m.operation.note = std::to_string(removed.size()) + " fragments -> " + std::to_string(fresh.size());
  result.fragments_removed = removed.size();
  result.fragments_written = fresh.size();
  OG_ASSIGN_OR_RETURN(result.version, StageManifest(base, std::move(m)));
  result.changed = true;
  return result;
}

}  // namespace omnigraph::table
