// The match pipeline of the executor (executor.h): planning per clause list, seeding scans with
// pushed-down predicates, CSR expansion, filters and anti-joins.
#include "engine/exec/executor.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <numeric>
#include <set>
#include <unordered_map>

#include "common/error_codes.h"
#include "engine/exec/executor_internal.h"
#include "engine/exec/executor_pipeline.h"

namespace omnigraph::engine {
namespace exec {

using compiler::CompareOp;
using compiler::IrClause;
using compiler::IrClauseKind;
using compiler::IrExpr;
using compiler::IrExprKind;

namespace {

// An anti-join's sink: which probe rows (numbered in the spare slot) have a match.
class MatchSink final : public RowSink {
 public:
  MatchSink(size_t rows, size_t slot) : matched_(rows, false), slot_(slot) {}
  Status Add(Rows rows) override {
    for (size_t i = 0; i < rows.size(); ++i) matched_[static_cast<size_t>(rows.row(i)[slot_])] = true;
    return Status::Ok();
  }
  bool matched(size_t i) const { return matched_[i]; }

 private:
  std::vector<bool> matched_;
  size_t slot_;
};

}  // namespace

Pipeline::~Pipeline() = default;

Status Pipeline::Prepare() {
  const auto& vars = ctx_.query().variables;
  var_tests_.assign(vars.size(), {});
  std::vector<bool> visible = BoundByClauses(clauses_, vars.size());
  for (size_t v = 0; v < seed_vars_ && v < visible.size(); ++v) visible[v] = true;
  for (const IrClause& c : clauses_) {
    switch (c.kind) {
      case IrClauseKind::kBinding:
        needed_.insert(c.var);
        for (const auto& eq : c.equalities) {
          IrExpr& p = owned_.emplace_back();
          p.kind = IrExprKind::kProperty;
          p.var = c.var;
          p.property = eq.property;
          p.type = eq.value.type;
          var_tests_[c.var].push_back(Test{&p, CompareOp::kEq, &eq.value});
        }
        break;
      case IrClauseKind::kTraversal:
      case IrClauseKind::kShortestPath:  // applied once both endpoints are bound (PickTraversal)
        needed_.insert(c.src);
        needed_.insert(c.dst);
        if (c.edge_var >= 0) order_vars_.insert(c.edge_var);
        traversals_.push_back(&c);
        break;
      case IrClauseKind::kFilter:
      case IrClauseKind::kTextFilter: {
        // A text filter (search, fuzzy, match_text) is the test `call = true`.
        const bool text = c.kind == IrClauseKind::kTextFilter;
        const IrExpr* lhs = text ? &c.call : &c.lhs;
        const IrExpr* rhs = &c.rhs;
        if (text) {
          IrExpr& yes = owned_.emplace_back();
          yes.kind = IrExprKind::kLiteral;
          yes.literal = Value::Bool(true);
          yes.type = c.call.type;
          rhs = &yes;
        }
        std::set<int> vs;
        ExprVars(*lhs, &vs);
        ExprVars(*rhs, &vs);
        Test t{lhs, text ? CompareOp::kEq : c.op, rhs};
        if (vs.empty())
          constant_.push_back(t);
        else if (vs.size() == 1)
          var_tests_[*vs.begin()].push_back(t);
        else
          multi_.emplace_back(t, std::move(vs));
        break;
      }
      case IrClauseKind::kNegation: {
        auto n = std::make_unique<Negation>();
        n->block = NegationQuery(ctx_.query(), c, visible);
        n->ctx = std::make_unique<Context>(ctx_, n->block.query);
        n->plan = std::make_unique<Pipeline>(*n->ctx, n->block.query.clauses, n->block.outer.size());
        OG_RETURN_IF_ERROR(n->plan->Prepare());
        negations_.push_back(std::move(n));
        break;
      }
    }
  }
  // Ordering by bm25() keeps only rows with a query term (OrderRows): the test `bm25(...) > 0`
  // on the ranked variable lets its candidates come from the column's index.
  for (const auto& o : ctx_.query().order) {
    const IrExpr& e = o.expr.kind == IrExprKind::kAlias ? ctx_.query().projections[o.expr.alias].expr : o.expr;
    if (e.kind != IrExprKind::kBm25 || e.args[0].var < 0 || static_cast<size_t>(e.args[0].var) >= var_tests_.size()) {
      continue;
    }
    IrExpr& zero = owned_.emplace_back();
    zero.kind = IrExprKind::kLiteral;
    zero.literal = Value::F64(0.0);
    zero.type = e.type;
    var_tests_[e.args[0].var].push_back(Test{&e, CompareOp::kGt, &zero});
  }
  order_vars_.insert(needed_.begin(), needed_.end());
  return Status::Ok();
}

Result<Rows> Pipeline::ColumnChecks(Rows rows, int var, std::vector<const Test*>* tests) {
  std::vector<uint32_t> ords;  // the rows' bindings of var, then those passing the tests
  for (auto it = tests->begin(); it != tests->end() && rows.size() > 0;) {
    const IrExpr* prop = nullptr;
    const IrExpr* other = nullptr;
    bool left = false;
    if (!ColumnTest(**it, var, &prop, &other, &left)) {
      ++it;
      continue;
    }
    if (ords.empty()) {
      ords.reserve(rows.size());
      for (size_t i = 0; i < rows.size(); ++i) {
        const int64_t o = rows.row(i)[var];
        if (o < 0) return rows;  // unbound in some row: per row
        ords.push_back(static_cast<uint32_t>(o));
      }
    }
    OG_ASSIGN_OR_RETURN(const format::Column* c, ctx_.Column(ctx_.TypeOf(var), prop->property));
    OG_ASSIGN_OR_RETURN(Value v, ctx_.Eval(*other, nullptr));
    const std::vector<uint32_t> before = ords;
    FilterByColumn(c, (*it)->op, v, left, &ords);  // keeps order (and repeated ordinals)
    // A row passes iff its ordinal is the next one kept: an ordinal passes or fails everywhere.
    Rows out = Slice(rows, 0, 0);
    out.mult.clear();
    const bool mult = !rows.mult.empty();
    size_t k = 0;
    for (size_t i = 0; i < before.size() && k < ords.size(); ++i) {
      if (before[i] != ords[k]) continue;
      ++k;
      out.Append(rows.row(i));
      if (mult) out.mult.push_back(rows.mult[i]);
    }
    rows = std::move(out);
    it = tests->erase(it);
  }
  return rows;
}

Result<Rows> Pipeline::ApplyChecks(Rows rows, int var, bool with_var, std::vector<bool>* multi_done) {
  std::vector<const Test*> tests;
  if (with_var && var >= 0) {
    auto pushed = edge_tests_.find(var);  // applied in Expand
    for (size_t i = 0; i < var_tests_[var].size(); ++i) {
      if (pushed == edge_tests_.end() || !pushed->second.pushed[i]) tests.push_back(&var_tests_[var][i]);
    }
    // Many rows: property-versus-constant tests over the column, as Candidates applies them.
    if (!tests.empty() && rows.size() >= kColumnCheckRows && !rows.Collapsed(var)) {
      OG_ASSIGN_OR_RETURN(rows, ColumnChecks(std::move(rows), var, &tests));
    }
  }
  for (size_t i = 0; i < multi_.size(); ++i) {
    if ((*multi_done)[i]) continue;
    bool ready = true;
    for (int v : multi_[i].second) ready = ready && rows.bound[v];
    if (!ready) continue;
    (*multi_done)[i] = true;
    tests.push_back(&multi_[i].first);
  }
  if (tests.empty() || rows.size() == 0) return rows;
  Rows out;
  out.width = rows.width;
  out.bound = rows.bound;
  for (size_t i = 0; i < rows.size(); ++i) {
    bool keep = true;
    for (const Test* t : tests) {
      OG_ASSIGN_OR_RETURN(keep, Check(*t, rows.row(i)));
      if (!keep) break;
    }
    if (keep) out.Append(rows.row(i));
  }
  return out;
}

std::optional<std::vector<PathLink>> Pipeline::CountableChain(const Rows& rows, const IrClause& first,
                                                              const std::vector<const IrClause*>& rest,
                                                              const std::vector<bool>& multi_done) const {
  if (!negations_.empty()) return std::nullopt;
  std::vector<PathLink> chain;
  std::set<int> fresh_vars;
  std::vector<const IrClause*> left = rest;
  const IrClause* t = &first;
  int at = -1;  // the variable the next link starts from
  while (true) {
    if (t->kind != IrClauseKind::kTraversal || t->src == t->dst) return std::nullopt;
    // An edge variable is counted per edge when its tests all apply in EdgeFilter.
    const EdgeMask* allowed = nullptr;
    if (t->edge_var >= 0) {
      if (rows.bound[t->edge_var] || !EdgeTestsAllPushed(t->edge_var, multi_done)) return std::nullopt;
      Result<const EdgeMask*> f = EdgeFilter(t->edge_var);
      if (!f.ok()) return std::nullopt;
      allowed = *f;
    }
    bool forward;
    if (at < 0) {
      const bool sb = rows.bound[t->src], db = rows.bound[t->dst];
      if (sb == db) return std::nullopt;
      forward = sb;
    } else if (t->src == at) {
      forward = true;
    } else if (t->dst == at) {
      forward = false;
    } else {
      return std::nullopt;
    }
    const int fresh = forward ? t->dst : t->src;
    if (rows.bound[fresh] || fresh_vars.count(fresh) || !Unconstrained(fresh, multi_done)) return std::nullopt;
    fresh_vars.insert(fresh);
    chain.push_back(PathLink{t, forward, allowed});
    at = fresh;
    if (left.empty()) break;
    auto next = std::find_if(left.begin(), left.end(), [&](const IrClause* c) { return c->src == at || c->dst == at; });
    if (next == left.end()) return std::nullopt;
    t = *next;
    left.erase(next);
  }
  for (int u : needed_) {
    if (!rows.bound[u] && !fresh_vars.count(u)) return std::nullopt;
  }
  return chain;
}

Status Pipeline::Run(Rows rows, RowSink& sink, const RunMode& mode) {
  State st{traversals_, std::vector<bool>(multi_.size(), false)};
  for (const Test& t : constant_) {
    OG_ASSIGN_OR_RETURN(bool ok, Check(t, nullptr));
    if (!ok) rows.cells.clear();
  }
  for (size_t v = 0; v < rows.width; ++v) {  // tests of variables bound by the seed
    if (rows.bound[v] && !var_tests_[v].empty()) {
      OG_ASSIGN_OR_RETURN(rows, ApplyChecks(std::move(rows), static_cast<int>(v), true, &st.multi_done));
    }
  }
  OG_ASSIGN_OR_RETURN(rows, ApplyChecks(std::move(rows), -1, false, &st.multi_done));
  return Continue(std::move(rows), std::move(st), sink, mode);
}

int Pipeline::NextVariable(const Rows& rows) const {
  for (int v : needed_) {
    if (!rows.bound[v]) return v;
  }
  return -1;
}

bool Pipeline::OrderedStep(const Rows& rows, const IrClause& t) const {
  std::vector<int> fresh;
  for (int v : {t.src, t.dst, t.edge_var}) {
    if (v >= 0 && !rows.bound[v]) fresh.push_back(v);
  }
  std::sort(fresh.begin(), fresh.end());
  size_t k = 0;  // the unbound order variables, from the first: fresh's, in order
  for (int v : order_vars_) {
    if (rows.bound[v]) continue;
    if (k == fresh.size()) break;
    if (v != fresh[k++]) return false;
  }
  return k == fresh.size();
}

int Pipeline::PickTraversal(const Rows& rows, const State& st, bool ordered) const {
  // Both endpoints bound first (the traversal only filters), then one bound.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < st.pending.size(); ++i) {
      const IrClause& t = *st.pending[i];
      const bool sb = rows.bound[t.src], db = rows.bound[t.dst];
      const bool path = t.kind == IrClauseKind::kShortestPath;  // only once both are bound
      if (pass == 0 ? (sb && db) : (!path && sb != db)) {
        if (!ordered || OrderedStep(rows, t)) return static_cast<int>(i);
      }
    }
  }
  return -1;
}

