#include "table/predicate.h"

#include <algorithm>
#include <cmath>

#include "common/error_codes.h"

namespace omnigraph::table {

struct Predicate::Node {
  Kind kind = Kind::kTrue;
  std::string column;
  CompareOp op = CompareOp::kEq;
  std::vector<Value> values;
  std::vector<Predicate> children;
};

namespace {

using format::Column;

// Tri-state results per row.
constexpr uint8_t kFalse = 0, kTrue = 1, kUnknown = 2;

bool IsStringKind(TypeKind k) { return k == TypeKind::kString; }

// Whether a literal may be compared with values of column kind `col`.
bool Comparable(TypeKind col, const Value& lit) {
  if (lit.is_null()) return true;
  if (IsNumericOrTemporalKind(col)) return IsNumericOrTemporalKind(lit.kind());
  if (col == TypeKind::kString) return lit.kind() == TypeKind::kString;
  if (col == TypeKind::kBool) return lit.kind() == TypeKind::kBool;
  return false;
}

bool OpHolds(CompareOp op, std::weak_ordering c) {
  switch (op) {
    case CompareOp::kEq: return c == 0;
    case CompareOp::kNe: return c != 0;
    case CompareOp::kLt: return c < 0;
    case CompareOp::kLe: return c <= 0;
    case CompareOp::kGt: return c > 0;
    case CompareOp::kGe: return c >= 0;
  }
  return false;
}

std::string_view OpName(CompareOp op) {
  switch (op) {
    case CompareOp::kEq: return "=";
    case CompareOp::kNe: return "!=";
    case CompareOp::kLt: return "<";
    case CompareOp::kLe: return "<=";
    case CompareOp::kGt: return ">";
    case CompareOp::kGe: return ">=";
  }
  return "?";
}

std::weak_ordering Ord(int c) {
  return c < 0 ? std::weak_ordering::less : c > 0 ? std::weak_ordering::greater : std::weak_ordering::equivalent;
}

// Fast typed comparison loops; `cmp(i)` gives the ordering of row i against the literal.
template <class Cmp>
void CompareRows(const Column& col, CompareOp op, std::vector<uint8_t>& out, Cmp cmp) {
  const size_t n = col.length();
  const bool nulls = col.has_nulls();
  for (size_t i = 0; i < n; ++i) {
    if (nulls && col.IsNull(i)) {
      out[i] = kUnknown;
      continue;
    }
    out[i] = OpHolds(op, cmp(i)) ? kTrue : kFalse;
  }
}

void EvalCompare(const Column& col, CompareOp op, const Value& lit, std::vector<uint8_t>& out) {
  const size_t n = col.length();
  if (lit.is_null()) {
    std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), kUnknown);
    return;
  }
  const TypeKind ck = col.type().kind;
  const TypeKind lk = lit.kind();
  const bool lit_signed = IsInt64HeldKind(lk);
  if ((ck == TypeKind::kI64 || ck == TypeKind::kDateTime) && lit_signed) {
    auto v = col.i64_values();
    int64_t x = lit.int_value();
    CompareRows(col, op, out, [&](size_t i) { return v[i] <=> x; });
    return;
  }
  if ((ck == TypeKind::kI32 || ck == TypeKind::kDate) && lit_signed) {
    auto v = col.i32_values();
    int64_t x = lit.int_value();
    CompareRows(col, op, out, [&](size_t i) { return static_cast<int64_t>(v[i]) <=> x; });
    return;
  }
  if (ck == TypeKind::kString && lk == TypeKind::kString) {
    const std::string& x = lit.string_value();
    CompareRows(col, op, out, [&](size_t i) { return Ord(col.string_at(i).compare(x)); });
    return;
  }
  if (ck == TypeKind::kF64 && (lk == TypeKind::kF64 || lk == TypeKind::kF32) && !std::isnan(lit.float_value())) {
    auto v = col.f64_values();
    double x = lit.float_value();
    CompareRows(col, op, out, [&](size_t i) {
      double a = v[i];
      if (std::isnan(a)) return std::weak_ordering::greater;
      return a < x ? std::weak_ordering::less : a > x ? std::weak_ordering::greater : std::weak_ordering::equivalent;
    });
    return;
  }
  // General path: exact Value::Compare semantics.
  CompareRows(col, op, out, [&](size_t i) { return col.GetValue(i).Compare(lit); });
}

