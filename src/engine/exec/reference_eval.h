// The reference evaluator of read queries (docs/language.md, "Read queries"): naive nested loops
// over whole tables, written for obviousness, not speed. It is the independent oracle of the
// executor's (executor.h) differential tests (differential_test.cc). Test-only: it lives in the
// omnigraph_engine_oracle library, which the tests and og_e2e link and the production binaries do not.
// Search functions (nearest, bm25, rrf, search, fuzzy, match_text) scan every row (docs/search.md).
// Thread-safe: a pure evaluation over an immutable snapshot.
#pragma once

#include <string>
#include <vector>

#include "compiler/params.h"
#include "compiler/query_ir.h"
#include "engine/exec/query_result.h"
#include "engine/graph/snapshot.h"

namespace omnigraph::engine {

// Evaluates a checked read query at `snap`. `now_ms` is the value of now().
Result<QueryResult> EvaluateReference(const Snapshot& snap, const compiler::IrQuery& query,
                                      const compiler::ParamValues& params, int64_t now_ms);

}  // namespace omnigraph::engine
