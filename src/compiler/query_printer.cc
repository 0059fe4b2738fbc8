// Canonical .gq printer; see query_printer.h.
#include "compiler/query_printer.h"

#include <cstdio>
#include <string>

namespace omnigraph::compiler {
namespace {

std::string ScalarName(TypeKind k) {
  switch (k) {
    case TypeKind::kString: return "String";
    case TypeKind::kBlob: return "Blob";
    case TypeKind::kBool: return "Bool";
    case TypeKind::kI32: return "I32";
    case TypeKind::kI64: return "I64";
    case TypeKind::kU32: return "U32";
    case TypeKind::kU64: return "U64";
    case TypeKind::kF32: return "F32";
    case TypeKind::kF64: return "F64";
    case TypeKind::kDate: return "Date";
    case TypeKind::kDateTime: return "DateTime";
    case TypeKind::kVector: return "Vector";
    case TypeKind::kList: return "List";
  }
  return "String";
}

std::string TypeSpelling(const DataType& t) {
  if (t.kind == TypeKind::kVector) return "Vector(" + std::to_string(t.dimension) + ")";
  if (t.kind == TypeKind::kList) return "[" + ScalarName(t.element) + "]";
  return ScalarName(t.kind);
}

void Indent(std::string* out, int level) { out->append(static_cast<size_t>(level) * 2, ' '); }

void PrintAssignments(const std::vector<PropertyValue>& props, std::string* out) {
  *out += "{ ";
  for (size_t i = 0; i < props.size(); ++i) {
    if (i > 0) *out += ", ";
    *out += props[i].property + ": " + PrintExpr(props[i].value);
  }
  *out += props.empty() ? "}" : " }";
}

void PrintClause(const Clause& c, int level, std::string* out) {
  Indent(out, level);
  switch (c.kind) {
    case ClauseKind::kBinding:
      *out += "$" + c.var + ": " + c.type_name;
      if (!c.properties.empty()) {
        *out += " ";
        PrintAssignments(c.properties, out);
      }
      break;
    case ClauseKind::kTraversal:
      *out += "$" + c.src + " ";
      if (!c.edge_var.empty()) *out += "$" + c.edge_var + ":";
      *out += c.undirected ? "<" + c.edge + ">" : c.edge;
      if (c.hops) {
        *out += "{" + std::to_string(c.hops->min) + ",";
        if (c.hops->max) *out += std::to_string(*c.hops->max);
        *out += "}";
      }
      *out += " $" + c.dst;
      break;
    case ClauseKind::kFilter:
      *out += PrintExpr(c.lhs) + " " + std::string(CompareOpName(c.op)) + " " + PrintExpr(c.rhs);
      break;
    case ClauseKind::kNot:
      *out += "not {\n";
      for (const Clause& inner : c.body) PrintClause(inner, level + 1, out);
      Indent(out, level);
      *out += "}";
      break;
    case ClauseKind::kTextSearch: *out += PrintExpr(c.call); break;
    case ClauseKind::kShortest:
      *out += "$" + c.var + (c.all_paths ? ": all_shortest($" : ": shortest($") + c.src + " ";
      if (!c.edge_var.empty()) *out += "$" + c.edge_var + ":";  // a T29 the printed form must keep
      *out += c.undirected ? "<" + c.edge + ">" : c.edge;
      if (c.hops) {
        *out += "{" + std::to_string(c.hops->min) + ",";
        if (c.hops->max) *out += std::to_string(*c.hops->max);
        *out += "}";
      }
      *out += " $" + c.dst;
      if (!c.weight.empty()) *out += ", weight: " + c.weight;
      *out += ")";
      break;
  }
  *out += "\n";
}

std::string_view FunctionName(const Expr& e) {
  if (e.kind == ExprKind::kAggregate) return AggFnName(e.agg);
  if (e.kind == ExprKind::kPathFn) return e.function;
  return SearchFunctionName(e.kind);
}

}  // namespace

std::string QuoteString(std::string_view text) {
  std::string out = "\"";
  for (unsigned char ch : text) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (ch < 0x20 || ch == 0x7f) {
          char buf[16];
          std::snprintf(buf, sizeof(buf), "\\u{%x}", ch);
          out += buf;
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  out += "\"";
  return out;
}

std::string PrintLiteral(const Literal& lit) {
  switch (lit.kind) {
    case LiteralKind::kString: return QuoteString(lit.text);
    case LiteralKind::kInt:
    case LiteralKind::kFloat:
    case LiteralKind::kBool: return lit.text;
    case LiteralKind::kDate: return "date(" + QuoteString(lit.text) + ")";
    case LiteralKind::kDateTime: return "datetime(" + QuoteString(lit.text) + ")";
    case LiteralKind::kList: {
      std::string out = "[";
      for (size_t i = 0; i < lit.items.size(); ++i) {
        if (i > 0) out += ", ";
        out += PrintLiteral(lit.items[i]);
      }
      return out + "]";
    }
  }
  return "";
}

std::string PrintExpr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kLiteral: return PrintLiteral(e.literal);
    case ExprKind::kVariable: return "$" + e.name;
    case ExprKind::kProperty: return "$" + e.name + "." + e.property;
    case ExprKind::kAlias: return e.name;
    case ExprKind::kNow: return "now()";
    default: break;
  }
  std::string out(FunctionName(e));
  out += "(";
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (i > 0) out += ", ";
    out += PrintExpr(e.args[i]);
  }
  return out + ")";
}

