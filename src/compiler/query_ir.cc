// Text rendering of the query IR (the golden corpus's expected output); see query_ir.h.
#include "compiler/query_ir.h"

#include <string>

#include "compiler/query_printer.h"

namespace omnigraph::compiler {
namespace {

std::string VarName(const IrQuery& q, int var) {
  if (var < 0 || static_cast<size_t>(var) >= q.variables.size()) return "$?";
  return "$" + q.variables[static_cast<size_t>(var)].name;
}

std::string ExprList(const IrQuery& q, const std::vector<IrExpr>& args) {
  std::string out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out += ", ";
    out += DumpIrExpr(q, args[i]);
  }
  return out;
}

void Indent(std::string* out, int level) { out->append(static_cast<size_t>(level) * 2, ' '); }

void DumpClauses(const IrQuery& q, const std::vector<IrClause>& clauses, int level, std::string* out) {
  for (const IrClause& c : clauses) {
    Indent(out, level);
    switch (c.kind) {
      case IrClauseKind::kBinding:
        *out += "bind " + VarName(q, c.var) + ": " + c.type_name;
        for (const IrPropertyEq& eq : c.equalities) {
          *out += " " + eq.property + "=" + DumpIrExpr(q, eq.value);
        }
        break;
      case IrClauseKind::kTraversal:
        *out += "traverse " + VarName(q, c.src) + (c.direction == Direction::kBoth ? " <-" : " -");
        if (c.edge_var >= 0) *out += VarName(q, c.edge_var) + ":";
        *out += c.edge_type + "-> " + VarName(q, c.dst) + " hops " + std::to_string(c.min_hops) + ".." +
                (c.max_hops ? std::to_string(*c.max_hops) : "*");
        break;
      case IrClauseKind::kFilter:
        *out += "filter " + DumpIrExpr(q, c.lhs) + " " + std::string(CompareOpName(c.op)) + " " + DumpIrExpr(q, c.rhs);
        break;
      case IrClauseKind::kNegation: {
        *out += "not (outer";
        for (int v : c.outer_vars) *out += " " + VarName(q, v);
        *out += ") {\n";
        DumpClauses(q, c.body, level + 1, out);
        Indent(out, level);
        *out += "}";
        break;
      }
      case IrClauseKind::kTextFilter: *out += "text " + DumpIrExpr(q, c.call); break;
      case IrClauseKind::kShortestPath:
        *out += std::string(c.all_paths ? "all_shortest " : "shortest ") + VarName(q, c.var) + " = " +
                VarName(q, c.src) + (c.direction == Direction::kBoth ? " <-" : " -") + c.edge_type + "-> " +
                VarName(q, c.dst) + " hops " + std::to_string(c.min_hops) + ".." +
                (c.max_hops ? std::to_string(*c.max_hops) : "*");
        if (!c.weight.empty()) *out += " weight " + c.weight;
        break;
    }
    *out += "\n";
  }
}

}  // namespace

std::string_view SearchFunctionName(IrExprKind kind) {
  switch (kind) {
    case IrExprKind::kNearest: return "nearest";
    case IrExprKind::kBm25: return "bm25";
    case IrExprKind::kRrf: return "rrf";
    case IrExprKind::kSearch: return "search";
    case IrExprKind::kFuzzy: return "fuzzy";
    case IrExprKind::kMatchText: return "match_text";
    default: return "";
  }
}

std::string DumpIrType(const IrType& t) {
  switch (t.kind) {
    case IrType::Kind::kNode: return "node " + t.entity_type;
    case IrType::Kind::kEdge: return "edge " + t.entity_type;
    case IrType::Kind::kPath: return "path " + t.entity_type;
    case IrType::Kind::kValue: break;
  }
  std::string out = t.data.ToString();
  if (!t.enum_values.empty()) {
    out = "enum(";
    for (size_t i = 0; i < t.enum_values.size(); ++i) out += (i ? ", " : "") + t.enum_values[i];
    out += ")";
  }
  if (t.nullable) out += "?";
  return out;
}

