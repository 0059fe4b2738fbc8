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

namespace omnigraph::engine {
namespace exec {

using compiler::CompareOp;
using compiler::IrClause;
using compiler::IrClauseKind;
using compiler::IrExpr;
using compiler::IrExprKind;

namespace {

struct Test {  // lhs op rhs
  const IrExpr* lhs;
  CompareOp op;
  const IrExpr* rhs;
};

// Binding rows stream through the plan in pieces of at most this many cells (1 MiB).
constexpr size_t kBatchCells = size_t{1} << 17;
// A step whose next step counts a path chain (RunMode::count_last / read) hands on pieces of up
// to 256 MiB (still charged to the budget): the chain is counted with a memo per level over all
// its input rows at once (executor_paths.cc), which smaller pieces would recompute.
constexpr size_t kCountBatchCells = size_t{1} << 25;
// A `not` block runs over at most this many probe rows at a time.
constexpr size_t kProbeRows = 1024;
// Ordered runs (RunMode::ordered) hand on pieces of this many rows first (growing for seeds), so
// that a small limit stops after little work and a deep plan holds little per level.
constexpr size_t kOrderedPieceRows = 16;

// Rows [begin, end) of `rows`.
Rows Slice(const Rows& rows, size_t begin, size_t end) {
  Rows out;
  out.width = rows.width;
  out.bound = rows.bound;
  out.collapsed = rows.collapsed;
  out.cells.assign(rows.cells.begin() + static_cast<std::ptrdiff_t>(begin * rows.width),
                   rows.cells.begin() + static_cast<std::ptrdiff_t>(end * rows.width));
  return out;
}

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

// Whether `t` compares a property of `var` with a constant: then *prop and *other are its sides and
// *left says the constant is on the left (FilterByColumn's `constant_left`).
bool ColumnTest(const Test& t, int var, const IrExpr** prop, const IrExpr** other, bool* left) {
  *left = t.rhs->kind == IrExprKind::kProperty && t.rhs->var == var && Context::IsConstant(*t.lhs);
  if (*left) {
    *prop = t.rhs, *other = t.lhs;
    return true;
  }
  if (t.lhs->kind == IrExprKind::kProperty && t.lhs->var == var && Context::IsConstant(*t.rhs)) {
    *prop = t.lhs, *other = t.rhs;
    return true;
  }
  return false;
}

// The plan of one clause list (the query's, or one `not` block's), reusable across seeds.
class Pipeline {
 public:
  // `seed_vars`: the first variables are bound by every seed (a `not` block's outer variables).
  Pipeline(Context& ctx, const std::vector<IrClause>& clauses, size_t seed_vars = 0)
      : ctx_(ctx), clauses_(clauses), seed_vars_(seed_vars) {}
  ~Pipeline();
  Status Prepare();
  // Runs the clauses over `rows`, handing the matches to `sink` in batches.
  Status Run(Rows rows, RowSink& sink, const RunMode& mode);
  // Whether RunMode::ordered applies (OrderedApplies).
  Result<bool> OrderedFits(const Rows& seed);

 private:
  // Where one branch of a run is: the traversals still to apply and the multi-variable tests done.
  struct State {
    std::vector<const IrClause*> pending;
    std::vector<bool> multi_done;
  };
  // Runs the remaining steps on `rows` (depth first: a step whose output is large hands it on in
  // pieces, so the rows in flight stay bounded by the batch size times the plan's depth).
  Status Continue(Rows rows, State st, RowSink& sink, const RunMode& mode);
  // Applies the checks that the new binding of `var` enables to `piece` and runs the rest on it.
  Status Flush(Rows piece, int var, bool with_var, const State& st, RowSink& sink, const RunMode& mode);
  // The next traversal to apply (-1: none); in ordered mode only one that binds `next`.
  int PickTraversal(const Rows& rows, const State& st, int next) const;
  // The variable to seed next (-1: all bound): the most selective (id lookup, then restricted,
  // then the smallest table), or in ordered mode `next`.
  Result<int> PickSeed(const Rows& rows) const;
  // The lowest unbound variable the clauses bind (-1: none).
  int NextVariable(const Rows& rows) const;
  // Whether, with the variables `bound`, the next step counts a path chain (CountChain or
  // PathCounts), which wants all its input rows at once.
  bool CountsNext(const std::vector<bool>& bound, size_t width, const State& st, const RunMode& mode) const;
  // Sorts `rows` (all from one input row) by the id of `var`'s binding.
  Status SortById(Rows* rows, int var);
  // A `not` block: its own query (dense variables), context and plan.
  struct Negation;
  // Keeps the rows of `rows` for which `neg` has no match: one run of its plan over all of them.
  Result<Rows> AntiJoin(Rows rows, Negation& neg);

