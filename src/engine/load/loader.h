// Bulk load (docs/language.md, "Load data"): one NDJSON document = one atomic commit.
// Everything is validated before anything is written — per record (load_record.h), then across
// records and against the snapshot (ids, @unique, referential integrity, @card, key conflicts) —
// and every rejected line is reported with its number, code and reason. The input is streamed: read
// and parsed a chunk at a time into columns per type (load_input.h, load_parser.h), so memory holds
// the parsed columns and one chunk of text, never the whole file.
// Thread-safe as Graph::Write (loads to one branch are serialized); a LoadSource is not.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "common/memory_budget.h"
#include "engine/graph/graph.h"
#include "engine/load/load_input.h"
#include "omnigraph/load_mode.h"

namespace omnigraph::engine {

// The default LoadOptions::max_memory_bytes (common/memory_budget.h).
inline uint64_t DefaultLoadMemoryBytes() { return DefaultMemoryBudgetBytes(); }

struct LoadOptions {
  LoadMode mode = LoadMode::kAppend;
  std::string branch = "main";
  // When `branch` does not exist: create it from this branch's head in the load's own commit point
  // (WriteRequest::create_branch_from); an invalid load therefore never creates it. A load that
  // changes nothing creates it at the source head. Ignored when `branch` exists.
  std::optional<std::string> create_branch_from;
  std::optional<std::string> if_commit;
  size_t max_errors = 100;
  // Ceiling on the memory of the load: the parsed records (their columns, about 1.2x the input),
  // checked after each chunk, and then those plus an estimate of what staging the rows adds
  // (mostly the hash-index builds: ~90 bytes and a key per indexed value), checked before staging.
  // Past it the load fails with `resource_limit` and nothing is written. Default: half of the
  // machine's physical memory (DefaultLoadMemoryBytes).
  uint64_t max_memory_bytes = DefaultLoadMemoryBytes();
  // The input is read and parsed this many bytes at a time; a chunk's text is freed once parsed.
  size_t chunk_bytes = size_t{32} << 20;
  // A longer line is rejected with `resource_limit` and its line number.
  size_t max_record_bytes = size_t{64} << 20;
  // Called after each chunk ("parsing"), after each phase ("parsed", "validated", "staged") and
  // when staging starts ("staging": encoding fragments and building indexes, the longest phase
  // after parsing) with the records and the input bytes read so far.
  std::function<void(std::string_view phase, uint64_t records, uint64_t bytes)> progress;
};

struct LoadTypeStats {
  EntityKind kind = EntityKind::kNode;
  uint64_t loaded = 0;  // records of this type in the file
  ChangeCounts changes;
};

struct LoadResult {
  WriteResult write;
  std::map<std::string, LoadTypeStats> types;
  uint64_t records = 0;
};

// Validation failures: a Status whose code is the first error's code, whose message names its line,
// and whose details() is {"errors":[{"line":N,"code":"...","message":"..."}...],"truncated":bool}.
Result<LoadResult> LoadNdjson(Graph& graph, std::string_view ndjson, const LoadOptions& options);
// The same, streaming `source` chunk by chunk. The input is read once, unless the branch's schema
// changes between write attempts: it is then read again (Rewind), or, when it cannot be (a pipe),
// the load fails with precondition_failed.
Result<LoadResult> LoadNdjson(Graph& graph, LoadSource& source, const LoadOptions& options);

}  // namespace omnigraph::engine
