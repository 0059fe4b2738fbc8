// The match pipeline of the executor (executor.h): planning per clause list, seeding scans with
// pushed-down predicates, CSR expansion, filters and anti-joins.
#include "engine/executor.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <numeric>
#include <set>
#include <unordered_map>

#include "common/error_codes.h"
#include "engine/executor_internal.h"

namespace omnigraph::engine {
namespace exec {

using compiler::CompareOp;
using compiler::IrClause;
using compiler::IrClauseKind;
using compiler::IrExpr;
using compiler::IrExprKind;

namespace {

void CollectVars(const IrExpr& e, std::set<int>* out) {
  if ((e.kind == IrExprKind::kProperty || e.kind == IrExprKind::kVariable) && e.var >= 0) out->insert(e.var);
  for (const auto& a : e.args) CollectVars(a, out);
}

bool HasSearch(const IrExpr& e) {
  switch (e.kind) {
    case IrExprKind::kNearest:
    case IrExprKind::kBm25:
    case IrExprKind::kRrf:
    case IrExprKind::kSearch:
    case IrExprKind::kFuzzy:
    case IrExprKind::kMatchText: return true;
    default: break;
  }
  for (const auto& a : e.args) {
    if (HasSearch(a)) return true;
  }
  return false;
}

struct Test {  // lhs op rhs
  const IrExpr* lhs;
  CompareOp op;
  const IrExpr* rhs;
};

// The plan of one clause list (the query's, or one `not` block's), reusable across seeds.
class Pipeline {
 public:
  Pipeline(Context& ctx, const std::vector<IrClause>& clauses) : ctx_(ctx), clauses_(clauses) {}
  Status Prepare();
  Result<Rows> Run(Rows rows, bool count_last = false, const std::vector<bool>* read = nullptr);

 private:
  Result<bool> Check(const Test& t, const int64_t* row) {
    OG_ASSIGN_OR_RETURN(Value l, ctx_.Eval(*t.lhs, row));
    OG_ASSIGN_OR_RETURN(Value r, ctx_.Eval(*t.rhs, row));
    return CompareValues(l, t.op, r);
  }
  // Keeps rows passing the tests of `var` (when `with_var`) and the multi-variable tests whose
  // variables are now all bound.
  Result<Rows> ApplyChecks(Rows rows, int var, bool with_var, std::vector<bool>* multi_done);
  Result<std::vector<uint32_t>> Candidates(int var);
  // The constant side of `t` when it is `var.id = constant` or `var.key = constant` for a
  // single-property String or integer @key (whose id is the value's canonical text).
  const IrExpr* IdConstant(int var, const Test& t, bool* is_key) const;
  Result<Rows> Expand(const Rows& rows, const IrClause& t);
  // True when no test (of `v` alone, or not yet applied across variables) mentions `v`.
  bool Unconstrained(int v, const std::vector<bool>& multi_done) const {
    if (!var_tests_[v].empty()) return false;
    for (size_t i = 0; i < multi_.size(); ++i) {
      if (!multi_done[i] && multi_[i].second.count(v)) return false;
    }
    return true;
  }
  // Count-only and aggregating queries: when `first` and then every traversal of `rest` each lead
  // from the previous one's new variable into a fresh variable nothing else mentions (a path
  // pattern), the links of that chain; nullopt otherwise.
  std::optional<std::vector<PathLink>> CountableChain(const Rows& rows, const IrClause& first,
                                                      const std::vector<const IrClause*>& rest,
                                                      const std::vector<bool>& multi_done) const;

