#include "engine/exec/reference_eval.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "common/error_codes.h"
#include "common/json.h"
#include "engine/exec/value_compare.h"
#include "engine/search/rank.h"
#include "engine/search/text.h"
#include "engine/search/vector.h"

namespace omnigraph::engine {
namespace {

using compiler::IrClause;
using compiler::IrClauseKind;
using compiler::IrExpr;
using compiler::IrExprKind;
using compiler::IrQuery;

// A whole table as rows, with an id lookup.
struct TableData {
  std::vector<std::string> fields;
  std::vector<std::vector<Value>> rows;
  std::unordered_map<std::string, size_t> by_id;
  size_t Field(std::string_view name) const {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i] == name) return i;
    }
    return fields.size();
  }
  const std::string& Id(size_t row) const { return rows[row][Field("id")].string_value(); }
};

// out[src row] -> (dst row, edge row)
struct Adjacency {
  std::vector<std::vector<std::pair<size_t, size_t>>> out, in;
};

using Binding = std::vector<int64_t>;  // per variable: row index in its table, -1 = unbound

class Evaluator {
 public:
  Evaluator(const Snapshot& snap, const IrQuery& q, const compiler::ParamValues& params, int64_t now_ms)
      : snap_(snap), q_(q), params_(params), now_ms_(now_ms) {}

  Result<QueryResult> Run();

 private:
  Result<const TableData*> Table(const std::string& type);
  Result<const Adjacency*> Adj(const std::string& edge_type);
  Result<std::vector<Binding>> Eval(const std::vector<IrClause>& clauses, std::vector<Binding> rows);
  Result<std::vector<Binding>> Apply(const IrClause& c, std::vector<Binding> rows);
  Result<std::vector<Binding>> Traverse(const IrClause& c, std::vector<Binding> rows);
  // shortest() / all_shortest(): full breadth-first distances to the target (or Dijkstra over
  // every node), then every walk of that length that stays on them, in node-id order.
  Result<std::vector<Binding>> Shortest(const IrClause& c, std::vector<Binding> rows);
  Result<std::vector<size_t>> PathsBetween(const IrClause& c, size_t a, size_t b);
  const IrClause* PathClause(int var, const std::vector<IrClause>& clauses) const;
  Result<Value> PathFn(const IrExpr& e, const Binding& b);
  Result<Value> Expr(const IrExpr& e, const Binding& b);
  // search, fuzzy, match_text, nearest, bm25, rrf (docs/search.md).
  Result<Value> Search(const IrExpr& e, const Binding& b);
  // Ranks every rrf() of the query over the final `rows`.
  Status RankRrf(const std::vector<Binding>& rows);
  std::optional<int64_t> RrfPosition(const IrExpr& e, const Binding& b) const;
  // `agg` (kAggregate) over the rows `members` of `rows`.
  Result<Value> Aggregate(const IrExpr& agg, const std::vector<Binding>& rows, const std::vector<size_t>& members);
  const std::string& TypeOf(int var) const { return q_.variables[var].type_name; }

  const Snapshot& snap_;
  const IrQuery& q_;
  const compiler::ParamValues& params_;
  int64_t now_ms_;
  std::map<std::string, TableData> tables_;
  std::map<std::string, Adjacency> adjacency_;
  struct RefPath {
    std::vector<size_t> nodes, edges;  // table rows
    double cost = 0;
  };
  std::vector<RefPath> paths_;                                                  // bindings of path variables index this
  std::map<const IrExpr*, std::vector<double>> bm25_;                           // score per row of the field's table
  std::map<const IrExpr*, std::map<int64_t, std::pair<double, int64_t>>> rrf_;  // row -> (score, position)
};

Result<const TableData*> Evaluator::Table(const std::string& type) {
  auto it = tables_.find(type);
  if (it != tables_.end()) return &it->second;
  OG_ASSIGN_OR_RETURN(table::TableVersion t, snap_.Table(type));
  OG_ASSIGN_OR_RETURN(format::Batch b, t.ScanAll(table::ScanOptions{}));
  TableData d;
  for (const auto& f : t.schema().fields) d.fields.push_back(f.name);
  d.rows = b.ToRows();
  size_t id = d.Field("id");
  for (size_t r = 0; r < d.rows.size(); ++r) d.by_id.emplace(d.rows[r][id].string_value(), r);
  return &tables_.emplace(type, std::move(d)).first->second;
}

