// The read-query executor (issue 6, LANGUAGE.md §2): plans a checked compiler::IrQuery over
// columnar table versions and runs it on row ordinals —
//   * each variable's inline `{prop: value}` and property-versus-constant filters filter its
//     ordinals over cached columns (typed, no Value per row) when it seeds the plan; `id` equality
//     is a dictionary lookup;
//   * the plan starts from the most selective variable (id lookup, then restricted, then the
//     smallest table) and expands over CSR adjacency (adjacency.h) from bound endpoints, with the
//     reference's breadth-first distance semantics for {min,max};
//   * multi-variable filters run as soon as their variables are bound; `not { }` is an anti-join;
//   * a trailing chain of traversals whose inner variables only count() reads is counted level by
//     level over a weighted frontier (executor_paths.cc), not enumerated;
//   * hash aggregation with implicit grouping; sort / top-k (partial sort under `limit`) with the
//     total-order id tie-break; only projected values of the result rows are materialized.
// Results equal engine::EvaluateReference (reference_eval.h) exactly: differential_test.cc.
// Search and ranking functions are `unimplemented`, naming the function.
#pragma once

#include "compiler/params.h"
#include "compiler/query_ir.h"
#include "engine/adjacency.h"
#include "engine/reference_eval.h"
#include "engine/snapshot.h"

namespace omnigraph::engine {

// Runs a checked read query at `snap`; `now_ms` is the value of now(). `cache` holds the derived
// per-version structures (nullptr = GraphReadCache::Default()).
Result<QueryResult> ExecuteQuery(const Snapshot& snap, const compiler::IrQuery& query,
                                 const compiler::ParamValues& params, int64_t now_ms,
                                 GraphReadCache* cache = nullptr);

}  // namespace omnigraph::engine
