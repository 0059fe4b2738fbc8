#include "table/manifest.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/check.h"
#include "common/error_codes.h"
#include "common/hash.h"
#include "common/json.h"
#include "table/table_layout.h"

namespace omnigraph::table {
namespace {

constexpr std::string_view kEnvelopeHead = "{\"checksum\":\"";
constexpr std::string_view kEnvelopeMid = "\",\"manifest\":";

struct KindName {
  TypeKind kind;
  std::string_view name;
};
constexpr KindName kKinds[] = {
    {TypeKind::kString, "String"}, {TypeKind::kBlob, "Blob"},         {TypeKind::kBool, "Bool"},
    {TypeKind::kI32, "I32"},       {TypeKind::kI64, "I64"},           {TypeKind::kU32, "U32"},
    {TypeKind::kU64, "U64"},       {TypeKind::kF32, "F32"},           {TypeKind::kF64, "F64"},
    {TypeKind::kDate, "Date"},     {TypeKind::kDateTime, "DateTime"},
};

std::string_view KindToName(TypeKind k) {
  for (const auto& kn : kKinds) {
    if (kn.kind == k) return kn.name;
  }
  return "?";
}

bool NameToKind(std::string_view name, TypeKind* out) {
  for (const auto& kn : kKinds) {
    if (kn.name == name) {
      *out = kn.kind;
      return true;
    }
  }
  return false;
}

bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    }
    i += n;
  }
  return true;
}

Status Bad(bool corrupt, std::string m) {
  return corrupt ? CorruptError(std::move(m)) : InvalidArgumentError(std::move(m));
}

// --- stats values ---

bool StatsValueEncodable(const Value& v) {
  if (v.is_null()) return false;
  switch (v.kind()) {
    case TypeKind::kString: return v.string_value().size() <= 64 && ValidUtf8(v.string_value());
    case TypeKind::kF32:
    case TypeKind::kF64: return std::isfinite(v.float_value());
    case TypeKind::kBool:
    case TypeKind::kI32:
    case TypeKind::kI64:
    case TypeKind::kU32:
    case TypeKind::kU64:
    case TypeKind::kDate:
    case TypeKind::kDateTime: return true;
    default: return false;
  }
}

Json StatsValueToJson(const Value& v) {
  switch (v.kind()) {
    case TypeKind::kString: return v.string_value();
    case TypeKind::kBool: return v.bool_value();
    case TypeKind::kU32:
    case TypeKind::kU64: return v.uint_value();
    case TypeKind::kF32:
    case TypeKind::kF64: return v.float_value();
    default: return v.int_value();
  }
}

Result<Value> StatsValueFromJson(const Json& j, const DataType& t, std::string_view what) {
  auto bad = [&] { return CorruptError(std::string(what) + ": statistic does not match its column type"); };
  switch (t.kind) {
    case TypeKind::kString:
      if (!j.is_string()) return bad();
      return Value::String(j.get<std::string>());
    case TypeKind::kBool:
      if (!j.is_boolean()) return bad();
      return Value::Bool(j.get<bool>());
    case TypeKind::kU32:
    case TypeKind::kU64: {
      if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<int64_t>() >= 0)) return bad();
      uint64_t u = j.get<uint64_t>();
      if (t.kind == TypeKind::kU32) {
        if (u > UINT32_MAX) return bad();
        return Value::U32(static_cast<uint32_t>(u));
      }
      return Value::U64(u);
    }
    case TypeKind::kF32:
    case TypeKind::kF64:
      if (!j.is_number()) return bad();
      return t.kind == TypeKind::kF32 ? Value::F32(static_cast<float>(j.get<double>())) : Value::F64(j.get<double>());
    case TypeKind::kI32:
    case TypeKind::kI64:
    case TypeKind::kDate:
    case TypeKind::kDateTime: {
      if (!j.is_number_integer()) return bad();
      if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return bad();
      int64_t x = j.get<int64_t>();
      if (t.kind == TypeKind::kI32 || t.kind == TypeKind::kDate) {
        if (x < INT32_MIN || x > INT32_MAX) return bad();
        return t.kind == TypeKind::kI32 ? Value::I32(static_cast<int32_t>(x)) : Value::Date(static_cast<int32_t>(x));
      }
      return t.kind == TypeKind::kI64 ? Value::I64(x) : Value::DateTime(x);
    }
    default: return bad();
  }
}

