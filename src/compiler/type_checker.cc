// Type checker: match clauses, expressions, projections and ordering. Values, comparisons and
// mutations are in query_checker_values.cc. See type_checker.h.
#include "compiler/type_checker.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <utility>

#include "compiler/query_checker.h"
#include "compiler/query_printer.h"

namespace omnigraph::compiler {
namespace internal {
namespace {

std::string Var(const std::string& name) { return "$" + name; }

bool IsRanking(const Expr& e) {
  return e.kind == ExprKind::kNearest || e.kind == ExprKind::kBm25 || e.kind == ExprKind::kRrf;
}

bool ContainsNearest(const Expr& e) {
  if (e.kind == ExprKind::kNearest) return true;
  for (const Expr& a : e.args) {
    if (ContainsNearest(a)) return true;
  }
  return false;
}

// The name of an un-aliased result column, as the Rust implementation names it (so scripts move
// over unchanged): `$p.name` is `p.name`, `$p` is `p`, a parameter `$x` is `x`, an aggregate takes
// the name of its argument (`count($f)` is `f`, `avg($p.age)` is `p.age`).
std::string DefaultColumnName(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kProperty: return e.name + "." + e.property;
    case ExprKind::kVariable: return e.name;
    case ExprKind::kLiteral: return "literal";
    case ExprKind::kNow: return "now";
    case ExprKind::kAlias: return e.name;
    case ExprKind::kAggregate:
      return e.args.empty() ? std::string(AggFnName(e.agg)) : DefaultColumnName(e.args.front());
    case ExprKind::kNearest:
    case ExprKind::kBm25:
    case ExprKind::kRrf:
    case ExprKind::kSearch:
    case ExprKind::kFuzzy:
    case ExprKind::kMatchText: return std::string(SearchFunctionName(e.kind));
    case ExprKind::kPathFn: return e.function;
  }
  return "literal";
}

bool IsBlob(const IrType& t) { return t.kind == IrType::Kind::kValue && t.data.kind == TypeKind::kBlob; }

}  // namespace

Result<IrQuery> QueryChecker::Run() {
  ir_.name = q_.name;
  ir_.is_mutation = q_.is_mutation();
  for (const ParamDecl& p : q_.params) {
    if (params_.count(p.name)) {
      return Err(ErrorCode::kTypeDuplicateDeclaration, p.span, "parameter " + Var(p.name) + " is declared twice");
    }
    params_[p.name] = &p;
    ir_.params.push_back(p);
  }
  for (const QueryAnnotation& a : q_.annotations) {
    if (a.name == "description") ir_.description = a.text;
    if (a.name == "instruction") ir_.instruction = a.text;
  }
  if (ir_.is_mutation) {
    std::set<IrTypeRef> reads, writes;
    for (const Mutation& m : q_.mutations) {
      IrMutation im;
      OG_RETURN_IF_ERROR(CheckMutation(m, &im));
      IrTypeRef target{im.is_edge ? VarKind::kEdge : VarKind::kNode, im.type_name};
      reads.insert(target);
      writes.insert(target);
      if (im.is_edge && m.kind == MutationKind::kInsert) {
        const EdgeType* e = cat_.FindEdge(im.type_name);
        reads.insert({VarKind::kNode, e->from_type});
        reads.insert({VarKind::kNode, e->to_type});
      }
      if (!im.is_edge && m.kind == MutationKind::kDelete) {
        for (const EdgeType& e : cat_.edges()) {
          if (e.from_type == im.type_name || e.to_type == im.type_name) {
            reads.insert({VarKind::kEdge, e.name});
            writes.insert({VarKind::kEdge, e.name});
          }
        }
      }
      ir_.mutations.push_back(std::move(im));
    }
    ir_.reads.assign(reads.begin(), reads.end());
    ir_.writes.assign(writes.begin(), writes.end());
    return std::move(ir_);
  }
  scopes_.emplace_back();
  OG_RETURN_IF_ERROR(CheckClauses(q_.match, &ir_.clauses));
  OG_RETURN_IF_ERROR(CheckProjections());
  OG_RETURN_IF_ERROR(CheckOrder());
  ir_.limit = q_.limit;
  CollectReads();
  return std::move(ir_);
}

const QueryChecker::VarState* QueryChecker::FindVar(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(name);
    if (f != it->end()) return &f->second;
  }
  return nullptr;
}

void QueryChecker::NoteReference(int var) {
  int depth = -1;
  for (const auto& scope : scopes_) {
    for (const auto& [name, st] : scope) {
      if (st.index == var) depth = st.depth;
    }
  }
  for (Negation& n : negations_) {
    if (n.depth > depth) n.outer.insert(var);
  }
}

