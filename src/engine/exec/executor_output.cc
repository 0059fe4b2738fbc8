// Result building of the executor (executor.h): hash aggregation with implicit grouping, sort or
// top-k with the total-order id tie-break, limit, and projection of only the kept rows.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include "common/error_codes.h"

#include "common/thread_pool.h"
#include "engine/exec/executor_internal.h"

namespace omnigraph::engine::exec {

using compiler::AggFn;
using compiler::IrExprKind;

namespace {

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

// Grouping rows with coded keys and only counts runs in parallel chunks from this many rows.
constexpr size_t kParallelGroupRows = size_t{1} << 16;

// Adds `weight` rows of value `v` (Rows::mult: one row standing for several matches).
void Accumulate(const compiler::IrExpr& agg, Value v, uint64_t weight, Acc* acc) {
  acc->count += weight;
  if (agg.agg == AggFn::kSum || agg.agg == AggFn::kAvg) {
    if (IsFloatKind(v.kind()))
      acc->fsum += v.float_value() * static_cast<double>(weight);
    else if (IsUnsignedKind(v.kind()))
      acc->usum += static_cast<__uint128_t>(v.uint_value()) * weight;
    else
      acc->isum += static_cast<__int128_t>(v.int_value()) * weight;
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
    double sum = IsFloatKind(in)      ? acc.fsum
                 : IsUnsignedKind(in) ? static_cast<double>(acc.usum)
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

// Binding tuples (k node or edge ordinals) -> dense group numbers, open addressing: the groups of
// an aggregation before their key values are built (rows with the same bindings of the variables
// the keys mention fall in the same group). k >= 1.
class TupleIndex {
 public:
  explicit TupleIndex(size_t k) : k_(k), slots_(16, 0) {}
  size_t size() const { return tuples_.size() / k_; }
  const int64_t* tuple(size_t g) const { return tuples_.data() + g * k_; }
  // The group of tuple `t`; `*added` tells whether it is new (numbered size() - 1).
  size_t FindOrAdd(const int64_t* t, bool* added) {
    const uint64_t h = Hash(t);
    size_t mask = slots_.size() - 1;
    for (size_t s = h & mask;; s = (s + 1) & mask) {
      const uint32_t g = slots_[s];
      if (g == 0) break;
      const int64_t* u = tuple(g - 1);
      if (Equal(t, u)) {
        *added = false;
        return g - 1;
      }
    }
    *added = true;
    tuples_.insert(tuples_.end(), t, t + k_);
    if (2 * size() > slots_.size()) {
      Rehash();
    } else {
      for (size_t s = h & mask;; s = (s + 1) & mask) {
        if (slots_[s] == 0) {
          slots_[s] = static_cast<uint32_t>(size());
          break;
        }
      }
    }
    return size() - 1;
  }

 private:
  bool Equal(const int64_t* t, const int64_t* u) const {  // a loop, not a memcmp call per probe
    for (size_t i = 0; i < k_; ++i) {
      if (t[i] != u[i]) return false;
    }
    return true;
  }
  uint64_t Hash(const int64_t* t) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < k_; ++i) {
      h = (h ^ static_cast<uint64_t>(t[i])) * 0xff51afd7ed558ccdull;
      h ^= h >> 32;
    }
    // MurmurHash3's finalizer: small integer tuples (coded keys) spread over the low bits too.
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
  }
  void Rehash() {
    slots_.assign(slots_.size() * 2, 0);
    const size_t mask = slots_.size() - 1;
    for (size_t g = 0; g < size(); ++g) {
      size_t s = Hash(tuple(g)) & mask;
      while (slots_[s] != 0) s = (s + 1) & mask;
      slots_[s] = static_cast<uint32_t>(g + 1);
    }
  }

  size_t k_;
  std::vector<int64_t> tuples_;
  std::vector<uint32_t> slots_;  // group + 1; 0 = empty
};

// Folds `from` (a group of rows with the same key values) into `into`: as if `into` had
// accumulated those rows too.
void MergeAcc(const compiler::IrExpr& agg, const Acc& from, Acc* into) {
  into->count += from.count;
  into->fsum += from.fsum;
  into->isum += from.isum;
  into->usum += from.usum;
  if (!from.has_best) return;
  bool better = !into->has_best ||
                (agg.agg == AggFn::kMin ? MinMaxLess(from.best, into->best) : MinMaxLess(into->best, from.best));
  if (better) {
    into->best = from.best;
    into->has_best = true;
  }
}

// A float zero key shows as 0 whichever of -0 and 0 the group met first (row order is a plan detail).
Value CanonicalKey(Value v) {
  if (!v.is_null() && IsFloatKind(v.kind()) && v.float_value() == 0) {
    return v.kind() == TypeKind::kF32 ? Value::F32(0.0f) : Value::F64(0.0);
  }
  return v;
}

// Sorts binding groups (`order`, `nk` key values each in `keys`) by their key values. One String
// or one integer key (the usual grouping by a node's property) compares without Value dispatch.
void SortByKeys(const std::vector<Value>& keys, size_t nk, std::vector<size_t>* order) {
  auto all_kind = [&](auto pred) {
    return nk == 1 &&
           std::all_of(keys.begin(), keys.end(), [&](const Value& v) { return !v.is_null() && pred(v.kind()); });
  };
  if (all_kind([](TypeKind k) { return k == TypeKind::kString; })) {
    // Byte order; the first 8 bytes (big-endian, zero-padded) decide most comparisons.
    struct Key {
      uint64_t prefix;
      std::string_view s;
      size_t g;
    };
    std::vector<Key> s;
    s.reserve(order->size());
    for (size_t g : *order) {
      std::string_view v = keys[g].string_value();
      uint64_t prefix = 0;
      for (size_t i = 0; i < 8; ++i) prefix = prefix << 8 | (i < v.size() ? static_cast<uint8_t>(v[i]) : 0);
      s.push_back(Key{prefix, v, g});
    }
    std::sort(s.begin(), s.end(), [](const Key& a, const Key& b) {
      if (a.prefix != b.prefix) return a.prefix < b.prefix;
      int c = a.s.compare(b.s);
      return c != 0 ? c < 0 : a.g < b.g;
    });
    for (size_t i = 0; i < s.size(); ++i) (*order)[i] = s[i].g;
    return;
  }
  if (all_kind([](TypeKind k) { return k == TypeKind::kI32 || k == TypeKind::kI64; })) {
    std::vector<std::pair<int64_t, size_t>> s;
    s.reserve(order->size());
    for (size_t g : *order) s.emplace_back(keys[g].int_value(), g);
    std::sort(s.begin(), s.end());
    for (size_t i = 0; i < s.size(); ++i) (*order)[i] = s[i].second;
    return;
  }
  std::sort(order->begin(), order->end(), [&](size_t a, size_t b) {
    for (size_t k = 0; k < nk; ++k) {
      auto c = keys[a * nk + k].Compare(keys[b * nk + k]);
      if (c != 0) return c < 0;
    }
    return a < b;
  });
}

// Whether the group key `e` identifies its variable's binding: the variable itself, its id, or a
// node's single @key (unique among live rows).
bool IdentityKey(Context& ctx, const compiler::IrExpr& e) {
  if (e.var < 0) return false;
  if (e.kind == IrExprKind::kVariable) return true;
  if (e.kind != IrExprKind::kProperty) return false;
  if (e.property == "id") return true;
  const compiler::NodeType* node = ctx.snap().catalog().FindNode(ctx.TypeOf(e.var));
  return node != nullptr && node->key.size() == 1 && node->key[0] == e.property;
}

// A grouped query ordered first by aggregates with a limit, whose groups are exactly the binding
// groups (every grouping key an identity key, or `distinct_groups`: coded keys): the binding
// groups that can be in the result, as `*out` (the `limit` best by the leading aggregate order
// keys, and every group tying with the last of them, since ties then order by the later keys).
// Only their key values get built. false when it does not apply.
Result<bool> TopGroups(Context& ctx, const std::vector<const compiler::IrExpr*>& aggs, const std::vector<int>& proj_agg,
                       const std::vector<int>& order_agg, const std::vector<Acc>& acc, size_t nb, bool distinct_groups,
                       std::vector<size_t>* out) {
  const compiler::IrQuery& q = ctx.query();
  if (!q.limit || *q.limit == 0 || *q.limit >= nb || q.order.empty() || q.group_keys.empty()) return false;
  for (int k : q.group_keys) {
    if (!distinct_groups && !IdentityKey(ctx, q.projections[k].expr)) return false;
  }
  // The order's leading aggregates decide the candidates; later keys (grouping keys among them)
  // only order groups that tie on those, and every group tying with the k-th is kept.
  const size_t na = aggs.size();
  std::vector<int> which;
  for (size_t o = 0; o < q.order.size(); ++o) {
    const compiler::IrExpr& e = q.order[o].expr;
    const int a = e.kind == IrExprKind::kAlias ? proj_agg[e.alias] : order_agg[o];
    if (a < 0) break;
    which.push_back(a);
  }
  const size_t no = which.size();
  if (no == 0) return false;  // ordered by a grouping key first: the general path
  std::vector<Value> keys(nb * no);
  std::vector<Value> finished(na);
  for (size_t g = 0; g < nb; ++g) {
    // Every aggregate of every group is finished: an error (an overflowing sum) in a group that
    // will not be returned still fails the query, as on the general path.
    for (size_t a = 0; a < na; ++a) {
      OG_ASSIGN_OR_RETURN(finished[a], Finish(*aggs[a], acc[g * na + a]));
    }
    for (size_t o = 0; o < no; ++o) keys[g * no + o] = finished[static_cast<size_t>(which[o])];
  }
  auto cmp = [&](size_t a, size_t b) {
    for (size_t o = 0; o < no; ++o) {
      auto c = OrderValues(keys[a * no + o], keys[b * no + o], q.order[o].descending);
      if (c != 0) return c;
    }
    return std::weak_ordering::equivalent;
  };
  std::vector<size_t> all(nb);
  std::iota(all.begin(), all.end(), size_t{0});
  const auto k = static_cast<std::ptrdiff_t>(*q.limit);
  std::nth_element(all.begin(), all.begin() + (k - 1), all.end(), [&](size_t a, size_t b) { return cmp(a, b) < 0; });
  const size_t kth = all[static_cast<size_t>(k - 1)];
  out->clear();
  for (size_t g = 0; g < nb; ++g) {
    if (cmp(g, kth) <= 0) out->push_back(g);
  }
  return true;
}

Result<QueryResult> Aggregate(Context& ctx, const Rows& given, QueryResult res) {
  const compiler::IrQuery& q = ctx.query();
  // The rows grouped: the given ones, or with a scan (RunMatch) none at all: row i binds the scan's
  // variable to ordinal i (scan_row), and only the groups' representatives become rows (`made`).
  const std::optional<Context::Scan>& scan = ctx.scan();
  Rows made;
  const Rows* rp = &given;
  BudgetCharge made_charge(ctx);
  // `made` as `count` rows binding only the scan's variable, row j to ordinal `ordinal(j)`.
  auto make_rows = [&](size_t count, const auto& ordinal) -> Status {
    OG_RETURN_IF_ERROR(made_charge.Set(8 * uint64_t{count} * given.width));
    made.width = given.width;
    made.bound.assign(given.width, false);
    made.bound[scan->var] = true;
    made.cells.assign(count * given.width, -1);
    for (size_t j = 0; j < count; ++j) made.cells[j * given.width + scan->var] = static_cast<int64_t>(ordinal(j));
    rp = &made;
    return Status::Ok();
  };
  size_t n = scan ? scan->rows : given.size();
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
  const size_t na = aggs.size();
  // count($v) of a top-level variable counts the rows binding it: no value to build per row.
  std::vector<int> count_var(na, -1);
  for (size_t a = 0; a < na; ++a) {
    const compiler::IrExpr& arg = aggs[a]->args.at(0);
    if (aggs[a]->agg == AggFn::kCount && arg.kind == IrExprKind::kVariable && arg.var >= 0) count_var[a] = arg.var;
  }
  // Key values are a function of the bindings of the variables they mention: rows are first
  // grouped by those bindings (one entry per distinct tuple), key values are built once per
  // tuple, and tuples with equal key values are merged after sorting by them.
  std::vector<int> key_vars;
  {
    std::vector<const compiler::IrExpr*> stack;
    for (int k : q.group_keys) stack.push_back(&q.projections[k].expr);
    std::vector<bool> seen(rp->width, false);
    while (!stack.empty()) {
      const compiler::IrExpr* e = stack.back();
      stack.pop_back();
      if ((e->kind == IrExprKind::kProperty || e->kind == IrExprKind::kVariable) && e->var >= 0 &&
          static_cast<size_t>(e->var) < rp->width && !seen[e->var]) {
        seen[e->var] = true;
        key_vars.push_back(e->var);
      }
      for (const auto& a : e->args) stack.push_back(&a);
    }
  }
  std::vector<Acc> acc;       // na per binding group
  std::vector<size_t> first;  // per binding group: its first row
  acc.reserve(std::min<size_t>(n, 1024) * na);
  first.reserve(std::min<size_t>(n, 1024));
  // Keys that are all (non-identity) properties: grouped by their coded column values.
  OG_ASSIGN_OR_RETURN(std::optional<KeyCoder> coder, KeyCoder::For(ctx, n));
  // Also sum/avg/min/max of an integer or date property of a bound variable: read from its column
  // (exact in any order: 128-bit integer sums, no float ties), merged like counts.
  std::vector<const format::Column*> value_col(na, nullptr);
  std::vector<int> value_var(na, -1);
  for (size_t a = 0; a < na; ++a) {
    const compiler::IrExpr& arg = aggs[a]->args.at(0);
    const TypeKind kind = arg.type.data.kind;
    const bool integer =
        kind == TypeKind::kI32 || kind == TypeKind::kI64 || kind == TypeKind::kU32 || kind == TypeKind::kU64;
    const bool dated = kind == TypeKind::kDate || kind == TypeKind::kDateTime;
    const bool fits = aggs[a]->agg == AggFn::kMin || aggs[a]->agg == AggFn::kMax
                          ? integer || dated
                          : (aggs[a]->agg == AggFn::kSum || aggs[a]->agg == AggFn::kAvg) && integer;
    if (count_var[a] >= 0 || !fits || arg.kind != IrExprKind::kProperty || arg.var < 0 ||
        q.variables[arg.var].scope != 0 || !arg.type.data.is_scalar()) {
      continue;
    }
    OG_ASSIGN_OR_RETURN(const format::Column* c, ctx.Column(ctx.TypeOf(arg.var), arg.property));
    if (c != nullptr && c->type().kind != kind) continue;
    value_var[a] = arg.var;
    value_col[a] = c;  // nullptr: the property is absent (null in every row)
  }
  // A scan is grouped without rows only on the parallel counting path below, with codes that
  // mean the same in every chunk; otherwise its rows are made here, one per ordinal.
  bool scan_rows = scan.has_value() && coder.has_value() && n >= kParallelGroupRows && coder->canonical();
  for (size_t a = 0; a < na; ++a) scan_rows = scan_rows && (count_var[a] == scan->var || value_var[a] == scan->var);
  if (scan && !scan_rows) OG_RETURN_IF_ERROR(make_rows(n, [](size_t j) { return j; }));
  // Row i of a scan: only the scan's variable is bound, to ordinal i.
  auto scan_row = [&](std::vector<int64_t>& buf, size_t i) -> const int64_t* {
    buf[scan->var] = static_cast<int64_t>(i);
    return buf.data();
  };
  const size_t tuple_width = coder ? coder->width() : std::max<size_t>(key_vars.size(), 1);
  // Two coded keys (codes < 2^32: at most one per row of a table) are one 64-bit key.
  const bool packed = coder && tuple_width == 2;
  auto pack = [](const int64_t* t) { return t[0] | (t[1] << 32); };
  TupleIndex index(packed ? 1 : tuple_width);
  std::vector<int64_t> tuple(tuple_width, 0);
  std::vector<uint32_t> by_code(64, 0);  // one coded key: code -> group + 1
  // One key variable and rows binding a good share of its table (grouping by a node over its
  // edges): an array over the table's ordinals (slot o + 1; -1 = unbound) instead of hashing.
  std::vector<uint32_t> by_ordinal;  // group + 1; 0 = none yet
  if (key_vars.size() == 1 && !coder) {
    OG_ASSIGN_OR_RETURN(const TableOrdinals* ord, ctx.Ordinals(ctx.TypeOf(key_vars[0])));
    if (n * 4 >= ord->size()) {
      OG_RETURN_IF_ERROR(ctx.Charge(4 * (uint64_t{ord->size()} + 1)));
      by_ordinal.assign(size_t{ord->size()} + 1, 0);
      // At most one group per ordinal: no regrowth (and no moving of accumulators) on the way.
      const size_t most = std::min<size_t>(n, size_t{ord->size()} + 1);
      acc.reserve(most * na);
      first.reserve(most);
    }
  }
  // Coded keys and only counts of variables (no Value per row): rows are grouped in parallel
  // chunks, each with its own codes; chunks' groups with equal keys merge below like any binding
  // groups with equal key values.
  bool counts_only = coder.has_value() && n >= kParallelGroupRows;
  bool only_counts = true;  // every aggregate a count (the direct path below)
  // Whether every binding group has its own key values (so a top-k needs only the best groups'
  // keys): coded keys number distinct values, once per coder.
  bool distinct_groups = coder.has_value();
  for (size_t a = 0; a < na; ++a) {
    counts_only = counts_only && (count_var[a] >= 0 || value_var[a] >= 0);
    only_counts = only_counts && count_var[a] >= 0;
  }
  if (counts_only) {
    const size_t parts = std::clamp<size_t>(ThreadPool::Default().size(), 1, 8);
    struct Part {
      std::vector<size_t> first;
      std::vector<Acc> acc;
    };
    std::vector<Part> part(parts);
    OG_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor(parts, [&](size_t p) -> Status {
      KeyCoder local = *coder;  // its own codes
      TupleIndex local_index(packed ? 1 : tuple_width);
      std::vector<int64_t> t(tuple_width, 0);
      std::vector<uint32_t> groups(64, 0);  // one key: code -> group + 1
      std::vector<size_t> index_group;      // local_index's id -> group
      Part& out = part[p];
      int dict_var = -1;
      const StringCodes* dict = coder->single_dict(&dict_var);  // the code is one load
      // Two keys, one of them with cached String codes (at most `base` - 1 of them): the pair is
      // the number c_dict + base * c_other, an index into `groups` while it stays small.
      size_t dict_key = 0;
      const uint64_t base = packed ? coder->dict_bound(&dict_key) : 0;
      constexpr uint64_t kPairSlots = uint64_t{1} << 20;
      const size_t begin = n * p / parts, end = n * (p + 1) / parts;  // not re-divided per row
      std::vector<int64_t> buf(rp->width, -1);
      // Every node of one table, only counted, and keys whose codes are loads with a known bound
      // (their pairs fewer than kPairSlots): each ordinal's group is one array slot.
      const uint64_t slots = tuple_width == 1 ? coder->code_bound(0)
                             : base > 0       ? base * coder->code_bound(1 - dict_key)
                                              : 0;
      if (scan_rows && only_counts && coder->direct() && slots > 0 && slots <= kPairSlots) {
        groups.assign(slots, 0);
        for (size_t i = begin; i < end; ++i) {
          const auto code = static_cast<size_t>(tuple_width == 1 ? coder->DirectCode(0, i)
                                                                 : coder->DirectCode(dict_key, i) +
                                                                       base * coder->DirectCode(1 - dict_key, i));
          uint32_t& slot = groups[code];
          if (slot == 0) {
            out.first.push_back(i);
            out.acc.resize(out.acc.size() + na);
            slot = static_cast<uint32_t>(out.first.size());
          }
          for (size_t a = 0; a < na; ++a) out.acc[(slot - 1) * na + a].count += 1;  // count($v) of the scan's $v
        }
        return Status::Ok();
      }
      for (size_t i = begin; i < end; ++i) {
        const int64_t* r = scan_rows ? scan_row(buf, i) : rp->row(i);
        if (dict != nullptr) {
          t[0] = r[dict_var] < 0 ? 0 : dict->code[static_cast<size_t>(r[dict_var])];
        } else {
          local.Code(r, t.data());
        }
        bool added = false;
        size_t g = 0;
        const uint64_t pair =
            base > 0 ? static_cast<uint64_t>(t[dict_key]) + base * static_cast<uint64_t>(t[1 - dict_key]) : kPairSlots;
        if (tuple_width == 1 || pair < kPairSlots) {
          const auto code = static_cast<size_t>(tuple_width == 1 ? static_cast<uint64_t>(t[0]) : pair);
          if (code >= groups.size()) groups.resize(std::max(code + 1, 2 * groups.size()), 0);
          added = groups[code] == 0;
          if (added) groups[code] = static_cast<uint32_t>(out.first.size() + 1);
          g = groups[code] - 1;
        } else {  // numbered by the index, in its own order: mapped to the part's group numbers
          const int64_t key = packed ? pack(t.data()) : 0;
          const size_t id = local_index.FindOrAdd(packed ? &key : t.data(), &added);
          if (added) index_group.push_back(out.first.size());
          g = index_group[id];
        }
        if (added) {
          out.first.push_back(i);
          out.acc.resize(out.acc.size() + na);
        }
        const uint64_t w = rp->mult.empty() ? 1 : rp->mult[i];
        for (size_t a = 0; a < na; ++a) {
          if (count_var[a] >= 0) {
            if (r[count_var[a]] >= 0 || rp->Collapsed(count_var[a])) out.acc[g * na + a].count += w;
            continue;
          }
          const int64_t o = r[value_var[a]];
          const format::Column* c = value_col[a];
          if (o < 0 || c == nullptr || c->IsNull(static_cast<size_t>(o))) continue;
          Accumulate(*aggs[a], c->GetValue(static_cast<size_t>(o)), w, &out.acc[g * na + a]);
        }
      }
      return Status::Ok();
    }));
    if (coder->canonical()) {  // the chunks' groups merged by the keys' canonical codes
      TupleIndex merged(2 * tuple_width);
      std::vector<int64_t> t(2 * tuple_width, 0);
      std::vector<int64_t> buf(rp->width, -1);
      for (Part& p : part) {
        for (size_t g = 0; g < p.first.size(); ++g) {
          coder->Canonical(scan_rows ? scan_row(buf, p.first[g]) : rp->row(p.first[g]), t.data());
          bool added = false;
          const size_t m = merged.FindOrAdd(t.data(), &added);
          if (added) {
            first.push_back(p.first[g]);
            acc.resize(acc.size() + na);
          }
          first[m] = std::min(first[m], p.first[g]);
          for (size_t a = 0; a < na; ++a) MergeAcc(*aggs[a], p.acc[g * na + a], &acc[m * na + a]);
        }
      }
    } else {
      distinct_groups = false;  // equal keys merge below, by value
      for (Part& p : part) {
        first.insert(first.end(), p.first.begin(), p.first.end());
        acc.insert(acc.end(), std::make_move_iterator(p.acc.begin()), std::make_move_iterator(p.acc.end()));
      }
    }
  }
  if (scan_rows) {  // the groups' representatives become the rows: group g's is row g
    OG_RETURN_IF_ERROR(make_rows(first.size(), [&](size_t g) { return first[g]; }));
    // Groups came out in order of their first ordinals, so numbering them keeps that order.
    std::iota(first.begin(), first.end(), size_t{0});
  }
  for (size_t i = 0; i < (counts_only ? 0 : n); ++i) {
    const int64_t* r = rp->row(i);
    bool added = first.empty();
    size_t g = 0;
    if (!by_ordinal.empty() && static_cast<uint64_t>(r[key_vars[0]] + 1) < by_ordinal.size()) {
      uint32_t& slot = by_ordinal[static_cast<size_t>(r[key_vars[0]] + 1)];
      added = slot == 0;
      if (added) slot = static_cast<uint32_t>(first.size() + 1);
      g = slot - 1;
    } else if (coder && tuple_width == 1) {  // one key: its code is the group's number
      coder->Code(r, tuple.data());
      const auto code = static_cast<size_t>(tuple[0]);
      if (code >= by_code.size()) by_code.resize(std::max(code + 1, 2 * by_code.size()), 0);
      added = by_code[code] == 0;
      if (added) by_code[code] = static_cast<uint32_t>(first.size() + 1);
      g = by_code[code] - 1;
    } else if (coder) {
      coder->Code(r, tuple.data());
      const int64_t key = packed ? pack(tuple.data()) : 0;
      g = index.FindOrAdd(packed ? &key : tuple.data(), &added);
    } else if (!key_vars.empty()) {
      for (size_t k = 0; k < key_vars.size(); ++k) tuple[k] = r[key_vars[k]];
      g = index.FindOrAdd(tuple.data(), &added);
    }
    if (added) {
      first.push_back(i);
      acc.resize(acc.size() + na);
    }
    const uint64_t w = rp->mult.empty() ? 1 : rp->mult[i];
    for (size_t a = 0; a < na; ++a) {
      Acc& x = acc[g * na + a];
      if (count_var[a] >= 0) {
        if (r[count_var[a]] >= 0 || rp->Collapsed(count_var[a])) x.count += w;
        continue;
      }
      OG_ASSIGN_OR_RETURN(Value v, ctx.Eval(aggs[a]->args.at(0), r));
      if (!v.is_null()) Accumulate(*aggs[a], std::move(v), w, &x);
    }
  }
  const size_t nk = q.group_keys.size();
  const size_t nb = first.size();
  // The binding groups to build key values for: all, or only the top-k candidates (TopGroups).
  std::vector<size_t> order;
  OG_ASSIGN_OR_RETURN(bool top, TopGroups(ctx, aggs, proj_agg, order_agg, acc, nb, distinct_groups, &order));
  if (!top) {
    order.resize(nb);
    std::iota(order.begin(), order.end(), size_t{0});
  }
  std::vector<Value> bkeys(nb * nk);  // key values per binding group (of `order`)
  for (size_t g : order) {
    for (size_t k = 0; k < nk; ++k) {
      OG_ASSIGN_OR_RETURN(Value v, ctx.Eval(q.projections[q.group_keys[k]].expr, rp->row(first[g])));
      bkeys[g * nk + k] = CanonicalKey(std::move(v));
    }
  }
  auto key_cmp = [&](size_t a, size_t b) {
    for (size_t k = 0; k < nk; ++k) {
      auto c = bkeys[a * nk + k].Compare(bkeys[b * nk + k]);
      if (c != 0) return c;
    }
    return std::weak_ordering::equivalent;
  };
  if (nk > 0) SortByKeys(bkeys, nk, &order);
  // Groups in grouping-key order: runs of binding groups with equal keys merged into the first.
  struct Group {
    size_t rep;    // binding group whose keys and accumulators the group uses
    size_t first;  // the group's first row (order expressions evaluate on it)
  };
  std::vector<Group> groups;
  for (size_t j = 0; j < order.size(); ++j) {
    const size_t g = order[j];
    if (!groups.empty() && key_cmp(groups.back().rep, g) == 0) {
      Group& into = groups.back();
      for (size_t a = 0; a < na; ++a) MergeAcc(*aggs[a], acc[g * na + a], &acc[into.rep * na + a]);
      into.first = std::min(into.first, first[g]);
      continue;
    }
    groups.push_back(Group{g, first[g]});
  }
  std::vector<int64_t> unbound(rp->width, -1);
  const bool empty_group = groups.empty() && nk == 0;
  if (empty_group) {  // count of an empty match: one row
    acc.assign(na, Acc());
    groups.push_back(Group{0, 0});
  }
  // Finished values per group, then order keys when the query orders.
  std::vector<std::vector<Value>> values(groups.size());
  std::vector<Value> okeys(q.order.empty() ? 0 : groups.size() * q.order.size());
  std::vector<Value> finished(na);
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const Group& g = groups[gi];
    for (size_t a = 0; a < na; ++a) {
      OG_ASSIGN_OR_RETURN(finished[a], Finish(*aggs[a], acc[g.rep * na + a]));
    }
    values[gi].reserve(q.projections.size());
    size_t k = 0;
    for (size_t p = 0; p < q.projections.size(); ++p) {
      values[gi].push_back(proj_agg[p] >= 0 ? finished[proj_agg[p]] : std::move(bkeys[g.rep * nk + k++]));
    }
    for (size_t o = 0; o < q.order.size(); ++o) {
      const compiler::IrExpr& e = q.order[o].expr;
      Value& key = okeys[gi * q.order.size() + o];
      if (e.kind == IrExprKind::kAlias) {
        key = values[gi][e.alias];
      } else if (order_agg[o] >= 0) {
        key = finished[order_agg[o]];
      } else {
        OG_ASSIGN_OR_RETURN(key, ctx.Eval(e, empty_group ? unbound.data() : rp->row(g.first)));
      }
    }
  }
  std::vector<size_t> idx(groups.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  if (!q.order.empty()) {  // then the grouping keys (the groups' current order; distinct per group)
    SortAndCut(&idx, q.limit, [&](size_t a, size_t b) {
      for (size_t k = 0; k < q.order.size(); ++k) {
        auto c = OrderValues(okeys[a * q.order.size() + k], okeys[b * q.order.size() + k], q.order[k].descending);
        if (c != 0) return c < 0;
      }
      return a < b;
    });
  } else if (q.limit && *q.limit < idx.size()) {
    idx.resize(*q.limit);
  }
  res.rows.reserve(idx.size());
  for (size_t i : idx) res.rows.push_back(std::move(values[i]));
  return res;
}

}  // namespace