std::string Quote(const Value& v) { return v.ToString(); }

}  // namespace

// --- Predicate ---

Predicate::Predicate() : node_(std::make_shared<const Node>()) {}

Predicate Predicate::Compare(std::string column, CompareOp op, Value literal) {
  Node n;
  n.kind = Kind::kCompare;
  n.column = std::move(column);
  n.op = op;
  n.values.push_back(std::move(literal));
  return Predicate(std::make_shared<const Node>(std::move(n)));
}
Predicate Predicate::In(std::string column, std::vector<Value> values) {
  Node n;
  n.kind = Kind::kIn;
  n.column = std::move(column);
  n.values = std::move(values);
  return Predicate(std::make_shared<const Node>(std::move(n)));
}
Predicate Predicate::IsNull(std::string column) {
  Node n;
  n.kind = Kind::kIsNull;
  n.column = std::move(column);
  return Predicate(std::make_shared<const Node>(std::move(n)));
}
Predicate Predicate::IsNotNull(std::string column) {
  Node n;
  n.kind = Kind::kIsNotNull;
  n.column = std::move(column);
  return Predicate(std::make_shared<const Node>(std::move(n)));
}
Predicate Predicate::StartsWith(std::string column, std::string prefix) {
  Node n;
  n.kind = Kind::kStartsWith;
  n.column = std::move(column);
  n.values.push_back(Value::String(std::move(prefix)));
  return Predicate(std::make_shared<const Node>(std::move(n)));
}
Predicate Predicate::Contains(std::string column, std::string substring) {
  Node n;
  n.kind = Kind::kContains;
  n.column = std::move(column);
  n.values.push_back(Value::String(std::move(substring)));
  return Predicate(std::make_shared<const Node>(std::move(n)));
}
Predicate Predicate::ListContains(std::string column, Value element) {
  Node n;
  n.kind = Kind::kListContains;
  n.column = std::move(column);
  n.values.push_back(std::move(element));
  return Predicate(std::make_shared<const Node>(std::move(n)));
}
Predicate Predicate::And(std::vector<Predicate> children) {
  if (children.size() == 1) return children[0];
  Node n;
  n.kind = Kind::kAnd;
  n.children = std::move(children);
  return Predicate(std::make_shared<const Node>(std::move(n)));
}
Predicate Predicate::Or(std::vector<Predicate> children) {
  if (children.size() == 1) return children[0];
  Node n;
  n.kind = Kind::kOr;
  n.children = std::move(children);
  return Predicate(std::make_shared<const Node>(std::move(n)));
}
Predicate Predicate::Not(Predicate child) {
  Node n;
  n.kind = Kind::kNot;
  n.children.push_back(std::move(child));
  return Predicate(std::make_shared<const Node>(std::move(n)));
}

Predicate::Kind Predicate::kind() const { return node_->kind; }
const std::string& Predicate::column() const { return node_->column; }
CompareOp Predicate::op() const { return node_->op; }
const std::vector<Value>& Predicate::values() const { return node_->values; }
const std::vector<Predicate>& Predicate::children() const { return node_->children; }

std::vector<std::string> Predicate::Columns() const {
  std::vector<std::string> out;
  std::function<void(const Predicate&)> walk = [&](const Predicate& p) {
    if (!p.column().empty() && std::find(out.begin(), out.end(), p.column()) == out.end()) {
      out.push_back(p.column());
    }
    for (const Predicate& c : p.children()) walk(c);
  };
  walk(*this);
  return out;
}

