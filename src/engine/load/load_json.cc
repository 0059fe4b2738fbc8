#include "engine/load/load_json.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "common/base64.h"
#include "common/json.h"
#include "common/ulid.h"

namespace omnigraph::engine {
namespace {

namespace dom = simdjson::dom;
using compiler::Property;

Status Err(ErrorCode code, std::string msg) { return Status(code, std::move(msg)); }

std::string Quote(std::string_view s) { return Json(std::string(s)).dump(); }

// What a message is about ("property 'age'", "property 'tags' element"); spelled out only on error.
struct What {
  const std::string& name;
  bool element = false;
  std::string str() const { return "property '" + name + "'" + (element ? " element" : ""); }
};

Status Mismatch(const What& what, std::string_view rest) {
  return Err(ErrorCode::kLoadTypeMismatch, what.str() + std::string(rest));
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
      if (n < 16)
        inline_seen[n] = key;
      else
        more.push_back(key);
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

Result<int64_t> AsInt(dom::element v, int64_t lo, int64_t hi, const What& what, bool allow_string) {
  int64_t x;
  if (v.type() == dom::element_type::INT64) {
    x = int64_t(v);
  } else if (v.type() == dom::element_type::UINT64) {
    return Mismatch(what, " is out of range");
  } else if (allow_string && v.type() == dom::element_type::STRING) {
    std::string_view s = std::string_view(v);
    auto parsed = ParseJson(s, "integer");
    if (!parsed.ok() || !parsed->is_number_integer() || parsed->is_number_unsigned()) {
      if (parsed.ok() && parsed->is_number_unsigned() && parsed->get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)) {
        x = static_cast<int64_t>(parsed->get<uint64_t>());
      } else {
        return Mismatch(what, " must be an integer, got " + Quote(s));
      }
    } else {
      x = parsed->get<int64_t>();
    }
  } else {
    return Mismatch(what, " must be an integer");
  }
  if (x < lo || x > hi) return Mismatch(what, " is out of range");
  return x;
}

Result<uint64_t> AsUint(dom::element v, uint64_t hi, const What& what, bool allow_string) {
  uint64_t x;
  if (v.type() == dom::element_type::UINT64) {
    x = uint64_t(v);
  } else if (v.type() == dom::element_type::INT64) {
    int64_t s = int64_t(v);
    if (s < 0) return Mismatch(what, " must not be negative");
    x = static_cast<uint64_t>(s);
  } else if (allow_string && v.type() == dom::element_type::STRING) {
    auto parsed = ParseJson(std::string_view(v), "integer");
    if (!parsed.ok() ||
        !(parsed->is_number_unsigned() || (parsed->is_number_integer() && parsed->get<int64_t>() >= 0))) {
      return Mismatch(what, " must be a non-negative integer");
    }
    x = parsed->get<uint64_t>();
  } else {
    return Mismatch(what, " must be a non-negative integer");
  }
  if (x > hi) return Mismatch(what, " is out of range");
  return x;
}

Result<double> AsDouble(dom::element v, const What& what) {
  switch (v.type()) {
    case dom::element_type::INT64: return static_cast<double>(int64_t(v));
    case dom::element_type::UINT64: return static_cast<double>(uint64_t(v));
    case dom::element_type::DOUBLE: return double(v);
    default: return Mismatch(what, " must be a number");
  }
}

Result<Value> ScalarValue(dom::element v, TypeKind kind, const What& what) {
  switch (kind) {
    case TypeKind::kString:
      if (v.type() != dom::element_type::STRING) return Mismatch(what, " must be a string");
      return Value::String(std::string(std::string_view(v)));
    case TypeKind::kBool:
      if (v.type() != dom::element_type::BOOL) return Mismatch(what, " must be true or false");
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
      if (!FitsF32(d)) return Mismatch(what, " is out of F32 range");
      return Value::F32(static_cast<float>(d));
    }
    case TypeKind::kF64: {
      OG_ASSIGN_OR_RETURN(double d, AsDouble(v, what));
      return Value::F64(d);
    }
    case TypeKind::kDate: {
      if (v.type() == dom::element_type::STRING) {
        auto d = ParseIsoDate(std::string_view(v));
        if (!d.ok()) return Mismatch(what, ": " + d.status().message());
        return Value::Date(*d);
      }
      OG_ASSIGN_OR_RETURN(int64_t x, AsInt(v, INT32_MIN, INT32_MAX, what, false));
      return Value::Date(static_cast<int32_t>(x));
    }
    case TypeKind::kDateTime: {
      if (v.type() == dom::element_type::STRING) {
        auto ms = ParseIsoDateTimeMillis(std::string_view(v));
        if (!ms.ok()) return Mismatch(what, ": " + ms.status().message());
        return Value::DateTime(*ms);
      }
      OG_ASSIGN_OR_RETURN(int64_t x, AsInt(v, INT64_MIN, INT64_MAX, what, false));
      return Value::DateTime(x);
    }
    case TypeKind::kBlob: {
      if (v.type() != dom::element_type::STRING) return Mismatch(what, " must be a \"base64:...\" string");
      std::string_view s = std::string_view(v);
      if (s.substr(0, 7) != "base64:") {
        return Mismatch(what, " must be \"base64:<payload>\" (external blob URIs are not supported)");
      }
      std::string bytes;
      if (!Base64Decode(s.substr(7), &bytes)) return Mismatch(what, " is not valid base64");
      return Value::Blob(std::move(bytes));
    }
    default: return InternalError("not a scalar kind");
  }
}

Status CheckEnum(std::string_view s, const Property& p) {
  if (std::binary_search(p.enum_values.begin(), p.enum_values.end(), s)) return Status::Ok();
  std::string allowed;
  for (const auto& e : p.enum_values) allowed += (allowed.empty() ? "" : ", ") + e;
  return Err(ErrorCode::kLoadEnumValue, What{p.name}.str() + " value " + Quote(s) + " is not one of: " + allowed);
}

// A non-null value of property `p` as a Value (the general path; strings take AppendProperty's).
Result<Value> PropertyValue(dom::element v, const Property& p) {
  const What what{p.name};
  if (p.type.kind == TypeKind::kVector) {
    if (v.type() != dom::element_type::ARRAY) return Mismatch(what, " must be an array of numbers");
    std::vector<float> out;
    for (dom::element x : dom::array(v)) {
      OG_ASSIGN_OR_RETURN(double d, AsDouble(x, What{p.name, true}));
      if (!FitsF32(d)) {
        return Mismatch(What{p.name, true},
                        " " + std::to_string(out.size()) + " is out of F32 range (vector elements are F32)");
      }
      out.push_back(static_cast<float>(d));
    }
    if (out.size() != p.type.dimension) {
      return Mismatch(
          what, " must have " + std::to_string(p.type.dimension) + " elements, got " + std::to_string(out.size()));
    }
    return Value::Vector(std::move(out));
  }
  if (p.type.kind == TypeKind::kList) {
    if (v.type() != dom::element_type::ARRAY) return Mismatch(what, " must be an array");
    std::vector<Value> items;
    for (dom::element x : dom::array(v)) {
      if (x.is_null()) return Mismatch(what, " must not contain null elements");
      OG_ASSIGN_OR_RETURN(Value item, ScalarValue(x, p.type.element, What{p.name, true}));
      items.push_back(std::move(item));
    }
    return Value::List(p.type.element, std::move(items));
  }
  OG_ASSIGN_OR_RETURN(Value out, ScalarValue(v, p.type.kind, what));
  if (p.is_enum()) OG_RETURN_IF_ERROR(CheckEnum(out.string_value(), p));
  return out;
}

// Appends property `p`'s cell (null allowed when nullable) to `b`; `stash`, when given, receives
// the value. Strings (the bulk of most loads) go straight from the JSON text to the column.
Status AppendProperty(dom::element v, const Property& p, format::ColumnBuilder& b, Value* stash) {
  if (v.is_null()) {
    if (!p.nullable) return Err(ErrorCode::kLoadMissingProperty, What{p.name}.str() + " is not nullable");
    b.AppendNull();
    return Status::Ok();
  }
  if (stash == nullptr && p.type.kind == TypeKind::kString) {
    if (v.type() != dom::element_type::STRING) return Mismatch(What{p.name}, " must be a string");
    const std::string_view s(v);
    if (p.is_enum()) OG_RETURN_IF_ERROR(CheckEnum(s, p));
    b.AppendString(s);
    return Status::Ok();
  }
  // Plain JSON integers, floats and booleans: straight to the column (the general path below
  // handles strings for integers, ranges and every error).
  if (stash == nullptr) {
    const dom::element_type t = v.type();
    switch (p.type.kind) {
      case TypeKind::kI64:
        if (t == dom::element_type::INT64) {
          b.AppendI64(int64_t(v));
          return Status::Ok();
        }
        break;
      case TypeKind::kF64:
        if (t == dom::element_type::DOUBLE) {
          b.AppendF64(double(v));
          return Status::Ok();
        }
        break;
      case TypeKind::kBool:
        if (t == dom::element_type::BOOL) {
          b.AppendBool(bool(v));
          return Status::Ok();
        }
        break;
      default: break;
    }
  }
  OG_ASSIGN_OR_RETURN(Value value, PropertyValue(v, p));
  if (p.type.kind == TypeKind::kBlob) {
    b.AppendString(value.string_value());  // raw payload; descriptors replace it when staged
  } else {
    OG_RETURN_IF_ERROR(b.Append(value));
  }
  if (stash != nullptr) *stash = std::move(value);
  return Status::Ok();
}

// An endpoint's node id: a string as is, integers and bools in decimal / true / false, a key
// array as the canonical JSON array of its parts.
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
        if (x.type() == dom::element_type::ARRAY)
          return Err(ErrorCode::kLoadBadId, std::string(which) + " nests arrays");
        arr.push_back(part);
      }
      return CanonicalJson(arr);
    }
    default:
      return Err(ErrorCode::kLoadBadId, std::string(which) + " must be a node id (string, integer or key array)");
  }
}

