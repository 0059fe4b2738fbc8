// The typed, resolved form of one .gq query (docs/language.md, "Read queries", "Mutations") that
// the engine plans from: every variable has a kind and a type, every edge is resolved to its schema
// name with hop bounds and direction, every expression is typed, literals are converted to Values
// of the type they are compared with or assigned to, projections have their result column names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/query_ast.h"
#include "omnigraph/value.h"

namespace omnigraph::compiler {

// kPath: a path bound by a shortest-path clause (type_name: its edge type); only the path
// functions (length, nodes, edges, cost) read it.
enum class VarKind : uint8_t { kNode, kEdge, kPath };

struct IrVariable {
  std::string name;  // without '$'; anonymous `$_` variables are named "_1", "_2", ...
  VarKind kind = VarKind::kNode;
  std::string type_name;  // node or edge type (schema spelling)
  bool anonymous = false;
  int scope = 0;  // 0 = top level; n > 0 = local to the n-th `not` block (1-based)
};

// The static type of an expression.
struct IrType {
  enum class Kind : uint8_t { kValue, kNode, kEdge, kPath };
  Kind kind = Kind::kValue;
  DataType data;  // kValue
  bool nullable = false;
  std::vector<std::string> enum_values;  // kValue of an enum property
  std::string entity_type;               // kNode / kEdge: the type name; kPath: its edge type
};

enum class IrExprKind : uint8_t {
  kLiteral,     // literal: a typed Value
  kParam,       // $param: bound at execution time (params.h)
  kProperty,    // var.property (also the physical `id`, and `src`/`dst` of edges)
  kVariable,    // a whole node (projection of all its properties)
  kNow,         // now(): DateTime, one value per query execution
  kAggregate,   // agg(args[0])
  kNearest,     // args: [property, query]; F64 squared L2 distance (lower = closer)
  kBm25,        // args: [field, query]; F64 relevance (higher = better)
  kRrf,         // args: [rank, rank, k (U64 literal, default 60)]; F64 fused score
  kSearch,      // args: [field, query]; Bool (any query token in the field)
  kFuzzy,       // args: [field, query, max_edits (U64, default 2)]; Bool
  kMatchText,   // args: [field, query]; Bool (phrase match)
  kAlias,       // order by a projection alias: `alias` = projection index
  kPathLength,  // args: [path variable]; I64 number of hops
  kPathNodes,   // args: [path variable]; [String] node ids from the clause's source to its target
  kPathEdges,   // args: [path variable]; [String] edge ids, in path order
  kPathCost,    // args: [path variable]; F64 sum of the weights (the hop count when unweighted)
};
// The function name of a search or ranking kind ("nearest", "bm25", "rrf", "search", "fuzzy",
// "match_text"); empty for every other kind (an aggregate's name is AggFnName).
std::string_view SearchFunctionName(IrExprKind kind);

struct IrExpr {
  IrExprKind kind = IrExprKind::kLiteral;
  IrType type;
  Value literal;         // kLiteral
  std::string param;     // kParam: name without '$'
  int var = -1;          // kProperty / kVariable: index into IrQuery::variables
  std::string property;  // kProperty
  AggFn agg = AggFn::kCount;
  int alias = -1;  // kAlias
  std::vector<IrExpr> args;
};

enum class IrClauseKind : uint8_t { kBinding, kTraversal, kFilter, kNegation, kTextFilter, kShortestPath };
enum class Direction : uint8_t { kOut, kBoth };  // kOut: src -> dst as written; kBoth: <edge>

struct IrPropertyEq {
  std::string property;
  IrExpr value;  // literal (typed to the property), param or now()
};

struct IrClause {
  IrClauseKind kind = IrClauseKind::kBinding;
  // kBinding: every node of `type_name` whose properties equal the values.
  int var = -1;
  std::string type_name;
  std::vector<IrPropertyEq> equalities;
  // kTraversal: src -[edge_type]-> dst, hops [min_hops, max_hops] (nullopt = unbounded).
  int src = -1, dst = -1, edge_var = -1;
  std::string edge_type;
  Direction direction = Direction::kOut;
  uint32_t min_hops = 1;
  std::optional<uint32_t> max_hops = 1;
  // kShortestPath: `var` (a kPath variable) is bound to a shortest path src -[edge_type]-> dst
  // (direction, min_hops 0 or 1, max_hops as for a traversal); `weight` names a numeric edge
  // property (Dijkstra) or is empty (hops); `all_paths`: every shortest path, one row each.
  std::string weight;
  bool all_paths = false;
  // kFilter: lhs op rhs
  IrExpr lhs;
  CompareOp op = CompareOp::kEq;
  IrExpr rhs;
  // kNegation: rows survive when `body` has no match; outer_vars = outer variables it references.
  std::vector<IrClause> body;
  std::vector<int> outer_vars;
  // kTextFilter: a kSearch / kFuzzy / kMatchText expression
  IrExpr call;
};

struct IrProjection {
  IrExpr expr;
  std::string name;  // result column name (alias, or the default name)
  bool aggregate = false;
};

struct IrOrdering {
  IrExpr expr;
  bool descending = false;
};

struct IrAssignment {
  std::string property;
  IrExpr value;           // literal typed to the property, param or now()
  DataType target;        // the property type
  bool nullable = false;  // the property's nullability
};

struct IrMutation {
  MutationKind kind = MutationKind::kInsert;
  std::string type_name;
  bool is_edge = false;
  std::vector<IrAssignment> assignments;  // property assignments (edges: without from/to)
  std::optional<IrExpr> from, to;         // edge insert endpoints (String ids or key values)
  // update / delete predicate: `where_property where_op where_value`
  std::string where_property;
  CompareOp where_op = CompareOp::kEq;
  std::optional<IrExpr> where_value;
};

// A graph type a query reads or writes (the operation descriptor of `omnigraph lint`; docs/cli.md,
// "Commands").
struct IrTypeRef {
  VarKind kind = VarKind::kNode;
  std::string type_name;
  auto operator<=>(const IrTypeRef&) const = default;
};

struct IrQuery {
  std::string name;
  bool is_mutation = false;
  std::vector<ParamDecl> params;
  std::string description, instruction;
  // Read queries:
  std::vector<IrVariable> variables;
  std::vector<IrClause> clauses;
  std::vector<IrProjection> projections;
  bool has_aggregate = false;
  std::vector<int> group_keys;  // indexes of the non-aggregate projections when has_aggregate
  std::vector<IrOrdering> order;
  std::optional<uint64_t> limit;
  bool ranked = false;  // order uses nearest/bm25/rrf
  // Mutation queries:
  std::vector<IrMutation> mutations;
  // Sorted, de-duplicated: types the query may read, types it may write.
  std::vector<IrTypeRef> reads, writes;
};

// A deterministic, line-oriented text rendering (the golden files' expected IR).
std::string DumpIr(const IrQuery& query);
std::string DumpIrType(const IrType& type);
std::string DumpIrExpr(const IrQuery& query, const IrExpr& expr);

}  // namespace omnigraph::compiler