  Context& ctx_;
  const std::vector<IrClause>& clauses_;
  std::deque<IrExpr> owned_;
  std::vector<std::vector<Test>> var_tests_;
  std::vector<std::pair<Test, std::set<int>>> multi_;
  std::vector<Test> constant_;
  std::vector<const IrClause*> traversals_;
  std::vector<std::unique_ptr<Pipeline>> negations_;
  std::set<int> needed_;  // node variables bindings and traversals bind
  Reacher reacher_;
};

Status Pipeline::Prepare() {
  const auto& vars = ctx_.query().variables;
  var_tests_.assign(vars.size(), {});
  for (const IrClause& c : clauses_) {
    switch (c.kind) {
      case IrClauseKind::kBinding:
        needed_.insert(c.var);
        for (const auto& eq : c.equalities) {
          if (HasSearch(eq.value)) return UnimplementedError(kSearchUnimplemented);
          IrExpr& p = owned_.emplace_back();
          p.kind = IrExprKind::kProperty;
          p.var = c.var;
          p.property = eq.property;
          p.type = eq.value.type;
          var_tests_[c.var].push_back(Test{&p, CompareOp::kEq, &eq.value});
        }
        break;
      case IrClauseKind::kTraversal:
        needed_.insert(c.src);
        needed_.insert(c.dst);
        traversals_.push_back(&c);
        break;
      case IrClauseKind::kFilter: {
        if (HasSearch(c.lhs) || HasSearch(c.rhs)) return UnimplementedError(kSearchUnimplemented);
        std::set<int> vs;
        CollectVars(c.lhs, &vs);
        CollectVars(c.rhs, &vs);
        Test t{&c.lhs, c.op, &c.rhs};
        if (vs.empty()) constant_.push_back(t);
        else if (vs.size() == 1) var_tests_[*vs.begin()].push_back(t);
        else multi_.emplace_back(t, std::move(vs));
        break;
      }
      case IrClauseKind::kNegation: {
        auto p = std::make_unique<Pipeline>(ctx_, c.body);
        OG_RETURN_IF_ERROR(p->Prepare());
        negations_.push_back(std::move(p));
        break;
      }
      case IrClauseKind::kTextFilter:
        return UnimplementedError("search(), fuzzy() and match_text() are not implemented yet");
    }
  }
  return Status::Ok();
}

Result<Rows> Pipeline::ApplyChecks(Rows rows, int var, bool with_var, std::vector<bool>* multi_done) {
  std::vector<const Test*> tests;
  if (with_var && var >= 0) {
    for (const Test& t : var_tests_[var]) tests.push_back(&t);
  }
  for (size_t i = 0; i < multi_.size(); ++i) {
    if ((*multi_done)[i]) continue;
    bool ready = true;
    for (int v : multi_[i].second) ready = ready && rows.bound[v];
    if (!ready) continue;
    (*multi_done)[i] = true;
    tests.push_back(&multi_[i].first);
  }
  if (tests.empty() || rows.size() == 0) return rows;
  Rows out;
  out.width = rows.width;
  out.bound = rows.bound;
  for (size_t i = 0; i < rows.size(); ++i) {
    bool keep = true;
    for (const Test* t : tests) {
      OG_ASSIGN_OR_RETURN(keep, Check(*t, rows.row(i)));
      if (!keep) break;
    }
    if (keep) out.Append(rows.row(i));
  }
  return out;
}

const IrExpr* Pipeline::IdConstant(int var, const Test& t, bool* is_key) const {
  if (t.op != CompareOp::kEq) return nullptr;
  const compiler::NodeType* node = ctx_.snap().catalog().FindNode(ctx_.TypeOf(var));
  for (int side = 0; side < 2; ++side) {
    const IrExpr* p = side == 0 ? t.lhs : t.rhs;
    const IrExpr* other = side == 0 ? t.rhs : t.lhs;
    if (p->kind != IrExprKind::kProperty || p->var != var || !Context::IsConstant(*other)) continue;
    if (p->property == "id") {
      *is_key = false;
      return other;
    }
    if (node != nullptr && node->key.size() == 1 && node->key[0] == p->property) {
      TypeKind k = p->type.data.kind;
      if (k == TypeKind::kString || k == TypeKind::kI32 || k == TypeKind::kI64 || k == TypeKind::kU32 ||
          k == TypeKind::kU64) {
        *is_key = true;
        return other;
      }
    }
  }
  return nullptr;
}

Result<std::vector<uint32_t>> Pipeline::Candidates(int var) {
  const std::string& type = ctx_.TypeOf(var);
  OG_ASSIGN_OR_RETURN(const TableOrdinals* ord, ctx_.Ordinals(type));
  const auto& tests = var_tests_[var];
  std::vector<uint32_t> cands;
  std::vector<bool> pushed(tests.size(), false);
  bool by_id = false;
  for (const Test& t : tests) {  // id or single key equality: a dictionary lookup
    bool is_key = false;
    const IrExpr* other = IdConstant(var, t, &is_key);
    if (other == nullptr) continue;
    OG_ASSIGN_OR_RETURN(Value v, ctx_.Eval(*other, nullptr));
    std::string id;
    if (v.is_null()) {
    } else if (v.kind() == TypeKind::kString) {
      id = v.string_value();
    } else if (!is_key) {
      continue;
    } else if (v.kind() == TypeKind::kI32 || v.kind() == TypeKind::kI64) {
      id = std::to_string(v.int_value());
    } else if (v.kind() == TypeKind::kU32 || v.kind() == TypeKind::kU64) {
      id = std::to_string(v.uint_value());
    } else {
      continue;  // e.g. a parameter of another type: scan instead
    }
    by_id = true;
    // Every test (this one included) is re-checked on the candidate below.
    if (!v.is_null()) {
      if (auto o = ord->Find(id)) cands.push_back(*o);
    }
    break;
  }
  if (!by_id) {
    // Property-versus-constant tests filter the ordinals over the table's cached columns
    // (equalities first: usually the most selective); the other tests are checked per candidate.
    cands.resize(ord->size());
    std::iota(cands.begin(), cands.end(), uint32_t{0});
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t i = 0; i < tests.size() && !cands.empty(); ++i) {
        const Test& t = tests[i];
        if ((t.op == CompareOp::kEq) != (pass == 0)) continue;
        const IrExpr* prop = nullptr;
        const IrExpr* other = nullptr;
        const bool left = t.rhs->kind == IrExprKind::kProperty && t.rhs->var == var && Context::IsConstant(*t.lhs);
        if (left) {
          prop = t.rhs, other = t.lhs;
        } else if (t.lhs->kind == IrExprKind::kProperty && t.lhs->var == var && Context::IsConstant(*t.rhs)) {
          prop = t.lhs, other = t.rhs;
        } else {
          continue;
        }
        OG_ASSIGN_OR_RETURN(const format::Column* c, ctx_.Column(type, prop->property));
        OG_ASSIGN_OR_RETURN(Value v, ctx_.Eval(*other, nullptr));
        FilterByColumn(c, t.op, v, left, &cands);
        pushed[i] = true;
      }
    }
  }
  std::vector<const Test*> rest;
  for (size_t i = 0; i < tests.size(); ++i) {
    if (!pushed[i]) rest.push_back(&tests[i]);
  }
  if (rest.empty()) return cands;
  std::vector<int64_t> row(ctx_.query().variables.size(), -1);
  std::vector<uint32_t> out;
  for (uint32_t c : cands) {
    row[var] = c;
    bool keep = true;
    for (const Test* t : rest) {
      OG_ASSIGN_OR_RETURN(keep, Check(*t, row.data()));
      if (!keep) break;
    }
    if (keep) out.push_back(c);
  }
  return out;
}

Result<Rows> Pipeline::Expand(const Rows& rows, const IrClause& t) {
  OG_ASSIGN_OR_RETURN(const Csr* csr, ctx_.CsrFor(t.edge_type));
  const bool both = t.direction == compiler::Direction::kBoth;
  // One directed hop: y is produced iff it is a neighbour (a self loop produces the node itself),
  // each once (LANGUAGE.md §2), so no breadth-first state is needed.
  const bool one_hop = !both && t.min_hops == 1 && t.max_hops && *t.max_hops == 1;
  Rows out;
  out.width = rows.width;
  out.bound = rows.bound;
  out.bound[t.src] = out.bound[t.dst] = true;
  if (t.edge_var >= 0) out.bound[t.edge_var] = true;
  std::vector<int64_t> nb(rows.width);
  auto emit = [&](const int64_t* r, int64_t s, int64_t d, int64_t e) {
    if (r[t.src] >= 0 && r[t.src] != s) return;
    if (r[t.dst] >= 0 && r[t.dst] != d) return;
    std::copy(r, r + rows.width, nb.begin());
    nb[t.src] = s;
    nb[t.dst] = d;
    if (t.edge_var >= 0) nb[t.edge_var] = e;
    out.Append(nb.data());
  };
  std::map<uint32_t, std::vector<uint32_t>> reach_cache;  // both endpoints bound
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t* r = rows.row(i);
    const int64_t s = r[t.src], d = r[t.dst];
    if (s < 0 && d < 0) {  // neither bound: every source
      for (uint32_t x = 0; x < csr->num_src(); ++x) {
        std::vector<int64_t> tmp(r, r + rows.width);
        tmp[t.src] = x;
        Rows one;
        one.width = rows.width;
        one.bound = rows.bound;
        one.bound[t.src] = true;
        one.Append(tmp.data());
        OG_ASSIGN_OR_RETURN(Rows part, Expand(one, t));
        out.cells.insert(out.cells.end(), part.cells.begin(), part.cells.end());
      }
      continue;
    }
    if (t.edge_var >= 0) {  // one row per edge
      if (s >= 0) {
        const uint32_t x = static_cast<uint32_t>(s);
        auto nodes = csr->OutNodes(x);
        auto edges = csr->OutEdges(x);
        for (size_t k = 0; k < nodes.size(); ++k) emit(r, s, nodes[k], edges[k]);
        if (both) {
          auto in_nodes = csr->InNodes(x);
          auto in_edges = csr->InEdges(x);
          for (size_t k = 0; k < in_nodes.size(); ++k) {
            if (in_nodes[k] != x) emit(r, s, in_nodes[k], in_edges[k]);
          }
        }
      } else {
        const uint32_t x = static_cast<uint32_t>(d);
        auto nodes = csr->InNodes(x);
        auto edges = csr->InEdges(x);
        for (size_t k = 0; k < nodes.size(); ++k) emit(r, nodes[k], d, edges[k]);
        if (both) {
          auto out_nodes = csr->OutNodes(x);
          auto out_edges = csr->OutEdges(x);
          for (size_t k = 0; k < out_nodes.size(); ++k) {
            if (out_nodes[k] != x) emit(r, out_nodes[k], d, out_edges[k]);
          }
        }
      }
      continue;
    }
    if (s >= 0 && d >= 0) {
      const uint32_t x = static_cast<uint32_t>(s);
      auto it = reach_cache.find(x);
      if (it == reach_cache.end()) {
        OG_ASSIGN_OR_RETURN(auto reached, reacher_.Reach(*csr, x, true, t));
        it = reach_cache.emplace(x, std::move(reached)).first;
      }
      if (std::binary_search(it->second.begin(), it->second.end(), static_cast<uint32_t>(d))) emit(r, s, d, -1);
    } else if (s >= 0 && one_hop) {  // exactly one hop: the distinct out-neighbours (sorted)
      auto nodes = csr->OutNodes(static_cast<uint32_t>(s));
      for (size_t k = 0; k < nodes.size(); ++k) {
        if (k == 0 || nodes[k] != nodes[k - 1]) emit(r, s, nodes[k], -1);
      }
    } else if (d >= 0 && one_hop) {
      auto nodes = csr->InNodes(static_cast<uint32_t>(d));
      for (size_t k = 0; k < nodes.size(); ++k) {
        if (k == 0 || nodes[k] != nodes[k - 1]) emit(r, nodes[k], d, -1);
      }
    } else if (s >= 0) {
      OG_ASSIGN_OR_RETURN(auto reached, reacher_.Reach(*csr, static_cast<uint32_t>(s), true, t));
      for (uint32_t y : reached) emit(r, s, y, -1);
    } else {
      OG_ASSIGN_OR_RETURN(auto reached, reacher_.Reach(*csr, static_cast<uint32_t>(d), false, t));
      for (uint32_t y : reached) emit(r, y, d, -1);
    }
  }
  return out;
}