Result<int> QueryChecker::DeclareNode(const std::string& name, const SourceSpan& span, const std::string& type_name,
                                      ErrorCode mismatch_code, std::string_view role) {
  if (name != "_") {
    if (params_.count(name)) {
      return Err(ErrorCode::kTypeVariableConflict, span,
                 "variable " + Var(name) + " has the name of a parameter; rename one of them");
    }
    if (const VarState* st = FindVar(name)) {
      const IrVariable& v = ir_.variables[static_cast<size_t>(st->index)];
      if (v.kind != VarKind::kNode) {
        return Err(ErrorCode::kTypeVariableConflict, span,
                   "variable " + Var(name) + " is bound to edge type " + v.type_name + " and cannot also be a node");
      }
      if (v.type_name != type_name) {
        return Err(mismatch_code, span,
                   "variable " + Var(name) + " has type " + v.type_name + " but " + std::string(role) + " requires " +
                       type_name);
      }
      NoteReference(st->index);
      return st->index;
    }
  }
  IrVariable v;
  v.kind = VarKind::kNode;
  v.type_name = type_name;
  v.anonymous = name == "_";
  v.name = v.anonymous ? "_" + std::to_string(++anon_count_) : name;
  v.scope = negations_.empty() ? 0 : negation_count_;
  int index = static_cast<int>(ir_.variables.size());
  ir_.variables.push_back(std::move(v));
  if (name != "_") {
    scopes_.back()[name] = VarState{index, static_cast<int>(negations_.size())};
  }
  return index;
}

Status QueryChecker::CheckClauses(const std::vector<Clause>& given, std::vector<IrClause>* out) {
  const std::vector<Clause> clauses = FractionalBindingsAsFilters(cat_, given);
  // Bindings and traversals first (they declare variables), then filters and negations, so a
  // filter may mention a variable bound by a later clause. Output keeps source order.
  std::vector<std::optional<IrClause>> slots(clauses.size());
  for (size_t i = 0; i < clauses.size(); ++i) {
    const Clause& c = clauses[i];
    if (c.kind == ClauseKind::kBinding) {
      OG_ASSIGN_OR_RETURN(slots[i], CheckBinding(c));
    } else if (c.kind == ClauseKind::kTraversal) {
      OG_ASSIGN_OR_RETURN(slots[i], CheckTraversal(c));
    } else if (c.kind == ClauseKind::kShortest) {
      OG_ASSIGN_OR_RETURN(slots[i], CheckShortest(c));
    }
  }
  for (size_t i = 0; i < clauses.size(); ++i) {
    const Clause& c = clauses[i];
    if (c.kind == ClauseKind::kFilter) {
      OG_ASSIGN_OR_RETURN(slots[i], CheckFilter(c));
    } else if (c.kind == ClauseKind::kNot) {
      OG_ASSIGN_OR_RETURN(slots[i], CheckNegation(c));
    } else if (c.kind == ClauseKind::kTextSearch) {
      IrClause ic;
      ic.kind = IrClauseKind::kTextFilter;
      OG_ASSIGN_OR_RETURN(ic.call, CheckExpr(c.call, ExprContext::kMatch));
      slots[i] = std::move(ic);
    }
  }
  for (auto& s : slots) out->push_back(std::move(*s));
  return Status::Ok();
}

Result<IrClause> QueryChecker::CheckBinding(const Clause& c) {
  const NodeType* node = cat_.FindNode(c.type_name);
  if (node == nullptr) {
    std::string hint;
    if (const EdgeType* e = cat_.FindEdge(c.type_name)) {
      std::string word = e->name;
      word[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(word[0])));
      hint = " (" + e->name + " is an edge type; traverse it with `$a " + word + " $b`)";
    }
    return Err(ErrorCode::kTypeUnknownNodeType, c.type_span, "unknown node type `" + c.type_name + "`" + hint);
  }
  IrClause ic;
  ic.kind = IrClauseKind::kBinding;
  ic.type_name = node->name;
  OG_ASSIGN_OR_RETURN(ic.var,
                      DeclareNode(c.var, c.var_span, node->name, ErrorCode::kTypeVariableConflict, "this binding"));
  std::set<std::string> seen;
  for (const PropertyValue& pv : c.properties) {
    if (!seen.insert(pv.property).second) {
      return Err(ErrorCode::kTypeDuplicateAssignment, pv.span,
                 "property `" + pv.property + "` appears twice in the binding of " + Var(c.var));
    }
    std::optional<PropInfo> info = LookupProperty(VarKind::kNode, node->name, pv.property);
    if (!info) {
      return Err(ErrorCode::kTypeUnknownBindingProperty, pv.span,
                 "node type " + node->name + " has no property `" + pv.property + "`");
    }
    if (info->type.kind == TypeKind::kBlob || !info->type.is_scalar()) {
      return Err(ErrorCode::kTypeBindingValue, pv.span,
                 "property `" + pv.property + "` of type " + info->type.ToString() + " cannot be matched by value");
    }
    IrPropertyEq eq;
    eq.property = pv.property;
    OG_ASSIGN_OR_RETURN(eq.value, CheckValue(pv.value, *info, ErrorCode::kTypeBindingValue, ErrorCode::kTypeUnboundName,
                                             "property `" + pv.property + "`",
                                             /*compare=*/true));
    ic.equalities.push_back(std::move(eq));
  }
  return ic;
}

