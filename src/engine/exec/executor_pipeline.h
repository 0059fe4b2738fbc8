// The match pipeline's plan (executor.cc, executor_expand.cc): one clause list's tests, traversals
// and negations, and how it seeds, expands and filters binding rows. Internal to src/engine/exec.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "engine/exec/executor_internal.h"

namespace omnigraph::engine::exec {

// The IR names the plan reads (this header is internal to the room).
using compiler::CompareOp;
using compiler::IrClause;
using compiler::IrClauseKind;
using compiler::IrExpr;
using compiler::IrExprKind;

struct Test {  // lhs op rhs
  const IrExpr* lhs;
  CompareOp op;
  const IrExpr* rhs;
};

// Binding rows stream through the plan in pieces of at most this many cells (1 MiB).
inline constexpr size_t kBatchCells = size_t{1} << 17;
// A step whose next step counts a path chain (RunMode::count_last / read) hands on pieces of up
// to 256 MiB (still charged to the budget): the chain is counted with a memo per level over all
// its input rows at once (executor_paths.cc), which smaller pieces would recompute.
inline constexpr size_t kCountBatchCells = size_t{1} << 25;
// A `not` block runs over at most this many probe rows at a time.
inline constexpr size_t kProbeRows = 1024;
// Ordered runs (RunMode::ordered) hand on pieces of this many rows first (growing for seeds), so
// that a small limit stops after little work and a deep plan holds little per level.
inline constexpr size_t kOrderedPieceRows = 16;

// Rows [begin, end) of `rows`.
inline Rows Slice(const Rows& rows, size_t begin, size_t end) {
  Rows out;
  out.width = rows.width;
  out.bound = rows.bound;
  out.collapsed = rows.collapsed;
  out.cells.assign(rows.cells.begin() + static_cast<std::ptrdiff_t>(begin * rows.width),
                   rows.cells.begin() + static_cast<std::ptrdiff_t>(end * rows.width));
  return out;
}

// Whether `t` compares a property of `var` with a constant: then *prop and *other are its sides and
// *left says the constant is on the left (FilterByColumn's `constant_left`).
bool ColumnTest(const Test& t, int var, const IrExpr** prop, const IrExpr** other, bool* left);

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
  // The next traversal to apply (-1: none); in ordered mode only one whose new variables come
  // next in the result's order (OrderedStep).
  int PickTraversal(const Rows& rows, const State& st, bool ordered) const;
  // Ordered mode: whether the variables `t` binds are the first unbound ones of order_vars_.
  bool OrderedStep(const Rows& rows, const IrClause& t) const;
  // The variable to seed next (-1: all bound): the most selective (id lookup, then restricted,
  // then the smallest table), or in ordered mode `next`.
  Result<int> PickSeed(const Rows& rows) const;
  // The lowest unbound variable the clauses bind (-1: none).
  int NextVariable(const Rows& rows) const;
  // Whether, with the variables `bound`, the next step counts a path chain (CountChain or
  // PathCounts), which wants all its input rows at once.
  bool CountsNext(const std::vector<bool>& bound, size_t width, const State& st, const RunMode& mode) const;
  // A count-only run about to seed `best` with every node of its table (no test on it), when the
  // only step left counts the edges of one traversal from it: the count without a row per node
  // (EdgesKept). nullopt when that does not apply.
  Result<std::optional<Rows>> CountEveryEdge(const Rows& rows, int best, const std::vector<bool>& seeded,
                                             const State& st, const RunMode& mode);
  // An edge scan (executor_edge_scan.cc): instead of seeding `seed` with `cands` (one input row,
  // general mode), binds a one-hop traversal from `seed` with an unbound edge variable and other
  // endpoint from the edges its column tests keep (EdgeFilter), when that is cheaper than walking
  // the candidates' lists, and runs the rest of the plan on those rows. False when it does not
  // apply (nothing was run).
  Result<bool> ScanEdges(const Rows& rows, int seed, const std::vector<uint32_t>& cands, const State& st, RowSink& sink,
                         const RunMode& mode);
  // Sorts `rows` (all from one input row) by the ids of the bindings of `vars`, in that order: a
  // node variable's from its ordinals, an edge variable's by point reads (PrefetchIds) unless its
  // ordinals or id column are in memory.
  Status SortByIds(Rows* rows, const std::vector<int>& vars);
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
  // ApplyChecks' tests of `var` that compare a property with a constant, applied to many rows
  // at once over the column (FilterByColumn over the rows' bindings, as Candidates does) and
  // taken out of *tests; the others are left for the per-row checks.
  static constexpr size_t kColumnCheckRows = 1024;
  Result<Rows> ColumnChecks(Rows rows, int var, std::vector<const Test*>* tests);
  Result<std::vector<uint32_t>> Candidates(int var);
  // The tests of `var` that compare a property with a constant (ColumnTest), their constants
  // evaluated; `column` left null (the caller loads the columns it reads).
  Result<std::vector<ColumnFilter>> ConstantTests(int var) const;
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
  Result<const EdgeMask*> EdgeFilter(int var) const;
  // The same edges as an ascending list of ordinals when a sorted index answered the tests
  // (Context::SortedMatch); nullptr otherwise (use EdgeFilter).
  Result<const std::vector<uint32_t>*> EdgeList(int var) const;
  // Whether every test of edge variable `var` is one EdgeFilter applies (none across variables
  // still pending): then a chain link may count its edges instead of binding them.
  bool EdgeTestsAllPushed(int var, const std::vector<bool>& multi_done) const;
  struct EdgeTests {
    EdgeMask allowed;  // by edge ordinal (of a listed filter: made by EdgeFilter on first use)
    std::optional<std::vector<uint32_t>> listed;  // the kept edges, when a sorted index answered
    std::vector<bool> pushed;                     // by index in var_tests_[var]
    uint64_t rows = 0;                            // the edge table's
    bool any = false;
  };
  // The tests of edge variable `var` run once (EdgeFilter, EdgeList), cached in edge_tests_.
  Result<EdgeTests*> TestsOf(int var) const;
  Status RunEdgeTests(int var, EdgeTests* out) const;
  mutable std::map<int, EdgeTests> edge_tests_;  // EdgeFilter's, built on first use
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
  // Ordered mode: the variables rows tie on, in order: needed_ and the traversals' edge variables.
  std::set<int> order_vars_;
  Reacher reacher_;
};

struct Pipeline::Negation {
  BlockQuery block;
  std::unique_ptr<Context> ctx;
  std::unique_ptr<Pipeline> plan;
};

}  // namespace omnigraph::engine::exec