std::string DumpIrExpr(const IrQuery& q, const IrExpr& e) {
  switch (e.kind) {
    case IrExprKind::kLiteral: return e.literal.ToString() + ":" + e.literal.type().ToString();
    case IrExprKind::kParam: return "$" + e.param + ":" + DumpIrType(e.type);
    case IrExprKind::kProperty: return VarName(q, e.var) + "." + e.property + ":" + DumpIrType(e.type);
    case IrExprKind::kVariable: return VarName(q, e.var) + ":" + DumpIrType(e.type);
    case IrExprKind::kNow: return "now()";
    case IrExprKind::kAggregate:
      return std::string(AggFnName(e.agg)) + "(" + ExprList(q, e.args) + "):" + DumpIrType(e.type);
    case IrExprKind::kNearest:
    case IrExprKind::kBm25:
    case IrExprKind::kRrf:
    case IrExprKind::kSearch:
    case IrExprKind::kFuzzy:
    case IrExprKind::kMatchText: return std::string(SearchFunctionName(e.kind)) + "(" + ExprList(q, e.args) + ")";
    case IrExprKind::kPathLength: return "length(" + ExprList(q, e.args) + "):" + DumpIrType(e.type);
    case IrExprKind::kPathNodes: return "nodes(" + ExprList(q, e.args) + "):" + DumpIrType(e.type);
    case IrExprKind::kPathEdges: return "edges(" + ExprList(q, e.args) + "):" + DumpIrType(e.type);
    case IrExprKind::kPathCost: return "cost(" + ExprList(q, e.args) + "):" + DumpIrType(e.type);
    case IrExprKind::kAlias:
      if (e.alias >= 0 && static_cast<size_t>(e.alias) < q.projections.size()) {
        return "alias " + q.projections[static_cast<size_t>(e.alias)].name;
      }
      return "alias ?";
  }
  return "?";
}

std::string DumpIr(const IrQuery& q) {
  std::string out = "query " + q.name + (q.is_mutation ? " (mutation)\n" : " (read)\n");
  for (const ParamDecl& p : q.params) {
    out += "param $" + p.name + ": " + p.type.ToString() + (p.nullable ? "?" : "") + "\n";
  }
  if (!q.description.empty()) out += "description " + QuoteString(q.description) + "\n";
  if (!q.instruction.empty()) out += "instruction " + QuoteString(q.instruction) + "\n";
  for (const IrVariable& v : q.variables) {
    out += "var $" + v.name + ": " +
           (v.kind == VarKind::kNode   ? "node "
            : v.kind == VarKind::kEdge ? "edge "
                                       : "path ") +
           v.type_name;
    if (v.scope > 0) out += " (not #" + std::to_string(v.scope) + ")";
    out += "\n";
  }
  DumpClauses(q, q.clauses, 0, &out);
  for (size_t i = 0; i < q.projections.size(); ++i) {
    const IrProjection& p = q.projections[i];
    out += "column " + p.name + " = " + DumpIrExpr(q, p.expr) + (p.aggregate ? " [aggregate]" : "");
    out += "\n";
  }
  if (q.has_aggregate) {
    out += "group by";
    for (int k : q.group_keys) out += " " + q.projections[static_cast<size_t>(k)].name;
    out += "\n";
  }
  for (const IrOrdering& o : q.order) {
    out += "order " + DumpIrExpr(q, o.expr) + (o.descending ? " desc" : " asc") + "\n";
  }
  if (q.limit) out += "limit " + std::to_string(*q.limit) + "\n";
  if (q.ranked) out += "ranked\n";
  for (const IrMutation& m : q.mutations) {
    static const char* kNames[] = {"insert", "update", "delete"};
    out += std::string(kNames[static_cast<int>(m.kind)]) + (m.is_edge ? " edge " : " node ") + m.type_name + "\n";
    if (m.from) out += "  from = " + DumpIrExpr(q, *m.from) + "\n";
    if (m.to) out += "  to = " + DumpIrExpr(q, *m.to) + "\n";
    for (const IrAssignment& a : m.assignments) {
      out += "  set " + a.property + ": " + a.target.ToString() + (a.nullable ? "?" : "") + " = " +
             DumpIrExpr(q, a.value) + "\n";
    }
    if (m.where_value) {
      out += "  where " + m.where_property + " " + std::string(CompareOpName(m.where_op)) + " " +
             DumpIrExpr(q, *m.where_value) + "\n";
    }
  }
  auto refs = [](const std::vector<IrTypeRef>& v) {
    std::string s;
    for (const IrTypeRef& r : v) {
      s += std::string(s.empty() ? "" : ", ") + (r.kind == VarKind::kNode ? "node " : "edge ") + r.type_name;
    }
    return s.empty() ? std::string("-") : s;
  };
  out += "reads " + refs(q.reads) + "\n";
  out += "writes " + refs(q.writes) + "\n";
  return out;
}

}  // namespace omnigraph::compiler