Result<IrClause> QueryChecker::CheckTraversal(const Clause& c) {
  const EdgeType* edge = cat_.FindEdgeByQueryName(c.edge);
  if (edge == nullptr) {
    return Err(ErrorCode::kTypeUnknownEdgeType, c.edge_span, "unknown edge type `" + c.edge + "`");
  }
  IrClause ic;
  ic.kind = IrClauseKind::kTraversal;
  ic.edge_type = edge->name;
  if (c.undirected) {
    if (edge->from_type != edge->to_type) {
      return Err(ErrorCode::kTypeUndirectedAsymmetric, c.edge_span,
                 "undirected traversal <" + c.edge +
                     "> needs an edge whose endpoints have one "
                     "type, but " +
                     edge->name + " goes from " + edge->from_type + " to " + edge->to_type);
    }
    ic.direction = Direction::kBoth;
  }
  if (c.hops) {
    if (!c.edge_var.empty()) {
      return Err(ErrorCode::kTypeEdgeBindingMisuse, c.hops_span,
                 "edge binding " + Var(c.edge_var) + " cannot be combined with hop bounds");
    }
    if (c.hops->max && *c.hops->max < c.hops->min) {
      return Err(ErrorCode::kTypeTraversalBounds, c.hops_span,
                 "traversal bounds {" + std::to_string(c.hops->min) + "," + std::to_string(*c.hops->max) +
                     "}: max is smaller than min");
    }
    ic.min_hops = c.hops->min;
    ic.max_hops = c.hops->max;
  }
  OG_ASSIGN_OR_RETURN(ic.src, DeclareNode(c.src, c.src_span, edge->from_type, ErrorCode::kTypeEndpointMismatch,
                                          "the source of " + edge->name));
  OG_ASSIGN_OR_RETURN(ic.dst, DeclareNode(c.dst, c.dst_span, edge->to_type, ErrorCode::kTypeEndpointMismatch,
                                          "the target of " + edge->name));
  if (!c.edge_var.empty()) {
    if (c.edge_var == "_") {
      return Err(ErrorCode::kTypeEdgeBindingMisuse, c.edge_var_span,
                 "an edge binding needs a name; drop `$_:` to traverse without binding");
    }
    if (FindVar(c.edge_var) != nullptr || params_.count(c.edge_var) || c.edge_var == c.src || c.edge_var == c.dst) {
      return Err(ErrorCode::kTypeEdgeBindingMisuse, c.edge_var_span,
                 "edge binding " + Var(c.edge_var) + " uses a name that is already bound");
    }
    IrVariable v;
    v.name = c.edge_var;
    v.kind = VarKind::kEdge;
    v.type_name = edge->name;
    v.scope = negations_.empty() ? 0 : negation_count_;
    ic.edge_var = static_cast<int>(ir_.variables.size());
    ir_.variables.push_back(std::move(v));
    scopes_.back()[c.edge_var] = VarState{ic.edge_var, static_cast<int>(negations_.size())};
  }
  return ic;
}

Result<IrClause> QueryChecker::CheckFilter(const Clause& c) {
  IrClause ic;
  ic.kind = IrClauseKind::kFilter;
  ic.op = c.op;
  OG_ASSIGN_OR_RETURN(ic.lhs, CheckExpr(c.lhs, ExprContext::kMatch));
  OG_ASSIGN_OR_RETURN(ic.rhs, CheckExpr(c.rhs, ExprContext::kMatch));
  OG_RETURN_IF_ERROR(CheckComparison(&ic.lhs, c.lhs, c.op, &ic.rhs, c.rhs, c.span));
  return ic;
}

Result<IrClause> QueryChecker::CheckNegation(const Clause& c) {
  IrClause ic;
  ic.kind = IrClauseKind::kNegation;
  ++negation_count_;
  negations_.push_back(Negation{static_cast<int>(negations_.size()) + 1, {}});
  scopes_.emplace_back();
  Status st = CheckClauses(c.body, &ic.body);
  std::set<int> outer = std::move(negations_.back().outer);
  scopes_.pop_back();
  negations_.pop_back();
  OG_RETURN_IF_ERROR(st);
  if (outer.empty()) {
    return Err(ErrorCode::kTypeAggregateForm, c.span,
               "a `not { ... }` block must reference at least one variable bound outside it");
  }
  ic.outer_vars.assign(outer.begin(), outer.end());
  return ic;
}