Result<int> Pipeline::PickSeed(const Rows& rows) const {
  int best = -1;
  std::pair<int, uint64_t> best_score{3, 0};
  for (int v : needed_) {
    if (rows.bound[v]) continue;
    OG_ASSIGN_OR_RETURN(const table::TableVersion* tv, ctx_.Table(ctx_.TypeOf(v)));
    int cls = var_tests_[v].empty() ? 2 : 1;
    for (const Test& t : var_tests_[v]) {
      bool is_key = false;
      if (IdConstant(v, t, &is_key) != nullptr) cls = 0;
    }
    std::pair<int, uint64_t> score{cls, tv->row_count()};
    if (best < 0 || score < best_score) best = v, best_score = score;
  }
  return best;
}

Result<bool> Pipeline::OrderedFits(const Rows& seed) {
  for (const IrClause* t : traversals_) {
    if (t->kind == IrClauseKind::kShortestPath) return false;
    if (t->edge_var < 0) continue;
    // An edge variable binds together with its later endpoint, so it must come right after it in
    // the order (the type checker numbers it after both endpoints). Else that endpoint would be
    // seeded on its own, by a scan of its table per row bound before it: the general plan instead.
    const int hi = std::max(t->src, t->dst), e = t->edge_var;
    if (e < hi || std::any_of(order_vars_.begin(), order_vars_.end(), [&](int v) { return v > hi && v < e; })) {
      return false;
    }
    // Nor when a test reads the edge variable: a filter that keeps few edges would leave the run
    // expanding row by row through the whole table (the general plan filters in batches).
    if (!var_tests_[e].empty()) return false;
    for (const auto& [test, vars] : multi_) {
      if (vars.count(e)) return false;
    }
  }
  if (needed_.empty()) return false;
  OG_ASSIGN_OR_RETURN(int first, PickSeed(seed));
  return first == *needed_.begin();
}

