// The read-query executor (issue 6; docs/language.md, "Read queries"): plans a checked
// compiler::IrQuery over columnar table versions and runs it on row ordinals —
//   * each variable's inline `{prop: value}` and property-versus-constant filters filter its
//     ordinals over cached columns (typed, no Value per row) when it seeds the plan; `id` equality
//     is a dictionary lookup;
//   * the plan starts from the most selective variable (id lookup, then restricted, then the
//     smallest table) and expands over CSR adjacency (adjacency.h) from bound endpoints, with the
//     reference's breadth-first distance semantics for {min,max};
//   * multi-variable filters run as soon as their variables are bound; `not { }` is an anti-join,
//     evaluated once per block over a whole batch of binding rows;
//   * binding rows stream through the plan in batches of bounded size (depth first), into a sink
//     that keeps all rows, only the best `limit` rows (top-k), or — for an unordered `limit` whose
//     plan starts at the first variable — rows produced in the result's total order, stopping
//     once `limit` rows exist;
//   * a trailing chain of traversals whose inner variables only count() reads is counted level by
//     level over a weighted frontier (executor_paths.cc), not enumerated;
//   * hash aggregation with implicit grouping; sort / top-k (partial sort under `limit`) with the
//     total-order id tie-break; only projected values of the result rows are materialized.
// Results equal engine::EvaluateReference (reference_eval.h) exactly: differential_test.cc.
// Search and ranking functions run as docs/search.md describes (executor_search.cc).
// Thread-safe: any number of queries may run at once on shared snapshots and one GraphReadCache.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/params.h"
#include "compiler/query_ir.h"
#include "engine/derived/read_cache.h"
#include "engine/exec/query_result.h"
#include "engine/graph/snapshot.h"

namespace omnigraph::engine {

// Half of the memory this process may use (physical or cgroup limit); the default query budget.
uint64_t DefaultQueryMemoryBytes();

struct ExecOptions {
  // Budget of the query's own memory: the binding rows in flight, the rows kept for the result
  // and the result's values (not the shared read cache). Past it the query fails with
  // `resource_limit` naming the budget. Binding rows stream through the plan in bounded batches,
  // and `limit` keeps only the best rows, so a query needs a large budget only to return (or
  // aggregate) very many rows.
  uint64_t max_memory_bytes = DefaultQueryMemoryBytes();
};

// Runs a checked read query at `snap`; `now_ms` is the value of now(). `cache` holds the derived
// per-version structures (nullptr = GraphReadCache::Default()). Never throws: an allocation
// failure is reported as `resource_limit`.
Result<QueryResult> ExecuteQuery(const Snapshot& snap, const compiler::IrQuery& query,
                                 const compiler::ParamValues& params, int64_t now_ms, GraphReadCache* cache = nullptr,
                                 const ExecOptions& options = {});

// A read query's result handed out in batches. Open runs the match (its rows held as binding rows
// of row ordinals, within the budget) and orders it; Next builds the result's
// values batch by batch, so the values of a large result are never all in memory at once. Queries
// with aggregates (a row per group), counts and results of at most 64 rows are built whole at Open.
// Not thread-safe; must not outlive `cache`; `keep_alive` keeps `query` alive.
class QueryStream {
 public:
  static Result<std::unique_ptr<QueryStream>> Open(Snapshot snap, std::shared_ptr<const void> keep_alive,
                                                   const compiler::IrQuery& query, compiler::ParamValues params,
                                                   int64_t now_ms, GraphReadCache* cache, const ExecOptions& options);
  ~QueryStream();
  QueryStream(const QueryStream&) = delete;
  QueryStream& operator=(const QueryStream&) = delete;

  const std::vector<std::string>& columns() const;
  uint64_t total_rows() const;
  // Up to `max_rows` (> 0) next rows into `out` (cleared first); 0 rows = the end. An error (a
  // read failing, the budget) ends the stream.
  Result<size_t> Next(std::vector<std::vector<Value>>* out, size_t max_rows);

  struct State;

 private:
  explicit QueryStream(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

}  // namespace omnigraph::engine
