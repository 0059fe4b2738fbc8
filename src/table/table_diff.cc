#include "table/table_diff.h"

#include <algorithm>

#include "common/error_codes.h"

namespace omnigraph::table {
namespace {

void AddLive(uint32_t fid, uint64_t rows, const format::DeletionVector& dv, std::vector<uint64_t>* out) {
  for (uint64_t r = 0; r < rows; ++r) {
    if (!dv.Contains(static_cast<uint32_t>(r))) out->push_back(MakeRowAddress(fid, static_cast<uint32_t>(r)));
  }
}

void AddRows(uint32_t fid, const format::DeletionVector& rows, std::vector<uint64_t>* out) {
  for (uint32_t r : rows.ToVector()) out->push_back(MakeRowAddress(fid, r));
}

}  // namespace

Result<TableDiff> DiffVersions(const TableVersion& from, const TableVersion& to) {
  if (from.prefix() != to.prefix()) {
    return InvalidArgumentError("diff: versions of different tables ('" + from.prefix() + "' vs '" + to.prefix() +
                                "')");
  }
  TableDiff d;
  const auto& a = from.manifest().fragments;
  const auto& b = to.manifest().fragments;
  auto load = [&](const TableVersion& v, const FragmentMeta& f) {
    if (!f.deletion_key.empty()) ++d.deletion_vectors_read;
    return v.LoadDeletion(f);
  };
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].id < b[j].id)) {
      OG_ASSIGN_OR_RETURN(auto dv, load(from, a[i]));
      AddLive(a[i].id, a[i].physical_rows, *dv, &d.deleted);
      ++i;
      continue;
    }
    if (i == a.size() || b[j].id < a[i].id) {
      OG_ASSIGN_OR_RETURN(auto dv, load(to, b[j]));
      AddLive(b[j].id, b[j].physical_rows, *dv, &d.inserted);
      ++j;
      continue;
    }
    const FragmentMeta& fa = a[i++];
    const FragmentMeta& fb = b[j++];
    if (fa.file_key != fb.file_key) {
      // Same id, different file (divergent lineages): entirely different rows.
      OG_ASSIGN_OR_RETURN(auto da, load(from, fa));
      OG_ASSIGN_OR_RETURN(auto db, load(to, fb));
      AddLive(fa.id, fa.physical_rows, *da, &d.deleted);
      AddLive(fb.id, fb.physical_rows, *db, &d.inserted);
      continue;
    }
    if (fa.deletion_key == fb.deletion_key) continue;  // unchanged: no reads
    OG_ASSIGN_OR_RETURN(auto da, load(from, fa));
    OG_ASSIGN_OR_RETURN(auto db, load(to, fb));
    AddRows(fa.id, db->Difference(*da), &d.deleted);   // deleted in `to` only
    AddRows(fa.id, da->Difference(*db), &d.inserted);  // deleted in `from` only (diffing backwards)
  }
  std::sort(d.deleted.begin(), d.deleted.end());
  std::sort(d.inserted.begin(), d.inserted.end());
  return d;
}

}  // namespace omnigraph::table
