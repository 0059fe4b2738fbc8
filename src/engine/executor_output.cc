// Result building of the executor (executor.h): hash aggregation with implicit grouping, sort or
// top-k with the total-order id tie-break, limit, and projection of only the kept rows.
#include <algorithm>
#include <numeric>
#include <unordered_map>

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

struct Acc {
  uint64_t count = 0;
  double sum = 0;
  Value best;
  bool has_best = false;
};

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
  // Hash aggregation, grouped by the text of the non-aggregate projections (as the reference).
  struct Group {
    size_t first = 0;
    bool empty = false;
    std::vector<Value> keys;
    std::vector<std::string> key_text;
    std::vector<Acc> acc;
  };
  std::vector<Group> groups;
  std::unordered_map<std::string, size_t> by_key;
  std::vector<size_t> agg_proj;
  for (size_t p = 0; p < q.projections.size(); ++p) {
    if (q.projections[p].aggregate) agg_proj.push_back(p);
  }
  for (size_t i = 0; i < n; ++i) {
    std::string key;
    std::vector<Value> kv;
    std::vector<std::string> kt;
    for (int k : q.group_keys) {
      OG_ASSIGN_OR_RETURN(Value v, ctx.Eval(q.projections[k].expr, rows.row(i)));
      kt.push_back(v.ToString());
      key += kt.back() + '\x1f';
      kv.push_back(std::move(v));
    }
    auto [it, fresh] = by_key.try_emplace(std::move(key), groups.size());
    if (fresh) {
      Group g;
      g.first = i;
      g.keys = std::move(kv);
      g.key_text = std::move(kt);
      g.acc.resize(agg_proj.size());
      groups.push_back(std::move(g));
    }
    Group& g = groups[it->second];
    for (size_t a = 0; a < agg_proj.size(); ++a) {
      const auto& p = q.projections[agg_proj[a]];
      OG_ASSIGN_OR_RETURN(Value v, ctx.Eval(p.expr.args.at(0), rows.row(i)));
      if (v.is_null()) continue;
      Acc& acc = g.acc[a];
      ++acc.count;
      if (p.expr.agg == AggFn::kSum || p.expr.agg == AggFn::kAvg) {
        acc.sum += v.kind() == TypeKind::kF32 || v.kind() == TypeKind::kF64 ? v.float_value()
                   : v.kind() == TypeKind::kU32 || v.kind() == TypeKind::kU64 ? static_cast<double>(v.uint_value())
                                                                              : static_cast<double>(v.int_value());
      } else if (p.expr.agg == AggFn::kMin || p.expr.agg == AggFn::kMax) {
        bool better = !acc.has_best || (p.expr.agg == AggFn::kMin ? v.Compare(acc.best) < 0 : v.Compare(acc.best) > 0);
        if (better) {
          acc.best = std::move(v);
          acc.has_best = true;
        }
      }
    }
  }
  if (groups.empty() && q.group_keys.empty()) {
    Group g;
    g.empty = true;
    g.acc.resize(agg_proj.size());
    groups.push_back(std::move(g));
  }
  std::vector<std::vector<Value>> values(groups.size()), keys(groups.size());
  std::vector<int64_t> unbound(rows.width, -1);
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    Group& g = groups[gi];
    const int64_t* first = g.empty ? unbound.data() : rows.row(g.first);
    size_t a = 0, k = 0;
    for (size_t p = 0; p < q.projections.size(); ++p) {
      const auto& pr = q.projections[p];
      if (!pr.aggregate) {
        values[gi].push_back(g.keys[k++]);
        continue;
      }
      const Acc& acc = g.acc[a++];
      switch (pr.expr.agg) {
        case AggFn::kCount: values[gi].push_back(Value::I64(static_cast<int64_t>(acc.count))); break;
        case AggFn::kSum:
        case AggFn::kAvg:
          if (acc.count == 0) values[gi].push_back(Value::Null(pr.expr.type.data));
          else if (pr.expr.agg == AggFn::kAvg) values[gi].push_back(Value::F64(acc.sum / static_cast<double>(acc.count)));
          else if (pr.expr.type.data.is_integer()) values[gi].push_back(Value::I64(static_cast<int64_t>(acc.sum)));
          else values[gi].push_back(Value::F64(acc.sum));
          break;
        case AggFn::kMin:
        case AggFn::kMax:
          values[gi].push_back(acc.has_best ? acc.best : Value::Null(pr.expr.type.data));
          break;
      }
    }
    for (const auto& o : q.order) {
      if (o.expr.kind == IrExprKind::kAlias) {
        keys[gi].push_back(values[gi][o.expr.alias]);
      } else {
        OG_ASSIGN_OR_RETURN(Value v, ctx.Eval(o.expr, first));
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
    if (groups[a].key_text != groups[b].key_text) return groups[a].key_text < groups[b].key_text;
    return a < b;
  });
  for (size_t i : idx) res.rows.push_back(std::move(values[i]));
  return res;
}

}  // namespace omnigraph::engine::exec