  Result<bool> Check(const Test& t, const int64_t* row) {
    OG_ASSIGN_OR_RETURN(Value l, ctx_.Eval(*t.lhs, row));
    OG_ASSIGN_OR_RETURN(Value r, ctx_.Eval(*t.rhs, row));
    return CompareValues(l, t.op, r);
  }
  // Keeps rows passing the tests of `var` (when `with_var`) and the multi-variable tests whose
  // variables are now all bound.
  Result<Rows> ApplyChecks(Rows rows, int var, bool with_var, std::vector<bool>* multi_done);
  Result<std::vector<uint32_t>> Candidates(int var);
  // A nearest() ranking of the query's only variable: the candidates the ANN index leaves to rank
  // (Context::AnnCandidates), else `cands` as they are.
  Result<std::vector<uint32_t>> RankPrune(int var, std::vector<uint32_t> cands);
  // The constant side of `t` when it is `var.id = constant` or `var.key = constant` for a
  // single-property String or integer @key (whose id is the value's canonical text).
  const IrExpr* IdConstant(int var, const Test& t, bool* is_key) const;
  Result<Rows> Expand(const Rows& rows, const IrClause& t);
  // The tests of edge variable `var` that compare a property with a constant, evaluated once over
  // the edge table's columns: the edge ordinals passing all of them, one bit each (nullptr when
  // there are no such tests). Expand emits only those edges, and ApplyChecks skips the tests.
  Result<const std::vector<bool>*> EdgeFilter(int var);
  struct EdgeTests {
    std::vector<bool> allowed;  // by edge ordinal
    std::vector<bool> pushed;   // by index in var_tests_[var]
    bool any = false;
  };
  std::map<int, EdgeTests> edge_tests_;
  // True when no test (of `v` alone, or not yet applied across variables) mentions `v`.
  bool Unconstrained(int v, const std::vector<bool>& multi_done) const {
    if (!var_tests_[v].empty()) return false;
    for (size_t i = 0; i < multi_.size(); ++i) {
      if (!multi_done[i] && multi_[i].second.count(v)) return false;
    }
    return true;
  }
  // Count-only and aggregating queries: when `first` and then every traversal of `rest` each lead
  // from the previous one's new variable into a fresh variable nothing else mentions (a path
  // pattern), the links of that chain; nullopt otherwise.
  std::optional<std::vector<PathLink>> CountableChain(const Rows& rows, const IrClause& first,
                                                      const std::vector<const IrClause*>& rest,
                                                      const std::vector<bool>& multi_done) const;