std::string PrintQuery(const Query& q) {
  std::string out = "query " + q.name + "(";
  for (size_t i = 0; i < q.params.size(); ++i) {
    if (i > 0) out += ", ";
    out += "$" + q.params[i].name + ": " + TypeSpelling(q.params[i].type);
    if (q.params[i].nullable) out += "?";
  }
  out += ")";
  for (const QueryAnnotation& a : q.annotations) out += " @" + a.name + "(" + QuoteString(a.text) + ")";
  out += " {\n";
  if (q.is_mutation()) {
    for (const Mutation& m : q.mutations) {
      Indent(&out, 1);
      switch (m.kind) {
        case MutationKind::kInsert: out += "insert " + m.type_name + " "; break;
        case MutationKind::kUpdate: out += "update " + m.type_name + " set "; break;
        case MutationKind::kDelete: out += "delete " + m.type_name; break;
      }
      if (m.kind != MutationKind::kDelete) PrintAssignments(m.assignments, &out);
      if (m.kind != MutationKind::kInsert) {
        out += " where " + m.where_property + " " + std::string(CompareOpName(m.where_op)) + " " +
               PrintExpr(m.where_value);
      }
      out += "\n";
    }
  } else {
    out += "  match {\n";
    for (const Clause& c : q.match) PrintClause(c, 2, &out);
    out += "  }\n  return { ";
    for (size_t i = 0; i < q.projections.size(); ++i) {
      if (i > 0) out += ", ";
      out += PrintExpr(q.projections[i].expr);
      if (!q.projections[i].alias.empty()) out += " as " + q.projections[i].alias;
    }
    out += " }\n";
    if (q.has_order) {
      out += "  order { ";
      for (size_t i = 0; i < q.order.size(); ++i) {
        if (i > 0) out += ", ";
        out += PrintExpr(q.order[i].expr);
        if (q.order[i].dir == OrderDir::kAsc) out += " asc";
        if (q.order[i].dir == OrderDir::kDesc) out += " desc";
      }
      out += " }\n";
    }
    if (q.limit) out += "  limit " + std::to_string(*q.limit) + "\n";
  }
  out += "}\n";
  return out;
}

std::string PrintQueryFile(const QueryFile& file) {
  std::string out;
  for (size_t i = 0; i < file.queries.size(); ++i) {
    if (i > 0) out += "\n";
    out += PrintQuery(file.queries[i]);
  }
  return out;
}

}  // namespace omnigraph::compiler
