// The executor's per-query context (executor_internal.h): table versions, cached ordinals, columns
// and CSR adjacency of the query's types, and per-row expression evaluation.
#include <algorithm>
#include <cmath>
#include <compare>
#include <cstring>
#include <optional>

#include "common/error_codes.h"
#include "common/thread_pool.h"
#include "engine/exec/executor_internal.h"
#include "table/sorted_index.h"

namespace omnigraph::engine {
namespace exec {

using compiler::CompareOp;
using compiler::IrExpr;
using compiler::IrExprKind;

Result<const table::TableVersion*> Context::Table(const std::string& type) {
  auto it = tables_.find(type);
  if (it != tables_.end()) return &it->second;
  OG_ASSIGN_OR_RETURN(table::TableVersion t, snap_.Table(type));
  return &tables_.emplace(type, std::move(t)).first->second;
}

Result<const TableOrdinals*> Context::Ordinals(const std::string& type) {
  auto it = ordinals_.find(type);
  if (it != ordinals_.end()) return it->second.get();
  OG_ASSIGN_OR_RETURN(const table::TableVersion* t, Table(type));
  OG_ASSIGN_OR_RETURN(auto o, cache_->Ordinals(*t, snap_.derived()));
  return ordinals_.emplace(type, std::move(o)).first->second.get();
}

Result<const format::Column*> Context::Column(const std::string& type, const std::string& column) {
  std::string key = type + '\x1f' + column;
  auto it = columns_.find(key);
  if (it != columns_.end()) return it->second.get();
  OG_ASSIGN_OR_RETURN(const table::TableVersion* t, Table(type));
  OG_ASSIGN_OR_RETURN(auto c, cache_->ColumnFor(*t, column));
  return columns_.emplace(key, std::move(c)).first->second.get();
}

Result<const ZoneMap*> Context::ZonesOf(const std::string& type, const std::string& column, const format::Column* c) {
  if (c == nullptr || c->length() < kMaskRows) return nullptr;
  const TypeKind kind = c->type().kind;
  if (kind != TypeKind::kI32 && kind != TypeKind::kI64 && kind != TypeKind::kDate && kind != TypeKind::kDateTime) {
    return nullptr;
  }
  const std::string key = type + '\x1f' + column;
  if (auto it = zones_.find(key); it != zones_.end()) return it->second.get();
  OG_ASSIGN_OR_RETURN(const table::TableVersion* t, Table(type));
  OG_ASSIGN_OR_RETURN(auto z, cache_->DerivedFor<ZoneMap>(*t, "zones", column, [&]() -> Result<ZoneMap> {
    std::optional<ZoneMap> built = ZoneMap::Of(*c);
    if (!built) return InternalError("zone map of a column of another kind");
    return std::move(*built);
  }));
  return zones_.emplace(key, std::move(z)).first->second.get();
}

namespace {
std::optional<CompareOp> Mirror(CompareOp op);  // below

// The table field of `type`'s property when the property has a sorted index (`@index` on an
// integer or date property) the table can hold as sorted runs; nullptr otherwise.
const table::Field* SortedField(const compiler::Catalog& catalog, const table::TableVersion& t, const std::string& type,
                                const std::string& property) {
  const compiler::Property* p = nullptr;
  if (const compiler::NodeType* n = catalog.FindNode(type)) p = n->FindProperty(property);
  if (const compiler::EdgeType* e = catalog.FindEdge(type); p == nullptr && e != nullptr) p = e->FindProperty(property);
  if (p == nullptr || p->index != compiler::IndexKind::kSorted) return nullptr;
  const table::Field* f = t.schema().FindByName(property);
  return f != nullptr && table::SortableField(t.schema(), f->id) ? f : nullptr;
}
}  // namespace

Result<std::optional<std::vector<uint32_t>>> Context::SortedMatch(const std::string& type, const std::string& property,
                                                                  std::span<const SortedTest> tests, uint64_t max_hits,
                                                                  std::vector<bool>* used) {
  using Answer = std::optional<std::vector<uint32_t>>;
  used->assign(tests.size(), false);
  OG_ASSIGN_OR_RETURN(const table::TableVersion* t, Table(type));
  const table::Field* f = SortedField(snap_.catalog(), *t, type, property);
  if (f == nullptr) return Answer();
  // The stored integers compare as MaskByColumn compares them: integers against integers, a
  // Date against a Date, a DateTime against a DateTime.
  const TypeKind kind = f->type.kind;
  table::IntRange r;
  bool any = false, empty = false;
  for (size_t i = 0; i < tests.size(); ++i) {
    const Value& v = *tests[i].value;
    if (v.is_null()) continue;
    const bool ints = (kind == TypeKind::kI32 || kind == TypeKind::kI64) &&
                      (v.kind() == TypeKind::kI32 || v.kind() == TypeKind::kI64);
    if (!ints && v.kind() != kind) continue;
    std::optional<CompareOp> op = tests[i].constant_left ? Mirror(tests[i].op) : std::optional<CompareOp>(tests[i].op);
    if (!op) continue;
    const int64_t x = v.int_value();
    switch (*op) {
      case CompareOp::kEq:
        r.lo = std::max(r.lo, x);
        r.hi = std::min(r.hi, x);
        break;
      case CompareOp::kLt:
        if (x == INT64_MIN)
          empty = true;
        else
          r.hi = std::min(r.hi, x - 1);
        break;
      case CompareOp::kLe: r.hi = std::min(r.hi, x); break;
      case CompareOp::kGt:
        if (x == INT64_MAX)
          empty = true;
        else
          r.lo = std::max(r.lo, x + 1);
        break;
      case CompareOp::kGe: r.lo = std::max(r.lo, x); break;
      default: continue;
    }
    (*used)[i] = any = true;
  }
  if (!any) return Answer();
  if (empty) r = table::IntRange{1, 0};
  table::SortedStats stats;
  OG_ASSIGN_OR_RETURN(Answer got, table::SortedPositions(*t, f->id, r, max_hits, &stats));
  if (got) {
    cache_->CountSorted(stats.runs_built);
  } else {
    used->assign(tests.size(), false);
  }
  return got;
}

Status Context::NoteSelectiveScan(const std::string& type, const std::string& property) {
  OG_ASSIGN_OR_RETURN(const table::TableVersion* t, Table(type));
  if (const table::Field* f = SortedField(snap_.catalog(), *t, type, property)) table::NoteSelectiveScan(*t, f->id);
  return Status::Ok();
}

Result<std::shared_ptr<const StringCodes>> Context::CodesOf(const std::string& type, const std::string& column,
                                                            bool build) {
  OG_ASSIGN_OR_RETURN(const table::TableVersion* t, Table(type));
  return cache_->StringCodesFor(*t, column, build);
}

Result<const Csr*> Context::CsrFor(const std::string& edge_type) {
  auto it = csrs_.find(edge_type);
  if (it != csrs_.end()) return it->second.get();
  const compiler::EdgeType* e = snap_.catalog().FindEdge(edge_type);
  if (e == nullptr) return NotFoundError("unknown edge type " + edge_type);
  OG_ASSIGN_OR_RETURN(const table::TableVersion* et, Table(edge_type));
  OG_ASSIGN_OR_RETURN(const table::TableVersion* from, Table(e->from_type));
  OG_ASSIGN_OR_RETURN(const table::TableVersion* to, Table(e->to_type));
  OG_ASSIGN_OR_RETURN(auto c, cache_->CsrFor(*et, *from, *to, snap_.derived()));
  return csrs_.emplace(edge_type, std::move(c)).first->second.get();
}

Result<const EdgeEnds*> Context::EdgeEndsFor(const std::string& edge_type) {
  auto it = edge_ends_.find(edge_type);
  if (it != edge_ends_.end()) return it->second.get();
  OG_ASSIGN_OR_RETURN(const Csr* csr, CsrFor(edge_type));  // checks the type
  const compiler::EdgeType* e = snap_.catalog().FindEdge(edge_type);
  OG_ASSIGN_OR_RETURN(const table::TableVersion* et, Table(edge_type));
  OG_ASSIGN_OR_RETURN(const table::TableVersion* from, Table(e->from_type));
  OG_ASSIGN_OR_RETURN(const table::TableVersion* to, Table(e->to_type));
  auto ends = cache_->EdgeEndsFor(*et, *from, *to, *csr);
  return edge_ends_.emplace(edge_type, std::move(ends)).first->second.get();
}

Result<const EdgeEnds*> Context::CachedEdgeEnds(const std::string& edge_type) {
  if (auto it = edge_ends_.find(edge_type); it != edge_ends_.end()) return it->second.get();
  const compiler::EdgeType* e = snap_.catalog().FindEdge(edge_type);
  if (e == nullptr) return NotFoundError("unknown edge type " + edge_type);
  OG_ASSIGN_OR_RETURN(const table::TableVersion* et, Table(edge_type));
  OG_ASSIGN_OR_RETURN(const table::TableVersion* from, Table(e->from_type));
  OG_ASSIGN_OR_RETURN(const table::TableVersion* to, Table(e->to_type));
  auto ends = cache_->CachedEdgeEnds(*et, *from, *to);
  if (ends == nullptr) return nullptr;
  return edge_ends_.emplace(edge_type, std::move(ends)).first->second.get();
}

const TableOrdinals* Context::LoadedOrdinals(const std::string& type) const {
  auto it = ordinals_.find(type);
  return it == ordinals_.end() ? nullptr : it->second.get();
}

Result<std::string_view> Context::IdOf(const std::string& type, int64_t ordinal) {
  if (ordinal < 0) return std::string_view();
  if (const TableOrdinals* ord = LoadedOrdinals(type)) return ord->id(static_cast<uint32_t>(ordinal));
  if (auto id = PointId(type, ordinal)) return *id;
  OG_ASSIGN_OR_RETURN(const format::Column* ids, Column(type, "id"));
  if (ids == nullptr) return InternalError("table " + type + " has no id column");
  return ids->string_at(static_cast<size_t>(ordinal));
}

Status Context::Charge(uint64_t bytes) {
  if (parent_ != nullptr) return parent_->Charge(bytes);
  if (bytes > budget_ || used_ > budget_ - bytes) {
    return Status(ErrorCode::kResourceExhausted,
                  "the query needs more memory than its budget of " + std::to_string(budget_) +
                      " bytes (rows in flight and kept for the result); narrow the match, add a limit, or "
                      "raise the budget (omnigraph query --max-memory SIZE, OpenOptions::max_query_memory_bytes)");
  }
  used_ += bytes;
  return Status::Ok();
}

bool Context::IsConstant(const IrExpr& e) {
  return e.kind == IrExprKind::kLiteral || e.kind == IrExprKind::kParam || e.kind == IrExprKind::kNow;
}

Result<Value> Context::Eval(const IrExpr& e, const int64_t* row) {
  switch (e.kind) {
    case IrExprKind::kLiteral: return e.literal;
    case IrExprKind::kParam: {
      auto it = params_.find(e.param);
      if (it == params_.end()) return InvalidArgumentError("parameter $" + e.param + " has no value");
      return it->second;
    }
    case IrExprKind::kNow: return Value::DateTime(now_ms_);
    case IrExprKind::kProperty: {
      if (row == nullptr || row[e.var] < 0) return Value::Null(e.type.data);
      if (auto pv = point_values_.find(&e); pv != point_values_.end()) {
        if (auto it = pv->second.find(row[e.var]); it != pv->second.end()) return it->second;
      }
      const format::Column* c = nullptr;
      if (auto it = expr_columns_.find(&e); it != expr_columns_.end()) {
        c = it->second;
      } else {
        OG_ASSIGN_OR_RETURN(c, Column(TypeOf(e.var), e.property));
        expr_columns_.emplace(&e, c);
      }
      if (c == nullptr) return Value::Null(e.type.data);
      return c->GetValue(static_cast<size_t>(row[e.var]));
    }
    case IrExprKind::kVariable: {
      if (row == nullptr || row[e.var] < 0) return Value::Null();
      OG_ASSIGN_OR_RETURN(std::string_view id, Id(e.var, row[e.var]));
      return Value::String(std::string(id));
    }
    case IrExprKind::kAggregate: return InternalError("aggregate evaluated per row");
    case IrExprKind::kAlias: return InternalError("alias evaluated per row");
    case IrExprKind::kPathLength:
    case IrExprKind::kPathNodes:
    case IrExprKind::kPathEdges:
    case IrExprKind::kPathCost: return EvalPath(e, row);
    default: return EvalSearch(e, row);
  }
}

namespace {

bool Holds(CompareOp op, std::weak_ordering c) {
  switch (op) {
    case CompareOp::kEq: return c == 0;
    case CompareOp::kNe: return c != 0;
    case CompareOp::kLt: return c < 0;
    case CompareOp::kLe: return c <= 0;
    case CompareOp::kGt: return c > 0;
    case CompareOp::kGe: return c >= 0;
    default: return false;
  }
}

// `op` with its operands swapped (a op b <=> b Mirror(op) a); nullopt for contains/starts_with.
std::optional<CompareOp> Mirror(CompareOp op) {
  switch (op) {
    case CompareOp::kEq:
    case CompareOp::kNe: return op;
    case CompareOp::kLt: return CompareOp::kGt;
    case CompareOp::kLe: return CompareOp::kGe;
    case CompareOp::kGt: return CompareOp::kLt;
    case CompareOp::kGe: return CompareOp::kLe;
    default: return std::nullopt;
  }
}

// Value::Compare of two doubles: NaN equals NaN and sorts above every number; -0 equals 0.
std::weak_ordering CompareDoubles(double x, double y) {
  const bool xn = std::isnan(x), yn = std::isnan(y);
  if (xn || yn)
    return xn == yn ? std::weak_ordering::equivalent : xn ? std::weak_ordering::greater : std::weak_ordering::less;
  return x < y ? std::weak_ordering::less : x > y ? std::weak_ordering::greater : std::weak_ordering::equivalent;
}

}  // namespace

namespace {

// What a block's [lo, hi] (its smallest and largest value) says of `y op x` for each of its rows:
// -1 none holds, 1 all hold, 0 read the values. (An all-null block, lo > hi: none.)
int ZoneVerdict(int64_t lo, int64_t hi, int64_t x, CompareOp op) {
  if (lo > hi) return -1;
  switch (op) {
    case CompareOp::kEq: return x < lo || x > hi ? -1 : lo == hi ? 1 : 0;
    case CompareOp::kNe: return x < lo || x > hi ? 1 : lo == hi ? -1 : 0;
    case CompareOp::kLt: return hi < x ? 1 : lo >= x ? -1 : 0;
    case CompareOp::kLe: return hi <= x ? 1 : lo > x ? -1 : 0;
    case CompareOp::kGt: return lo > x ? 1 : hi <= x ? -1 : 0;
    case CompareOp::kGe: return lo >= x ? 1 : hi < x ? -1 : 0;
    default: return 0;
  }
}

template <class T, class X>
void MaskCompare(std::span<const T> col, X x, CompareOp op, uint8_t* m, const ZoneMap* zones = nullptr) {
  const size_t n = col.size();
  // Large columns (an edge table's) in chunks on the pool: a pass is memory bound per core.
  constexpr size_t kChunk = size_t{1} << 18;
  static_assert(kChunk % ZoneMap::kBlock == 0);
  auto each = [&](auto holds) {
    auto run = [&, holds](size_t ch) {
      // Local copies: a byte store may alias anything, so values read through the captures would
      // be reloaded after every store (and the loop not vectorized).
      const T* values = col.data();
      uint8_t* bytes = m;
      const auto test = holds;
      const size_t chunk_end = std::min(n, (ch + 1) * kChunk);
      if (zones == nullptr) {
        for (size_t i = ch * kChunk; i < chunk_end; ++i)
          bytes[i] &= static_cast<uint8_t>(test(static_cast<X>(values[i])));
        return Status::Ok();
      }
      for (size_t b0 = ch * kChunk; b0 < chunk_end; b0 += ZoneMap::kBlock) {
        const size_t end = std::min(chunk_end, b0 + ZoneMap::kBlock), z = b0 / ZoneMap::kBlock;
        const int verdict = ZoneVerdict(zones->min[z], zones->max[z], static_cast<int64_t>(x), op);
        if (verdict < 0) {
          std::memset(bytes + b0, 0, end - b0);
        } else if (verdict == 0) {
          for (size_t i = b0; i < end; ++i) bytes[i] &= static_cast<uint8_t>(test(static_cast<X>(values[i])));
        }
      }
      return Status::Ok();
    };
    const size_t chunks = (n + kChunk - 1) / kChunk;
    if (chunks < 4) {
      for (size_t ch = 0; ch < chunks; ++ch) (void)run(ch);
    } else {
      ThreadPool::Default().ParallelFor(chunks, run).IgnoreError();
    }
  };
  switch (op) {
    case CompareOp::kEq: return each([x](X y) { return y == x; });
    case CompareOp::kNe: return each([x](X y) { return y != x; });
    case CompareOp::kLt: return each([x](X y) { return y < x; });
    case CompareOp::kLe: return each([x](X y) { return y <= x; });
    case CompareOp::kGt: return each([x](X y) { return y > x; });
    case CompareOp::kGe: return each([x](X y) { return y >= x; });
    default: return;
  }
}

}  // namespace

std::optional<ZoneMap> ZoneMap::Of(const format::Column& c) {
  const TypeKind kind = c.type().kind;
  auto build = [&](auto values) {
    ZoneMap z;
    const size_t n = values.size(), blocks = (n + kBlock - 1) / kBlock;
    z.min.assign(blocks, INT64_MAX);
    z.max.assign(blocks, INT64_MIN);
    for (size_t b = 0; b < blocks; ++b) {
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (size_t i = b * kBlock, end = std::min(n, (b + 1) * kBlock); i < end; ++i) {
        if (c.has_nulls() && !c.IsValid(i)) continue;
        lo = std::min<int64_t>(lo, values[i]);
        hi = std::max<int64_t>(hi, values[i]);
      }
      z.min[b] = lo;
      z.max[b] = hi;
    }
    return z;
  };
  switch (kind) {
    case TypeKind::kI32:
    case TypeKind::kDate: return build(c.i32_values());
    case TypeKind::kI64:
    case TypeKind::kDateTime: return build(c.i64_values());
    default: return std::nullopt;
  }
}

bool MaskByColumn(const format::Column* c, CompareOp op, const Value& v, bool constant_left, std::vector<uint8_t>* mask,
                  const ZoneMap* zones) {
  if (c == nullptr || v.is_null()) {  // a missing column reads as null: nothing satisfies
    std::fill(mask->begin(), mask->end(), 0);
    return true;
  }
  std::optional<CompareOp> col_op = Mirror(op);
  if (!col_op) return false;
  if (!constant_left) col_op = op;
  const TypeKind kind = c->type().kind;
  auto is_signed = [](TypeKind k) {
    return k == TypeKind::kI32 || k == TypeKind::kI64 || k == TypeKind::kDate || k == TypeKind::kDateTime;
  };
  auto is_unsigned = [](TypeKind k) { return k == TypeKind::kU32 || k == TypeKind::kU64; };
  if (c->length() != mask->size()) return false;
  // A Date against a Date (or DateTime against DateTime) compares the stored integers; mixed dates
  // compare by the per-row rule (Date against DateTime, ISO strings): FilterByColumn.
  if ((kind == TypeKind::kDate || kind == TypeKind::kDateTime) && v.kind() != kind) return false;
  if (zones != nullptr && (zones->min.size() != (c->length() + ZoneMap::kBlock - 1) / ZoneMap::kBlock ||
                           !is_signed(kind) || !is_signed(v.kind()))) {
    zones = nullptr;
  }
  uint8_t* m = mask->data();
  if (kind == v.kind() ||
      (is_signed(kind) && is_signed(v.kind()) && kind != TypeKind::kDate && kind != TypeKind::kDateTime &&
       v.kind() != TypeKind::kDate && v.kind() != TypeKind::kDateTime)) {
    switch (kind) {
      case TypeKind::kI32:
      case TypeKind::kDate: MaskCompare(c->i32_values(), v.int_value(), *col_op, m, zones); break;
      case TypeKind::kI64:
      case TypeKind::kDateTime: MaskCompare(c->i64_values(), v.int_value(), *col_op, m, zones); break;
      default:
        if (!is_unsigned(kind)) return false;
        if (kind == TypeKind::kU32) {
          MaskCompare(c->u32_values(), v.uint_value(), *col_op, m);
        } else {
          MaskCompare(c->u64_values(), v.uint_value(), *col_op, m);
        }
    }
  } else if (is_unsigned(kind) && is_unsigned(v.kind())) {
    if (kind == TypeKind::kU32) {
      MaskCompare(c->u32_values(), v.uint_value(), *col_op, m);
    } else {
      MaskCompare(c->u64_values(), v.uint_value(), *col_op, m);
    }
  } else {
    return false;
  }
  if (c->has_nulls()) {
    for (size_t i = 0; i < mask->size(); ++i) {
      if (!c->IsValid(i)) m[i] = 0;
    }
  }
  return true;
}

void FilterByColumn(const format::Column* c, CompareOp op, const Value& v, bool constant_left,
                    std::vector<uint32_t>* ordinals) {
  if (c == nullptr || v.is_null()) {  // a missing column reads as null: nothing satisfies
    ordinals->clear();
    return;
  }
  // Keeps the ordinals whose row holds; large lists are filtered in parallel, each chunk compacted
  // in place, then the chunks are moved together (order kept).
  auto keep = [&](auto holds) {
    const size_t n = ordinals->size();
    uint32_t* o = ordinals->data();
    constexpr size_t kChunk = size_t{1} << 15;
    const size_t chunks = (n + kChunk - 1) / kChunk;
    std::vector<size_t> kept(chunks, 0);
    const bool nulls = c->has_nulls();  // no validity lookup per row without nulls
    auto run = [&](size_t ch) {
      size_t w = ch * kChunk;
      for (size_t r = ch * kChunk, end = std::min(n, (ch + 1) * kChunk); r < end; ++r) {
        const uint32_t i = o[r];
        o[w] = i;  // written whether kept or not (w <= r): no branch on the outcome
        w += static_cast<size_t>((!nulls || c->IsValid(i)) && holds(i));
      }
      kept[ch] = w - ch * kChunk;
    };
    if (chunks < 2) {
      for (size_t ch = 0; ch < chunks; ++ch) run(ch);
    } else {
      ThreadPool::Default()
          .ParallelFor(chunks,
                       [&](size_t ch) {
                         run(ch);
                         return Status::Ok();
                       })
          .IgnoreError();
    }
    size_t w = 0;
    for (size_t ch = 0; ch < chunks; ++ch) {
      if (w != ch * kChunk) std::memmove(o + w, o + ch * kChunk, kept[ch] * sizeof(uint32_t));
      w += kept[ch];
    }
    ordinals->resize(w);
  };
  // The comparison as `column col_op constant` (ordering and equality only).
  std::optional<CompareOp> col_op = Mirror(op);
  if (col_op && !constant_left) col_op = op;
  const TypeKind kind = c->type().kind;
  auto is_signed = [](TypeKind k) { return k == TypeKind::kI32 || k == TypeKind::kI64; };
  auto is_unsigned = [](TypeKind k) { return k == TypeKind::kU32 || k == TypeKind::kU64; };
  const bool same_rep =
      kind == v.kind() || (is_signed(kind) && is_signed(v.kind())) || (is_unsigned(kind) && is_unsigned(v.kind()));
  if (col_op && same_rep) {  // column op constant, typed (as Value::Compare within one representation)
    const CompareOp o = *col_op;
    // Integers of one signedness compare by value (Value::Compare's rule within a representation).
    auto keep_ordered = [&](auto col, auto x) {  // the operator chosen once, not per row
      switch (o) {
        case CompareOp::kEq: return keep([&](uint32_t i) { return col[i] == x; });
        case CompareOp::kNe: return keep([&](uint32_t i) { return col[i] != x; });
        case CompareOp::kLt: return keep([&](uint32_t i) { return col[i] < x; });
        case CompareOp::kLe: return keep([&](uint32_t i) { return col[i] <= x; });
        case CompareOp::kGt: return keep([&](uint32_t i) { return col[i] > x; });
        case CompareOp::kGe: return keep([&](uint32_t i) { return col[i] >= x; });
        default: return keep([&](uint32_t i) { return Holds(o, col[i] <=> x); });
      }
    };
    switch (kind) {
      case TypeKind::kString: {
        const std::string_view x = v.string_value();
        if (o == CompareOp::kEq && x.size() <= 16) {  // short: compared in place, no memcmp call per row
          return keep([&](uint32_t i) {
            const std::string_view s = c->string_at(i);
            if (s.size() != x.size()) return false;
            for (size_t k = 0; k < s.size(); ++k) {
              if (s[k] != x[k]) return false;
            }
            return true;
          });
        }
        if (o == CompareOp::kEq) return keep([&](uint32_t i) { return c->string_at(i) == x; });
        return keep([&](uint32_t i) { return Holds(o, c->string_at(i).compare(x) <=> 0); });
      }
      case TypeKind::kI32: return keep_ordered(c->i32_values(), v.int_value());
      case TypeKind::kI64: return keep_ordered(c->i64_values(), v.int_value());
      case TypeKind::kU32: return keep_ordered(c->u32_values(), v.uint_value());
      case TypeKind::kU64: return keep_ordered(c->u64_values(), v.uint_value());
      case TypeKind::kF64: {
        auto col = c->f64_values();
        const double x = v.float_value();
        return keep([&](uint32_t i) { return Holds(o, CompareDoubles(col[i], x)); });
      }
      default: break;
    }
  }
  if (!constant_left && kind == TypeKind::kString && v.kind() == TypeKind::kString &&
      (op == CompareOp::kContains || op == CompareOp::kStartsWith)) {
    const std::string_view x = v.string_value();
    if (op == CompareOp::kContains)
      return keep([&](uint32_t i) { return c->string_at(i).find(x) != std::string_view::npos; });
    return keep([&](uint32_t i) { return c->string_at(i).starts_with(x); });
  }
  keep([&](uint32_t i) {  // any other kind: the per-row rule itself
    Value x = c->GetValue(i);
    return constant_left ? CompareValues(v, op, x) : CompareValues(x, op, v);
  });
}

}  // namespace exec
}  // namespace omnigraph::engine
