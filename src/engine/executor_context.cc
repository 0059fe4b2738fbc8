// The executor's per-query context (executor_internal.h): table versions, cached ordinals, columns
// and CSR adjacency of the query's types, and per-row expression evaluation.
#include "common/error_codes.h"
#include "engine/executor_internal.h"

namespace omnigraph::engine {
namespace exec {

using compiler::CompareOp;
using compiler::IrExpr;
using compiler::IrExprKind;


Result<const table::TableVersion*> Context::Table(const std::string& type) {
  auto it = tables_.find(type);
  if (it != tables_.end()) return &it->second;
  OG_ASSIGN_OR_RETURN(table::TableVersion t, snap_.Table(type));
  return &tables_.emplace(type, std::move(t)).first->second;
}

Result<const TableOrdinals*> Context::Ordinals(const std::string& type) {
  auto it = ordinals_.find(type);
  if (it != ordinals_.end()) return it->second.get();
  OG_ASSIGN_OR_RETURN(const table::TableVersion* t, Table(type));
  OG_ASSIGN_OR_RETURN(auto o, cache_->Ordinals(*t));
  return ordinals_.emplace(type, std::move(o)).first->second.get();
}

Result<const format::Column*> Context::Column(const std::string& type, const std::string& column) {
  std::string key = type + '\x1f' + column;
  auto it = columns_.find(key);
  if (it != columns_.end()) return it->second.get();
  OG_ASSIGN_OR_RETURN(const table::TableVersion* t, Table(type));
  OG_ASSIGN_OR_RETURN(auto c, cache_->ColumnFor(*t, column));
  return columns_.emplace(key, std::move(c)).first->second.get();
}

Result<const Csr*> Context::CsrFor(const std::string& edge_type) {
  auto it = csrs_.find(edge_type);
  if (it != csrs_.end()) return it->second.get();
  const compiler::EdgeType* e = snap_.catalog().FindEdge(edge_type);
  if (e == nullptr) return NotFoundError("unknown edge type " + edge_type);
  OG_ASSIGN_OR_RETURN(const table::TableVersion* et, Table(edge_type));
  OG_ASSIGN_OR_RETURN(const table::TableVersion* from, Table(e->from_type));
  OG_ASSIGN_OR_RETURN(const table::TableVersion* to, Table(e->to_type));
  OG_ASSIGN_OR_RETURN(auto c, cache_->CsrFor(*et, *from, *to));
  return csrs_.emplace(edge_type, std::move(c)).first->second.get();
}

Result<std::string_view> Context::Id(int var, int64_t ordinal) {
  if (ordinal < 0) return std::string_view();
  OG_ASSIGN_OR_RETURN(const format::Column* ids, Column(TypeOf(var), "id"));
  if (ids == nullptr) return InternalError("table " + TypeOf(var) + " has no id column");
  return ids->string_at(static_cast<size_t>(ordinal));
}

bool Context::IsConstant(const IrExpr& e) {
  return e.kind == IrExprKind::kLiteral || e.kind == IrExprKind::kParam || e.kind == IrExprKind::kNow;
}

Result<Value> Context::Eval(const IrExpr& e, const int64_t* row) {
  switch (e.kind) {
    case IrExprKind::kLiteral: return e.literal;
    case IrExprKind::kParam: {
      auto it = params_.find(e.param);
      if (it == params_.end()) return InvalidArgumentError("parameter $" + e.param + " has no value");
      return it->second;
    }
    case IrExprKind::kNow: return Value::DateTime(now_ms_);
    case IrExprKind::kProperty: {
      if (row == nullptr || row[e.var] < 0) return Value::Null(e.type.data);
      const format::Column* c = nullptr;
      if (auto it = expr_columns_.find(&e); it != expr_columns_.end()) {
        c = it->second;
      } else {
        OG_ASSIGN_OR_RETURN(c, Column(TypeOf(e.var), e.property));
        expr_columns_.emplace(&e, c);
      }
      if (c == nullptr) return Value::Null(e.type.data);
      return c->GetValue(static_cast<size_t>(row[e.var]));
    }
    case IrExprKind::kVariable: {
      if (row == nullptr || row[e.var] < 0) return Value::Null();
      OG_ASSIGN_OR_RETURN(std::string_view id, Id(e.var, row[e.var]));
      return Value::String(std::string(id));
    }
    case IrExprKind::kAggregate: return InternalError("aggregate evaluated per row");
    case IrExprKind::kAlias: return InternalError("alias evaluated per row");
    default: return UnimplementedError(kSearchUnimplemented);
  }
}

bool CompareValues(const Value& l, CompareOp op, const Value& r) {
  if (l.is_null() || r.is_null()) return false;
  switch (op) {
    case CompareOp::kEq: return l.Compare(r) == 0;
    case CompareOp::kNe: return l.Compare(r) != 0;
    case CompareOp::kLt: return l.Compare(r) < 0;
    case CompareOp::kLe: return l.Compare(r) <= 0;
    case CompareOp::kGt: return l.Compare(r) > 0;
    case CompareOp::kGe: return l.Compare(r) >= 0;
    case CompareOp::kContains:
      if (l.kind() == TypeKind::kList) {
        for (const Value& item : l.list_value()) {
          if (item.Compare(r) == 0) return true;
        }
        return false;
      }
      return l.string_value().find(r.string_value()) != std::string::npos;
    case CompareOp::kStartsWith: return l.string_value().rfind(r.string_value(), 0) == 0;
  }
  return false;
}

}  // namespace exec
}  // namespace omnigraph::engine
