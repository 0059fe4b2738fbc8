// Shortest paths (docs/language.md, "Shortest paths"): the clause `$p: shortest($a edge $b)` and
// its all_shortest / weighted forms, on the CSR of the edge type, and the path functions that read
// a bound path.
//
// Unweighted: a bidirectional breadth-first search from both endpoints, each side keeping the
// distances of what it reached in a hash map, so a point query costs the two balls it explores
// (about 2 * degree^(d/2) nodes for distance d), never the graph. The returned path is the
// smallest by the sequence of node ids (then by edge id between parallel edges); all_shortest
// yields every node sequence once, in that order.
// Weighted: Dijkstra from the source with a binary heap; edges with a null weight are not
// traversed; a negative or NaN weight is the error path_weight.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "common/error_codes.h"
#include "engine/exec/executor_internal.h"

namespace omnigraph::engine::exec {

using compiler::IrClause;
using compiler::IrExpr;
using compiler::IrExprKind;

namespace {

// Neighbours along the clause's direction (`forward`: src -> dst as written) or against it; an
// undirected clause walks both lists either way.
class Adjacent {
 public:
  Adjacent(const Csr& csr, bool both) : csr_(csr), both_(both) {}
  // f(neighbour, edge ordinal) for each edge leaving x in the direction.
  template <class F>
  void Each(uint32_t x, bool forward, F&& f) const {
    auto visit = [&](bool out) {
      auto nodes = out ? csr_.OutNodes(x) : csr_.InNodes(x);
      auto edges = out ? csr_.OutEdges(x) : csr_.InEdges(x);
      for (size_t k = 0; k < nodes.size(); ++k) f(nodes[k], edges[k]);
    };
    visit(forward);
    if (both_) visit(!forward);
  }

 private:
  const Csr& csr_;
  bool both_;
};

using DistMap = std::unordered_map<uint32_t, uint32_t>;

uint32_t DistOf(const DistMap& m, uint32_t n) {
  auto it = m.find(n);
  return it == m.end() ? UINT32_MAX : it->second;
}

// One search between two nodes of one node table (the edge's endpoints have one type).
class Search {
 public:
  Search(const Adjacent& adj, const TableOrdinals& nodes, const std::function<Result<const TableOrdinals*>()>& edges)
      : adj_(adj), nodes_(nodes), edge_ids_(edges) {}

  // The shortest a -> b paths of min_hops..max_hops hops (min_hops is 0 or 1), handed to `emit`
  // in node-id order; only the first when !all. Returns whether any exists.
  Result<bool> Unweighted(uint32_t a, uint32_t b, uint32_t min_hops, std::optional<uint32_t> max_hops, bool all,
                          const std::function<Status(PathValue)>& emit) {
    if (a == b && min_hops == 0) {
      PathValue p;
      p.nodes = {a};
      OG_RETURN_IF_ERROR(emit(std::move(p)));
      return true;
    }
    const uint32_t limit = max_hops.value_or(UINT32_MAX);
    if (limit == 0) return false;
    if (a == b) {
      OG_ASSIGN_OR_RETURN(bool found, CycleDistances(a, limit));
      if (!found) return false;
    } else {
      OG_ASSIGN_OR_RETURN(bool found, MeetInTheMiddle(a, b, limit));
      if (!found) return false;
    }
    PathValue path;
    path.nodes.push_back(a);
    bool stop = false;
    OG_RETURN_IF_ERROR(Walk(&path, b, all, emit, &stop));
    return true;
  }

