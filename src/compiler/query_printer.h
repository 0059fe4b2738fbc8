// Prints a .gq syntax tree (query_ast.h) back as source in one canonical layout (docs/language.md,
// "Read queries", "Mutations"). Used by the round-trip property test and by tools that rewrite
// queries; parsing the output yields a tree that prints identically.
#pragma once

#include <string>

#include "compiler/query_ast.h"

namespace omnigraph::compiler {

std::string PrintQueryFile(const QueryFile& file);
std::string PrintQuery(const Query& query);
std::string PrintExpr(const Expr& expr);
std::string PrintLiteral(const Literal& literal);
// A double-quoted string literal with \" \\ \n \t \r and \u{..} escapes for other controls.
std::string QuoteString(std::string_view text);

}  // namespace omnigraph::compiler
