// Internal to the type checker (type_checker.h): the per-query checking state and the shared
// helpers for typing values, literals and comparisons (docs/language.md, "Match clauses",
// "Mutations"). Split over type_checker.cc (match/return/order) and query_checker_values.cc
// (values, mutations).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/error_codes.h"
#include "compiler/catalog.h"
#include "compiler/query_ast.h"
#include "compiler/query_ir.h"
#include "omnigraph/result.h"

namespace omnigraph::compiler::internal {

// The type of a property as seen by the checker (schema properties plus the physical id/src/dst).
struct PropInfo {
  DataType type;
  bool nullable = false;
  std::vector<std::string> enum_values;
};

// Where an expression appears; decides which functions are allowed.
// kPathArg: the argument of a path function (length, nodes, edges, cost), the only place a path
// variable may appear.
enum class ExprContext : uint8_t { kMatch, kReturn, kOrder, kAggregateArg, kFunctionArg, kPathArg };

// `$m: Metric { count: 2.7 }` with `count` an integer property: the Rust implementation compares
// numerically (so it matches nothing); the clauses with such pairs moved out of their bindings
// into filters `$m.count = 2.7` at the end (query_checker_values.cc).
std::vector<Clause> FractionalBindingsAsFilters(const Catalog& catalog, const std::vector<Clause>& clauses);

// Checks one query. Not thread-safe (one instance per query); the catalog is only read.
class QueryChecker {
 public:
  QueryChecker(const Catalog& catalog, const Query& query) : cat_(catalog), q_(query) {}
  Result<IrQuery> Run();

  // --- shared helpers (query_checker_values.cc) ---
  static Status Err(ErrorCode code, const SourceSpan& span, std::string message);
  // Converts a literal to a Value of `target` (enum membership included); `code` on failure.
  static Result<Value> LiteralToValue(const Literal& lit, const DataType& target,
                                      const std::vector<std::string>& enum_values, ErrorCode code,
                                      const SourceSpan& span);
  // The natural type of a literal with no target: INT -> I64, FLOAT -> F64, list by first item.
  static Result<Value> NaturalLiteral(const Literal& lit, const SourceSpan& span);
  // Whether a parameter/expression of type `from` may be stored into / compared as `to`.
  static bool Assignable(const DataType& from, const DataType& to);
  static IrType ValueType(const DataType& t, bool nullable, std::vector<std::string> enum_values = {});

 private:
  // Variables and scopes.
  struct VarState {
    int index;
    int depth;  // nesting level of the not-block that declared it (0 = top level)
  };
  Result<int> DeclareNode(const std::string& name, const SourceSpan& span, const std::string& type_name,
                          ErrorCode mismatch_code, std::string_view role);
  const VarState* FindVar(const std::string& name) const;
  void NoteReference(int var);

  // Match clauses (type_checker.cc).
  Status CheckClauses(const std::vector<Clause>& clauses, std::vector<IrClause>* out);
  Result<IrClause> CheckBinding(const Clause& c);
  Result<IrClause> CheckTraversal(const Clause& c);
  Result<IrClause> CheckShortest(const Clause& c);
  Result<IrClause> CheckFilter(const Clause& c);
  Result<IrClause> CheckNegation(const Clause& c);
  Result<IrExpr> CheckExpr(const Expr& e, ExprContext ctx);
  Result<IrExpr> CheckVarRef(const Expr& e, ExprContext ctx);
  Result<IrExpr> CheckCall(const Expr& e, ExprContext ctx);
  Result<IrExpr> CheckTextField(const Expr& e, ErrorCode code, std::string_view fn);
  Status CheckProjections();
  Status CheckOrder();
  void CollectReads();

  // Values and comparisons (query_checker_values.cc).
  // Types a binding/mutation value (literal, $param or now()) against a property.
  // `compare` (binding values, where): any numeric parameter matches a numeric property, and
  // Date/DateTime match each other; otherwise the parameter must be assignable (widening only).
  Result<IrExpr> CheckValue(const Expr& e, const PropInfo& target, ErrorCode mismatch, ErrorCode undeclared,
                            std::string_view what, bool compare = false);
  // Checks `lhs op rhs`, converting literal operands to the other side's type.
  Status CheckComparison(IrExpr* lhs, const Expr& lhs_ast, CompareOp op, IrExpr* rhs, const Expr& rhs_ast,
                         const SourceSpan& span);
  Result<IrExpr> ParamExpr(const Expr& e, ErrorCode undeclared);
  std::optional<PropInfo> LookupProperty(VarKind kind, const std::string& type_name, std::string_view property) const;
  Status CheckMutation(const Mutation& m, IrMutation* out);
  Status CheckInsertAssignments(const Mutation& m, IrMutation* out);

  const Catalog& cat_;
  const Query& q_;
  IrQuery ir_;
  std::map<std::string, const ParamDecl*> params_;
  std::vector<std::map<std::string, VarState>> scopes_;  // innermost last
  struct Negation {
    int depth;
    std::set<int> outer;
  };
  std::vector<Negation> negations_;  // active not-blocks, innermost last
  int negation_count_ = 0;
  int anon_count_ = 0;
};

}  // namespace omnigraph::compiler::internal
