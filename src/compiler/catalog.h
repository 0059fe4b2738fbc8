// The catalog: the compiled schema IR (docs/language.md, "Schemas"). Node and edge types with
// stable ids, properties with stable field ids, DataTypes, nullability, normalized enums,
// constraints (@key, @unique, @range, @check, @card), the index kind chosen per property, @embed
// and metadata, and interfaces expanded into the implementing nodes. Canonical JSON round-trips
// exactly; the schema id is the SHA-256 of that JSON. Built by catalog_builder.h from a parsed .pg
// file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "omnigraph/result.h"
#include "omnigraph/value.h"

namespace omnigraph::compiler {

// Index kind chosen from the property type (docs/language.md, "Constraints and annotations",
// @index):
//   enum and orderable scalars (Bool, ints, floats, Date, DateTime) -> kSorted;
//   non-enum String -> kFullText, which ALWAYS includes an exact-match (sorted) index as well, so
//     `=` / starts_with on an indexed String is fast;
//   Vector -> kVector; List and Blob -> none (requesting one is error S007).
enum class IndexKind : uint8_t { kNone = 0, kSorted, kFullText, kVector };
std::string_view IndexKindName(IndexKind kind);  // "none" "sorted" "fulltext" "vector"

// A literal argument of an annotation, e.g. the "src" of @embed("src") or 3 of @foo(3).
struct AnnotationValue {
  enum class Kind : uint8_t { kString, kInt, kFloat, kBool };
  Kind kind = Kind::kString;
  std::string text;  // decoded string; number spelling with optional leading '-'; "true"/"false"
  bool operator==(const AnnotationValue&) const = default;
};

// An annotation kept as metadata: every one not in the known list
// (@key @unique @index @range @check @card @embed @description @instruction @rename_from).
// `@name(positional, key=value, ...)`; `has_parens` distinguishes `@a` from `@a()`.
struct Annotation {
  std::string name;  // without '@'
  bool has_parens = false;
  std::optional<AnnotationValue> positional;
  std::vector<std::pair<std::string, AnnotationValue>> named;  // in source order
  bool operator==(const Annotation&) const = default;
};

// @embed("source_prop", model="...") on a Vector property.
struct EmbedSpec {
  std::string source;  // a String property of the same type
  std::string model;   // empty when not given
  bool operator==(const EmbedSpec&) const = default;
};

// Documentation and rename metadata shared by types and properties.
struct Metadata {
  std::string description;              // @description("...")
  std::string instruction;              // @instruction("...")
  std::string rename_from;              // @rename_from("Old"); empty when absent
  std::vector<Annotation> annotations;  // unknown annotations, in source order
  bool operator==(const Metadata&) const = default;
};

struct Property {
  uint32_t id = 0;  // stable field id, unique within its type, >= 1
  std::string name;
  DataType type;  // enum properties are kString with enum_values non-empty
  bool nullable = false;
  std::vector<std::string> enum_values;  // sorted, de-duplicated; empty = not an enum
  IndexKind index = IndexKind::kNone;    // from @index, @key (always indexed), or body @index
  std::optional<EmbedSpec> embed;
  std::string interface_name;  // the interface it was copied from; empty when declared here
  Metadata meta;

  bool is_enum() const { return !enum_values.empty(); }
  bool operator==(const Property&) const = default;
};

// @range(p, min..max): inclusive, either end open. Bounds are kept as written (canonical decimal
// spelling, e.g. "-5", "2.5") plus their double value.
struct RangeConstraint {
  std::string property;
  std::optional<std::string> min;
  std::optional<std::string> max;
  std::optional<double> MinValue() const;
  std::optional<double> MaxValue() const;
  bool operator==(const RangeConstraint&) const = default;
};

// @check(p, "regex"): the String value must FULLY match the RE2 pattern (validated at compile).
struct CheckConstraint {
  std::string property;
  std::string pattern;
  bool operator==(const CheckConstraint&) const = default;
};

// @card(min..max) of an edge type: edges per source node. max empty = unbounded.
struct Cardinality {
  uint32_t min = 0;
  std::optional<uint32_t> max;
  bool is_default() const { return min == 0 && !max.has_value(); }
  bool operator==(const Cardinality&) const = default;
};

struct NodeType {
  uint32_t id = 0;  // stable type id (shared numbering with edge types), >= 1
  std::string name;
  std::vector<std::string> interfaces;            // `implements` list, in source order
  std::vector<Property> properties;               // interface properties first, then own, in order
  std::vector<std::string> key;                   // @key properties ordered by property id; empty = unkeyed
  std::vector<std::vector<std::string>> uniques;  // each @unique tuple, in source order
  std::vector<RangeConstraint> ranges;
  std::vector<CheckConstraint> checks;
  Metadata meta;
  // The highest property id this type ever had (schema apply may have dropped it): new properties
  // get ids above it, so an id is never reused. The Catalog constructor raises it to at least the
  // largest present id; stored only when larger.
  uint32_t property_id_high_water = 0;

