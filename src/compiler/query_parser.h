// Recursive-descent parser for .gq query files (grammar: docs/language.md, "Read queries",
// "Mutations") on top of the shared lexer (lexer.h). Produces the syntax tree of query_ast.h; every
// syntax error is code Q000 with the exact 1-based span of the offending token and the list of
// tokens that were expected.
#pragma once

#include <cstddef>
#include <string_view>

#include "compiler/lexer.h"
#include "compiler/query_ast.h"
#include "omnigraph/result.h"

namespace omnigraph::compiler {

// Bounds that keep hostile input from exhausting the stack or memory; exceeding one is Q000.
struct QueryParseLimits {
  size_t max_depth = 64;       // nesting of not-blocks, function calls and list literals
  size_t max_queries = 10000;  // queries per file
  // Clauses per query, nested `not` bodies included: each clause costs the executor a pass over
  // the binding rows, so a query of thousands is refused here (Q000) instead of running for minutes.
  size_t max_clauses = 1000;
  LexLimits lex;  // source size, token count, literal sizes
};

// Parses a whole .gq file (zero or more queries). Errors: Q000 (syntax, limits), including a
// query that mixes inserts/updates with deletes. Pure; thread-safe; never throws.
Result<QueryFile> ParseQueryFile(std::string_view source, const QueryParseLimits& limits = QueryParseLimits());

}  // namespace omnigraph::compiler
