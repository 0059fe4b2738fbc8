#include "engine/maintain/search_indexes.h"

#include <algorithm>
#include <set>
#include <unordered_set>
#include <utility>

#include "common/error_codes.h"
#include "common/ulid.h"
#include "table/scanner.h"
#include "table/table_writer.h"

namespace omnigraph::engine {

namespace {

// Writes a segment's one object (idx/<ulid>/<file>, one PutIfAbsent) and returns its manifest entry,
// covering every fragment of `version`.
Result<table::IndexSegmentMeta> StoreSegment(const table::TableVersion& version, std::string_view kind, uint32_t field,
                                             uint64_t entries, std::string_view file, std::string object,
                                             uint64_t* bytes) {
  table::IndexSegmentMeta meta;
  meta.kind = std::string(kind);
  meta.field_id = field;
  meta.entries = entries;
  for (const table::FragmentMeta& f : version.manifest().fragments) meta.fragment_ids.push_back(f.id);
  if (bytes != nullptr) *bytes = object.size();
  meta.keys.push_back("idx/" + NewUlidString() + "/" + std::string(file));
  OG_RETURN_IF_ERROR(version.store().PutIfAbsentMoved(version.AbsoluteKey(meta.keys[0]), std::move(object)));
  return meta;
}

// The newest segment of `kind` on `field`: in `m`, else (a compaction in the same write dropped it
// with the fragments it covered) in the version before.
const table::IndexSegmentMeta* OldSegment(const table::Manifest& m, std::string_view kind, uint32_t field,
                                          const Rewrites* rewrites) {
  const table::IndexSegmentMeta* old = nullptr;
  for (const table::Manifest* in : {&m, rewrites != nullptr ? rewrites->before : nullptr}) {
    if (in == nullptr || old != nullptr) continue;
    for (const table::IndexSegmentMeta& s : in->indexes) {
      if (s.kind == kind && s.field_id == field && !s.keys.empty() &&
          (old == nullptr || s.fragment_ids.size() > old->fragment_ids.size())) {
        old = &s;
      }
    }
  }
  return old;
}

constexpr uint64_t kGone = ~uint64_t{0};

// Where an older segment's rows are in `version`: per label its label now (itself; or where a
// compaction in the same write moved it, collected in `*renamed`), or kGone (deleted or rewritten
// since). `*covered`: the segment's fragments still present (their rows need no re-indexing).
Result<std::vector<uint64_t>> CarryLabels(const table::TableVersion& version, const table::IndexSegmentMeta& old,
                                          std::span<const uint64_t> labels, const Rewrites* rewrites,
                                          std::set<uint32_t>* covered, std::unordered_set<uint64_t>* renamed) {
  const table::Manifest& m = version.manifest();
  for (uint32_t fid : old.fragment_ids) {
    if (m.FindFragment(fid) != nullptr) covered->insert(fid);
  }
  std::vector<uint64_t> out;
  out.reserve(labels.size());
  for (uint64_t label : labels) {
    const table::FragmentMeta* f = m.FindFragment(table::RowAddressFragment(label));
    if ((f == nullptr || covered->count(f->id) == 0) && rewrites != nullptr) {
      // A row a compaction rewrote (live then): it keeps its place, renamed.
      auto at =
          std::lower_bound(rewrites->moved.begin(), rewrites->moved.end(), std::pair<uint64_t, uint64_t>(label, 0));
      if (at != rewrites->moved.end() && at->first == label) {
        renamed->insert(at->second);
        out.push_back(at->second);
        continue;
      }
    }
    bool live = f != nullptr && covered->count(f->id) > 0;
    if (live && f->deleted_rows > 0) {
      OG_ASSIGN_OR_RETURN(auto dv, version.LoadDeletion(*f));
      live = !dv->Contains(table::RowAddressOffset(label));
    }
    out.push_back(live ? label : kGone);
  }
  return out;
}

// The fragments of `version` not in `covered`, to index now.
std::vector<uint32_t> Uncovered(const table::TableVersion& version, const std::set<uint32_t>& covered) {
  std::vector<uint32_t> out;
  for (const table::FragmentMeta& f : version.manifest().fragments) {
    if (!covered.count(f.id)) out.push_back(f.id);
  }
  return out;
}

}  // namespace

Result<table::IndexSegmentMeta> WriteVectorSegment(const table::TableVersion& version, const std::string& column,
                                                   const search::HnswParams& params, uint64_t* bytes, bool* folded,
                                                   const Rewrites* rewrites) {
  if (folded != nullptr) *folded = false;
  const table::Field* field = version.schema().FindByName(column);
  if (field == nullptr || field->type.kind != TypeKind::kVector) {
    return InvalidArgumentError("'" + column + "' is not a Vector column of " + version.prefix());
  }
  const uint32_t dim = field->type.dimension;
  const table::Manifest& m = version.manifest();
  // The newest segment of the column, folded forward when most of what it indexes is still live:
  // its labels that are no longer live rows are marked deleted and the rows of the fragments it
  // does not cover are added. Otherwise (or when it cannot be read) a new build.
  std::optional<search::VectorIndex> base;
  std::set<uint32_t> covered;
  const table::IndexSegmentMeta* old = OldSegment(m, search::kVectorIndexKind, field->id, rewrites);
  std::vector<uint64_t> gone;
  std::vector<std::pair<uint64_t, uint64_t>> renames;
  std::unordered_set<uint64_t> renamed;  // new addresses of relabelled rows: already indexed
  if (old != nullptr) {
    const std::string key = version.AbsoluteKey(old->keys[0]);
    Result<std::string> object = version.store().Get(key);
    Result<search::VectorIndex> decoded =
        object.ok() ? search::VectorIndex::Decode(*object, dim, key) : Result<search::VectorIndex>(object.status());
    if (decoded.ok()) {
      const std::vector<uint64_t> labels = decoded->Labels();
      OG_ASSIGN_OR_RETURN(std::vector<uint64_t> now, CarryLabels(version, *old, labels, rewrites, &covered, &renamed));
      for (size_t d = 0; d < labels.size(); ++d) {
        if (now[d] == kGone) {
          gone.push_back(labels[d]);
        } else if (now[d] != labels[d]) {
          renames.emplace_back(labels[d], now[d]);
        }
      }
      // A graph of mostly dead waypoints searches badly: rebuild instead.
      if (4 * (decoded->deleted() + gone.size()) <= decoded->size()) base = std::move(*decoded);
    }
  }
  if (!base) {
    covered.clear();
    renamed.clear();
  }
  // The vectors to add: every non-null one of the fragments not covered, with its row address.
  std::vector<float> values;
  std::vector<uint64_t> labels;
  table::ScanOptions scan;
  scan.columns = std::vector<std::string>{column};
  scan.with_row_address = true;
  const std::vector<uint32_t> fresh = Uncovered(version, covered);
  if (!fresh.empty()) {
    scan.fragment_ids = fresh;
    OG_ASSIGN_OR_RETURN(std::unique_ptr<table::Scanner> scanner, version.Scan(std::move(scan)));
    while (true) {
      OG_ASSIGN_OR_RETURN(std::optional<format::Batch> batch, scanner->Next());
      if (!batch) break;
      const format::Column& vec = batch->column(0);
      std::span<const uint64_t> addr = batch->column(1).u64_values();
      for (size_t i = 0; i < batch->num_rows(); ++i) {
        if (!vec.IsValid(i) || renamed.count(addr[i])) continue;
        std::span<const float> v = vec.vector_at(i);
        values.insert(values.end(), v.begin(), v.end());
        labels.push_back(addr[i]);
      }
    }
  }
  auto vector_of = [&](size_t i) { return std::span<const float>(values.data() + i * dim, dim); };
  if (base) {
    OG_RETURN_IF_ERROR(base->Relabel(renames));
    OG_RETURN_IF_ERROR(base->Extend(gone, labels, vector_of));
    if (folded != nullptr) *folded = true;
  } else {
    OG_ASSIGN_OR_RETURN(search::VectorIndex built, search::VectorIndex::Build(dim, labels, vector_of, params));
    base = std::move(built);
  }
  OG_ASSIGN_OR_RETURN(std::string object, base->Encode());
  return StoreSegment(version, search::kVectorIndexKind, field->id, base->size() - base->deleted(),
                      search::kVectorIndexFile, std::move(object), bytes);
}

Result<table::IndexSegmentMeta> WriteTextSegment(const table::TableVersion& version, const std::string& column,
                                                 uint64_t* bytes, bool* folded, const Rewrites* rewrites) {
  if (folded != nullptr) *folded = false;
  const table::Field* field = version.schema().FindByName(column);
  if (field == nullptr || field->type.kind != TypeKind::kString) {
    return InvalidArgumentError("'" + column + "' is not a String column of " + version.prefix());
  }
  // The newest segment, carried forward while at most a quarter of it is dead: its documents
  // renumbered (dead ones dropped, moved ones relabelled), no text analyzed again.
  std::set<uint32_t> covered;
  std::unordered_set<uint64_t> renamed;
  std::shared_ptr<const search::TextIndex::Decoded> base;
  search::TextIndex::Part from_base;
  std::vector<uint64_t> labels;  // of the new segment's documents
  if (const table::IndexSegmentMeta* old =
          OldSegment(version.manifest(), search::kTextIndexKind, field->id, rewrites)) {
    const std::string key = version.AbsoluteKey(old->keys[0]);
    Result<std::string> object = version.store().Get(key);
    Result<search::TextIndex::Decoded> decoded =
        object.ok() ? search::TextIndex::Decode(*object, key) : Result<search::TextIndex::Decoded>(object.status());
    if (decoded.ok()) {
      OG_ASSIGN_OR_RETURN(std::vector<uint64_t> now,
                          CarryLabels(version, *old, decoded->labels, rewrites, &covered, &renamed));
      const auto dead = static_cast<size_t>(std::count(now.begin(), now.end(), kGone));
      if (4 * dead <= now.size()) {
        base = std::make_shared<const search::TextIndex::Decoded>(std::move(*decoded));
        from_base.index = &base->index;
        for (uint64_t label : now) {
          from_base.docs.push_back(label == kGone ? search::TextIndex::kDropped : static_cast<uint32_t>(labels.size()));
          if (label != kGone) labels.push_back(label);
        }
      } else {
        covered.clear();
        renamed.clear();
      }
    }
  }
  // The rows to analyze: those of the fragments not covered (rows a compaction moved excepted),
  // batch by batch (the index views the batches' strings).
  std::vector<format::Batch> batches;
  std::vector<std::pair<size_t, size_t>> at;  // document -> (batch, row)
  search::TextIndex::Part from_delta;
  const std::vector<uint32_t> fresh = Uncovered(version, covered);
  if (!fresh.empty()) {
    table::ScanOptions scan;
    scan.columns = std::vector<std::string>{column};
    scan.with_row_address = true;
    scan.fragment_ids = fresh;
    OG_ASSIGN_OR_RETURN(std::unique_ptr<table::Scanner> scanner, version.Scan(std::move(scan)));
    while (true) {
      OG_ASSIGN_OR_RETURN(std::optional<format::Batch> batch, scanner->Next());
      if (!batch) break;
      std::span<const uint64_t> addr = batch->column(1).u64_values();
      for (size_t i = 0; i < batch->num_rows(); ++i) {
        if (renamed.count(addr[i])) continue;
        at.emplace_back(batches.size(), i);
        from_delta.docs.push_back(static_cast<uint32_t>(labels.size()));
        labels.push_back(addr[i]);
      }
      batches.push_back(std::move(*batch));
    }
  }
  const search::TextIndex delta = search::TextIndex::Build(at.size(), [&](size_t d) -> std::optional<std::string_view> {
    const format::Column& col = batches[at[d].first].column(0);
    if (!col.IsValid(at[d].second)) return std::nullopt;
    return col.string_at(at[d].second);
  });
  from_delta.index = &delta;
  std::string object;
  if (base) {
    object = search::TextIndex::Merge(labels.size(), {from_base, from_delta}).Encode(labels);
    if (folded != nullptr) *folded = true;
  } else {
    object = delta.Encode(labels);
  }
  return StoreSegment(version, search::kTextIndexKind, field->id, labels.size(), search::kTextIndexFile,
                      std::move(object), bytes);
}

namespace {

// Whether `version` has one segment of `kind` on `field` covering every fragment.
bool Covered(const table::TableVersion& version, std::string_view kind, uint32_t field) {
  const table::Manifest& m = version.manifest();
  for (const table::IndexSegmentMeta& s : m.indexes) {
    if (s.kind != kind || s.field_id != field) continue;
    if (s.fragment_ids.size() != m.fragments.size()) continue;
    bool all = true;
    for (size_t i = 0; i < m.fragments.size() && all; ++i) all = s.fragment_ids[i] == m.fragments[i].id;
    if (all) return true;
  }
  return false;
}

}  // namespace

Result<std::optional<table::TableVersion>> IndexTable(const table::TableVersion& version, const std::string& type,
                                                      const std::vector<compiler::Property>& props,
                                                      const search::HnswParams& params,
                                                      std::vector<SearchIndexStatus>* statuses,
                                                      const Rewrites* rewrites) {
  std::optional<table::TableVersion> current;
  for (const compiler::Property& p : props) {
    const bool vector = p.index == compiler::IndexKind::kVector && p.type.kind == TypeKind::kVector;
    const bool text = p.index == compiler::IndexKind::kFullText && p.type.kind == TypeKind::kString && !p.is_enum();
    if (!vector && !text) continue;
    const std::string_view kind = vector ? search::kVectorIndexKind : search::kTextIndexKind;
    const table::TableVersion& at = current ? *current : version;
    const table::Field* field = at.schema().FindByName(p.name);
    if (field == nullptr) continue;
    SearchIndexStatus st;
    st.type_name = type;
    st.property = p.name;
    st.kind = std::string(kind);
    if (!Covered(at, kind, field->id)) {
      OG_ASSIGN_OR_RETURN(table::IndexSegmentMeta seg,
                          vector ? WriteVectorSegment(at, p.name, params, &st.bytes, &st.folded, rewrites)
                                 : WriteTextSegment(at, p.name, &st.bytes, &st.folded, rewrites));
      st.built = true;
      st.rows = seg.entries;
      OG_ASSIGN_OR_RETURN(table::TableVersion next, table::ReplaceIndexSegments(at, std::move(seg)));
      current = std::move(next);
    }
    statuses->push_back(std::move(st));
  }
  return current;
}

Result<SearchIndexBuild> BuildSearchIndexes(Graph& graph, const std::string& branch, const search::HnswParams& params) {
  SearchIndexBuild out;
  WriteRequest req;
  req.branch = branch;
  req.kind = WriteKind::kConstructive;
  req.prepare = [&](const Snapshot& snap) -> Result<PreparedWrite> {
    out.indexes.clear();
    PreparedWrite w;
    w.operation = std::string(kOptimizeOperation);
    auto build = [&](const std::string& type, const std::vector<compiler::Property>& props) -> Status {
      OG_ASSIGN_OR_RETURN(table::TableVersion t, snap.Table(type));
      OG_ASSIGN_OR_RETURN(std::optional<table::TableVersion> next, IndexTable(t, type, props, params, &out.indexes));
      if (next) w.tables.insert_or_assign(type, std::move(*next));
      return Status::Ok();
    };
    for (const auto& n : snap.catalog().nodes()) OG_RETURN_IF_ERROR(build(n.name, n.properties));
    for (const auto& e : snap.catalog().edges()) OG_RETURN_IF_ERROR(build(e.name, e.properties));
    return w;
  };
  OG_ASSIGN_OR_RETURN(out.write, graph.Write(req));
  if (!out.write.committed) {
    for (SearchIndexStatus& s : out.indexes) s.built = false;
  }
  return out;
}

}  // namespace omnigraph::engine
