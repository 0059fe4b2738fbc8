// Path chains of the executor (executor_internal.h): breadth-first reach with the reference's
// distance semantics, the number of matches of a chain (count-only queries) and the matches of a
// chain per end node (aggregates that read a chain's inner variables only through count()).
#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <unordered_map>

#include "common/error_codes.h"
#include "common/thread_pool.h"
#include "engine/exec/executor_internal.h"

namespace omnigraph::engine::exec {

using compiler::IrClause;
using compiler::IrExpr;
using compiler::IrExprKind;

// Breadth-first distance semantics (docs/language.md, "Match clauses"; as reference_eval.cc): from
// `x`, node y is produced iff dist(x, y) is within the bounds, or y has a self loop and
// dist(x, y) + 1 is (the self loop is taken while y is on the frontier). Backwards (x is the
// destination), a source s is produced iff dist(s, x) is within the bounds, or x has a self loop
// and dist(s, x) + 1 is.
Result<std::vector<uint32_t>> Reacher::Reach(const Csr& csr, uint32_t x, bool forward, const IrClause& t) {
  const bool hetero = !csr.same_table();
  auto in_range = [&](uint64_t k) { return k >= t.min_hops && (!t.max_hops || k <= *t.max_hops); };
  const bool both = t.direction == compiler::Direction::kBoth;
  std::vector<uint32_t> out;
  if (hetero) {  // endpoints of two tables: only one hop exists
    if (!in_range(1)) return out;
    auto nodes = forward ? csr.OutNodes(x) : csr.InNodes(x);
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (i == 0 || nodes[i] != nodes[i - 1]) out.push_back(nodes[i]);
    }
    return out;
  }
  // One -1 per node, kept by this thread across queries: every Reach leaves it all -1 again, so a
  // point query costs what it touches, not an O(nodes) fill (it grows to the largest table seen).
  thread_local std::vector<int32_t> dist;
  if (dist.size() < csr.num_src()) dist.resize(csr.num_src(), -1);
  std::vector<uint32_t> touched{x}, frontier{x}, next;
  // Back to -1 however this returns (an allocation failure included).
  struct Reset {
    std::vector<int32_t>& dist;
    const std::vector<uint32_t>& touched;
    ~Reset() {
      for (uint32_t y : touched) dist[y] = -1;
    }
  } reset{dist, touched};
  dist[x] = 0;
  for (uint32_t h = 1; !frontier.empty() && (!t.max_hops || h <= *t.max_hops); ++h) {
    next.clear();
    auto visit = [&](std::span<const uint32_t> nodes) {
      for (uint32_t y : nodes) {
        if (dist[y] >= 0) continue;
        dist[y] = static_cast<int32_t>(h);
        next.push_back(y);
        touched.push_back(y);
      }
    };
    for (uint32_t n : frontier) {
      if (forward || both) visit(csr.OutNodes(n));
      if (!forward || both) visit(csr.InNodes(n));
    }
    std::swap(frontier, next);
  }
  for (uint32_t y : touched) {
    const uint64_t d = static_cast<uint64_t>(dist[y]);
    const bool loop = csr.HasSelfLoop(forward ? y : x);
    if (in_range(d) || (loop && in_range(d + 1))) out.push_back(y);
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

// Calls fn(y) (returning Status) for every node `link` produces from x, each once, ascending.
template <typename Fn>
Status ForEachProduced(const Csr& csr, uint32_t x, const PathLink& link, Reacher* reacher, Fn&& fn) {
  const IrClause& t = *link.t;
  if (t.edge_var >= 0) {  // one match per edge (Expand's order: the list, then the other direction's)
    for (int side = 0; side < (t.direction == compiler::Direction::kBoth ? 2 : 1); ++side) {
      const bool out = link.forward == (side == 0);
      auto nodes = out ? csr.OutNodes(x) : csr.InNodes(x);
      auto edges = out ? csr.OutEdges(x) : csr.InEdges(x);
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (side == 1 && nodes[i] == x) continue;  // a self-loop is one edge, listed once
        if (EdgeAllowed(link.allowed, edges[i])) OG_RETURN_IF_ERROR(fn(nodes[i]));
      }
    }
    return Status::Ok();
  }
  const bool one_hop = t.direction != compiler::Direction::kBoth && t.min_hops == 1 && t.max_hops && *t.max_hops == 1;
  if (one_hop) {  // the distinct neighbours (lists are sorted)
    auto nodes = link.forward ? csr.OutNodes(x) : csr.InNodes(x);
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (i == 0 || nodes[i] != nodes[i - 1]) OG_RETURN_IF_ERROR(fn(nodes[i]));
    }
    return Status::Ok();
  }
  OG_ASSIGN_OR_RETURN(auto reached, reacher->Reach(csr, x, link.forward, t));
  for (uint32_t y : reached) OG_RETURN_IF_ERROR(fn(y));
  return Status::Ok();
}

