// Value comparisons shared by the executor and its reference evaluator (reference_eval.h), so that
// both apply the same typed rules (docs/language.md, "Read queries"): filters, ORDER BY and
// min/max.
// Thread-safe: pure functions.
#pragma once

#include <compare>

#include "compiler/query_ast.h"
#include "omnigraph/value.h"

namespace omnigraph::engine::exec {

// `l op r` by Value::Compare (contains: list membership or substring; starts_with: prefix). NULL
// never satisfies a comparison.
bool CompareValues(const Value& l, compiler::CompareOp op, const Value& r);

// ORDER BY order of one key: NULLs first ascending, last descending (Value::Compare puts null
// first; reversing for `desc` puts it last).
std::weak_ordering OrderValues(const Value& a, const Value& b, bool desc);

// Value::Compare, with -0 below 0 so that min/max of a float column do not depend on row order.
bool MinMaxLess(const Value& a, const Value& b);

}  // namespace omnigraph::engine::exec
