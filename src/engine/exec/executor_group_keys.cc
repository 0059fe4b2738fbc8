// KeyCoder (executor_internal.h): grouping keys coded from their columns, so that grouping by a
// String or integer property (`return { $p.city, count($p) }`) hashes column values once per row
// instead of building, sorting and merging a Value per binding.
#include <algorithm>

#include "common/check.h"
#include "common/hash.h"
#include "common/open_addressing.h"
#include "engine/exec/executor_internal.h"

namespace omnigraph::engine::exec {

using compiler::IrExprKind;

Result<std::optional<KeyCoder>> KeyCoder::For(Context& ctx, size_t rows) {
  const compiler::IrQuery& q = ctx.query();
  KeyCoder coder;
  for (int k : q.group_keys) {
    const compiler::IrExpr& e = q.projections[k].expr;
    if (e.kind != IrExprKind::kProperty || e.var < 0 || e.property == "id") return std::optional<KeyCoder>();
    if (q.variables[e.var].kind == compiler::VarKind::kNode) {
      const compiler::NodeType* node = ctx.snap().catalog().FindNode(ctx.TypeOf(e.var));
      if (node != nullptr && node->key.size() == 1 && node->key[0] == e.property) return std::optional<KeyCoder>();
    }
    switch (e.type.data.kind) {
      case TypeKind::kBool:
      case TypeKind::kI32:
      case TypeKind::kI64:
      case TypeKind::kU32:
      case TypeKind::kU64:
      case TypeKind::kDate:
      case TypeKind::kDateTime:
      case TypeKind::kString: break;
      default: return std::optional<KeyCoder>();  // floats (-0 = 0), lists, vectors: by value
    }
    if (!e.type.data.is_scalar()) return std::optional<KeyCoder>();
    Key key;
    key.var = e.var;
    key.kind = e.type.data.kind;
    OG_ASSIGN_OR_RETURN(key.column, ctx.Column(ctx.TypeOf(e.var), e.property));
    if (key.column != nullptr && key.column->type().kind != e.type.data.kind) return std::optional<KeyCoder>();
    if (key.column != nullptr && key.kind == TypeKind::kString) {
      // Rows covering a quarter of the table: code the whole column once (cached for later
      // queries); fewer rows use cached codes only, else hash their strings.
      const bool build = 4 * rows >= key.column->length();
      OG_ASSIGN_OR_RETURN(key.dict, ctx.CodesOf(ctx.TypeOf(e.var), e.property, build));
    }
    if (key.column != nullptr && key.kind != TypeKind::kString && 4 * rows >= key.column->length()) {
      // Rows covering a quarter of the table: the column's span of values (cached), and when it
      // is small the values themselves, shifted, are the codes.
      const format::Column* c = key.column;
      OG_ASSIGN_OR_RETURN(const table::TableVersion* table, ctx.Table(ctx.TypeOf(e.var)));
      OG_ASSIGN_OR_RETURN(auto span,
                          ctx.cache().DerivedFor<ValueSpan>(*table, "span", e.property, [&]() -> Result<ValueSpan> {
                            return ValueSpan::Of(key.kind, *c);
                          }));
      const uint64_t width = static_cast<uint64_t>(span->max) - static_cast<uint64_t>(span->min);
      if (span->any && width < kDenseSpan) {
        key.dense_min = span->min;
        key.dense_bound = width + 2;
        if (!c->has_nulls() && (key.kind == TypeKind::kI64 || key.kind == TypeKind::kDateTime)) {
          key.i64 = c->i64_values().data();
        } else if (!c->has_nulls() && (key.kind == TypeKind::kI32 || key.kind == TypeKind::kDate)) {
          key.i32 = c->i32_values().data();
        }
      }
    }
    coder.keys_.push_back(std::move(key));
  }
  if (coder.keys_.empty()) return std::optional<KeyCoder>();
  return std::optional<KeyCoder>(std::move(coder));
}

int64_t KeyCoder::Codes::Code(uint64_t hash, int64_t value, std::string_view text, bool is_text) {
  size_t mask = slots.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    Slot& s = slots[i];
    if (s.code == 0) break;
    if (s.hash == hash && (is_text ? s.text == text : s.value == value)) return s.code;
  }
  if (2 * static_cast<size_t>(size + 1) > slots.size()) {  // grow to keep probes short
    DoubleOpenAddressing(&slots);
    mask = slots.size() - 1;
  }
  size_t i = hash & mask;
  while (slots[i].code != 0) i = (i + 1) & mask;
  slots[i] = Slot{hash, ++size, value, text};
  return size;
}

