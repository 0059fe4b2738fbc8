#include "compiler/catalog.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

#include "common/error_codes.h"
#include "common/hash.h"
#include "common/json.h"

namespace omnigraph::compiler {
namespace {

constexpr int kFormatVersion = 1;

struct ScalarName {
  TypeKind kind;
  std::string_view name;
};
constexpr ScalarName kScalars[] = {
    {TypeKind::kString, "String"}, {TypeKind::kBlob, "Blob"},         {TypeKind::kBool, "Bool"},
    {TypeKind::kI32, "I32"},       {TypeKind::kI64, "I64"},           {TypeKind::kU32, "U32"},
    {TypeKind::kU64, "U64"},       {TypeKind::kF32, "F32"},           {TypeKind::kF64, "F64"},
    {TypeKind::kDate, "Date"},     {TypeKind::kDateTime, "DateTime"},
};

std::string_view ScalarSpelling(TypeKind k) {
  for (const auto& s : kScalars) {
    if (s.kind == k) return s.name;
  }
  return "?";
}

bool ScalarFromSpelling(std::string_view name, TypeKind* out) {
  for (const auto& s : kScalars) {
    if (s.name == name) {
      *out = s.kind;
      return true;
    }
  }
  return false;
}

// Parses "String" / "[I64]" / "Vector(8)".
bool ParseDataTypeSource(std::string_view s, DataType* out) {
  TypeKind k;
  if (s.size() > 2 && s.front() == '[' && s.back() == ']') {
    if (!ScalarFromSpelling(s.substr(1, s.size() - 2), &k)) return false;
    *out = DataType::List(k);
    return true;
  }
  constexpr std::string_view kVec = "Vector(";
  if (s.size() > kVec.size() + 1 && s.substr(0, kVec.size()) == kVec && s.back() == ')') {
    std::string_view digits = s.substr(kVec.size(), s.size() - kVec.size() - 1);
    if (digits.empty() || digits.size() > 6) return false;
    uint32_t d = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      d = d * 10 + static_cast<uint32_t>(c - '0');
    }
    if (d < 1 || d > 65536) return false;
    *out = DataType::Vector(d);
    return true;
  }
  if (!ScalarFromSpelling(s, &k)) return false;
  *out = DataType::Scalar(k);
  return true;
}

// ---- JSON writing ----

Json ValueJson(const AnnotationValue& v) {
  static constexpr std::string_view kKinds[] = {"string", "int", "float", "bool"};
  return Json{{"kind", kKinds[static_cast<int>(v.kind)]}, {"text", v.text}};
}

Json MetaJson(const Metadata& m) {
  Json j = Json::object();
  if (!m.description.empty()) j["description"] = m.description;
  if (!m.instruction.empty()) j["instruction"] = m.instruction;
  if (!m.rename_from.empty()) j["rename_from"] = m.rename_from;
  if (!m.annotations.empty()) {
    Json arr = Json::array();
    for (const auto& a : m.annotations) {
      Json ja{{"name", a.name}, {"parens", a.has_parens}};
      if (a.positional) ja["positional"] = ValueJson(*a.positional);
      if (!a.named.empty()) {
        Json named = Json::array();
        for (const auto& [k, v] : a.named) named.push_back(Json::array({k, ValueJson(v)}));
        ja["named"] = std::move(named);
      }
      arr.push_back(std::move(ja));
    }
    j["annotations"] = std::move(arr);
  }
  return j;
}

Json PropertyJson(const Property& p) {
  Json j{{"id", p.id},
         {"name", p.name},
         {"type", DataTypeSource(p.type)},
         {"nullable", p.nullable},
         {"index", IndexKindName(p.index)}};
  if (p.is_enum()) j["enum"] = p.enum_values;
  if (p.embed) j["embed"] = Json{{"source", p.embed->source}, {"model", p.embed->model}};
  if (!p.interface_name.empty()) j["interface"] = p.interface_name;
  Json meta = MetaJson(p.meta);
  if (!meta.empty()) j["meta"] = std::move(meta);
  return j;
}

Json PropertiesJson(const std::vector<Property>& props) {
  Json arr = Json::array();
  for (const auto& p : props) arr.push_back(PropertyJson(p));
  return arr;
}

// ---- JSON reading (every failure is kCorrupt naming the field) ----

Status Bad(std::string_view what, std::string_view why) {
  return CorruptError("schema IR: " + std::string(what) + ": " + std::string(why));
}

class Reader {
 public:
  explicit Reader(std::string what) : what_(std::move(what)) {}

