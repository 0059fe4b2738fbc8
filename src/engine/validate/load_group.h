// The records of a bulk load grouped by type, column by column (docs/language.md, "Load data"):
// what the parser accumulates chunk by chunk (load_parser.h), what the cross-record checks read
// (load_checks.h) and what the loader stages as table rows, without a per-record or per-value
// object. The parser adds a segment per piece of input (no copy, no reallocation as a load grows);
// the segments go to the table writer as they are (its pages do not span them), never joined into
// one copy.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/catalog.h"
#include "engine/validate/load_record.h"
#include "format/column.h"
#include "format/column_builder.h"

namespace omnigraph::engine {

// Per-record flags of a TypeSegment.
inline constexpr uint8_t kIdGiven = 1;  // the input supplied the id (or it derives from a key)
inline constexpr uint8_t kStrict = 2;   // a strict insert even in merge mode: an existing id is key_conflict

// Consecutive records of one type. Immutable once built: safe to read from many threads.
struct TypeSegment {
  std::vector<uint64_t> lines;  // per record: its 1-based line (mutations: statement) number
  std::vector<uint8_t> flags;   // per record: kIdGiven | kStrict
  format::Column ids;           // String
  format::Column srcs, dsts;    // String: edge endpoints (0 rows for nodes)
  // One per property, in declaration order, of the property's type; a Blob property holds the
  // raw payload bytes (written to blob files and replaced by descriptors when staged).
  std::vector<format::Column> values;

  size_t size() const { return lines.size(); }
  std::string_view id(size_t i) const { return ids.string_at(i); }
  std::string_view src(size_t i) const { return srcs.string_at(i); }
  std::string_view dst(size_t i) const { return dsts.string_at(i); }
  bool id_given(size_t i) const { return (flags[i] & kIdGiven) != 0; }
  bool strict(size_t i) const { return (flags[i] & kStrict) != 0; }
  // Approximate heap bytes held.
  uint64_t memory_bytes() const;
};

// The records of one type, in line order. Immutable once built: safe to read from many threads.
struct TypeGroup {
  std::string name;
  bool is_edge = false;
  const compiler::NodeType* node = nullptr;
  const compiler::EdgeType* edge = nullptr;
  std::vector<TypeSegment> segments;
  uint64_t rows = 0;  // records in all segments

  size_t size() const { return rows; }
  const std::vector<compiler::Property>& properties() const { return is_edge ? edge->properties : node->properties; }
  // properties().size() when absent.
  size_t PropertyIndex(std::string_view name) const;
  // Calls fn(segment, row) for every record, in order.
  template <class F>
  void ForEach(F&& fn) const {
    for (const TypeSegment& s : segments) {
      for (size_t r = 0; r < s.size(); ++r) fn(s, r);
    }
  }
  // Adds the next records; `segment` must have a column per property of this type.
  void Add(TypeSegment segment);
};

// Builds one TypeSegment. Not thread-safe; distinct builders may be used from distinct threads.
// A record is added by appending exactly one cell to every column (lines, flags, ids, srcs/dsts
// for edges, and each property's value builder).
class TypeSegmentBuilder {
 public:
  explicit TypeSegmentBuilder(const std::vector<compiler::Property>& properties);
  size_t size() const { return lines.size(); }
  // The built segment; the builder is left empty.
  TypeSegment Finish();

  std::vector<uint64_t> lines;
  std::vector<uint8_t> flags;
  format::ColumnBuilder ids, srcs, dsts;
  std::vector<format::ColumnBuilder> values;  // one per property
};

// The records of a mutation grouped by type, in record order (for the LoadChecker).
std::vector<TypeGroup> GroupByType(const std::vector<LoadRecord>& records);

}  // namespace omnigraph::engine
