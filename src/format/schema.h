// Fields and schemas of columnar batches and fragment files (docs/architecture.md,
// "Tables, fragments, manifests, versions"): every field has a stable uint32 id that survives
// renames, a name, a DataType and a nullability flag. Byte layout of a schema inside a fragment
// footer: docs/format/fragment.md "Schema".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/result.h"
#include "omnigraph/value.h"

namespace omnigraph::format {

// A stable column identity (survives renames; never reused within a table).
using FieldId = uint32_t;

struct Field {
  FieldId id = 0;
  std::string name;
  DataType type;
  bool nullable = true;
  bool operator==(const Field&) const = default;
};

// InvalidArgument unless `type` is a well-formed DataType (Vector dimension 1..65536, List element a
// scalar kind, kinds in range).
Status ValidateDataType(const DataType& type);

// An ordered list of fields with unique ids and unique names. Value type; thread-compatible.
class Schema {
 public:
  Schema() = default;
  // InvalidArgument on duplicate ids or names, empty names or malformed types.
  static Result<Schema> Make(std::vector<Field> fields);

  const std::vector<Field>& fields() const { return fields_; }
  size_t num_fields() const { return fields_.size(); }
  const Field& field(size_t i) const { return fields_[i]; }

  // Position of the field with this id / name, or nullopt.
  std::optional<size_t> IndexOfId(FieldId id) const;
  std::optional<size_t> IndexOfName(std::string_view name) const;
  const Field* FindById(FieldId id) const;

  // The fields with these ids, in the given order. NotFound naming the first missing id.
  Result<Schema> Select(std::span<const FieldId> ids) const;
  std::vector<FieldId> field_ids() const;

  // "{1:id String not null, 2:age I64}".
  std::string ToString() const;
  bool operator==(const Schema&) const = default;

 private:
  explicit Schema(std::vector<Field> fields) : fields_(std::move(fields)) {}
  std::vector<Field> fields_;
};

}  // namespace omnigraph::format