std::string Predicate::ToString() const {
  const Node& n = *node_;
  switch (n.kind) {
    case Kind::kTrue: return "TRUE";
    case Kind::kCompare: return n.column + " " + std::string(OpName(n.op)) + " " + Quote(n.values[0]);
    case Kind::kIn: {
      std::string s = n.column + " IN (";
      for (size_t i = 0; i < n.values.size(); ++i) s += (i ? ", " : "") + Quote(n.values[i]);
      return s + ")";
    }
    case Kind::kIsNull: return n.column + " IS NULL";
    case Kind::kIsNotNull: return n.column + " IS NOT NULL";
    case Kind::kStartsWith: return "starts_with(" + n.column + ", " + Quote(n.values[0]) + ")";
    case Kind::kContains: return "contains(" + n.column + ", " + Quote(n.values[0]) + ")";
    case Kind::kListContains: return "list_contains(" + n.column + ", " + Quote(n.values[0]) + ")";
    case Kind::kNot: return "NOT (" + n.children[0].ToString() + ")";
    case Kind::kAnd:
    case Kind::kOr: {
      if (n.children.empty()) return n.kind == Kind::kAnd ? "TRUE" : "FALSE";
      std::string s = "(";
      for (size_t i = 0; i < n.children.size(); ++i) {
        if (i) s += n.kind == Kind::kAnd ? " AND " : " OR ";
        s += n.children[i].ToString();
      }
      return s + ")";
    }
  }
  return "?";
}

// --- BoundPredicate ---