std::optional<std::vector<PathLink>> Pipeline::CountableChain(const Rows& rows, const IrClause& first,
                                                               const std::vector<const IrClause*>& rest,
                                                               const std::vector<bool>& multi_done) const {
  if (!negations_.empty()) return std::nullopt;
  std::vector<PathLink> chain;
  std::set<int> fresh_vars;
  std::vector<const IrClause*> left = rest;
  const IrClause* t = &first;
  int at = -1;  // the variable the next link starts from
  while (true) {
    if (t->edge_var >= 0 || t->src == t->dst) return std::nullopt;
    bool forward;
    if (at < 0) {
      const bool sb = rows.bound[t->src], db = rows.bound[t->dst];
      if (sb == db) return std::nullopt;
      forward = sb;
    } else if (t->src == at) {
      forward = true;
    } else if (t->dst == at) {
      forward = false;
    } else {
      return std::nullopt;
    }
    const int fresh = forward ? t->dst : t->src;
    if (rows.bound[fresh] || fresh_vars.count(fresh) || !Unconstrained(fresh, multi_done)) return std::nullopt;
    fresh_vars.insert(fresh);
    chain.push_back(PathLink{t, forward});
    at = fresh;
    if (left.empty()) break;
    auto next = std::find_if(left.begin(), left.end(), [&](const IrClause* c) { return c->src == at || c->dst == at; });
    if (next == left.end()) return std::nullopt;
    t = *next;
    left.erase(next);
  }
  for (int u : needed_) {
    if (!rows.bound[u] && !fresh_vars.count(u)) return std::nullopt;
  }
  return chain;
}

