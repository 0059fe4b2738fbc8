// Result building of the executor (executor.h): hash aggregation with implicit grouping, sort or
// top-k with the total-order id tie-break, limit, and projection of only the kept rows.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "common/error_codes.h"

#include "engine/executor_internal.h"

namespace omnigraph::engine::exec {

using compiler::AggFn;
using compiler::IrExprKind;

namespace {

std::weak_ordering OrderValues(const Value& a, const Value& b, bool desc) {
  auto c = a.Compare(b);  // nulls first; reversed (last) when descending
  return desc ? 0 <=> c : c;
}

// Sorts `idx` by `less` and keeps the first `limit` (partial sort when a limit cuts).
template <typename Less>
void SortAndCut(std::vector<size_t>* idx, const std::optional<uint64_t>& limit, Less less) {
  if (limit && *limit < idx->size()) {
    std::partial_sort(idx->begin(), idx->begin() + static_cast<std::ptrdiff_t>(*limit), idx->end(), less);
    idx->resize(*limit);
  } else {
    std::sort(idx->begin(), idx->end(), less);
  }
}

bool IsFloatKind(TypeKind k) { return k == TypeKind::kF32 || k == TypeKind::kF64; }
bool IsUnsignedKind(TypeKind k) { return k == TypeKind::kU32 || k == TypeKind::kU64; }

// One aggregate's running state. Integer sums are exact (128-bit, checked against the result
// type at the end, so the outcome does not depend on the row order); float sums are doubles.
struct Acc {
  uint64_t count = 0;
  double fsum = 0;
  __int128_t isum = 0;
  __uint128_t usum = 0;
  Value best;
  bool has_best = false;
};

// Value::Compare, with -0 below 0 so that min/max of a float column do not depend on row order.
bool MinMaxLess(const Value& a, const Value& b) {
  auto c = a.Compare(b);
  if (c != 0) return c < 0;
  return IsFloatKind(a.kind()) && IsFloatKind(b.kind()) && a.float_value() == 0 && b.float_value() == 0 &&
         std::signbit(a.float_value()) && !std::signbit(b.float_value());
}

void Accumulate(const compiler::IrExpr& agg, Value v, Acc* acc) {
  ++acc->count;
  if (agg.agg == AggFn::kSum || agg.agg == AggFn::kAvg) {
    if (IsFloatKind(v.kind())) acc->fsum += v.float_value();
    else if (IsUnsignedKind(v.kind())) acc->usum += v.uint_value();
    else acc->isum += v.int_value();
  } else if (agg.agg == AggFn::kMin || agg.agg == AggFn::kMax) {
    bool better = !acc->has_best || (agg.agg == AggFn::kMin ? MinMaxLess(v, acc->best) : MinMaxLess(acc->best, v));
    if (better) {
      acc->best = std::move(v);
      acc->has_best = true;
    }
  }
}

Result<Value> Finish(const compiler::IrExpr& agg, const Acc& acc) {
  const TypeKind in = agg.args.at(0).type.data.kind;
  switch (agg.agg) {
    case AggFn::kCount: return Value::I64(static_cast<int64_t>(acc.count));
    case AggFn::kMin:
    case AggFn::kMax: return acc.has_best ? acc.best : Value::Null(agg.type.data);
    case AggFn::kSum:
    case AggFn::kAvg: break;
  }
  if (acc.count == 0) return Value::Null(agg.type.data);
  if (agg.agg == AggFn::kAvg) {
    double sum = IsFloatKind(in) ? acc.fsum : IsUnsignedKind(in) ? static_cast<double>(acc.usum)
                                                                 : static_cast<double>(acc.isum);
    return Value::F64(sum / static_cast<double>(acc.count));
  }
  if (IsFloatKind(in)) return Value::F64(acc.fsum);
  if (IsUnsignedKind(in)) {
    if (acc.usum > std::numeric_limits<uint64_t>::max()) {
      return Status(ErrorCode::kResourceExhausted, "sum() overflows U64");
    }
    return Value::U64(static_cast<uint64_t>(acc.usum));
  }
  if (acc.isum > std::numeric_limits<int64_t>::max() || acc.isum < std::numeric_limits<int64_t>::min()) {
    return Status(ErrorCode::kResourceExhausted, "sum() overflows I64");
  }
  return Value::I64(static_cast<int64_t>(acc.isum));
}

// The same aggregate of the same argument (an order key that repeats a projection's aggregate).
bool SameAggregate(const compiler::IrExpr& a, const compiler::IrExpr& b) {
  const compiler::IrExpr& x = a.args.at(0);
  const compiler::IrExpr& y = b.args.at(0);
  return a.agg == b.agg && x.kind == y.kind && x.var == y.var && x.property == y.property;
}

// Grouping keys compare by typed value equality (Value::Compare == 0); the hash is consistent
// with it: numbers of every kind hash by their double value (-0 as 0, one NaN).
size_t HashValue(const Value& v) {
  if (v.is_null()) return 0x51ed27;
  switch (v.kind()) {
    case TypeKind::kBool: return v.bool_value() ? 0x2545f491 : 0x4f6cdd1d;
    case TypeKind::kString:
    case TypeKind::kBlob: return std::hash<std::string>{}(v.string_value());
    case TypeKind::kList: {
      size_t h = v.list_value().size();
      for (const Value& x : v.list_value()) h = h * 1000003u ^ HashValue(x);
      return h;
    }
    case TypeKind::kVector: return v.vector_value().size();
    default: break;
  }
  double d = IsFloatKind(v.kind()) ? v.float_value()
             : IsUnsignedKind(v.kind()) ? static_cast<double>(v.uint_value())
                                        : static_cast<double>(v.int_value());
  if (std::isnan(d)) return 0x7ff8;
  if (d == 0) d = 0;  // -0 == 0
  return std::hash<double>{}(d);
}

struct KeyHash {
  size_t operator()(const std::vector<Value>& k) const {
    size_t h = 0;
    for (const Value& v : k) h = h * 1000003u ^ HashValue(v);
    return h;
  }
};
struct KeyEq {
  bool operator()(const std::vector<Value>& a, const std::vector<Value>& b) const {
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].Compare(b[i]) != 0) return false;
    }
    return true;
  }
};