Result<IrExpr> QueryChecker::CheckVarRef(const Expr& e, ExprContext ctx) {
  if (e.name == "_") {
    return Err(ErrorCode::kTypeUnboundName, e.span, "the anonymous variable $_ cannot be referenced");
  }
  const VarState* st = FindVar(e.name);
  if (st == nullptr) {
    if (e.kind == ExprKind::kVariable && params_.count(e.name)) {
      return ParamExpr(e, ErrorCode::kTypeUnboundName);
    }
    std::string what = params_.count(e.name) ? "parameter " + Var(e.name) + " has no properties"
                                             : "unbound variable or undeclared parameter " + Var(e.name);
    return Err(ErrorCode::kTypeUnboundName, e.span, what);
  }
  NoteReference(st->index);
  const IrVariable& v = ir_.variables[static_cast<size_t>(st->index)];
  IrExpr out;
  out.var = st->index;
  if (v.kind == VarKind::kPath) {
    if (e.kind != ExprKind::kVariable) {
      return Err(ErrorCode::kTypePathMisuse, e.span,
                 "path " + Var(e.name) + " has no properties; read it with length(), nodes(), edges() or cost()");
    }
    if (ctx != ExprContext::kPathArg && ctx != ExprContext::kAggregateArg) {
      return Err(ErrorCode::kTypePathMisuse, e.span,
                 "path " + Var(e.name) + " is read through length(" + Var(e.name) + "), nodes(" + Var(e.name) +
                     "), edges(" + Var(e.name) + ") or cost(" + Var(e.name) + ")");
    }
    out.kind = IrExprKind::kVariable;
    out.type.kind = IrType::Kind::kPath;
    out.type.entity_type = v.type_name;
    return out;
  }
  if (ctx == ExprContext::kPathArg) {
    return Err(ErrorCode::kTypePathMisuse, e.span,
               Var(e.name) + " is not a path; path functions read a variable bound by shortest() or all_shortest()");
  }
  if (e.kind == ExprKind::kVariable) {
    if (v.kind == VarKind::kEdge && ctx == ExprContext::kReturn) {
      return Err(ErrorCode::kTypeEdgeBindingMisuse, e.span,
                 "edge binding " + Var(e.name) +
                     " cannot be projected as a whole; project its "
                     "properties (" +
                     Var(e.name) + ".prop)");
    }
    out.kind = IrExprKind::kVariable;
    out.type.kind = v.kind == VarKind::kNode ? IrType::Kind::kNode : IrType::Kind::kEdge;
    out.type.entity_type = v.type_name;
    return out;
  }
  std::optional<PropInfo> info = LookupProperty(v.kind, v.type_name, e.property);
  if (!info) {
    return Err(ErrorCode::kTypeUnboundName, e.span,
               std::string(v.kind == VarKind::kNode ? "node" : "edge") + " type " + v.type_name + " has no property `" +
                   e.property + "`");
  }
  out.kind = IrExprKind::kProperty;
  out.property = e.property;
  out.type = ValueType(info->type, info->nullable, info->enum_values);
  return out;
}

Result<IrExpr> QueryChecker::CheckExpr(const Expr& e, ExprContext ctx) {
  switch (e.kind) {
    case ExprKind::kLiteral: {
      IrExpr out;
      out.kind = IrExprKind::kLiteral;
      OG_ASSIGN_OR_RETURN(out.literal, NaturalLiteral(e.literal, e.span));
      out.type = ValueType(out.literal.type(), false);
      return out;
    }
    case ExprKind::kVariable:
    case ExprKind::kProperty: return CheckVarRef(e, ctx);
    case ExprKind::kNow: {
      IrExpr out;
      out.kind = IrExprKind::kNow;
      out.type = ValueType(DataType::Scalar(TypeKind::kDateTime), false);
      return out;
    }
    case ExprKind::kAlias: {
      if (ctx == ExprContext::kOrder) {
        for (size_t i = 0; i < ir_.projections.size(); ++i) {
          if (ir_.projections[i].name == e.name) {
            IrExpr out;
            out.kind = IrExprKind::kAlias;
            out.alias = static_cast<int>(i);
            out.type = ir_.projections[i].expr.type;
            return out;
          }
        }
        std::string hint;
        for (const IrProjection& p : ir_.projections) {
          const std::string suffix = "." + e.name;
          if (p.name.size() > suffix.size() && p.name.ends_with(suffix)) {
            hint = " (the column of `$" + p.name + "` is named `" + p.name + "`: order by `$" + p.name +
                   "`, or add `as " + e.name + "` to it)";
            break;
          }
        }
        return Err(ErrorCode::kTypeUnboundName, e.span, "`" + e.name + "` is not the name of a result column" + hint);
      }
      return Err(ErrorCode::kTypeUnboundName, e.span,
                 "unknown name `" + e.name +
                     "` (variables start with `$`; result column "
                     "aliases can be used only in order)");
    }
    default: return CheckCall(e, ctx);
  }
}

