// The .gq type checker (docs/language.md, "Read queries", "Error code families": reference codes
// T1..T24, our T25..): resolves a parsed query (query_ast.h) against a schema (catalog.h) and
// produces the typed IR (query_ir.h), or the first error with its code, message and the span of the
// offending token.
#pragma once

#include <string_view>
#include <vector>

#include "compiler/catalog.h"
#include "compiler/query_ast.h"
#include "compiler/query_ir.h"
#include "compiler/query_parser.h"
#include "omnigraph/result.h"

namespace omnigraph::compiler {

// Checks one query. Errors are the T-codes of error_codes.def ("query type check"). Pure;
// thread-safe (the catalog is only read).
Result<IrQuery> TypeCheckQuery(const Catalog& catalog, const Query& query);

// Checks every query of a file; also rejects two queries with the same name (T27).
Result<std::vector<IrQuery>> TypeCheckQueryFile(const Catalog& catalog, const QueryFile& file);

// ParseQueryFile + TypeCheckQueryFile: `.gq` text -> IR. Errors: Q000 or a T-code.
Result<std::vector<IrQuery>> CompileQueries(const Catalog& catalog, std::string_view source,
                                            const QueryParseLimits& limits = QueryParseLimits());

}  // namespace omnigraph::compiler