// Nodes with the number of matches ending there: sorted by node, distinct.
using NodeCounts = std::vector<std::pair<uint32_t, uint64_t>>;

// Sorts `v` by node and merges the counts of equal nodes.
void SortAndMerge(NodeCounts* v) {
  std::sort(v->begin(), v->end());
  size_t w = 0;
  for (size_t i = 0; i < v->size(); ++i) {
    if (w > 0 && (*v)[w - 1].first == (*v)[i].first) {
      (*v)[w - 1].second += (*v)[i].second;
    } else {
      (*v)[w++] = (*v)[i];
    }
  }
  v->resize(w);
}

// One level: every node y that `link` produces from a node x of `from` gets x's count.
Result<NodeCounts> Step(const NodeCounts& from, const Csr& csr, const PathLink& link, Reacher* reacher) {
  const uint32_t n_to = link.forward ? csr.num_dst() : csr.num_src();
  uint64_t work = 0;  // a lower bound of the pairs produced (variable-length links reach further)
  for (const auto& [x, c] : from) work += (link.forward ? csr.OutNodes(x) : csr.InNodes(x)).size();
  NodeCounts next;
  if (work * 16 < n_to) {  // few: collect and sort
    next.reserve(work);
    for (const auto& [x, c] : from) {
      OG_RETURN_IF_ERROR(ForEachProduced(csr, x, link, reacher, [&, c = c](uint32_t y) {
        next.emplace_back(y, c);
        return Status::Ok();
      }));
    }
    SortAndMerge(&next);
    return next;
  }
  std::vector<uint64_t> acc(n_to, 0);  // many: one counter per node
  for (const auto& [x, c] : from) {
    OG_RETURN_IF_ERROR(ForEachProduced(csr, x, link, reacher, [&, c = c](uint32_t y) {
      acc[y] += c;
      return Status::Ok();
    }));
  }
  for (uint32_t y = 0; y < n_to; ++y) {
    if (acc[y] != 0) next.emplace_back(y, acc[y]);
  }
  return next;
}

void CollectRead(const IrExpr& e, std::vector<bool>* read) {
  if ((e.kind == IrExprKind::kProperty || e.kind == IrExprKind::kVariable) && e.var >= 0 &&
      static_cast<size_t>(e.var) < read->size()) {
    (*read)[e.var] = true;
  }
  for (const auto& a : e.args) CollectRead(a, read);
}

void CollectReadOutsideCount(const IrExpr& e, std::vector<bool>* read) {
  const bool count_of_var = e.kind == IrExprKind::kAggregate && e.agg == compiler::AggFn::kCount &&
                            e.args.size() == 1 && e.args[0].kind == IrExprKind::kVariable;
  if (!count_of_var) CollectRead(e, read);
}

}  // namespace