  // The cheapest a -> b path (at least one hop when a == b and min_hops is 1) by the weights `w`
  // (one per edge ordinal, nullopt = not traversable).
  Result<std::optional<PathValue>> Weighted(uint32_t a, uint32_t b, uint32_t min_hops,
                                            const std::function<Result<std::optional<double>>(uint32_t)>& w) {
    if (a == b && min_hops == 0) {
      PathValue p;
      p.nodes = {a};
      return std::optional<PathValue>(std::move(p));
    }
    struct Parent {
      uint32_t node, edge;
    };
    std::unordered_map<uint32_t, double> dist;
    std::unordered_map<uint32_t, Parent> parent;
    using Item = std::pair<double, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
    dist[a] = 0;
    heap.push({0, a});
    // a == b: the cheapest cycle, closed by the edge `closing` from a settled node.
    double cycle = std::numeric_limits<double>::infinity();
    std::optional<Parent> closing;
    Status error = Status::Ok();
    while (!heap.empty()) {
      const double c = heap.top().first;
      const uint32_t x = heap.top().second;
      heap.pop();
      if (c > dist[x]) continue;
      if (a == b ? c >= cycle : x == b) break;
      adj_.Each(x, /*forward=*/true, [&](uint32_t y, uint32_t e) {
        if (!error.ok()) return;
        Result<std::optional<double>> we = w(e);
        if (!we.ok()) {
          error = we.status();
          return;
        }
        if (!*we) return;
        const double nc = c + **we;
        if (a == b && y == a) {
          if (nc < cycle) cycle = nc, closing = Parent{x, e};
          return;
        }
        auto it = dist.find(y);
        if (it == dist.end() || nc < it->second) {
          dist[y] = nc;
          parent[y] = Parent{x, e};
          heap.push({nc, y});
        }
      });
      OG_RETURN_IF_ERROR(error);
    }
    PathValue p;
    std::vector<uint32_t> nodes, edges;
    uint32_t at = b;
    if (a == b) {
      if (!closing) return std::optional<PathValue>();
      p.cost = cycle;
      nodes.push_back(b);
      edges.push_back(closing->edge);
      at = closing->node;
    } else {
      auto it = dist.find(b);
      if (it == dist.end()) return std::optional<PathValue>();
      p.cost = it->second;
    }
    while (at != a) {
      const Parent& pr = parent.at(at);
      nodes.push_back(at);
      edges.push_back(pr.edge);
      at = pr.node;
    }
    nodes.push_back(a);
    p.nodes.assign(nodes.rbegin(), nodes.rend());
    p.edges.assign(edges.rbegin(), edges.rend());
    return std::optional<PathValue>(std::move(p));
  }

 private:
  // Both sides in turn, the smaller frontier first, until they meet: then the distance is d =
  // rf + rb, every node with forward distance rf and backward distance rb lies on a shortest path
  // (and every shortest path crosses one), and both maps hold every distance Walk needs.
  Result<bool> MeetInTheMiddle(uint32_t a, uint32_t b, uint32_t limit) {
    df_ = {{a, 0}};
    db_ = {{b, 0}};
    std::vector<uint32_t> ff{a}, fb{b}, next;
    rf_ = rb_ = 0;
    while (!ff.empty() && !fb.empty() && rf_ + rb_ < limit) {
      const bool fwd = ff.size() <= fb.size();
      DistMap& mine = fwd ? df_ : db_;
      const DistMap& other = fwd ? db_ : df_;
      const uint32_t level = (fwd ? rf_ : rb_) + 1;
      bool met = false;
      next.clear();
      for (uint32_t x : fwd ? ff : fb) {
        adj_.Each(x, fwd, [&](uint32_t y, uint32_t) {
          if (mine.emplace(y, level).second) {
            next.push_back(y);
            met = met || other.count(y) != 0;
          }
        });
      }
      (fwd ? rf_ : rb_) = level;
      std::swap(fwd ? ff : fb, next);
      if (met) {
        d_ = rf_ + rb_;
        return MarkUseful(a);
      }
    }
    return false;
  }

  // The forward nodes from which the meeting layer is reached by distance-increasing steps: the
  // only ones Walk may take at positions up to rf.
  Result<bool> MarkUseful(uint32_t a) {
    useful_.clear();
    std::vector<uint32_t> layer;
    for (const auto& [n, dist] : df_) {
      if (dist == rf_ && DistOf(db_, n) == rb_) layer.push_back(n);
    }
    for (uint32_t k = rf_;; --k) {
      for (uint32_t n : layer) useful_.insert(n);
      if (k == 0) break;
      std::vector<uint32_t> prev;
      for (uint32_t n : layer) {
        adj_.Each(n, /*forward=*/false, [&](uint32_t u, uint32_t) {
          if (DistOf(df_, u) == k - 1 && !useful_.count(u)) {
            useful_.insert(u);
            prev.push_back(u);
          }
        });
      }
      layer = std::move(prev);
    }
    return useful_.count(a) != 0;
  }

