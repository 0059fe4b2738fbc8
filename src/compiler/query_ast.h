// The syntax tree of .gq query files (docs/language.md, "Read queries", "Mutations"), as written by
// the user: names are not yet resolved and values not yet typed (the type checker turns this into
// query_ir.h). Every node keeps the 1-based source span it came from so later errors can point at
// it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "omnigraph/status.h"
#include "omnigraph/value.h"

namespace omnigraph::compiler {

enum class LiteralKind : uint8_t { kString, kInt, kFloat, kBool, kList, kDate, kDateTime };

// A literal as spelled: `text` is the decoded string (kString), the digits with an optional
// leading '-' (kInt/kFloat, kept exactly so nothing is lost before typing), "true"/"false"
// (kBool) or the argument string of date("...")/datetime("...").
struct Literal {
  LiteralKind kind = LiteralKind::kString;
  std::string text;
  std::vector<Literal> items;  // kList only
};

enum class ExprKind : uint8_t {
  kLiteral,    // literal
  kVariable,   // $x (a match variable or a parameter; the checker decides)
  kProperty,   // $x.prop
  kAlias,      // bare ident: reference to a projection alias (in order)
  kNow,        // now()
  kAggregate,  // count/sum/avg/min/max(expr)
  kNearest,    // nearest($x.prop, expr)
  kBm25,       // bm25(expr, expr)
  kRrf,        // rrf(rank, rank[, k])
  kSearch,     // search(expr, expr)
  kFuzzy,      // fuzzy(expr, expr[, expr])
  kMatchText,  // match_text(expr, expr)
  kPathFn,     // length/nodes/edges/cost($path): `function` names it
};
// The function name of a search or ranking kind ("nearest", "bm25", "rrf", "search", "fuzzy",
// "match_text"); empty for every other kind (an aggregate's name is AggFnName).
std::string_view SearchFunctionName(ExprKind kind);

enum class AggFn : uint8_t { kCount, kSum, kAvg, kMin, kMax };
std::string_view AggFnName(AggFn fn);

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  SourceSpan span;
  Literal literal;       // kLiteral
  std::string name;      // kVariable / kProperty: variable name without '$'; kAlias: the ident
  std::string property;  // kProperty
  AggFn agg = AggFn::kCount;
  std::vector<Expr> args;  // function arguments
  std::string function;    // kPathFn: "length", "nodes", "edges" or "cost"
};

enum class CompareOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kContains, kStartsWith };
std::string_view CompareOpName(CompareOp op);  // "=", "!=", ..., "contains", "starts_with"

// `prop: value` inside a binding's property map or a mutation's assignment block.
struct PropertyValue {
  std::string property;
  SourceSpan span;  // of the property name
  Expr value;
};

struct Hops {
  uint32_t min = 1;
  std::optional<uint32_t> max;  // nullopt = unbounded ({min,})
};

enum class ClauseKind : uint8_t { kBinding, kTraversal, kFilter, kNot, kTextSearch, kShortest };

// One clause of a match block. Only the fields of `kind` are meaningful.
struct Clause {
  ClauseKind kind = ClauseKind::kBinding;
  SourceSpan span;  // of the clause's first token
  // kBinding: $var: TypeName { props }
  std::string var;
  SourceSpan var_span;
  std::string type_name;
  SourceSpan type_span;
  std::vector<PropertyValue> properties;
  // kTraversal: $src [$edge_var:] edge [{min,max}] $dst, or $src <edge> $dst
  std::string src, dst, edge_var, edge;
  SourceSpan src_span, dst_span, edge_var_span, edge_span;
  bool undirected = false;
  std::optional<Hops> hops;
  SourceSpan hops_span;
  // kShortest: $var: shortest($src edge{min,max} $dst[, weight: property]) or all_shortest(...);
  // `var` names the path, the traversal fields hold the pattern.
  bool all_paths = false;
  std::string weight;
  SourceSpan weight_span;
  // kFilter: lhs op rhs
  Expr lhs;
  CompareOp op = CompareOp::kEq;
  Expr rhs;
  // kNot: not { body }
  std::vector<Clause> body;
  // kTextSearch: search/match_text/fuzzy call (kind kSearch/kMatchText/kFuzzy)
  Expr call;
};

struct Projection {
  Expr expr;
  std::string alias;  // empty when no `as`
  SourceSpan alias_span;
};

enum class OrderDir : uint8_t { kDefault, kAsc, kDesc };

struct Ordering {
  Expr expr;
  OrderDir dir = OrderDir::kDefault;
};

enum class MutationKind : uint8_t { kInsert, kUpdate, kDelete };

struct Mutation {
  MutationKind kind = MutationKind::kInsert;
  SourceSpan span;  // of the insert/update/delete keyword
  std::string type_name;
  SourceSpan type_span;
  std::vector<PropertyValue> assignments;  // insert / update set
  // update / delete: where <property> <op> <value>
  std::string where_property;
  SourceSpan where_span;
  CompareOp where_op = CompareOp::kEq;
  Expr where_value;
};

// `$name: Type[?]` in a query's parameter list.
struct ParamDecl {
  std::string name;  // without '$'
  DataType type;
  bool nullable = false;
  SourceSpan span;
};

struct QueryAnnotation {
  std::string name;  // "description" or "instruction"
  std::string text;
};

struct Query {
  std::string name;
  SourceSpan span;  // of the `query` keyword
  SourceSpan name_span;
  std::vector<ParamDecl> params;
  std::vector<QueryAnnotation> annotations;
  // Read form (mutations empty):
  std::vector<Clause> match;
  SourceSpan return_span;
  std::vector<Projection> projections;
  bool has_order = false;
  std::vector<Ordering> order;
  std::optional<uint64_t> limit;
  SourceSpan limit_span;
  // Mutation form:
  std::vector<Mutation> mutations;

  bool is_mutation() const { return !mutations.empty(); }
};

struct QueryFile {
  std::vector<Query> queries;
};

}  // namespace omnigraph::compiler