Status Pipeline::SortByIds(Rows* rows, const std::vector<int>& vars) {
  const size_t n = rows->size();
  if (n < 2) return Status::Ok();
  // Node variables first (OrderedFits: an edge variable comes after its endpoints), by their
  // ordinals' ids; then each run of rows tying on them (parallel edges) by its edges' ids, read by
  // point for that run only: most runs are one row, so a scan reads no edge id.
  std::vector<int> nodes, edges;
  for (int v : vars) (ctx_.query().variables[v].kind == compiler::VarKind::kNode ? nodes : edges).push_back(v);
  if (!edges.empty() && !nodes.empty() && *std::min_element(edges.begin(), edges.end()) < nodes.back()) {
    return InternalError("ordered run: an edge variable before a node variable it binds with");
  }
  std::vector<const TableOrdinals*> ords;
  for (int v : nodes) {
    OG_ASSIGN_OR_RETURN(const TableOrdinals* ord, ctx_.Ordinals(ctx_.TypeOf(v)));
    ords.push_back(ord);
  }
  auto node_less = [&](size_t a, size_t b) {
    for (size_t k = 0; k < nodes.size(); ++k) {
      const std::string_view x = ords[k]->id(static_cast<uint32_t>(rows->row(a)[nodes[k]]));
      const std::string_view y = ords[k]->id(static_cast<uint32_t>(rows->row(b)[nodes[k]]));
      if (x != y) return x < y;
    }
    return false;
  };
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(), node_less);
  for (size_t lo = 0; lo < n && !edges.empty();) {
    size_t hi = lo + 1;
    while (hi < n && !node_less(idx[lo], idx[hi])) ++hi;
    if (hi - lo >= 2) {
      std::vector<std::string_view> ids((hi - lo) * edges.size());
      for (size_t k = 0; k < edges.size(); ++k) {
        const std::string& type = ctx_.TypeOf(edges[k]);
        std::vector<int64_t> ordinals;
        for (size_t i = lo; i < hi; ++i) ordinals.push_back(rows->row(idx[i])[edges[k]]);
        OG_RETURN_IF_ERROR(ctx_.PrefetchIds(type, ordinals));
        for (size_t i = lo; i < hi; ++i) {
          OG_ASSIGN_OR_RETURN(ids[(i - lo) * edges.size() + k], ctx_.IdOf(type, rows->row(idx[i])[edges[k]]));
        }
      }
      const size_t w = edges.size();
      std::vector<size_t> run(hi - lo);
      std::iota(run.begin(), run.end(), size_t{0});
      std::stable_sort(run.begin(), run.end(), [&](size_t a, size_t b) {
        return std::lexicographical_compare(ids.begin() + a * w, ids.begin() + a * w + w, ids.begin() + b * w,
                                            ids.begin() + b * w + w);
      });
      std::vector<size_t> reordered;
      for (size_t r : run) reordered.push_back(idx[lo + r]);
      std::copy(reordered.begin(), reordered.end(), idx.begin() + static_cast<std::ptrdiff_t>(lo));
    }
    lo = hi;
  }
  Rows sorted;
  sorted.width = rows->width;
  sorted.bound = rows->bound;
  sorted.collapsed = rows->collapsed;
  sorted.cells.reserve(rows->cells.size());
  for (size_t i : idx) sorted.Append(rows->row(i));
  *rows = std::move(sorted);
  return Status::Ok();
}