Result<const Adjacency*> Evaluator::Adj(const std::string& edge_type) {
  auto it = adjacency_.find(edge_type);
  if (it != adjacency_.end()) return &it->second;
  const compiler::EdgeType* e = snap_.catalog().FindEdge(edge_type);
  if (e == nullptr) return NotFoundError("unknown edge type " + edge_type);
  OG_ASSIGN_OR_RETURN(const TableData* edges, Table(edge_type));
  OG_ASSIGN_OR_RETURN(const TableData* from, Table(e->from_type));
  OG_ASSIGN_OR_RETURN(const TableData* to, Table(e->to_type));
  Adjacency a;
  a.out.resize(from->rows.size());
  a.in.resize(to->rows.size());
  size_t src = edges->Field("src"), dst = edges->Field("dst");
  for (size_t r = 0; r < edges->rows.size(); ++r) {
    auto s = from->by_id.find(edges->rows[r][src].string_value());
    auto d = to->by_id.find(edges->rows[r][dst].string_value());
    if (s == from->by_id.end() || d == to->by_id.end()) continue;  // cannot happen: loads check
    a.out[s->second].emplace_back(d->second, r);
    a.in[d->second].emplace_back(s->second, r);
  }
  return &adjacency_.emplace(edge_type, std::move(a)).first->second;
}

Result<Value> Evaluator::Expr(const IrExpr& e, const Binding& b) {
  switch (e.kind) {
    case IrExprKind::kLiteral: return e.literal;
    case IrExprKind::kParam: {
      auto it = params_.find(e.param);
      if (it == params_.end()) return InvalidArgumentError("parameter $" + e.param + " has no value");
      return it->second;
    }
    case IrExprKind::kNow: return Value::DateTime(now_ms_);
    case IrExprKind::kProperty: {
      if (b[e.var] < 0) return Value::Null(e.type.data);
      OG_ASSIGN_OR_RETURN(const TableData* t, Table(TypeOf(e.var)));
      size_t f = t->Field(e.property);
      if (f == t->fields.size()) return Value::Null(e.type.data);  // property added later: null
      return t->rows[b[e.var]][f];
    }
    case IrExprKind::kVariable: {
      if (b[e.var] < 0) return Value::Null();
      OG_ASSIGN_OR_RETURN(const TableData* t, Table(TypeOf(e.var)));
      return Value::String(t->Id(b[e.var]));
    }
    case IrExprKind::kAggregate: return InternalError("aggregate evaluated per row");
    case IrExprKind::kAlias: return InternalError("alias evaluated per row");
    case IrExprKind::kPathLength:
    case IrExprKind::kPathNodes:
    case IrExprKind::kPathEdges:
    case IrExprKind::kPathCost: return PathFn(e, b);
    default: return Search(e, b);
  }
}

Result<std::string> SearchText(const Value& v, std::string_view fn) {
  if (v.is_null()) return std::string();
  if (v.string_value().size() > search::kMaxQueryTextBytes) {
    return Status(ErrorCode::kResourceExhausted, std::string(fn) + "() query text is too long");
  }
  return v.string_value();
}

Result<Value> Evaluator::Search(const IrExpr& e, const Binding& b) {
  switch (e.kind) {
    case IrExprKind::kSearch:
    case IrExprKind::kMatchText:
    case IrExprKind::kFuzzy: {
      OG_ASSIGN_OR_RETURN(Value field, Expr(e.args[0], b));
      if (field.is_null()) return Value::Bool(false);
      OG_ASSIGN_OR_RETURN(Value qv, Expr(e.args[1], b));
      OG_ASSIGN_OR_RETURN(std::string text, SearchText(qv, compiler::SearchFunctionName(e.kind)));
      const std::string& doc = field.string_value();
      if (e.kind == IrExprKind::kSearch) {
        return Value::Bool(search::ContainsAnyToken(search::Analyze(doc), search::Analyze(text)));
      }
      if (e.kind == IrExprKind::kMatchText) {
        return Value::Bool(search::ContainsPhrase(search::Analyze(doc), search::Analyze(text)));
      }
      OG_ASSIGN_OR_RETURN(Value edits, Expr(e.args[2], b));
      if (edits.is_null()) return InvalidArgumentError("fuzzy() max_edits is null");
      const bool is_signed = edits.kind() == TypeKind::kI32 || edits.kind() == TypeKind::kI64;
      if (is_signed && edits.int_value() < 0) return InvalidArgumentError("fuzzy() max_edits must be >= 0");
      const uint64_t n = is_signed ? static_cast<uint64_t>(edits.int_value()) : edits.uint_value();
      // Plain Levenshtein over every pair of unstemmed words (the definition, unbounded).
      const auto query = search::AnalyzeUnstemmed(text);
      const auto words = search::AnalyzeUnstemmed(doc);
      const uint32_t bound = static_cast<uint32_t>(std::min<uint64_t>(n, 64));
      for (const auto& q : query) {
        for (const auto& w : words) {
          if (search::BoundedEditDistance(w.text, q.text, 1000) <= bound) return Value::Bool(true);
        }
      }
      return Value::Bool(false);
    }
    case IrExprKind::kBm25: {
      const IrExpr& field = e.args[0];
      if (b[field.var] < 0) return Value::Null(e.type.data);
      auto it = bm25_.find(&e);
      if (it == bm25_.end()) {
        OG_ASSIGN_OR_RETURN(Value qv, Expr(e.args[1], b));
        OG_ASSIGN_OR_RETURN(std::string text, SearchText(qv, "bm25"));
        OG_ASSIGN_OR_RETURN(const TableData* t, Table(TypeOf(field.var)));
        const size_t f = t->Field(field.property);
        auto scores = search::Bm25Scores(
            t->rows.size(),
            [&](size_t i) -> std::optional<std::string_view> {
              if (f == t->fields.size() || t->rows[i][f].is_null()) return std::nullopt;
              return t->rows[i][f].string_value();
            },
            text);
        it = bm25_.emplace(&e, std::move(scores)).first;
      }
      return Value::F64(it->second[static_cast<size_t>(b[field.var])]);
    }
    case IrExprKind::kNearest: {
      const IrExpr& field = e.args[0];
      OG_ASSIGN_OR_RETURN(Value v, Expr(field, b));
      if (v.is_null()) return Value::Null(e.type.data);
      OG_ASSIGN_OR_RETURN(Value qv, Expr(e.args[1], b));
      const uint32_t dim = field.type.data.dimension;
      const std::string& type = TypeOf(field.var);
      std::vector<float> query;
      if (qv.is_null()) return InvalidArgumentError("nearest() query is null");
      if (qv.kind() == TypeKind::kString) {
        OG_ASSIGN_OR_RETURN(std::string text, SearchText(qv, "nearest"));
        std::string model;
        const compiler::NodeType* node = snap_.catalog().FindNode(type);
        const compiler::Property* p = node ? node->FindProperty(field.property) : nullptr;
        if (p != nullptr && p->embed) model = p->embed->model;
        OG_ASSIGN_OR_RETURN(query, search::EmbedQuery(text, dim, model, type + "." + field.property));
      } else {
        query = qv.vector_value();
      }
      if (query.size() != dim) return Status(ErrorCode::kTypeTraversalBounds, "nearest() query dimension differs");
      return Value::F64(search::SquaredL2(v.vector_value(), query));
    }
    case IrExprKind::kRrf: {
      auto it = rrf_.find(&e);
      if (it == rrf_.end()) return InternalError("rrf() before ranking");
      const int var = e.args[0].args[0].var;
      auto f = b[var] < 0 ? it->second.end() : it->second.find(b[var]);
      if (f == it->second.end()) return Value::Null(e.type.data);
      return Value::F64(f->second.first);
    }
    default: return InternalError("not a search expression");
  }
}

