// Turns a parsed schema (schema_ast.h) into a validated Catalog (catalog.h): resolves interfaces
// and endpoints, normalizes enums, picks index kinds, assigns ids, and reports every error of
// docs/language.md, "Schema errors" with its code (S001..., error_codes.def "schema") and span.
#pragma once

#include <string_view>

#include "compiler/catalog.h"
#include "compiler/schema_ast.h"
#include "compiler/schema_parser.h"
#include "omnigraph/result.h"

namespace omnigraph::compiler {

// Validates `ast` and builds the catalog. Ids: types numbered 1.. in declaration order (nodes and
// edges share the numbering), properties 1.. per type in order. Stops at the first error.
// Pure; thread-safe.
Result<Catalog> BuildCatalog(const AstSchema& ast);

// ParseSchema + BuildCatalog: the one-call entry point (`.pg` text -> Catalog).
Result<Catalog> CompileSchema(std::string_view source, const SchemaParseLimits& limits = SchemaParseLimits());

}  // namespace omnigraph::compiler