Result<std::vector<size_t>> OrderRows(Context& ctx, const Rows& rows, std::optional<uint64_t> limit) {
  const compiler::IrQuery& q = ctx.query();
  const size_t n = rows.size();
  if (UsesRrf(q)) OG_RETURN_IF_ERROR(ctx.PrepareRrf(rows));
  // Order keys per row (aliases evaluate their projection), then the ids of the bound top-level
  // variables in binding order. A ranking key also decides whether the row is in the result at
  // all: nearest() needs a vector, bm25() a matching term, rrf() an entity in one of its arms
  // (docs/search.md). rrf() orders by its fused position (best first, ties as fused).
  const size_t m = q.order.size();
  std::vector<Value> keys;  // the j-th ranked row's keys at [j * m, (j + 1) * m)
  std::vector<bool> desc;
  // nearest() distances of every row at once (one column lookup, a tight loop).
  std::vector<std::vector<double>> batched(m);
  for (size_t k = 0; k < m; ++k) {
    const auto& o = q.order[k];
    const compiler::IrExpr& e = o.expr.kind == IrExprKind::kAlias ? q.projections[o.expr.alias].expr : o.expr;
    desc.push_back(e.kind == IrExprKind::kRrf ? false : o.descending);
    if (e.kind == IrExprKind::kNearest && n > 0) {
      OG_RETURN_IF_ERROR(ctx.NearestDistances(e, rows, &batched[k], k == 0 ? limit : std::nullopt));
    }
  }
  // A nearest()-first ranking with a limit: only rows at or under the limit-th smallest distance
  // can be in the result (ties included, for the later keys), so only theirs get keys.
  double cut = std::numeric_limits<double>::infinity();
  if (limit && *limit > 0 && m > 0 && !batched[0].empty() && !desc[0]) {
    std::vector<double> d;
    d.reserve(n);
    for (double x : batched[0]) {
      if (!std::isnan(x)) d.push_back(x);
    }
    if (d.size() > *limit) {
      std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(*limit - 1), d.end());
      cut = d[*limit - 1];
    }
  }
  OG_ASSIGN_OR_RETURN(std::vector<uint8_t> shortlist, Shortlist(ctx, n, limit, desc, RowCell{&rows}));
  std::vector<size_t> ranked;  // the rows in the result, in row order
  ranked.reserve(n);
  std::vector<Value> row_keys(m);
  for (size_t i = 0; i < n; ++i) {
    if (!shortlist.empty() && !shortlist[i]) continue;
    bool ranked_out = false;
    for (size_t k = 0; k < m && !ranked_out; ++k) ranked_out = !batched[k].empty() && std::isnan(batched[k][i]);
    ranked_out = ranked_out || (m > 0 && !batched[0].empty() && batched[0][i] > cut);
    if (ranked_out) continue;  // no distance: out of the result whatever its other keys
    for (size_t k = 0; k < m; ++k) {
      const auto& o = q.order[k];
      const compiler::IrExpr& e = o.expr.kind == IrExprKind::kAlias ? q.projections[o.expr.alias].expr : o.expr;
      Value v;
      if (!batched[k].empty()) {
        const double d = batched[k][i];
        ranked_out = ranked_out || std::isnan(d);
        v = std::isnan(d) ? Value::Null(DataType::Scalar(TypeKind::kF64)) : Value::F64(d);
      } else if (e.kind == IrExprKind::kRrf) {
        OG_ASSIGN_OR_RETURN(std::optional<int64_t> pos, ctx.RrfPosition(e, rows.row(i)));
        v = pos ? Value::I64(*pos) : Value::Null(DataType::Scalar(TypeKind::kI64));
        ranked_out = ranked_out || !pos;
      } else {
        OG_ASSIGN_OR_RETURN(v, ctx.Eval(e, rows.row(i)));
        if (e.kind == IrExprKind::kNearest) ranked_out = ranked_out || v.is_null();
        if (e.kind == IrExprKind::kBm25) ranked_out = ranked_out || v.is_null() || !(v.float_value() > 0);
      }
      row_keys[k] = std::move(v);
    }
    if (ranked_out) continue;
    ranked.push_back(i);
    for (Value& v : row_keys) keys.push_back(std::move(v));
  }
  std::vector<size_t> idx(ranked.size());  // positions into `ranked`
  for (size_t j = 0; j < idx.size(); ++j) idx[j] = j;
  std::vector<int> tie_vars;
  // Ids from the variable's ordinals when the query loaded them (no id column read), else
  // from its id column.
  std::vector<const TableOrdinals*> tie_ords;
  std::vector<const format::Column*> tie_ids;
  // Paths tie by their node ids in order (PathNodeIds).
  std::vector<std::optional<PathNodeIds>> tie_paths;
  for (size_t v = 0; v < q.variables.size(); ++v) {
    if (q.variables[v].scope != 0) continue;
    if (q.variables[v].kind == compiler::VarKind::kPath) {
      OG_ASSIGN_OR_RETURN(PathNodeIds ids, ctx.PathIds(static_cast<int>(v)));
      tie_vars.push_back(static_cast<int>(v));
      tie_paths.push_back(std::move(ids));
      tie_ords.push_back(nullptr);
      tie_ids.push_back(nullptr);
      continue;
    }
    tie_paths.emplace_back();
    tie_vars.push_back(static_cast<int>(v));
    const TableOrdinals* ord = ctx.LoadedOrdinals(ctx.TypeOf(static_cast<int>(v)));
    const format::Column* c = nullptr;
    if (ord == nullptr && n > 1) {
      // A few rows: their ids by point reads (PrefetchIds); else the id column.
      constexpr size_t kPointTies = 64;
      const std::string& type = ctx.TypeOf(static_cast<int>(v));
      bool point = n <= kPointTies;
      if (point) {
        std::vector<int64_t> ordinals;
        for (size_t r : ranked) ordinals.push_back(rows.row(r)[v]);
        OG_RETURN_IF_ERROR(ctx.PrefetchIds(type, ordinals));
        ord = ctx.LoadedOrdinals(type);  // (PrefetchIds takes the type's ordinals when they are cached)
        for (int64_t o : ordinals) point = point && (ord != nullptr || o < 0 || ctx.PointId(type, o));
      }
      if (!point && ord == nullptr) {
        OG_ASSIGN_OR_RETURN(c, ctx.Column(type, "id"));
      }
    }
    tie_ords.push_back(ord);
    tie_ids.push_back(c);
  }
  auto id_of = [&](size_t row, size_t k) -> std::string_view {
    int64_t o = rows.row(row)[tie_vars[k]];
    if (o < 0) return std::string_view();
    if (tie_ords[k] != nullptr) return tie_ords[k]->id(static_cast<uint32_t>(o));
    if (tie_ids[k] != nullptr) return tie_ids[k]->string_at(static_cast<size_t>(o));
    return ctx.PointId(ctx.TypeOf(tie_vars[k]), o).value_or(std::string_view());
  };
  SortAndCut(&idx, limit, [&](size_t a, size_t b) {
    for (size_t k = 0; k < q.order.size(); ++k) {
      auto c = OrderValues(keys[a * m + k], keys[b * m + k], desc[k]);
      if (c != 0) return c < 0;
    }
    for (size_t k = 0; k < tie_vars.size(); ++k) {
      const int c = tie_paths[k]
                        ? tie_paths[k]->Compare(rows.row(ranked[a])[tie_vars[k]], rows.row(ranked[b])[tie_vars[k]])
                        : id_of(ranked[a], k).compare(id_of(ranked[b], k));
      if (c != 0) return c < 0;
    }
    return a < b;
  });
  for (size_t& j : idx) j = ranked[j];
  return idx;
}

