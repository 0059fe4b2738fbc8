// The materialised result of a read query, as the executor (executor.h) and the reference
// evaluator (reference_eval.h, test-only) both return it. A plain value; thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "compiler/query_ir.h"
#include "omnigraph/value.h"

namespace omnigraph::engine {

struct QueryResult {
  std::vector<std::string> columns;      // one per projection
  std::vector<compiler::IrType> types;   // the projection types, parallel to columns
  std::vector<std::vector<Value>> rows;  // in the query's total order
};

}  // namespace omnigraph::engine