  const Property* FindProperty(std::string_view name) const;
  bool has_key() const { return !key.empty(); }
  bool operator==(const NodeType&) const = default;
};

struct EdgeType {
  uint32_t id = 0;
  std::string name;  // TypeName spelling ("Knows"); queries write it as `knows`
  std::string from_type;
  std::string to_type;
  Cardinality card;
  std::vector<Property> properties;
  std::vector<std::vector<std::string>> uniques;  // may name "src" / "dst"
  Metadata meta;
  uint32_t property_id_high_water = 0;  // as NodeType's

  const Property* FindProperty(std::string_view name) const;
  bool operator==(const EdgeType&) const = default;
};

// Kept so the catalog can be printed back to source; nodes already hold the expanded properties.
struct InterfaceType {
  std::string name;
  std::vector<Property> properties;               // ids are 0 (ids belong to node properties)
  std::vector<std::string> key;                   // from property-level @key; inherited by implementing nodes
  std::vector<std::vector<std::string>> uniques;  // from property-level @unique; inherited
  bool operator==(const InterfaceType&) const = default;
};

// The compiled schema. Immutable after construction; thread-safe for concurrent reads.
// Share as std::shared_ptr<const Catalog>. Copyable (lookup maps are rebuilt).
class Catalog {
 public:
  Catalog() = default;
  // Takes validated parts (the builder or FromJson validates); nodes and edges are kept sorted by
  // id. Preconditions: names unique across interfaces, nodes and edges.
  // `type_id_high_water`: the highest type id the schema's history ever used (raised to at least
  // the largest present id), so that a dropped type's id is never reused.
  Catalog(std::vector<InterfaceType> interfaces, std::vector<NodeType> nodes, std::vector<EdgeType> edges,
          uint32_t type_id_high_water = 0);
  Catalog(const Catalog& other);
  Catalog& operator=(const Catalog& other);
  Catalog(Catalog&&) noexcept = default;
  Catalog& operator=(Catalog&&) noexcept = default;

  const std::vector<InterfaceType>& interfaces() const { return interfaces_; }
  const std::vector<NodeType>& nodes() const { return nodes_; }
  const std::vector<EdgeType>& edges() const { return edges_; }
  uint32_t type_id_high_water() const { return type_id_high_water_; }

  // Exact, case-sensitive lookups; nullptr when absent.
  const NodeType* FindNode(std::string_view name) const;
  const EdgeType* FindEdge(std::string_view name) const;
  const InterfaceType* FindInterface(std::string_view name) const;
  // Edge as referenced in a query: `knows` or `Knows` finds edge type `Knows` (the first letter
  // matches case-insensitively, the rest exactly).
  const EdgeType* FindEdgeByQueryName(std::string_view word) const;

  // Canonical JSON (sorted keys, compact): the stored schema IR. FromJson(ToJson()) == *this.
  std::string ToJson() const;
  // Parses and fully validates stored IR; malformed or inconsistent input -> kCorrupt naming the
  // offending field.
  static Result<Catalog> FromJson(std::string_view json);
  // Lower-case hex SHA-256 of ToJson().
  std::string SchemaId() const;
  // Prints .pg source that compiles (CompileSchema) back to an identical catalog.
  std::string ToSource() const;

  bool operator==(const Catalog& other) const {
    return interfaces_ == other.interfaces_ && nodes_ == other.nodes_ && edges_ == other.edges_ &&
           type_id_high_water_ == other.type_id_high_water_;
  }

 private:
  void Reindex();

  std::vector<InterfaceType> interfaces_;
  std::vector<NodeType> nodes_;
  std::vector<EdgeType> edges_;
  uint32_t type_id_high_water_ = 0;
  std::map<std::string, size_t, std::less<>> node_index_;
  std::map<std::string, size_t, std::less<>> edge_index_;
  std::map<std::string, size_t, std::less<>> interface_index_;
};

// The index kind the type of `p` gets when indexed (kNone for List/Blob).
IndexKind IndexKindFor(const DataType& type, bool is_enum);

// Schema-language spelling of a type without nullability: "String", "[I64]", "Vector(8)".
// Enum properties print as "enum(a, b)" via PropertyTypeSource.
std::string DataTypeSource(const DataType& type);
std::string PropertyTypeSource(const Property& p);  // incl. enum(...) and trailing '?'

}  // namespace omnigraph::compiler
