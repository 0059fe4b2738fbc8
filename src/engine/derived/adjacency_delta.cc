// Csr::Extend (adjacency.h): the adjacency of a new version of an edge table from the adjacency of
// an earlier one, so that a small write costs the next traversal one pass over the arrays instead
// of a rebuild (reading the endpoint columns and looking up every endpoint id).
#include <algorithm>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "engine/derived/adjacency.h"

namespace omnigraph::engine {

namespace {

constexpr uint32_t kDropped = UINT32_MAX;

// Old edge ordinal -> new one: the kept rows keep their order, so a row's new ordinal is its old
// one minus the dropped rows before it. The dropped rows are a few ranges (a write deletes a few
// rows, or whole appended fragments), searched instead of a table over every edge.
class Remap {
 public:
  // Marks old ordinals [lo, hi) dropped; ranges arrive ascending.
  void Drop(uint32_t lo, uint32_t hi) {
    if (lo == hi) return;
    if (!ranges_.empty() && ranges_.back().second == lo) {
      ranges_.back().second = hi;
    } else {
      ranges_.emplace_back(lo, hi);
    }
  }
  void Finish() {
    uint32_t total = 0;
    for (const auto& [lo, hi] : ranges_) cum_.push_back(total += hi - lo);
  }
  bool identity() const { return ranges_.empty(); }
  // The first dropped ordinal when the dropped ones are exactly [start, old_rows) (or none:
  // old_rows), so that no kept edge is renumbered; nullopt otherwise.
  std::optional<uint64_t> SuffixStart(uint64_t old_rows) const {
    if (ranges_.empty()) return old_rows;
    if (ranges_.size() == 1 && ranges_[0].second == old_rows) return ranges_[0].first;
    return std::nullopt;
  }
  uint32_t operator()(uint32_t e) const {
    if (ranges_.empty() || e < ranges_.front().first) return e;
    // The last range starting at or before e.
    const size_t i = static_cast<size_t>(
        std::upper_bound(ranges_.begin(), ranges_.end(), e, [](uint32_t x, const auto& r) { return x < r.first; }) -
        ranges_.begin() - 1);
    return e < ranges_[i].second ? kDropped : e - cum_[i];
  }

 private:
  std::vector<std::pair<uint32_t, uint32_t>> ranges_;
  std::vector<uint32_t> cum_;  // dropped rows up to the end of each range
};

using Adds = std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>;  // (key, neighbour, edge), sorted

// One side's arrays: base lists with edges renumbered (dropped ones removed), merged with `add`,
// each list sorted by (neighbour, edge). `dropped_loop`: keys that lost an edge to themselves.
void MergeSide(std::span<const uint64_t> offsets, std::span<const uint32_t> nodes, std::span<const uint32_t> edges,
               const Remap& remap, const Adds& add, PodVector<uint64_t>* out_offsets, PodVector<uint32_t>* out_nodes,
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
        if (nl->nodes.size() == offsets[k + 1] - offsets[k]) {  // only flat edges left: the flat list
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

std::shared_ptr<const Csr> Csr::ExtendNodes(const std::shared_ptr<const Csr>& given, uint32_t num_src,
                                            uint32_t num_dst) {
  // An overlay is made flat first: its lists are looked up in its flat arrays by node, which the
  // new nodes are not in (and later overlays over the result take its arrays as their flat ones).
  const std::shared_ptr<const Csr> base = given->patch_ != nullptr ? Flatten(*given) : given;
  auto c = std::make_shared<Csr>();
  c->same_table_ = base->same_table_;
  c->edge_rows_ = base->edge_rows_;
  // The CSR whose arrays hold the lists (an earlier node extension's owner): never a chain of
  // extensions, each keeping its predecessor's offsets alive.
  c->lists_owner_ = base->lists_owner_ != nullptr ? base->lists_owner_ : base;
  auto extend = [](std::span<const uint64_t> off, uint32_t n, PodVector<uint64_t>* out) {
    out->assign(off.begin(), off.end());
    out->resize(uint64_t{n} + 1, off.back());  // the new nodes' lists: empty, at the end
  };
  extend(base->out_offsets_, num_src, &c->built_.out_offsets);
  extend(base->in_offsets_, num_dst, &c->built_.in_offsets);
  c->out_offsets_ = c->built_.out_offsets;
  c->in_offsets_ = c->built_.in_offsets;
  c->out_nodes_ = base->out_nodes_;
  c->out_edges_ = base->out_edges_;
  c->in_nodes_ = base->in_nodes_;
  c->in_edges_ = base->in_edges_;
  if (c->same_table_) {
    c->built_.self_loop.assign(base->self_loop_.begin(), base->self_loop_.end());
    c->built_.self_loop.resize((uint64_t{num_src} + 63) / 64, 0);
    c->self_loop_ = c->built_.self_loop;
  }
  return c;
}

Result<std::optional<std::shared_ptr<const Csr>>> Csr::Extend(const std::shared_ptr<const Csr>& base_csr,
                                                              const table::Manifest& base_edges,
                                                              const table::TableVersion& edges,
                                                              const TableOrdinals& src, const TableOrdinals& dst) {
  using Nothing = std::optional<std::shared_ptr<const Csr>>;
  const Csr& base = *base_csr;
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
  Remap remap;
  uint32_t ob = 0, nb = 0;
  for (const auto& f : bf) {
    auto it = in_new.find(f.id);
    if (it == in_new.end()) {  // the whole fragment is gone
      remap.Drop(ob, static_cast<uint32_t>(ob + f.live_rows()));
      ob += static_cast<uint32_t>(f.live_rows());
      continue;
    }
    const table::FragmentMeta& g = nf[it->second];
    if (g.deletion_key == f.deletion_key) {  // the same rows live: consecutive
      ob += static_cast<uint32_t>(f.live_rows());
      nb += static_cast<uint32_t>(f.live_rows());
      continue;
    }
    OG_ASSIGN_OR_RETURN(auto before, edges.LoadDeletion(f));  // the same table: its objects are shared
    OG_ASSIGN_OR_RETURN(auto after, edges.LoadDeletion(g));
    if (!before->Difference(*after).empty()) return Nothing();  // a row came back: not a later version
    const std::vector<uint32_t> gone = after->Difference(*before).ToVector();
    const std::vector<uint32_t> was = before->ToVector();
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
        remap.Drop(ob, ob + 1);
        ++ob;
        ++gi;
      }
      ++at;
    }
  }
  remap.Finish();
  if (ob != old_rows) return Nothing();
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
  const std::shared_ptr<const Csr> flat = base.patch_ != nullptr ? Flatten(base) : base_csr;
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