namespace {

// count(k, x) of CountChain per node x of one level: an array over the level's nodes when the
// count starts from many rows (a global count), else a hash map of the nodes reached, so a point
// query costs what it touches. kUnknown = not computed yet.
constexpr uint64_t kUnknown = ~uint64_t{0};
class LevelMemo {
 public:
  void MakeDense(size_t n) { dense_.assign(n, kUnknown); }
  bool dense() const { return !dense_.empty(); }
  size_t size() const { return dense_.size(); }
  // The slot of x; stays valid while other nodes are added (unordered_map never moves its nodes).
  uint64_t& Slot(uint32_t x) { return x < dense_.size() ? dense_[x] : sparse_.try_emplace(x, kUnknown).first->second; }
  uint64_t& DenseSlot(size_t x) { return dense_[x]; }

 private:
  std::vector<uint64_t> dense_;
  std::unordered_map<uint32_t, uint64_t> sparse_;
};

}  // namespace

namespace {

// The matches of `chain` from each row's start node (memoized per node and level), not weighted.
Result<std::vector<uint64_t>> ChainCounts(Context& ctx, const Rows& rows, const std::vector<PathLink>& chain,
                                          Reacher* reacher) {
  // count(k, x): the matches of links k.. from node x; memoized per level (rows share nodes).
  std::vector<LevelMemo> memo(chain.size());
  std::vector<const Csr*> csrs;
  for (size_t k = 0; k < chain.size(); ++k) {
    OG_ASSIGN_OR_RETURN(const Csr* c, ctx.CsrFor(chain[k].t->edge_type));
    csrs.push_back(c);
  }
  const size_t start_nodes = chain[0].forward ? csrs[0]->num_src() : csrs[0]->num_dst();
  const bool global = rows.size() * 4 >= start_nodes;
  if (global) {
    for (size_t k = 0; k < chain.size(); ++k) {
      const size_t n = chain[k].forward ? csrs[k]->num_src() : csrs[k]->num_dst();
      OG_RETURN_IF_ERROR(ctx.Charge(8 * uint64_t{n}));
      memo[k].MakeDense(n);
    }
  }
  // All links one hop (the common case): a plain recursive walk over the CSR lists, no Status per
  // edge; the distinct neighbours of x are those of its sorted list that differ from the previous.
  bool one_hop = true;
  for (const PathLink& l : chain) {
    const IrClause& t = *l.t;
    one_hop = one_hop && t.direction != compiler::Direction::kBoth && t.min_hops == 1 && t.max_hops && *t.max_hops == 1;
  }
  // Whether position i of x's list is a match of link k: each edge of an edge link (that its tests
  // allow), else each distinct neighbour.
  auto counts_at = [&](size_t k, uint32_t x, std::span<const uint32_t> nodes, size_t i) {
    if (chain[k].t->edge_var < 0) return i == 0 || nodes[i] != nodes[i - 1];
    if (chain[k].allowed == nullptr) return true;
    const auto edges = chain[k].forward ? csrs[k]->OutEdges(x) : csrs[k]->InEdges(x);
    return EdgeAllowed(chain[k].allowed, edges[i]);
  };
  auto fast = [&](auto&& self, size_t k, uint32_t x) -> uint64_t {
    uint64_t& slot = memo[k].Slot(x);
    if (slot != kUnknown) return slot;
    const auto nodes = chain[k].forward ? csrs[k]->OutNodes(x) : csrs[k]->InNodes(x);
    const bool last = k + 1 == chain.size();
    uint64_t n = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (!counts_at(k, x, nodes, i)) continue;
      n += last ? 1 : self(self, k + 1, nodes[i]);
    }
    slot = n;
    return n;
  };
  // Many start rows (a global count): fill every level for all nodes, last level first, in
  // parallel over node ranges (a level reads only the next level's finished counts).
  if (one_hop && global) {
    for (size_t k = chain.size(); k-- > 0;) {
      const bool last = k + 1 == chain.size();
      const size_t n = memo[k].size();
      constexpr size_t kChunk = 16384;
      OG_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor((n + kChunk - 1) / kChunk, [&](size_t c) -> Status {
        for (size_t x = c * kChunk; x < std::min(n, (c + 1) * kChunk); ++x) {
          const auto nodes = chain[k].forward ? csrs[k]->OutNodes(static_cast<uint32_t>(x))
                                              : csrs[k]->InNodes(static_cast<uint32_t>(x));
          uint64_t sum = 0;
          for (size_t i = 0; i < nodes.size(); ++i) {
            if (!counts_at(k, static_cast<uint32_t>(x), nodes, i)) continue;
            sum += last ? 1 : memo[k + 1].DenseSlot(nodes[i]);
          }
          memo[k].DenseSlot(x) = sum;
        }
        return Status::Ok();
      }));
    }
  }
  std::function<Result<uint64_t>(size_t, uint32_t)> count = [&](size_t k, uint32_t x) -> Result<uint64_t> {
    if (one_hop) return fast(fast, k, x);
    if (const uint64_t known = memo[k].Slot(x); known != kUnknown) return known;
    const Csr& csr = *csrs[k];
    uint64_t n = 0;
    auto add = [&](uint32_t y) -> Status {
      if (k + 1 == chain.size()) {
        ++n;
        return Status::Ok();
      }
      OG_ASSIGN_OR_RETURN(uint64_t m, count(k + 1, y));
      n += m;
      return Status::Ok();
    };
    OG_RETURN_IF_ERROR(ForEachProduced(csr, x, chain[k], reacher, add));
    memo[k].Slot(x) = n;
    return n;
  };
  const int start = chain.front().forward ? chain.front().t->src : chain.front().t->dst;
  std::vector<uint64_t> counts(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    OG_ASSIGN_OR_RETURN(counts[i], count(0, static_cast<uint32_t>(rows.row(i)[start])));
  }
  return counts;
}

}  // namespace