Status Evaluator::RankRrf(const std::vector<Binding>& rows) {
  std::vector<const IrExpr*> fused;
  std::vector<const IrExpr*> pending;
  for (const auto& p : q_.projections) pending.push_back(&p.expr);
  for (const auto& o : q_.order) pending.push_back(&o.expr);
  while (!pending.empty()) {
    const IrExpr* e = pending.back();
    pending.pop_back();
    if (e->kind == IrExprKind::kRrf) {
      fused.push_back(e);
      continue;
    }
    for (const auto& a : e->args) pending.push_back(&a);
  }
  for (const IrExpr* e : fused) {
    const int var = e->args[0].args[0].var;
    OG_ASSIGN_OR_RETURN(const TableData* t, Table(TypeOf(var)));
    OG_ASSIGN_OR_RETURN(Value kv, Expr(e->args[2], rows.empty() ? Binding(q_.variables.size(), -1) : rows[0]));
    std::vector<int64_t> arms[2];
    for (int a = 0; a < 2; ++a) {
      const IrExpr& arm = e->args[a];
      std::vector<search::ArmEntry> entries;
      for (const Binding& b : rows) {
        if (b[var] < 0) continue;
        OG_ASSIGN_OR_RETURN(Value s, Search(arm, b));
        if (s.is_null()) continue;
        entries.push_back(search::ArmEntry{b[var], s.float_value(), t->Id(static_cast<size_t>(b[var]))});
      }
      const bool nearest = arm.kind == IrExprKind::kNearest;
      arms[a] = search::RankArm(std::move(entries), nearest, nearest ? q_.limit.value_or(0) : 0);
    }
    auto& out = rrf_[e];
    int64_t position = 0;
    for (const auto& f : search::FuseRrf(arms[0], arms[1], static_cast<double>(kv.uint_value()))) {
      out[f.entity] = {f.score, position++};
    }
  }
  return Status::Ok();
}

std::optional<int64_t> Evaluator::RrfPosition(const IrExpr& e, const Binding& b) const {
  auto it = rrf_.find(&e);
  const int var = e.args[0].args[0].var;
  if (it == rrf_.end() || b[var] < 0) return std::nullopt;
  auto f = it->second.find(b[var]);
  if (f == it->second.end()) return std::nullopt;
  return f->second.second;
}

const IrClause* Evaluator::PathClause(int var, const std::vector<IrClause>& clauses) const {
  for (const IrClause& c : clauses) {
    if (c.kind == IrClauseKind::kShortestPath && c.var == var) return &c;
    if (const IrClause* in = PathClause(var, c.body)) return in;
  }
  return nullptr;
}