bool KeyCoder::canonical() const {
  for (const Key& key : keys_) {
    if (key.kind == TypeKind::kString && key.column != nullptr && key.dict == nullptr) return false;
  }
  return true;
}

void KeyCoder::Canonical(const int64_t* row, int64_t* out) const {
  for (size_t k = 0; k < keys_.size(); ++k) {
    const Key& key = keys_[k];
    const int64_t o = row[key.var];
    const format::Column* c = key.column;
    if (o < 0 || c == nullptr || c->IsNull(static_cast<size_t>(o))) {
      out[2 * k] = out[2 * k + 1] = 0;
      continue;
    }
    const auto i = static_cast<size_t>(o);
    out[2 * k] = 1;
    if (key.dict != nullptr) {
      out[2 * k + 1] = key.dict->code[i];
      continue;
    }
    out[2 * k + 1] = Raw(key.kind, *c, i);
  }
}

KeyCoder::ValueSpan KeyCoder::ValueSpan::Of(TypeKind kind, const format::Column& c) {
  ValueSpan s;
  const size_t n = c.length();
  for (size_t i = 0; i < n; ++i) {
    if (c.IsNull(i)) continue;
    const int64_t x = Raw(kind, c, i);
    s.min = s.any ? std::min(s.min, x) : x;
    s.max = s.any ? std::max(s.max, x) : x;
    s.any = true;
  }
  return s;
}

int64_t KeyCoder::Raw(TypeKind kind, const format::Column& c, size_t i) {
  switch (kind) {
    case TypeKind::kBool: return c.bool_values()[i] != 0;
    case TypeKind::kI32:
    case TypeKind::kDate: return c.i32_values()[i];
    case TypeKind::kI64:
    case TypeKind::kDateTime: return c.i64_values()[i];
    case TypeKind::kU32: return c.u32_values()[i];
    case TypeKind::kU64: return static_cast<int64_t>(c.u64_values()[i]);  // a bijection
    default: OG_CHECK(false && "KeyCoder: uncodable column");
  }
  return 0;
}

void KeyCoder::Code(const int64_t* row, int64_t* out) {
  for (size_t k = 0; k < keys_.size(); ++k) {
    Key& key = keys_[k];
    const int64_t o = row[key.var];
    const format::Column* c = key.column;
    if (o < 0 || c == nullptr || c->IsNull(static_cast<size_t>(o))) {
      out[k] = 0;
      continue;
    }
    const auto i = static_cast<size_t>(o);
    if (key.dict != nullptr) {  // the column's own codes: the same value, the same code
      out[k] = key.dict->code[i];
      continue;
    }
    if (key.kind == TypeKind::kString) {
      const std::string_view text = c->string_at(i);
      out[k] = key.codes.Code(XxHash64(text), 0, text, true);
      continue;
    }
    const int64_t raw = Raw(key.kind, *c, i);
    if (key.dense_bound > 0) {
      out[k] = static_cast<int64_t>(static_cast<uint64_t>(raw) - static_cast<uint64_t>(key.dense_min) + 1);
      continue;
    }
    // A multiplicative mix (the slot is the hash's low bits).
    const uint64_t h = (static_cast<uint64_t>(raw) ^ (static_cast<uint64_t>(raw) >> 29)) * 0x9E3779B97F4A7C15ull;
    out[k] = key.codes.Code(h ^ (h >> 32), raw, std::string_view(), false);
  }
}

}  // namespace omnigraph::engine::exec
