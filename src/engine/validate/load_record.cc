#include "engine/validate/load_record.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include <re2/re2.h>

#include "common/json.h"

namespace omnigraph::engine {
namespace {

using compiler::Property;

Status Err(ErrorCode code, std::string msg) { return Status(code, std::move(msg)); }

std::string Quote(std::string_view s) { return Json(std::string(s)).dump(); }

// Compiled per-type checks (read-only after construction).
struct TypeRules {
  std::map<size_t, std::vector<std::pair<std::optional<double>, std::optional<double>>>> ranges;
  std::map<size_t, std::vector<std::shared_ptr<const RE2>>> checks;
};

size_t PropIndex(const std::vector<Property>& props, std::string_view name) {
  for (size_t i = 0; i < props.size(); ++i) {
    if (props[i].name == name) return i;
  }
  return props.size();
}

Status CheckConstraints(const std::vector<Property>& props, std::span<const Value> values, const TypeRules& rules) {
  for (const auto& [idx, bounds] : rules.ranges) {
    if (idx >= values.size() || values[idx].is_null()) continue;
    const Value& v = values[idx];
    double d = v.kind() == TypeKind::kU32 || v.kind() == TypeKind::kU64     ? static_cast<double>(v.uint_value())
               : (v.kind() == TypeKind::kF32 || v.kind() == TypeKind::kF64) ? v.float_value()
                                                                            : static_cast<double>(v.int_value());
    for (const auto& [lo, hi] : bounds) {
      if ((lo && d < *lo) || (hi && d > *hi) || std::isnan(d)) {
        return Err(ErrorCode::kLoadRange,
                   "property '" + props[idx].name + "' value " + v.ToString() + " is outside its @range");
      }
    }
  }
  for (const auto& [idx, res] : rules.checks) {
    if (idx >= values.size() || values[idx].is_null()) continue;
    for (const auto& re : res) {
      if (!RE2::FullMatch(values[idx].string_value(), *re)) {
        return Err(ErrorCode::kLoadCheck, "property '" + props[idx].name + "' value " + values[idx].ToString() +
                                              " does not match @check(" + Quote(re->pattern()) + ")");
      }
    }
  }
  return Status::Ok();
}

// One scalar converted to `kind` (same kind, or a widening / temporal conversion).
Result<Value> ConformScalar(const Value& v, TypeKind kind, const std::string& what) {
  if (v.kind() == kind) return v;
  auto mismatch = [&] {
    return Err(ErrorCode::kLoadTypeMismatch,
               what + " must be " + std::string(TypeKindName(kind)) + ", got " + std::string(TypeKindName(v.kind())));
  };
  bool from_signed = v.kind() == TypeKind::kI32 || v.kind() == TypeKind::kI64;
  bool from_unsigned = v.kind() == TypeKind::kU32 || v.kind() == TypeKind::kU64;
  switch (kind) {
    case TypeKind::kI64:
      if (from_signed) return Value::I64(v.int_value());
      if (from_unsigned) {
        if (v.uint_value() > static_cast<uint64_t>(INT64_MAX))
          return Err(ErrorCode::kLoadTypeMismatch, what + " is out of range");
        return Value::I64(static_cast<int64_t>(v.uint_value()));
      }
      return mismatch();
    case TypeKind::kU64:
      if (from_unsigned) return Value::U64(v.uint_value());
      if (from_signed) {
        if (v.int_value() < 0) return Err(ErrorCode::kLoadTypeMismatch, what + " must not be negative");
        return Value::U64(static_cast<uint64_t>(v.int_value()));
      }
      return mismatch();
    case TypeKind::kF64:
      if (from_signed) return Value::F64(static_cast<double>(v.int_value()));
      if (from_unsigned) return Value::F64(static_cast<double>(v.uint_value()));
      if (v.kind() == TypeKind::kF32) return Value::F64(v.float_value());
      return mismatch();
    case TypeKind::kDateTime:
      if (v.kind() == TypeKind::kDate) return Value::DateTime(v.int_value() * int64_t{86400000});
      return mismatch();
    case TypeKind::kDate:
      if (v.kind() == TypeKind::kDateTime) {
        int64_t ms = v.int_value();
        int64_t days = ms / 86400000 - (ms % 86400000 < 0 ? 1 : 0);
        if (days < INT32_MIN || days > INT32_MAX) return Err(ErrorCode::kLoadTypeMismatch, what + " is out of range");
        return Value::Date(static_cast<int32_t>(days));
      }
      return mismatch();
    default: return mismatch();
  }
}

}  // namespace

Result<Value> ConformValue(const Value& v, const Property& p) {
  std::string what = "property '" + p.name + "'";
  if (v.is_null()) {
    if (!p.nullable) return Err(ErrorCode::kLoadMissingProperty, what + " is not nullable");
    return Value::Null(p.type);
  }
  if (p.type.kind == TypeKind::kVector) {
    if (v.kind() != TypeKind::kVector) return Err(ErrorCode::kLoadTypeMismatch, what + " must be a vector");
    if (v.vector_value().size() != p.type.dimension) {
      return Err(ErrorCode::kLoadTypeMismatch, what + " must have " + std::to_string(p.type.dimension) +
                                                   " elements, got " + std::to_string(v.vector_value().size()));
    }
    const std::vector<float>& xs = v.vector_value();
    for (size_t i = 0; i < xs.size(); ++i) {
      if (!FitsF32(xs[i])) {
        return Err(ErrorCode::kLoadTypeMismatch,
                   what + " element " + std::to_string(i) + " is not a finite F32 (NaN, infinity or out of range)");
      }
    }
    return v;
  }
  if (p.type.kind == TypeKind::kList) {
    if (v.kind() != TypeKind::kList) return Err(ErrorCode::kLoadTypeMismatch, what + " must be a list");
    std::vector<Value> items;
    for (const Value& x : v.list_value()) {
      if (x.is_null()) return Err(ErrorCode::kLoadTypeMismatch, what + " must not contain null elements");
      OG_ASSIGN_OR_RETURN(Value item, ConformScalar(x, p.type.element, what + " element"));
      items.push_back(std::move(item));
    }
    return Value::List(p.type.element, std::move(items));
  }
  OG_ASSIGN_OR_RETURN(Value out, ConformScalar(v, p.type.kind, what));
  if (out.kind() == TypeKind::kF32 && !FitsF32(out.float_value())) {
    return Err(ErrorCode::kLoadTypeMismatch, what + " is not a finite F32 (NaN, infinity or out of range)");
  }
  if (p.is_enum() && !std::binary_search(p.enum_values.begin(), p.enum_values.end(), out.string_value())) {
    std::string allowed;
    for (const auto& e : p.enum_values) allowed += (allowed.empty() ? "" : ", ") + e;
    return Err(ErrorCode::kLoadEnumValue, what + " value " + Quote(out.string_value()) + " is not one of: " + allowed);
  }
  return out;
}

struct RecordRules::Impl {
  std::map<std::string, TypeRules, std::less<>> by_type;
};

RecordRules::RecordRules(const compiler::Catalog& catalog) : impl_(std::make_unique<Impl>()) {
  for (const auto& n : catalog.nodes()) {
    if (n.ranges.empty() && n.checks.empty()) continue;
    TypeRules& t = impl_->by_type[n.name];
    for (const auto& rc : n.ranges) {
      t.ranges[PropIndex(n.properties, rc.property)].emplace_back(rc.MinValue(), rc.MaxValue());
    }
    for (const auto& cc : n.checks) {
      RE2::Options o;
      o.set_log_errors(false);
      t.checks[PropIndex(n.properties, cc.property)].push_back(std::make_shared<const RE2>(cc.pattern, o));
    }
  }
}
RecordRules::~RecordRules() = default;

Status RecordRules::Check(const LoadRecord& r) const {
  if (r.is_edge) return Status::Ok();
  return Check(*r.node, r.values);
}

Status RecordRules::Check(const compiler::NodeType& node, std::span<const Value> values) const {
  auto it = impl_->by_type.find(node.name);
  if (it == impl_->by_type.end()) return Status::Ok();
  return CheckConstraints(node.properties, values, it->second);
}

bool RecordRules::Constrains(const compiler::NodeType& node, size_t property) const {
  auto it = impl_->by_type.find(node.name);
  return it != impl_->by_type.end() && (it->second.ranges.count(property) > 0 || it->second.checks.count(property) > 0);
}

}  // namespace omnigraph::engine