  Status Str(const Json& o, const char* f, std::string* out, bool required = true) const {
    auto it = o.find(f);
    if (it == o.end()) return required ? Bad(what_, std::string("missing \"") + f + "\"") : Status();
    if (!it->is_string()) return Bad(what_, std::string("\"") + f + "\" is not a string");
    *out = it->get<std::string>();
    return Status::Ok();
  }
  Status U32(const Json& o, const char* f, uint32_t* out) const {
    auto it = o.find(f);
    if (it == o.end()) return Bad(what_, std::string("missing \"") + f + "\"");
    if (!it->is_number_unsigned() || it->get<uint64_t>() > UINT32_MAX) {
      return Bad(what_, std::string("\"") + f + "\" is not a 32-bit unsigned integer");
    }
    *out = static_cast<uint32_t>(it->get<uint64_t>());
    return Status::Ok();
  }
  Status Bool(const Json& o, const char* f, bool* out) const {
    auto it = o.find(f);
    if (it == o.end() || !it->is_boolean()) return Bad(what_, std::string("bad \"") + f + "\"");
    *out = it->get<bool>();
    return Status::Ok();
  }
  Status Array(const Json& o, const char* f, const Json** out) const {
    static const Json kEmpty = Json::array();
    auto it = o.find(f);
    if (it == o.end()) {
      *out = &kEmpty;
      return Status::Ok();
    }
    if (!it->is_array()) return Bad(what_, std::string("\"") + f + "\" is not an array");
    *out = &*it;
    return Status::Ok();
  }
  Status Strings(const Json& o, const char* f, std::vector<std::string>* out) const {
    const Json* arr;
    OG_RETURN_IF_ERROR(Array(o, f, &arr));
    for (const auto& e : *arr) {
      if (!e.is_string()) return Bad(what_, std::string("\"") + f + "\" holds a non-string");
      out->push_back(e.get<std::string>());
    }
    return Status::Ok();
  }
  const std::string& what() const { return what_; }

