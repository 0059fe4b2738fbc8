#include "engine/load_record.h"

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include <re2/re2.h>
#include <simdjson.h>

#include "common/base64.h"
#include "common/json.h"
#include "common/thread_pool.h"
#include "common/ulid.h"

namespace omnigraph::engine {
namespace {

namespace dom = simdjson::dom;
using compiler::Property;

Status Err(ErrorCode code, std::string msg) { return Status(code, std::move(msg)); }

std::string Quote(std::string_view s) { return Json(std::string(s)).dump(); }

// Compiled per-type checks shared by all parsing threads (read-only after construction).
struct TypeRules {
  std::map<size_t, std::vector<std::pair<std::optional<double>, std::optional<double>>>> ranges;
  std::map<size_t, std::vector<std::shared_ptr<const RE2>>> checks;
};

struct Rules {
  std::map<std::string, TypeRules, std::less<>> by_type;
};

size_t PropIndex(const std::vector<Property>& props, std::string_view name) {
  for (size_t i = 0; i < props.size(); ++i) {
    if (props[i].name == name) return i;
  }
  return props.size();
}

Rules BuildRules(const compiler::Catalog& catalog) {
  Rules r;
  for (const auto& n : catalog.nodes()) {
    TypeRules& t = r.by_type[n.name];
    for (const auto& rc : n.ranges) {
      t.ranges[PropIndex(n.properties, rc.property)].emplace_back(rc.MinValue(), rc.MaxValue());
    }
    for (const auto& cc : n.checks) {
      RE2::Options o;
      o.set_log_errors(false);
      t.checks[PropIndex(n.properties, cc.property)].push_back(std::make_shared<const RE2>(cc.pattern, o));
    }
  }
  return r;
}

// Rejects duplicate member names at any depth.
bool HasDuplicateMembers(dom::element e, std::string* which) {
  if (e.type() == dom::element_type::OBJECT) {
    // Objects have a handful of members: a linear scan of a small inline buffer beats a tree.
    std::string_view inline_seen[16];
    std::vector<std::string_view> more;
    size_t n = 0;
    for (auto field : dom::object(e)) {
      const std::string_view key = field.key;
      bool dup = false;
      for (size_t i = 0; i < std::min<size_t>(n, 16) && !dup; ++i) dup = inline_seen[i] == key;
      for (size_t i = 0; i < more.size() && !dup; ++i) dup = more[i] == key;
      if (dup) {
        *which = std::string(key);
        return true;
      }
      if (n < 16) inline_seen[n] = key;
      else more.push_back(key);
      ++n;
      if (HasDuplicateMembers(field.value, which)) return true;
    }
  } else if (e.type() == dom::element_type::ARRAY) {
    for (dom::element child : dom::array(e)) {
      if (HasDuplicateMembers(child, which)) return true;
    }
  }
  return false;
}

Result<int64_t> AsInt(dom::element v, int64_t lo, int64_t hi, std::string_view what, bool allow_string) {
  int64_t x;
  if (v.type() == dom::element_type::INT64) {
    x = int64_t(v);
  } else if (v.type() == dom::element_type::UINT64) {
    return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + " is out of range");
  } else if (allow_string && v.type() == dom::element_type::STRING) {
    std::string_view s = std::string_view(v);
    auto parsed = ParseJson(s, "integer");
    if (!parsed.ok() || !parsed->is_number_integer() || parsed->is_number_unsigned()) {
      if (parsed.ok() && parsed->is_number_unsigned() && parsed->get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)) {
        x = static_cast<int64_t>(parsed->get<uint64_t>());
      } else {
        return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + " must be an integer, got " + Quote(s));
      }
    } else {
      x = parsed->get<int64_t>();
    }
  } else {
    return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + " must be an integer");
  }
  if (x < lo || x > hi) return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + " is out of range");
  return x;
}

Result<uint64_t> AsUint(dom::element v, uint64_t hi, std::string_view what, bool allow_string) {
  uint64_t x;
  if (v.type() == dom::element_type::UINT64) {
    x = uint64_t(v);
  } else if (v.type() == dom::element_type::INT64) {
    int64_t s = int64_t(v);
    if (s < 0) return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + " must not be negative");
    x = static_cast<uint64_t>(s);
  } else if (allow_string && v.type() == dom::element_type::STRING) {
    auto parsed = ParseJson(std::string_view(v), "integer");
    if (!parsed.ok() || !(parsed->is_number_unsigned() || (parsed->is_number_integer() && parsed->get<int64_t>() >= 0))) {
      return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + " must be a non-negative integer");
    }
    x = parsed->get<uint64_t>();
  } else {
    return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + " must be a non-negative integer");
  }
  if (x > hi) return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + " is out of range");
  return x;
}