// --- typed JSON access that reports kCorrupt ---

Result<const Json*> Member(const Json& obj, std::string_view field, std::string_view what) {
  if (!obj.is_object()) return CorruptError(std::string(what) + ": expected an object");
  auto it = obj.find(field);
  if (it == obj.end()) return CorruptError(std::string(what) + ": field '" + std::string(field) + "' is missing");
  return &*it;
}

Result<uint64_t> U64At(const Json& obj, std::string_view field, std::string_view what) {
  OG_ASSIGN_OR_RETURN(const Json* v, Member(obj, field, what));
  if (v->is_number_unsigned()) return v->get<uint64_t>();
  if (v->is_number_integer() && v->get<int64_t>() >= 0) return static_cast<uint64_t>(v->get<int64_t>());
  return CorruptError(std::string(what) + ": field '" + std::string(field) + "' must be a non-negative integer");
}

Result<uint32_t> U32At(const Json& obj, std::string_view field, std::string_view what) {
  OG_ASSIGN_OR_RETURN(uint64_t v, U64At(obj, field, what));
  if (v > UINT32_MAX) return CorruptError(std::string(what) + ": field '" + std::string(field) + "' is out of range");
  return static_cast<uint32_t>(v);
}

Result<std::string> StrAt(const Json& obj, std::string_view field, std::string_view what) {
  OG_ASSIGN_OR_RETURN(const Json* v, Member(obj, field, what));
  if (!v->is_string()) return CorruptError(std::string(what) + ": field '" + std::string(field) + "' must be a string");
  return v->get<std::string>();
}

Result<const Json*> ArrAt(const Json& obj, std::string_view field, std::string_view what) {
  OG_ASSIGN_OR_RETURN(const Json* v, Member(obj, field, what));
  if (!v->is_array()) return CorruptError(std::string(what) + ": field '" + std::string(field) + "' must be an array");
  return v;
}

Result<bool> BoolAt(const Json& obj, std::string_view field, std::string_view what) {
  OG_ASSIGN_OR_RETURN(const Json* v, Member(obj, field, what));
  if (!v->is_boolean())
    return CorruptError(std::string(what) + ": field '" + std::string(field) + "' must be a boolean");
  return v->get<bool>();
}

Result<std::string> RelKeyAt(const Json& obj, std::string_view field, std::string_view what, bool allow_empty) {
  OG_ASSIGN_OR_RETURN(std::string k, StrAt(obj, field, what));
  if (k.empty() && allow_empty) return k;
  if (!IsValidRelativeKey(k)) return CorruptError(std::string(what) + ": invalid object key '" + k + "'");
  return k;
}

// --- encoders ---

Json FieldToJson(const Field& f) {
  return Json{{"id", f.id}, {"name", f.name}, {"type", TypeToString(f.type)}, {"nullable", f.nullable}};
}

Json FragmentToJson(const FragmentMeta& f) {
  Json stats = Json::object();
  for (const auto& [fid, s] : f.stats) {
    Json js{{"nulls", s.null_count}, {"nans", s.nan_count}};
    if (s.min && StatsValueEncodable(*s.min)) js["min"] = StatsValueToJson(*s.min);
    if (s.max && StatsValueEncodable(*s.max)) js["max"] = StatsValueToJson(*s.max);
    stats[std::to_string(fid)] = std::move(js);
  }
  return Json{{"id", f.id},
              {"file", f.file_key},
              {"file_size", f.file_size},
              {"tail_size", f.tail_size},
              {"rows", f.physical_rows},
              {"deletion", f.deletion_key},
              {"deleted", f.deleted_rows},
              {"blobs", f.blob_keys},
              {"stats", std::move(stats)}};
}

Json IndexToJson(const IndexSegmentMeta& s) {
  return Json{
      {"kind", s.kind}, {"field", s.field_id}, {"fragments", s.fragment_ids}, {"keys", s.keys}, {"entries", s.entries}};
}

// --- decoders ---

