// Bulk-load parsing (docs/language.md, "Load data"): NDJSON text, one chunk of whole lines at a
// time, parsed in parallel across cores (load_json.h per record) into columns per type
// (load_group.h), one segment per piece of input (never joined: the table writer pages each as it
// is). A chunk's text can be dropped once parsed: memory holds the parsed columns.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "compiler/catalog.h"
#include "engine/validate/load_group.h"
#include "engine/validate/load_record.h"

namespace omnigraph::engine {

// Readable bytes that must follow the text given to LoadParser::Parse (simdjson reads past the end
// of a document; the content of these bytes does not matter).
inline constexpr size_t kJsonPadding = 64;

struct ParsedLoad {
  std::shared_ptr<const compiler::Catalog> catalog;  // the groups point into it
  std::vector<TypeGroup> groups;                     // in order of first appearance
  uint64_t records = 0;
  uint64_t memory_bytes = 0;      // held by the groups' columns (LoadParser::memory_bytes)
  std::vector<LoadError> errors;  // in line order, at most max_errors; when any, groups is empty
  bool errors_truncated = false;
};

class RecordParser;

// Not thread-safe: one chunk at a time (each chunk is parsed on the default thread pool).
class LoadParser {
 public:
  // Lines longer than `max_record_bytes` are rejected (`resource_limit`, with their line number).
  LoadParser(std::shared_ptr<const compiler::Catalog> catalog, size_t max_errors, size_t max_record_bytes);
  ~LoadParser();
  LoadParser(const LoadParser&) = delete;
  LoadParser& operator=(const LoadParser&) = delete;

  // Parses every non-blank line of `text` (whole lines; "\r\n" endings accepted), numbering them
  // from `first_line`, and returns the number of lines of `text`. Precondition: kJsonPadding
  // readable bytes follow `text` in memory. `text` is not referenced after the call.
  uint64_t Parse(std::string_view text, uint64_t first_line);
  // A rejected line found outside Parse (e.g. one too long to read); lines after the parsed ones.
  void AddError(LoadError error);

  // More than max_errors errors: the rest of the input need not be read.
  bool done() const { return truncated_; }
  bool failed() const { return !errors_.empty(); }
  uint64_t records() const { return records_; }
  // Approximate heap bytes of the records parsed so far (0 once an error was found: a rejected
  // load keeps no records).
  uint64_t memory_bytes() const { return memory_bytes_; }

  // The records (each type's segments in input order), or the errors.
  ParsedLoad Finish();

 private:
  void AddErrors(std::vector<LoadError>& errors);

  std::shared_ptr<const compiler::Catalog> catalog_;
  std::unique_ptr<RecordParser> record_parser_;
  size_t max_errors_;
  size_t max_record_bytes_;
  std::vector<TypeGroup> groups_;     // by type slot (name empty until a record of the type)
  std::vector<uint64_t> first_line_;  // by type slot
  std::vector<LoadError> errors_;
  bool truncated_ = false;
  uint64_t records_ = 0;
  uint64_t memory_bytes_ = 0;
};

}  // namespace omnigraph::engine
