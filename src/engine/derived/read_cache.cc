#include "engine/derived/read_cache.h"

#include <algorithm>

#include "common/error_codes.h"
#include "common/hash.h"
#include "common/logging.h"
#include "common/open_addressing.h"
#include "common/thread_pool.h"
#include "engine/derived/adjacency_store.h"
#include "engine/derived/row_remap.h"
#include "engine/graph/graph_layout.h"

namespace omnigraph::engine {

GraphReadCache& GraphReadCache::Default() {
  static GraphReadCache* cache = new GraphReadCache();
  return *cache;
}

namespace {
bool AppendsOnly(const table::Manifest& before, const table::Manifest& after);
}  // namespace

GraphReadCache::Counts GraphReadCache::counts() const {
  Counts c;
  c.ordinals_built = ordinals_built_.load();
  c.ordinals_loaded = ordinals_loaded_.load();
  c.csrs_built = csrs_built_.load();
  c.csrs_loaded = csrs_loaded_.load();
  c.csrs_extended = csrs_extended_.load();
  c.ordinals_extended = ordinals_extended_.load();
  c.edge_ends_built = edge_ends_built_.load();
  c.edge_ends_shared = edge_ends_shared_.load();
  c.csr_bases = csr_bases_.load();
  c.sorted_answers = sorted_answers_.load();
  c.sorted_runs_built = sorted_runs_built_.load();
  c.written = written_.load();
  c.rejected = rejected_.load();
  return c;
}

Status GraphReadCache::first_write_error() const {
  MutexLock lock(&write_error_mu_);
  return first_write_error_;
}

void GraphReadCache::NoteWriteError(const std::string& object, const Status& s) {
  LogWarn("could not persist derived object " + object + ": " + s.ToString());
  MutexLock lock(&write_error_mu_);
  if (first_write_error_.ok()) first_write_error_ = s.WithContext("writing derived object " + object);
}

namespace {
// A persisted object that could not be used: the query goes on with a structure rebuilt from the
// tables (the source of truth).
void WarnUnusable(const Status& s) {
  LogWarn("ignoring a derived object (rebuilding it from the tables): " + s.ToString());
}
// Whether a rejected object is damaged and should be overwritten by a (writable) rebuild: yes for
// corrupt bytes; no for a newer format (a newer build wrote it and reads it) or a read error.
bool Replaceable(const Status& s) { return s.category() == StatusCode::kCorrupt; }
}  // namespace

Result<std::shared_ptr<const TableOrdinals>> GraphReadCache::Ordinals(const table::TableVersion& version,
                                                                      const DerivedStore& derived) {
  std::string key = "o:" + Key(version);
  auto remember = [&](const std::shared_ptr<const TableOrdinals>& o) {
    MutexLock lock(&latest_mu_);
    latest_ordinals_.insert_or_assign(version.prefix(), LatestOrdinals{version.shared_manifest(), o});
  };
  if (auto hit = cache_.Get<TableOrdinals>(key)) {
    remember(hit);
    return hit;
  }
  const std::string object = OrdinalsKey(version.prefix(), version.version_id());
  std::shared_ptr<const TableOrdinals> got;
  bool damaged = false;  // a persisted object this build should have read: replace it
  if (derived.store != nullptr) {
    auto loaded = ReadOrdinals(*derived.store, object, version.row_count());
    if (loaded.ok()) {
      got = *std::move(loaded);
      ordinals_loaded_.fetch_add(1);
    } else if (loaded.status().category() != StatusCode::kNotFound) {
      rejected_.fetch_add(1);
      WarnUnusable(loaded.status());
      damaged = Replaceable(loaded.status());
    }
  }
  if (got == nullptr) {  // a later version of the one served last (deletes, upserts, appends): in memory only
    std::optional<LatestOrdinals> last;
    {
      MutexLock lock(&latest_mu_);
      auto it = latest_ordinals_.find(version.prefix());
      if (it != latest_ordinals_.end()) last = it->second;
    }
    std::shared_ptr<const TableOrdinals> base = last ? last->ordinals.lock() : nullptr;
    // (Not when a persisted object was found damaged: the build below replaces it.)
    if (base != nullptr && !damaged && last->manifest->version_id != version.version_id()) {
      OG_ASSIGN_OR_RETURN(auto extended, TableOrdinals::Extend(base, *last->manifest, version));
      if (extended != nullptr) {
        ordinals_extended_.fetch_add(1);
        cache_.Put(key, extended, extended->memory_bytes());
        remember(extended);
        return extended;
      }
    }
  }
  if (got == nullptr) {
    OG_ASSIGN_OR_RETURN(got, TableOrdinals::Build(version));
    ordinals_built_.fetch_add(1);
    if (derived.store != nullptr && derived.writable) {
      Status s = WriteOrdinals(*derived.store, object, *got, damaged);
      if (s.ok())
        written_.fetch_add(1);
      else
        NoteWriteError(object, s);
    }
  }
  cache_.Put(key, got, got->memory_bytes());
  remember(got);
  return got;
}

Result<std::shared_ptr<const format::Column>> GraphReadCache::ColumnFor(const table::TableVersion& version,
                                                                        const std::string& column) {
  const table::Field* field = version.schema().FindByName(column);
  if (field == nullptr) return std::shared_ptr<const format::Column>();
  auto remember = [&](const std::shared_ptr<const format::Column>& c) {
    MutexLock lock(&latest_mu_);
    latest_columns_.insert_or_assign(version.prefix() + "/" + column,
                                     LatestColumn{version.shared_manifest(), field->id, field->type.kind, c});
  };
  std::string key = "c:" + Key(version) + "/" + column;
  if (auto hit = cache_.Get<format::Column>(key)) {
    remember(hit);
    return hit;
  }
  OG_ASSIGN_OR_RETURN(format::Column c, ScanColumn(version, column, nullptr));
  auto built = std::make_shared<const format::Column>(std::move(c));
  cache_.Put(key, built, built->memory_bytes());
  remember(built);
  return built;
}

std::optional<GraphReadCache::EarlierOrdinals> GraphReadCache::EarlierOrdinalsFor(const table::TableVersion& version) {
  LatestOrdinals l;
  {
    MutexLock lock(&latest_mu_);
    auto it = latest_ordinals_.find(version.prefix());
    if (it == latest_ordinals_.end()) return std::nullopt;
    l = it->second;
  }
  if (l.manifest->version_id == version.version_id()) return std::nullopt;
  EarlierOrdinals e{l.ordinals.lock(), SharedFragments(*l.manifest, version.manifest())};
  if (e.ordinals == nullptr) return std::nullopt;
  return e;
}

std::optional<GraphReadCache::EarlierColumn> GraphReadCache::EarlierColumnFor(const table::TableVersion& version,
                                                                              const std::string& column) {
  const table::Field* field = version.schema().FindByName(column);
  if (field == nullptr) return std::nullopt;
  LatestColumn l;
  {
    MutexLock lock(&latest_mu_);
    auto it = latest_columns_.find(version.prefix() + "/" + column);
    if (it == latest_columns_.end()) return std::nullopt;
    l = it->second;
  }
  if (l.manifest->version_id == version.version_id() || l.field != field->id || l.kind != field->type.kind) {
    return std::nullopt;
  }
  EarlierColumn e{l.column.lock(), cache_.Get<TableOrdinals>("o:" + Key(version.prefix(), l.manifest->version_id)),
                  SharedFragments(*l.manifest, version.manifest())};
  if (e.column == nullptr || e.ordinals == nullptr || e.column->length() != e.ordinals->size()) return std::nullopt;
  return e;
}

StringCodes StringCodes::Build(const format::Column& column) {
  const size_t n = column.length();
  StringCodes out;
  out.code.assign(n, 0);
  std::vector<uint64_t> hashes(n);
  constexpr size_t kChunk = size_t{1} << 16;
  (void)ThreadPool::Default().ParallelFor((n + kChunk - 1) / kChunk, [&](size_t c) {
    for (size_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) {
      if (!column.IsNull(i)) hashes[i] = XxHash64(column.string_at(i));
    }
    return Status::Ok();
  });
  // Open addressing over (hash, first row of the value); at most half the slots used.
  struct Slot {
    uint64_t hash = 0;
    uint32_t code = 0;  // 0 = empty
    uint32_t row = 0;
  };
  std::vector<Slot> slots(1024);
  for (size_t i = 0; i < n; ++i) {
    if (column.IsNull(i)) continue;
    const std::string_view text = column.string_at(i);
    size_t mask = slots.size() - 1;
    size_t at = hashes[i] & mask;
    while (slots[at].code != 0 && !(slots[at].hash == hashes[i] && column.string_at(slots[at].row) == text)) {
      at = (at + 1) & mask;
    }
    if (slots[at].code == 0) {
      if (2 * (size_t{out.distinct} + 1) > slots.size()) {  // grow, then find the empty slot again
        DoubleOpenAddressing(&slots);
        mask = slots.size() - 1;
        at = hashes[i] & mask;
        while (slots[at].code != 0) at = (at + 1) & mask;
      }
      slots[at] = Slot{hashes[i], ++out.distinct, static_cast<uint32_t>(i)};
    }
    out.code[i] = slots[at].code;
  }
  return out;
}

Result<std::shared_ptr<const StringCodes>> GraphReadCache::StringCodesFor(const table::TableVersion& version,
                                                                          const std::string& column, bool build) {
  const std::string key = "s:" + Key(version) + "/" + column;
  if (auto hit = cache_.Get<StringCodes>(key)) return hit;
  if (!build) return std::shared_ptr<const StringCodes>();
  OG_ASSIGN_OR_RETURN(auto c, ColumnFor(version, column));
  if (c == nullptr || c->type().kind != TypeKind::kString) return std::shared_ptr<const StringCodes>();
  if (c->length() >= UINT32_MAX) return std::shared_ptr<const StringCodes>();  // rows numbered in 32 bits
  auto built = std::make_shared<const StringCodes>(StringCodes::Build(*c));
  cache_.Put(key, built, built->memory_bytes());
  return built;
}

std::shared_ptr<const format::Column> GraphReadCache::CachedColumn(const table::TableVersion& version,
                                                                   const std::string& column) {
  return cache_.Get<format::Column>("c:" + Key(version) + "/" + column);
}

bool GraphReadCache::AllowPointRead(const table::TableVersion& version, const std::string& column) {
  MutexLock lock(&point_mu_);
  if (point_reads_.size() > 4096) point_reads_.clear();  // bounded; forgetting only delays whole reads
  return ++point_reads_[Key(version) + "/" + column] <= kPointReadsBeforeWhole;
}

namespace {

// Whether `after` only appends rows to `before`: the same fragments with the same live rows, in
// order, then fragments without deletions. Ordinals are scan positions, so those of `before` are
// those of `after`'s first rows.
bool AppendsOnly(const table::Manifest& before, const table::Manifest& after) {
  if (after.fragments.size() < before.fragments.size()) return false;
  for (size_t i = 0; i < before.fragments.size(); ++i) {
    const table::FragmentMeta& a = before.fragments[i];
    const table::FragmentMeta& b = after.fragments[i];
    if (a.id != b.id || a.file_key != b.file_key || a.physical_rows != b.physical_rows ||
        a.deletion_key != b.deletion_key || a.deleted_rows != b.deleted_rows) {
      return false;
    }
  }
  for (size_t i = before.fragments.size(); i < after.fragments.size(); ++i) {
    if (after.fragments[i].deleted_rows != 0) return false;
  }
  return true;
}

// Whether `after` keeps some of `before`'s fragments, opening it in `before`'s order and unchanged
// but for deletions: RelateVersions' test of the fragments, without reading deletion vectors.
// After a compaction none is kept, and deriving a CSR from `before`'s costs a build.
bool KeepsFragments(const table::Manifest& before, const table::Manifest& after) {
  size_t kept = 0;
  for (const table::FragmentMeta& f : before.fragments) {
    // (Fragment ids ascend in a manifest.)
    auto it = std::lower_bound(after.fragments.begin(), after.fragments.end(), f.id,
                               [](const table::FragmentMeta& g, uint32_t id) { return g.id < id; });
    if (it == after.fragments.end() || it->id != f.id) continue;
    if (static_cast<size_t>(it - after.fragments.begin()) != kept || it->file_key != f.file_key ||
        it->physical_rows != f.physical_rows) {
      return false;
    }
    ++kept;
  }
  return kept > 0 || before.fragments.empty();
}

}  // namespace

std::shared_ptr<const EdgeEnds> GraphReadCache::EdgeEndsFor(const table::TableVersion& edges,
                                                            const table::TableVersion& src,
                                                            const table::TableVersion& dst, const Csr& csr) {
  const std::string key = EndsKey(edges, src, dst);
  if (auto hit = cache_.Get<EdgeEnds>(key)) return hit;
  std::shared_ptr<const EdgeEnds> ends;
  {
    // The same edge version over node versions that only appended rows (node inserts): the edge
    // ordinals and the old nodes' ordinals are unchanged, so are the endpoints.
    MutexLock lock(&latest_mu_);
    auto it = latest_ends_.find(edges.prefix());
    if (it != latest_ends_.end() && it->second.edges == Key(edges) && AppendsOnly(*it->second.src, src.manifest()) &&
        AppendsOnly(*it->second.dst, dst.manifest())) {
      ends = it->second.ends.lock();
    }
  }
  if (ends != nullptr && ends->ends.size() == csr.edge_rows()) {
    edge_ends_shared_.fetch_add(1);
  } else {
    ends = std::make_shared<const EdgeEnds>(EdgeEnds::Build(csr));
    edge_ends_built_.fetch_add(1);
  }
  cache_.Put(key, ends, ends->memory_bytes());
  MutexLock lock(&latest_mu_);
  latest_ends_.insert_or_assign(edges.prefix(),
                                LatestEnds{Key(edges), src.shared_manifest(), dst.shared_manifest(), ends});
  return ends;
}

bool GraphReadCache::OrdinalsAtHand(const table::TableVersion& version) {
  if (cache_.Get<TableOrdinals>("o:" + Key(version)) != nullptr) return true;
  LatestOrdinals last;
  {
    MutexLock lock(&latest_mu_);
    auto it = latest_ordinals_.find(version.prefix());
    if (it == latest_ordinals_.end()) return false;
    last = it->second;
  }
  const std::shared_ptr<const TableOrdinals> o = last.ordinals.lock();
  return o != nullptr && AppendsOnly(*last.manifest, version.manifest()) && version.row_count() >= o->size() &&
         o->CanAppend(version.row_count() - o->size());
}

bool GraphReadCache::CsrAtHand(const table::TableVersion& edges, const table::TableVersion& src,
                               const table::TableVersion& dst) {
  if (cache_.Get<Csr>("a:" + Key(edges) + "|" + Key(src) + "|" + Key(dst)) != nullptr) return true;
  LatestCsr l;
  bool ordinals_follow = true;  // Ordinals() extends from the versions the CSR is over
  {
    MutexLock lock(&latest_mu_);
    auto it = latest_csr_.find(edges.prefix());
    if (it == latest_csr_.end()) return false;
    l = it->second;
    // (Or the new versions' are served already.)
    for (const auto& [now, before] : {std::pair(&src, l.src), std::pair(&dst, l.dst)}) {
      auto o = latest_ordinals_.find(now->prefix());
      ordinals_follow =
          ordinals_follow && before != nullptr && o != latest_ordinals_.end() && !o->second.ordinals.expired() &&
          (o->second.manifest->version_id == before->version_id || o->second.manifest->version_id == now->version_id());
    }
  }
  const std::shared_ptr<const Csr> last = l.csr.lock();
  if (last == nullptr || l.edges == nullptr || !KeepsFragments(*l.edges, edges.manifest())) return false;
  if (l.nodes == Key(src) + "|" + Key(dst)) return true;
  // Node versions that only appended rows (node inserts) since, the ordinals served last being
  // those the CSR is over: the CSR carries over (Csr::ExtendNodes) and the ordinals gain a tail
  // (TableOrdinals::Append), both at about the cost of the new rows. (Only from a CSR whose
  // every edge has live endpoints, as CsrFor requires.)
  return ordinals_follow && last->num_edges() == last->edge_rows() && AppendsOnly(*l.src, src.manifest()) &&
         AppendsOnly(*l.dst, dst.manifest());
}

Result<std::optional<GraphReadCache::CsrBasis>> GraphReadCache::CsrBasisFor(const table::TableVersion& edges,
                                                                            const table::TableVersion& src,
                                                                            const table::TableVersion& dst) {
  using Nothing = std::optional<CsrBasis>;
  LatestCsr l;
  std::shared_ptr<const RowRemap> remap;
  {
    MutexLock lock(&latest_mu_);
    auto it = latest_csr_.find(edges.prefix());
    if (it == latest_csr_.end()) return Nothing();
    l = it->second;
    auto s = edge_steps_.find(edges.prefix());
    if (l.edges != nullptr && s != edge_steps_.end() && s->second.from == l.edges->version_id &&
        s->second.to == edges.version_id()) {
      remap = s->second.remap;
    }
  }
  if (l.edges == nullptr || l.src == nullptr || l.dst == nullptr) return Nothing();
  CsrBasis b;
  b.csr = l.csr.lock();
  // (Every edge with live endpoints: an edge the CSR left out could have a live endpoint now.)
  if (b.csr == nullptr || b.csr->num_edges() != b.csr->edge_rows() ||
      b.csr->same_table() != (src.prefix() == dst.prefix())) {
    return Nothing();
  }
  b.src = cache_.Get<TableOrdinals>("o:" + Key(src.prefix(), l.src->version_id));
  b.dst = cache_.Get<TableOrdinals>("o:" + Key(dst.prefix(), l.dst->version_id));
  if (b.src == nullptr || b.dst == nullptr || b.src->size() != b.csr->num_src() || b.dst->size() != b.csr->num_dst()) {
    return Nothing();
  }
  b.src_shared = SharedFragments(*l.src, src.manifest());
  b.dst_shared = SharedFragments(*l.dst, dst.manifest());
  if (l.edges->version_id == edges.version_id()) {
    csr_bases_.fetch_add(1);
    return Nothing(std::move(b));
  }
  if (remap == nullptr) {
    // Deletes only: the same fragments, no new one.
    OG_ASSIGN_OR_RETURN(std::optional<VersionStep> step, RelateVersions(*l.edges, edges));
    if (!step || step->kept_fragments != edges.manifest().fragments.size() || step->old_rows != b.csr->edge_rows() ||
        step->kept_rows != edges.row_count()) {
      return Nothing();
    }
    remap = std::make_shared<const RowRemap>(std::move(step->remap));
    MutexLock lock(&latest_mu_);
    edge_steps_.insert_or_assign(edges.prefix(), LatestEdgeStep{l.edges->version_id, edges.version_id(), remap});
  }
  b.edge_remap = std::move(remap);
  csr_bases_.fetch_add(1);
  return Nothing(std::move(b));
}

Result<std::optional<std::shared_ptr<const Csr>>> GraphReadCache::FollowNodes(
    const std::shared_ptr<const Csr>& base, const table::Manifest& old_src, const table::Manifest& old_dst,
    const table::TableVersion& src, const table::TableVersion& dst, const TableOrdinals& so, const TableOrdinals& dso,
    const RowRemap* edge_remap, uint64_t edge_rows, bool* edges_done) {
  using Nothing = std::optional<std::shared_ptr<const Csr>>;
  // Rows appended only (a node insert): the lists stay where they are.
  if (AppendsOnly(old_src, src.manifest()) && AppendsOnly(old_dst, dst.manifest())) {
    if (base->num_src() > so.size() || base->num_dst() > dso.size()) return Nothing();
    return Nothing(Csr::ExtendNodes(base, so.size(), dso.size()));
  }
  // Otherwise each side's old ordinals map to the new ones, from the old version's ordinals
  // (cached while that CSR was served; when evicted since, the caller builds).
  auto map_for = [&](const table::Manifest& old, const table::TableVersion& now, const TableOrdinals& now_ordinals,
                     uint32_t old_count) -> Result<std::optional<std::vector<uint32_t>>> {
    using Map = std::optional<std::vector<uint32_t>>;
    auto before = cache_.Get<TableOrdinals>("o:" + Key(now.prefix(), old.version_id));
    if (before == nullptr || before->size() != old_count) return Map();
    return NodeOrdinalMap(*before, old, now_ordinals, now);
  };
  std::optional<std::vector<uint32_t>> src_map, dst_map;
  const std::vector<uint32_t>*src_ptr = nullptr, *dst_ptr = nullptr;
  if (old_src.version_id != src.version_id()) {
    OG_ASSIGN_OR_RETURN(src_map, map_for(old_src, src, so, base->num_src()));
    if (!src_map) return Nothing();
    src_ptr = &*src_map;
  }
  if (base->same_table()) {
    dst_ptr = src_ptr;
  } else if (old_dst.version_id != dst.version_id()) {
    OG_ASSIGN_OR_RETURN(dst_map, map_for(old_dst, dst, dso, base->num_dst()));
    if (!dst_map) return Nothing();
    dst_ptr = &*dst_map;
  }
  OG_ASSIGN_OR_RETURN(auto moved,
                      Csr::RemapNodes(base, src_ptr, dst_ptr, so.size(), dso.size(), edge_remap, edge_rows));
  if (edge_remap != nullptr) *edges_done = true;
  return Nothing(std::move(moved));
}

Result<std::shared_ptr<const Csr>> GraphReadCache::CsrFor(const table::TableVersion& edges,
                                                          const table::TableVersion& src,
                                                          const table::TableVersion& dst, const DerivedStore& derived) {
  std::string key = "a:" + Key(edges) + "|" + Key(src) + "|" + Key(dst);
  const std::string nodes = Key(src) + "|" + Key(dst);
  auto remember = [&](const std::shared_ptr<const Csr>& csr) {
    MutexLock lock(&latest_mu_);
    latest_csr_.insert_or_assign(
        edges.prefix(), LatestCsr{edges.shared_manifest(), nodes, csr, src.shared_manifest(), dst.shared_manifest()});
  };
  if (auto hit = cache_.Get<Csr>(key)) {
    remember(hit);
    return hit;
  }
  const bool same = Key(src) == Key(dst);
  // Ordinals are scan positions, so a CSR is valid for exactly these three versions.
  const std::string object = CsrKey(edges.prefix(), edges.version_id(), src.version_id(), dst.version_id());
  const CsrShape shape{src.row_count(), dst.row_count(), edges.row_count(), same};
  std::shared_ptr<const Csr> got;
  bool damaged = false;
  if (derived.store != nullptr) {
    auto loaded = ReadCsr(*derived.store, object, shape);
    if (loaded.ok()) {
      got = *std::move(loaded);
      csrs_loaded_.fetch_add(1);
    } else if (loaded.status().category() != StatusCode::kNotFound) {
      rejected_.fetch_add(1);
      WarnUnusable(loaded.status());
      damaged = Replaceable(loaded.status());
    }
  }
  if (got == nullptr) {
    OG_ASSIGN_OR_RETURN(auto so, Ordinals(src, derived));
    OG_ASSIGN_OR_RETURN(auto dso, Ordinals(dst, derived));
    // A CSR derived from one served before: cached and remembered, never persisted.
    auto serve_derived = [&](std::shared_ptr<const Csr> derived_csr) {
      csrs_extended_.fetch_add(1);
      cache_.Put(key, derived_csr, derived_csr->memory_bytes());
      remember(derived_csr);
      return derived_csr;
    };
    std::optional<LatestCsr> latest, grown_from;
    {
      MutexLock lock(&latest_mu_);
      auto it = latest_csr_.find(edges.prefix());
      if (it != latest_csr_.end()) (it->second.nodes == nodes ? latest : grown_from) = it->second;
    }
    // Node versions that follow those of the CSR served last (node inserts, deletes, updates):
    // the lists carried over to the new node ordinals, then the edge table's own change, if any,
    // applied as for the same nodes. Only from a CSR whose every edge has live endpoints: a new
    // node could otherwise be the missing endpoint of an old edge.
    if (grown_from && grown_from->src != nullptr && grown_from->dst != nullptr) {
      auto base = grown_from->csr.lock();
      if (base != nullptr && base->same_table() == same && base->num_edges() == base->edge_rows()) {
        // An edge version that only deletes rows (a node delete's edges) is applied in the same
        // pass as the nodes' renumbering; any other edge change after it (Csr::Extend).
        std::optional<VersionStep> edge_step;
        // (Node appends only carry the lists over as they are: the edge change is Csr::Extend's,
        // which relates the edge versions itself.)
        const bool appends =
            AppendsOnly(*grown_from->src, src.manifest()) && AppendsOnly(*grown_from->dst, dst.manifest());
        if (!appends && grown_from->edges->version_id != edges.version_id()) {
          OG_ASSIGN_OR_RETURN(edge_step, RelateVersions(*grown_from->edges, edges));
          if (edge_step && (edge_step->kept_fragments != edges.manifest().fragments.size() ||
                            edge_step->old_rows != base->edge_rows() || edge_step->kept_rows != edges.row_count())) {
            edge_step.reset();
          }
        }
        bool edges_done = grown_from->edges->version_id == edges.version_id();
        OG_ASSIGN_OR_RETURN(std::optional<std::shared_ptr<const Csr>> grown,
                            FollowNodes(base, *grown_from->src, *grown_from->dst, src, dst, *so, *dso,
                                        edge_step ? &edge_step->remap : nullptr, edges.row_count(), &edges_done));
        if (grown && !edges_done) {
          OG_ASSIGN_OR_RETURN(grown, Csr::Extend(*grown, *grown_from->edges, edges, *so, *dso));
        }
        if (grown) return serve_derived(std::move(*grown));
      }
    }
    if (latest) {
      if (auto base = latest->csr.lock()) {
        OG_ASSIGN_OR_RETURN(auto extended, Csr::Extend(base, *latest->edges, edges, *so, *dso));
        if (extended) return serve_derived(std::move(*extended));
      }
    }
    OG_ASSIGN_OR_RETURN(got, Csr::Build(edges, *so, *dso, same));
    csrs_built_.fetch_add(1);
    if (derived.store != nullptr && derived.writable) {
      Status s = WriteCsr(*derived.store, object, *got, edges.row_count(), damaged);
      if (s.ok())
        written_.fetch_add(1);
      else
        NoteWriteError(object, s);
    }
  }
  cache_.Put(key, got, got->memory_bytes());
  remember(got);
  return got;
}

}  // namespace omnigraph::engine