Result<IrExpr> QueryChecker::CheckTextField(const Expr& e, ErrorCode code, std::string_view fn) {
  if (e.kind != ExprKind::kProperty) {
    return Err(code, e.span, std::string(fn) + "() needs a String property as its first argument");
  }
  OG_ASSIGN_OR_RETURN(IrExpr field, CheckVarRef(e, ExprContext::kFunctionArg));
  if (ir_.variables[static_cast<size_t>(field.var)].kind == VarKind::kEdge) {
    return Err(ErrorCode::kTypeEdgeBindingMisuse, e.span,
               std::string(fn) + "() cannot search properties of edge binding $" + e.name);
  }
  if (field.type.data.kind != TypeKind::kString) {
    return Err(
        code, e.span,
        std::string(fn) + "() needs a String property, but `" + e.property + "` is " + field.type.data.ToString());
  }
  return field;
}

Result<IrExpr> QueryChecker::CheckCall(const Expr& e, ExprContext ctx) {
  IrExpr out;
  out.type = ValueType(DataType::Scalar(TypeKind::kF64), false);
  auto string_arg = [&](const Expr& a, ErrorCode code, std::string_view fn) -> Result<IrExpr> {
    OG_ASSIGN_OR_RETURN(IrExpr arg, CheckExpr(a, ExprContext::kFunctionArg));
    if (arg.type.kind != IrType::Kind::kValue || arg.type.data.kind != TypeKind::kString) {
      return Err(code, a.span, std::string(fn) + "() needs a String query");
    }
    return arg;
  };
  switch (e.kind) {
    case ExprKind::kPathFn: {
      const Expr& a = e.args[0];
      if (a.kind != ExprKind::kVariable) {
        return Err(ErrorCode::kTypePathMisuse, a.span,
                   e.function + "() takes a path variable (bound by shortest() or all_shortest())");
      }
      OG_ASSIGN_OR_RETURN(IrExpr arg, CheckVarRef(a, ExprContext::kPathArg));
      if (e.function == "length") {
        out.kind = IrExprKind::kPathLength;
        out.type = ValueType(DataType::Scalar(TypeKind::kI64), false);
      } else if (e.function == "cost") {
        out.kind = IrExprKind::kPathCost;
        out.type = ValueType(DataType::Scalar(TypeKind::kF64), false);
      } else {
        out.kind = e.function == "nodes" ? IrExprKind::kPathNodes : IrExprKind::kPathEdges;
        out.type = ValueType(DataType::List(TypeKind::kString), false);
      }
      out.args.push_back(std::move(arg));
      return out;
    }
    case ExprKind::kAggregate: {
      if (ctx != ExprContext::kReturn && ctx != ExprContext::kOrder) {
        return Err(ErrorCode::kTypeFunctionPlacement, e.span,
                   std::string(AggFnName(e.agg)) + "() is allowed only in return and order" +
                       (ctx == ExprContext::kAggregateArg ? " (aggregates do not nest)" : ""));
      }
      const Expr& a = e.args[0];
      if (a.kind == ExprKind::kAggregate) {
        return Err(ErrorCode::kTypeFunctionPlacement, a.span, "aggregates do not nest");
      }
      if (a.kind != ExprKind::kProperty && a.kind != ExprKind::kVariable) {
        return Err(ErrorCode::kTypeAggregateArgument, a.span,
                   std::string(AggFnName(e.agg)) + "() needs a variable or a property");
      }
      OG_ASSIGN_OR_RETURN(IrExpr arg, CheckVarRef(a, ExprContext::kAggregateArg));
      if (arg.type.kind == IrType::Kind::kPath && e.agg != AggFn::kCount) {
        return Err(ErrorCode::kTypePathMisuse, a.span,
                   std::string(AggFnName(e.agg)) + "() cannot read a path; only count() can");
      }
      if (IsBlob(arg.type)) {
        return Err(ErrorCode::kTypeBlobValue, a.span, "Blob property `" + a.property + "` cannot be aggregated");
      }
      out.kind = IrExprKind::kAggregate;
      out.agg = e.agg;
      const DataType& t = arg.type.data;
      bool value = arg.type.kind == IrType::Kind::kValue;
      switch (e.agg) {
        case AggFn::kCount: out.type = ValueType(DataType::Scalar(TypeKind::kI64), false); break;
        case AggFn::kSum:
        case AggFn::kAvg:
          if (!value || !t.is_numeric()) {
            return Err(ErrorCode::kTypeAggregateArgument, a.span,
                       std::string(AggFnName(e.agg)) + "() needs a numeric property");
          }
          if (e.agg == AggFn::kAvg || !t.is_integer()) {
            out.type = ValueType(DataType::Scalar(TypeKind::kF64), true);
          } else {
            bool unsigned_kind = t.kind == TypeKind::kU32 || t.kind == TypeKind::kU64;
            out.type = ValueType(DataType::Scalar(unsigned_kind ? TypeKind::kU64 : TypeKind::kI64), true);
          }
          break;
        case AggFn::kMin:
        case AggFn::kMax:
          if (!value || !(t.is_numeric() || t.kind == TypeKind::kString || t.kind == TypeKind::kDate ||
                          t.kind == TypeKind::kDateTime)) {
            return Err(ErrorCode::kTypeAggregateArgument, a.span,
                       std::string(AggFnName(e.agg)) + "() needs a numeric, String, Date or DateTime property");
          }
          out.type = ValueType(t, true, arg.type.enum_values);
          break;
      }
      out.args.push_back(std::move(arg));
      return out;
    }
    case ExprKind::kNearest: {
      if (ctx == ExprContext::kMatch) {
        return Err(ErrorCode::kTypeFunctionPlacement, e.span,
                   "nearest() ranks rows; use it in order or return, not in match");
      }
      const Expr& target = e.args[0];
      if (target.kind != ExprKind::kProperty) {
        return Err(ErrorCode::kTypeTraversalBounds, target.span,
                   "nearest() needs a Vector property ($x.prop) as its first argument");
      }
      OG_ASSIGN_OR_RETURN(IrExpr prop, CheckVarRef(target, ExprContext::kFunctionArg));
      if (ir_.variables[static_cast<size_t>(prop.var)].kind == VarKind::kEdge) {
        return Err(ErrorCode::kTypeEdgeBindingMisuse, target.span,
                   "nearest() cannot rank properties of edge binding $" + target.name);
      }
      if (prop.type.data.kind != TypeKind::kVector) {
        return Err(ErrorCode::kTypeTraversalBounds, target.span,
                   "nearest() needs a Vector property, but `" + target.property + "` is " + prop.type.data.ToString());
      }
      uint32_t dim = prop.type.data.dimension;
      const Expr& qe = e.args[1];
      IrExpr query;
      if (qe.kind == ExprKind::kLiteral && qe.literal.kind == LiteralKind::kList) {
        query.kind = IrExprKind::kLiteral;
        OG_ASSIGN_OR_RETURN(query.literal, LiteralToValue(qe.literal, DataType::Vector(dim), {},
                                                          ErrorCode::kTypeTraversalBounds, qe.span));
        query.type = ValueType(DataType::Vector(dim), false);
      } else {
        OG_ASSIGN_OR_RETURN(query, CheckExpr(qe, ExprContext::kFunctionArg));
        bool ok = query.type.kind == IrType::Kind::kValue &&
                  (query.type.data == DataType::Vector(dim) || query.type.data.kind == TypeKind::kString);
        if (!ok) {
          return Err(ErrorCode::kTypeTraversalBounds, qe.span,
                     "nearest() query must be a Vector(" + std::to_string(dim) + ") or a String to embed");
        }
      }
      out.kind = IrExprKind::kNearest;
      out.args.push_back(std::move(prop));
      out.args.push_back(std::move(query));
      return out;
    }
    case ExprKind::kBm25: {
      if (ctx == ExprContext::kMatch) {
        return Err(ErrorCode::kTypeFunctionPlacement, e.span,
                   "bm25() scores rows; use it in order or return, not in match");
      }
      out.kind = IrExprKind::kBm25;
      OG_ASSIGN_OR_RETURN(IrExpr field, CheckTextField(e.args[0], ErrorCode::kTypeMatchTextArgument, "bm25"));
      OG_ASSIGN_OR_RETURN(IrExpr q, string_arg(e.args[1], ErrorCode::kTypeMatchTextArgument, "bm25"));
      out.args.push_back(std::move(field));
      out.args.push_back(std::move(q));
      return out;
    }
    case ExprKind::kRrf: {
      if (ctx == ExprContext::kMatch) {
        return Err(ErrorCode::kTypeFunctionPlacement, e.span,
                   "rrf() ranks rows; use it in order or return, not in match");
      }
      out.kind = IrExprKind::kRrf;
      for (size_t i = 0; i < 2; ++i) {
        if (e.args[i].kind != ExprKind::kNearest && e.args[i].kind != ExprKind::kBm25) {
          return Err(ErrorCode::kTypeRrfArgument, e.args[i].span,
                     "rrf() fuses two rankings: each argument must be nearest() or bm25()");
        }
        OG_ASSIGN_OR_RETURN(IrExpr rank, CheckExpr(e.args[i], ExprContext::kFunctionArg));
        out.args.push_back(std::move(rank));
      }
      if (out.args[0].args[0].var != out.args[1].args[0].var) {
        return Err(ErrorCode::kTypeRrfArgument, e.args[1].span,
                   "rrf() fuses two rankings of the same variable; these rank $" +
                       ir_.variables[static_cast<size_t>(out.args[0].args[0].var)].name + " and $" +
                       ir_.variables[static_cast<size_t>(out.args[1].args[0].var)].name);
      }
      IrExpr k;
      k.kind = IrExprKind::kLiteral;
      k.literal = Value::U64(60);
      if (e.args.size() == 3) {
        const Expr& ke = e.args[2];
        uint64_t kv = 0;
        bool ok = ke.kind == ExprKind::kLiteral && ke.literal.kind == LiteralKind::kInt && !ke.literal.text.empty() &&
                  ke.literal.text[0] != '-';
        if (ok) {
          auto r =
              LiteralToValue(ke.literal, DataType::Scalar(TypeKind::kU64), {}, ErrorCode::kTypeRrfArgument, ke.span);
          ok = r.ok() && (kv = r->uint_value()) > 0;
        }
        if (!ok) return Err(ErrorCode::kTypeRrfArgument, ke.span, "rrf() k must be an integer > 0");
        k.literal = Value::U64(kv);
      }
      k.type = ValueType(DataType::Scalar(TypeKind::kU64), false);
      out.args.push_back(std::move(k));
      return out;
    }
    case ExprKind::kSearch:
    case ExprKind::kMatchText:
    case ExprKind::kFuzzy: {
      bool match_text = e.kind == ExprKind::kMatchText;
      ErrorCode code = match_text ? ErrorCode::kTypeMatchTextArgument : ErrorCode::kTypeSearchArgument;
      std::string fn(SearchFunctionName(e.kind));
      out.kind = e.kind == ExprKind::kSearch ? IrExprKind::kSearch
                 : match_text                ? IrExprKind::kMatchText
                                             : IrExprKind::kFuzzy;
      out.type = ValueType(DataType::Scalar(TypeKind::kBool), false);
      OG_ASSIGN_OR_RETURN(IrExpr field, CheckTextField(e.args[0], code, fn));
      OG_ASSIGN_OR_RETURN(IrExpr q, string_arg(e.args[1], code, fn));
      out.args.push_back(std::move(field));
      out.args.push_back(std::move(q));
      if (e.kind == ExprKind::kFuzzy) {
        IrExpr k;
        k.kind = IrExprKind::kLiteral;
        k.literal = Value::U64(2);
        k.type = ValueType(DataType::Scalar(TypeKind::kU64), false);
        if (e.args.size() == 3) {
          const Expr& ke = e.args[2];
          if (ke.kind == ExprKind::kLiteral) {
            OG_ASSIGN_OR_RETURN(k.literal,
                                LiteralToValue(ke.literal, DataType::Scalar(TypeKind::kU32), {}, code, ke.span));
            k.literal = Value::U64(k.literal.uint_value());
          } else {
            OG_ASSIGN_OR_RETURN(k, CheckExpr(ke, ExprContext::kFunctionArg));
            if (k.type.kind != IrType::Kind::kValue || !k.type.data.is_integer()) {
              return Err(code, ke.span, "fuzzy() max_edits must be an integer");
            }
          }
        }
        out.args.push_back(std::move(k));
      }
      return out;
    }
    default: break;
  }
  return InternalError("unhandled expression kind");
}

