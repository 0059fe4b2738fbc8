// Csr::Extend (adjacency.h): the adjacency of a new version of an edge table from the adjacency of
// an earlier one, so that a small write costs the next traversal one pass over the arrays instead
// of a rebuild (reading the endpoint columns and looking up every endpoint id).
#include <algorithm>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "common/error_codes.h"
#include "common/thread_pool.h"
#include "engine/derived/adjacency.h"
#include "engine/derived/row_remap.h"

namespace omnigraph::engine {

namespace {

// A node ordinal map (NodeOrdinalMap) read without touching it for most ordinals: below `lo` it
// is the identity, from `hi` on a shift by `d` (a write deletes or moves few nodes, so outside one
// window the map is one of those), and in [lo, hi) the array. Derived from the array, so exact.
struct ShiftedMap {
  uint32_t lo = UINT32_MAX, hi = UINT32_MAX, d = 0;
  const uint32_t* dense = nullptr;
  explicit ShiftedMap(const std::vector<uint32_t>* map) {
    if (map == nullptr) return;  // the identity
    const auto n = static_cast<uint32_t>(map->size());
    dense = map->data();
    lo = 0;
    while (lo < n && (*map)[lo] == lo) ++lo;
    hi = n;
    if (lo == n) return;
    const uint32_t last = (*map)[n - 1];
    if (last == kDropped || last > n - 1) return;  // no shifted tail: [lo, n) from the array
    d = n - 1 - last;
    while (hi > lo && (*map)[hi - 1] != kDropped && (*map)[hi - 1] + d == hi - 1) --hi;
  }
  uint32_t operator()(uint32_t o) const {
    if (o < lo) return o;
    if (o >= hi) return o - d;
    return dense[o];
  }
};

using Adds = std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>;  // (key, neighbour, edge), sorted

// One side's arrays: base lists with edges renumbered (dropped ones removed), merged with `add`,
// each list sorted by (neighbour, edge). `dropped_loop`: keys that lost an edge to themselves.
void MergeSide(std::span<const uint64_t> offsets, std::span<const uint32_t> nodes, std::span<const uint32_t> edges,
               const RowRemap& remap, const Adds& add, PodVector<uint64_t>* out_offsets, PodVector<uint32_t>* out_nodes,
               PodVector<uint32_t>* out_edges, std::vector<uint32_t>* dropped_loop) {
  const size_t nkeys = offsets.size() - 1;
  out_offsets->resize(nkeys + 1);
  out_nodes->resize(nodes.size() + add.size());
  out_edges->resize(nodes.size() + add.size());
  uint32_t* on = out_nodes->data();
  uint32_t* oe = out_edges->data();
  uint64_t w = 0;
  size_t j = 0;
  for (size_t k = 0; k < nkeys; ++k) {
    (*out_offsets)[k] = w;
    const uint64_t a = offsets[k], z = offsets[k + 1];
    const bool adds = j < add.size() && std::get<0>(add[j]) == k;
    if (!adds && remap.identity()) {  // unchanged list: copied
      std::copy(nodes.begin() + a, nodes.begin() + z, on + w);
      std::copy(edges.begin() + a, edges.begin() + z, oe + w);
      w += z - a;
      continue;
    }
    if (!adds) {  // renumbered, in order
      for (uint64_t i = a; i < z; ++i) {
        const uint32_t m = remap(edges[i]);
        if (m == kDropped) {
          if (nodes[i] == k) dropped_loop->push_back(static_cast<uint32_t>(k));
          continue;
        }
        on[w] = nodes[i];
        oe[w++] = m;
      }
      continue;
    }
    uint64_t i = a;
    while (i < z || (j < add.size() && std::get<0>(add[j]) == k)) {
      const bool have_base = i < z;
      const bool have_add = j < add.size() && std::get<0>(add[j]) == k;
      const uint32_t be = have_base ? remap(edges[i]) : kDropped;
      if (have_base && be == kDropped) {
        if (nodes[i] == k) dropped_loop->push_back(static_cast<uint32_t>(k));
        ++i;
        continue;
      }
      if (have_base && (!have_add || std::pair(nodes[i], be) < std::pair(std::get<1>(add[j]), std::get<2>(add[j])))) {
        on[w] = nodes[i];
        oe[w++] = be;
        ++i;
      } else {
        on[w] = std::get<1>(add[j]);
        oe[w++] = std::get<2>(add[j]);
        ++j;
      }
    }
  }
  (*out_offsets)[nkeys] = w;
  out_nodes->resize(w);
  out_edges->resize(w);
}

}  // namespace

std::shared_ptr<const Csr> Csr::Flatten(const Csr& c) {
  auto f = std::make_shared<Csr>();
  f->same_table_ = c.same_table_;
  f->edge_rows_ = c.edge_rows_;
  Arrays& a = f->built_;
  auto side = [](uint32_t keys, uint64_t edges, auto nodes_of, auto edges_of, PodVector<uint64_t>* offsets,
                 PodVector<uint32_t>* nodes, PodVector<uint32_t>* ids) {
    offsets->resize(uint64_t{keys} + 1);
    nodes->resize(edges);
    ids->resize(edges);
    uint64_t w = 0;
    for (uint32_t k = 0; k < keys; ++k) {
      (*offsets)[k] = w;
      const std::span<const uint32_t> n = nodes_of(k), e = edges_of(k);
      std::copy(n.begin(), n.end(), nodes->data() + w);
      std::copy(e.begin(), e.end(), ids->data() + w);
      w += n.size();
    }
    (*offsets)[keys] = w;
  };
  side(
      c.num_src(), c.num_edges(), [&](uint32_t k) { return c.OutNodes(k); }, [&](uint32_t k) { return c.OutEdges(k); },
      &a.out_offsets, &a.out_nodes, &a.out_edges);
  side(
      c.num_dst(), c.num_edges(), [&](uint32_t k) { return c.InNodes(k); }, [&](uint32_t k) { return c.InEdges(k); },
      &a.in_offsets, &a.in_nodes, &a.in_edges);
  a.self_loop.assign(c.self_loop_.begin(), c.self_loop_.end());
  f->ViewBuilt();
  return f;
}

std::optional<std::shared_ptr<const Csr>> Csr::ExtendOverlay(const std::shared_ptr<const Csr>& base, uint64_t keep,
                                                             uint64_t old_rows, uint64_t new_rows, const Adds& out_add,
                                                             const Adds& in_add) {
  const std::shared_ptr<const Csr>& flat = base->patch_ != nullptr ? base->patch_->flat : base;
  // Every edge of the flat arrays must keep its ordinal; dropped ones are later additions, and so
  // held only by the overlay's lists.
  if (keep < flat->edge_rows_) return std::nullopt;
  auto p = std::make_shared<Patch>();
  p->flat = flat;
  if (base->patch_ != nullptr) {
    p->out = base->patch_->out;  // the bitmaps, and the lists shared
    p->in = base->patch_->in;
  } else {
    p->out.bits.assign((uint64_t{base->num_src()} + 63) / 64, 0);
    p->in.bits.assign((uint64_t{base->num_dst()} + 63) / 64, 0);
  }
  uint64_t removed = 0;
  std::vector<uint32_t> lost_loops;  // sources that lost an edge to themselves
  auto update = [&](PatchSide& side, std::span<const uint64_t> offsets, std::span<const uint32_t> nodes,
                    std::span<const uint32_t> ids, const Adds& add, bool out) {
    if (keep < old_rows) {  // drop the overlay's edges from `keep` on
      for (auto it = side.lists.begin(); it != side.lists.end();) {
        const List& l = *it->second;
        if (std::none_of(l.edges.begin(), l.edges.end(), [&](uint32_t e) { return e >= keep; })) {
          ++it;
          continue;
        }
        auto nl = std::make_shared<List>();
        for (size_t i = 0; i < l.edges.size(); ++i) {
          if (l.edges[i] < keep) {
            nl->nodes.push_back(l.nodes[i]);
            nl->edges.push_back(l.edges[i]);
          } else {
            removed += out ? 1 : 0;
            if (out && l.nodes[i] == it->first) lost_loops.push_back(it->first);
          }
        }
        const uint32_t k = it->first;
        if (nl->nodes.size() == Span(offsets, nodes, k).size()) {  // only flat edges left: the flat list
          side.bits[k / 64] &= ~(uint64_t{1} << (k % 64));
          it = side.lists.erase(it);
        } else {
          it->second = std::move(nl);
          ++it;
        }
      }
    }
    for (size_t j = 0; j < add.size();) {  // merge the additions, a key at a time
      const uint32_t k = std::get<0>(add[j]);
      size_t z = j;
      while (z < add.size() && std::get<0>(add[z]) == k) ++z;
      std::span<const uint32_t> bn = Span(offsets, nodes, k), be = Span(offsets, ids, k);
      if (const List* l = side.Find(k)) {
        bn = l->nodes;
        be = l->edges;
      }
      auto nl = std::make_shared<List>();
      nl->nodes.reserve(bn.size() + (z - j));
      nl->edges.reserve(bn.size() + (z - j));
      size_t i = 0;
      while (i < bn.size() || j < z) {
        if (i < bn.size() &&
            (j == z || std::pair(bn[i], be[i]) < std::pair(std::get<1>(add[j]), std::get<2>(add[j])))) {
          nl->nodes.push_back(bn[i]);
          nl->edges.push_back(be[i++]);
        } else {
          nl->nodes.push_back(std::get<1>(add[j]));
          nl->edges.push_back(std::get<2>(add[j++]));
        }
      }
      side.bits[k / 64] |= uint64_t{1} << (k % 64);
      side.lists.insert_or_assign(k, std::move(nl));
    }
  };
  update(p->out, flat->out_offsets_, flat->out_nodes_, flat->out_edges_, out_add, true);
  update(p->in, flat->in_offsets_, flat->in_nodes_, flat->in_edges_, in_add, false);
  for (const PatchSide* side : {&p->out, &p->in}) {
    for (const auto& [k, l] : side->lists) p->entries += l->nodes.size();
    p->memory_bytes += 8 * side->bits.capacity() + 64 * side->lists.size();
  }
  p->memory_bytes += 8 * p->entries;
  // A large overlay costs every lookup of its lists; past a sixteenth of the edges, merge instead.
  if (p->entries > std::max<uint64_t>(uint64_t{1} << 16, flat->out_nodes_.size() / 16)) return std::nullopt;
  p->num_edges = base->num_edges() - removed + out_add.size();
  auto c = std::make_shared<Csr>();
  c->same_table_ = base->same_table_;
  c->edge_rows_ = new_rows;
  c->out_offsets_ = flat->out_offsets_;
  c->in_offsets_ = flat->in_offsets_;
  c->extra_src_ = base->num_src() - static_cast<uint32_t>(flat->out_offsets_.size() - 1);
  c->extra_dst_ = base->num_dst() - static_cast<uint32_t>(flat->in_offsets_.size() - 1);
  c->out_nodes_ = flat->out_nodes_;
  c->out_edges_ = flat->out_edges_;
  c->in_nodes_ = flat->in_nodes_;
  c->in_edges_ = flat->in_edges_;
  c->patch_ = std::move(p);
  if (c->same_table_) {
    c->built_.self_loop.assign(base->self_loop_.begin(), base->self_loop_.end());
    for (uint32_t s : lost_loops) {  // still a loop through another (parallel) edge?
      auto n = c->OutNodes(s);
      if (!std::binary_search(n.begin(), n.end(), s)) c->built_.self_loop[s / 64] &= ~(uint64_t{1} << (s % 64));
    }
    for (const auto& [s, d, e] : out_add) {
      if (s == d) c->built_.self_loop[s / 64] |= uint64_t{1} << (s % 64);
    }
    c->self_loop_ = c->built_.self_loop;
  }
  return std::shared_ptr<const Csr>(std::move(c));
}

std::shared_ptr<const Csr> Csr::ExtendNodes(const std::shared_ptr<const Csr>& base, uint32_t num_src,
                                            uint32_t num_dst) {
  auto c = std::make_shared<Csr>();
  c->same_table_ = base->same_table_;
  c->edge_rows_ = base->edge_rows_;
  // The same arrays (views) and overlay lists; the overlay's bitmaps grown to the new nodes.
  c->out_offsets_ = base->out_offsets_;
  c->in_offsets_ = base->in_offsets_;
  c->out_nodes_ = base->out_nodes_;
  c->out_edges_ = base->out_edges_;
  c->in_nodes_ = base->in_nodes_;
  c->in_edges_ = base->in_edges_;
  if (base->patch_ != nullptr) {
    auto p = std::make_shared<Patch>(*base->patch_);  // the lists themselves shared
    p->out.bits.resize((uint64_t{num_src} + 63) / 64, 0);
    p->in.bits.resize((uint64_t{num_dst} + 63) / 64, 0);
    c->patch_ = std::move(p);  // keeps the flat arrays alive
  } else {
    // The CSR whose arrays these are: `base` when it owns its offsets (built, loaded, or
    // materialized), else the one its views are into; never a chain of extensions.
    const bool own_offsets = !base->built_.out_offsets.empty() || !base->loaded_.empty();
    c->lists_owner_ = own_offsets || base->lists_owner_ == nullptr ? base : base->lists_owner_;
  }
  c->extra_src_ = num_src - static_cast<uint32_t>(c->out_offsets_.size() - 1);
  c->extra_dst_ = num_dst - static_cast<uint32_t>(c->in_offsets_.size() - 1);
  if (c->same_table_) {
    c->built_.self_loop.assign(base->self_loop_.begin(), base->self_loop_.end());
    c->built_.self_loop.resize((uint64_t{num_src} + 63) / 64, 0);
    c->self_loop_ = c->built_.self_loop;
  }
  return c;
}

std::shared_ptr<const Csr> Csr::Materialized(const std::shared_ptr<const Csr>& given) {
  if (given->extra_src_ == 0 && given->extra_dst_ == 0) return given;
  if (given->patch_ != nullptr) return Flatten(*given);
  auto c = std::make_shared<Csr>();
  c->same_table_ = given->same_table_;
  c->edge_rows_ = given->edge_rows_;
  c->lists_owner_ = given->lists_owner_ != nullptr ? given->lists_owner_ : given;
  auto extend = [](std::span<const uint64_t> off, uint32_t n, PodVector<uint64_t>* out) {
    out->assign(off.begin(), off.end());
    out->resize(uint64_t{n} + 1, off.back());  // the counted nodes' lists: empty, at the end
  };
  extend(given->out_offsets_, given->num_src(), &c->built_.out_offsets);
  extend(given->in_offsets_, given->num_dst(), &c->built_.in_offsets);
  c->out_offsets_ = c->built_.out_offsets;
  c->in_offsets_ = c->built_.in_offsets;
  c->out_nodes_ = given->out_nodes_;
  c->out_edges_ = given->out_edges_;
  c->in_nodes_ = given->in_nodes_;
  c->in_edges_ = given->in_edges_;
  c->built_.self_loop.assign(given->self_loop_.begin(), given->self_loop_.end());
  c->self_loop_ = c->built_.self_loop;
  return c;
}

Result<std::optional<std::vector<uint32_t>>> NodeOrdinalMap(const TableOrdinals& before,
                                                            const table::Manifest& before_manifest,
                                                            const TableOrdinals& after,
                                                            const table::TableVersion& after_version) {
  using Nothing = std::optional<std::vector<uint32_t>>;
  OG_ASSIGN_OR_RETURN(std::optional<VersionStep> step, RelateVersions(before_manifest, after_version));
  if (!step || step->old_rows != before.size() || step->kept_rows > after.size()) return Nothing();
  std::vector<uint32_t> map = step->remap.Dense(before.size());
  for (const auto& [lo, hi] : step->remap.ranges()) {
    for (uint32_t o = lo; o < hi; ++o) map[o] = after.Find(before.id(o)).value_or(kDropped);
  }
  return Nothing(std::move(map));
}

Result<std::shared_ptr<const Csr>> Csr::RemapNodes(const std::shared_ptr<const Csr>& base_csr,
                                                   const std::vector<uint32_t>* src_map,
                                                   const std::vector<uint32_t>* dst_map, uint32_t num_src,
                                                   uint32_t num_dst, const RowRemap* edge_remap, uint64_t edge_rows) {
  const Csr& base = *base_csr;  // an overlay is read through its lists: no flat copy first
  auto valid = [](const std::vector<uint32_t>* map, uint32_t old_count, uint32_t new_count) {
    if (map == nullptr) return old_count == new_count;
    if (map->size() != old_count) return false;
    return std::all_of(map->begin(), map->end(), [&](uint32_t m) { return m == kDropped || m < new_count; });
  };
  if (!valid(src_map, base.num_src(), num_src) || !valid(dst_map, base.num_dst(), num_dst) ||
      (base.same_table_ && (src_map != dst_map || num_src != num_dst))) {
    return InternalError("node ordinal maps do not fit the CSR they renumber");
  }
  auto c = std::make_shared<Csr>();
  c->same_table_ = base.same_table_;
  c->edge_rows_ = edge_remap != nullptr ? edge_rows : base.edge_rows_;
  Arrays& a = c->built_;
  if (c->same_table_) a.self_loop.assign((uint64_t{num_src} + 63) / 64, 0);
  // One side: new key k's list is that of the old key mapped to k, its neighbours mapped by
  // `other` and its edges by `edge_remap` (the dropped ones left out), sorted again only when that
  // broke its order. `loops`: the out side of one node table, whose lists say the self-loops.
  auto side = [&](bool out, const std::vector<uint32_t>* keys, const std::vector<uint32_t>* other, uint32_t num_keys,
                  PodVector<uint64_t>* out_off, PodVector<uint32_t>* out_nodes, PodVector<uint32_t>* out_edges,
                  PodVector<uint64_t>* loops) {
    const uint32_t old_keys = out ? base.num_src() : base.num_dst();
    const ShiftedMap neighbour(other);
    std::vector<uint32_t> old_of(num_keys, kDropped);
    for (uint32_t o = 0; o < old_keys; ++o) {
      const uint32_t m = keys != nullptr ? (*keys)[o] : o;
      // The first old row wins: when rows share an id, only the first (what Find gives) has lists.
      if (m != kDropped && old_of[m] == kDropped) old_of[m] = o;
    }
    out_off->resize(uint64_t{num_keys} + 1);
    out_nodes->resize(base.num_edges());
    out_edges->resize(base.num_edges());
    uint32_t* on = out_nodes->data();
    uint32_t* oe = out_edges->data();
    uint64_t w = 0;
    std::vector<std::pair<uint32_t, uint32_t>> tmp;
    for (uint32_t k = 0; k < num_keys; ++k) {
      (*out_off)[k] = w;
      const uint32_t o = old_of[k];
      if (o == kDropped) continue;
      const std::span<const uint32_t> nodes = out ? base.OutNodes(o) : base.InNodes(o);
      const std::span<const uint32_t> edges = out ? base.OutEdges(o) : base.InEdges(o);
      const uint64_t from = w;
      bool sorted = true;
      for (size_t i = 0; i < nodes.size(); ++i) {
        const uint32_t n = neighbour(nodes[i]);
        const uint32_t e = edge_remap != nullptr ? (*edge_remap)(edges[i]) : edges[i];
        if (n == kDropped || e == kDropped) continue;
        if (w > from && (n < on[w - 1] || (n == on[w - 1] && e < oe[w - 1]))) sorted = false;
        if (loops != nullptr && n == k) (*loops)[k / 64] |= uint64_t{1} << (k % 64);
        on[w] = n;
        oe[w++] = e;
      }
      if (sorted) continue;
      tmp.clear();
      for (uint64_t p = from; p < w; ++p) tmp.emplace_back(on[p], oe[p]);
      std::sort(tmp.begin(), tmp.end());
      for (uint64_t p = from; p < w; ++p) std::tie(on[p], oe[p]) = tmp[p - from];
    }
    (*out_off)[num_keys] = w;
    out_nodes->resize(w);
    out_edges->resize(w);
  };
  OG_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor(2, [&](size_t s) -> Status {
    if (s == 0) {
      side(true, src_map, dst_map, num_src, &a.out_offsets, &a.out_nodes, &a.out_edges,
           c->same_table_ ? &a.self_loop : nullptr);
    } else {
      side(false, dst_map, src_map, num_dst, &a.in_offsets, &a.in_nodes, &a.in_edges, nullptr);
    }
    return Status::Ok();
  }));
  c->ViewBuilt();
  return std::shared_ptr<const Csr>(std::move(c));
}