Status AppendEndpoint(dom::element v, std::string_view which, format::ColumnBuilder& b) {
  if (v.type() == dom::element_type::STRING) {
    b.AppendString(std::string_view(v));
    return Status::Ok();
  }
  OG_ASSIGN_OR_RETURN(std::string id, EndpointIdOf(v, which));
  b.AppendString(id);
  return Status::Ok();
}

bool IsReservedName(std::string_view name) { return name == "src" || name == "dst" || name.substr(0, 4) == "_row"; }

size_t PropIndex(const std::vector<Property>& props, std::string_view name) {
  for (size_t i = 0; i < props.size(); ++i) {
    if (props[i].name == name) return i;
  }
  return props.size();
}

}  // namespace

RecordParser::RecordParser(const compiler::Catalog& catalog) : catalog_(catalog), rules_(catalog) {
  for (const auto& n : catalog.nodes()) {
    Slot s;
    s.node = &n;
    s.stash.assign(n.properties.size(), 0);
    for (size_t i = 0; i < n.properties.size(); ++i) {
      if (rules_.Constrains(n, i)) s.stash[i] = 1;
    }
    s.constrained = std::find(s.stash.begin(), s.stash.end(), 1) != s.stash.end();
    for (const auto& k : n.key) s.key.push_back(PropIndex(n.properties, k));
    if (s.key.size() == 1 && n.properties[s.key[0]].type.kind == TypeKind::kString && !s.stash[s.key[0]]) {
      s.string_key = s.key[0];
    } else {
      for (size_t k : s.key) s.stash[k] = 1;
    }
    s.any_stash = std::find(s.stash.begin(), s.stash.end(), 1) != s.stash.end();
    slots_.push_back(std::move(s));
  }
  for (const auto& e : catalog.edges()) {
    Slot s;
    s.edge = &e;
    slots_.push_back(std::move(s));
  }
}