Result<Value> Evaluator::PathFn(const IrExpr& e, const Binding& b) {
  const int var = e.args.at(0).var;
  if (b[var] < 0) return Value::Null(e.type.data);
  const RefPath& p = paths_.at(static_cast<size_t>(b[var]));
  if (e.kind == IrExprKind::kPathLength) return Value::I64(static_cast<int64_t>(p.edges.size()));
  if (e.kind == IrExprKind::kPathCost) return Value::F64(p.cost);
  const IrClause* c = PathClause(var, q_.clauses);
  if (c == nullptr) return InternalError("no clause binds the path");
  std::vector<Value> ids;
  if (e.kind == IrExprKind::kPathEdges) {
    OG_ASSIGN_OR_RETURN(const TableData* t, Table(c->edge_type));
    for (size_t r : p.edges) ids.push_back(Value::String(t->Id(r)));
  } else {
    for (size_t i = 0; i < p.nodes.size(); ++i) {
      OG_ASSIGN_OR_RETURN(const TableData* t, Table(TypeOf(i == 0 ? c->src : c->dst)));
      ids.push_back(Value::String(t->Id(p.nodes[i])));
    }
  }
  return Value::List(TypeKind::kString, std::move(ids));
}

Result<std::vector<size_t>> Evaluator::PathsBetween(const IrClause& c, size_t a, size_t b) {
  OG_ASSIGN_OR_RETURN(const Adjacency* adj, Adj(c.edge_type));
  const compiler::EdgeType* et = snap_.catalog().FindEdge(c.edge_type);
  OG_ASSIGN_OR_RETURN(const TableData* nodes, Table(et->to_type));
  OG_ASSIGN_OR_RETURN(const TableData* edges, Table(c.edge_type));
  const bool both = c.direction == compiler::Direction::kBoth;
  const bool hetero = et->from_type != et->to_type;
  // (neighbour, edge row) of n, forward or backward along the clause.
  auto next = [&](size_t n, bool forward) {
    std::vector<std::pair<size_t, size_t>> out;
    for (int side = 0; side < (both ? 2 : 1); ++side) {
      const bool use_out = forward == (side == 0);
      if (hetero && !use_out) continue;
      const auto& lists = use_out ? adj->out : adj->in;
      if (n < lists.size()) out.insert(out.end(), lists[n].begin(), lists[n].end());
    }
    return out;
  };
  double weight_missing = std::numeric_limits<double>::quiet_NaN();
  const size_t wf = c.weight.empty() ? 0 : edges->Field(c.weight);
  // The weight of edge row r: 1 unweighted; NaN when null (not traversable).
  auto weight = [&](size_t r) -> Result<double> {
    if (c.weight.empty()) return 1.0;
    if (wf == edges->fields.size() || edges->rows[r][wf].is_null()) return weight_missing;
    const Value& v = edges->rows[r][wf];
    const double w = IsFloatKind(v.kind())      ? v.float_value()
                     : IsUnsignedKind(v.kind()) ? static_cast<double>(v.uint_value())
                                                : static_cast<double>(v.int_value());
    if (std::isnan(w) || w < 0) return Status(ErrorCode::kPathWeight, "negative or NaN weight");
    return w;
  };
  std::vector<size_t> found;
  auto keep = [&](RefPath p) {
    found.push_back(paths_.size());
    paths_.push_back(std::move(p));
  };
  if (a == b && c.min_hops == 0 && !hetero) {
    keep(RefPath{{a}, {}, 0});
    return found;
  }
  if (hetero) {  // one hop: the cheapest edge, then the smallest id
    std::optional<std::pair<double, size_t>> best;
    for (auto [d, r] : next(a, true)) {
      if (d != b) continue;
      OG_ASSIGN_OR_RETURN(double w, weight(r));
      if (std::isnan(w)) continue;
      if (!best || w < best->first || (w == best->first && edges->Id(r) < edges->Id(best->second))) best = {{w, r}};
    }
    if (best && c.max_hops.value_or(1) >= 1) keep(RefPath{{a, b}, {best->second}, best->first});
    return found;
  }
  const double inf = std::numeric_limits<double>::infinity();
  // Distance of every node to b (Bellman-Ford style relaxation until nothing changes).
  std::vector<double> to_b(nodes->rows.size(), inf);
  to_b[b] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t n = 0; n < nodes->rows.size(); ++n) {
      for (auto [y, r] : next(n, true)) {
        OG_ASSIGN_OR_RETURN(double w, weight(r));
        if (std::isnan(w) || to_b[y] == inf) continue;
        if (to_b[y] + w < to_b[n]) to_b[n] = to_b[y] + w, changed = true;
      }
    }
  }
  // The cost of the answer: from a (at least one hop when a == b).
  double total = to_b[a];
  if (a == b) {
    total = inf;
    for (auto [y, r] : next(a, true)) {
      OG_ASSIGN_OR_RETURN(double w, weight(r));
      if (!std::isnan(w) && to_b[y] + w < total) total = to_b[y] + w;
    }
  }
  if (total == inf) return found;
  if (!c.weight.empty()) {  // one cheapest path: follow tight edges (first found)
    RefPath p{{a}, {}, total};
    size_t at = a;
    double left = total;
    while (p.edges.empty() || at != b) {
      bool moved = false;
      for (auto [y, r] : next(at, true)) {
        OG_ASSIGN_OR_RETURN(double w, weight(r));
        if (std::isnan(w) || to_b[y] + w != left) continue;
        if (y == at && !(p.edges.empty() && a == b)) continue;  // a loop is a first step only of a cycle
        p.nodes.push_back(y), p.edges.push_back(r), at = y, left = to_b[y], moved = true;
        break;
      }
      if (!moved || p.edges.size() > nodes->rows.size()) return InternalError("reference: no tight edge");
    }
    keep(std::move(p));
    return found;
  }
  const auto hops = static_cast<size_t>(total);
  if (c.max_hops && hops > *c.max_hops) return found;
  // Every walk of `hops` steps along to_b, in node-id order; parallel edges: the smallest id.
  std::function<void(RefPath&)> walk = [&](RefPath& p) {
    const size_t k = p.nodes.size();
    if (k == hops + 1) {
      if (c.all_paths || found.empty()) keep(p);
      return;
    }
    std::map<std::string, std::pair<size_t, size_t>> by_id;  // node id -> (node, edge)
    for (auto [y, r] : next(p.nodes.back(), true)) {
      const bool ok = k == hops ? y == b : (to_b[y] == static_cast<double>(hops - k) && !(y == b && a == b));
      if (!ok) continue;
      auto [it, fresh] = by_id.try_emplace(nodes->Id(y), y, r);
      if (!fresh && edges->Id(r) < edges->Id(it->second.second)) it->second.second = r;
    }
    for (const auto& [id, ye] : by_id) {
      p.nodes.push_back(ye.first);
      p.edges.push_back(ye.second);
      walk(p);
      p.nodes.pop_back();
      p.edges.pop_back();
    }
  };
  RefPath start{{a}, {}, static_cast<double>(hops)};
  walk(start);
  return found;
}