Result<Field> FieldFromJson(const Json& j) {
  Field f;
  OG_ASSIGN_OR_RETURN(f.id, U32At(j, "id", "manifest field"));
  OG_ASSIGN_OR_RETURN(f.name, StrAt(j, "name", "manifest field"));
  OG_ASSIGN_OR_RETURN(std::string type, StrAt(j, "type", "manifest field"));
  auto t = TypeFromString(type);
  if (!t.ok()) return CorruptError("manifest field '" + f.name + "': " + t.status().message());
  f.type = *t;
  OG_ASSIGN_OR_RETURN(f.nullable, BoolAt(j, "nullable", "manifest field"));
  return f;
}

Result<FragmentMeta> FragmentFromJson(const Json& j, const TableSchema& schema) {
  constexpr std::string_view w = "manifest fragment";
  FragmentMeta f;
  OG_ASSIGN_OR_RETURN(f.id, U32At(j, "id", w));
  OG_ASSIGN_OR_RETURN(f.file_key, RelKeyAt(j, "file", w, false));
  OG_ASSIGN_OR_RETURN(f.file_size, U64At(j, "file_size", w));
  OG_ASSIGN_OR_RETURN(f.tail_size, U64At(j, "tail_size", w));
  OG_ASSIGN_OR_RETURN(f.physical_rows, U64At(j, "rows", w));
  OG_ASSIGN_OR_RETURN(f.deletion_key, RelKeyAt(j, "deletion", w, true));
  OG_ASSIGN_OR_RETURN(f.deleted_rows, U64At(j, "deleted", w));
  OG_ASSIGN_OR_RETURN(const Json* blobs, ArrAt(j, "blobs", w));
  for (const Json& b : *blobs) {
    if (!b.is_string() || !IsValidRelativeKey(b.get<std::string>())) {
      return CorruptError("manifest fragment: invalid blob key");
    }
    f.blob_keys.push_back(b.get<std::string>());
  }
  OG_ASSIGN_OR_RETURN(const Json* stats, Member(j, "stats", w));
  if (!stats->is_object()) return CorruptError("manifest fragment: 'stats' must be an object");
  for (auto it = stats->begin(); it != stats->end(); ++it) {
    uint64_t fid = 0;
    const std::string& k = it.key();
    if (k.empty() || k.size() > 10 || k.find_first_not_of("0123456789") != std::string::npos ||
        (fid = std::stoull(k)) > UINT32_MAX) {
      return CorruptError("manifest fragment: bad statistics field id '" + k + "'");
    }
    ColumnStats s;
    s.row_count = f.physical_rows;
    OG_ASSIGN_OR_RETURN(s.null_count, U64At(it.value(), "nulls", w));
    OG_ASSIGN_OR_RETURN(s.nan_count, U64At(it.value(), "nans", w));
    const Field* field = schema.FindById(static_cast<uint32_t>(fid));
    if (field != nullptr) {
      if (auto m = it.value().find("min"); m != it.value().end()) {
        OG_ASSIGN_OR_RETURN(s.min, StatsValueFromJson(*m, field->type, w));
      }
      if (auto m = it.value().find("max"); m != it.value().end()) {
        OG_ASSIGN_OR_RETURN(s.max, StatsValueFromJson(*m, field->type, w));
      }
    }
    f.stats.emplace(static_cast<uint32_t>(fid), std::move(s));
  }
  return f;
}

Result<IndexSegmentMeta> IndexFromJson(const Json& j) {
  constexpr std::string_view w = "manifest index segment";
  IndexSegmentMeta s;
  OG_ASSIGN_OR_RETURN(s.kind, StrAt(j, "kind", w));
  OG_ASSIGN_OR_RETURN(s.field_id, U32At(j, "field", w));
  OG_ASSIGN_OR_RETURN(s.entries, U64At(j, "entries", w));
  OG_ASSIGN_OR_RETURN(const Json* frags, ArrAt(j, "fragments", w));
  for (const Json& f : *frags) {
    if (!f.is_number_unsigned() || f.get<uint64_t>() > UINT32_MAX)
      return CorruptError("manifest index: bad fragment id");
    s.fragment_ids.push_back(f.get<uint32_t>());
  }
  OG_ASSIGN_OR_RETURN(const Json* keys, ArrAt(j, "keys", w));
  for (const Json& k : *keys) {
    if (!k.is_string() || !IsValidRelativeKey(k.get<std::string>())) return CorruptError("manifest index: bad key");
    s.keys.push_back(k.get<std::string>());
  }
  return s;
}

}  // namespace