RecordParser::~RecordParser() = default;

Status RecordParser::AppendEndpoints(dom::element from, dom::element to, TypeSegmentBuilder& g) const {
  OG_RETURN_IF_ERROR(AppendEndpoint(from, "\"from\"", g.srcs));
  return AppendEndpoint(to, "\"to\"", g.dsts);
}

Status RecordParser::AppendId(const Slot& slot, ParsedPiece& piece, std::string_view key_string, bool has_key_string,
                              std::optional<std::string_view> given_id, TypeSegmentBuilder& g) const {
  if (slot.node != nullptr && slot.node->has_key()) {
    std::string derived_storage;
    std::string_view derived = key_string;
    if (!has_key_string) {
      std::vector<Value> key;
      for (size_t k : slot.key) {
        key.push_back(slot.string_key == k ? Value::Null(slot.node->properties[k].type) : piece.stash[k]);
      }
      auto d = DeriveKeyId(key);
      if (!d.ok()) return Err(ErrorCode::kLoadBadId, "cannot derive the key id: " + d.status().message());
      derived_storage = std::move(d).value();
      derived = derived_storage;
    }
    if (given_id && *given_id != derived) {
      return Err(ErrorCode::kLoadBadId,
                 "\"id\" " + Quote(*given_id) + " differs from the id " + Quote(derived) + " derived from @key");
    }
    g.ids.AppendString(derived);
    g.flags.push_back(kIdGiven);
  } else if (given_id) {
    if (given_id->empty()) return Err(ErrorCode::kLoadBadId, "\"id\" must not be empty");
    g.ids.AppendString(*given_id);
    g.flags.push_back(kIdGiven);
  } else {
    if (piece.next_ulid == piece.ulids.size()) {
      Ulid::GenerateMany(piece.ulids);  // one lock per block, not per record
      piece.next_ulid = 0;
    }
    char chars[26];
    piece.ulids[piece.next_ulid++].ToChars(chars);
    g.ids.AppendString(std::string_view(chars, sizeof(chars)));
    g.flags.push_back(0);
  }
  return Status::Ok();
}

