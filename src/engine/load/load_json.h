// One NDJSON load record (docs/language.md, "Load data") -> cells of its type's columns, with every
// per-record check (envelope, types, enums, nullability, @range, @check, ids) done here.
// load_parser.h runs it over chunks of lines in parallel. Private to the engine (exposes simdjson).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <simdjson.h>

#include "common/ulid.h"
#include "compiler/catalog.h"
#include "engine/validate/load_group.h"
#include "engine/validate/load_record.h"

namespace omnigraph::engine {

// What one run of the parser over a piece of input produces, plus scratch reused across records.
// Owned by one thread at a time.
struct ParsedPiece {
  std::vector<std::unique_ptr<TypeSegmentBuilder>> groups;  // by type slot; null until used
  std::vector<LoadError> errors;                            // in line order
  std::vector<uint8_t> seen;                                // scratch: properties set by `data`
  std::vector<Value> stash;                                 // scratch: values rules or keys read
  std::array<Ulid, 256> ulids;                              // generated ids, taken in blocks
  size_t next_ulid = 256;
  // The previous record's type (most inputs run many records of one type): its name, whether it
  // is an edge, and its slot (SIZE_MAX: none yet).
  std::string last_type;
  bool last_is_edge = false;
  size_t last_slot = SIZE_MAX;
};

// Parses records against one catalog. Thread-safe after construction (state is in ParsedPiece).
class RecordParser {
 public:
  // `catalog` must outlive the parser and every group it builds.
  explicit RecordParser(const compiler::Catalog& catalog);
  ~RecordParser();

  // Type slots: the catalog's node types, then its edge types.
  size_t slot_count() const { return slots_.size(); }

  // Parses one record (line `line`) and appends it to its type's group in `out`. Generated ids
  // (unkeyed nodes without an `id`, edges without one) are ULIDs. On error, the groups of `out`
  // may hold part of the record: a piece with an error is never staged.
  Status Parse(simdjson::dom::element doc, uint64_t line, ParsedPiece* out) const;

 private:
  struct Slot {
    const compiler::NodeType* node = nullptr;
    const compiler::EdgeType* edge = nullptr;
    std::vector<uint8_t> stash;  // per property: keep its Value (a constraint or the key reads it)
    bool any_stash = false;
    bool constrained = false;      // has @range / @check
    size_t string_key = SIZE_MAX;  // the single String @key property: the id is its value
    std::vector<size_t> key;       // @key property indexes, in key order
  };
  // Parse without the whole-record duplicate-member walk (done only when it fails).
  Status ParseRecord(simdjson::dom::element doc, uint64_t line, ParsedPiece* out) const;
  Status AppendEndpoints(simdjson::dom::element from, simdjson::dom::element to, TypeSegmentBuilder& g) const;
  Status AppendId(const Slot& slot, ParsedPiece& piece, std::string_view key_string, bool has_key_string,
                  std::optional<std::string_view> given_id, TypeSegmentBuilder& g) const;

  const compiler::Catalog& catalog_;
  RecordRules rules_;
  std::vector<Slot> slots_;
};

}  // namespace omnigraph::engine