// Rows a nearest()-first ranking collects before it prunes to its limit.
constexpr uint64_t kRankRowsBeforePrune = uint64_t{1} << 20;

RowCollector::RowCollector(Context& ctx, size_t width, std::optional<uint64_t> keep, bool stop_at_keep)
    : ctx_(ctx), keep_(keep), stop_(stop_at_keep), charge_(ctx) {
  rows_.width = width;
  rows_.bound.assign(width, false);
}

Status RowCollector::Add(Rows rows) {
  if (rows.size() == 0) return Status::Ok();
  if (count_only_) {
    if (rows.mult.empty()) count_ += rows.size();
    for (uint64_t m : rows.mult) count_ += m;
    return Status::Ok();
  }
  OG_RETURN_IF_ERROR(charge_.Add(RowBytes(rows)));
  if (rows_.cells.empty()) {  // the first rows: taken, not copied
    rows_.bound = rows.bound;
    rows_.collapsed = rows.collapsed;
    rows_.cells = std::move(rows.cells);
    rows_.mult = std::move(rows.mult);
  } else {
    rows_.cells.insert(rows_.cells.end(), rows.cells.begin(), rows.cells.end());
    rows_.mult.insert(rows_.mult.end(), rows.mult.begin(), rows.mult.end());
  }
  // The expected rows' room, made once: only without a limit, and only when it is a small share of
  // the query's memory budget (the rows are charged as they arrive, not when room is made).
  if (expect_ > 0 && !keep_) {
    const size_t cells = std::max(rows_.cells.size(), expect_ * rows_.width);
    if (cells > rows_.cells.capacity() && cells * sizeof(int64_t) <= ctx_.budget() / 4) rows_.cells.reserve(cells);
    expect_ = 0;
  }
  // A limit keeps the best rows seen so far once twice as many (and a batch's worth) arrived. A
  // nearest() ranking waits for more (up to kRankRowsBeforePrune), so that one ANN search sees
  // the whole candidate set (executor_search.cc) instead of one per batch.
  uint64_t batch = 4096;
  const auto& order = ctx_.query().order;
  if (!order.empty()) {
    const compiler::IrExpr& first =
        order[0].expr.kind == IrExprKind::kAlias ? ctx_.query().projections[order[0].expr.alias].expr : order[0].expr;
    if (first.kind == IrExprKind::kNearest) batch = kRankRowsBeforePrune;
  }
  if (keep_ && !stop_ && rows_.size() > std::max<uint64_t>(2 * *keep_, batch)) return Prune();
  return Status::Ok();
}