Result<Rows> Pipeline::AntiJoin(Rows rows, Negation& neg) {
  if (rows.size() == 0) return rows;
  // Probe rows in the block's numbering: its outer variables, its local ones (unbound), and the
  // probe row's number in the spare slot, which every step copies.
  const size_t width = neg.block.query.variables.size() + 1;
  const size_t slot = width - 1;
  Rows probe;
  probe.width = width;
  probe.bound.assign(width, false);
  for (size_t j = 0; j < neg.block.outer.size(); ++j) {
    if (!rows.bound[neg.block.outer[j]]) return InternalError("a `not` block reads an unbound variable");
    probe.bound[j] = true;
  }
  BudgetCharge charge(ctx_);
  OG_RETURN_IF_ERROR(charge.Add(8 * rows.size() * width));
  probe.cells.assign(rows.size() * width, -1);
  for (size_t i = 0; i < rows.size(); ++i) {
    int64_t* p = probe.cells.data() + i * width;
    for (size_t j = 0; j < neg.block.outer.size(); ++j) p[j] = rows.row(i)[neg.block.outer[j]];
    p[slot] = static_cast<int64_t>(i);
  }
  MatchSink matches(rows.size(), slot);
  for (size_t b = 0; b < probe.size(); b += kProbeRows) {
    OG_RETURN_IF_ERROR(neg.plan->Run(Slice(probe, b, std::min(probe.size(), b + kProbeRows)), matches, RunMode{}));
  }
  Rows out;
  out.width = rows.width;
  out.bound = rows.bound;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!matches.matched(i)) out.Append(rows.row(i));
  }
  return out;
}