Result<double> AsDouble(dom::element v, std::string_view what) {
  switch (v.type()) {
    case dom::element_type::INT64: return static_cast<double>(int64_t(v));
    case dom::element_type::UINT64: return static_cast<double>(uint64_t(v));
    case dom::element_type::DOUBLE: return double(v);
    default: return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + " must be a number");
  }
}

Result<Value> ScalarValue(dom::element v, TypeKind kind, std::string_view what) {
  switch (kind) {
    case TypeKind::kString:
      if (v.type() != dom::element_type::STRING) return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + " must be a string");
      return Value::String(std::string(std::string_view(v)));
    case TypeKind::kBool:
      if (v.type() != dom::element_type::BOOL) return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + " must be true or false");
      return Value::Bool(bool(v));
    case TypeKind::kI32: {
      OG_ASSIGN_OR_RETURN(int64_t x, AsInt(v, INT32_MIN, INT32_MAX, what, false));
      return Value::I32(static_cast<int32_t>(x));
    }
    case TypeKind::kI64: {
      OG_ASSIGN_OR_RETURN(int64_t x, AsInt(v, INT64_MIN, INT64_MAX, what, true));
      return Value::I64(x);
    }
    case TypeKind::kU32: {
      OG_ASSIGN_OR_RETURN(uint64_t x, AsUint(v, UINT32_MAX, what, false));
      return Value::U32(static_cast<uint32_t>(x));
    }
    case TypeKind::kU64: {
      OG_ASSIGN_OR_RETURN(uint64_t x, AsUint(v, UINT64_MAX, what, true));
      return Value::U64(x);
    }
    case TypeKind::kF32: {
      OG_ASSIGN_OR_RETURN(double d, AsDouble(v, what));
      if (std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max()) {
        return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + " is out of F32 range");
      }
      return Value::F32(static_cast<float>(d));
    }
    case TypeKind::kF64: {
      OG_ASSIGN_OR_RETURN(double d, AsDouble(v, what));
      return Value::F64(d);
    }
    case TypeKind::kDate: {
      if (v.type() == dom::element_type::STRING) {
        auto d = ParseIsoDate(std::string_view(v));
        if (!d.ok()) return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + ": " + d.status().message());
        return Value::Date(*d);
      }
      OG_ASSIGN_OR_RETURN(int64_t x, AsInt(v, INT32_MIN, INT32_MAX, what, false));
      return Value::Date(static_cast<int32_t>(x));
    }
    case TypeKind::kDateTime: {
      if (v.type() == dom::element_type::STRING) {
        auto ms = ParseIsoDateTimeMillis(std::string_view(v));
        if (!ms.ok()) return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + ": " + ms.status().message());
        return Value::DateTime(*ms);
      }
      OG_ASSIGN_OR_RETURN(int64_t x, AsInt(v, INT64_MIN, INT64_MAX, what, false));
      return Value::DateTime(x);
    }
    case TypeKind::kBlob: {
      if (v.type() != dom::element_type::STRING) return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + " must be a \"base64:...\" string");
      std::string_view s = std::string_view(v);
      if (s.substr(0, 7) != "base64:") {
        return Err(ErrorCode::kLoadTypeMismatch,
                   std::string(what) + " must be \"base64:<payload>\" (external blob URIs are not supported)");
      }
      std::string bytes;
      if (!Base64Decode(s.substr(7), &bytes)) return Err(ErrorCode::kLoadTypeMismatch, std::string(what) + " is not valid base64");
      return Value::Blob(std::move(bytes));
    }
    default: return InternalError("not a scalar kind");
  }
}

