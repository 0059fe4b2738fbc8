// Recursive-descent parser for .pg schema files (grammar: docs/language.md, "Schemas"). Syntax
// errors are code S000 with a message "expected X, found Y" and the span of the offending token.
// The grammar has no recursion, so input depth is bounded by construction; the limits below bound
// counts.
#pragma once

#include <cstddef>
#include <string_view>

#include "compiler/lexer.h"
#include "compiler/schema_ast.h"
#include "omnigraph/result.h"

namespace omnigraph::compiler {

struct SchemaParseLimits {
  LexLimits lex;
  size_t max_declarations = 100000;
  size_t max_members = 10000;  // properties + constraints per type
  size_t max_enum_values = 65536;
  size_t max_annotations = 64;  // per property / type
  size_t max_annotation_args = 64;
  size_t max_constraint_args = 64;
};

// Parses `source`. Pure; thread-safe; never throws. Errors: S000 (syntax, lexing, limits).
Result<AstSchema> ParseSchema(std::string_view source, const SchemaParseLimits& limits = SchemaParseLimits());

}  // namespace omnigraph::compiler