namespace {

Status CheckNode(const Predicate& p, const TableSchema& schema, std::vector<FieldId>* ids) {
  using K = Predicate::Kind;
  for (const Predicate& c : p.children()) OG_RETURN_IF_ERROR(CheckNode(c, schema, ids));
  if (p.kind() == K::kTrue || p.kind() == K::kAnd || p.kind() == K::kOr || p.kind() == K::kNot) {
    return Status::Ok();
  }
  const Field* f = schema.FindByName(p.column());
  if (f == nullptr) return InvalidArgumentError("predicate: unknown column '" + p.column() + "'");
  ids->push_back(f->id);
  const TypeKind k = f->type.kind;
  auto bad = [&](std::string_view what) {
    return InvalidArgumentError("predicate " + p.ToString() + ": " + std::string(what) + " on column '" + f->name +
                                "' of type " + TypeToString(f->type));
  };
  switch (p.kind()) {
    case K::kCompare:
    case K::kIn:
      if (!IsNumericOrTemporalKind(k) && k != TypeKind::kString && k != TypeKind::kBool) return bad("comparison");
      for (const Value& v : p.values()) {
        if (!Comparable(k, v)) return bad("literal " + v.ToString() + " is not comparable");
      }
      return Status::Ok();
    case K::kStartsWith:
    case K::kContains:
      if (!IsStringKind(k)) return bad("string matching");
      return Status::Ok();
    case K::kListContains:
      if (k != TypeKind::kList) return bad("list contains");
      if (!p.values()[0].is_null() && !Comparable(f->type.element, p.values()[0])) {
        return bad("element " + p.values()[0].ToString() + " is not comparable");
      }
      return Status::Ok();
    default: return Status::Ok();
  }
}

Status EvalNode(const Predicate& p, const format::Batch& batch, const TableSchema& schema, std::vector<uint8_t>& out) {
  using K = Predicate::Kind;
  const size_t n = batch.num_rows();
  out.assign(n, kTrue);
  if (p.kind() == K::kTrue) return Status::Ok();
  if (p.kind() == K::kAnd || p.kind() == K::kOr) {
    const bool is_and = p.kind() == K::kAnd;
    out.assign(n, is_and ? kTrue : kFalse);
    std::vector<uint8_t> child;
    for (const Predicate& c : p.children()) {
      OG_RETURN_IF_ERROR(EvalNode(c, batch, schema, child));
      for (size_t i = 0; i < n; ++i) {
        uint8_t a = out[i], b = child[i];
        if (is_and) {
          out[i] = (a == kFalse || b == kFalse) ? kFalse : (a == kUnknown || b == kUnknown) ? kUnknown : kTrue;
        } else {
          out[i] = (a == kTrue || b == kTrue) ? kTrue : (a == kUnknown || b == kUnknown) ? kUnknown : kFalse;
        }
      }
    }
    return Status::Ok();
  }
  if (p.kind() == K::kNot) {
    OG_RETURN_IF_ERROR(EvalNode(p.children()[0], batch, schema, out));
    for (auto& v : out) v = v == kTrue ? kFalse : v == kFalse ? kTrue : kUnknown;
    return Status::Ok();
  }
  const Field* f = schema.FindByName(p.column());
  const Column* col = f == nullptr ? nullptr : batch.ColumnById(f->id);
  if (col == nullptr) return InvalidArgumentError("predicate: column '" + p.column() + "' missing from the batch");
  switch (p.kind()) {
    case K::kCompare: EvalCompare(*col, p.op(), p.values()[0], out); return Status::Ok();
    case K::kIn: {
      out.assign(n, kFalse);
      std::vector<uint8_t> one(n);
      for (const Value& v : p.values()) {
        if (v.is_null()) continue;
        EvalCompare(*col, CompareOp::kEq, v, one);
        for (size_t i = 0; i < n; ++i) {
          if (one[i] == kTrue)
            out[i] = kTrue;
          else if (one[i] == kUnknown && out[i] == kFalse)
            out[i] = kUnknown;
        }
      }
      return Status::Ok();
    }
    case K::kIsNull:
    case K::kIsNotNull: {
      const bool want_null = p.kind() == K::kIsNull;
      for (size_t i = 0; i < n; ++i) out[i] = (col->IsNull(i) == want_null) ? kTrue : kFalse;
      return Status::Ok();
    }
    case K::kStartsWith:
    case K::kContains: {
      const std::string& s = p.values()[0].string_value();
      const bool prefix = p.kind() == K::kStartsWith;
      for (size_t i = 0; i < n; ++i) {
        if (col->IsNull(i)) {
          out[i] = kUnknown;
          continue;
        }
        std::string_view v = col->string_at(i);
        bool hit = prefix ? v.substr(0, s.size()) == s : v.find(s) != std::string_view::npos;
        out[i] = hit ? kTrue : kFalse;
      }
      return Status::Ok();
    }
    case K::kListContains: {
      const Value& needle = p.values()[0];
      const Column& elems = col->list_elements();
      auto offs = col->offsets();
      std::vector<uint8_t> eq(elems.length());
      if (!needle.is_null()) EvalCompare(elems, CompareOp::kEq, needle, eq);
      for (size_t i = 0; i < n; ++i) {
        if (col->IsNull(i) || needle.is_null()) {
          out[i] = kUnknown;
          continue;
        }
        uint8_t r = kFalse;
        for (uint64_t e = offs[i]; e < offs[i + 1]; ++e) {
          if (eq[e] == kTrue) {
            r = kTrue;
            break;
          }
          if (eq[e] == kUnknown) r = kUnknown;
        }
        out[i] = r;
      }
      return Status::Ok();
    }
    default: return InternalError("predicate: unexpected node");
  }
}

// May some row with these statistics satisfy `v <op> lit`?
bool StatsMayCompare(const format::ColumnStats& s, CompareOp op, const Value& lit) {
  if (lit.is_null()) return false;
  if (s.row_count > 0 && s.null_count >= s.row_count) return false;  // all null: never TRUE
  if (IsFloatKind(lit.kind())) {
    if (std::isnan(lit.float_value())) return true;
  }
  const bool has_nan = s.nan_count > 0;
  // NaN sorts above every number, so it can satisfy >, >=, != against a non-NaN literal.
  switch (op) {
    case CompareOp::kEq:
      if (!s.min || !s.max) return true;
      return s.min->Compare(lit) <= 0 && s.max->Compare(lit) >= 0;
    case CompareOp::kNe:
      if (has_nan || !s.min || !s.max) return true;
      return !(s.min->Compare(lit) == 0 && s.max->Compare(lit) == 0);
    case CompareOp::kLt:
      if (!s.min) return true;
      return s.min->Compare(lit) < 0;
    case CompareOp::kLe:
      if (!s.min) return true;
      return s.min->Compare(lit) <= 0;
    case CompareOp::kGt:
      if (has_nan || !s.max) return true;
      return s.max->Compare(lit) > 0;
    case CompareOp::kGe:
      if (has_nan || !s.max) return true;
      return s.max->Compare(lit) >= 0;
  }
  return true;
}

bool MayNode(const Predicate& p, const TableSchema& schema,
             const std::function<const format::ColumnStats*(FieldId)>& stats) {
  using K = Predicate::Kind;
  switch (p.kind()) {
    case K::kTrue: return true;
    case K::kAnd:
      for (const Predicate& c : p.children()) {
        if (!MayNode(c, schema, stats)) return false;
      }
      return true;
    case K::kOr:
      for (const Predicate& c : p.children()) {
        if (MayNode(c, schema, stats)) return true;
      }
      return false;
    case K::kNot: return true;
    default: break;
  }
  const Field* f = schema.FindByName(p.column());
  if (f == nullptr) return true;
  const format::ColumnStats* s = stats(f->id);
  if (s == nullptr) return true;
  const bool all_null = s->row_count > 0 && s->null_count >= s->row_count;
  switch (p.kind()) {
    case K::kCompare: return StatsMayCompare(*s, p.op(), p.values()[0]);
    case K::kIn:
      for (const Value& v : p.values()) {
        if (StatsMayCompare(*s, CompareOp::kEq, v)) return true;
      }
      return false;
    case K::kIsNull: return s->null_count > 0;
    case K::kIsNotNull: return s->null_count < s->row_count;
    case K::kStartsWith: {
      if (all_null) return false;
      if (!s->min || !s->max) return true;
      const std::string& pre = p.values()[0].string_value();
      const std::string& lo = s->min->string_value();
      const std::string& hi = s->max->string_value();
      return lo.substr(0, pre.size()) <= pre && hi.compare(pre) >= 0;
    }
    case K::kContains:
    case K::kListContains: return !all_null;
    default: return true;
  }
}

}  // namespace

Result<BoundPredicate> BoundPredicate::Bind(const Predicate& p, const TableSchema& schema) {
  BoundPredicate b;
  OG_RETURN_IF_ERROR(CheckNode(p, schema, &b.field_ids_));
  std::sort(b.field_ids_.begin(), b.field_ids_.end());
  b.field_ids_.erase(std::unique(b.field_ids_.begin(), b.field_ids_.end()), b.field_ids_.end());
  b.predicate_ = p;
  b.schema_ = std::make_shared<const TableSchema>(schema);
  return b;
}

Result<std::vector<uint8_t>> BoundPredicate::Evaluate(const format::Batch& batch) const {
  std::vector<uint8_t> out;
  if (schema_ == nullptr) {
    out.assign(batch.num_rows(), 1);
    return out;
  }
  OG_RETURN_IF_ERROR(EvalNode(predicate_, batch, *schema_, out));
  for (auto& v : out) v = v == kTrue ? 1 : 0;
  return out;
}

bool BoundPredicate::MayMatch(const std::function<const format::ColumnStats*(FieldId)>& stats) const {
  if (schema_ == nullptr) return true;
  return MayNode(predicate_, *schema_, stats);
}

}  // namespace omnigraph::table