namespace {

// The matches of a one-link edge chain from every node of its start table, each once: every edge
// of the table is one (when the CSR holds them all), so the count is the number its tests keep.
// nullopt when the rows are not exactly the start table's nodes.
Result<std::optional<uint64_t>> EveryEdgeCount(Context& ctx, const Rows& rows, const PathLink& link) {
  const IrClause& t = *link.t;
  if (!rows.mult.empty()) return std::optional<uint64_t>();
  OG_ASSIGN_OR_RETURN(const Csr* csr, ctx.CsrFor(t.edge_type));
  const uint32_t n = link.forward ? csr->num_src() : csr->num_dst();
  if (rows.size() != n) return std::optional<uint64_t>();
  const int start = link.forward ? t.src : t.dst;
  // Every node once: usually the seed, ordinals 0, 1, ... in order; else checked with a bitmap.
  bool in_order = true;
  for (size_t i = 0; i < rows.size() && in_order; ++i) in_order = rows.row(i)[start] == static_cast<int64_t>(i);
  if (!in_order) {
    std::vector<bool> seen(n, false);
    for (size_t i = 0; i < rows.size(); ++i) {
      const int64_t x = rows.row(i)[start];
      if (x < 0 || static_cast<uint64_t>(x) >= n || seen[x]) return std::optional<uint64_t>();
      seen[x] = true;
    }
  }
  return EdgesKept(ctx, link, n);
}

}  // namespace