Status RowCollector::Prune() {
  OG_ASSIGN_OR_RETURN(std::vector<size_t> idx, OrderRows(ctx_, rows_, keep_));
  Rows kept;
  kept.width = rows_.width;
  kept.bound = rows_.bound;
  kept.collapsed = rows_.collapsed;
  kept.cells.reserve(idx.size() * rows_.width);
  for (size_t i : idx) {
    kept.Append(rows_.row(i));
    if (!rows_.mult.empty()) kept.mult.push_back(rows_.mult[i]);
  }
  rows_ = std::move(kept);
  return charge_.Set(RowBytes(rows_));
}

Result<std::vector<Value>> ProjectRow(Context& ctx, const Rows& rows, size_t i) {
  std::vector<Value> out;
  out.reserve(ctx.query().projections.size());
  for (const auto& p : ctx.query().projections) {
    OG_ASSIGN_OR_RETURN(Value v, ctx.Eval(p.expr, rows.row(i)));
    out.push_back(std::move(v));
  }
  return out;
}

Result<QueryResult> BuildResult(Context& ctx, const Rows& rows) {
  const compiler::IrQuery& q = ctx.query();
  QueryResult res;
  for (const auto& p : q.projections) {
    res.columns.push_back(p.name);
    res.types.push_back(p.expr.type);
  }
  const size_t n = rows.size();
  if (!q.has_aggregate) {
    // A point query (a few rows): read the projected and ordering node properties of those rows
    // only, not their whole columns.
    constexpr size_t kPointRows = 64;
    if (n <= kPointRows) {
      std::vector<const compiler::IrExpr*> exprs;
      for (const auto& p : q.projections) exprs.push_back(&p.expr);
      for (const auto& o : q.order) {
        exprs.push_back(o.expr.kind == IrExprKind::kAlias ? &q.projections[o.expr.alias].expr : &o.expr);
      }
      std::vector<size_t> all(n);
      std::iota(all.begin(), all.end(), size_t{0});
      OG_RETURN_IF_ERROR(ctx.PrefetchPoints(exprs, rows, all));
    }
    OG_ASSIGN_OR_RETURN(std::vector<size_t> idx, OrderRows(ctx, rows, q.limit));
    // The result's values: charged to the budget as about 48 bytes a value.
    OG_RETURN_IF_ERROR(ctx.Charge(48 * idx.size() * std::max<size_t>(q.projections.size(), 1)));
    res.rows.reserve(idx.size());
    for (size_t i : idx) {
      OG_ASSIGN_OR_RETURN(std::vector<Value> out, ProjectRow(ctx, rows, i));
      res.rows.push_back(std::move(out));
    }
    return res;
  }
  if (UsesRrf(q)) OG_RETURN_IF_ERROR(ctx.PrepareRrf(rows));
  return Aggregate(ctx, rows, std::move(res));
}

}  // namespace omnigraph::engine::exec