const Field* TableSchema::FindByName(std::string_view name) const {
  for (const Field& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const Field* TableSchema::FindById(uint32_t id) const {
  for (const Field& f : fields) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

Result<TableSchema> TableSchema::Make(std::vector<Field> fields, std::string_view key_column) {
  TableSchema s;
  for (Field& f : fields) {
    f.id = s.next_field_id++;
    s.fields.push_back(std::move(f));
  }
  if (!key_column.empty()) {
    const Field* k = s.FindByName(key_column);
    if (k == nullptr) return InvalidArgumentError("key column '" + std::string(key_column) + "' is not in the schema");
    s.key_field_id = k->id;
  }
  OG_RETURN_IF_ERROR(s.Validate(false));
  return s;
}

Status TableSchema::Validate(bool corrupt) const {
  std::set<uint32_t> ids;
  std::set<std::string> names;
  for (const Field& f : fields) {
    if (f.id == 0 || f.id >= next_field_id || f.id == UINT32_MAX)
      return Bad(corrupt, "field '" + f.name + "' has an invalid id");
    if (!ids.insert(f.id).second) return Bad(corrupt, "duplicate field id " + std::to_string(f.id));
    if (f.name.empty() || f.name.size() > 255 || !ValidUtf8(f.name)) {
      return Bad(corrupt, "invalid column name (empty, longer than 255 bytes or not UTF-8)");
    }
    for (char c : f.name) {
      if (static_cast<unsigned char>(c) < 0x20) return Bad(corrupt, "column name contains a control character");
    }
    if (!names.insert(f.name).second) return Bad(corrupt, "duplicate column name '" + f.name + "'");
    if (f.type.kind == TypeKind::kVector && (f.type.dimension < 1 || f.type.dimension > 65536)) {
      return Bad(corrupt, "column '" + f.name + "': vector dimension must be 1..65536");
    }
    if (f.type.kind == TypeKind::kList && (f.type.element == TypeKind::kList || f.type.element == TypeKind::kVector ||
                                           f.type.element == TypeKind::kBlob)) {
      return Bad(corrupt, "column '" + f.name + "': list elements must be scalars");
    }
  }
  if (key_field_id != 0) {
    const Field* k = FindById(key_field_id);
    if (k == nullptr) return Bad(corrupt, "key field id " + std::to_string(key_field_id) + " is not in the schema");
    if (k->nullable) return Bad(corrupt, "key column '" + k->name + "' must not be nullable");
    if (k->type.kind != TypeKind::kString) return Bad(corrupt, "key column '" + k->name + "' must be a String");
  }
  for (size_t i = 0; i < indexed_field_ids.size(); ++i) {
    const uint32_t id = indexed_field_ids[i];
    if (i > 0 && indexed_field_ids[i - 1] >= id)
      return Bad(corrupt, "indexed field ids must be ascending and distinct");
    const Field* f = FindById(id);
    if (f == nullptr || id == key_field_id || f->type.kind != TypeKind::kString)
      return Bad(corrupt, "indexed field id " + std::to_string(id) + " is not a non-key String column");
  }
  return Status::Ok();
}

format::Schema TableSchema::ToFormatSchema() const {
  auto s = format::Schema::Make(fields);
  OG_CHECK(s.ok());  // a validated TableSchema is always a valid format schema
  return std::move(s).value();
}

const FragmentMeta* Manifest::FindFragment(uint32_t id) const {
  auto it = std::lower_bound(fragments.begin(), fragments.end(), id,
                             [](const FragmentMeta& f, uint32_t x) { return f.id < x; });
  if (it == fragments.end() || it->id != id) return nullptr;
  return &*it;
}

std::string TypeToString(const DataType& type) {
  if (type.kind == TypeKind::kVector) return "Vector(" + std::to_string(type.dimension) + ")";
  if (type.kind == TypeKind::kList) return "[" + std::string(KindToName(type.element)) + "]";
  return std::string(KindToName(type.kind));
}

Result<DataType> TypeFromString(std::string_view text) {
  TypeKind k;
  if (text.size() > 2 && text.front() == '[' && text.back() == ']') {
    if (!NameToKind(text.substr(1, text.size() - 2), &k) || k == TypeKind::kBlob) {
      return InvalidArgumentError("unknown list element type in '" + std::string(text) + "'");
    }
    return DataType::List(k);
  }
  constexpr std::string_view kVec = "Vector(";
  if (text.substr(0, kVec.size()) == kVec && text.back() == ')') {
    std::string_view digits = text.substr(kVec.size(), text.size() - kVec.size() - 1);
    if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string_view::npos) {
      return InvalidArgumentError("bad vector dimension in '" + std::string(text) + "'");
    }
    uint32_t dim = static_cast<uint32_t>(std::stoul(std::string(digits)));
    if (dim < 1 || dim > 65536) return InvalidArgumentError("vector dimension must be 1..65536");
    return DataType::Vector(dim);
  }
  if (!NameToKind(text, &k)) return InvalidArgumentError("unknown type '" + std::string(text) + "'");
  return DataType::Scalar(k);
}

Status ValidateManifest(const Manifest& m, bool corrupt) {
  OG_RETURN_IF_ERROR(m.schema.Validate(corrupt));
  if (m.version_id.size() != 26) return Bad(corrupt, "manifest: version id must be a ULID");
  uint64_t live = 0;
  uint32_t prev = 0;
  for (size_t i = 0; i < m.fragments.size(); ++i) {
    const FragmentMeta& f = m.fragments[i];
    if (i > 0 && f.id <= prev) return Bad(corrupt, "manifest: fragment ids are not strictly ascending");
    if (f.id >= m.next_fragment_id) return Bad(corrupt, "manifest: fragment id beyond next_fragment_id");
    if (f.physical_rows > UINT32_MAX) return Bad(corrupt, "manifest: fragment has more than 2^32-1 rows");
    if (f.deleted_rows > f.physical_rows) return Bad(corrupt, "manifest: fragment deletes more rows than it has");
    if (f.deleted_rows > 0 && f.deletion_key.empty())
      return Bad(corrupt, "manifest: deleted rows without a deletion vector");
    prev = f.id;
    live += f.live_rows();
  }
  if (live != m.row_count) return Bad(corrupt, "manifest: row_count does not match the fragments");
  for (const IndexSegmentMeta& s : m.indexes) {
    if (s.keys.empty()) return Bad(corrupt, "manifest: index segment without objects");
    for (uint32_t fid : s.fragment_ids) {
      if (m.FindFragment(fid) == nullptr) return Bad(corrupt, "manifest: index segment covers a missing fragment");
    }
  }
  return Status::Ok();
}

std::string EncodeManifest(const Manifest& m) {
  Json fields = Json::array();
  for (const Field& f : m.schema.fields) fields.push_back(FieldToJson(f));
  Json frags = Json::array();
  for (const FragmentMeta& f : m.fragments) frags.push_back(FragmentToJson(f));
  Json idx = Json::array();
  for (const IndexSegmentMeta& s : m.indexes) idx.push_back(IndexToJson(s));
  Json schema{{"fields", std::move(fields)},
              {"next_field_id", m.schema.next_field_id},
              {"key_field_id", m.schema.key_field_id}};
  // Written only when present, so manifests without value indexes keep their bytes.
  if (!m.schema.indexed_field_ids.empty()) schema["indexed_field_ids"] = m.schema.indexed_field_ids;
  Json body{{"format_version", m.format_version},
            {"version", m.version_id},
            {"parent", m.parent_version_id},
            {"sequence", m.sequence},
            {"created_ms", m.created_ms},
            {"operation", Json{{"kind", m.operation.kind},
                               {"rows_inserted", m.operation.rows_inserted},
                               {"rows_deleted", m.operation.rows_deleted},
                               {"note", m.operation.note}}},
            {"schema", std::move(schema)},
            {"fragments", std::move(frags)},
            {"next_fragment_id", m.next_fragment_id},
            {"indexes", std::move(idx)},
            {"row_count", m.row_count}};
  std::string text = CanonicalJson(body);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XxHash64(text)));
  std::string out;
  out.reserve(text.size() + 64);
  out.append(kEnvelopeHead).append(hex, 16).append(kEnvelopeMid).append(text).append("}");
  return out;
}