Result<Rows> Pipeline::Run(Rows rows, bool count_last, const std::vector<bool>* read) {
  std::vector<bool> multi_done(multi_.size(), false);
  for (const Test& t : constant_) {
    OG_ASSIGN_OR_RETURN(bool ok, Check(t, nullptr));
    if (!ok) rows.cells.clear();
  }
  for (size_t v = 0; v < rows.width; ++v) {  // tests of variables bound by the seed
    if (rows.bound[v] && !var_tests_[v].empty()) {
      OG_ASSIGN_OR_RETURN(rows, ApplyChecks(std::move(rows), static_cast<int>(v), true, &multi_done));
    }
  }
  OG_ASSIGN_OR_RETURN(rows, ApplyChecks(std::move(rows), -1, false, &multi_done));
  std::vector<const IrClause*> pending = traversals_;
  while (true) {
    // Expand a traversal from a bound endpoint (both bound first: it only filters).
    int pick = -1;
    for (int pass = 0; pass < 2 && pick < 0; ++pass) {
      for (size_t i = 0; i < pending.size(); ++i) {
        bool sb = rows.bound[pending[i]->src], db = rows.bound[pending[i]->dst];
        if (pass == 0 ? (sb && db) : (sb || db)) {
          pick = static_cast<int>(i);
          break;
        }
      }
    }
    if (pick >= 0) {
      const IrClause& t = *pending[pick];
      pending.erase(pending.begin() + pick);
      std::vector<int> fresh;
      for (int v : {t.src, t.dst, t.edge_var}) {
        if (v >= 0 && !rows.bound[v]) fresh.push_back(v);
      }
      if (count_last || read != nullptr) {  // the rest: traversals into fresh, unconstrained variables
        if (auto chain = CountableChain(rows, t, pending, multi_done)) {
          if (count_last) return CountChain(ctx_, std::move(rows), *chain, &reacher_);
          if (PathCountable(rows, *chain, *read)) return PathCounts(ctx_, std::move(rows), *chain, *read, &reacher_);
        }
      }
      OG_ASSIGN_OR_RETURN(rows, Expand(rows, t));
      for (int v : fresh) {
        OG_ASSIGN_OR_RETURN(rows, ApplyChecks(std::move(rows), v, true, &multi_done));
      }
      continue;
    }
    // Seed the most selective unbound variable: id lookup, then restricted, then smallest table.
    int best = -1;
    std::pair<int, uint64_t> best_score{3, 0};
    for (int v : needed_) {
      if (rows.bound[v]) continue;
      OG_ASSIGN_OR_RETURN(const table::TableVersion* tv, ctx_.Table(ctx_.TypeOf(v)));
      int cls = var_tests_[v].empty() ? 2 : 1;
      for (const Test& t : var_tests_[v]) {
        bool is_key = false;
        if (IdConstant(v, t, &is_key) != nullptr) cls = 0;
      }
      std::pair<int, uint64_t> score{cls, tv->row_count()};
      if (best < 0 || score < best_score) best = v, best_score = score;
    }
    if (best < 0) break;
    OG_ASSIGN_OR_RETURN(std::vector<uint32_t> cands, Candidates(best));
    Rows out;
    out.width = rows.width;
    out.bound = rows.bound;
    out.bound[best] = true;
    for (size_t i = 0; i < rows.size(); ++i) {
      for (uint32_t c : cands) {
        out.Append(rows.row(i));
        out.cells[out.cells.size() - rows.width + best] = c;
      }
    }
    OG_ASSIGN_OR_RETURN(rows, ApplyChecks(std::move(out), best, false, &multi_done));
  }
  for (const auto& neg : negations_) {  // anti-joins
    Rows out;
    out.width = rows.width;
    out.bound = rows.bound;
    for (size_t i = 0; i < rows.size(); ++i) {
      Rows one;
      one.width = rows.width;
      one.bound = rows.bound;
      one.Append(rows.row(i));
      OG_ASSIGN_OR_RETURN(Rows inner, neg->Run(std::move(one)));
      if (inner.size() == 0) out.Append(rows.row(i));
    }
    rows = std::move(out);
  }
  return rows;
}

}  // namespace