 private:
  std::string what_;
};

bool IsTypeNameText(std::string_view s) {
  if (s.empty() || s.size() > 256 || !(s[0] >= 'A' && s[0] <= 'Z')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}
bool IsIdentText(std::string_view s) {
  if (s.empty() || s.size() > 256 || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}
bool IsEnumValueText(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}
bool IsReservedName(std::string_view n) { return n == "id" || n == "src" || n == "dst" || n.substr(0, 4) == "_row"; }

Result<AnnotationValue> ReadValue(const Json& j, const Reader& r) {
  if (!j.is_object()) return Bad(r.what(), "annotation value is not an object");
  AnnotationValue v;
  std::string kind;
  OG_RETURN_IF_ERROR(r.Str(j, "kind", &kind));
  OG_RETURN_IF_ERROR(r.Str(j, "text", &v.text));
  if (kind == "string") {
    v.kind = AnnotationValue::Kind::kString;
  } else if (kind == "int") {
    v.kind = AnnotationValue::Kind::kInt;
  } else if (kind == "float") {
    v.kind = AnnotationValue::Kind::kFloat;
  } else if (kind == "bool") {
    v.kind = AnnotationValue::Kind::kBool;
  } else {
    return Bad(r.what(), "unknown annotation value kind \"" + kind + "\"");
  }
  return v;
}

Status ReadMeta(const Json& owner, const Reader& r, Metadata* m) {
  auto it = owner.find("meta");
  if (it == owner.end()) return Status::Ok();
  const Json& j = *it;
  if (!j.is_object()) return Bad(r.what(), "\"meta\" is not an object");
  OG_RETURN_IF_ERROR(r.Str(j, "description", &m->description, false));
  OG_RETURN_IF_ERROR(r.Str(j, "instruction", &m->instruction, false));
  OG_RETURN_IF_ERROR(r.Str(j, "rename_from", &m->rename_from, false));
  const Json* anns;
  OG_RETURN_IF_ERROR(r.Array(j, "annotations", &anns));
  for (const auto& ja : *anns) {
    if (!ja.is_object()) return Bad(r.what(), "annotation is not an object");
    Annotation a;
    OG_RETURN_IF_ERROR(r.Str(ja, "name", &a.name));
    OG_RETURN_IF_ERROR(r.Bool(ja, "parens", &a.has_parens));
    if (auto p = ja.find("positional"); p != ja.end()) {
      OG_ASSIGN_OR_RETURN(a.positional, ReadValue(*p, r));
    }
    const Json* named;
    OG_RETURN_IF_ERROR(r.Array(ja, "named", &named));
    for (const auto& pair : *named) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string()) {
        return Bad(r.what(), "named annotation argument is not [name, value]");
      }
      OG_ASSIGN_OR_RETURN(auto v, ReadValue(pair[1], r));
      a.named.emplace_back(pair[0].get<std::string>(), std::move(v));
    }
    m->annotations.push_back(std::move(a));
  }
  return Status::Ok();
}

Result<Property> ReadProperty(const Json& j, const std::string& owner) {
  if (!j.is_object()) return Bad(owner, "property is not an object");
  Property p;
  Reader r0(owner);
  OG_RETURN_IF_ERROR(r0.Str(j, "name", &p.name));
  Reader r(owner + "." + p.name);
  if (!IsIdentText(p.name) || IsReservedName(p.name)) return Bad(r.what(), "invalid property name");
  OG_RETURN_IF_ERROR(r.U32(j, "id", &p.id));
  std::string type, index;
  OG_RETURN_IF_ERROR(r.Str(j, "type", &type));
  if (!ParseDataTypeSource(type, &p.type)) return Bad(r.what(), "bad type \"" + type + "\"");
  OG_RETURN_IF_ERROR(r.Bool(j, "nullable", &p.nullable));
  OG_RETURN_IF_ERROR(r.Str(j, "index", &index));
  bool found = false;
  for (auto k : {IndexKind::kNone, IndexKind::kSorted, IndexKind::kFullText, IndexKind::kVector}) {
    if (IndexKindName(k) == index) {
      p.index = k;
      found = true;
    }
  }
  if (!found) return Bad(r.what(), "bad index kind \"" + index + "\"");
  OG_RETURN_IF_ERROR(r.Strings(j, "enum", &p.enum_values));
  if (p.is_enum() &&
      (p.type != DataType::Scalar(TypeKind::kString) || !std::is_sorted(p.enum_values.begin(), p.enum_values.end()) ||
       std::adjacent_find(p.enum_values.begin(), p.enum_values.end()) != p.enum_values.end())) {
    return Bad(r.what(), "enum values must be sorted, unique, on a String property");
  }
  if (!std::all_of(p.enum_values.begin(), p.enum_values.end(), IsEnumValueText)) {
    return Bad(r.what(), "invalid enum value");
  }
  if (p.index != IndexKind::kNone && p.index != IndexKindFor(p.type, p.is_enum())) {
    return Bad(r.what(), "index kind does not match the property type");
  }
  if (auto e = j.find("embed"); e != j.end()) {
    if (!e->is_object()) return Bad(r.what(), "\"embed\" is not an object");
    EmbedSpec spec;
    OG_RETURN_IF_ERROR(r.Str(*e, "source", &spec.source));
    OG_RETURN_IF_ERROR(r.Str(*e, "model", &spec.model));
    if (p.type.kind != TypeKind::kVector) return Bad(r.what(), "@embed on a non-Vector property");
    p.embed = std::move(spec);
  }
  OG_RETURN_IF_ERROR(r.Str(j, "interface", &p.interface_name, false));
  OG_RETURN_IF_ERROR(ReadMeta(j, r, &p.meta));
  return p;
}

Status ReadProperties(const Json& j, const Reader& r, bool need_ids, std::vector<Property>* out) {
  const Json* arr;
  OG_RETURN_IF_ERROR(r.Array(j, "properties", &arr));
  std::set<std::string> names;
  std::set<uint32_t> ids;
  for (const auto& jp : *arr) {
    OG_ASSIGN_OR_RETURN(auto p, ReadProperty(jp, r.what()));
    if (!names.insert(p.name).second) return Bad(r.what(), "duplicate property " + p.name);
    if (need_ids && (p.id == 0 || !ids.insert(p.id).second)) {
      return Bad(r.what(), "property " + p.name + " has a zero or duplicate id");
    }
    out->push_back(std::move(p));
  }
  return Status::Ok();
}

template <class T>
Status CheckNames(const Reader& r, const T& type, const std::vector<std::string>& names, bool allow_endpoints) {
  for (const auto& n : names) {
    if (allow_endpoints && (n == "src" || n == "dst")) continue;
    if (type.FindProperty(n) == nullptr) return Bad(r.what(), "constraint names unknown " + n);
  }
  return Status::Ok();
}

Status ReadUniques(const Json& j, const Reader& r, std::vector<std::vector<std::string>>* out) {
  const Json* arr;
  OG_RETURN_IF_ERROR(r.Array(j, "uniques", &arr));
  for (const auto& u : *arr) {
    if (!u.is_array()) return Bad(r.what(), "unique tuple is not an array");
    std::vector<std::string> tuple;
    for (const auto& e : u) {
      if (!e.is_string()) return Bad(r.what(), "unique tuple holds a non-string");
      tuple.push_back(e.get<std::string>());
    }
    if (tuple.empty()) return Bad(r.what(), "empty unique tuple");
    out->push_back(std::move(tuple));
  }
  return Status::Ok();
}

Status CheckEmbedSources(const Reader& r, const std::vector<Property>& props) {
  for (const auto& p : props) {
    if (!p.embed) continue;
    auto src = std::find_if(props.begin(), props.end(), [&](const Property& q) { return q.name == p.embed->source; });
    if (src == props.end() || src->type.kind != TypeKind::kString) {
      return Bad(r.what(), "@embed source of " + p.name + " is not a String property");
    }
  }
  return Status::Ok();
}

bool IsNumber(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(*out);
}

template <class T>
uint32_t MaxPropertyId(const T& type) {
  uint32_t m = 0;
  for (const auto& p : type.properties) m = std::max(m, p.id);
  return m;
}

// An optional "property_id_high_water" member.
Status ReadHighWater(const Json& j, Reader& r, uint32_t* out) {
  if (!j.contains("property_id_high_water")) return Status::Ok();
  return r.U32(j, "property_id_high_water", out);
}

Result<NodeType> ReadNode(const Json& j) {
  if (!j.is_object()) return Bad("nodes", "entry is not an object");
  NodeType n;
  OG_RETURN_IF_ERROR(Reader("node").Str(j, "name", &n.name));
  Reader r("node " + n.name);
  OG_RETURN_IF_ERROR(r.U32(j, "id", &n.id));
  OG_RETURN_IF_ERROR(r.Strings(j, "interfaces", &n.interfaces));
  OG_RETURN_IF_ERROR(ReadHighWater(j, r, &n.property_id_high_water));
  OG_RETURN_IF_ERROR(ReadProperties(j, r, true, &n.properties));
  if (!IsTypeNameText(n.name)) return Bad(r.what(), "invalid type name");
  OG_RETURN_IF_ERROR(r.Strings(j, "key", &n.key));
  OG_RETURN_IF_ERROR(CheckNames(r, n, n.key, false));
  for (const auto& k : n.key) {
    const Property* kp = n.FindProperty(k);
    if (kp->nullable || !kp->type.is_scalar() || kp->type.kind == TypeKind::kBlob || kp->index == IndexKind::kNone) {
      return Bad(r.what(), "key property " + k + " is nullable, unindexed or not keyable");
    }
  }
  OG_RETURN_IF_ERROR(CheckEmbedSources(r, n.properties));
  OG_RETURN_IF_ERROR(ReadUniques(j, r, &n.uniques));
  for (const auto& u : n.uniques) OG_RETURN_IF_ERROR(CheckNames(r, n, u, false));
  const Json* arr;
  OG_RETURN_IF_ERROR(r.Array(j, "ranges", &arr));
  for (const auto& jr : *arr) {
    if (!jr.is_object()) return Bad(r.what(), "range is not an object");
    RangeConstraint rc;
    OG_RETURN_IF_ERROR(r.Str(jr, "property", &rc.property));
    std::string b;
    double d;
    if (jr.contains("min")) {
      OG_RETURN_IF_ERROR(r.Str(jr, "min", &b));
      if (!IsNumber(b, &d)) return Bad(r.what(), "range bound is not a number");
      rc.min = b;
    }
    if (jr.contains("max")) {
      OG_RETURN_IF_ERROR(r.Str(jr, "max", &b));
      if (!IsNumber(b, &d)) return Bad(r.what(), "range bound is not a number");
      rc.max = b;
    }
    OG_RETURN_IF_ERROR(CheckNames(r, n, {rc.property}, false));
    n.ranges.push_back(std::move(rc));
  }
  OG_RETURN_IF_ERROR(r.Array(j, "checks", &arr));
  for (const auto& jc : *arr) {
    if (!jc.is_object()) return Bad(r.what(), "check is not an object");
    CheckConstraint cc;
    OG_RETURN_IF_ERROR(r.Str(jc, "property", &cc.property));
    OG_RETURN_IF_ERROR(r.Str(jc, "pattern", &cc.pattern));
    OG_RETURN_IF_ERROR(CheckNames(r, n, {cc.property}, false));
    n.checks.push_back(std::move(cc));
  }
  OG_RETURN_IF_ERROR(ReadMeta(j, r, &n.meta));
  return n;
}

Result<EdgeType> ReadEdge(const Json& j) {
  if (!j.is_object()) return Bad("edges", "entry is not an object");
  EdgeType e;
  OG_RETURN_IF_ERROR(Reader("edge").Str(j, "name", &e.name));
  Reader r("edge " + e.name);
  OG_RETURN_IF_ERROR(r.U32(j, "id", &e.id));
  OG_RETURN_IF_ERROR(ReadHighWater(j, r, &e.property_id_high_water));
  OG_RETURN_IF_ERROR(r.Str(j, "from", &e.from_type));
  OG_RETURN_IF_ERROR(r.Str(j, "to", &e.to_type));
  auto c = j.find("card");
  if (c == j.end() || !c->is_object()) return Bad(r.what(), "missing \"card\"");
  OG_RETURN_IF_ERROR(r.U32(*c, "min", &e.card.min));
  if (c->contains("max")) {
    uint32_t mx;
    OG_RETURN_IF_ERROR(r.U32(*c, "max", &mx));
    if (mx < e.card.min) return Bad(r.what(), "card max < min");
    e.card.max = mx;
  }
  if (!IsTypeNameText(e.name)) return Bad(r.what(), "invalid type name");
  OG_RETURN_IF_ERROR(ReadProperties(j, r, true, &e.properties));
  OG_RETURN_IF_ERROR(CheckEmbedSources(r, e.properties));
  OG_RETURN_IF_ERROR(ReadUniques(j, r, &e.uniques));
  for (const auto& u : e.uniques) OG_RETURN_IF_ERROR(CheckNames(r, e, u, true));
  OG_RETURN_IF_ERROR(ReadMeta(j, r, &e.meta));
  return e;
}

template <class T>
const T* FindIn(const std::map<std::string, size_t, std::less<>>& index, const std::vector<T>& items,
                std::string_view name) {
  auto it = index.find(name);
  return it == index.end() ? nullptr : &items[it->second];
}

const Property* FindProp(const std::vector<Property>& props, std::string_view name) {
  for (const auto& p : props) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

}  // namespace

std::string_view IndexKindName(IndexKind kind) {
  switch (kind) {
    case IndexKind::kNone: return "none";
    case IndexKind::kSorted: return "sorted";
    case IndexKind::kFullText: return "fulltext";
    case IndexKind::kVector: return "vector";
  }
  return "none";
}

IndexKind IndexKindFor(const DataType& type, bool is_enum) {
  switch (type.kind) {
    case TypeKind::kString: return is_enum ? IndexKind::kSorted : IndexKind::kFullText;
    case TypeKind::kBlob:
    case TypeKind::kList: return IndexKind::kNone;
    case TypeKind::kVector: return IndexKind::kVector;
    default: return IndexKind::kSorted;
  }
}

std::string DataTypeSource(const DataType& type) {
  switch (type.kind) {
    case TypeKind::kVector: return "Vector(" + std::to_string(type.dimension) + ")";
    case TypeKind::kList: return "[" + std::string(ScalarSpelling(type.element)) + "]";
    default: return std::string(ScalarSpelling(type.kind));
  }
}

std::string PropertyTypeSource(const Property& p) {
  std::string s;
  if (p.is_enum()) {
    s = "enum(";
    for (size_t i = 0; i < p.enum_values.size(); ++i) {
      if (i > 0) s += ", ";
      s += p.enum_values[i];
    }
    s += ")";
  } else {
    s = DataTypeSource(p.type);
  }
  if (p.nullable) s += "?";
  return s;
}

std::optional<double> RangeConstraint::MinValue() const {
  if (!min) return std::nullopt;
  return std::strtod(min->c_str(), nullptr);
}
std::optional<double> RangeConstraint::MaxValue() const {
  if (!max) return std::nullopt;
  return std::strtod(max->c_str(), nullptr);
}

const Property* NodeType::FindProperty(std::string_view name) const { return FindProp(properties, name); }
const Property* EdgeType::FindProperty(std::string_view name) const { return FindProp(properties, name); }

Catalog::Catalog(std::vector<InterfaceType> interfaces, std::vector<NodeType> nodes, std::vector<EdgeType> edges,
                 uint32_t type_id_high_water)
    : interfaces_(std::move(interfaces)),
      nodes_(std::move(nodes)),
      edges_(std::move(edges)),
      type_id_high_water_(type_id_high_water) {
  std::stable_sort(nodes_.begin(), nodes_.end(), [](const NodeType& a, const NodeType& b) { return a.id < b.id; });
  std::stable_sort(edges_.begin(), edges_.end(), [](const EdgeType& a, const EdgeType& b) { return a.id < b.id; });
  auto raise = [](auto& type) {
    for (const auto& p : type.properties) type.property_id_high_water = std::max(type.property_id_high_water, p.id);
  };
  for (auto& n : nodes_) {
    raise(n);
    type_id_high_water_ = std::max(type_id_high_water_, n.id);
  }
  for (auto& e : edges_) {
    raise(e);
    type_id_high_water_ = std::max(type_id_high_water_, e.id);
  }
  Reindex();
}

Catalog::Catalog(const Catalog& other)
    : interfaces_(other.interfaces_),
      nodes_(other.nodes_),
      edges_(other.edges_),
      type_id_high_water_(other.type_id_high_water_) {
  Reindex();
}

Catalog& Catalog::operator=(const Catalog& other) {
  if (this != &other) {
    interfaces_ = other.interfaces_;
    nodes_ = other.nodes_;
    edges_ = other.edges_;
    type_id_high_water_ = other.type_id_high_water_;
    Reindex();
  }
  return *this;
}

void Catalog::Reindex() {
  node_index_.clear();
  edge_index_.clear();
  interface_index_.clear();
  for (size_t i = 0; i < nodes_.size(); ++i) node_index_.emplace(nodes_[i].name, i);
  for (size_t i = 0; i < edges_.size(); ++i) edge_index_.emplace(edges_[i].name, i);
  for (size_t i = 0; i < interfaces_.size(); ++i) interface_index_.emplace(interfaces_[i].name, i);
}

const NodeType* Catalog::FindNode(std::string_view name) const { return FindIn(node_index_, nodes_, name); }
const EdgeType* Catalog::FindEdge(std::string_view name) const { return FindIn(edge_index_, edges_, name); }
const InterfaceType* Catalog::FindInterface(std::string_view name) const {
  return FindIn(interface_index_, interfaces_, name);
}

const EdgeType* Catalog::FindEdgeByQueryName(std::string_view word) const {
  if (word.empty()) return nullptr;
  std::string w(word);
  w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
  if (const EdgeType* e = FindEdge(w)) return e;
  w[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(w[0])));
  return FindEdge(w);
}