Result<std::optional<uint64_t>> EdgesKept(Context& ctx, const PathLink& link, size_t start_nodes) {
  const IrClause& t = *link.t;
  if (t.edge_var < 0 || t.direction == compiler::Direction::kBoth) return std::optional<uint64_t>();
  OG_ASSIGN_OR_RETURN(const Csr* csr, ctx.CsrFor(t.edge_type));
  OG_ASSIGN_OR_RETURN(const table::TableVersion* edges, ctx.Table(t.edge_type));
  const uint32_t n = link.forward ? csr->num_src() : csr->num_dst();
  if (start_nodes != n || csr->num_edges() != edges->row_count()) return std::optional<uint64_t>();
  if (link.allowed == nullptr) return std::optional<uint64_t>(csr->num_edges());
  // The mask's bytes are 0 or 1: eight at a time, summed by one multiplication per word; large
  // masks in chunks on the pool.
  const std::vector<uint8_t>& mask = *link.allowed;
  constexpr size_t kChunk = size_t{1} << 20;  // a multiple of 8
  const size_t chunks = (mask.size() + kChunk - 1) / kChunk;
  std::vector<uint64_t> kept(chunks, 0);
  auto run = [&](size_t ch) {
    const size_t end = std::min(mask.size(), (ch + 1) * kChunk);
    size_t i = ch * kChunk;
    uint64_t sum = 0;
    for (; i + 8 <= end; i += 8) {
      uint64_t w;
      std::memcpy(&w, mask.data() + i, 8);
      sum += (w * 0x0101010101010101ull) >> 56;
    }
    for (; i < end; ++i) sum += mask[i];
    kept[ch] = sum;
    return Status::Ok();
  };
  if (chunks < 4) {
    for (size_t ch = 0; ch < chunks; ++ch) (void)run(ch);
  } else {
    ThreadPool::Default().ParallelFor(chunks, run).IgnoreError();
  }
  return std::optional<uint64_t>(std::accumulate(kept.begin(), kept.end(), uint64_t{0}));
}

Result<Rows> CountChain(Context& ctx, Rows rows, const std::vector<PathLink>& chain, Reacher* reacher) {
  std::optional<uint64_t> every;
  if (chain.size() == 1) {
    OG_ASSIGN_OR_RETURN(every, EveryEdgeCount(ctx, rows, chain[0]));
  }
  uint64_t total = every.value_or(0);
  if (!every) {
    OG_ASSIGN_OR_RETURN(std::vector<uint64_t> counts, ChainCounts(ctx, rows, chain, reacher));
    for (size_t i = 0; i < rows.size(); ++i) total += counts[i] * (rows.mult.empty() ? 1 : rows.mult[i]);
  }
  // The caller only sums multiplicities: one representative row carries the total.
  Rows out;
  out.width = rows.width;
  out.bound = rows.bound;
  if (total > 0) {
    out.Append(rows.row(0));
    out.mult.push_back(total);
  }
  return out;
}

bool ChainUnread(const std::vector<PathLink>& chain, const std::vector<bool>& read) {
  for (const PathLink& link : chain) {
    const int fresh = link.forward ? link.t->dst : link.t->src;
    if (static_cast<size_t>(fresh) >= read.size() || read[fresh]) return false;
    if (link.t->edge_var >= 0 && (static_cast<size_t>(link.t->edge_var) >= read.size() || read[link.t->edge_var])) {
      return false;
    }
  }
  return true;
}

Result<Rows> CountPerRow(Context& ctx, Rows rows, const std::vector<PathLink>& chain, Reacher* reacher) {
  OG_ASSIGN_OR_RETURN(std::vector<uint64_t> counts, ChainCounts(ctx, rows, chain, reacher));
  Rows out;
  out.width = rows.width;
  out.bound = rows.bound;
  out.collapsed = rows.collapsed;
  out.collapsed.resize(rows.width, false);
  for (const PathLink& link : chain) {
    const int fresh = link.forward ? link.t->dst : link.t->src;
    out.bound[fresh] = true;
    out.collapsed[fresh] = true;
    if (link.t->edge_var >= 0) out.bound[link.t->edge_var] = out.collapsed[link.t->edge_var] = true;
  }
  out.cells.reserve(rows.cells.size());
  out.mult.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    if (counts[i] == 0) continue;
    out.Append(rows.row(i));
    out.mult.push_back(counts[i] * (rows.mult.empty() ? 1 : rows.mult[i]));
  }
  return out;
}

