// Integrity check (`omnigraph check`): reads every ref log, every commit a ref entry names (and its
// parents and schema), and for every commit whose data cleanup kept, every table manifest and every
// object the manifests name: fragment files page by page against their checksums (and their row
// counts against the manifest), deletion vectors, blob files, index segments. Each damaged or
// missing object is one typed problem; the check goes on past it. History that cleanup reclaimed
// is counted, not a problem. Derived objects (row ordinals, adjacency) are caches that queries
// rebuild when damaged, so they are not checked. Read-only. Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/graph/graph.h"
#include "omnigraph/result.h"

namespace omnigraph::engine {

struct CheckProblem {
  std::string code;     // the error code string (corrupt, not_found, format_too_new, ...)
  std::string object;   // the key of the damaged or missing object (or the branch/commit)
  std::string message;  // the error's message
};

struct CheckOptions {
  bool verify_data = true;  // false: ref logs, commits and manifests only (no data file reads)
  size_t max_problems = 1000;
};

struct GraphCheck {
  uint64_t branches = 0;
  uint64_t ref_entries = 0;
  uint64_t commits = 0;
  uint64_t reclaimed_commits = 0;  // commits whose data cleanup removed (not a problem)
  uint64_t manifests = 0;
  uint64_t fragments = 0;
  uint64_t deletion_vectors = 0;
  uint64_t blob_files = 0;
  uint64_t index_objects = 0;
  uint64_t bytes_verified = 0;
  std::vector<CheckProblem> problems;  // at most max_problems (problems_total counts all)
  uint64_t problems_total = 0;
};

// Fails only when the check itself cannot run (the refs folder cannot be listed); everything it
// finds damaged is a problem in the result.
Result<GraphCheck> CheckGraph(Graph& graph, const CheckOptions& options = {});

}  // namespace omnigraph::engine