  // The shortest cycle through a: backward distances to a until an edge out of a enters the
  // frontier. Walk then follows backward distances only (rf = 0).
  Result<bool> CycleDistances(uint32_t a, uint32_t limit) {
    db_ = {{a, 0}};
    df_.clear();
    useful_ = {a};
    rf_ = 0;
    std::vector<uint32_t> frontier{a}, next;
    for (uint32_t j = 0; !frontier.empty() && j < limit; ++j) {
      bool closes = false;
      next.clear();
      for (uint32_t x : frontier) {
        adj_.Each(x, /*forward=*/false, [&](uint32_t u, uint32_t) {
          if (u == a) closes = true;
          if (db_.emplace(u, j + 1).second) next.push_back(u);
        });
      }
      if (closes) {
        d_ = j + 1;
        rb_ = d_;
        return true;
      }
      std::swap(frontier, next);
    }
    return false;
  }

  // Whether y may stand at position k (1..d) of a shortest path.
  bool OnPath(uint32_t y, uint32_t k, uint32_t b) const {
    if (k == d_) return y == b;
    if (k <= rf_) return DistOf(df_, y) == k && useful_.count(y) != 0;
    return DistOf(db_, y) == d_ - k;
  }

  // Extends `path` (positions 0..len-1 fixed) to b in node-id order, each step through the edge of
  // smallest id to that node.
  Status Walk(PathValue* path, uint32_t b, bool all, const std::function<Status(PathValue)>& emit, bool* stop) {
    const uint32_t k = static_cast<uint32_t>(path->nodes.size());
    if (k == d_ + 1) {
      *stop = !all;
      return emit(*path);
    }
    // Candidates: node -> its smallest-id edge from the current node.
    std::vector<std::pair<uint32_t, uint32_t>> next;
    adj_.Each(path->nodes.back(), /*forward=*/true, [&](uint32_t y, uint32_t e) {
      if (OnPath(y, k, b)) next.emplace_back(y, e);
    });
    if (next.empty()) return InternalError("shortest path: no way on at position " + std::to_string(k));
    std::sort(next.begin(), next.end(), [&](const auto& x, const auto& y) {
      return x.first != y.first && nodes_.id(x.first) < nodes_.id(y.first);
    });
    for (size_t i = 0; i < next.size() && !*stop;) {
      size_t j = i + 1;
      uint32_t edge = next[i].second;
      if (j < next.size() && next[j].first == next[i].first) {  // parallel edges: the smallest id
        OG_ASSIGN_OR_RETURN(const TableOrdinals* eids, edge_ids_());
        for (; j < next.size() && next[j].first == next[i].first; ++j) {
          if (eids->id(next[j].second) < eids->id(edge)) edge = next[j].second;
        }
      }
      path->nodes.push_back(next[i].first);
      path->edges.push_back(edge);
      OG_RETURN_IF_ERROR(Walk(path, b, all, emit, stop));
      path->nodes.pop_back();
      path->edges.pop_back();
      i = j;
    }
    return Status::Ok();
  }