// A float zero key shows as 0 whichever of -0 and 0 the group met first (row order is a plan detail).
Value CanonicalKey(Value v) {
  if (!v.is_null() && IsFloatKind(v.kind()) && v.float_value() == 0) {
    return v.kind() == TypeKind::kF32 ? Value::F32(0.0f) : Value::F64(0.0);
  }
  return v;
}

}  // namespace

Result<QueryResult> BuildResult(Context& ctx, const Rows& rows) {
  const compiler::IrQuery& q = ctx.query();
  QueryResult res;
  for (const auto& p : q.projections) {
    res.columns.push_back(p.name);
    res.types.push_back(p.expr.type);
  }
  const size_t n = rows.size();
  if (!q.has_aggregate) {
    // Order keys per row (aliases evaluate their projection), then the ids of the bound top-level
    // variables in binding order.
    std::vector<std::vector<Value>> keys(n);
    for (size_t i = 0; i < n && !q.order.empty(); ++i) {
      for (const auto& o : q.order) {
        const compiler::IrExpr& e = o.expr.kind == IrExprKind::kAlias ? q.projections[o.expr.alias].expr : o.expr;
        OG_ASSIGN_OR_RETURN(Value v, ctx.Eval(e, rows.row(i)));
        keys[i].push_back(std::move(v));
      }
    }
    std::vector<int> tie_vars;
    std::vector<const format::Column*> tie_ids;
    for (size_t v = 0; v < q.variables.size(); ++v) {
      if (q.variables[v].scope != 0) continue;
      tie_vars.push_back(static_cast<int>(v));
      OG_ASSIGN_OR_RETURN(const format::Column* c, ctx.Column(ctx.TypeOf(static_cast<int>(v)), "id"));
      tie_ids.push_back(c);
    }
    auto id_of = [&](size_t row, size_t k) -> std::string_view {
      int64_t o = rows.row(row)[tie_vars[k]];
      if (o < 0 || tie_ids[k] == nullptr) return std::string_view();
      return tie_ids[k]->string_at(static_cast<size_t>(o));
    };
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), size_t{0});
    SortAndCut(&idx, q.limit, [&](size_t a, size_t b) {
      for (size_t k = 0; k < q.order.size(); ++k) {
        auto c = OrderValues(keys[a][k], keys[b][k], q.order[k].descending);
        if (c != 0) return c < 0;
      }
      for (size_t k = 0; k < tie_vars.size(); ++k) {
        int c = id_of(a, k).compare(id_of(b, k));
        if (c != 0) return c < 0;
      }
      return a < b;
    });
    res.rows.reserve(idx.size());
    for (size_t i : idx) {
      std::vector<Value> out;
      out.reserve(q.projections.size());
      for (const auto& p : q.projections) {
        OG_ASSIGN_OR_RETURN(Value v, ctx.Eval(p.expr, rows.row(i)));
        out.push_back(std::move(v));
      }
      res.rows.push_back(std::move(out));
    }
    return res;
  }
  // Hash aggregation, grouped by typed value equality of the non-aggregate projections.
  struct Group {
    size_t first = 0;
    bool empty = false;
    std::vector<Value> keys;
    std::vector<Acc> acc;
  };
  // The aggregates to compute: the projections', then those of order keys no projection computes.
  std::vector<const compiler::IrExpr*> aggs;
  std::vector<int> proj_agg(q.projections.size(), -1), order_agg(q.order.size(), -1);
  for (size_t p = 0; p < q.projections.size(); ++p) {
    if (!q.projections[p].aggregate) continue;
    proj_agg[p] = static_cast<int>(aggs.size());
    aggs.push_back(&q.projections[p].expr);
  }
  for (size_t o = 0; o < q.order.size(); ++o) {
    const compiler::IrExpr& e = q.order[o].expr;
    if (e.kind != IrExprKind::kAggregate) continue;
    for (size_t a = 0; a < aggs.size() && order_agg[o] < 0; ++a) {
      if (SameAggregate(*aggs[a], e)) order_agg[o] = static_cast<int>(a);
    }
    if (order_agg[o] < 0) {
      order_agg[o] = static_cast<int>(aggs.size());
      aggs.push_back(&e);
    }
  }
  std::vector<Group> groups;
  std::unordered_map<std::vector<Value>, size_t, KeyHash, KeyEq> by_key;
  // count($v) of a top-level variable counts the rows binding it: no value to build per row.
  std::vector<int> count_var(aggs.size(), -1);
  for (size_t a = 0; a < aggs.size(); ++a) {
    const compiler::IrExpr& arg = aggs[a]->args.at(0);
    if (aggs[a]->agg == AggFn::kCount && arg.kind == IrExprKind::kVariable && arg.var >= 0) count_var[a] = arg.var;
  }
  // Key values are a function of the bindings of the variables they mention: rows with the same
  // ordinals for those variables fall in the same group, so values are built once per distinct
  // binding tuple, not once per row.
  std::vector<int> key_vars;
  {
    std::vector<const compiler::IrExpr*> stack;
    for (int k : q.group_keys) stack.push_back(&q.projections[k].expr);
    std::vector<bool> seen(rows.width, false);
    while (!stack.empty()) {
      const compiler::IrExpr* e = stack.back();
      stack.pop_back();
      if ((e->kind == IrExprKind::kProperty || e->kind == IrExprKind::kVariable) && e->var >= 0 &&
          static_cast<size_t>(e->var) < rows.width && !seen[e->var]) {
        seen[e->var] = true;
        key_vars.push_back(e->var);
      }
      for (const auto& a : e->args) stack.push_back(&a);
    }
  }
  struct TupleHash {
    size_t operator()(const std::vector<int64_t>& t) const {
      size_t h = 0x9e3779b97f4a7c15ull;
      for (int64_t x : t) h = (h ^ static_cast<size_t>(x)) * 0x100000001b3ull;
      return h;
    }
  };
  std::unordered_map<std::vector<int64_t>, size_t, TupleHash> by_binding;
  auto accumulate = [&](Group& g, size_t i) -> Status {
    for (size_t a = 0; a < aggs.size(); ++a) {
      if (count_var[a] >= 0) {
        if (rows.row(i)[count_var[a]] >= 0) ++g.acc[a].count;
        continue;
      }
      OG_ASSIGN_OR_RETURN(Value v, ctx.Eval(aggs[a]->args.at(0), rows.row(i)));
      if (!v.is_null()) Accumulate(*aggs[a], std::move(v), &g.acc[a]);
    }
    return Status::Ok();
  };
  std::vector<int64_t> tuple(key_vars.size());
  for (size_t i = 0; i < n; ++i) {
    size_t gi = 0;
    if (!q.group_keys.empty()) {
      for (size_t k = 0; k < key_vars.size(); ++k) tuple[k] = rows.row(i)[key_vars[k]];
      if (auto hit = by_binding.find(tuple); hit != by_binding.end()) {
        OG_RETURN_IF_ERROR(accumulate(groups[hit->second], i));
        continue;
      }
    }
    if (q.group_keys.empty()) {  // one group: no key to build or hash
      if (groups.empty()) {
        Group g;
        g.first = i;
        g.acc.resize(aggs.size());
        groups.push_back(std::move(g));
      }
    } else {
      std::vector<Value> kv;
      kv.reserve(q.group_keys.size());
      for (int k : q.group_keys) {
        OG_ASSIGN_OR_RETURN(Value v, ctx.Eval(q.projections[k].expr, rows.row(i)));
        kv.push_back(CanonicalKey(std::move(v)));
      }
      auto it = by_key.find(kv);
      if (it == by_key.end()) {
        Group g;
        g.first = i;
        g.keys = kv;
        g.acc.resize(aggs.size());
        it = by_key.emplace(std::move(kv), groups.size()).first;
        groups.push_back(std::move(g));
      }
      gi = it->second;
      by_binding.emplace(tuple, gi);
    }
    OG_RETURN_IF_ERROR(accumulate(groups[gi], i));
  }
  if (groups.empty() && q.group_keys.empty()) {
    Group g;
    g.empty = true;
    g.acc.resize(aggs.size());
    groups.push_back(std::move(g));
  }
  std::vector<std::vector<Value>> values(groups.size()), keys(groups.size());
  std::vector<int64_t> unbound(rows.width, -1);
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    Group& g = groups[gi];
    const int64_t* first = g.empty ? unbound.data() : rows.row(g.first);
    std::vector<Value> finished(aggs.size());
    for (size_t a = 0; a < aggs.size(); ++a) {
      OG_ASSIGN_OR_RETURN(finished[a], Finish(*aggs[a], g.acc[a]));
    }
    size_t k = 0;
    for (size_t p = 0; p < q.projections.size(); ++p) {
      values[gi].push_back(proj_agg[p] >= 0 ? finished[proj_agg[p]] : g.keys[k++]);
    }
    for (size_t o = 0; o < q.order.size(); ++o) {
      const compiler::IrExpr& e = q.order[o].expr;
      if (e.kind == IrExprKind::kAlias) {
        keys[gi].push_back(values[gi][e.alias]);
      } else if (order_agg[o] >= 0) {
        keys[gi].push_back(finished[order_agg[o]]);
      } else {
        OG_ASSIGN_OR_RETURN(Value v, ctx.Eval(e, first));
        keys[gi].push_back(std::move(v));
      }
    }
  }
  std::vector<size_t> idx(groups.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  SortAndCut(&idx, q.limit, [&](size_t a, size_t b) {
    for (size_t k = 0; k < q.order.size(); ++k) {
      auto c = OrderValues(keys[a][k], keys[b][k], q.order[k].descending);
      if (c != 0) return c < 0;
    }
    for (size_t k = 0; k < groups[a].keys.size(); ++k) {  // then the grouping keys (distinct per group)
      auto c = groups[a].keys[k].Compare(groups[b].keys[k]);
      if (c != 0) return c < 0;
    }
    return a < b;
  });
  for (size_t i : idx) res.rows.push_back(std::move(values[i]));
  return res;
}

}  // namespace omnigraph::engine::exec