bool PathCountable(const Rows& rows, const std::vector<PathLink>& chain, const std::vector<bool>& read) {
  for (const PathLink& link : chain) {  // edge variables are counted, never bound
    const int e = link.t->edge_var;
    if (e >= 0 && (static_cast<size_t>(e) >= read.size() || read[e])) return false;
  }
  for (size_t k = 0; k + 1 < chain.size(); ++k) {
    const int inner = chain[k].forward ? chain[k].t->dst : chain[k].t->src;
    if (read[inner]) return false;
  }
  bool shared = true;  // no bound variable read: every row joins one frontier
  for (size_t v = 0; v < rows.width && v < read.size(); ++v) shared = shared && !(rows.bound[v] && read[v]);
  return shared || chain.size() > 1;
}

Result<Rows> PathCounts(Context& ctx, Rows rows, const std::vector<PathLink>& chain, const std::vector<bool>& read,
                        Reacher* reacher) {
  std::vector<const Csr*> csrs;
  for (const PathLink& link : chain) {
    OG_ASSIGN_OR_RETURN(const Csr* c, ctx.CsrFor(link.t->edge_type));
    csrs.push_back(c);
  }
  const int start = chain.front().forward ? chain.front().t->src : chain.front().t->dst;
  const int end = chain.back().forward ? chain.back().t->dst : chain.back().t->src;
  bool shared = true;
  for (size_t v = 0; v < rows.width && v < read.size(); ++v) shared = shared && !(rows.bound[v] && read[v]);
  Rows out;
  out.width = rows.width;
  out.bound = rows.bound;
  out.collapsed = rows.collapsed;
  out.collapsed.resize(rows.width, false);
  for (size_t v = 0; v < rows.width && shared; ++v) out.collapsed[v] = out.collapsed[v] || rows.bound[v];
  for (const PathLink& link : chain) {
    const int fresh = link.forward ? link.t->dst : link.t->src;
    out.bound[fresh] = true;
    out.collapsed[fresh] = fresh != end;
    if (link.t->edge_var >= 0) out.bound[link.t->edge_var] = out.collapsed[link.t->edge_var] = true;
  }
  auto run = [&](NodeCounts cur) -> Result<NodeCounts> {
    for (size_t k = 0; k < chain.size() && !cur.empty(); ++k) {
      OG_ASSIGN_OR_RETURN(cur, Step(cur, *csrs[k], chain[k], reacher));
    }
    return cur;
  };
  auto weight = [&](size_t i) { return rows.mult.empty() ? uint64_t{1} : rows.mult[i]; };
  if (shared) {
    NodeCounts cur;
    cur.reserve(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) cur.emplace_back(static_cast<uint32_t>(rows.row(i)[start]), weight(i));
    SortAndMerge(&cur);
    OG_ASSIGN_OR_RETURN(NodeCounts ends, run(std::move(cur)));
    std::vector<int64_t> row(rows.width, -1);
    out.cells.reserve(ends.size() * rows.width);
    for (const auto& [y, c] : ends) {
      row[end] = y;
      out.Append(row.data());
      out.mult.push_back(c);
    }
    return out;
  }
  std::vector<int64_t> row(rows.width);
  for (size_t i = 0; i < rows.size(); ++i) {
    OG_ASSIGN_OR_RETURN(NodeCounts ends, run(NodeCounts{{static_cast<uint32_t>(rows.row(i)[start]), weight(i)}}));
    std::copy(rows.row(i), rows.row(i) + rows.width, row.begin());
    for (const auto& [y, c] : ends) {
      row[end] = y;
      out.Append(row.data());
      out.mult.push_back(c);
    }
  }
  return out;
}

std::vector<bool> ReadVariables(const compiler::IrQuery& q) {
  std::vector<bool> read(q.variables.size() + 1, false);
  for (const auto& p : q.projections) CollectReadOutsideCount(p.expr, &read);
  for (const auto& o : q.order) CollectReadOutsideCount(o.expr, &read);
  return read;
}

}  // namespace omnigraph::engine::exec