bool Pipeline::CountsNext(const std::vector<bool>& bound, size_t width, const State& st, const RunMode& mode) const {
  if (!mode.count_last && mode.read == nullptr) return false;
  Rows shape;
  shape.width = width;
  shape.bound = bound;
  const int pick = PickTraversal(shape, st, false);
  if (pick < 0) return false;
  std::vector<const IrClause*> rest = st.pending;
  rest.erase(rest.begin() + pick);
  auto chain = CountableChain(shape, *st.pending[pick], rest, st.multi_done);
  return chain && (mode.count_last || ChainUnread(*chain, *mode.read) || PathCountable(shape, *chain, *mode.read));
}

Result<std::optional<Rows>> Pipeline::CountEveryEdge(const Rows& rows, int best, const std::vector<bool>& seeded,
                                                     const State& st, const RunMode& mode) {
  if (!mode.count_last || rows.size() != 1 || !rows.mult.empty() || !Unconstrained(best, st.multi_done)) {
    return std::optional<Rows>();
  }
  Rows shape;
  shape.width = rows.width;
  shape.bound = seeded;
  const int pick = PickTraversal(shape, st, false);
  if (pick < 0) return std::optional<Rows>();
  std::vector<const IrClause*> rest = st.pending;
  rest.erase(rest.begin() + pick);
  auto chain = CountableChain(shape, *st.pending[pick], rest, st.multi_done);
  if (!chain || chain->size() != 1) return std::optional<Rows>();
  const PathLink& link = chain->front();
  if ((link.forward ? link.t->src : link.t->dst) != best) return std::optional<Rows>();
  OG_ASSIGN_OR_RETURN(const table::TableVersion* tv, ctx_.Table(ctx_.TypeOf(best)));
  OG_ASSIGN_OR_RETURN(std::optional<uint64_t> kept, EdgesKept(ctx_, link, static_cast<size_t>(tv->row_count())));
  if (!kept) return std::optional<Rows>();
  // As CountChain: one representative row carries the total (the caller only sums).
  Rows out = Slice(rows, 0, 0);
  out.bound = seeded;
  if (*kept > 0) {
    out.Append(rows.row(0));
    out.cells[best] = 0;
    out.mult.push_back(*kept);
  }
  return std::optional<Rows>(std::move(out));
}