Result<Rows> RunClauses(Context& ctx, const std::vector<IrClause>& clauses, Rows seed, bool count_last,
                        const std::vector<bool>* read) {
  Pipeline p(ctx, clauses);
  OG_RETURN_IF_ERROR(p.Prepare());
  return p.Run(std::move(seed), count_last, read);
}

}  // namespace exec

namespace {

// The name of the first search or ranking function in `e`, or nullptr.
const char* SearchFunction(const compiler::IrExpr& e) {
  using compiler::IrExprKind;
  switch (e.kind) {
    case IrExprKind::kNearest: return "nearest";
    case IrExprKind::kBm25: return "bm25";
    case IrExprKind::kRrf: return "rrf";
    case IrExprKind::kSearch: return "search";
    case IrExprKind::kFuzzy: return "fuzzy";
    case IrExprKind::kMatchText: return "match_text";
    default: break;
  }
  for (const auto& a : e.args) {
    if (const char* f = SearchFunction(a)) return f;
  }
  return nullptr;
}

const char* SearchFunction(const std::vector<compiler::IrClause>& clauses) {
  for (const auto& c : clauses) {
    const char* f = SearchFunction(c.lhs);
    if (f == nullptr) f = SearchFunction(c.rhs);
    if (f == nullptr) f = SearchFunction(c.call);
    if (f == nullptr) f = SearchFunction(c.body);
    for (size_t i = 0; f == nullptr && i < c.equalities.size(); ++i) f = SearchFunction(c.equalities[i].value);
    if (f != nullptr) return f;
  }
  return nullptr;
}

// Search and ranking functions are later work: rejected before anything runs, so that even an
// empty match reports them.
Status CheckNoSearch(const compiler::IrQuery& q) {
  const char* f = SearchFunction(q.clauses);
  for (size_t i = 0; f == nullptr && i < q.projections.size(); ++i) f = SearchFunction(q.projections[i].expr);
  for (size_t i = 0; f == nullptr && i < q.order.size(); ++i) f = SearchFunction(q.order[i].expr);
  if (f == nullptr) return Status::Ok();
  return UnimplementedError(std::string(f) + "() is not implemented yet (search and ranking functions are later work)");
}

}  // namespace

