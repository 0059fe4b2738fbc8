#include "engine/adjacency.h"

#include <algorithm>
#include <numeric>

#include "common/error_codes.h"
#include "common/thread_pool.h"
#include "table/scanner.h"

namespace omnigraph::engine {

namespace {
Result<format::Column> ScanColumn(const table::TableVersion& v, const std::string& name,
                                  std::vector<uint64_t>* addresses) {
  table::ScanOptions o;
  o.columns = std::vector<std::string>{name};
  o.with_row_address = addresses != nullptr;
  OG_ASSIGN_OR_RETURN(format::Batch b, v.ScanAll(o));
  if (addresses != nullptr) {
    const format::Column* a = b.ColumnByName(table::kRowAddressColumn);
    if (a == nullptr) return InternalError("scan returned no row addresses");
    auto span = a->u64_values();
    addresses->assign(span.begin(), span.end());
  }
  if (b.num_columns() == 0) return InternalError("scan returned no column " + name);
  return b.column(0);
}
}  // namespace

Result<std::shared_ptr<const TableOrdinals>> TableOrdinals::Build(const table::TableVersion& version) {
  auto t = std::make_shared<TableOrdinals>();
  std::vector<uint64_t> addresses;
  OG_ASSIGN_OR_RETURN(t->ids_, ScanColumn(version, "id", &addresses));
  const uint32_t n = t->size();
  t->by_id_.reserve(n);
  t->by_address_.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    t->by_id_.emplace(t->ids_.string_at(i), i);  // keeps the first of duplicate ids
    t->by_address_.emplace_back(addresses[i], i);
  }
  std::sort(t->by_address_.begin(), t->by_address_.end());
  return std::shared_ptr<const TableOrdinals>(std::move(t));
}

std::optional<uint32_t> TableOrdinals::Find(std::string_view id) const {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return std::nullopt;
  return it->second;
}

std::optional<uint32_t> TableOrdinals::FromAddress(uint64_t address) const {
  auto it = std::lower_bound(by_address_.begin(), by_address_.end(),
                             std::pair<uint64_t, uint32_t>{address, 0});
  if (it == by_address_.end() || it->first != address) return std::nullopt;
  return it->second;
}

Result<std::shared_ptr<const Csr>> Csr::Build(const table::TableVersion& edges, const TableOrdinals& src,
                                              const TableOrdinals& dst, bool same_table) {
  table::ScanOptions o;
  o.columns = std::vector<std::string>{"src", "dst"};
  OG_ASSIGN_OR_RETURN(format::Batch b, edges.ScanAll(o));
  auto c = std::make_shared<Csr>();
  c->same_table_ = same_table;
  const uint32_t ns = src.size(), nd = dst.size();
  // (src ordinal, dst ordinal, edge ordinal) of every edge with live endpoints.
  std::vector<uint32_t> es, ed, ee;
  const size_t n = b.num_rows();
  es.reserve(n);
  ed.reserve(n);
  ee.reserve(n);
  if (n > 0) {
    // Endpoint ids -> ordinals (hash probes: the bulk of a cold build), in parallel chunks.
    const format::Column& sc = b.column(0);
    const format::Column& dc = b.column(1);
    constexpr uint32_t kMissing = UINT32_MAX;
    std::vector<uint32_t> so(n), dor(n);
    constexpr size_t kChunk = size_t{1} << 16;
    OG_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor((n + kChunk - 1) / kChunk, [&](size_t c) -> Status {
      for (size_t r = c * kChunk; r < std::min(n, (c + 1) * kChunk); ++r) {
        so[r] = src.Find(sc.string_at(r)).value_or(kMissing);
        dor[r] = dst.Find(dc.string_at(r)).value_or(kMissing);
      }
      return Status::Ok();
    }));
    for (size_t r = 0; r < n; ++r) {
      if (so[r] == kMissing || dor[r] == kMissing) continue;
      es.push_back(so[r]);
      ed.push_back(dor[r]);
      ee.push_back(static_cast<uint32_t>(r));
    }
  }
  auto fill = [&](const std::vector<uint32_t>& key, const std::vector<uint32_t>& other, uint32_t nkeys,
                  std::vector<uint64_t>* offsets, std::vector<uint32_t>* nodes, std::vector<uint32_t>* eds) {
    offsets->assign(static_cast<size_t>(nkeys) + 1, 0);
    for (uint32_t k : key) ++(*offsets)[k + 1];
    for (uint32_t i = 0; i < nkeys; ++i) (*offsets)[i + 1] += (*offsets)[i];
    std::vector<uint64_t> pos(offsets->begin(), offsets->end() - 1);
    nodes->resize(key.size());
    eds->resize(key.size());
    for (size_t i = 0; i < key.size(); ++i) {
      uint64_t p = pos[key[i]]++;
      (*nodes)[p] = other[i];
      (*eds)[p] = ee[i];
    }
    // Sort each list by (neighbour, edge ordinal).
    std::vector<std::pair<uint32_t, uint32_t>> tmp;
    for (uint32_t k = 0; k < nkeys; ++k) {
      uint64_t a = (*offsets)[k], z = (*offsets)[k + 1];
      if (z - a < 2) continue;
      tmp.clear();
      for (uint64_t p = a; p < z; ++p) tmp.emplace_back((*nodes)[p], (*eds)[p]);
      if (std::is_sorted(tmp.begin(), tmp.end())) continue;
      std::sort(tmp.begin(), tmp.end());
      for (uint64_t p = a; p < z; ++p) {
        (*nodes)[p] = tmp[p - a].first;
        (*eds)[p] = tmp[p - a].second;
      }
    }
  };
  OG_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor(2, [&](size_t side) -> Status {
    if (side == 0) fill(es, ed, ns, &c->out_offsets_, &c->out_nodes_, &c->out_edges_);
    else fill(ed, es, nd, &c->in_offsets_, &c->in_nodes_, &c->in_edges_);
    return Status::Ok();
  }));
  if (same_table) {
    c->self_loop_.assign(ns, false);
    for (size_t i = 0; i < es.size(); ++i) {
      if (es[i] == ed[i]) c->self_loop_[es[i]] = true;
    }
  }
  return std::shared_ptr<const Csr>(std::move(c));
}

