// The executor's entry point (executor.h): plans the run mode (count only, path counting for
// aggregates, a top-k or an ordered run under `limit`), runs the match pipeline (executor.cc) into
// a collector and builds the result (executor_output.cc), within the query's memory budget.
#include <cstring>
#include <new>
#include <stdexcept>

#include "common/error_codes.h"
#include "common/memory_budget.h"
#include "engine/exec/executor.h"
#include "engine/exec/executor_internal.h"

namespace omnigraph::engine {

namespace exec {

namespace {

// `match { $v: T }` alone (no equality, filter, traversal or negation), grouped, every aggregate a
// count($v) or another aggregate of a property of $v: its bindings are exactly T's ordinals.
bool ScanGroupable(const compiler::IrQuery& q) {
  if (!q.has_aggregate || q.group_keys.empty() || q.clauses.size() != 1 || q.variables.size() != 1) return false;
  const compiler::IrClause& c = q.clauses[0];
  if (c.kind != compiler::IrClauseKind::kBinding || !c.equalities.empty() || c.var != 0) return false;
  auto count_of_var = [&](const compiler::IrExpr& e) {
    if (e.kind != compiler::IrExprKind::kAggregate || e.args.size() != 1) return false;
    const compiler::IrExpr& arg = e.args[0];
    if (e.agg == compiler::AggFn::kCount) return arg.kind == compiler::IrExprKind::kVariable && arg.var == c.var;
    return arg.kind == compiler::IrExprKind::kProperty && arg.var == c.var;  // read by ordinal (Aggregate)
  };
  for (const auto& p : q.projections) {
    if (p.aggregate && !count_of_var(p.expr)) return false;
  }
  for (const auto& o : q.order) {
    if (o.expr.kind == compiler::IrExprKind::kAggregate && !count_of_var(o.expr)) return false;
  }
  return true;
}

// `match { $v: T }` alone, not aggregated, ordered with a limit, its first key a property of $v: the
// rows the result can take are found over T's columns (Shortlist), and only those become rows.
bool ScanOrderable(const compiler::IrQuery& q) {
  if (q.has_aggregate || !q.limit || *q.limit == 0 || q.order.empty() || q.clauses.size() != 1 ||
      q.variables.size() != 1 || UsesRrf(q)) {
    return false;
  }
  const compiler::IrClause& c = q.clauses[0];
  if (c.kind != compiler::IrClauseKind::kBinding || !c.equalities.empty() || c.var != 0) return false;
  const compiler::IrExpr& e = q.order[0].expr.kind == compiler::IrExprKind::kAlias
                                  ? q.projections[q.order[0].expr.alias].expr
                                  : q.order[0].expr;
  return e.kind == compiler::IrExprKind::kProperty && e.var == c.var;
}

}  // namespace

Result<std::optional<QueryResult>> RunMatch(Context& ctx, std::unique_ptr<RowCollector>* out) {
  const compiler::IrQuery& query = ctx.query();
  Rows seed;
  // Slots for the top-level variables (the type checker numbers them before any `not` block's,
  // which live in their blocks' own rows), and one spare: a query without variables has rows.
  size_t top = 0;
  while (top < query.variables.size() && query.variables[top].scope == 0) ++top;
  bool prefix = true;
  for (size_t v = top; v < query.variables.size(); ++v) prefix = prefix && query.variables[v].scope != 0;
  seed.width = (prefix ? top : query.variables.size()) + 1;
  seed.bound.assign(seed.width, false);
  seed.cells.assign(seed.width, -1);
  // A query that only counts whole matches (count of top-level variables, no grouping keys) need
  // not materialize its last traversal: the pipeline returns multiplicities instead.
  bool count_only = query.has_aggregate && query.group_keys.empty() && !query.projections.empty();
  for (const auto& p : query.projections) {
    const auto& e = p.expr;
    count_only = count_only && p.aggregate && e.kind == compiler::IrExprKind::kAggregate &&
                 e.agg == compiler::AggFn::kCount && e.args.size() == 1 &&
                 e.args[0].kind == compiler::IrExprKind::kVariable && e.args[0].var >= 0 &&
                 query.variables[e.args[0].var].scope == 0;
  }
  // Order keys other than those counts (aliases) must still be computed: their errors count.
  for (const auto& o : query.order) count_only = count_only && o.expr.kind == compiler::IrExprKind::kAlias;
  // An aggregating query reads some variables only through count($v): chains of traversals through
  // them are counted per end node instead of enumerated.
  std::vector<bool> read;
  if (query.has_aggregate && !count_only) read = ReadVariables(query);
  RunMode mode;
  mode.count_last = count_only;
  mode.read = read.empty() ? nullptr : &read;
  // A limit keeps only the best rows (rrf ranks need them all); without `order`, when the plan starts at the first
  // variable anyway, rows are produced in the result's order and the run stops at the limit.
  std::optional<uint64_t> keep;
  if (!query.has_aggregate && query.limit && !UsesRrf(query)) {
    keep = query.limit;
    if (query.order.empty()) {
      OG_ASSIGN_OR_RETURN(mode.ordered, OrderedApplies(ctx, query.clauses, seed));
    }
  }
  const size_t width = seed.width;
  if (ScanGroupable(query)) {  // grouped from the ordinals themselves: no row per node (Aggregate)
    OG_ASSIGN_OR_RETURN(const table::TableVersion* t, ctx.Table(query.clauses[0].type_name));
    ctx.SetScan(Context::Scan{query.clauses[0].var, static_cast<size_t>(t->row_count())});
    *out = std::make_unique<RowCollector>(ctx, width);
    return std::optional<QueryResult>();
  }
  if (ScanOrderable(query)) {
    const int var = query.clauses[0].var;
    OG_ASSIGN_OR_RETURN(const table::TableVersion* t, ctx.Table(query.clauses[0].type_name));
    std::vector<bool> desc;
    for (const auto& o : query.order) desc.push_back(o.descending);
    const auto n = static_cast<size_t>(t->row_count());
    OG_ASSIGN_OR_RETURN(std::vector<uint8_t> shortlist, Shortlist(ctx, n, query.limit, desc, RowCell{}));
    if (!shortlist.empty()) {  // else (few rows, or keys the cut cannot compare) the pipeline's way
      Rows rows = std::move(seed);
      rows.cells.clear();
      rows.bound[var] = true;
      std::vector<int64_t> row(width, -1);
      for (size_t i = 0; i < n; ++i) {
        uint64_t word = 0;  // eight rows out at once: most are
        if (i % 8 == 0 && i + 8 <= n && (std::memcpy(&word, &shortlist[i], 8), word == 0)) {
          i += 7;
          continue;
        }
        if (!shortlist[i]) continue;
        row[var] = static_cast<int64_t>(i);
        rows.Append(row.data());
      }
      auto collected = std::make_unique<RowCollector>(ctx, width);
      OG_RETURN_IF_ERROR(collected->Add(std::move(rows)));
      *out = std::move(collected);
      return std::optional<QueryResult>();
    }
  }
  auto collected = std::make_unique<RowCollector>(ctx, width, keep, mode.ordered);
  if (count_only) collected->CountOnly();
  OG_RETURN_IF_ERROR(RunClauses(ctx, query.clauses, std::move(seed), *collected, mode));
  if (count_only) {  // every match binds every top-level variable: each count is the match count
    const uint64_t total = collected->count();
    QueryResult res;
    std::vector<Value> row;
    for (const auto& p : query.projections) {
      res.columns.push_back(p.name);
      res.types.push_back(p.expr.type);
      row.push_back(Value::I64(static_cast<int64_t>(total)));
    }
    if (!query.limit || *query.limit > 0) res.rows.push_back(std::move(row));
    return std::optional<QueryResult>(std::move(res));
  }
  *out = std::move(collected);
  return std::optional<QueryResult>();
}

}  // namespace exec

namespace {

Result<QueryResult> Execute(const Snapshot& snap, const compiler::IrQuery& query, const compiler::ParamValues& params,
                            int64_t now_ms, GraphReadCache* cache, const ExecOptions& options) {
  exec::Context ctx(snap, query, params, now_ms, cache != nullptr ? cache : &GraphReadCache::Default(),
                    options.max_memory_bytes);
  std::unique_ptr<exec::RowCollector> collected;
  OG_ASSIGN_OR_RETURN(std::optional<QueryResult> counted, exec::RunMatch(ctx, &collected));
  if (counted) return std::move(*counted);
  return exec::BuildResult(ctx, collected->rows());
}

}  // namespace

uint64_t DefaultQueryMemoryBytes() { return DefaultMemoryBudgetBytes(); }

Result<QueryResult> ExecuteQuery(const Snapshot& snap, const compiler::IrQuery& query,
                                 const compiler::ParamValues& params, int64_t now_ms, GraphReadCache* cache,
                                 const ExecOptions& options) {
  if (query.is_mutation) {
    return InvalidArgumentError("'" + query.name + "' is a mutation: run it with ExecuteMutation (`omnigraph mutate`)");
  }
  OG_RETURN_IF_ERROR(exec::CheckRankingLimit(query));
  // The budget bounds what the query holds; an allocation that fails anyway (the machine's memory
  // is shared) is reported, never thrown through the API.
  try {
    return Execute(snap, query, params, now_ms, cache, options);
  } catch (const std::bad_alloc&) {
    return Status(ErrorCode::kResourceExhausted, "the query ran out of memory (budget " +
                                                     std::to_string(options.max_memory_bytes) +
                                                     " bytes); narrow the match or add a limit");
  } catch (const std::length_error&) {
    return Status(ErrorCode::kResourceExhausted, "the query's intermediate result grew past what one process can hold");
  }
}

}  // namespace omnigraph::engine