std::string Catalog::ToJson() const {
  Json j;
  j["format"] = kFormatVersion;
  Json ifaces = Json::array();
  for (const auto& i : interfaces_) {
    Json ji{{"name", i.name}, {"properties", PropertiesJson(i.properties)}};
    if (!i.key.empty()) ji["key"] = i.key;
    if (!i.uniques.empty()) ji["uniques"] = i.uniques;
    ifaces.push_back(std::move(ji));
  }
  j["interfaces"] = std::move(ifaces);
  Json nodes = Json::array();
  for (const auto& n : nodes_) {
    Json jn{{"id", n.id}, {"name", n.name}, {"properties", PropertiesJson(n.properties)}};
    if (!n.interfaces.empty()) jn["interfaces"] = n.interfaces;
    if (!n.key.empty()) jn["key"] = n.key;
    if (!n.uniques.empty()) jn["uniques"] = n.uniques;
    if (!n.ranges.empty()) {
      Json arr = Json::array();
      for (const auto& r : n.ranges) {
        Json jr{{"property", r.property}};
        if (r.min) jr["min"] = *r.min;
        if (r.max) jr["max"] = *r.max;
        arr.push_back(std::move(jr));
      }
      jn["ranges"] = std::move(arr);
    }
    if (!n.checks.empty()) {
      Json arr = Json::array();
      for (const auto& c : n.checks) arr.push_back(Json{{"property", c.property}, {"pattern", c.pattern}});
      jn["checks"] = std::move(arr);
    }
    Json meta = MetaJson(n.meta);
    if (!meta.empty()) jn["meta"] = std::move(meta);
    if (n.property_id_high_water > MaxPropertyId(n)) jn["property_id_high_water"] = n.property_id_high_water;
    nodes.push_back(std::move(jn));
  }
  j["nodes"] = std::move(nodes);
  Json edges = Json::array();
  for (const auto& e : edges_) {
    Json card{{"min", e.card.min}};
    if (e.card.max) card["max"] = *e.card.max;
    Json je{{"id", e.id},      {"name", e.name}, {"from", e.from_type},
            {"to", e.to_type}, {"card", card},   {"properties", PropertiesJson(e.properties)}};
    if (!e.uniques.empty()) je["uniques"] = e.uniques;
    Json meta = MetaJson(e.meta);
    if (!meta.empty()) je["meta"] = std::move(meta);
    if (e.property_id_high_water > MaxPropertyId(e)) je["property_id_high_water"] = e.property_id_high_water;
    edges.push_back(std::move(je));
  }
  j["edges"] = std::move(edges);
  uint32_t max_type_id = 0;
  for (const auto& n : nodes_) max_type_id = std::max(max_type_id, n.id);
  for (const auto& e : edges_) max_type_id = std::max(max_type_id, e.id);
  if (type_id_high_water_ > max_type_id) j["type_id_high_water"] = type_id_high_water_;
  return CanonicalJson(j);
}