  const Adjacent& adj_;
  const TableOrdinals& nodes_;
  const std::function<Result<const TableOrdinals*>()>& edge_ids_;
  DistMap df_, db_;
  std::unordered_set<uint32_t> useful_;
  uint32_t rf_ = 0, rb_ = 0, d_ = 0;
};

// The weight of edge ordinal `e` in column `c` (numeric; nullopt when null); path_weight for a
// negative or NaN one.
Result<std::optional<double>> WeightAt(const format::Column& c, uint32_t e, const std::string& property) {
  if (c.IsNull(e)) return std::optional<double>();
  double w = 0;
  switch (c.type().kind) {
    case TypeKind::kI32: w = c.i32_values()[e]; break;
    case TypeKind::kI64: w = static_cast<double>(c.i64_values()[e]); break;
    case TypeKind::kU32: w = c.u32_values()[e]; break;
    case TypeKind::kU64: w = static_cast<double>(c.u64_values()[e]); break;
    case TypeKind::kF32: w = c.f32_values()[e]; break;
    case TypeKind::kF64: w = c.f64_values()[e]; break;
    default: return InternalError("shortest path weight `" + property + "` is not numeric");
  }
  if (std::isnan(w) || w < 0) {
    return Status(ErrorCode::kPathWeight, "shortest path weight `" + property + "` is " +
                                              (std::isnan(w) ? std::string("NaN") : std::to_string(w)) +
                                              " on an edge; weights must be >= 0");
  }
  return std::optional<double>(w);
}

}  // namespace

Result<Rows> ShortestPaths(Context& ctx, const Rows& rows, const IrClause& t) {
  OG_ASSIGN_OR_RETURN(const Csr* csr, ctx.CsrFor(t.edge_type));
  OG_ASSIGN_OR_RETURN(const TableOrdinals* nodes, ctx.Ordinals(ctx.TypeOf(t.src)));
  const format::Column* weight = nullptr;
  if (!t.weight.empty()) {
    OG_ASSIGN_OR_RETURN(weight, ctx.Column(t.edge_type, t.weight));
  }
  const std::function<Result<const TableOrdinals*>()> edge_ids = [&]() { return ctx.Ordinals(t.edge_type); };
  const Adjacent adj(*csr, t.direction == compiler::Direction::kBoth);
  Search search(adj, *nodes, edge_ids);
  Rows out;
  out.width = rows.width;
  out.bound = rows.bound;
  out.bound[t.var] = true;
  out.collapsed = rows.collapsed;
  // The paths of each endpoint pair, found once per call.
  std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> found;
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t* r = rows.row(i);
    const int64_t a = r[t.src], b = r[t.dst];
    if (a < 0 || b < 0) return InternalError("shortest path with an unbound endpoint");
    auto emplaced = found.try_emplace({a, b});
    auto it = emplaced.first;
    if (emplaced.second) {
      auto keep = [&](PathValue p) -> Status {
        OG_ASSIGN_OR_RETURN(int64_t index, ctx.AddPath(std::move(p)));
        it->second.push_back(index);
        return Status::Ok();
      };
      const auto ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
      if (!csr->same_table()) {
        // Endpoints of two node types: only one hop exists (docs/language.md, "Match clauses").
        if (t.max_hops.value_or(1) >= 1 && csr->HasEdge(ua, ub)) {
          // Among parallel edges: the cheapest (weighted), then the smallest id.
          uint32_t best = UINT32_MAX;
          double best_cost = 0;
          const TableOrdinals* eids = nullptr;
          auto dsts = csr->OutNodes(ua);
          auto edges = csr->OutEdges(ua);
          for (size_t k = 0; k < dsts.size(); ++k) {
            if (dsts[k] != ub) continue;
            double cost = 1;
            if (!t.weight.empty()) {
              if (weight == nullptr) continue;  // the property is absent: null everywhere
              OG_ASSIGN_OR_RETURN(std::optional<double> w, WeightAt(*weight, edges[k], t.weight));
              if (!w) continue;  // not traversable
              cost = *w;
            }
            if (best != UINT32_MAX && cost == best_cost && eids == nullptr) {
              OG_ASSIGN_OR_RETURN(eids, edge_ids());
            }
            if (best == UINT32_MAX || cost < best_cost || (cost == best_cost && eids->id(edges[k]) < eids->id(best))) {
              best = edges[k];
              best_cost = cost;
            }
          }
          if (best != UINT32_MAX) {
            PathValue p;
            p.nodes = {ua, ub};
            p.edges = {best};
            p.cost = best_cost;
            OG_RETURN_IF_ERROR(keep(std::move(p)));
          }
        }
      } else if (!t.weight.empty()) {
        auto w = [&](uint32_t e) -> Result<std::optional<double>> {
          if (weight == nullptr) return std::optional<double>();  // the property is absent: null everywhere
          return WeightAt(*weight, e, t.weight);
        };
        OG_ASSIGN_OR_RETURN(std::optional<PathValue> p, search.Weighted(ua, ub, t.min_hops, w));
        if (p) {
          OG_RETURN_IF_ERROR(keep(std::move(*p)));
        }
      } else {
        auto hops = [&](PathValue p) {
          p.cost = static_cast<double>(p.edges.size());
          return keep(std::move(p));
        };
        OG_ASSIGN_OR_RETURN(bool any, search.Unweighted(ua, ub, t.min_hops, t.max_hops, t.all_paths, hops));
        (void)any;
      }
    }
    for (int64_t index : it->second) {
      out.Append(r);
      out.cells[out.cells.size() - rows.width + t.var] = index;
      if (!rows.mult.empty()) out.mult.push_back(rows.mult[i]);
    }
  }
  return out;
}