Result<std::vector<Binding>> Evaluator::Shortest(const IrClause& c, std::vector<Binding> rows) {
  std::vector<Binding> out;
  for (const Binding& b : rows) {
    std::vector<size_t> as, bs;
    for (auto [end, list] : {std::pair{c.src, &as}, std::pair{c.dst, &bs}}) {
      if (b[end] >= 0) {
        list->push_back(static_cast<size_t>(b[end]));
        continue;
      }
      OG_ASSIGN_OR_RETURN(const TableData* t, Table(TypeOf(end)));
      for (size_t i = 0; i < t->rows.size(); ++i) list->push_back(i);
    }
    for (size_t a : as) {
      for (size_t d : bs) {
        if (c.src == c.dst && a != d) continue;
        OG_ASSIGN_OR_RETURN(std::vector<size_t> paths, PathsBetween(c, a, d));
        for (size_t p : paths) {
          Binding nb = b;
          nb[c.src] = static_cast<int64_t>(a);
          nb[c.dst] = static_cast<int64_t>(d);
          nb[c.var] = static_cast<int64_t>(p);
          out.push_back(std::move(nb));
        }
      }
    }
  }
  return out;
}

Result<std::vector<Binding>> Evaluator::Traverse(const IrClause& c, std::vector<Binding> rows) {
  OG_ASSIGN_OR_RETURN(const Adjacency* adj, Adj(c.edge_type));
  const compiler::EdgeType* e = snap_.catalog().FindEdge(c.edge_type);
  OG_ASSIGN_OR_RETURN(const TableData* from, Table(e->from_type));
  bool both = c.direction == compiler::Direction::kBoth;
  std::vector<Binding> out;
  for (const Binding& b : rows) {
    std::vector<size_t> sources;
    if (b[c.src] >= 0)
      sources.push_back(static_cast<size_t>(b[c.src]));
    else
      for (size_t i = 0; i < from->rows.size(); ++i) sources.push_back(i);
    for (size_t s : sources) {
      auto emit = [&](size_t dst, int64_t edge_row) {
        if (b[c.dst] >= 0 && static_cast<size_t>(b[c.dst]) != dst) return;
        if (c.src == c.dst && dst != s) return;  // `$a knows $a`: one variable, one node
        Binding nb = b;
        nb[c.src] = static_cast<int64_t>(s);
        nb[c.dst] = static_cast<int64_t>(dst);
        if (c.edge_var >= 0) nb[c.edge_var] = edge_row;
        out.push_back(std::move(nb));
      };
      if (c.edge_var >= 0) {  // one row per edge (hops are 1 by the type checker)
        for (auto [d, er] : adj->out[s]) emit(d, static_cast<int64_t>(er));
        if (both) {
          for (auto [d, er] : adj->in[s]) {
            if (d != s) emit(d, static_cast<int64_t>(er));  // a self-loop is one edge, listed once
          }
        }
        continue;
      }
      // Breadth-first distance semantics (docs/language.md, "Match clauses").
      auto neighbours = [&](size_t n) {
        std::vector<size_t> ns;
        for (auto [d, er] : adj->out[n]) ns.push_back(d);
        if (both)
          for (auto [d, er] : adj->in[n]) ns.push_back(d);
        return ns;
      };
      std::set<size_t> visited{s}, produced;
      std::vector<size_t> frontier{s};
      // Row indexes of two different tables never denote the same node: across tables only the
      // first hop exists (its targets have no edges of this type) and hop 0 produces nothing.
      const bool hetero = e->from_type != e->to_type;
      if (c.min_hops == 0 && !hetero) {
        produced.insert(s);
        emit(s, -1);
      }
      for (uint32_t h = 1; !frontier.empty() && (!c.max_hops || h <= *c.max_hops) && (!hetero || h == 1); ++h) {
        std::vector<size_t> next;
        for (size_t n : frontier) {
          for (size_t d : neighbours(n)) {
            if (hetero) {
              if (h >= c.min_hops && produced.insert(d).second) emit(d, -1);
              continue;
            }
            if (d == n) {  // self-loop: produce n at hop h without re-entering the frontier
              if (h >= c.min_hops && produced.insert(n).second) emit(n, -1);
              continue;
            }
            if (!visited.insert(d).second) continue;
            next.push_back(d);
            if (h >= c.min_hops && produced.insert(d).second) emit(d, -1);
          }
        }
        frontier = std::move(next);
      }
    }
  }
  return out;
}

