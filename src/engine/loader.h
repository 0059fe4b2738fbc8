// Bulk load (LANGUAGE.md §3, RUST_SURFACE.md §8.1): one NDJSON document = one atomic commit.
// Everything is validated before anything is written — per record (load_record.h), then across
// records and against the snapshot (ids, @unique, referential integrity, @card, key conflicts) —
// and every rejected line is reported with its number, code and reason.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "engine/graph.h"

namespace omnigraph::engine {

enum class LoadMode { kAppend, kMerge, kOverwrite };
std::string_view LoadModeName(LoadMode mode);
Result<LoadMode> ParseLoadMode(std::string_view name);

struct LoadOptions {
  LoadMode mode = LoadMode::kAppend;
  std::string branch = "main";
  std::optional<std::string> if_commit;
  size_t max_errors = 100;
  uint64_t max_bytes = uint64_t{4} << 30;  // `resource_limit` above this
  // Called after each phase ("parsed", "validated", "staged") with the records and input bytes.
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

}  // namespace omnigraph::engine
