#include "engine/exec/value_compare.h"

#include <cmath>
#include <string>

namespace omnigraph::engine::exec {

using compiler::CompareOp;

bool CompareValues(const Value& l, CompareOp op, const Value& r) {
  if (l.is_null() || r.is_null()) return false;
  switch (op) {
    case CompareOp::kEq: return l.Compare(r) == 0;
    case CompareOp::kNe: return l.Compare(r) != 0;
    case CompareOp::kLt: return l.Compare(r) < 0;
    case CompareOp::kLe: return l.Compare(r) <= 0;
    case CompareOp::kGt: return l.Compare(r) > 0;
    case CompareOp::kGe: return l.Compare(r) >= 0;
    case CompareOp::kContains:
      if (l.kind() == TypeKind::kList) {
        for (const Value& item : l.list_value()) {
          if (item.Compare(r) == 0) return true;
        }
        return false;
      }
      return l.string_value().find(r.string_value()) != std::string::npos;
    case CompareOp::kStartsWith: return l.string_value().rfind(r.string_value(), 0) == 0;
  }
  return false;
}

std::weak_ordering OrderValues(const Value& a, const Value& b, bool desc) {
  auto c = a.Compare(b);
  return desc ? 0 <=> c : c;
}

bool MinMaxLess(const Value& a, const Value& b) {
  auto c = a.Compare(b);
  if (c != 0) return c < 0;
  return IsFloatKind(a.kind()) && IsFloatKind(b.kind()) && a.float_value() == 0 && b.float_value() == 0 &&
         std::signbit(a.float_value()) && !std::signbit(b.float_value());
}

}  // namespace omnigraph::engine::exec
