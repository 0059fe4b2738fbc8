#include "format/schema.h"

#include <unordered_set>

#include "common/error_codes.h"

namespace omnigraph::format {

namespace {
bool ValidKind(TypeKind k) { return static_cast<uint8_t>(k) <= static_cast<uint8_t>(TypeKind::kList); }
}  // namespace

Status ValidateDataType(const DataType& type) {
  if (!ValidKind(type.kind)) {
    return InvalidArgumentError("unknown type kind " + std::to_string(static_cast<int>(type.kind)));
  }
  if (type.kind == TypeKind::kVector && (type.dimension < 1 || type.dimension > 65536)) {
    return InvalidArgumentError("vector dimension " + std::to_string(type.dimension) + " is outside 1..65536");
  }
  if (type.kind == TypeKind::kList &&
      (!ValidKind(type.element) || type.element == TypeKind::kVector || type.element == TypeKind::kList)) {
    return InvalidArgumentError("list element must be a scalar kind");
  }
  return Status::Ok();
}

Result<Schema> Schema::Make(std::vector<Field> fields) {
  std::unordered_set<FieldId> ids;
  std::unordered_set<std::string> names;
  for (const Field& f : fields) {
    if (f.name.empty()) return InvalidArgumentError("field " + std::to_string(f.id) + " has an empty name");
    if (!ids.insert(f.id).second) return InvalidArgumentError("duplicate field id " + std::to_string(f.id));
    if (!names.insert(f.name).second) return InvalidArgumentError("duplicate field name '" + f.name + "'");
    Status s = ValidateDataType(f.type);
    if (!s.ok()) return s.WithContext("field '" + f.name + "'");
  }
  return Schema(std::move(fields));
}

std::optional<size_t> Schema::IndexOfId(FieldId id) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].id == id) return i;
  }
  return std::nullopt;
}

std::optional<size_t> Schema::IndexOfName(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return i;
  }
  return std::nullopt;
}

const Field* Schema::FindById(FieldId id) const {
  auto i = IndexOfId(id);
  return i ? &fields_[*i] : nullptr;
}

Result<Schema> Schema::Select(std::span<const FieldId> ids) const {
  std::vector<Field> out;
  out.reserve(ids.size());
  for (FieldId id : ids) {
    const Field* f = FindById(id);
    if (f == nullptr) return NotFoundError("field id " + std::to_string(id) + " is not in the schema");
    out.push_back(*f);
  }
  return Make(std::move(out));
}

std::vector<FieldId> Schema::field_ids() const {
  std::vector<FieldId> ids;
  ids.reserve(fields_.size());
  for (const Field& f : fields_) ids.push_back(f.id);
  return ids;
}

std::string Schema::ToString() const {
  std::string s = "{";
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(fields_[i].id) + ":" + fields_[i].name + " " + fields_[i].type.ToString();
    if (!fields_[i].nullable) s += " not null";
  }
  return s + "}";
}

}  // namespace omnigraph::format