Result<std::vector<Binding>> Evaluator::Apply(const IrClause& c, std::vector<Binding> rows) {
  switch (c.kind) {
    case IrClauseKind::kBinding: {
      OG_ASSIGN_OR_RETURN(const TableData* t, Table(c.type_name));
      std::vector<Binding> out;
      for (const Binding& b : rows) {
        std::vector<size_t> candidates;
        if (b[c.var] >= 0)
          candidates.push_back(static_cast<size_t>(b[c.var]));
        else
          for (size_t i = 0; i < t->rows.size(); ++i) candidates.push_back(i);
        for (size_t r : candidates) {
          bool ok = true;
          for (const auto& eq : c.equalities) {
            OG_ASSIGN_OR_RETURN(Value want, Expr(eq.value, b));
            size_t f = t->Field(eq.property);
            Value have = f < t->fields.size() ? t->rows[r][f] : Value::Null();
            if (!exec::CompareValues(have, compiler::CompareOp::kEq, want)) {
              ok = false;
              break;
            }
          }
          if (!ok) continue;
          Binding nb = b;
          nb[c.var] = static_cast<int64_t>(r);
          out.push_back(std::move(nb));
        }
      }
      return out;
    }
    case IrClauseKind::kTraversal: return Traverse(c, std::move(rows));
    case IrClauseKind::kShortestPath: return Shortest(c, std::move(rows));
    case IrClauseKind::kFilter: {
      std::vector<Binding> out;
      for (Binding& b : rows) {
        OG_ASSIGN_OR_RETURN(Value l, Expr(c.lhs, b));
        OG_ASSIGN_OR_RETURN(Value r, Expr(c.rhs, b));
        if (exec::CompareValues(l, c.op, r)) out.push_back(std::move(b));
      }
      return out;
    }
    case IrClauseKind::kNegation: {
      std::vector<Binding> out;
      for (Binding& b : rows) {
        OG_ASSIGN_OR_RETURN(auto inner, Eval(c.body, {b}));
        if (inner.empty()) out.push_back(std::move(b));
      }
      return out;
    }
    case IrClauseKind::kTextFilter: {
      std::vector<Binding> out;
      for (Binding& b : rows) {
        OG_ASSIGN_OR_RETURN(Value v, Expr(c.call, b));
        if (!v.is_null() && v.bool_value()) out.push_back(std::move(b));
      }
      return out;
    }
  }
  return InternalError("unknown clause");
}

Result<std::vector<Binding>> Evaluator::Eval(const std::vector<IrClause>& clauses, std::vector<Binding> rows) {
  // Bindings and traversals first, then filters and negations: the type checker lets a filter
  // mention a variable that a later clause binds, so source order alone would see it unbound.
  // Shortest paths in between: both their endpoints are bound by then (or range over their type).
  for (int pass = 0; pass < 3; ++pass) {
    for (const IrClause& c : clauses) {
      const bool binds = c.kind == IrClauseKind::kBinding || c.kind == IrClauseKind::kTraversal;
      const int when = binds ? 0 : c.kind == IrClauseKind::kShortestPath ? 1 : 2;
      if (when != pass) continue;
      OG_ASSIGN_OR_RETURN(rows, Apply(c, std::move(rows)));
    }
  }
  return rows;
}

