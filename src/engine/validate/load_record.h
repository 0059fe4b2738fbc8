// The per-record rules of bulk loads and mutations (docs/language.md, "Schemas" and "Load data"):
// value conformance (types, enums, nullability) and the per-record constraints (@range, @check).
// The NDJSON parser that applies them to load lines is load_json.h / load_parser.h; cross-record
// checks are load_checks.h.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error_codes.h"
#include "compiler/catalog.h"
#include "omnigraph/value.h"

namespace omnigraph::engine {

// One rejected line.
struct LoadError {
  uint64_t line = 0;  // 1-based
  ErrorCode code;
  std::string message;
};

// One record of a mutation (the loader keeps its records as columns: load_group.h).
struct LoadRecord {
  uint64_t line = 0;
  bool is_edge = false;
  const compiler::NodeType* node = nullptr;
  const compiler::EdgeType* edge = nullptr;
  std::string id;
  bool id_given = false;      // the input supplied the id (or it derives from a key)
  bool strict = false;        // a strict insert even in merge mode: an existing id is key_conflict
  std::string src, dst;       // edges: endpoint node ids
  std::vector<Value> values;  // one per property of the type, in declaration order

  const std::string& type_name() const { return is_edge ? edge->name : node->name; }
};

// The per-value rules shared by load and mutation (docs/language.md, "Types" and "Mutations"):
// converts an already typed value (a query literal or bound parameter, of the property's type or
// one that widens to it: I32/U32 -> I64/U64/F64, F32 -> F64, Date <-> DateTime) to the property's
// type, and checks non-null (`load_missing_property`), enum values (`load_enum_value`), vector
// dimensions, integer ranges and finite F32 values and vector elements (FitsF32;
// `load_type_mismatch`). Pure; thread-safe.
Result<Value> ConformValue(const Value& value, const compiler::Property& property);

// The per-record constraints of a catalog (@range, @check), compiled once. Thread-safe.
class RecordRules {
 public:
  explicit RecordRules(const compiler::Catalog& catalog);
  ~RecordRules();
  RecordRules(const RecordRules&) = delete;
  RecordRules& operator=(const RecordRules&) = delete;
  // `load_range` / `load_check` for the first constraint a node record violates.
  Status Check(const LoadRecord& record) const;
  // The same for a node's property values (one per property, declaration order; only the
  // properties Constrains() names are read).
  Status Check(const compiler::NodeType& node, std::span<const Value> values) const;
  // Whether a @range or @check reads property `property` (an index into node.properties).
  bool Constrains(const compiler::NodeType& node, size_t property) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace omnigraph::engine