Status QueryChecker::CheckProjections() {
  bool any_aggregate = std::any_of(q_.projections.begin(), q_.projections.end(),
                                   [](const Projection& p) { return p.expr.kind == ExprKind::kAggregate; });
  std::map<std::string, size_t> names;
  for (size_t i = 0; i < q_.projections.size(); ++i) {
    const Projection& p = q_.projections[i];
    IrProjection ip;
    OG_ASSIGN_OR_RETURN(ip.expr, CheckExpr(p.expr, ExprContext::kReturn));
    if (IsBlob(ip.expr.type)) {
      return Err(ErrorCode::kTypeBlobValue, p.expr.span,
                 "Blob property `" + p.expr.property +
                     "` cannot be returned; read it with "
                     "`omnigraph blob get`");
    }
    ip.aggregate = p.expr.kind == ExprKind::kAggregate;
    if (any_aggregate && !ip.aggregate) {
      if (p.expr.kind != ExprKind::kProperty && p.expr.kind != ExprKind::kVariable) {
        return Err(ErrorCode::kTypeAggregateForm, p.expr.span,
                   "in a query with aggregates, every other projection is a grouping key and "
                   "must be a variable or a property");
      }
      ir_.group_keys.push_back(static_cast<int>(i));
    }
    ip.name = p.alias.empty() ? DefaultColumnName(p.expr) : p.alias;
    auto [it, inserted] = names.emplace(ip.name, i);
    if (!inserted) {
      const SourceSpan& span = p.alias.empty() ? p.expr.span : p.alias_span;
      return Err(ErrorCode::kTypeDuplicateColumn, span,
                 "two result columns are named `" + ip.name + "` (" + PrintExpr(q_.projections[it->second].expr) +
                     " and " + PrintExpr(p.expr) + "); add `as <name>` to one of them");
    }
    ir_.projections.push_back(std::move(ip));
  }
  ir_.has_aggregate = any_aggregate;
  return Status::Ok();
}

