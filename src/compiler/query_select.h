// The one way into a query (used by the embedded API, the mutation path and so the CLI): pick the
// query to run from a compiled .gq source and refuse the wrong kind. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/query_ir.h"
#include "omnigraph/result.h"

namespace omnigraph::compiler {

enum class QueryKind { kAny, kRead, kMutation };

// The query named `name`, or the only one of the source. NotFound for an unknown name;
// `invalid_argument` for no name with several queries, and for a query of the other kind than
// `want` (the message says how to run it).
Result<const IrQuery*> SelectQuery(const std::vector<IrQuery>& queries, const std::optional<std::string>& name,
                                   QueryKind want);

}  // namespace omnigraph::compiler