Result<Catalog> Catalog::FromJson(std::string_view json) {
  OG_ASSIGN_OR_RETURN(Json j, ParseJson(json, "schema IR", /*corrupt=*/true));
  if (!j.is_object()) return Bad("schema IR", "not an object");
  Reader r("schema IR");
  auto fmt = j.find("format");
  if (fmt == j.end() || !fmt->is_number_integer() || fmt->get<int64_t>() != kFormatVersion) {
    return Bad("schema IR", "missing or unsupported \"format\" (expected 1)");
  }
  std::set<std::string> names;
  std::set<uint32_t> ids;
  std::vector<InterfaceType> ifaces;
  const Json* arr;
  OG_RETURN_IF_ERROR(r.Array(j, "interfaces", &arr));
  for (const auto& ji : *arr) {
    if (!ji.is_object()) return Bad("interfaces", "entry is not an object");
    InterfaceType it;
    OG_RETURN_IF_ERROR(r.Str(ji, "name", &it.name));
    Reader ri("interface " + it.name);
    if (!IsTypeNameText(it.name)) return Bad(ri.what(), "invalid type name");
    OG_RETURN_IF_ERROR(ReadProperties(ji, ri, false, &it.properties));
    OG_RETURN_IF_ERROR(ri.Strings(ji, "key", &it.key));
    OG_RETURN_IF_ERROR(ReadUniques(ji, ri, &it.uniques));
    if (!names.insert(it.name).second) return Bad(ri.what(), "duplicate type name");
    ifaces.push_back(std::move(it));
  }
  std::vector<NodeType> nodes;
  OG_RETURN_IF_ERROR(r.Array(j, "nodes", &arr));
  for (const auto& jn : *arr) {
    OG_ASSIGN_OR_RETURN(auto n, ReadNode(jn));
    if (!names.insert(n.name).second) return Bad("node " + n.name, "duplicate type name");
    if (n.id == 0 || !ids.insert(n.id).second) return Bad("node " + n.name, "zero or duplicate id");
    nodes.push_back(std::move(n));
  }
  std::set<std::string> iface_names;
  for (const auto& i : ifaces) iface_names.insert(i.name);
  for (const auto& n : nodes) {
    for (const auto& i : n.interfaces) {
      if (!iface_names.count(i)) return Bad("node " + n.name, "unknown interface " + i);
    }
    for (const auto& p : n.properties) {
      if (!p.interface_name.empty() &&
          std::find(n.interfaces.begin(), n.interfaces.end(), p.interface_name) == n.interfaces.end()) {
        return Bad("node " + n.name, "property " + p.name + " names an interface it does not implement");
      }
    }
  }
  std::set<std::string> node_names;
  for (const auto& n : nodes) node_names.insert(n.name);
  std::vector<EdgeType> edges;
  OG_RETURN_IF_ERROR(r.Array(j, "edges", &arr));
  for (const auto& je : *arr) {
    OG_ASSIGN_OR_RETURN(auto e, ReadEdge(je));
    if (!names.insert(e.name).second) return Bad("edge " + e.name, "duplicate type name");
    if (e.id == 0 || !ids.insert(e.id).second) return Bad("edge " + e.name, "zero or duplicate id");
    if (!node_names.count(e.from_type) || !node_names.count(e.to_type)) {
      return Bad("edge " + e.name, "endpoint is not a node type");
    }
    edges.push_back(std::move(e));
  }
  uint32_t type_hw = 0;
  if (j.contains("type_id_high_water")) OG_RETURN_IF_ERROR(r.U32(j, "type_id_high_water", &type_hw));
  Catalog out(std::move(ifaces), std::move(nodes), std::move(edges), type_hw);
  // Stored only when above every present id: anything else is not the canonical form.
  for (const auto& jn : j["nodes"]) {
    const NodeType* n = out.FindNode(jn["name"].get<std::string>());
    if (jn.contains("property_id_high_water") && n->property_id_high_water <= MaxPropertyId(*n)) {
      return Bad("node " + n->name, "property_id_high_water is not above every property id");
    }
  }
  for (const auto& je : j["edges"]) {
    const EdgeType* e = out.FindEdge(je["name"].get<std::string>());
    if (je.contains("property_id_high_water") && e->property_id_high_water <= MaxPropertyId(*e)) {
      return Bad("edge " + e->name, "property_id_high_water is not above every property id");
    }
  }
  if (j.contains("type_id_high_water") && out.ToJson().find("type_id_high_water") == std::string::npos) {
    return Bad("schema IR", "type_id_high_water is not above every type id");
  }
  return out;
}

std::string Catalog::SchemaId() const { return Sha256Hex(ToJson()); }

}  // namespace omnigraph::compiler