Result<std::optional<std::shared_ptr<const Csr>>> Csr::Extend(const std::shared_ptr<const Csr>& base_csr,
                                                              const table::Manifest& base_edges,
                                                              const table::TableVersion& edges,
                                                              const TableOrdinals& src, const TableOrdinals& dst) {
  using Nothing = std::optional<std::shared_ptr<const Csr>>;
  const Csr& base = *base_csr;
  if (base.num_src() != src.size() || base.num_dst() != dst.size()) return Nothing();
  OG_ASSIGN_OR_RETURN(std::optional<VersionStep> step, RelateVersions(base_edges, edges));
  if (!step) return Nothing();
  const auto& nf = edges.manifest().fragments;
  const RowRemap& remap = step->remap;
  const uint64_t old_rows = step->old_rows;
  const size_t kept = step->kept_fragments;
  const auto nb = static_cast<uint32_t>(step->kept_rows);
  // The new fragments' edges, numbered after the kept ones.
  Adds out_add, in_add;
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
  if (const std::optional<uint64_t> keep = remap.SuffixStart(old_rows)) {
    if (auto overlay = ExtendOverlay(base_csr, *keep, old_rows, edges.row_count(), out_add, in_add)) {
      return Nothing(*std::move(overlay));
    }
  }
  // One pass over flat arrays (an overlay's lists made flat first).
  const std::shared_ptr<const Csr> flat = base.patch_ != nullptr ? Flatten(base) : Materialized(base_csr);
  auto c = std::make_shared<Csr>();
  c->same_table_ = base.same_table_;
  c->edge_rows_ = edges.row_count();
  Arrays& a = c->built_;
  std::vector<uint32_t> lost_out, lost_in;  // keys that lost a self-loop
  MergeSide(flat->out_offsets_, flat->out_nodes_, flat->out_edges_, remap, out_add, &a.out_offsets, &a.out_nodes,
            &a.out_edges, &lost_out);
  MergeSide(flat->in_offsets_, flat->in_nodes_, flat->in_edges_, remap, in_add, &a.in_offsets, &a.in_nodes, &a.in_edges,
            &lost_in);
  if (c->same_table_) {
    a.self_loop.assign(flat->self_loop_.begin(), flat->self_loop_.end());
    for (uint32_t s : lost_out) {  // still a loop through another (parallel) edge?
      auto first = a.out_nodes.begin() + static_cast<std::ptrdiff_t>(a.out_offsets[s]);
      auto last = a.out_nodes.begin() + static_cast<std::ptrdiff_t>(a.out_offsets[s + 1]);
      if (!std::binary_search(first, last, s)) a.self_loop[s / 64] &= ~(uint64_t{1} << (s % 64));
    }
    for (const auto& [s, d, e] : out_add) {
      if (s == d) a.self_loop[s / 64] |= uint64_t{1} << (s % 64);
    }
  }
  c->ViewBuilt();
  return Nothing(std::shared_ptr<const Csr>(std::move(c)));
}

}  // namespace omnigraph::engine
