// Edge scans (executor_pipeline.h, Pipeline::ScanEdges): a traversal whose edge variable's column
// tests keep few edges binds its matches from those edges, through their endpoint ordinals
// (EdgeEnds), instead of seeding an endpoint and walking every candidate's lists.
#include <algorithm>
#include <cstring>

#include "engine/exec/executor_pipeline.h"

namespace omnigraph::engine::exec {

namespace {

// The point-read counter (GraphReadCache::AllowPointRead) of queries that could scan an edge
// version before its EdgeEnds is derived.
constexpr const char* kEndsRequests =
    "\x1e"
    "edge ends";

// Whether `t` is a traversal an edge scan can bind: one hop into an unbound edge variable between
// two distinct unbound endpoints, one of them `seed` (undirected: over one node table).
bool Scannable(Context& ctx, const IrClause& t, const Rows& rows, int seed) {
  if (t.kind != IrClauseKind::kTraversal || t.edge_var < 0 || rows.bound[t.edge_var]) return false;
  if (t.min_hops != 1 || !t.max_hops || *t.max_hops != 1) return false;
  if (t.src == t.dst || rows.bound[t.src] || rows.bound[t.dst]) return false;
  if (t.direction == compiler::Direction::kBoth) {
    const compiler::EdgeType* e = ctx.snap().catalog().FindEdge(t.edge_type);
    if (e == nullptr || e->from_type != e->to_type) return false;
  }
  return t.src == seed || t.dst == seed;
}

}  // namespace

Result<bool> Pipeline::ScanEdges(const Rows& rows, int seed, const std::vector<uint32_t>& cands, const State& st,
                                 RowSink& sink, const RunMode& mode) {
  // Only at the start of a run (one row, nothing bound): the run then takes one plan, so its
  // batches all reach the sink alike (a count path's rows carry multiplicities, a scan's do not).
  if (mode.ordered || cands.empty() || rows.size() != 1 ||
      std::find(rows.bound.begin(), rows.bound.end(), true) != rows.bound.end()) {
    return false;
  }
  OG_ASSIGN_OR_RETURN(const table::TableVersion* seed_table, ctx_.Table(ctx_.TypeOf(seed)));
  const double nodes = std::max<double>(1, static_cast<double>(seed_table->row_count()));
  const bool every_node = static_cast<double>(cands.size()) >= nodes;
  // The cheapest scannable traversal, if it beats seeding `seed` with `cands` and expanding,
  // in units of about one cache miss. The expansion visits about cands x edges / nodes list
  // entries, each testing the mask at a random edge ordinal and, in a count, a per-level memo
  // slot: 2 units an entry (50-80 ns measured at 1M nodes / 10M edges). The scan reads the mask
  // in order, eight bytes at a time (1/32 an edge), and binds each kept edge from its endpoints (one
  // prefetched line) and the seed's membership bitmap: 2 units a kept edge (30-45 ns measured,
  // with the rows it hands on). Deriving the endpoints (EdgeEnds, once per CSR) is a pass over
  // the lists writing at random: edges / 2.
  int pick = -1;
  const EdgeMask* mask = nullptr;                 // the picked traversal's kept edges: a mask,
  const std::vector<uint32_t>* listed = nullptr;  // or a list (a sorted index answered)
  double best_scan = 0, best_expand = 0, best_build = 0;
  for (size_t i = 0; i < st.pending.size(); ++i) {
    const IrClause& t = *st.pending[i];
    if (!Scannable(ctx_, t, rows, seed)) continue;
    OG_ASSIGN_OR_RETURN(const table::TableVersion* edge_table, ctx_.Table(t.edge_type));
    const double edges = static_cast<double>(edge_table->row_count());
    const double expand = 2 * static_cast<double>(cands.size()) * (1 + edges / nodes);
    if (edges / 32 >= expand) continue;  // a few candidates (a key): the mask is not worth a look
    OG_ASSIGN_OR_RETURN(const std::vector<uint32_t>* l, EdgeList(t.edge_var));
    const EdgeMask* m = nullptr;
    if (l == nullptr) {
      OG_ASSIGN_OR_RETURN(m, EdgeFilter(t.edge_var));
      if (m == nullptr) continue;
    }
    const double kept = static_cast<double>(l != nullptr ? l->size() : CountKeptBytes(*m));
    if (mode.read != nullptr && !mode.count_last && kept > static_cast<double>(cands.size())) {
      // An aggregate may count this chain from the seed instead (PathCounts, CountPerRow): at
      // most a row per candidate, with multiplicities, kept for the aggregation. The scan keeps
      // a row per edge: not more rows than that.
      Rows shape = Slice(rows, 0, 0);
      shape.bound[seed] = true;
      std::vector<const IrClause*> rest = st.pending;
      rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
      if (CountableChain(shape, t, rest, st.multi_done)) continue;
    }
    // A listed filter (a sorted index answered) is not read edge by edge; the candidates'
    // membership bitmap is then zeroed in words (nodes / 64), about nodes / 512 units.
    const double scan = (l != nullptr ? 0 : edges / 32) + 2 * kept +
                        (every_node ? 0 : static_cast<double>(cands.size()) / 4 + nodes / 512);
    if (scan >= expand || (pick >= 0 && scan >= best_scan)) continue;
    pick = static_cast<int>(i);
    mask = m;
    listed = l;
    best_scan = scan;
    best_expand = expand;
    OG_ASSIGN_OR_RETURN(const EdgeEnds* cached, ctx_.CachedEdgeEnds(t.edge_type));
    best_build = cached != nullptr ? 0 : edges / 2;
  }
  if (pick < 0) return false;
  // When deriving the endpoints costs more than the scan saves, the first two queries that could
  // scan these versions expand instead (as a column read by point twice is then read whole).
  if (best_scan + best_build >= best_expand) {
    OG_ASSIGN_OR_RETURN(const table::TableVersion* edge_table, ctx_.Table(st.pending[pick]->edge_type));
    if (ctx_.cache().AllowPointRead(*edge_table, kEndsRequests)) return false;
  }
  const IrClause& t = *st.pending[pick];
  OG_ASSIGN_OR_RETURN(const EdgeEnds* ends, ctx_.EdgeEndsFor(t.edge_type));
  OG_ASSIGN_OR_RETURN(const table::TableVersion* picked_table, ctx_.Table(t.edge_type));
  if (ends->ends.size() != picked_table->row_count()) return false;  // never: both are the version's live rows
  State next = st;
  next.pending.erase(next.pending.begin() + pick);
  std::vector<uint64_t> member;  // the candidates, one bit each, when not every node
  if (!every_node) {
    member.assign(seed_table->row_count() / 64 + 1, 0);
    for (uint32_t c : cands) member[c / 64] |= uint64_t{1} << (c % 64);
  }
  const bool seed_is_src = seed == t.src;
  const int other = seed_is_src ? t.dst : t.src;
  Rows out = Slice(rows, 0, 0);
  out.bound[t.src] = out.bound[t.dst] = out.bound[t.edge_var] = true;
  const size_t batch = CountsNext(out.bound, rows.width, next, mode) ? kCountBatchCells : kBatchCells;
  const size_t per = std::max<size_t>(1, batch / rows.width);
  // The other endpoint's and the edge's remaining tests, then the seed's multi-variable ones and
  // the rest of the plan (Flush).
  auto flush = [&]() -> Status {
    State piece_state = next;
    Rows piece = std::move(out);
    out = Slice(rows, 0, 0);
    out.bound = piece.bound;
    OG_ASSIGN_OR_RETURN(piece, ApplyChecks(std::move(piece), other, true, &piece_state.multi_done));
    OG_ASSIGN_OR_RETURN(piece, ApplyChecks(std::move(piece), t.edge_var, true, &piece_state.multi_done));
    return Flush(std::move(piece), seed, false, piece_state, sink, mode);
  };
  BudgetCharge charge(ctx_);
  const int64_t* r = rows.row(0);
  const bool both = t.direction == compiler::Direction::kBoth;
  auto emit = [&](uint32_t x, uint32_t y, size_t e) {  // x binds t.src, y t.dst
    if (!every_node && ((member[(seed_is_src ? x : y) / 64] >> ((seed_is_src ? x : y) % 64)) & 1) == 0) return;
    const size_t at = out.cells.size();
    out.cells.resize(at + rows.width);
    int64_t* to = out.cells.data() + at;
    for (size_t w = 0; w < rows.width; ++w) to[w] = r[w];  // a few cells: no memmove call
    to[t.src] = x;
    to[t.dst] = y;
    to[t.edge_var] = static_cast<int64_t>(e);
  };
  // The mask in blocks: the kept edges of a block listed first (without a branch per edge), then
  // bound with their endpoints prefetched a few edges ahead (they are far apart in the array).
  // An edge s -> d binds (s, d); undirected, also (d, s) unless it is a self-loop (Expand's rows).
  constexpr size_t kBlock = 4096, kAhead = 8;
  std::vector<uint32_t> kept(kBlock + 1);
  const EdgeEnds::Ends* pairs = ends->ends.data();
  const uint8_t* bytes = mask != nullptr ? mask->data() : nullptr;
  const size_t n = mask != nullptr ? mask->size() : listed->size();
  for (size_t b = 0; b < n && !sink.Done(); b += kBlock) {
    const size_t end = std::min(n, b + kBlock);
    size_t k = 0;
    if (listed != nullptr) {  // the block's kept edges are a slice of the list
      std::copy(listed->begin() + static_cast<std::ptrdiff_t>(b), listed->begin() + static_cast<std::ptrdiff_t>(end),
                kept.begin());
      k = end - b;
    }
    for (size_t e = b; e < end && listed == nullptr;) {
      const size_t step = std::min<size_t>(8, end - e);
      uint64_t w = 1;
      if (step == 8) std::memcpy(&w, bytes + e, 8);
      if (w != 0) {  // eight bytes at a time: a sparse mask is mostly zero words
        for (size_t j = 0; j < step; ++j) {
          kept[k] = static_cast<uint32_t>(e + j);
          k += bytes[e + j];
        }
      }
      e += step;
    }
    for (size_t i = 0; i < k; ++i) {
      if (i + kAhead < k) __builtin_prefetch(pairs + kept[i + kAhead]);
      const EdgeEnds::Ends p = pairs[kept[i]];
      if (p.src == EdgeEnds::kNone) continue;  // an endpoint that is not a live node: in no list
      emit(p.src, p.dst, kept[i]);
      if (both && p.src != p.dst) emit(p.dst, p.src, kept[i]);
    }
    if (out.size() >= per) {
      OG_RETURN_IF_ERROR(charge.Set(0));  // the rest of the plan charges the piece
      OG_RETURN_IF_ERROR(flush());
    } else {
      OG_RETURN_IF_ERROR(charge.Set(RowBytes(out)));  // the piece in the making
    }
  }
  OG_RETURN_IF_ERROR(charge.Set(0));
  if (out.size() > 0 && !sink.Done()) OG_RETURN_IF_ERROR(flush());
  return true;
}

}  // namespace omnigraph::engine::exec