Status Pipeline::Flush(Rows piece, int var, bool with_var, const State& st, RowSink& sink, const RunMode& mode) {
  State next = st;
  OG_ASSIGN_OR_RETURN(piece, ApplyChecks(std::move(piece), var, with_var, &next.multi_done));
  return Continue(std::move(piece), std::move(next), sink, mode);
}

Status Pipeline::Continue(Rows rows, State st, RowSink& sink, const RunMode& mode) {
  BudgetCharge charge(ctx_);
  while (true) {
    if (rows.size() == 0 || sink.Done()) return Status::Ok();
    OG_RETURN_IF_ERROR(charge.Set(RowBytes(rows)));
    size_t batch = CountsNext(rows.bound, rows.width, st, mode) ? kCountBatchCells : kBatchCells;
    if (rows.cells.size() > batch && rows.size() > 1) {  // in pieces, in order
      const size_t per = std::max<size_t>(1, batch / rows.width);
      for (size_t b = 0; b < rows.size() && !sink.Done(); b += per) {
        OG_RETURN_IF_ERROR(Continue(Slice(rows, b, std::min(rows.size(), b + per)), st, sink, mode));
      }
      return Status::Ok();
    }
    const int next = mode.ordered ? NextVariable(rows) : -1;
    if (int pick = PickTraversal(rows, st, mode.ordered); pick >= 0) {
      const IrClause& t = *st.pending[pick];
      st.pending.erase(st.pending.begin() + pick);
      if (t.kind == IrClauseKind::kShortestPath) {
        OG_ASSIGN_OR_RETURN(rows, ShortestPaths(ctx_, rows, t));
        OG_ASSIGN_OR_RETURN(rows, ApplyChecks(std::move(rows), t.var, true, &st.multi_done));
        continue;
      }
      std::vector<int> fresh;
      for (int v : {t.src, t.dst, t.edge_var}) {
        if (v >= 0 && !rows.bound[v]) fresh.push_back(v);
      }
      if (mode.count_last || mode.read != nullptr) {  // the rest: traversals into fresh, unconstrained variables
        if (auto chain = CountableChain(rows, t, st.pending, st.multi_done)) {
          if (mode.count_last) {
            OG_ASSIGN_OR_RETURN(Rows counted, CountChain(ctx_, std::move(rows), *chain, &reacher_));
            return sink.Add(std::move(counted));
          }
          if (ChainUnread(*chain, *mode.read)) {
            OG_ASSIGN_OR_RETURN(Rows counted, CountPerRow(ctx_, std::move(rows), *chain, &reacher_));
            return sink.Add(std::move(counted));
          }
          if (PathCountable(rows, *chain, *mode.read)) {
            OG_ASSIGN_OR_RETURN(Rows counted, PathCounts(ctx_, std::move(rows), *chain, *mode.read, &reacher_));
            return sink.Add(std::move(counted));
          }
        }
      }
      if (mode.ordered && !fresh.empty()) {
        // Row by row, each one's new bindings in id order: the pieces keep the result's order.
        Rows buf = Slice(rows, 0, 0);
        std::vector<int> order = fresh;  // the new bindings' ids, in the result's order
        std::sort(order.begin(), order.end());
        std::vector<bool> no_multi(st.multi_done.size(), true);  // multi-variable tests: in Flush
        for (size_t i = 0; i < rows.size() && !sink.Done(); ++i) {
          OG_ASSIGN_OR_RETURN(Rows out, Expand(Slice(rows, i, i + 1), t));
          for (size_t k = 1; k < fresh.size(); ++k) {  // Flush checks fresh[0]
            OG_ASSIGN_OR_RETURN(out, ApplyChecks(std::move(out), fresh[k], true, &no_multi));
          }
          OG_RETURN_IF_ERROR(SortByIds(&out, order));
          buf.bound = out.bound;
          buf.cells.insert(buf.cells.end(), out.cells.begin(), out.cells.end());
          if (buf.size() >= kOrderedPieceRows || buf.cells.size() >= kBatchCells || i + 1 == rows.size()) {
            OG_RETURN_IF_ERROR(Flush(std::move(buf), fresh[0], true, st, sink, mode));
            buf = Slice(rows, 0, 0);
          }
        }
        return Status::Ok();
      }
      OG_ASSIGN_OR_RETURN(rows, Expand(rows, t));
      for (int v : fresh) {
        OG_ASSIGN_OR_RETURN(rows, ApplyChecks(std::move(rows), v, true, &st.multi_done));
      }
      continue;
    }
    OG_ASSIGN_OR_RETURN(int best, mode.ordered ? Result<int>(next) : PickSeed(rows));
    if (best >= 0) {
      std::vector<bool> seeded = rows.bound;
      seeded[best] = true;
      OG_ASSIGN_OR_RETURN(std::optional<Rows> counted, CountEveryEdge(rows, best, seeded, st, mode));
      if (counted) return sink.Add(std::move(*counted));
      OG_ASSIGN_OR_RETURN(std::vector<uint32_t> cands, Candidates(best));
      OG_ASSIGN_OR_RETURN(bool scanned, ScanEdges(rows, best, cands, st, sink, mode));
      if (scanned) return Status::Ok();
      batch = CountsNext(seeded, rows.width, st, mode) ? kCountBatchCells : kBatchCells;
      const TableOrdinals* ord = nullptr;
      size_t sorted = cands.size();  // ordered mode: cands[0, sorted) are in id order
      if (mode.ordered) {
        OG_ASSIGN_OR_RETURN(ord, ctx_.Ordinals(ctx_.TypeOf(best)));
        sorted = 0;
      }
      auto by_id = [&](uint32_t a, uint32_t b) { return ord->id(a) < ord->id(b); };
      Rows out = Slice(rows, 0, 0);
      out.bound[best] = true;
      if (!mode.ordered && rows.size() * cands.size() * rows.width <= batch) {
        out.cells.resize(rows.size() * cands.size() * rows.width);
        int64_t* to = out.cells.data();
        for (size_t i = 0; i < rows.size(); ++i) {
          for (uint32_t c : cands) {  // filled in place, not appended row by row
            const int64_t* from = rows.row(i);
            for (size_t w = 0; w < rows.width; ++w) to[w] = from[w];  // a few cells: no memmove call
            to[best] = c;
            to += rows.width;
          }
        }
        OG_ASSIGN_OR_RETURN(rows, ApplyChecks(std::move(out), best, false, &st.multi_done));
        continue;
      }
      // The cross product in pieces (in ordered mode: candidates sorted lazily, in growing blocks,
      // so that a run that stops early does not sort them all).
      const size_t per = std::max<size_t>(1, batch / rows.width);
      if (!mode.ordered && rows.size() == 1 && rows.mult.empty()) {  // one row: pieces filled in bulk
        if (st.pending.empty() && negations_.empty()) sink.ExpectRows(cands.size());
        const int64_t* r = rows.row(0);
        for (size_t j = 0; j < cands.size() && !sink.Done(); j += per) {
          const size_t k = std::min(per, cands.size() - j);
          out.cells.resize(k * rows.width);
          for (size_t x = 0; x < k; ++x) {
            int64_t* to = out.cells.data() + x * rows.width;
            for (size_t w = 0; w < rows.width; ++w) to[w] = r[w];  // a few cells: no memmove call
            to[best] = cands[j + x];
          }
          OG_RETURN_IF_ERROR(Flush(std::move(out), best, false, st, sink, mode));
          out = Slice(rows, 0, 0);
          out.bound[best] = true;
        }
        return Status::Ok();
      }
      size_t block = kOrderedPieceRows;
      for (size_t i = 0; i < rows.size() && !sink.Done(); ++i) {
        for (size_t j = 0; j < cands.size() && !sink.Done(); ++j) {
          if (j == sorted) {  // the next block (the rest at once when blocks stopped growing)
            const size_t upto = block >= per ? cands.size() : std::min(cands.size(), sorted + block);
            std::partial_sort(cands.begin() + static_cast<std::ptrdiff_t>(sorted),
                              cands.begin() + static_cast<std::ptrdiff_t>(upto), cands.end(), by_id);
            sorted = upto;
          }
          out.Append(rows.row(i));
          out.cells[out.cells.size() - rows.width + best] = cands[j];
          // Ordered runs flush small pieces first, so a small limit stops after little work.
          const size_t flush_at = mode.ordered ? std::min(per, block) : per;
          if (out.size() >= flush_at) {
            OG_RETURN_IF_ERROR(Flush(std::move(out), best, false, st, sink, mode));
            out = Slice(rows, 0, 0);
            out.bound[best] = true;
            block = std::min(2 * block, per);
          }
        }
      }
      if (out.size() > 0 && !sink.Done()) OG_RETURN_IF_ERROR(Flush(std::move(out), best, false, st, sink, mode));
      return Status::Ok();
    }
    for (const auto& neg : negations_) {  // anti-joins
      OG_ASSIGN_OR_RETURN(rows, AntiJoin(std::move(rows), *neg));
    }
    return sink.Add(std::move(rows));
  }
}

Status RunClauses(Context& ctx, const std::vector<IrClause>& clauses, Rows seed, RowSink& sink, const RunMode& mode) {
  Pipeline p(ctx, clauses);
  OG_RETURN_IF_ERROR(p.Prepare());
  return p.Run(std::move(seed), sink, mode);
}

Result<bool> OrderedApplies(Context& ctx, const std::vector<IrClause>& clauses, const Rows& seed) {
  Pipeline p(ctx, clauses);
  OG_RETURN_IF_ERROR(p.Prepare());
  return p.OrderedFits(seed);
}

}  // namespace exec

}  // namespace omnigraph::engine