Result<Value> Evaluator::Aggregate(const IrExpr& agg, const std::vector<Binding>& rows,
                                   const std::vector<size_t>& members) {
  using compiler::AggFn;
  std::vector<Value> vals;
  for (size_t m : members) {
    OG_ASSIGN_OR_RETURN(Value v, Expr(agg.args.at(0), rows[m]));
    if (!v.is_null()) vals.push_back(std::move(v));
  }
  if (agg.agg == AggFn::kCount) return Value::I64(static_cast<int64_t>(vals.size()));
  if (vals.empty()) return Value::Null(agg.type.data);
  // -0 before 0: min/max independent of row order.
  if (agg.agg == AggFn::kMin) return *std::min_element(vals.begin(), vals.end(), exec::MinMaxLess);
  if (agg.agg == AggFn::kMax) return *std::max_element(vals.begin(), vals.end(), exec::MinMaxLess);
  const TypeKind in = agg.args.at(0).type.data.kind;
  const bool is_float = IsFloatKind(in);
  const bool is_unsigned = IsUnsignedKind(in);
  double fsum = 0;
  __int128_t isum = 0;  // exact: |sum| < 2^64 * 2^64 for any possible row count
  for (const auto& v : vals) {
    if (is_float)
      fsum += v.float_value();
    else if (is_unsigned)
      isum += static_cast<__int128_t>(v.uint_value());
    else
      isum += v.int_value();
  }
  const double n = static_cast<double>(vals.size());
  if (agg.agg == AggFn::kAvg) return Value::F64((is_float ? fsum : static_cast<double>(isum)) / n);
  if (is_float) return Value::F64(fsum);
  if (is_unsigned) {
    if (isum > static_cast<__int128_t>(std::numeric_limits<uint64_t>::max())) {
      return Status(ErrorCode::kResourceExhausted, "sum() overflows U64");
    }
    return Value::U64(static_cast<uint64_t>(isum));
  }
  if (isum > std::numeric_limits<int64_t>::max() || isum < std::numeric_limits<int64_t>::min()) {
    return Status(ErrorCode::kResourceExhausted, "sum() overflows I64");
  }
  return Value::I64(static_cast<int64_t>(isum));
}

