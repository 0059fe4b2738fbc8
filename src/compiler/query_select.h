// The one way into a query (used by the embedded API, the mutation path and so the CLI): pick the
// query to run from a .gq source and refuse the wrong kind. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/catalog.h"
#include "compiler/query_ir.h"
#include "compiler/query_parser.h"
#include "omnigraph/result.h"

namespace omnigraph::compiler {

enum class QueryKind { kAny, kRead, kMutation };

// The query named `name`, or the only one of the source. NotFound for an unknown name;
// `invalid_argument` for no name with several queries, and for a query of the other kind than
// `want` (the message says how to run it).
Result<const IrQuery*> SelectQuery(const std::vector<IrQuery>& queries, const std::optional<std::string>& name,
                                   QueryKind want);

// Parses the whole source (a syntax error anywhere fails, as do two queries with one name: T27),
// picks the query as SelectQuery does, and type-checks only that one: a file with one stale query
// still runs its others, as in the Rust implementation (`lint` checks them all).
Result<IrQuery> CompileSelectedQuery(const Catalog& catalog, std::string_view source,
                                     const std::optional<std::string>& name, QueryKind want,
                                     const QueryParseLimits& limits = QueryParseLimits());

}  // namespace omnigraph::compiler