Result<Value> PropertyValue(dom::element v, const Property& p) {
  std::string what = "property '" + p.name + "'";
  if (v.is_null()) {
    if (!p.nullable) return Err(ErrorCode::kLoadMissingProperty, what + " is not nullable");
    return Value::Null(p.type);
  }
  if (p.type.kind == TypeKind::kVector) {
    if (v.type() != dom::element_type::ARRAY) return Err(ErrorCode::kLoadTypeMismatch, what + " must be an array of numbers");
    std::vector<float> out;
    for (dom::element x : dom::array(v)) {
      OG_ASSIGN_OR_RETURN(double d, AsDouble(x, what + " element"));
      out.push_back(static_cast<float>(d));
    }
    if (out.size() != p.type.dimension) {
      return Err(ErrorCode::kLoadTypeMismatch, what + " must have " + std::to_string(p.type.dimension) +
                                                   " elements, got " + std::to_string(out.size()));
    }
    return Value::Vector(std::move(out));
  }
  if (p.type.kind == TypeKind::kList) {
    if (v.type() != dom::element_type::ARRAY) return Err(ErrorCode::kLoadTypeMismatch, what + " must be an array");
    std::vector<Value> items;
    for (dom::element x : dom::array(v)) {
      if (x.is_null()) return Err(ErrorCode::kLoadTypeMismatch, what + " must not contain null elements");
      OG_ASSIGN_OR_RETURN(Value item, ScalarValue(x, p.type.element, what + " element"));
      items.push_back(std::move(item));
    }
    return Value::List(p.type.element, std::move(items));
  }
  OG_ASSIGN_OR_RETURN(Value out, ScalarValue(v, p.type.kind, what));
  if (p.is_enum()) {
    const std::string& s = out.string_value();
    if (!std::binary_search(p.enum_values.begin(), p.enum_values.end(), s)) {
      std::string allowed;
      for (const auto& e : p.enum_values) allowed += (allowed.empty() ? "" : ", ") + e;
      return Err(ErrorCode::kLoadEnumValue, what + " value " + Quote(s) + " is not one of: " + allowed);
    }
  }
  return out;
}

Result<std::string> EndpointIdOf(dom::element v, std::string_view which) {
  switch (v.type()) {
    case dom::element_type::STRING: return std::string(std::string_view(v));
    case dom::element_type::INT64: return std::to_string(int64_t(v));
    case dom::element_type::UINT64: return std::to_string(uint64_t(v));
    case dom::element_type::BOOL: return std::string(bool(v) ? "true" : "false");
    case dom::element_type::ARRAY: {
      Json arr = Json::array();
      for (dom::element x : dom::array(v)) {
        OG_ASSIGN_OR_RETURN(std::string part, EndpointIdOf(x, which));
        if (x.type() == dom::element_type::ARRAY) return Err(ErrorCode::kLoadBadId, std::string(which) + " nests arrays");
        arr.push_back(part);
      }
      return CanonicalJson(arr);
    }
    default: return Err(ErrorCode::kLoadBadId, std::string(which) + " must be a node id (string, integer or key array)");
  }
}

bool IsReservedName(std::string_view name) {
  return name == "src" || name == "dst" || name.substr(0, 4) == "_row";
}

Status CheckConstraints(const LoadRecord& r, const TypeRules* rules) {
  if (rules == nullptr) return Status::Ok();
  const auto& props = r.node->properties;
  for (const auto& [idx, bounds] : rules->ranges) {
    if (idx >= r.values.size() || r.values[idx].is_null()) continue;
    const Value& v = r.values[idx];
    double d = v.kind() == TypeKind::kU32 || v.kind() == TypeKind::kU64 ? static_cast<double>(v.uint_value())
               : (v.kind() == TypeKind::kF32 || v.kind() == TypeKind::kF64) ? v.float_value()
                                                                            : static_cast<double>(v.int_value());
    for (const auto& [lo, hi] : bounds) {
      if ((lo && d < *lo) || (hi && d > *hi) || std::isnan(d)) {
        return Err(ErrorCode::kLoadRange, "property '" + props[idx].name + "' value " + v.ToString() +
                                              " is outside its @range");
      }
    }
  }
  for (const auto& [idx, res] : rules->checks) {
    if (idx >= r.values.size() || r.values[idx].is_null()) continue;
    for (const auto& re : res) {
      if (!RE2::FullMatch(r.values[idx].string_value(), *re)) {
        return Err(ErrorCode::kLoadCheck, "property '" + props[idx].name + "' value " +
                                              r.values[idx].ToString() + " does not match @check(" +
                                              Quote(re->pattern()) + ")");
      }
    }
  }
  return Status::Ok();
}