Status QueryChecker::CheckOrder() {
  bool has_alias = false, has_nearest = false;
  const Expr* rrf = nullptr;
  const Expr* ranking = nullptr;
  for (const Ordering& o : q_.order) {
    IrOrdering io;
    io.descending = o.dir == OrderDir::kDesc;
    if (o.expr.kind == ExprKind::kAggregate && !ir_.has_aggregate) {
      return Err(ErrorCode::kTypeFunctionPlacement, o.expr.span,
                 "ordering by an aggregate needs that aggregate in return");
    }
    OG_ASSIGN_OR_RETURN(io.expr, CheckExpr(o.expr, ExprContext::kOrder));
    // A relevance score ranks best first unless told otherwise (a distance ranks nearest first).
    if (o.dir == OrderDir::kDefault && (o.expr.kind == ExprKind::kBm25 || o.expr.kind == ExprKind::kRrf)) {
      io.descending = true;
    }
    if (IsBlob(io.expr.type)) {
      return Err(ErrorCode::kTypeBlobValue, o.expr.span, "cannot order by a Blob property");
    }
    if (io.expr.type.kind != IrType::Kind::kValue) {
      return Err(ErrorCode::kTypeIncompatible, o.expr.span,
                 "cannot order by a whole node or edge; order by one of its properties");
    }
    if (!io.expr.type.data.is_scalar()) {
      return Err(ErrorCode::kTypeIncompatible, o.expr.span,
                 "cannot order by a " + io.expr.type.data.ToString() + " value");
    }
    if (ir_.has_aggregate && (o.expr.kind == ExprKind::kProperty || o.expr.kind == ExprKind::kVariable)) {
      bool grouped = false;
      for (int k : ir_.group_keys) {
        const IrExpr& g = ir_.projections[static_cast<size_t>(k)].expr;
        grouped |= g.var == io.expr.var && g.property == io.expr.property;
      }
      if (!grouped) {
        return Err(ErrorCode::kTypeAggregateForm, o.expr.span,
                   "in a query with aggregates, order by a grouping key, an aggregate or an alias");
      }
    }
    has_alias |= o.expr.kind == ExprKind::kAlias;
    has_nearest |= ContainsNearest(o.expr);
    if (o.expr.kind == ExprKind::kRrf && rrf == nullptr) rrf = &o.expr;
    if (IsRanking(o.expr) && ranking == nullptr) ranking = &o.expr;
    ir_.order.push_back(std::move(io));
  }
  if (has_alias && has_nearest) {
    return Err(ErrorCode::kTypeAliasOrderWithNearest, ranking ? ranking->span : q_.return_span,
               "ordering by an alias cannot be combined with nearest(); order by the "
               "expression itself");
  }
  if (ranking != nullptr) {
    ir_.ranked = true;
    // nearest() and rrf() rank the k nearest rows, k = limit; bm25() alone ranks every matching
    // row, so it needs none.
    if (!q_.limit) {
      if (rrf != nullptr) {
        return Err(ErrorCode::kTypeRrfArgument, rrf->span,
                   "ordering by rrf() requires `limit N` (the result is the top N rows)");
      }
      if (has_nearest) {
        return Err(ErrorCode::kTypeRankingWithoutLimit, ranking->span,
                   "ordering by nearest() requires `limit N` (the result is the N nearest rows)");
      }
    }
  }
  return Status::Ok();
}