Result<QueryResult> ExecuteQuery(const Snapshot& snap, const compiler::IrQuery& query,
                                 const compiler::ParamValues& params, int64_t now_ms, GraphReadCache* cache) {
  if (query.is_mutation) {
    return InvalidArgumentError("'" + query.name + "' is a mutation: run it with ExecuteMutation (`omnigraph mutate`)");
  }
  OG_RETURN_IF_ERROR(CheckNoSearch(query));
  exec::Context ctx(snap, query, params, now_ms, cache != nullptr ? cache : &GraphReadCache::Default());
  exec::Rows seed;
  seed.width = query.variables.size() + 1;  // one spare slot: a query without variables has rows
  seed.bound.assign(seed.width, false);
  seed.cells.assign(seed.width, -1);
  // A query that only counts whole matches (count of top-level variables, no grouping keys) need
  // not materialize its last traversal: the pipeline returns multiplicities instead.
  bool count_only = query.has_aggregate && query.group_keys.empty() && !query.projections.empty();
  for (const auto& p : query.projections) {
    const auto& e = p.expr;
    count_only = count_only && p.aggregate && e.kind == compiler::IrExprKind::kAggregate &&
                 e.agg == compiler::AggFn::kCount && e.args.size() == 1 &&
                 e.args[0].kind == compiler::IrExprKind::kVariable && e.args[0].var >= 0 &&
                 query.variables[e.args[0].var].scope == 0;
  }
  // An aggregating query reads some variables only through count($v): chains of traversals through
  // them are counted per end node instead of enumerated.
  std::vector<bool> read;
  if (query.has_aggregate && !count_only) read = exec::ReadVariables(query);
  OG_ASSIGN_OR_RETURN(exec::Rows rows, exec::RunClauses(ctx, query.clauses, std::move(seed), count_only,
                                                        read.empty() ? nullptr : &read));
  if (count_only && !rows.mult.empty()) {
    uint64_t total = 0;
    for (uint64_t m : rows.mult) total += m;
    QueryResult res;
    std::vector<Value> row;
    for (const auto& p : query.projections) {
      res.columns.push_back(p.name);
      res.types.push_back(p.expr.type);
      row.push_back(Value::I64(static_cast<int64_t>(total)));
    }
    res.rows.push_back(std::move(row));
    return res;
  }
  return exec::BuildResult(ctx, rows);
}

}  // namespace omnigraph::engine
