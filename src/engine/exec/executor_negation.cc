// `not { }` blocks as queries of their own (executor_internal.h BlockQuery): the block's
// variables renumbered densely — the outer variables it reads first, then its local ones — so an
// anti-join's probe rows are as wide as the block needs, not as wide as the whole query.
#include <algorithm>
#include <set>

#include "engine/exec/executor_internal.h"

namespace omnigraph::engine::exec {

using compiler::IrClause;
using compiler::IrClauseKind;
using compiler::IrExpr;
using compiler::IrExprKind;

void ExprVars(const IrExpr& e, std::set<int>* out) {
  if ((e.kind == IrExprKind::kProperty || e.kind == IrExprKind::kVariable) && e.var >= 0) out->insert(e.var);
  for (const auto& a : e.args) ExprVars(a, out);
}

namespace {

// Every variable `c` mentions, nested blocks included.
void ClauseVars(const IrClause& c, std::set<int>* out) {
  for (int v : {c.var, c.src, c.dst, c.edge_var}) {
    if (v >= 0) out->insert(v);
  }
  for (const auto& eq : c.equalities) ExprVars(eq.value, out);
  ExprVars(c.lhs, out);
  ExprVars(c.rhs, out);
  ExprVars(c.call, out);
  for (const auto& b : c.body) ClauseVars(b, out);
  for (int v : c.outer_vars) out->insert(v);
}

int Map(const std::vector<int>& map, int v) { return v < 0 ? v : map[static_cast<size_t>(v)]; }

void RenumberExpr(IrExpr* e, const std::vector<int>& map) {
  if (e->kind == IrExprKind::kProperty || e->kind == IrExprKind::kVariable) e->var = Map(map, e->var);
  for (auto& a : e->args) RenumberExpr(&a, map);
}

void RenumberClause(IrClause* c, const std::vector<int>& map) {
  c->var = Map(map, c->var);
  c->src = Map(map, c->src);
  c->dst = Map(map, c->dst);
  c->edge_var = Map(map, c->edge_var);
  for (auto& eq : c->equalities) RenumberExpr(&eq.value, map);
  RenumberExpr(&c->lhs, map);
  RenumberExpr(&c->rhs, map);
  RenumberExpr(&c->call, map);
  for (auto& b : c->body) RenumberClause(&b, map);
  for (int& v : c->outer_vars) v = Map(map, v);
}

}  // namespace

std::vector<bool> BoundByClauses(const std::vector<IrClause>& clauses, size_t width) {
  std::vector<bool> bound(width, false);
  for (const IrClause& c : clauses) {
    const bool walks = c.kind == IrClauseKind::kTraversal || c.kind == IrClauseKind::kShortestPath;
    for (int v : {c.kind == IrClauseKind::kBinding || c.kind == IrClauseKind::kShortestPath ? c.var : -1,
                  walks ? c.src : -1, walks ? c.dst : -1, c.kind == IrClauseKind::kTraversal ? c.edge_var : -1}) {
      if (v >= 0 && static_cast<size_t>(v) < width) bound[v] = true;
    }
  }
  return bound;
}

BlockQuery NegationQuery(const compiler::IrQuery& q, const IrClause& neg, const std::vector<bool>& visible) {
  std::set<int> vars;
  for (const auto& b : neg.body) ClauseVars(b, &vars);
  BlockQuery out;
  std::vector<int> local;
  for (int v : vars) {
    if (static_cast<size_t>(v) < visible.size() && visible[v])
      out.outer.push_back(v);
    else
      local.push_back(v);
  }
  std::vector<int> map(q.variables.size(), -1);
  for (int v : out.outer) {
    map[v] = static_cast<int>(out.query.variables.size());
    out.query.variables.push_back(q.variables[v]);
  }
  for (int v : local) {
    map[v] = static_cast<int>(out.query.variables.size());
    out.query.variables.push_back(q.variables[v]);
  }
  out.query.name = q.name;
  out.query.params = q.params;
  out.query.clauses = neg.body;
  for (auto& c : out.query.clauses) RenumberClause(&c, map);
  return out;
}

}  // namespace omnigraph::engine::exec