void QueryChecker::CollectReads() {
  std::set<IrTypeRef> reads;
  for (const IrVariable& v : ir_.variables) {
    if (v.kind != VarKind::kPath) reads.insert({v.kind, v.type_name});
  }
  std::vector<const std::vector<IrClause>*> pending{&ir_.clauses};
  while (!pending.empty()) {
    const std::vector<IrClause>* clauses = pending.back();
    pending.pop_back();
    for (const IrClause& c : *clauses) {
      if (c.kind == IrClauseKind::kTraversal || c.kind == IrClauseKind::kShortestPath) {
        reads.insert({VarKind::kEdge, c.edge_type});
      }
      if (c.kind == IrClauseKind::kNegation) pending.push_back(&c.body);
    }
  }
  ir_.reads.assign(reads.begin(), reads.end());
}

}  // namespace internal

Result<IrQuery> TypeCheckQuery(const Catalog& catalog, const Query& query) {
  internal::QueryChecker checker(catalog, query);
  return checker.Run();
}

Result<std::vector<IrQuery>> TypeCheckQueryFile(const Catalog& catalog, const QueryFile& file) {
  std::vector<IrQuery> out;
  std::set<std::string> names;
  for (const Query& q : file.queries) {
    if (!names.insert(q.name).second) {
      return internal::QueryChecker::Err(ErrorCode::kTypeDuplicateDeclaration, q.name_span,
                                         "two queries are named `" + q.name + "`");
    }
    OG_ASSIGN_OR_RETURN(IrQuery ir, TypeCheckQuery(catalog, q));
    out.push_back(std::move(ir));
  }
  return out;
}

Result<std::vector<IrQuery>> CompileQueries(const Catalog& catalog, std::string_view source,
                                            const QueryParseLimits& limits) {
  OG_ASSIGN_OR_RETURN(QueryFile file, ParseQueryFile(source, limits));
  return TypeCheckQueryFile(catalog, file);
}

}  // namespace omnigraph::compiler