  Context& ctx_;
  const std::vector<IrClause>& clauses_;
  std::deque<IrExpr> owned_;
  std::vector<std::vector<Test>> var_tests_;
  std::vector<std::pair<Test, std::set<int>>> multi_;
  std::vector<Test> constant_;
  std::vector<const IrClause*> traversals_;
  size_t seed_vars_;
  std::vector<std::unique_ptr<Negation>> negations_;
  std::set<int> needed_;  // node variables bindings and traversals bind
  Reacher reacher_;
};

struct Pipeline::Negation {
  BlockQuery block;
  std::unique_ptr<Context> ctx;
  std::unique_ptr<Pipeline> plan;
};

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
  return Status::Ok();
}

Result<Rows> Pipeline::ApplyChecks(Rows rows, int var, bool with_var, std::vector<bool>* multi_done) {
  std::vector<const Test*> tests;
  if (with_var && var >= 0) {
    auto pushed = edge_tests_.find(var);  // applied in Expand
    for (size_t i = 0; i < var_tests_[var].size(); ++i) {
      if (pushed == edge_tests_.end() || !pushed->second.pushed[i]) tests.push_back(&var_tests_[var][i]);
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

const IrExpr* Pipeline::IdConstant(int var, const Test& t, bool* is_key) const {
  if (t.op != CompareOp::kEq) return nullptr;
  const compiler::NodeType* node = ctx_.snap().catalog().FindNode(ctx_.TypeOf(var));
  for (int side = 0; side < 2; ++side) {
    const IrExpr* p = side == 0 ? t.lhs : t.rhs;
    const IrExpr* other = side == 0 ? t.rhs : t.lhs;
    if (p->kind != IrExprKind::kProperty || p->var != var || !Context::IsConstant(*other)) continue;
    if (p->property == "id") {
      *is_key = false;
      return other;
    }
    if (node != nullptr && node->key.size() == 1 && node->key[0] == p->property) {
      TypeKind k = p->type.data.kind;
      if (k == TypeKind::kString || k == TypeKind::kI32 || k == TypeKind::kI64 || k == TypeKind::kU32 ||
          k == TypeKind::kU64) {
        *is_key = true;
        return other;
      }
    }
  }
  return nullptr;
}

Result<std::vector<uint32_t>> Pipeline::Candidates(int var) {
  const std::string& type = ctx_.TypeOf(var);
  OG_ASSIGN_OR_RETURN(const TableOrdinals* ord, ctx_.Ordinals(type));
  const auto& tests = var_tests_[var];
  std::vector<uint32_t> cands;
  std::vector<bool> pushed(tests.size(), false);
  bool by_id = false;
  for (size_t ti = 0; ti < tests.size(); ++ti) {  // id or single key equality: a dictionary lookup
    const Test& t = tests[ti];
    bool is_key = false;
    const IrExpr* other = IdConstant(var, t, &is_key);
    if (other == nullptr) continue;
    OG_ASSIGN_OR_RETURN(Value v, ctx_.Eval(*other, nullptr));
    std::string id;
    if (v.is_null()) {
    } else if (v.kind() == TypeKind::kString) {
      id = v.string_value();
    } else if (!is_key) {
      continue;
    } else if (v.kind() == TypeKind::kI32 || v.kind() == TypeKind::kI64) {
      id = std::to_string(v.int_value());
    } else if (v.kind() == TypeKind::kU32 || v.kind() == TypeKind::kU64) {
      id = std::to_string(v.uint_value());
    } else {
      continue;  // e.g. a parameter of another type: scan instead
    }
    by_id = true;
    // The row found has exactly this id (a key's id is its value's spelling), so this test holds;
    // the others are checked on the candidate below. (Re-checking it would read the whole key
    // column for one row.)
    pushed[ti] = true;
    if (!v.is_null()) {
      if (auto o = ord->Find(id)) cands.push_back(*o);
    }
    break;
  }
  if (!by_id) {
    // Property-versus-constant tests filter the ordinals over the table's cached columns
    // (equalities first: usually the most selective); the other tests are checked per candidate.
    cands.resize(ord->size());
    std::iota(cands.begin(), cands.end(), uint32_t{0});
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t i = 0; i < tests.size() && !cands.empty(); ++i) {
        const Test& t = tests[i];
        if ((t.op == CompareOp::kEq) != (pass == 0)) continue;
        const IrExpr* prop = nullptr;
        const IrExpr* other = nullptr;
        bool left = false;
        if (!ColumnTest(t, var, &prop, &other, &left)) continue;
        OG_ASSIGN_OR_RETURN(const format::Column* c, ctx_.Column(type, prop->property));
        OG_ASSIGN_OR_RETURN(Value v, ctx_.Eval(*other, nullptr));
        FilterByColumn(c, t.op, v, left, &cands);
        pushed[i] = true;
      }
    }
  }
  // Search tests answered by the column's index (docs/search.md, "Indexes"): bm25(...) > 0 (an
  // ordering by bm25) and text filters over many candidates (or whose index is cached).
  constexpr size_t kIndexCandidates = 256;
  for (size_t i = 0; i < tests.size() && !cands.empty(); ++i) {
    if (pushed[i]) continue;
    const Test& t = tests[i];
    const IrExpr& e = *t.lhs;
    if (e.kind == IrExprKind::kBm25 && e.args[0].var == var && t.op == CompareOp::kGt &&
        Context::IsConstant(e.args[1])) {
      OG_ASSIGN_OR_RETURN(const std::vector<double>* scores, ctx_.Bm25Of(e));
      std::erase_if(cands, [&](uint32_t c) { return !(c < scores->size() && (*scores)[c] > 0); });
      pushed[i] = true;
    } else if (Context::TextIndexable(e) && e.args[0].var == var && t.op == CompareOp::kEq &&
               t.rhs->kind == IrExprKind::kLiteral && !t.rhs->literal.is_null() && t.rhs->literal.bool_value()) {
      OG_ASSIGN_OR_RETURN(const std::vector<bool>* bits, ctx_.TextMatchSet(e, cands.size() > kIndexCandidates));
      if (bits == nullptr) continue;
      std::erase_if(cands, [&](uint32_t c) { return !(c < bits->size() && (*bits)[c]); });
      pushed[i] = true;
    }
  }
  std::vector<const Test*> rest;
  for (size_t i = 0; i < tests.size(); ++i) {
    if (!pushed[i]) rest.push_back(&tests[i]);
  }
  if (rest.empty()) return RankPrune(var, std::move(cands));
  std::vector<int64_t> row(ctx_.query().variables.size(), -1);
  std::vector<uint32_t> out;
  for (uint32_t c : cands) {
    row[var] = c;
    bool keep = true;
    for (const Test* t : rest) {
      OG_ASSIGN_OR_RETURN(keep, Check(*t, row.data()));
      if (!keep) break;
    }
    if (keep) out.push_back(c);
  }
  return RankPrune(var, std::move(out));
}

Result<std::vector<uint32_t>> Pipeline::RankPrune(int var, std::vector<uint32_t> cands) {
  // Only where these candidates are the query's rows: its one variable, every test checked above.
  const compiler::IrQuery& q = ctx_.query();
  if (!q.limit || q.has_aggregate || q.variables.size() != 1 || q.order.empty() || !multi_.empty() ||
      !negations_.empty() || cands.size() < 2) {
    return cands;
  }
  const IrExpr& e =
      q.order[0].expr.kind == IrExprKind::kAlias ? q.projections[q.order[0].expr.alias].expr : q.order[0].expr;
  if (e.kind != IrExprKind::kNearest || e.args[0].var != var) return cands;
  if (!std::is_sorted(cands.begin(), cands.end())) std::sort(cands.begin(), cands.end());
  OG_ASSIGN_OR_RETURN(std::optional<std::vector<uint32_t>> kept, ctx_.AnnCandidates(e, cands, *q.limit));
  if (kept) return std::move(*kept);
  return cands;
}

Result<const std::vector<bool>*> Pipeline::EdgeFilter(int var) {
  if (auto it = edge_tests_.find(var); it != edge_tests_.end()) return it->second.any ? &it->second.allowed : nullptr;
  EdgeTests& et = edge_tests_[var];
  const auto& tests = var_tests_[var];
  et.pushed.assign(tests.size(), false);
  std::optional<std::vector<uint32_t>> edges;  // the passing ordinals so far
  for (size_t i = 0; i < tests.size(); ++i) {
    const IrExpr* prop = nullptr;
    const IrExpr* other = nullptr;
    bool left = false;
    if (!ColumnTest(tests[i], var, &prop, &other, &left)) continue;
    OG_ASSIGN_OR_RETURN(const format::Column* c, ctx_.Column(ctx_.TypeOf(var), prop->property));
    OG_ASSIGN_OR_RETURN(Value v, ctx_.Eval(*other, nullptr));
    if (!edges) {
      OG_ASSIGN_OR_RETURN(const table::TableVersion* tv, ctx_.Table(ctx_.TypeOf(var)));
      edges.emplace(c != nullptr ? c->length() : tv->row_count());
      std::iota(edges->begin(), edges->end(), uint32_t{0});
    }
    FilterByColumn(c, tests[i].op, v, left, &*edges);
    et.pushed[i] = true;
  }
  if (!edges) return nullptr;
  et.any = true;
  for (uint32_t e : *edges) {
    if (e >= et.allowed.size()) et.allowed.resize(e + 1, false);
    et.allowed[e] = true;
  }
  return &et.allowed;
}

Result<Rows> Pipeline::Expand(const Rows& rows, const IrClause& t) {
  OG_ASSIGN_OR_RETURN(const Csr* csr, ctx_.CsrFor(t.edge_type));
  const std::vector<bool>* allowed = nullptr;  // the edge variable's column tests, applied here
  if (t.edge_var >= 0) {
    OG_ASSIGN_OR_RETURN(allowed, EdgeFilter(t.edge_var));
  }
  const bool both = t.direction == compiler::Direction::kBoth;
  // One directed hop: y is produced iff it is a neighbour (a self loop produces the node itself),
  // each once (docs/language.md, "Match clauses"), so no breadth-first state is needed.
  const bool one_hop = !both && t.min_hops == 1 && t.max_hops && *t.max_hops == 1;
  Rows out;
  out.width = rows.width;
  out.bound = rows.bound;
  out.bound[t.src] = out.bound[t.dst] = true;
  if (t.edge_var >= 0) out.bound[t.edge_var] = true;
  std::vector<int64_t> nb(rows.width);
  auto emit = [&](const int64_t* r, int64_t s, int64_t d, int64_t e) {
    if (allowed != nullptr && (e < 0 || static_cast<size_t>(e) >= allowed->size() || !(*allowed)[e])) return;
    if (r[t.src] >= 0 && r[t.src] != s) return;
    if (r[t.dst] >= 0 && r[t.dst] != d) return;
    std::copy(r, r + rows.width, nb.begin());
    nb[t.src] = s;
    nb[t.dst] = d;
    if (t.edge_var >= 0) nb[t.edge_var] = e;
    out.Append(nb.data());
  };
  std::map<uint32_t, std::vector<uint32_t>> reach_cache;  // both endpoints bound
  // The output is charged as it grows (a batch of high-degree or multi-hop expansions is large).
  BudgetCharge charge(ctx_);
  uint64_t charged = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (const uint64_t held = RowBytes(out); held > charged + (uint64_t{1} << 20)) {
      OG_RETURN_IF_ERROR(charge.Add(held - charged));
      charged = held;
    }
    const int64_t* r = rows.row(i);
    const int64_t s = r[t.src], d = r[t.dst];
    if (s < 0 && d < 0) {  // neither bound: every source
      for (uint32_t x = 0; x < csr->num_src(); ++x) {
        std::vector<int64_t> tmp(r, r + rows.width);
        tmp[t.src] = x;
        Rows one;
        one.width = rows.width;
        one.bound = rows.bound;
        one.bound[t.src] = true;
        one.Append(tmp.data());
        OG_ASSIGN_OR_RETURN(Rows part, Expand(one, t));
        out.cells.insert(out.cells.end(), part.cells.begin(), part.cells.end());
      }
      continue;
    }
    if (t.edge_var >= 0) {  // one row per edge
      if (s >= 0) {
        const uint32_t x = static_cast<uint32_t>(s);
        auto nodes = csr->OutNodes(x);
        auto edges = csr->OutEdges(x);
        for (size_t k = 0; k < nodes.size(); ++k) emit(r, s, nodes[k], edges[k]);
        if (both) {
          auto in_nodes = csr->InNodes(x);
          auto in_edges = csr->InEdges(x);
          for (size_t k = 0; k < in_nodes.size(); ++k) {
            if (in_nodes[k] != x) emit(r, s, in_nodes[k], in_edges[k]);
          }
        }
      } else {
        const uint32_t x = static_cast<uint32_t>(d);
        auto nodes = csr->InNodes(x);
        auto edges = csr->InEdges(x);
        for (size_t k = 0; k < nodes.size(); ++k) emit(r, nodes[k], d, edges[k]);
        if (both) {
          auto out_nodes = csr->OutNodes(x);
          auto out_edges = csr->OutEdges(x);
          for (size_t k = 0; k < out_nodes.size(); ++k) {
            if (out_nodes[k] != x) emit(r, out_nodes[k], d, out_edges[k]);
          }
        }
      }
      continue;
    }
    if (s >= 0 && d >= 0) {
      const uint32_t x = static_cast<uint32_t>(s);
      auto it = reach_cache.find(x);
      if (it == reach_cache.end()) {
        OG_ASSIGN_OR_RETURN(auto reached, reacher_.Reach(*csr, x, true, t));
        it = reach_cache.emplace(x, std::move(reached)).first;
      }
      if (std::binary_search(it->second.begin(), it->second.end(), static_cast<uint32_t>(d))) emit(r, s, d, -1);
    } else if (s >= 0 && one_hop) {  // exactly one hop: the distinct out-neighbours (sorted)
      auto nodes = csr->OutNodes(static_cast<uint32_t>(s));
      for (size_t k = 0; k < nodes.size(); ++k) {
        if (k == 0 || nodes[k] != nodes[k - 1]) emit(r, s, nodes[k], -1);
      }
    } else if (d >= 0 && one_hop) {
      auto nodes = csr->InNodes(static_cast<uint32_t>(d));
      for (size_t k = 0; k < nodes.size(); ++k) {
        if (k == 0 || nodes[k] != nodes[k - 1]) emit(r, nodes[k], d, -1);
      }
    } else if (s >= 0) {
      OG_ASSIGN_OR_RETURN(auto reached, reacher_.Reach(*csr, static_cast<uint32_t>(s), true, t));
      for (uint32_t y : reached) emit(r, s, y, -1);
    } else {
      OG_ASSIGN_OR_RETURN(auto reached, reacher_.Reach(*csr, static_cast<uint32_t>(d), false, t));
      for (uint32_t y : reached) emit(r, y, d, -1);
    }
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
    if (t->kind != IrClauseKind::kTraversal || t->edge_var >= 0 || t->src == t->dst) return std::nullopt;
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
    chain.push_back(PathLink{t, forward});
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

int Pipeline::PickTraversal(const Rows& rows, const State& st, int next) const {
  // Both endpoints bound first (the traversal only filters), then one bound.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < st.pending.size(); ++i) {
      const IrClause& t = *st.pending[i];
      const bool sb = rows.bound[t.src], db = rows.bound[t.dst];
      const bool path = t.kind == IrClauseKind::kShortestPath;  // only once both are bound
      if (pass == 0 ? (sb && db) : (!path && sb != db && (next < 0 || (sb ? t.dst : t.src) == next))) {
        return static_cast<int>(i);
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
    if (t->edge_var >= 0 || t->kind == IrClauseKind::kShortestPath) return false;
  }
  if (needed_.empty()) return false;
  OG_ASSIGN_OR_RETURN(int first, PickSeed(seed));
  return first == *needed_.begin();
}

Status Pipeline::SortById(Rows* rows, int var) {
  if (rows->size() < 2) return Status::Ok();
  OG_ASSIGN_OR_RETURN(const TableOrdinals* ord, ctx_.Ordinals(ctx_.TypeOf(var)));
  std::vector<size_t> idx(rows->size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    return ord->id(static_cast<uint32_t>(rows->row(a)[var])) < ord->id(static_cast<uint32_t>(rows->row(b)[var]));
  });
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
  const int pick = PickTraversal(shape, st, -1);
  if (pick < 0) return false;
  std::vector<const IrClause*> rest = st.pending;
  rest.erase(rest.begin() + pick);
  auto chain = CountableChain(shape, *st.pending[pick], rest, st.multi_done);
  return chain && (mode.count_last || ChainUnread(*chain, *mode.read) || PathCountable(shape, *chain, *mode.read));
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
    if (int pick = PickTraversal(rows, st, next); pick >= 0) {
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
        for (size_t i = 0; i < rows.size() && !sink.Done(); ++i) {
          OG_ASSIGN_OR_RETURN(Rows out, Expand(Slice(rows, i, i + 1), t));
          OG_RETURN_IF_ERROR(SortById(&out, fresh[0]));
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
      OG_ASSIGN_OR_RETURN(std::vector<uint32_t> cands, Candidates(best));
      std::vector<bool> seeded = rows.bound;
      seeded[best] = true;
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
        for (size_t i = 0; i < rows.size(); ++i) {
          for (uint32_t c : cands) {
            out.Append(rows.row(i));
            out.cells[out.cells.size() - rows.width + best] = c;
          }
        }
        OG_ASSIGN_OR_RETURN(rows, ApplyChecks(std::move(out), best, false, &st.multi_done));
        continue;
      }
      // The cross product in pieces (in ordered mode: candidates sorted lazily, in growing blocks,
      // so that a run that stops early does not sort them all).
      const size_t per = std::max<size_t>(1, batch / rows.width);
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

}  // namespace

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
