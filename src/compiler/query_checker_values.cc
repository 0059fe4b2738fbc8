// Type checker, part 2: literals, parameters, comparisons and mutations (docs/language.md,
// "Parameters", "Match clauses" and "Mutations"). See query_checker.h.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>

#include "compiler/params.h"
#include "compiler/query_checker.h"
#include "compiler/query_printer.h"

namespace omnigraph::compiler::internal {
namespace {

bool ParseSigned(const std::string& text, int64_t* out) {
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && p == text.data() + text.size();
}

bool ParseUnsignedText(const std::string& text, uint64_t* out) {
  if (!text.empty() && text[0] == '-') return false;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && p == text.data() + text.size();
}

bool ParseDouble(const std::string& text, double* out) {
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(*out);
}

bool Comparable(const DataType& a, const DataType& b) {
  if (a.is_numeric() && b.is_numeric()) return true;
  if (IsTemporalKind(a.kind) && IsTemporalKind(b.kind)) return true;
  return a.is_scalar() && a.kind == b.kind && a.kind != TypeKind::kBlob;
}

std::string TypeText(const IrType& t) {
  if (t.kind == IrType::Kind::kNode) return "node " + t.entity_type;
  if (t.kind == IrType::Kind::kEdge) return "edge " + t.entity_type;
  return t.data.ToString();
}

}  // namespace

Status QueryChecker::Err(ErrorCode code, const SourceSpan& span, std::string message) {
  return Status(code, std::move(message)).WithSpan(span);
}

IrType QueryChecker::ValueType(const DataType& t, bool nullable, std::vector<std::string> enum_values) {
  IrType out;
  out.kind = IrType::Kind::kValue;
  out.data = t;
  out.nullable = nullable;
  out.enum_values = std::move(enum_values);
  return out;
}

bool QueryChecker::Assignable(const DataType& from, const DataType& to) {
  if (from == to) return true;
  if (from.kind == TypeKind::kList && to.kind == TypeKind::kList) {
    return Assignable(DataType::Scalar(from.element), DataType::Scalar(to.element));
  }
  if (!from.is_scalar() || !to.is_scalar()) return false;
  switch (from.kind) {
    case TypeKind::kI32: return to.kind == TypeKind::kI64 || to.kind == TypeKind::kF64;
    case TypeKind::kU32: return to.kind == TypeKind::kU64 || to.kind == TypeKind::kI64 || to.kind == TypeKind::kF64;
    case TypeKind::kI64:
    case TypeKind::kU64:
    case TypeKind::kF32: return to.kind == TypeKind::kF64;
    case TypeKind::kDate: return to.kind == TypeKind::kDateTime;
    default: return false;
  }
}

Result<Value> QueryChecker::LiteralToValue(const Literal& lit, const DataType& target,
                                           const std::vector<std::string>& enum_values, ErrorCode code,
                                           const SourceSpan& span) {
  auto fail = [&](std::string why) {
    return Err(code, span,
               "cannot use " + PrintLiteral(lit) + " as " + target.ToString() + (why.empty() ? "" : ": " + why));
  };
  switch (target.kind) {
    case TypeKind::kString:
      if (lit.kind != LiteralKind::kString) return fail("");
      if (!enum_values.empty()) {
        bool member = false;
        std::string allowed;
        for (const std::string& v : enum_values) {
          member |= v == lit.text;
          allowed += (allowed.empty() ? "" : ", ") + v;
        }
        if (!member) return fail("not one of the enum values (" + allowed + ")");
      }
      return Value::String(lit.text);
    case TypeKind::kBlob: {
      if (lit.kind != LiteralKind::kString || lit.text.rfind("base64:", 0) != 0) {
        return fail("Blob literals are strings \"base64:...\"");
      }
      auto bytes = DecodeBase64(std::string_view(lit.text).substr(7));
      if (!bytes.ok()) return fail(bytes.status().message());
      return Value::Blob(std::move(*bytes));
    }
    case TypeKind::kBool:
      if (lit.kind != LiteralKind::kBool) return fail("");
      return Value::Bool(lit.text == "true");
    case TypeKind::kI32:
    case TypeKind::kI64: {
      int64_t v = 0;
      if (lit.kind != LiteralKind::kInt) return fail("");
      if (!ParseSigned(lit.text, &v)) return fail("out of range");
      if (target.kind == TypeKind::kI64) return Value::I64(v);
      if (v < INT32_MIN || v > INT32_MAX) return fail("out of range");
      return Value::I32(static_cast<int32_t>(v));
    }
    case TypeKind::kU32:
    case TypeKind::kU64: {
      uint64_t v = 0;
      if (lit.kind != LiteralKind::kInt) return fail("");
      if (!ParseUnsignedText(lit.text, &v)) return fail("out of range");
      if (target.kind == TypeKind::kU64) return Value::U64(v);
      if (v > UINT32_MAX) return fail("out of range");
      return Value::U32(static_cast<uint32_t>(v));
    }
    case TypeKind::kF32:
    case TypeKind::kF64: {
      double d = 0;
      if (lit.kind != LiteralKind::kInt && lit.kind != LiteralKind::kFloat) return fail("");
      if (!ParseDouble(lit.text, &d)) return fail("out of range");
      if (target.kind == TypeKind::kF32) {
        if (!FitsF32(d)) return fail("out of F32 range");
        return Value::F32(static_cast<float>(d));
      }
      return Value::F64(d);
    }
    case TypeKind::kDate: {
      if (lit.kind == LiteralKind::kInt) {
        int64_t v = 0;
        if (!ParseSigned(lit.text, &v) || v < INT32_MIN || v > INT32_MAX) return fail("out of range");
        return Value::Date(static_cast<int32_t>(v));
      }
      if (lit.kind != LiteralKind::kDate && lit.kind != LiteralKind::kString) return fail("");
      auto days = ParseIsoDate(lit.text);
      if (!days.ok()) return fail(days.status().message());
      return Value::Date(*days);
    }
    case TypeKind::kDateTime: {
      if (lit.kind == LiteralKind::kInt) {
        int64_t v = 0;
        if (!ParseSigned(lit.text, &v)) return fail("out of range");
        return Value::DateTime(v);
      }
      if (lit.kind == LiteralKind::kDate) {
        auto days = ParseIsoDate(lit.text);
        if (!days.ok()) return fail(days.status().message());
        return Value::DateTime(static_cast<int64_t>(*days) * 86400000);
      }
      if (lit.kind != LiteralKind::kDateTime && lit.kind != LiteralKind::kString) return fail("");
      auto ms = ParseIsoDateTimeMillis(lit.text);
      if (!ms.ok()) return fail(ms.status().message());
      return Value::DateTime(*ms);
    }
    case TypeKind::kVector: {
      if (lit.kind != LiteralKind::kList) return fail("");
      if (lit.items.size() != target.dimension) {
        return fail("expected " + std::to_string(target.dimension) + " numbers, found " +
                    std::to_string(lit.items.size()));
      }
      std::vector<float> v;
      for (const Literal& item : lit.items) {
        double d = 0;
        if ((item.kind != LiteralKind::kInt && item.kind != LiteralKind::kFloat) || !ParseDouble(item.text, &d)) {
          return fail("vector elements must be finite numbers");
        }
        if (!FitsF32(d)) return fail("vector element " + item.text + " is out of F32 range");
        v.push_back(static_cast<float>(d));
      }
      return Value::Vector(std::move(v));
    }
    case TypeKind::kList: {
      if (lit.kind != LiteralKind::kList) return fail("");
      std::vector<Value> items;
      for (const Literal& item : lit.items) {
        OG_ASSIGN_OR_RETURN(Value v, LiteralToValue(item, DataType::Scalar(target.element), {}, code, span));
        items.push_back(std::move(v));
      }
      return Value::List(target.element, std::move(items));
    }
  }
  return fail("");
}

Result<Value> QueryChecker::NaturalLiteral(const Literal& lit, const SourceSpan& span) {
  ErrorCode code = ErrorCode::kTypeIncompatible;
  switch (lit.kind) {
    case LiteralKind::kString: return Value::String(lit.text);
    case LiteralKind::kBool: return Value::Bool(lit.text == "true");
    case LiteralKind::kInt: {
      int64_t v = 0;
      if (ParseSigned(lit.text, &v)) return Value::I64(v);
      return LiteralToValue(lit, DataType::Scalar(TypeKind::kU64), {}, code, span);
    }
    case LiteralKind::kFloat: return LiteralToValue(lit, DataType::Scalar(TypeKind::kF64), {}, code, span);
    case LiteralKind::kDate: return LiteralToValue(lit, DataType::Scalar(TypeKind::kDate), {}, code, span);
    case LiteralKind::kDateTime: return LiteralToValue(lit, DataType::Scalar(TypeKind::kDateTime), {}, code, span);
    case LiteralKind::kList: {
      TypeKind elem = TypeKind::kString;
      bool any_float = false;
      for (const Literal& item : lit.items) any_float |= item.kind == LiteralKind::kFloat;
      if (!lit.items.empty()) {
        switch (lit.items[0].kind) {
          case LiteralKind::kInt: elem = any_float ? TypeKind::kF64 : TypeKind::kI64; break;
          case LiteralKind::kFloat: elem = TypeKind::kF64; break;
          case LiteralKind::kBool: elem = TypeKind::kBool; break;
          case LiteralKind::kDate: elem = TypeKind::kDate; break;
          case LiteralKind::kDateTime: elem = TypeKind::kDateTime; break;
          case LiteralKind::kString: elem = TypeKind::kString; break;
          case LiteralKind::kList: return Err(code, span, "lists hold scalars only (no nested lists)");
        }
      }
      return LiteralToValue(lit, DataType::List(elem), {}, code, span);
    }
  }
  return Err(code, span, "unsupported literal");
}

std::optional<PropInfo> QueryChecker::LookupProperty(VarKind kind, const std::string& type_name,
                                                     std::string_view property) const {
  const std::vector<Property>* props = nullptr;
  if (kind == VarKind::kNode) {
    const NodeType* n = cat_.FindNode(type_name);
    if (n == nullptr) return std::nullopt;
    props = &n->properties;
  } else {
    const EdgeType* e = cat_.FindEdge(type_name);
    if (e == nullptr) return std::nullopt;
    props = &e->properties;
  }
  if (property == "id" || (kind == VarKind::kEdge && (property == "src" || property == "dst"))) {
    return PropInfo{DataType::Scalar(TypeKind::kString), false, {}};
  }
  for (const Property& p : *props) {
    if (p.name == property) return PropInfo{p.type, p.nullable, p.enum_values};
  }
  return std::nullopt;
}

Result<IrExpr> QueryChecker::ParamExpr(const Expr& e, ErrorCode undeclared) {
  auto it = params_.find(e.name);
  if (it == params_.end()) {
    return Err(undeclared, e.span, "undeclared parameter $" + e.name + "; declare it in the query's parameter list");
  }
  IrExpr out;
  out.kind = IrExprKind::kParam;
  out.param = e.name;
  out.type = ValueType(it->second->type, it->second->nullable);
  return out;
}

Result<IrExpr> QueryChecker::CheckValue(const Expr& e, const PropInfo& target, ErrorCode mismatch, ErrorCode undeclared,
                                        std::string_view what, bool compare) {
  IrExpr out;
  switch (e.kind) {
    case ExprKind::kVariable: {
      if (!params_.count(e.name) && FindVar(e.name) != nullptr) {
        return Err(undeclared, e.span,
                   "$" + e.name + " is a match variable; " + std::string(what) +
                       " takes a literal, a declared parameter or now()");
      }
      OG_ASSIGN_OR_RETURN(out, ParamExpr(e, undeclared));
      const DataType& pt = out.type.data;
      bool comparable = compare && pt.is_scalar() && Comparable(pt, target.type);
      if (!comparable && !Assignable(pt, target.type)) {
        return Err(mismatch, e.span,
                   "parameter $" + e.name + " has type " + pt.ToString() + " but " + std::string(what) + " has type " +
                       target.type.ToString());
      }
      return out;
    }
    case ExprKind::kNow:
      if (!IsTemporalKind(target.type.kind)) {
        return Err(mismatch, e.span,
                   "now() is a DateTime but " + std::string(what) + " has type " + target.type.ToString());
      }
      out.kind = IrExprKind::kNow;
      out.type = ValueType(DataType::Scalar(TypeKind::kDateTime), false);
      return out;
    case ExprKind::kLiteral: {
      out.kind = IrExprKind::kLiteral;
      OG_ASSIGN_OR_RETURN(out.literal, LiteralToValue(e.literal, target.type, target.enum_values, mismatch, e.span));
      out.type = ValueType(target.type, false, target.enum_values);
      return out;
    }
    default: return Err(mismatch, e.span, std::string(what) + " takes a literal, a parameter or now()");
  }
}

Status QueryChecker::CheckComparison(IrExpr* lhs, const Expr& lhs_ast, CompareOp op, IrExpr* rhs, const Expr& rhs_ast,
                                     const SourceSpan& span) {
  const std::string op_name(CompareOpName(op));
  auto incompatible = [&](std::string why) {
    return Err(ErrorCode::kTypeIncompatible, span,
               "cannot compare " + TypeText(lhs->type) + " " + op_name + " " + TypeText(rhs->type) +
                   (why.empty() ? "" : ": " + why));
  };
  bool l_entity = lhs->type.kind != IrType::Kind::kValue;
  bool r_entity = rhs->type.kind != IrType::Kind::kValue;
  if (l_entity || r_entity) {
    if (l_entity && r_entity && lhs->type.kind == rhs->type.kind && lhs->type.entity_type == rhs->type.entity_type &&
        (op == CompareOp::kEq || op == CompareOp::kNe)) {
      return Status::Ok();  // identity comparison of two bound entities
    }
    return incompatible("compare properties, or two variables of one type with = / !=");
  }
  if (lhs->type.data.kind == TypeKind::kBlob || rhs->type.data.kind == TypeKind::kBlob) {
    return incompatible("Blob values cannot be compared");
  }
  // Converts a literal operand to `target` (its enum values included).
  auto coerce = [&](IrExpr* lit, const Expr& ast, const DataType& target,
                    const std::vector<std::string>& enums) -> Status {
    if (lit->kind != IrExprKind::kLiteral || ast.kind != ExprKind::kLiteral) return Status::Ok();
    if (target.is_numeric() && lit->type.data.is_numeric()) {
      bool float_into_int = target.is_integer() && ast.literal.kind == LiteralKind::kFloat;
      if (float_into_int) return Status::Ok();  // compared numerically as F64
    }
    OG_ASSIGN_OR_RETURN(lit->literal,
                        LiteralToValue(ast.literal, target, enums, ErrorCode::kTypeIncompatible, ast.span));
    lit->type = ValueType(target, false, enums);
    return Status::Ok();
  };
  bool l_lit = lhs->kind == IrExprKind::kLiteral, r_lit = rhs->kind == IrExprKind::kLiteral;
  if (op == CompareOp::kContains) {
    if (lhs->type.data.kind == TypeKind::kList) {
      DataType elem = DataType::Scalar(lhs->type.data.element);
      if (r_lit) OG_RETURN_IF_ERROR(coerce(rhs, rhs_ast, elem, {}));
      if (!rhs->type.data.is_scalar() || !Comparable(elem, rhs->type.data)) {
        return incompatible("the value must have the list's element type");
      }
      return Status::Ok();
    }
    if (lhs->type.data.kind != TypeKind::kString) {
      return incompatible("contains needs a list or a String on the left");
    }
  }
  if (op == CompareOp::kContains || op == CompareOp::kStartsWith) {
    DataType s = DataType::Scalar(TypeKind::kString);
    if (r_lit && !l_lit) OG_RETURN_IF_ERROR(coerce(rhs, rhs_ast, s, {}));
    if (l_lit && !r_lit) OG_RETURN_IF_ERROR(coerce(lhs, lhs_ast, s, {}));
    if (lhs->type.data.kind != TypeKind::kString || rhs->type.data.kind != TypeKind::kString) {
      return incompatible(op_name + " needs String operands");
    }
    return Status::Ok();
  }
  if (!lhs->type.data.is_scalar() || !rhs->type.data.is_scalar()) {
    return incompatible("lists and vectors cannot be compared (use contains for lists)");
  }
  if (r_lit && !l_lit) OG_RETURN_IF_ERROR(coerce(rhs, rhs_ast, lhs->type.data, lhs->type.enum_values));
  if (l_lit && !r_lit) OG_RETURN_IF_ERROR(coerce(lhs, lhs_ast, rhs->type.data, rhs->type.enum_values));
  if (!Comparable(lhs->type.data, rhs->type.data)) return incompatible("");
  if (lhs->type.data.kind == TypeKind::kBool && op != CompareOp::kEq && op != CompareOp::kNe) {
    return incompatible("Bool values support only = and !=");
  }
  return Status::Ok();
}

Status QueryChecker::CheckInsertAssignments(const Mutation& m, IrMutation* out) {
  const NodeType* node = cat_.FindNode(m.type_name);
  const EdgeType* edge = node ? nullptr : cat_.FindEdge(m.type_name);
  const std::vector<Property>& props = node ? node->properties : edge->properties;
  std::set<std::string> assigned;
  for (const PropertyValue& a : m.assignments) {
    if (!assigned.insert(a.property).second) {
      return Err(ErrorCode::kTypeDuplicateAssignment, a.span, "property `" + a.property + "` is assigned twice");
    }
    if (edge && (a.property == "from" || a.property == "to")) {
      const NodeType* end = cat_.FindNode(a.property == "from" ? edge->from_type : edge->to_type);
      PropInfo id{DataType::Scalar(TypeKind::kString), false, {}};
      auto v = CheckValue(a.value, id, ErrorCode::kTypeIncompatible, ErrorCode::kTypeUndeclaredMutationVar,
                          "`" + a.property + "`");
      if (!v.ok() && v.status().code() == ErrorCode::kTypeIncompatible && end != nullptr && end->key.size() == 1) {
        const Property* key = end->FindProperty(end->key[0]);
        if (key != nullptr) {
          v = CheckValue(a.value, PropInfo{key->type, false, key->enum_values}, ErrorCode::kTypeIncompatible,
                         ErrorCode::kTypeUndeclaredMutationVar, "`" + a.property + "` (the key of " + end->name + ")");
        }
      }
      OG_RETURN_IF_ERROR(v.status());
      (a.property == "from" ? out->from : out->to) = std::move(*v);
      continue;
    }
    std::optional<PropInfo> info;
    for (const Property& p : props) {
      if (p.name == a.property) info = PropInfo{p.type, p.nullable, p.enum_values};
    }
    if (!info) {
      return Err(ErrorCode::kTypeUnknownMutationProperty, a.span,
                 m.type_name + " has no property `" + a.property + "`" +
                     (edge ? " (edges take `from`, `to` and their declared properties)" : ""));
    }
    IrAssignment ia;
    ia.property = a.property;
    ia.target = info->type;
    ia.nullable = info->nullable;
    OG_ASSIGN_OR_RETURN(ia.value, CheckValue(a.value, *info, ErrorCode::kTypeIncompatible,
                                             ErrorCode::kTypeUndeclaredMutationVar, "property `" + a.property + "`"));
    out->assignments.push_back(std::move(ia));
  }
  for (const Property& p : props) {
    if (p.nullable || assigned.count(p.name)) continue;
    if (p.embed && assigned.count(p.embed->source)) continue;  // embedded from its source
    return Err(ErrorCode::kTypeMissingProperty, m.type_span,
               "insert into " + m.type_name + " does not set required property `" + p.name + "`");
  }
  if (edge) {
    for (const char* end : {"from", "to"}) {
      if (!assigned.count(end)) {
        return Err(ErrorCode::kTypeMissingProperty, m.type_span,
                   "insert into edge " + m.type_name + " needs `" + std::string(end) + ": <endpoint id>`");
      }
    }
  }
  return Status::Ok();
}

Status QueryChecker::CheckMutation(const Mutation& m, IrMutation* out) {
  out->kind = m.kind;
  out->type_name = m.type_name;
  const NodeType* node = cat_.FindNode(m.type_name);
  const EdgeType* edge = node ? nullptr : cat_.FindEdge(m.type_name);
  if (node == nullptr && edge == nullptr) {
    return Err(ErrorCode::kTypeUnknownMutationType, m.type_span, "unknown node or edge type `" + m.type_name + "`");
  }
  out->is_edge = edge != nullptr;
  VarKind kind = edge ? VarKind::kEdge : VarKind::kNode;
  if (m.kind == MutationKind::kUpdate && edge) {
    return Err(ErrorCode::kTypeUpdateEdge, m.type_span,
               "update on edge type " + m.type_name +
                   " is not supported; delete and insert the "
                   "edge instead");
  }
  if (m.kind != MutationKind::kDelete && m.assignments.empty()) {
    return Err(ErrorCode::kTypeUnknownMutationType, m.type_span,
               std::string(m.kind == MutationKind::kInsert ? "insert" : "update") + " into " + m.type_name +
                   " assigns nothing");
  }
  if (m.kind == MutationKind::kInsert) return CheckInsertAssignments(m, out);
  std::set<std::string> assigned;
  for (const PropertyValue& a : m.assignments) {
    if (!assigned.insert(a.property).second) {
      return Err(ErrorCode::kTypeDuplicateAssignment, a.span, "property `" + a.property + "` is assigned twice");
    }
    std::optional<PropInfo> info;
    if (a.property != "id") info = LookupProperty(kind, m.type_name, a.property);
    if (!info) {
      return Err(ErrorCode::kTypeUnknownMutationProperty, a.span,
                 m.type_name + " has no property `" + a.property + "` that can be set");
    }
    IrAssignment ia;
    ia.property = a.property;
    ia.target = info->type;
    ia.nullable = info->nullable;
    OG_ASSIGN_OR_RETURN(ia.value, CheckValue(a.value, *info, ErrorCode::kTypeIncompatible,
                                             ErrorCode::kTypeUndeclaredMutationVar, "property `" + a.property + "`"));
    out->assignments.push_back(std::move(ia));
  }
  // An edge's endpoints are `src`/`dst`, or `from`/`to` as the Rust implementation spells them
  // in a mutation's where (unless the edge type has a property of that name, which wins).
  std::string where_property = m.where_property;
  if (kind == VarKind::kEdge && (where_property == "from" || where_property == "to") &&
      !LookupProperty(kind, m.type_name, where_property)) {
    where_property = where_property == "from" ? "src" : "dst";
  }
  std::optional<PropInfo> where = LookupProperty(kind, m.type_name, where_property);
  if (!where) {
    return Err(ErrorCode::kTypeUnknownMutationProperty, m.where_span,
               m.type_name + " has no property `" + m.where_property + "`");
  }
  if (where->type.kind == TypeKind::kBlob) {
    return Err(ErrorCode::kTypeUnknownMutationProperty, m.where_span,
               "Blob property `" + m.where_property + "` cannot be used in where");
  }
  PropInfo target = *where;
  bool list = where->type.kind == TypeKind::kList;
  if (m.where_op == CompareOp::kContains && list) {
    target = PropInfo{DataType::Scalar(where->type.element), false, {}};
  } else if ((m.where_op == CompareOp::kContains || m.where_op == CompareOp::kStartsWith)
                 ? where->type.kind != TypeKind::kString
                 : (!where->type.is_scalar() || (where->type.kind == TypeKind::kBool && m.where_op != CompareOp::kEq &&
                                                 m.where_op != CompareOp::kNe))) {
    return Err(ErrorCode::kTypeIncompatible, m.where_span,
               "cannot use `" + std::string(CompareOpName(m.where_op)) + "` on `" + m.where_property + "` of type " +
                   where->type.ToString());
  }
  out->where_property = where_property;
  out->where_op = m.where_op;
  OG_ASSIGN_OR_RETURN(out->where_value, CheckValue(m.where_value, target, ErrorCode::kTypeIncompatible,
                                                   ErrorCode::kTypeUndeclaredMutationVar, "`" + m.where_property + "`",
                                                   /*compare=*/true));
  return Status::Ok();
}

// `$m: Metric { count: 2.7 }` with `count` an integer property: the Rust implementation compares
// numerically (so it matches nothing) and tests it; an equality binding needs a value of the
// property's type, so such a pair becomes the filter `$m.count = 2.7`, which compares numerically.
// Returns the clauses with those pairs moved out of their bindings into filters at the end.
std::vector<Clause> FractionalBindingsAsFilters(const Catalog& catalog, const std::vector<Clause>& clauses) {
  std::vector<Clause> out = clauses, filters;
  for (Clause& c : out) {
    if (c.kind != ClauseKind::kBinding || c.var == "_") continue;
    const NodeType* node = catalog.FindNode(c.type_name);
    if (node == nullptr) continue;
    std::vector<PropertyValue> kept;
    for (PropertyValue& pv : c.properties) {
      const Property* p = node->FindProperty(pv.property);
      const bool fractional = pv.value.kind == ExprKind::kLiteral && pv.value.literal.kind == LiteralKind::kFloat;
      if (p == nullptr || !fractional || !IsIntegerKind(p->type.kind) || !p->type.is_scalar()) {
        kept.push_back(std::move(pv));
        continue;
      }
      Clause f;
      f.kind = ClauseKind::kFilter;
      f.span = pv.span;
      f.lhs.kind = ExprKind::kProperty;
      f.lhs.span = pv.span;
      f.lhs.name = c.var;
      f.lhs.property = pv.property;
      f.op = CompareOp::kEq;
      f.rhs = std::move(pv.value);
      filters.push_back(std::move(f));
    }
    c.properties = std::move(kept);
  }
  for (Clause& f : filters) out.push_back(std::move(f));
  return out;
}

}  // namespace omnigraph::compiler::internal
