// Point access for the executor's Context (executor_internal.h): ordinals <-> row addresses
// through the manifest, id lookups through the key column's hash index, and the ranged reads of
// the values and ids of a few result rows. A cold point query (a key lookup, a short walk from
// one node) thus reads what it touches, not a table's whole ordinals or columns.
#include <algorithm>

#include "common/error_codes.h"
#include "common/logging.h"
#include "engine/exec/executor_internal.h"
#include "engine/graph/schema_store.h"
#include "table/index_probe.h"

namespace omnigraph::engine::exec {

using compiler::IrExpr;
using compiler::IrExprKind;

const TableOrdinals* Context::CachedOrdinals(const std::string& type) {
  if (const TableOrdinals* o = LoadedOrdinals(type)) return o;
  auto t = Table(type);
  if (!t.ok()) return nullptr;
  std::shared_ptr<const TableOrdinals> hit = cache_->CachedOrdinals(**t);
  if (hit == nullptr) return nullptr;
  return ordinals_.emplace(type, std::move(hit)).first->second.get();
}

Result<Context::RowMap*> Context::RowMapFor(const std::string& type) {
  auto it = row_maps_.find(type);
  if (it != row_maps_.end()) return &it->second;
  OG_ASSIGN_OR_RETURN(const table::TableVersion* t, Table(type));
  RowMap m;
  uint64_t live = 0;
  for (const auto& f : t->manifest().fragments) {
    m.live_before.push_back(live);
    live += f.live_rows();
  }
  m.live_before.push_back(live);
  return &row_maps_.emplace(type, std::move(m)).first->second;
}

Result<const std::vector<uint32_t>*> Context::DeletedRows(const std::string& type, RowMap& map, size_t fragment) {
  auto it = map.deleted.find(fragment);
  if (it != map.deleted.end()) return &it->second;
  OG_ASSIGN_OR_RETURN(const table::TableVersion* t, Table(type));
  OG_ASSIGN_OR_RETURN(auto dv, t->LoadDeletion(t->manifest().fragments[fragment]));
  return &map.deleted.emplace(fragment, dv->ToVector()).first->second;
}

Result<uint64_t> Context::AddressOf(const std::string& type, int64_t ordinal) {
  if (const TableOrdinals* ord = LoadedOrdinals(type)) return ord->address(static_cast<uint32_t>(ordinal));
  OG_ASSIGN_OR_RETURN(RowMap * map, RowMapFor(type));
  const auto o = static_cast<uint64_t>(ordinal);
  if (ordinal < 0 || o >= map->live_before.back()) return InternalError("ordinal out of range");
  // The fragment: the last whose live rows start at or before the ordinal (and holds some).
  const size_t f = static_cast<size_t>(std::upper_bound(map->live_before.begin(), map->live_before.end() - 1, o) -
                                       map->live_before.begin()) -
                   1;
  OG_ASSIGN_OR_RETURN(const table::TableVersion* t, Table(type));
  const table::FragmentMeta& meta = t->manifest().fragments[f];
  uint64_t offset = o - map->live_before[f];  // the k-th live row: skip the deleted ones at or before it
  if (meta.deleted_rows > 0) {
    OG_ASSIGN_OR_RETURN(const std::vector<uint32_t>* deleted, DeletedRows(type, *map, f));
    for (uint32_t d : *deleted) {
      if (d > offset) break;
      ++offset;
    }
  }
  return table::MakeRowAddress(meta.id, static_cast<uint32_t>(offset));
}

Result<std::optional<uint32_t>> Context::OrdinalOfAddress(const std::string& type, uint64_t address) {
  if (const TableOrdinals* ord = LoadedOrdinals(type)) return ord->FromAddress(address);
  OG_ASSIGN_OR_RETURN(RowMap * map, RowMapFor(type));
  OG_ASSIGN_OR_RETURN(const table::TableVersion* t, Table(type));
  const auto& frags = t->manifest().fragments;  // ascending ids
  const uint32_t fid = table::RowAddressFragment(address);
  auto it = std::lower_bound(frags.begin(), frags.end(), fid,
                             [](const table::FragmentMeta& m, uint32_t id) { return m.id < id; });
  if (it == frags.end() || it->id != fid) return std::optional<uint32_t>();
  const size_t f = static_cast<size_t>(it - frags.begin());
  const uint32_t offset = table::RowAddressOffset(address);
  if (offset >= it->physical_rows) return std::optional<uint32_t>();
  uint64_t before = 0;  // deleted rows before the offset
  if (it->deleted_rows > 0) {
    OG_ASSIGN_OR_RETURN(const std::vector<uint32_t>* deleted, DeletedRows(type, *map, f));
    auto at = std::lower_bound(deleted->begin(), deleted->end(), offset);
    if (at != deleted->end() && *at == offset) return std::optional<uint32_t>();
    before = static_cast<uint64_t>(at - deleted->begin());
  }
  return std::optional<uint32_t>(static_cast<uint32_t>(map->live_before[f] + offset - before));
}

Result<std::optional<uint32_t>> Context::FindId(const std::string& type, const std::string& id) {
  if (const TableOrdinals* ord = CachedOrdinals(type)) return ord->Find(id);
  OG_ASSIGN_OR_RETURN(const table::TableVersion* t, Table(type));
  if (cache_->OrdinalsAtHand(*t)) {  // a few rows appended to ordinals in memory (a node insert)
    OG_ASSIGN_OR_RETURN(const TableOrdinals* ord, Ordinals(type));
    return ord->Find(id);
  }
  // The row that held the id in ordinals of an earlier version, when it is still live here (rows
  // are immutable, ids unique): no probe, and no ordinals derived for this version.
  if (std::optional<GraphReadCache::EarlierOrdinals> earlier = cache_->EarlierOrdinalsFor(*t)) {
    if (std::optional<uint32_t> o = earlier->ordinals->Find(id)) {
      const uint64_t address = earlier->ordinals->address(*o);
      if (earlier->shared.Holds(address)) {
        OG_ASSIGN_OR_RETURN(std::optional<uint32_t> now, OrdinalOfAddress(type, address));
        if (now) return now;
      }
    }
  }
  // Probe only where ranged reads are cheap (on a remote store the whole ordinals object is one
  // round trip, a probe several), and only the first few times for a version: a table asked again
  // and again gets its ordinals loaded and kept, as a column read by point too often does.
  if (t->schema().key_field_id == 0 || !t->store().cheap_ranged_reads() ||
      !cache_->AllowPointRead(*t, "\x1fordinals")) {
    OG_ASSIGN_OR_RETURN(const TableOrdinals* ord, Ordinals(type));
    return ord->Find(id);
  }
  const std::string ids[1] = {id};
  OG_ASSIGN_OR_RETURN(auto found, table::ProbeIds(*t, ids));
  if (!found[0]) return std::optional<uint32_t>();
  return OrdinalOfAddress(type, *found[0]);
}

std::optional<std::string_view> Context::PointId(const std::string& type, int64_t ordinal) const {
  auto t = point_ids_.find(type);
  if (t == point_ids_.end()) return std::nullopt;
  auto it = t->second.find(ordinal);
  if (it == t->second.end()) return std::nullopt;
  return std::string_view(it->second);
}

Status Context::PrefetchIds(const std::string& type, std::vector<int64_t> ordinals) {
  if (CachedOrdinals(type) != nullptr) return Status::Ok();
  if (columns_.count(type + '\x1f' + "id")) return Status::Ok();
  OG_ASSIGN_OR_RETURN(const table::TableVersion* t, Table(type));
  if (cache_->CachedColumn(*t, "id") != nullptr) return Status::Ok();
  auto& known = point_ids_[type];
  std::erase_if(ordinals, [&](int64_t o) { return o < 0 || known.count(o) != 0; });
  std::sort(ordinals.begin(), ordinals.end());
  ordinals.erase(std::unique(ordinals.begin(), ordinals.end()), ordinals.end());
  if (ordinals.empty()) return Status::Ok();
  // The ids of rows an earlier version's ordinals in memory share (rows are immutable), the
  // others read by address.
  const std::optional<GraphReadCache::EarlierOrdinals> earlier = cache_->EarlierOrdinalsFor(*t);
  std::vector<int64_t> missing;
  std::vector<uint64_t> addresses;
  for (int64_t o : ordinals) {
    OG_ASSIGN_OR_RETURN(uint64_t a, AddressOf(type, o));
    if (earlier && earlier->shared.Holds(a)) {
      if (std::optional<uint32_t> before = earlier->ordinals->FromAddress(a)) {
        known.emplace(o, std::string(earlier->ordinals->id(*before)));
        continue;
      }
    }
    missing.push_back(o);
    addresses.push_back(a);
  }
  if (missing.empty()) return Status::Ok();
  OG_ASSIGN_OR_RETURN(format::Batch b, t->Take(addresses, std::vector<std::string>{"id"}));
  for (size_t i = 0; i < missing.size(); ++i) known.emplace(missing[i], std::string(b.column(0).string_at(i)));
  return Status::Ok();
}

Status Context::PrefetchPoints(const std::vector<const IrExpr*>& exprs, const Rows& rows,
                               std::span<const size_t> which) {
  for (const IrExpr* e : exprs) {
    if (e->kind == IrExprKind::kVariable && e->var >= 0 &&
        (q_.variables[e->var].kind == compiler::VarKind::kNode ||
         q_.variables[e->var].kind == compiler::VarKind::kEdge)) {
      std::vector<int64_t> ordinals;
      for (size_t i : which) ordinals.push_back(rows.row(i)[e->var]);
      OG_RETURN_IF_ERROR(PrefetchIds(TypeOf(e->var), std::move(ordinals)));
      continue;
    }
    if (e->kind != IrExprKind::kProperty || point_values_.count(e) || expr_columns_.count(e)) continue;
    const std::string& type = TypeOf(e->var);  // a node or an edge table: ordinals are live rows in both
    if (columns_.count(type + '\x1f' + e->property)) continue;
    OG_ASSIGN_OR_RETURN(const table::TableVersion* t, Table(type));
    if (t->schema().FindByName(e->property) == nullptr) continue;  // reads as null (Column)
    if (cache_->CachedColumn(*t, e->property) != nullptr) continue;
    // The column of an earlier version in memory: the rows live in both read from it, only the
    // others from storage (rows are immutable), without counting towards a whole read.
    const std::optional<GraphReadCache::EarlierColumn> earlier = cache_->EarlierColumnFor(*t, e->property);
    if (!earlier && !cache_->AllowPointRead(*t, e->property)) continue;  // asked for often: read it whole
    std::vector<int64_t> ordinals;
    for (size_t i : which) {
      const int64_t o = rows.row(i)[e->var];
      if (o >= 0) ordinals.push_back(o);
    }
    std::sort(ordinals.begin(), ordinals.end());
    ordinals.erase(std::unique(ordinals.begin(), ordinals.end()), ordinals.end());
    auto& values = point_values_[e];
    std::vector<int64_t> missing;
    std::vector<uint64_t> addresses;
    for (int64_t o : ordinals) {
      OG_ASSIGN_OR_RETURN(uint64_t a, AddressOf(type, o));
      if (earlier && earlier->shared.Holds(a)) {
        if (std::optional<uint32_t> before = earlier->ordinals->FromAddress(a)) {
          values.emplace(o, earlier->column->GetValue(*before));
          continue;
        }
      }
      missing.push_back(o);
      addresses.push_back(a);
    }
    if (missing.empty()) continue;
    OG_ASSIGN_OR_RETURN(format::Batch b, t->Take(addresses, std::vector<std::string>{e->property}));
    for (size_t i = 0; i < missing.size(); ++i) values.emplace(missing[i], b.column(0).GetValue(i));
  }
  return Status::Ok();
}

Result<std::optional<Context::PointLists>> Context::PointAdjacency(const std::string& edge_type, bool out,
                                                                   std::span<const uint32_t> keys) {
  using Nothing = std::optional<PointLists>;
  if (csrs_.count(edge_type) != 0 || keys.empty() || keys.size() > kTranslatedKeys) return Nothing();
  const compiler::EdgeType* e = snap_.catalog().FindEdge(edge_type);
  if (e == nullptr) return NotFoundError("unknown edge type " + edge_type);
  OG_ASSIGN_OR_RETURN(const table::TableVersion* et, Table(edge_type));
  OG_ASSIGN_OR_RETURN(const table::TableVersion* from, Table(e->from_type));
  OG_ASSIGN_OR_RETURN(const table::TableVersion* to, Table(e->to_type));
  const std::string& key_type = out ? e->from_type : e->to_type;
  const std::string& other_type = out ? e->to_type : e->from_type;
  if (cache_->CsrAtHand(*et, *from, *to)) return Nothing();
  // A CSR of earlier versions in memory (node deletes and updates since): its lists, by id.
  OG_ASSIGN_OR_RETURN(std::optional<GraphReadCache::CsrBasis> basis, cache_->CsrBasisFor(*et, *from, *to));
  if (basis) return TranslatedLists(*basis, edge_type, out, keys, key_type, other_type);
  if (keys.size() > kPointAdjacencyKeys) return Nothing();
  const table::TableVersion* other = out ? to : from;
  const std::string key_column(out ? kSrcColumn : kDstColumn), other_column(out ? kDstColumn : kSrcColumn);
  const table::Field* key_field = et->schema().FindByName(key_column);
  // (An index that leaves many rows uncovered, as one added by a schema change before the next
  // compaction, would make the probe a scan.)
  if (key_field == nullptr || !table::HasHashIndex(*et, key_field->id) || !et->store().cheap_ranged_reads() ||
      other->schema().key_field_id == 0 || table::UncoveredRows(*et, key_field->id) > kPointAdjacencyUncovered ||
      table::UncoveredRows(*other, other->schema().key_field_id) > kPointAdjacencyUncovered ||
      !cache_->AllowPointRead(*et, "\x1f" + from->version_id() + "|" + to->version_id())) {
    return Nothing();
  }
  // The keys' ids, then the edges holding them, in address order.
  if (CachedOrdinals(key_type) == nullptr) {
    OG_RETURN_IF_ERROR(PrefetchIds(key_type, std::vector<int64_t>(keys.begin(), keys.end())));
  }
  std::vector<std::string> ids;
  std::vector<Value> id_values;
  for (uint32_t k : keys) {
    OG_ASSIGN_OR_RETURN(std::string_view id, IdOf(key_type, k));
    ids.emplace_back(id);
    id_values.push_back(Value::String(std::string(id)));
  }
  // A probe that fails (a damaged or newer index segment) leaves the hop to the CSR, which the
  // tables rebuild: an index is never a reason for a read to fail.
  auto probed = table::ProbeColumn(*et, key_field->id, ids, table::Predicate::In(key_column, std::move(id_values)));
  if (!probed.ok()) {
    LogWarn("reading " + edge_type + " lists by point: " + probed.status().ToString() + "; using the CSR");
    return Nothing();
  }
  const std::vector<std::pair<size_t, uint64_t>>& hits = *probed;
  // A hub's many neighbours are cheaper through the CSR than probed one by one.
  if (hits.size() > kPointAdjacencyEdges) return Nothing();
  PointLists result;
  if (hits.empty()) return Nothing(std::move(result));
  std::vector<uint64_t> addresses;
  for (const auto& [which, address] : hits) addresses.push_back(address);
  OG_ASSIGN_OR_RETURN(format::Batch b, et->Take(addresses, std::vector<std::string>{other_column}));
  const format::Column& ends = b.column(0);
  // The other endpoints' ordinals, one lookup per distinct id (nullopt: not a live node).
  std::unordered_map<std::string, std::optional<uint32_t>> ordinal_of;
  for (size_t i = 0; i < ends.length(); ++i) ordinal_of.emplace(std::string(ends.string_at(i)), std::nullopt);
  if (const TableOrdinals* ord = CachedOrdinals(other_type)) {
    for (auto& [id, o] : ordinal_of) o = ord->Find(id);
  } else {  // the first row holding each id (lowest address: scan order), as the CSR binds it
    std::vector<std::string> distinct;
    std::vector<Value> distinct_values;
    for (const auto& [id, o] : ordinal_of) {
      distinct.push_back(id);
      distinct_values.push_back(Value::String(id));
    }
    const table::FieldId key = other->schema().key_field_id;
    auto found = table::ProbeColumn(
        *other, key, distinct, table::Predicate::In(other->schema().FindById(key)->name, std::move(distinct_values)));
    if (!found.ok()) {
      LogWarn("reading " + edge_type + " lists by point: " + found.status().ToString() + "; using the CSR");
      return Nothing();
    }
    for (const auto& [which, address] : *found) {  // sorted by address: the first per id wins
      std::optional<uint32_t>& o = ordinal_of[distinct[which]];
      if (o) continue;
      OG_ASSIGN_OR_RETURN(o, OrdinalOfAddress(other_type, address));
    }
  }
  for (size_t i = 0; i < hits.size(); ++i) {
    const std::optional<uint32_t> n = ordinal_of[std::string(ends.string_at(i))];
    if (!n) continue;
    OG_ASSIGN_OR_RETURN(std::optional<uint32_t> edge, OrdinalOfAddress(edge_type, addresses[i]));
    if (!edge) return InternalError("an index hit of " + edge_type + " is not a live row");
    PointLists::List& l = result.lists[keys[hits[i].first]];
    l.nodes.push_back(*n);
    l.edges.push_back(*edge);
  }
  for (auto& [k, l] : result.lists) {  // (neighbour, edge) order, as a CSR list
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (size_t i = 0; i < l.nodes.size(); ++i) pairs.emplace_back(l.nodes[i], l.edges[i]);
    std::sort(pairs.begin(), pairs.end());
    for (size_t i = 0; i < pairs.size(); ++i) std::tie(l.nodes[i], l.edges[i]) = pairs[i];
  }
  return Nothing(std::move(result));
}

Result<std::optional<Context::PointLists>> Context::TranslatedLists(const GraphReadCache::CsrBasis& b,
                                                                    const std::string& edge_type, bool out,
                                                                    std::span<const uint32_t> keys,
                                                                    const std::string& key_type,
                                                                    const std::string& other_type) {
  using Nothing = std::optional<PointLists>;
  const TableOrdinals& key_old = out ? *b.src : *b.dst;
  const TableOrdinals& other_old = out ? *b.dst : *b.src;
  const SharedFragments& other_shared = out ? b.dst_shared : b.src_shared;
  // Past this many list entries one pass over the arrays (deriving the CSR) costs less.
  const uint64_t budget = std::max<uint64_t>(kPointAdjacencyEdges, b.csr->num_edges() / 64);
  uint64_t& entries = translated_[edge_type];  // (this query's, over every call)
  if (entries > budget) return Nothing();
  const SharedFragments& key_shared = out ? b.src_shared : b.dst_shared;
  // Each key's ordinal in the CSR: its row's there when that row is shared, else its id's (an
  // update wrote the row again), read by point for those keys only.
  std::vector<std::optional<uint32_t>> old_keys(keys.size());
  std::vector<int64_t> by_id;
  for (size_t i = 0; i < keys.size(); ++i) {
    OG_ASSIGN_OR_RETURN(const uint64_t address, AddressOf(key_type, keys[i]));
    if (key_shared.Holds(address)) old_keys[i] = key_old.FromAddress(address);
    if (!old_keys[i]) by_id.push_back(keys[i]);
  }
  if (!by_id.empty() && CachedOrdinals(key_type) == nullptr) OG_RETURN_IF_ERROR(PrefetchIds(key_type, by_id));
  PointLists result;
  std::vector<std::pair<uint32_t, uint32_t>> pairs;  // (neighbour, edge)
  for (size_t j = 0; j < keys.size(); ++j) {
    const uint32_t k = keys[j];
    std::optional<uint32_t> o = old_keys[j];
    if (!o) {
      OG_ASSIGN_OR_RETURN(std::string_view id, IdOf(key_type, k));
      // A node the CSR's versions lack has no edges: every edge there had live endpoints, and
      // the edge table only deleted rows since.
      o = key_old.Find(id);
      if (!o) continue;
    }
    const std::span<const uint32_t> nodes = out ? b.csr->OutNodes(*o) : b.csr->InNodes(*o);
    const std::span<const uint32_t> edges = out ? b.csr->OutEdges(*o) : b.csr->InEdges(*o);
    entries += nodes.size();
    if (entries > budget) return Nothing();
    pairs.clear();
    for (size_t i = 0; i < nodes.size(); ++i) {
      uint32_t edge = edges[i];
      if (b.edge_remap != nullptr) {
        edge = (*b.edge_remap)(edge);
        if (edge == kDropped) continue;
      }
      // The neighbour's row where it was, if that fragment is shared and the row still live (rows
      // are immutable: the same id), else the row that holds its id now (an update wrote it
      // again), else none (deleted).
      const uint64_t address = other_old.address(nodes[i]);
      std::optional<uint32_t> n;
      if (other_shared.Holds(address)) {
        OG_ASSIGN_OR_RETURN(n, OrdinalOfAddress(other_type, address));
      }
      if (!n) {
        OG_ASSIGN_OR_RETURN(n, FindId(other_type, std::string(other_old.id(nodes[i]))));
        if (!n) continue;
      }
      pairs.emplace_back(*n, edge);
    }
    if (pairs.empty()) continue;
    std::sort(pairs.begin(), pairs.end());  // (neighbour, edge) order, as a CSR list
    PointLists::List& l = result.lists[k];
    for (const auto& [n, edge] : pairs) {
      l.nodes.push_back(n);
      l.edges.push_back(edge);
    }
  }
  return Nothing(std::move(result));
}

}  // namespace omnigraph::engine::exec