Result<QueryResult> Evaluator::Run() {
  if (q_.is_mutation)
    return InvalidArgumentError("'" + q_.name + "' is a mutation: the reference evaluator runs reads");
  // A nearest() or rrf() ranking asks for its limit in rows: bounded.
  for (const auto& o : q_.order) {
    const bool ranks = o.expr.kind == IrExprKind::kNearest || o.expr.kind == IrExprKind::kRrf;
    if (ranks && q_.limit.value_or(0) > search::kMaxRankedRows) {
      return Status(ErrorCode::kResourceExhausted,
                    "a nearest()/rrf() ranking is limited to " + std::to_string(search::kMaxRankedRows) + " rows");
    }
  }
  Binding start(q_.variables.size(), -1);
  OG_ASSIGN_OR_RETURN(std::vector<Binding> rows, Eval(q_.clauses, {start}));
  QueryResult res;
  for (const auto& p : q_.projections) {
    res.columns.push_back(p.name);
    res.types.push_back(p.expr.type);
  }
  struct Out {
    std::vector<Value> values;
    std::vector<Value> order;
    std::vector<std::string> tie;  // ids of bound entities in binding order
    std::vector<Value> key;        // aggregate queries: the group's key values
  };
  std::vector<Out> outs;
  auto tie_ids = [&](const Binding& b) -> Result<std::vector<std::string>> {
    std::vector<std::string> ids;
    for (size_t v = 0; v < q_.variables.size(); ++v) {
      if (q_.variables[v].scope != 0) continue;
      if (b[v] < 0) {
        ids.emplace_back();
        continue;
      }
      if (q_.variables[v].kind == compiler::VarKind::kPath) {  // the node ids in order
        const IrClause* c = PathClause(static_cast<int>(v), q_.clauses);
        if (c == nullptr) return InternalError("no clause binds the path");
        OG_ASSIGN_OR_RETURN(const TableData* t, Table(TypeOf(c->dst)));
        std::string key;
        for (size_t n : paths_[b[v]].nodes) key += t->Id(n) + std::string(1, '\0');
        ids.push_back(std::move(key));
        continue;
      }
      OG_ASSIGN_OR_RETURN(const TableData* t, Table(TypeOf(static_cast<int>(v))));
      ids.push_back(t->Id(b[v]));
    }
    return ids;
  };
  // Ranking keys also decide membership: nearest() needs a vector, bm25() a matching term, rrf()
  // an entity in one of its arms; rrf() orders by its fused position.
  bool ranked_out = false;
  auto order_values = [&](const std::vector<Value>& projected, const Binding& b) -> Result<std::vector<Value>> {
    std::vector<Value> ov;
    for (const auto& o : q_.order) {
      const IrExpr& e = o.expr.kind == IrExprKind::kAlias ? q_.projections[o.expr.alias].expr : o.expr;
      if (e.kind == IrExprKind::kRrf) {
        std::optional<int64_t> pos = RrfPosition(e, b);
        ranked_out = ranked_out || !pos;
        ov.push_back(pos ? Value::I64(*pos) : Value::Null(DataType::Scalar(TypeKind::kI64)));
        continue;
      }
      Value v;
      if (o.expr.kind == IrExprKind::kAlias) {
        v = projected[o.expr.alias];
      } else {
        OG_ASSIGN_OR_RETURN(v, Expr(o.expr, b));
      }
      if (e.kind == IrExprKind::kNearest) ranked_out = ranked_out || v.is_null();
      if (e.kind == IrExprKind::kBm25) ranked_out = ranked_out || v.is_null() || !(v.float_value() > 0);
      ov.push_back(std::move(v));
    }
    return ov;
  };
  OG_RETURN_IF_ERROR(RankRrf(rows));
  if (!q_.has_aggregate) {
    for (const Binding& b : rows) {
      ranked_out = false;
      Out o;
      for (const auto& p : q_.projections) {
        OG_ASSIGN_OR_RETURN(Value v, Expr(p.expr, b));
        o.values.push_back(std::move(v));
      }
      OG_ASSIGN_OR_RETURN(o.order, order_values(o.values, b));
      if (ranked_out) continue;
      OG_ASSIGN_OR_RETURN(o.tie, tie_ids(b));
      outs.push_back(std::move(o));
    }
  } else {
    // Implicit GROUP BY the non-aggregate projections, by typed value equality (Value::Compare).
    auto key_less = [](const std::vector<Value>& a, const std::vector<Value>& b) {
      return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                          [](const Value& x, const Value& y) { return x.Compare(y) < 0; });
    };
    std::map<std::vector<Value>, std::vector<size_t>, decltype(key_less)> groups(key_less);
    for (size_t i = 0; i < rows.size(); ++i) {
      std::vector<Value> key;
      for (int k : q_.group_keys) {
        OG_ASSIGN_OR_RETURN(Value v, Expr(q_.projections[k].expr, rows[i]));
        if (!v.is_null() && IsFloatKind(v.kind()) && v.float_value() == 0) {
          v = v.kind() == TypeKind::kF32 ? Value::F32(0.0f) : Value::F64(0.0);  // -0 and 0: one group, shown as 0
        }
        key.push_back(std::move(v));
      }
      groups[key].push_back(i);
    }
    if (groups.empty() && q_.group_keys.empty()) groups[{}] = {};
    for (const auto& [key, members] : groups) {
      Binding first = members.empty() ? start : rows[members.front()];
      Out o;
      size_t k = 0;
      for (const auto& p : q_.projections) {
        if (!p.aggregate) {
          o.values.push_back(key[k++]);
          continue;
        }
        OG_ASSIGN_OR_RETURN(Value v, Aggregate(p.expr, rows, members));
        o.values.push_back(std::move(v));
      }
      for (const auto& ord : q_.order) {
        if (ord.expr.kind == IrExprKind::kAlias) {
          o.order.push_back(o.values[ord.expr.alias]);
        } else if (ord.expr.kind == IrExprKind::kAggregate) {
          OG_ASSIGN_OR_RETURN(Value v, Aggregate(ord.expr, rows, members));
          o.order.push_back(std::move(v));
        } else {
          OG_ASSIGN_OR_RETURN(Value v, Expr(ord.expr, first));
          o.order.push_back(std::move(v));
        }
      }
      o.key = key;
      outs.push_back(std::move(o));
    }
  }
  std::stable_sort(outs.begin(), outs.end(), [&](const Out& a, const Out& b) {
    for (size_t i = 0; i < q_.order.size(); ++i) {
      const IrExpr& e =
          q_.order[i].expr.kind == IrExprKind::kAlias ? q_.projections[q_.order[i].expr.alias].expr : q_.order[i].expr;
      auto c = exec::OrderValues(a.order[i], b.order[i], e.kind == IrExprKind::kRrf ? false : q_.order[i].descending);
      if (c != 0) return c < 0;
    }
    if (a.tie != b.tie) return a.tie < b.tie;
    for (size_t i = 0; i < a.key.size(); ++i) {  // groups: by their keys
      auto c = a.key[i].Compare(b.key[i]);
      if (c != 0) return c < 0;
    }
    return false;
  });
  if (q_.limit && outs.size() > *q_.limit) outs.resize(*q_.limit);
  for (auto& o : outs) res.rows.push_back(std::move(o.values));
  return res;
}

}  // namespace

Result<QueryResult> EvaluateReference(const Snapshot& snap, const compiler::IrQuery& query,
                                      const compiler::ParamValues& params, int64_t now_ms) {
  return Evaluator(snap, query, params, now_ms).Run();
}

}  // namespace omnigraph::engine
