// The match pipeline (executor_pipeline.h): seeding a variable (its candidates, with id lookups,
// column filters and search indexes pushed down) and expanding a traversal over the CSR (edge
// variables' column tests applied in the expansion).
#include <algorithm>
#include <cstring>
#include <numeric>

#include "common/error_codes.h"
#include "engine/exec/executor_pipeline.h"

namespace omnigraph::engine::exec {

using compiler::CompareOp;
using compiler::IrClause;
using compiler::IrExpr;
using compiler::IrExprKind;

// Whether `t` compares a property of `var` with a constant: then *prop and *other are its sides and
// *left says the constant is on the left (FilterByColumn's `constant_left`).
bool ColumnTest(const Test& t, int var, const IrExpr** prop, const IrExpr** other, bool* left) {
  *left = t.rhs->kind == IrExprKind::kProperty && t.rhs->var == var && Context::IsConstant(*t.lhs);
  if (*left) {
    *prop = t.rhs, *other = t.lhs;
    return true;
  }
  if (t.lhs->kind == IrExprKind::kProperty && t.lhs->var == var && Context::IsConstant(*t.rhs)) {
    *prop = t.lhs, *other = t.rhs;
    return true;
  }
  return false;
}

namespace {

// What a test costs per row in FilterByColumn, roughly (an integer comparison is 1).
double FilterCost(const format::Column* c, CompareOp op, const Value& v) {
  if (c == nullptr) return 0;
  const TypeKind kind = c->type().kind;
  if (op == CompareOp::kContains || op == CompareOp::kStartsWith) return 8;
  if (kind == TypeKind::kString) return v.kind() == TypeKind::kString ? 4 : 30;
  const bool number = kind == TypeKind::kI32 || kind == TypeKind::kI64 || kind == TypeKind::kU32 ||
                      kind == TypeKind::kU64 || kind == TypeKind::kF64;
  return number && v.kind() == kind ? 1 : number ? 2 : 30;  // else each row's Value is compared
}

}  // namespace

void OrderColumnTests(size_t n, std::vector<ColumnFilter>* filters) {
  // Few candidates, or one test: equalities first (usually the most selective).
  constexpr size_t kSampleFrom = size_t{1} << 16;
  constexpr size_t kSample = 1024;
  if (filters->size() < 2 || n < kSampleFrom) {
    std::stable_sort(filters->begin(), filters->end(), [](const ColumnFilter& a, const ColumnFilter& b) {
      return (a.op == CompareOp::kEq) > (b.op == CompareOp::kEq);
    });
    return;
  }
  // Many: each test's share of rows kept, estimated on an evenly spaced sample; the cheapest per
  // row it drops goes first (cost / share dropped), so a cheap integer test that drops most rows
  // runs before a string comparison that would have to read every row.
  const size_t step = n / kSample;
  std::vector<uint32_t> sample(kSample);
  for (size_t j = 0; j < kSample; ++j) sample[j] = static_cast<uint32_t>(j * step);
  std::vector<std::pair<double, size_t>> rank;  // (cost per row dropped, index)
  for (size_t i = 0; i < filters->size(); ++i) {
    const ColumnFilter& f = (*filters)[i];
    std::vector<uint32_t> kept = sample;
    FilterByColumn(f.column, f.op, f.value, f.constant_left, &kept);
    const double dropped = 1.0 - static_cast<double>(kept.size()) / kSample;
    rank.emplace_back(FilterCost(f.column, f.op, f.value) / std::max(dropped, 1e-3), i);
  }
  std::stable_sort(rank.begin(), rank.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<ColumnFilter> ordered;
  for (const auto& r : rank) ordered.push_back(std::move((*filters)[r.second]));
  *filters = std::move(ordered);
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

namespace {
// The rows of `type` (n of them) that the first property among `filters` whose sorted index
// answers its tests with at most n / 16 rows keeps (Context::SortedMatch, all that property's
// tests together: a range from two bounds); the filters it answered are taken out of *filters
// and their tests marked in *pushed. nullopt when no index answers (scan then).
Result<std::optional<std::vector<uint32_t>>> IndexedRows(Context& ctx, const std::string& type, uint64_t n,
                                                         std::vector<ColumnFilter>* filters,
                                                         std::vector<bool>* pushed) {
  std::vector<ColumnFilter>& fs = *filters;
  for (size_t k = 0; k < fs.size() && n >= kMaskRows; ++k) {
    bool seen = false;  // each property once, with all its tests
    for (size_t j = 0; j < k; ++j) seen |= fs[j].property == fs[k].property;
    if (seen) continue;
    std::vector<size_t> same;
    std::vector<Context::SortedTest> st;
    for (size_t j = k; j < fs.size(); ++j) {
      if (fs[j].property != fs[k].property) continue;
      same.push_back(j);
      st.push_back({fs[j].op, &fs[j].value, fs[j].constant_left});
    }
    std::vector<bool> used;
    OG_ASSIGN_OR_RETURN(std::optional<std::vector<uint32_t>> hits,
                        ctx.SortedMatch(type, fs[k].property, st, n / 16, &used));
    if (!hits) continue;
    for (size_t u = same.size(); u-- > 0;) {
      if (!used[u]) continue;
      (*pushed)[fs[same[u]].test] = true;
      fs.erase(fs.begin() + static_cast<std::ptrdiff_t>(same[u]));
    }
    return hits;
  }
  return std::optional<std::vector<uint32_t>>();
}
}  // namespace

Result<std::vector<ColumnFilter>> Pipeline::ConstantTests(int var) const {
  std::vector<ColumnFilter> filters;
  const auto& tests = var_tests_[var];
  for (size_t i = 0; i < tests.size(); ++i) {
    const IrExpr* prop = nullptr;
    const IrExpr* other = nullptr;
    bool left = false;
    if (!ColumnTest(tests[i], var, &prop, &other, &left)) continue;
    OG_ASSIGN_OR_RETURN(Value v, ctx_.Eval(*other, nullptr));
    filters.push_back(ColumnFilter{i, nullptr, tests[i].op, std::move(v), left, prop->property});
  }
  return filters;
}

Result<std::vector<uint32_t>> Pipeline::Candidates(int var) {
  const std::string& type = ctx_.TypeOf(var);
  const auto& tests = var_tests_[var];
  std::vector<uint32_t> cands;
  std::vector<bool> pushed(tests.size(), false);
  bool by_id = false;
  for (size_t ti = 0; ti < tests.size(); ++ti) {  // id or single key equality: a dictionary lookup
    const Test& t = tests[ti];
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
    // The row found has exactly this id (a key's id is its value's spelling), so this test holds;
    // the others are checked on the candidate below. (Re-checking it would read the whole key
    // column for one row.)
    pushed[ti] = true;
    if (!v.is_null()) {  // through the key's hash index unless the ordinals are in memory
      OG_ASSIGN_OR_RETURN(std::optional<uint32_t> o, ctx_.FindId(type, id));
      if (o) cands.push_back(*o);
    }
    break;
  }
  if (!by_id) {
    OG_ASSIGN_OR_RETURN(const TableOrdinals* ord, ctx_.Ordinals(type));
    // Property-versus-constant tests filter the ordinals over the table's cached columns, in the
    // order OrderColumnTests picks; the other tests are checked per candidate.
    const size_t n = ord->size();
    OG_ASSIGN_OR_RETURN(std::vector<ColumnFilter> filters, ConstantTests(var));
    // Over a large table, the tests of a property whose sorted index answers them with few rows
    // (Context::SortedMatch) give the candidates, without reading that column; else the leading
    // integer tests clear bytes of a mask in typed passes over their columns (MaskByColumn: no
    // ordinal list read or written per test) and the candidates are the rows left. Later tests
    // filter those, in the order OrderColumnTests picks.
    size_t masked = 0;
    OG_ASSIGN_OR_RETURN(std::optional<std::vector<uint32_t>> hits, IndexedRows(ctx_, type, n, &filters, &pushed));
    const bool listed = hits.has_value();
    if (listed) cands = std::move(*hits);
    for (ColumnFilter& f : filters) {
      OG_ASSIGN_OR_RETURN(f.column, ctx_.Column(type, f.property));
    }
    OrderColumnTests(n, &filters);
    if (n >= kMaskRows && !filters.empty() && !listed) {
      std::vector<uint8_t> mask(n, 1);
      while (masked < filters.size()) {
        const ColumnFilter& f = filters[masked];
        OG_ASSIGN_OR_RETURN(const ZoneMap* zones, ctx_.ZonesOf(type, f.property, f.column));
        if (!MaskByColumn(f.column, f.op, f.value, f.constant_left, &mask, zones)) break;
        pushed[f.test] = true;
        ++masked;
      }
      if (masked > 0) {  // counted, then written without a branch on each row's byte
        const size_t kept = CountKeptBytes(mask);
        cands.resize(kept + 1);
        size_t at = 0;
        for (size_t i = 0; i < n; ++i) {
          cands[at] = static_cast<uint32_t>(i);
          at += mask[i];
        }
        cands.resize(kept);
        if (kept * 16 <= n) {  // selective: the sorted indexes of the properties tested gain credit
          for (size_t k = 0; k < masked; ++k) OG_RETURN_IF_ERROR(ctx_.NoteSelectiveScan(type, filters[k].property));
        }
      }
    }
    if (masked == 0 && !listed) {
      cands.resize(n);
      std::iota(cands.begin(), cands.end(), uint32_t{0});
    }
    for (size_t k = masked; k < filters.size(); ++k) {
      const ColumnFilter& f = filters[k];
      if (cands.empty()) break;
      FilterByColumn(f.column, f.op, f.value, f.constant_left, &cands);
      pushed[f.test] = true;
    }
  }
  // Search tests answered by the column's index (docs/search.md, "Indexes"): bm25(...) > 0 (an
  // ordering by bm25) and text filters over many candidates (or whose index is cached).
  constexpr size_t kIndexCandidates = 256;
  for (size_t i = 0; i < tests.size() && !cands.empty(); ++i) {
    if (pushed[i]) continue;
    const Test& t = tests[i];
    const IrExpr& e = *t.lhs;
    if (e.kind == IrExprKind::kBm25 && e.args[0].var == var && t.op == CompareOp::kGt &&
        Context::IsConstant(e.args[1])) {
      OG_ASSIGN_OR_RETURN(const std::vector<double>* scores, ctx_.Bm25Of(e));
      std::erase_if(cands, [&](uint32_t c) { return !(c < scores->size() && (*scores)[c] > 0); });
      pushed[i] = true;
    } else if (Context::TextIndexable(e) && e.args[0].var == var && t.op == CompareOp::kEq &&
               t.rhs->kind == IrExprKind::kLiteral && !t.rhs->literal.is_null() && t.rhs->literal.bool_value()) {
      OG_ASSIGN_OR_RETURN(const std::vector<bool>* bits, ctx_.TextMatchSet(e, cands.size() > kIndexCandidates));
      if (bits == nullptr) continue;
      std::erase_if(cands, [&](uint32_t c) { return !(c < bits->size() && (*bits)[c]); });
      pushed[i] = true;
    }
  }
  std::vector<const Test*> rest;
  for (size_t i = 0; i < tests.size(); ++i) {
    if (!pushed[i]) rest.push_back(&tests[i]);
  }
  if (rest.empty()) return RankPrune(var, std::move(cands));
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
  return RankPrune(var, std::move(out));
}

Result<std::vector<uint32_t>> Pipeline::RankPrune(int var, std::vector<uint32_t> cands) {
  // Only where these candidates are the query's rows: its one variable, every test checked above.
  const compiler::IrQuery& q = ctx_.query();
  if (!q.limit || q.has_aggregate || q.variables.size() != 1 || q.order.empty() || !multi_.empty() ||
      !negations_.empty() || cands.size() < 2) {
    return cands;
  }
  const IrExpr& e =
      q.order[0].expr.kind == IrExprKind::kAlias ? q.projections[q.order[0].expr.alias].expr : q.order[0].expr;
  if (e.kind != IrExprKind::kNearest || e.args[0].var != var) return cands;
  if (!std::is_sorted(cands.begin(), cands.end())) std::sort(cands.begin(), cands.end());
  OG_ASSIGN_OR_RETURN(std::optional<std::vector<uint32_t>> kept, ctx_.AnnCandidates(e, cands, *q.limit));
  if (kept) return std::move(*kept);
  return cands;
}

bool Pipeline::EdgeTestsAllPushed(int var, const std::vector<bool>& multi_done) const {
  for (size_t i = 0; i < multi_.size(); ++i) {
    if (!multi_done[i] && multi_[i].second.count(var)) return false;
  }
  if (var_tests_[var].empty()) return true;
  Result<EdgeTests*> f = TestsOf(var);
  if (!f.ok()) return false;  // Expand reports the error
  const auto& pushed = edge_tests_.at(var).pushed;
  return std::all_of(pushed.begin(), pushed.end(), [](bool p) { return p; });
}

Result<const EdgeMask*> Pipeline::EdgeFilter(int var) const {
  OG_ASSIGN_OR_RETURN(EdgeTests * et, TestsOf(var));
  if (!et->any) return nullptr;
  if (et->listed && et->allowed.empty()) {  // the mask of a listed filter, made on first use
    et->allowed.assign(et->rows, 0);
    for (uint32_t e : *et->listed) et->allowed[e] = 1;
  }
  return &et->allowed;
}

Result<const std::vector<uint32_t>*> Pipeline::EdgeList(int var) const {
  OG_ASSIGN_OR_RETURN(EdgeTests * et, TestsOf(var));
  return et->listed ? &*et->listed : nullptr;
}

Result<Pipeline::EdgeTests*> Pipeline::TestsOf(int var) const {
  if (auto it = edge_tests_.find(var); it != edge_tests_.end()) return &it->second;
  // Kept only when complete: a failed run leaves nothing behind that would mark tests as applied.
  EdgeTests et;
  OG_RETURN_IF_ERROR(RunEdgeTests(var, &et));
  return &edge_tests_.emplace(var, std::move(et)).first->second;
}

Status Pipeline::RunEdgeTests(int var, EdgeTests* out) const {
  EdgeTests& et = *out;
  const auto& tests = var_tests_[var];
  et.pushed.assign(tests.size(), false);
  if (tests.empty()) return Status::Ok();
  const std::string& type = ctx_.TypeOf(var);
  OG_ASSIGN_OR_RETURN(const table::TableVersion* tv, ctx_.Table(type));
  const uint64_t rows = tv->row_count();
  // The property-versus-constant tests. When a sorted index answers some with few edges
  // (IndexedRows), those edges are listed and the other tests filter the list; else one byte per
  // edge ordinal, each test clearing the edges it rejects: integer tests in one typed pass over
  // the column (MaskByColumn), others over the edges still kept (FilterByColumn).
  OG_ASSIGN_OR_RETURN(std::vector<ColumnFilter> filters, ConstantTests(var));
  std::vector<bool> pushed(tests.size(), false);
  OG_ASSIGN_OR_RETURN(std::optional<std::vector<uint32_t>> listed, IndexedRows(ctx_, type, rows, &filters, &pushed));
  std::optional<EdgeMask> mask;
  std::vector<std::string> scanned;  // properties tested by a pass over their whole column
  for (const ColumnFilter& f : filters) {
    OG_ASSIGN_OR_RETURN(const format::Column* c, ctx_.Column(type, f.property));
    pushed[f.test] = true;
    if (listed) {
      FilterByColumn(c, f.op, f.value, f.constant_left, &*listed);
      continue;
    }
    if (!mask) mask.emplace(rows, 1);
    OG_ASSIGN_OR_RETURN(const ZoneMap* zones, ctx_.ZonesOf(type, f.property, c));
    if (MaskByColumn(c, f.op, f.value, f.constant_left, &*mask, zones)) {
      scanned.push_back(f.property);
      continue;
    }
    std::vector<uint32_t> kept;
    for (size_t e = 0; e < mask->size(); ++e) {
      if ((*mask)[e]) kept.push_back(static_cast<uint32_t>(e));
    }
    FilterByColumn(c, f.op, f.value, f.constant_left, &kept);
    std::fill(mask->begin(), mask->end(), 0);
    for (uint32_t e : kept) (*mask)[e] = 1;
  }
  et.pushed = std::move(pushed);
  et.rows = rows;
  if (listed) {
    et.any = true;
    et.listed = std::move(listed);
    return Status::Ok();
  }
  if (mask && !scanned.empty() && rows >= kMaskRows && CountKeptBytes(*mask) * 16 <= rows) {
    for (const std::string& p : scanned) OG_RETURN_IF_ERROR(ctx_.NoteSelectiveScan(type, p));
  }
  if (!mask) return Status::Ok();
  et.any = true;
  et.allowed = std::move(*mask);
  return Status::Ok();
}

namespace {
// The bound endpoint ordinals of a one-hop expansion from a few rows, each bound on the same side
// (sources when `*out`), distinct; nullopt when the rows are not of that form.
std::optional<std::vector<uint32_t>> FewBoundEnds(const Rows& rows, const IrClause& t, bool* out) {
  if (rows.size() == 0 || rows.size() > Context::kTranslatedKeys) return std::nullopt;
  *out = rows.row(0)[t.src] >= 0;
  std::vector<uint32_t> keys;
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t s = rows.row(i)[t.src], d = rows.row(i)[t.dst];
    if ((s >= 0) == (d >= 0) || (s >= 0) != *out) return std::nullopt;
    keys.push_back(static_cast<uint32_t>(*out ? s : d));
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}
}  // namespace

Result<Rows> Pipeline::Expand(const Rows& rows, const IrClause& t) {
  const EdgeMask* allowed = nullptr;  // the edge variable's column tests, applied here
  if (t.edge_var >= 0) {
    OG_ASSIGN_OR_RETURN(allowed, EdgeFilter(t.edge_var));
  }
  const bool both = t.direction == compiler::Direction::kBoth;
  // One directed hop: y is produced iff it is a neighbour (a self loop produces the node itself),
  // each once (docs/language.md, "Match clauses"), so no breadth-first state is needed.
  const bool one_hop = !both && t.min_hops == 1 && t.max_hops && *t.max_hops == 1;
  // One directed hop from a few nodes bound on one side, without edge column tests (those read
  // whole columns anyway): their lists read through the indexes when the CSR is neither in memory
  // nor cheap to derive (Context::PointAdjacency).
  std::optional<Context::PointLists> points;
  bool forward = true;
  if (one_hop && allowed == nullptr) {
    if (std::optional<std::vector<uint32_t>> keys = FewBoundEnds(rows, t, &forward)) {
      OG_ASSIGN_OR_RETURN(points, ctx_.PointAdjacency(t.edge_type, forward, *keys));
    }
  }
  const Csr* csr = nullptr;
  if (!points) {
    OG_ASSIGN_OR_RETURN(csr, ctx_.CsrFor(t.edge_type));
  }
  Rows out;
  out.width = rows.width;
  out.bound = rows.bound;
  out.bound[t.src] = out.bound[t.dst] = true;
  if (t.edge_var >= 0) out.bound[t.edge_var] = true;
  std::vector<int64_t> nb(rows.width);
  auto emit = [&](const int64_t* r, int64_t s, int64_t d, int64_t e) {
    if (allowed != nullptr && (e < 0 || !EdgeAllowed(allowed, static_cast<uint32_t>(e)))) return;
    if (r[t.src] >= 0 && r[t.src] != s) return;
    if (r[t.dst] >= 0 && r[t.dst] != d) return;
    std::copy(r, r + rows.width, nb.begin());
    nb[t.src] = s;
    nb[t.dst] = d;
    if (t.edge_var >= 0) nb[t.edge_var] = e;
    out.Append(nb.data());
  };
  // The output is charged as it grows (a batch of high-degree or multi-hop expansions is large).
  BudgetCharge charge(ctx_);
  uint64_t charged = 0;
  if (points) {  // as the CSR cases below, over the lists read
    for (size_t i = 0; i < rows.size(); ++i) {
      if (const uint64_t held = RowBytes(out); held > charged + (uint64_t{1} << 20)) {
        OG_RETURN_IF_ERROR(charge.Add(held - charged));
        charged = held;
      }
      const int64_t* r = rows.row(i);
      const int64_t x = forward ? r[t.src] : r[t.dst];
      const Context::PointLists::List* l = points->Find(static_cast<uint32_t>(x));
      if (l == nullptr) continue;
      for (size_t k = 0; k < l->nodes.size(); ++k) {
        if (t.edge_var < 0 && k > 0 && l->nodes[k] == l->nodes[k - 1]) continue;  // each neighbour once
        const int64_t e = t.edge_var >= 0 ? l->edges[k] : -1;
        if (forward) {
          emit(r, x, l->nodes[k], e);
        } else {
          emit(r, l->nodes[k], x, e);
        }
      }
    }
    return out;
  }
  std::map<uint32_t, std::vector<uint32_t>> reach_cache;  // both endpoints bound
  for (size_t i = 0; i < rows.size(); ++i) {
    if (const uint64_t held = RowBytes(out); held > charged + (uint64_t{1} << 20)) {
      OG_RETURN_IF_ERROR(charge.Add(held - charged));
      charged = held;
    }
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

}  // namespace omnigraph::engine::exec