Result<LoadRecord> ParseRecord(dom::element doc, const compiler::Catalog& catalog, const Rules& rules) {
  if (doc.type() != dom::element_type::OBJECT) {
    return Err(ErrorCode::kLoadEnvelope, "a record must be a JSON object");
  }
  std::string dup;
  if (HasDuplicateMembers(doc, &dup)) return Err(ErrorCode::kLoadJson, "member " + Quote(dup) + " appears twice");
  dom::object obj(doc);
  std::optional<dom::element> type_el, edge_el, from_el, to_el, data_el;
  for (auto field : obj) {
    if (field.key == "type") type_el = field.value;
    else if (field.key == "edge") edge_el = field.value;
    else if (field.key == "from") from_el = field.value;
    else if (field.key == "to") to_el = field.value;
    else if (field.key == "data") data_el = field.value;
    else return Err(ErrorCode::kLoadEnvelope, "unknown top-level key " + Quote(field.key) + " (allowed: type, edge, from, to, data)");
  }
  if (type_el.has_value() == edge_el.has_value()) {
    return Err(ErrorCode::kLoadEnvelope, "a record needs exactly one of \"type\" (node) or \"edge\"");
  }
  LoadRecord r;
  r.is_edge = edge_el.has_value();
  dom::element name_el = r.is_edge ? *edge_el : *type_el;
  if (name_el.type() != dom::element_type::STRING) return Err(ErrorCode::kLoadEnvelope, "the type name must be a string");
  std::string_view name = std::string_view(name_el);
  const std::vector<Property>* props;
  if (r.is_edge) {
    r.edge = catalog.FindEdge(name);
    if (r.edge == nullptr) return Err(ErrorCode::kLoadUnknownType, "unknown edge type " + Quote(name));
    if (!from_el || !to_el) return Err(ErrorCode::kLoadEnvelope, "an edge record needs \"from\" and \"to\"");
    OG_ASSIGN_OR_RETURN(r.src, EndpointIdOf(*from_el, "\"from\""));
    OG_ASSIGN_OR_RETURN(r.dst, EndpointIdOf(*to_el, "\"to\""));
    props = &r.edge->properties;
  } else {
    r.node = catalog.FindNode(name);
    if (r.node == nullptr) return Err(ErrorCode::kLoadUnknownType, "unknown node type " + Quote(name));
    if (from_el || to_el) return Err(ErrorCode::kLoadEnvelope, "a node record cannot have \"from\"/\"to\"");
    props = &r.node->properties;
  }
  r.values.resize(props->size());
  std::vector<bool> set(props->size(), false);
  std::optional<std::string> given_id;
  if (data_el) {
    if (data_el->type() != dom::element_type::OBJECT) return Err(ErrorCode::kLoadEnvelope, "\"data\" must be an object");
    for (auto field : dom::object(*data_el)) {
      if (field.key == "id") {
        if (field.value.type() != dom::element_type::STRING) return Err(ErrorCode::kLoadBadId, "\"id\" must be a string");
        given_id = std::string(std::string_view(field.value));
        continue;
      }
      if (IsReservedName(field.key)) {
        return Err(ErrorCode::kLoadReservedProperty, Quote(field.key) + " is reserved and cannot be set in data");
      }
      size_t idx = PropIndex(*props, field.key);
      if (idx == props->size()) {
        return Err(ErrorCode::kLoadUnknownProperty, "type " + Quote(name) + " has no property " + Quote(field.key));
      }
      OG_ASSIGN_OR_RETURN(r.values[idx], PropertyValue(field.value, (*props)[idx]));
      set[idx] = true;
    }
  }
  for (size_t i = 0; i < props->size(); ++i) {
    if (set[i]) continue;
    if (!(*props)[i].nullable) {
      return Err(ErrorCode::kLoadMissingProperty, "non-nullable property " + Quote((*props)[i].name) + " is missing");
    }
    r.values[i] = Value::Null((*props)[i].type);
  }
  if (!r.is_edge) {
    auto it = rules.by_type.find(r.node->name);
    OG_RETURN_IF_ERROR(CheckConstraints(r, it == rules.by_type.end() ? nullptr : &it->second));
  }
  if (!r.is_edge && r.node->has_key()) {
    std::vector<Value> key;
    for (const auto& k : r.node->key) key.push_back(r.values[PropIndex(*props, k)]);
    auto derived = DeriveKeyId(key);
    if (!derived.ok()) return Err(ErrorCode::kLoadBadId, "cannot derive the key id: " + derived.status().message());
    if (given_id && *given_id != *derived) {
      return Err(ErrorCode::kLoadBadId, "\"id\" " + Quote(*given_id) + " differs from the id " +
                                            Quote(*derived) + " derived from @key");
    }
    r.id = *derived;
    r.id_given = true;
  } else if (given_id) {
    if (given_id->empty()) return Err(ErrorCode::kLoadBadId, "\"id\" must not be empty");
    r.id = *given_id;
    r.id_given = true;
  } else {
    r.id = NewUlidString();
  }
  return r;
}

}  // namespace