Result<int64_t> Context::AddPath(PathValue p) {
  OG_RETURN_IF_ERROR(Charge(sizeof(PathValue) + 4 * (p.nodes.size() + p.edges.size())));
  paths_.push_back(std::move(p));
  return static_cast<int64_t>(paths_.size() - 1);
}

Result<Value> Context::EvalPath(const IrExpr& e, const int64_t* row) {
  const int var = e.args.at(0).var;
  if (row == nullptr || row[var] < 0) return Value::Null(e.type.data);
  if (static_cast<size_t>(row[var]) >= paths_.size()) return InternalError("path index out of range");
  const PathValue& p = paths_[static_cast<size_t>(row[var])];
  switch (e.kind) {
    case IrExprKind::kPathLength: return Value::I64(static_cast<int64_t>(p.edges.size()));
    case IrExprKind::kPathCost: return Value::F64(p.cost);
    case IrExprKind::kPathNodes: {
      // The path's clause: the one binding `var` (its endpoint types name the node tables).
      const IrClause* clause = PathClause(var);
      if (clause == nullptr) return InternalError("no shortest-path clause binds the path");
      std::vector<Value> ids;
      for (size_t i = 0; i < p.nodes.size(); ++i) {
        const int end = i == 0 ? clause->src : clause->dst;
        OG_ASSIGN_OR_RETURN(const TableOrdinals* ord, Ordinals(TypeOf(end)));
        ids.push_back(Value::String(std::string(ord->id(p.nodes[i]))));
      }
      return Value::List(TypeKind::kString, std::move(ids));
    }
    case IrExprKind::kPathEdges: {
      OG_ASSIGN_OR_RETURN(const TableOrdinals* ord, Ordinals(TypeOf(var)));
      std::vector<Value> ids;
      for (uint32_t edge : p.edges) ids.push_back(Value::String(std::string(ord->id(edge))));
      return Value::List(TypeKind::kString, std::move(ids));
    }
    default: return InternalError("not a path function");
  }
}

Result<PathNodeIds> Context::PathIds(int var) {
  const IrClause* clause = PathClause(var);
  if (clause == nullptr) return InternalError("no shortest-path clause binds the path");
  OG_ASSIGN_OR_RETURN(const TableOrdinals* first, Ordinals(TypeOf(clause->src)));
  OG_ASSIGN_OR_RETURN(const TableOrdinals* rest, Ordinals(TypeOf(clause->dst)));
  return PathNodeIds(paths_, *first, *rest);
}

int PathNodeIds::Compare(int64_t x, int64_t y) const {
  if (x < 0 || y < 0) return (x >= 0) - (y >= 0);
  const auto& a = (*paths_)[static_cast<size_t>(x)].nodes;
  const auto& b = (*paths_)[static_cast<size_t>(y)].nodes;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const TableOrdinals& t = i == 0 ? *first_ : *rest_;
    if (const int c = t.id(a[i]).compare(t.id(b[i])); c != 0) return c;
  }
  return (a.size() > b.size()) - (a.size() < b.size());
}

const IrClause* Context::PathClause(int var) const {
  std::vector<const std::vector<IrClause>*> pending{&q_.clauses};
  while (!pending.empty()) {
    const std::vector<IrClause>* clauses = pending.back();
    pending.pop_back();
    for (const IrClause& c : *clauses) {
      if (c.kind == compiler::IrClauseKind::kShortestPath && c.var == var) return &c;
      if (c.kind == compiler::IrClauseKind::kNegation) pending.push_back(&c.body);
    }
  }
  return nullptr;
}

}  // namespace omnigraph::engine::exec