Result<Manifest> DecodeManifest(std::string_view bytes, std::string_view what) {
  std::string w(what);
  const size_t head = kEnvelopeHead.size() + 16 + kEnvelopeMid.size();
  if (bytes.size() < head + 2 || bytes.substr(0, kEnvelopeHead.size()) != kEnvelopeHead ||
      bytes.substr(kEnvelopeHead.size() + 16, kEnvelopeMid.size()) != kEnvelopeMid || bytes.back() != '}') {
    return CorruptError(w + ": not a table manifest (bad envelope)");
  }
  std::string_view hex = bytes.substr(kEnvelopeHead.size(), 16);
  std::string_view text = bytes.substr(head, bytes.size() - head - 1);
  char expect[17];
  std::snprintf(expect, sizeof expect, "%016llx", static_cast<unsigned long long>(XxHash64(text)));
  if (hex != std::string_view(expect, 16)) return CorruptError(w + ": manifest checksum mismatch");
  OG_ASSIGN_OR_RETURN(Json j, ParseJson(text, w, /*corrupt=*/true));
  Manifest m;
  OG_ASSIGN_OR_RETURN(m.format_version, U32At(j, "format_version", w));
  if (m.format_version > kManifestFormatVersion) {
    return Status(ErrorCode::kFormatTooNew, w + ": manifest format version " + std::to_string(m.format_version) +
                                                " is newer than this build supports");
  }
  if (m.format_version == 0) return CorruptError(w + ": manifest format version 0");
  OG_ASSIGN_OR_RETURN(m.version_id, StrAt(j, "version", w));
  OG_ASSIGN_OR_RETURN(m.parent_version_id, StrAt(j, "parent", w));
  OG_ASSIGN_OR_RETURN(m.sequence, U64At(j, "sequence", w));
  OG_ASSIGN_OR_RETURN(uint64_t created, U64At(j, "created_ms", w));
  m.created_ms = static_cast<int64_t>(created);
  OG_ASSIGN_OR_RETURN(const Json* op, Member(j, "operation", w));
  OG_ASSIGN_OR_RETURN(m.operation.kind, StrAt(*op, "kind", w));
  OG_ASSIGN_OR_RETURN(m.operation.rows_inserted, U64At(*op, "rows_inserted", w));
  OG_ASSIGN_OR_RETURN(m.operation.rows_deleted, U64At(*op, "rows_deleted", w));
  OG_ASSIGN_OR_RETURN(m.operation.note, StrAt(*op, "note", w));
  OG_ASSIGN_OR_RETURN(const Json* schema, Member(j, "schema", w));
  OG_ASSIGN_OR_RETURN(const Json* fields, ArrAt(*schema, "fields", w));
  for (const Json& f : *fields) {
    OG_ASSIGN_OR_RETURN(Field field, FieldFromJson(f));
    m.schema.fields.push_back(std::move(field));
  }
  OG_ASSIGN_OR_RETURN(m.schema.next_field_id, U32At(*schema, "next_field_id", w));
  OG_ASSIGN_OR_RETURN(m.schema.key_field_id, U32At(*schema, "key_field_id", w));
  if (schema->contains("indexed_field_ids")) {
    OG_ASSIGN_OR_RETURN(const Json* indexed, ArrAt(*schema, "indexed_field_ids", w));
    for (const Json& id : *indexed) {
      if (!id.is_number_unsigned() || id.get<uint64_t>() > UINT32_MAX)
        return CorruptError(w + ": indexed_field_ids holds a non-id");
      m.schema.indexed_field_ids.push_back(static_cast<uint32_t>(id.get<uint64_t>()));
    }
  }
  OG_ASSIGN_OR_RETURN(const Json* frags, ArrAt(j, "fragments", w));
  for (const Json& f : *frags) {
    OG_ASSIGN_OR_RETURN(FragmentMeta fm, FragmentFromJson(f, m.schema));
    m.fragments.push_back(std::move(fm));
  }
  OG_ASSIGN_OR_RETURN(m.next_fragment_id, U32At(j, "next_fragment_id", w));
  OG_ASSIGN_OR_RETURN(const Json* idx, ArrAt(j, "indexes", w));
  for (const Json& s : *idx) {
    OG_ASSIGN_OR_RETURN(IndexSegmentMeta seg, IndexFromJson(s));
    m.indexes.push_back(std::move(seg));
  }
  OG_ASSIGN_OR_RETURN(m.row_count, U64At(j, "row_count", w));
  Status st = ValidateManifest(m, /*corrupt=*/true);
  if (!st.ok()) return st.WithContext(w);
  return m;
}

}  // namespace omnigraph::table