namespace {

// One scalar converted to `kind` (same kind, or a widening / temporal conversion).
Result<Value> ConformScalar(const Value& v, TypeKind kind, const std::string& what) {
  if (v.kind() == kind) return v;
  auto mismatch = [&] {
    return Err(ErrorCode::kLoadTypeMismatch, what + " must be " +
                                                 std::string(TypeKindName(kind)) + ", got " +
                                                 std::string(TypeKindName(v.kind())));
  };
  bool from_signed = v.kind() == TypeKind::kI32 || v.kind() == TypeKind::kI64;
  bool from_unsigned = v.kind() == TypeKind::kU32 || v.kind() == TypeKind::kU64;
  switch (kind) {
    case TypeKind::kI64:
      if (from_signed) return Value::I64(v.int_value());
      if (from_unsigned) {
        if (v.uint_value() > static_cast<uint64_t>(INT64_MAX)) return Err(ErrorCode::kLoadTypeMismatch, what + " is out of range");
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
  if (p.is_enum() && !std::binary_search(p.enum_values.begin(), p.enum_values.end(), out.string_value())) {
    std::string allowed;
    for (const auto& e : p.enum_values) allowed += (allowed.empty() ? "" : ", ") + e;
    return Err(ErrorCode::kLoadEnumValue, what + " value " + Quote(out.string_value()) + " is not one of: " + allowed);
  }
  return out;
}

struct RecordRules::Impl {
  Rules rules;
};

RecordRules::RecordRules(const compiler::Catalog& catalog) : impl_(std::make_unique<Impl>()) {
  impl_->rules = BuildRules(catalog);
}
RecordRules::~RecordRules() = default;

Status RecordRules::Check(const LoadRecord& r) const {
  if (r.is_edge) return Status::Ok();
  auto it = impl_->rules.by_type.find(r.node->name);
  return CheckConstraints(r, it == impl_->rules.by_type.end() ? nullptr : &it->second);
}

ParsedLoad ParseLoad(std::string_view ndjson, const compiler::Catalog& catalog, size_t max_errors) {
  // Split into lines (1-based numbers), skipping blank ones.
  struct Line {
    uint64_t number;
    std::string_view text;
  };
  std::vector<Line> lines;
  uint64_t number = 0;
  for (size_t pos = 0; pos < ndjson.size();) {
    size_t end = ndjson.find('\n', pos);
    if (end == std::string_view::npos) end = ndjson.size();
    ++number;
    std::string_view text = ndjson.substr(pos, end - pos);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text.find_first_not_of(" \t") != std::string_view::npos) lines.push_back({number, text});
    pos = end + 1;
  }
  Rules rules = BuildRules(catalog);
  constexpr size_t kChunk = 4096;
  size_t chunks = (lines.size() + kChunk - 1) / kChunk;
  std::vector<std::vector<LoadRecord>> records(chunks);
  std::vector<std::vector<LoadError>> errors(chunks);
  (void)ThreadPool::Default().ParallelFor(chunks, [&](size_t c) -> Status {
    dom::parser parser;
    size_t end = std::min(lines.size(), (c + 1) * kChunk);
    records[c].reserve(end - c * kChunk);
    std::string padded;  // one reused, padded copy of the line (simdjson reads past the end)
    for (size_t i = c * kChunk; i < end; ++i) {
      const std::string_view text = lines[i].text;
      padded.assign(text);
      padded.resize(text.size() + simdjson::SIMDJSON_PADDING);
      dom::element doc;
      if (auto err = parser.parse(padded.data(), text.size(), false).get(doc); err) {
        errors[c].push_back({lines[i].number, ErrorCode::kLoadJson, std::string("invalid JSON: ") + simdjson::error_message(err)});
      } else {
        auto rec = ParseRecord(doc, catalog, rules);
        if (rec.ok()) {
          rec->line = lines[i].number;
          records[c].push_back(std::move(rec).value());
        } else {
          errors[c].push_back({lines[i].number, rec.status().code(), rec.status().message()});
        }
      }
      if (errors[c].size() > max_errors) break;  // this chunk alone has enough
    }
    return Status::Ok();
  });
  ParsedLoad out;
  size_t total = 0;
  for (const auto& r : records) total += r.size();
  out.records.reserve(total);
  for (size_t c = 0; c < chunks; ++c) {
    for (auto& e : errors[c]) {
      if (out.errors.size() == max_errors) {
        out.errors_truncated = true;
        break;
      }
      out.errors.push_back(std::move(e));
    }
    if (out.errors.empty()) {
      for (auto& r : records[c]) out.records.push_back(std::move(r));
    }
  }
  if (!out.errors.empty()) out.records.clear();
  return out;
}

}  // namespace omnigraph::engine
