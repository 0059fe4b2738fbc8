// Csr::Extend (adjacency.h): the adjacency of a new version of an edge table from the adjacency of
// an earlier one, so that a small write costs the next traversal one pass over the arrays instead
// of a rebuild (reading the endpoint columns and looking up every endpoint id).
#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "engine/derived/adjacency.h"

namespace omnigraph::engine {

namespace {

constexpr uint32_t kDropped = UINT32_MAX;

// One side's arrays: base lists with edges renumbered by `map` (kDropped: gone), merged with
// `add` ((key, neighbour, edge) sorted), each list sorted by (neighbour, edge).
void MergeSide(std::span<const uint64_t> offsets, std::span<const uint32_t> nodes, std::span<const uint32_t> edges,
               const PodVector<uint32_t>& map, bool identity,
               const std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>& add, PodVector<uint64_t>* out_offsets,
               PodVector<uint32_t>* out_nodes, PodVector<uint32_t>* out_edges) {
  const size_t nkeys = offsets.size() - 1;
  out_offsets->resize(nkeys + 1);
  out_nodes->resize(0);
  out_edges->resize(0);
  out_nodes->reserve(nodes.size() + add.size());
  out_edges->reserve(nodes.size() + add.size());
  size_t j = 0;
  for (size_t k = 0; k < nkeys; ++k) {
    (*out_offsets)[k] = out_nodes->size();
    const uint64_t a = offsets[k], z = offsets[k + 1];
    if (identity && (j == add.size() || std::get<0>(add[j]) != k)) {  // unchanged list: copied
      out_nodes->insert(out_nodes->end(), nodes.begin() + a, nodes.begin() + z);
      out_edges->insert(out_edges->end(), edges.begin() + a, edges.begin() + z);
      continue;
    }
    uint64_t i = a;
    while (i < z || (j < add.size() && std::get<0>(add[j]) == k)) {
      const bool have_base = i < z;
      const bool have_add = j < add.size() && std::get<0>(add[j]) == k;
      const uint32_t be = have_base ? map[edges[i]] : kDropped;
      if (have_base && be == kDropped) {
        ++i;
        continue;
      }
      const bool take_base =
          have_base && (!have_add || std::pair(nodes[i], be) < std::pair(std::get<1>(add[j]), std::get<2>(add[j])));
      if (take_base) {
        out_nodes->push_back(nodes[i]);
        out_edges->push_back(be);
        ++i;
      } else {
        out_nodes->push_back(std::get<1>(add[j]));
        out_edges->push_back(std::get<2>(add[j]));
        ++j;
      }
    }
  }
  (*out_offsets)[nkeys] = out_nodes->size();
}

}  // namespace

Result<std::optional<std::shared_ptr<const Csr>>> Csr::Extend(const Csr& base, const table::Manifest& base_edges,
                                                              const table::TableVersion& edges,
                                                              const TableOrdinals& src, const TableOrdinals& dst) {
  using Nothing = std::optional<std::shared_ptr<const Csr>>;
  if (base.num_src() != src.size() || base.num_dst() != dst.size()) return Nothing();
  const auto& bf = base_edges.fragments;
  const auto& nf = edges.manifest().fragments;
  std::unordered_map<uint32_t, size_t> in_new;
  for (size_t i = 0; i < nf.size(); ++i) in_new.emplace(nf[i].id, i);
  // The kept fragments must open the new version, in base order, with the same rows.
  size_t kept = 0;
  for (const auto& f : bf) {
    auto it = in_new.find(f.id);
    if (it == in_new.end()) continue;
    if (it->second != kept || nf[kept].file_key != f.file_key || nf[kept].physical_rows != f.physical_rows) {
      return Nothing();
    }
    ++kept;
  }
  // Old edge ordinal -> new one (scan order: fragments in order, live rows in row order).
  uint64_t old_rows = 0;
  for (const auto& f : bf) old_rows += f.live_rows();
  PodVector<uint32_t> map(old_rows);
  bool identity = true;
  uint32_t ob = 0, nb = 0;
  for (const auto& f : bf) {
    auto it = in_new.find(f.id);
    if (it == in_new.end()) {  // the whole fragment is gone
      for (uint64_t r = 0; r < f.live_rows(); ++r) map[ob++] = kDropped;
      identity = identity && f.live_rows() == 0;
      continue;
    }
    const table::FragmentMeta& g = nf[it->second];
    if (g.deletion_key == f.deletion_key) {  // the same rows live: consecutive
      for (uint64_t r = 0; r < f.live_rows(); ++r) map[ob++] = nb++;
      continue;
    }
    OG_ASSIGN_OR_RETURN(auto before, edges.LoadDeletion(f));  // the same table: its objects are shared
    OG_ASSIGN_OR_RETURN(auto after, edges.LoadDeletion(g));
    if (!before->Difference(*after).empty()) return Nothing();  // a row came back: not a later version
    const std::vector<uint32_t> gone = after->Difference(*before).ToVector();
    const std::vector<uint32_t> was = before->ToVector();
    size_t wi = 0, gi = 0;
    for (uint32_t r = 0; r < f.physical_rows; ++r) {
      if (wi < was.size() && was[wi] == r) {
        ++wi;
        continue;
      }
      if (gi < gone.size() && gone[gi] == r) {
        ++gi;
        map[ob++] = kDropped;
        identity = false;
        continue;
      }
      map[ob++] = nb++;
    }
  }
  if (ob != old_rows) return Nothing();
  // The new fragments' edges, numbered after the kept ones.
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> out_add, in_add;  // (key, neighbour, edge)
  if (kept < nf.size()) {
    table::ScanOptions o;
    o.columns = std::vector<std::string>{"src", "dst"};
    o.fragment_ids.emplace();
    for (size_t i = kept; i < nf.size(); ++i) o.fragment_ids->push_back(nf[i].id);
    OG_ASSIGN_OR_RETURN(format::Batch b, edges.ScanAll(o));
    for (size_t r = 0; r < b.num_rows(); ++r) {
      const uint32_t e = nb + static_cast<uint32_t>(r);
      auto s = src.Find(b.column(0).string_at(r));
      auto d = dst.Find(b.column(1).string_at(r));
      if (!s || !d) continue;
      out_add.emplace_back(*s, *d, e);
      in_add.emplace_back(*d, *s, e);
    }
    std::sort(out_add.begin(), out_add.end());
    std::sort(in_add.begin(), in_add.end());
  }
  auto c = std::make_shared<Csr>();
  c->same_table_ = base.same_table_;
  Arrays& a = c->built_;
  MergeSide(base.out_offsets_, base.out_nodes_, base.out_edges_, map, identity, out_add, &a.out_offsets, &a.out_nodes,
            &a.out_edges);
  MergeSide(base.in_offsets_, base.in_nodes_, base.in_edges_, map, identity, in_add, &a.in_offsets, &a.in_nodes,
            &a.in_edges);
  if (c->same_table_) {
    a.self_loop.assign(base.self_loop_.begin(), base.self_loop_.end());
    if (!identity) {  // a dropped edge may have been a node's only self-loop: recompute
      std::fill(a.self_loop.begin(), a.self_loop.end(), 0);
      for (uint32_t s = 0; s + 1 < a.out_offsets.size(); ++s) {
        auto first = a.out_nodes.begin() + static_cast<std::ptrdiff_t>(a.out_offsets[s]);
        auto last = a.out_nodes.begin() + static_cast<std::ptrdiff_t>(a.out_offsets[s + 1]);
        if (std::binary_search(first, last, s)) a.self_loop[s / 64] |= uint64_t{1} << (s % 64);
      }
    }
    for (const auto& [s, d, e] : out_add) {
      if (s == d) a.self_loop[s / 64] |= uint64_t{1} << (s % 64);
    }
  }
  c->ViewBuilt();
  return Nothing(std::shared_ptr<const Csr>(std::move(c)));
}

}  // namespace omnigraph::engine
