// Bulk-load parsing (LANGUAGE.md §3): NDJSON lines -> typed records, with every per-record check
// (envelope, types, enums, nullability, @range, @check, ids) done here, in parallel across cores.
// Cross-record and against-the-graph checks live in loader.cc.
#pragma once

#include <cstdint>
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
  std::string src, dst;        // edges: endpoint node ids
  std::vector<Value> values;   // one per property of the type, in declaration order

  const std::string& type_name() const { return is_edge ? edge->name : node->name; }
};

struct ParsedLoad {
  std::vector<LoadRecord> records;  // in line order
  std::vector<LoadError> errors;    // in line order, at most max_errors
  bool errors_truncated = false;
};

// Parses and checks every non-blank line of `ndjson`. Generated ids (unkeyed nodes without an
// `id`, edges without one) are ULIDs.
ParsedLoad ParseLoad(std::string_view ndjson, const compiler::Catalog& catalog, size_t max_errors);

}  // namespace omnigraph::engine
