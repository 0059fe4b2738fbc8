// The syntax tree of a .pg schema file (docs/language.md, "Schemas"), as written: nothing resolved
// or validated beyond the grammar. Produced by schema_parser.h, consumed by catalog_builder.h.
// Every node keeps its 1-based source span for diagnostics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "omnigraph/status.h"

namespace omnigraph::compiler {

struct AstName {
  std::string name;
  SourceSpan span;
};

// A literal in an annotation or a bound. Numbers keep their spelling with an optional leading '-'.
struct AstLiteral {
  enum class Kind : uint8_t { kString, kInt, kFloat, kBool };
  Kind kind = Kind::kString;
  std::string text;  // decoded string / "-12" / "1.5" / "true"
  SourceSpan span;
};

struct AstAnnotationArg {
  std::string name;  // empty for the positional argument
  AstLiteral value;
  SourceSpan span;
};

// `@name` or `@name(literal, key = literal, ...)`.
struct AstAnnotation {
  std::string name;  // without '@'
  bool has_parens = false;
  std::vector<AstAnnotationArg> args;
  SourceSpan span;  // the `@name` token pair
};

struct AstType {
  enum class Kind : uint8_t { kScalar, kList, kVector, kEnum };
  Kind kind = Kind::kScalar;
  std::string scalar;                // kScalar / kList: the scalar name ("String", "I64", ...)
  uint64_t dimension = 0;            // kVector: as written, saturated at UINT64_MAX
  std::vector<AstName> enum_values;  // kEnum: as written
  bool nullable = false;
  SourceSpan span;
};

struct AstProperty {
  AstName name;
  AstType type;
  std::vector<AstAnnotation> annotations;
};

// Body constraints: @key(a, ...) @unique(a, ...) @index(a, ...) @range(p, a..b) @check(p, "re").
struct AstConstraint {
  enum class Kind : uint8_t { kKey, kUnique, kIndex, kRange, kCheck };
  Kind kind = Kind::kKey;
  std::vector<AstName> properties;  // kRange/kCheck: exactly one
  std::optional<AstLiteral> min;    // kRange
  std::optional<AstLiteral> max;    // kRange
  std::string pattern;              // kCheck
  SourceSpan pattern_span;          // kCheck
  SourceSpan span;
};

struct AstInterface {
  AstName name;
  std::vector<AstProperty> properties;
  SourceSpan span;
};

struct AstNode {
  AstName name;
  uint32_t decl_index = 0;                 // position among node and edge declarations (0-based)
  std::vector<AstAnnotation> annotations;  // before `implements`
  std::vector<AstName> implements;
  std::vector<AstProperty> properties;
  std::vector<AstConstraint> constraints;
  std::vector<AstAnnotation> body_annotations;  // unknown `@x(...)` lines in the body
  SourceSpan span;
};

struct AstCard {
  uint64_t min = 0;
  std::optional<uint64_t> max;  // empty: `0..` or `0..*`
  SourceSpan span;
};

struct AstEdge {
  AstName name;
  uint32_t decl_index = 0;
  AstName from;
  AstName to;
  std::optional<AstCard> card;
  std::vector<AstAnnotation> annotations;
  std::vector<AstProperty> properties;
  std::vector<AstConstraint> constraints;
  std::vector<AstAnnotation> body_annotations;
  SourceSpan span;
};

struct AstSchema {
  std::vector<AstInterface> interfaces;
  std::vector<AstNode> nodes;
  std::vector<AstEdge> edges;
};

}  // namespace omnigraph::compiler