namespace {
Status DuplicateMember(std::string_view key) {
  return Err(ErrorCode::kLoadJson, "member " + Quote(key) + " appears twice");
}
}  // namespace

Status RecordParser::Parse(dom::element doc, uint64_t line, ParsedPiece* out) const {
  Status s = ParseRecord(doc, line, out);
  // A duplicate member is a JSON-level error and is reported before any other: the record's
  // other error may stem from the duplicate (or hide it). The whole walk runs only here.
  std::string dup;
  if (!s.ok() && s.code() != ErrorCode::kLoadJson && HasDuplicateMembers(doc, &dup)) return DuplicateMember(dup);
  return s;
}

Status RecordParser::ParseRecord(dom::element doc, uint64_t line, ParsedPiece* out) const {
  if (doc.type() != dom::element_type::OBJECT) {
    return Err(ErrorCode::kLoadEnvelope, "a record must be a JSON object");
  }
  // Duplicate members are found where the members are read: a second top-level key, a second
  // "id", a property seen twice. No valid property value holds an object, so a duplicate nested
  // deeper always fails the record, and Parse then finds it.
  auto duplicate = DuplicateMember;
  std::optional<dom::element> type_el, edge_el, from_el, to_el, data_el;
  for (auto field : dom::object(doc)) {
    // The envelope keys by length and a 4-byte compare (no string compare calls per record).
    std::optional<dom::element>* slot = nullptr;
    const std::string_view key = field.key;
    if (key.size() == 2 && key[0] == 't' && key[1] == 'o') {
      slot = &to_el;
    } else if (key.size() == 4) {
      uint32_t k;
      std::memcpy(&k, key.data(), 4);
      auto word = [](const char(&w)[5]) {
        uint32_t v;
        std::memcpy(&v, w, 4);
        return v;
      };
      slot = k == word("type")   ? &type_el
             : k == word("edge") ? &edge_el
             : k == word("from") ? &from_el
             : k == word("data") ? &data_el
                                 : nullptr;
    }
    if (slot == nullptr) {
      return Err(ErrorCode::kLoadEnvelope,
                 "unknown top-level key " + Quote(field.key) + " (allowed: type, edge, from, to, data)");
    }
    if (slot->has_value()) return duplicate(field.key);
    *slot = field.value;
  }
  if (type_el.has_value() == edge_el.has_value()) {
    return Err(ErrorCode::kLoadEnvelope, "a record needs exactly one of \"type\" (node) or \"edge\"");
  }
  const bool is_edge = edge_el.has_value();
  dom::element name_el = is_edge ? *edge_el : *type_el;
  if (name_el.type() != dom::element_type::STRING)
    return Err(ErrorCode::kLoadEnvelope, "the type name must be a string");
  const std::string_view name = std::string_view(name_el);
  size_t slot_index = out->last_slot;
  const bool same_type = slot_index != SIZE_MAX && out->last_is_edge == is_edge && out->last_type == name;
  if (is_edge) {
    if (!same_type) {
      const compiler::EdgeType* edge = catalog_.FindEdge(name);
      if (edge == nullptr) return Err(ErrorCode::kLoadUnknownType, "unknown edge type " + Quote(name));
      slot_index = catalog_.nodes().size() + static_cast<size_t>(edge - catalog_.edges().data());
    }
    if (!from_el || !to_el) return Err(ErrorCode::kLoadEnvelope, "an edge record needs \"from\" and \"to\"");
  } else {
    if (!same_type) {
      const compiler::NodeType* node = catalog_.FindNode(name);
      if (node == nullptr) return Err(ErrorCode::kLoadUnknownType, "unknown node type " + Quote(name));
      slot_index = static_cast<size_t>(node - catalog_.nodes().data());
    }
    if (from_el || to_el) return Err(ErrorCode::kLoadEnvelope, "a node record cannot have \"from\"/\"to\"");
  }
  if (!same_type) {
    out->last_type.assign(name);
    out->last_is_edge = is_edge;
    out->last_slot = slot_index;
  }
  const Slot& slot = slots_[slot_index];
  const std::vector<Property>& props = is_edge ? slot.edge->properties : slot.node->properties;
  auto& group = out->groups[slot_index];
  if (group == nullptr) group = std::make_unique<TypeSegmentBuilder>(props);
  TypeSegmentBuilder& g = *group;
  if (is_edge) OG_RETURN_IF_ERROR(AppendEndpoints(*from_el, *to_el, g));
  out->seen.assign(props.size(), 0);
  if (slot.any_stash) out->stash.assign(props.size(), Value());
  std::optional<std::string_view> given_id;
  std::string_view key_string;
  bool has_key_string = false;
  if (data_el) {
    if (data_el->type() != dom::element_type::OBJECT)
      return Err(ErrorCode::kLoadEnvelope, "\"data\" must be an object");
    size_t position = 0;  // of the member among the properties set so far
    for (auto field : dom::object(*data_el)) {
      if (field.key == "id") {
        if (given_id) return duplicate(field.key);
        if (field.value.type() != dom::element_type::STRING)
          return Err(ErrorCode::kLoadBadId, "\"id\" must be a string");
        given_id = std::string_view(field.value);
        continue;
      }
      if (IsReservedName(field.key)) {
        return Err(ErrorCode::kLoadReservedProperty, Quote(field.key) + " is reserved and cannot be set in data");
      }
      // Members usually come in declaration order: try the next position before searching.
      const size_t idx =
          position < props.size() && props[position].name == field.key ? position : PropIndex(props, field.key);
      ++position;
      if (idx == props.size()) {
        return Err(ErrorCode::kLoadUnknownProperty, "type " + Quote(name) + " has no property " + Quote(field.key));
      }
      if (out->seen[idx]) return duplicate(field.key);
      OG_RETURN_IF_ERROR(AppendProperty(field.value, props[idx], g.values[idx],
                                        slot.any_stash && slot.stash[idx] ? &out->stash[idx] : nullptr));
      out->seen[idx] = 1;
      if (idx == slot.string_key && !field.value.is_null()) {
        key_string = std::string_view(field.value);
        has_key_string = true;
      }
    }
  }
  for (size_t i = 0; i < props.size(); ++i) {
    if (out->seen[i]) continue;
    if (!props[i].nullable) {
      return Err(ErrorCode::kLoadMissingProperty, "non-nullable property " + Quote(props[i].name) + " is missing");
    }
    g.values[i].AppendNull();
  }
  if (slot.constrained) OG_RETURN_IF_ERROR(rules_.Check(*slot.node, out->stash));
  OG_RETURN_IF_ERROR(AppendId(slot, *out, key_string, has_key_string, given_id, g));
  g.lines.push_back(line);
  return Status::Ok();
}

}  // namespace omnigraph::engine
