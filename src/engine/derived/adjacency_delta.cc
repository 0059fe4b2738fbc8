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
  auto c = std::make_shared<Csr>();
  c->same_table_ = base.same_table_;
  Arrays& a = c->built_;
  std::vector<uint32_t> lost_out, lost_in;  // keys that lost a self-loop
  MergeSide(base.out_offsets_, base.out_nodes_, base.out_edges_, remap, out_add, &a.out_offsets, &a.out_nodes,
            &a.out_edges, &lost_out);
  MergeSide(base.in_offsets_, base.in_nodes_, base.in_edges_, remap, in_add, &a.in_offsets, &a.in_nodes, &a.in_edges,
            &lost_in);
  if (c->same_table_) {
    a.self_loop.assign(base.self_loop_.begin(), base.self_loop_.end());
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
