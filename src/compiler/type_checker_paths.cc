// Type checker: shortest-path clauses (docs/language.md, "Shortest paths"). The path functions
// (length, nodes, edges, cost) are checked with the other calls in type_checker.cc.
#include <string>

#include "compiler/query_checker.h"

namespace omnigraph::compiler::internal {

Result<IrClause> QueryChecker::CheckShortest(const Clause& c) {
  const std::string fn = c.all_paths ? "all_shortest" : "shortest";
  const std::string path = "$" + c.var;
  if (!c.edge_var.empty()) {
    return Err(
        ErrorCode::kTypePathMisuse, c.edge_var_span,
        fn + "() binds a path, not an edge: drop `$" + c.edge_var + ":` and read the edges with edges(" + path + ")");
  }
  if (c.hops && c.hops->min > 1) {
    return Err(ErrorCode::kTypePathMisuse, c.hops_span,
               fn + "() takes a hop minimum of 0 or 1 (the shortest path is the shortest); filter on length(" + path +
                   ") for a longer one");
  }
  // The pattern is a traversal's: its edge, direction, bounds and endpoints are checked as one.
  Clause pattern = c;
  pattern.kind = ClauseKind::kTraversal;
  OG_ASSIGN_OR_RETURN(IrClause ic, CheckTraversal(pattern));
  ic.kind = IrClauseKind::kShortestPath;
  ic.all_paths = c.all_paths;
  if (!c.hops) ic.max_hops = std::nullopt;  // unbounded by default (a traversal's default is one hop)
  if (!c.weight.empty()) {
    std::optional<PropInfo> info = LookupProperty(VarKind::kEdge, ic.edge_type, c.weight);
    if (!info || !info->type.is_scalar() || !info->type.is_numeric()) {
      return Err(ErrorCode::kTypePathMisuse, c.weight_span,
                 "the weight of " + fn + "() must be a numeric property of edge type " + ic.edge_type + ", but `" +
                     c.weight + "` " +
                     (info ? "is " + info->type.ToString() : std::string("is not one of its properties")));
    }
    if (c.all_paths) {
      return Err(ErrorCode::kTypePathMisuse, c.weight_span, "all_shortest() counts hops; it takes no weight");
    }
    if (ic.max_hops) {
      return Err(ErrorCode::kTypePathMisuse, c.hops_span,
                 "a weighted shortest() takes no maximum hop count; filter on length(" + path + ") instead");
    }
    ic.weight = c.weight;
  }
  if (c.var != "_" && (FindVar(c.var) != nullptr || params_.count(c.var) || c.var == c.src || c.var == c.dst)) {
    return Err(ErrorCode::kTypeVariableConflict, c.var_span,
               "path variable " + path + " uses a name that is already bound");
  }
  IrVariable v;
  v.kind = VarKind::kPath;
  v.type_name = ic.edge_type;
  v.anonymous = c.var == "_";
  v.name = v.anonymous ? "_" + std::to_string(++anon_count_) : c.var;
  v.scope = negations_.empty() ? 0 : negation_count_;
  ic.var = static_cast<int>(ir_.variables.size());
  ir_.variables.push_back(std::move(v));
  if (c.var != "_") scopes_.back()[c.var] = VarState{ic.var, static_cast<int>(negations_.size())};
  return ic;
}

}  // namespace omnigraph::compiler::internal