bool Csr::HasEdge(uint32_t s, uint32_t d) const {
  if (s >= num_src()) return false;
  auto nodes = OutNodes(s);
  return std::binary_search(nodes.begin(), nodes.end(), d);
}

GraphReadCache& GraphReadCache::Default() {
  static GraphReadCache* cache = new GraphReadCache();
  return *cache;
}

Result<std::shared_ptr<const TableOrdinals>> GraphReadCache::Ordinals(const table::TableVersion& version) {
  std::string key = "o:" + Key(version);
  if (auto hit = cache_.Get<TableOrdinals>(key)) return hit;
  OG_ASSIGN_OR_RETURN(auto built, TableOrdinals::Build(version));
  cache_.Put(key, built, built->memory_bytes());
  return built;
}

Result<std::shared_ptr<const format::Column>> GraphReadCache::ColumnFor(const table::TableVersion& version,
                                                                        const std::string& column) {
  bool known = false;
  for (const auto& f : version.schema().fields) known = known || f.name == column;
  if (!known) return std::shared_ptr<const format::Column>();
  std::string key = "c:" + Key(version) + "/" + column;
  if (auto hit = cache_.Get<format::Column>(key)) return hit;
  OG_ASSIGN_OR_RETURN(format::Column c, ScanColumn(version, column, nullptr));
  auto built = std::make_shared<const format::Column>(std::move(c));
  cache_.Put(key, built, built->memory_bytes());
  return built;
}

Result<std::shared_ptr<const Csr>> GraphReadCache::CsrFor(const table::TableVersion& edges,
                                                          const table::TableVersion& src,
                                                          const table::TableVersion& dst) {
  std::string key = "a:" + Key(edges) + "|" + Key(src) + "|" + Key(dst);
  if (auto hit = cache_.Get<Csr>(key)) return hit;
  OG_ASSIGN_OR_RETURN(auto so, Ordinals(src));
  OG_ASSIGN_OR_RETURN(auto dso, Ordinals(dst));
  const bool same = Key(src) == Key(dst);
  OG_ASSIGN_OR_RETURN(auto built, Csr::Build(edges, *so, *dso, same));
  cache_.Put(key, built, built->memory_bytes());
  return built;
}

}  // namespace omnigraph::engine
