// The shortlist of an ordering with a limit (executor_internal.h, Shortlist): the rows that can
// still be in the result, found by comparing column values directly, key after key, before any
// Value is built for an order key.
#include <algorithm>
#include <limits>

#include "engine/exec/executor_internal.h"

namespace omnigraph::engine::exec {

using compiler::IrExprKind;

namespace {

// Among the candidate rows (`count` of them, the j-th being row `index(j)`), by one key whose value
// of row i is `value(i)`: marks in `keep` the rows strictly better than the want-th best value and
// returns those equal to it (the ties, in row order). *marked counts the rows marked.
template <typename I, typename F>
std::vector<uint32_t> CutByKey(size_t count, I index, size_t want, bool desc, F value, std::vector<uint8_t>* keep,
                               size_t* marked) {
  using T = decltype(value(size_t{0}));
  auto better = [desc](const T& a, const T& b) { return desc ? b < a : a < b; };
  // The want-th best value: a heap of the `want` best seen so far, whose top is the worst of them;
  // most rows lose to it with one comparison.
  std::vector<T> best;
  best.reserve(want);
  for (size_t j = 0; j < count; ++j) {
    const T x = value(index(j));
    if (best.size() < want) {
      best.push_back(x);
      std::push_heap(best.begin(), best.end(), better);
    } else if (better(x, best.front())) {
      std::pop_heap(best.begin(), best.end(), better);
      best.back() = x;
      std::push_heap(best.begin(), best.end(), better);
    }
  }
  std::vector<uint32_t> ties;
  const T cut = best.front();
  uint8_t* k = keep->data();
  size_t m = 0;
  for (size_t j = 0; j < count; ++j) {
    const size_t i = index(j);
    const T x = value(i);
    if (better(x, cut)) {
      k[i] = 1;
      ++m;
    } else if (!better(cut, x)) {
      ties.push_back(static_cast<uint32_t>(i));
    }
  }
  *marked += m;
  return ties;
}

}  // namespace

Result<std::vector<uint8_t>> Shortlist(Context& ctx, size_t n, std::optional<uint64_t> limit,
                                       const std::vector<bool>& desc, const RowCell& cell) {
  const compiler::IrQuery& q = ctx.query();
  std::vector<uint8_t> keep;
  if (!limit || *limit == 0 || q.order.empty() || n < kShortlistRows || *limit >= (n + 3) / 4 ||
      n >= std::numeric_limits<uint32_t>::max()) {
    return keep;
  }
  // Ranking keys also decide whether a row is in the result at all (OrderRows): a cut made before
  // them could keep rows they then drop, and leave the result short.
  for (const auto& o : q.order) {
    const compiler::IrExpr& e = o.expr.kind == IrExprKind::kAlias ? q.projections[o.expr.alias].expr : o.expr;
    if (e.kind == IrExprKind::kNearest || e.kind == IrExprKind::kBm25 || e.kind == IrExprKind::kRrf) return keep;
  }
  std::vector<uint32_t> cands;  // the rows still tied on every key so far; all rows before the first
  bool all = true;
  size_t want = static_cast<size_t>(*limit);  // how many of them the result still takes
  for (size_t k = 0; k < q.order.size(); ++k) {
    if (!all && cands.size() <= want) break;  // no cut left to make
    const compiler::IrExpr& e =
        q.order[k].expr.kind == IrExprKind::kAlias ? q.projections[q.order[k].expr.alias].expr : q.order[k].expr;
    if (e.kind != IrExprKind::kProperty || e.var < 0) break;
    OG_ASSIGN_OR_RETURN(const format::Column* col, ctx.Column(ctx.TypeOf(e.var), e.property));
    if (col == nullptr) break;
    const TypeKind kind = col->type().kind;
    const bool supported = kind == TypeKind::kString || kind == TypeKind::kI32 || kind == TypeKind::kDate ||
                           kind == TypeKind::kI64 || kind == TypeKind::kDateTime || kind == TypeKind::kU32 ||
                           kind == TypeKind::kU64;  // floats (NaN orders above every number), bools, ...
    if (!supported) break;
    // A row without a value (unbound, or null) orders apart: the cut stops at this key.
    const size_t count = all ? n : cands.size();
    if (cell.rows != nullptr || col->has_nulls()) {
      bool valued = true;
      for (size_t j = 0; j < count && valued; ++j) {
        const int64_t o = cell(all ? j : cands[j], e.var);
        valued = o >= 0 && (!col->has_nulls() || col->IsValid(static_cast<size_t>(o)));
      }
      if (!valued) break;
    }
    if (keep.empty()) keep.assign(n, 0);
    size_t marked = 0;
    std::vector<uint32_t> ties;
    // One instance per way of reaching the value: over every row or the tied ones, through the
    // rows' bindings or (a scan) the row number as the ordinal.
    auto cut = [&](auto at_ordinal) {
      const Rows* rows = cell.rows;
      const int var = e.var;
      auto through_rows = [&](size_t i) { return at_ordinal(static_cast<size_t>(rows->row(i)[var])); };
      auto each_row = [](size_t j) { return j; };
      auto tied = [&](size_t j) -> size_t { return cands[j]; };
      if (all && rows == nullptr) {
        ties = CutByKey(count, each_row, want, desc[k], at_ordinal, &keep, &marked);
      } else if (all) {
        ties = CutByKey(count, each_row, want, desc[k], through_rows, &keep, &marked);
      } else if (rows == nullptr) {
        ties = CutByKey(count, tied, want, desc[k], at_ordinal, &keep, &marked);
      } else {
        ties = CutByKey(count, tied, want, desc[k], through_rows, &keep, &marked);
      }
    };
    switch (kind) {
      case TypeKind::kString: cut([col](size_t o) { return col->string_at(o); }); break;
      case TypeKind::kI32:
      case TypeKind::kDate: cut([v = col->i32_values()](size_t o) { return int64_t{v[o]}; }); break;
      case TypeKind::kI64:
      case TypeKind::kDateTime: cut([v = col->i64_values()](size_t o) { return v[o]; }); break;
      case TypeKind::kU32: cut([v = col->u32_values()](size_t o) { return uint64_t{v[o]}; }); break;
      default: cut([v = col->u64_values()](size_t o) { return v[o]; }); break;
    }
    want -= marked;  // fewer than `want` rows are strictly better than the want-th best
    cands = std::move(ties);
    all = false;
  }
  if (all) return std::vector<uint8_t>();  // no key could cut: every row
  for (uint32_t i : cands) keep[i] = 1;    // tied on every key compared: the later keys decide
  return keep;
}

}  // namespace omnigraph::engine::exec
