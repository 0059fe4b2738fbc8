// Bulk-load parsing (LANGUAGE.md §3): NDJSON lines -> typed records, with every per-record check
// (envelope, types, enums, nullability, @range, @check, ids) done here, in parallel across cores.
// Cross-record and against-the-graph checks live in loader.cc.
#pragma once

#include <cstdint>
#include <memory>
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

struct LoadRecord {
  uint64_t line = 0;
  bool is_edge = false;
  const compiler::NodeType* node = nullptr;
  const compiler::EdgeType* edge = nullptr;
  std::string id;
  bool id_given = false;       // the input supplied the id (or it derives from a key)
  bool strict = false;         // a strict insert even in merge mode: an existing id is key_conflict
  std::string src, dst;        // edges: endpoint node ids
  std::vector<Value> values;   // one per property of the type, in declaration order

  const std::string& type_name() const { return is_edge ? edge->name : node->name; }
};

struct ParsedLoad {
  std::vector<LoadRecord> records;  // in line order
  std::vector<LoadError> errors;    // in line order, at most max_errors
  bool errors_truncated = false;
};

// The per-value rules shared by load and mutation (LANGUAGE.md §1): converts an already typed
// value (a query literal or bound parameter, of the property's type or one that widens to it:
// I32/U32 -> I64/U64/F64, F32 -> F64, Date <-> DateTime) to the property's type, and checks
// non-null (`load_missing_property`), enum values (`load_enum_value`), vector dimensions and
// integer ranges (`load_type_mismatch`). Pure; thread-safe.
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

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Parses and checks every non-blank line of `ndjson`. Generated ids (unkeyed nodes without an
// `id`, edges without one) are ULIDs.
ParsedLoad ParseLoad(std::string_view ndjson, const compiler::Catalog& catalog, size_t max_errors);

}  // namespace omnigraph::engine
