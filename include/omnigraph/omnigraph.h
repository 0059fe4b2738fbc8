// The embedded C++ API of Omnigraph: open or create a graph by URI, load NDJSON, read snapshots,
// list commits, export. Errors are Status / Result values (omnigraph/status.h, omnigraph/result.h);
// nothing throws. A Database is thread-safe; writers to one branch are serialized in-process and
// fenced across processes by the storage layer. See docs/embedding.md. An allocation failure
// inside any call is returned as `resource_limit`, never thrown.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/result.h"
#include "omnigraph/status.h"
#include "omnigraph/value.h"

namespace omnigraph {

struct OpenOptions {
  std::optional<std::string> actor;  // recorded on every commit this handle makes
  bool read_only = false;            // refuse writes (an open never writes in any case)
  // Memory budget of this handle's query structures (row ordinals, columns and CSR adjacency per
  // table version; least recently used dropped first). 0 keeps none (every query rebuilds).
  uint64_t cache_bytes = uint64_t{1} << 30;
  // Memory budget of one read query: its binding rows in flight and the rows and values kept for
  // its result (not the shared cache above). Past it the query fails with `resource_limit`.
  // 0 = half of the memory this process may use (physical memory or a cgroup limit).
  uint64_t max_query_memory_bytes = 0;
};

enum class LoadMode { kAppend, kMerge, kOverwrite };

struct TypeInfo {
  std::string name;
  bool is_edge = false;
  uint64_t rows = 0;
};

struct SnapshotInfo {
  std::string branch;
  uint64_t version = 0;  // the branch's ref sequence number
  std::string commit_id;
  std::string schema_id;
  std::vector<TypeInfo> types;  // sorted by name
};

struct CommitInfo {
  std::string id;
  std::vector<std::string> parents;
  std::string branch;
  std::optional<std::string> actor;
  int64_t timestamp_us = 0;
  std::string operation;
  struct Counts {
    uint64_t inserted = 0, updated = 0, deleted = 0;
  };
  std::map<std::string, Counts> summary;  // per type
};

struct LoadSummary {
  bool committed = false;  // false when the data changed nothing
  std::string commit_id;
  uint64_t version = 0;
  uint64_t records = 0;
};

struct MutationSummary {
  std::string query_name;
  std::string branch;
  uint64_t affected_nodes = 0;  // node rows inserted + updated + deleted
  uint64_t affected_edges = 0;  // edge rows inserted + updated + deleted
  bool committed = false;       // false when the mutation changed nothing (no commit)
  std::string commit_id;        // the new commit; empty when nothing changed
  uint64_t version = 0;         // the branch version after the mutation
};

// The rows of a read query: one column name per projection, rows in the query's total order.
struct QueryRows {
  std::vector<std::string> columns;
  std::vector<std::vector<Value>> rows;
};

class Database {
 public:
  // Creates a graph at `uri` (a path, file://, or memory://) from .pg schema source. Errors:
  // `already_initialized`, schema compile errors (with spans), storage errors.
  static Result<std::unique_ptr<Database>> Init(std::string_view uri, std::string_view schema_source,
                                                OpenOptions options = {});
  // Opens an existing graph. NotFound if there is none; `format_too_new` for newer formats.
  static Result<std::unique_ptr<Database>> Open(std::string_view uri, OpenOptions options = {});
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  Result<SnapshotInfo> Snapshot(std::string_view branch = "main");
  // One NDJSON document = one atomic commit, validated in full first (LANGUAGE.md §3). A rejected
  // load's Status carries every error (line, code, message) as JSON in details().
  Result<LoadSummary> Load(std::string_view ndjson, LoadMode mode, std::string_view branch = "main");
  // Runs one mutation query (.gq `insert`/`update`/`delete`, LANGUAGE.md §2) as one atomic
  // commit. `params_json` is a JSON object (empty = none); `query_name` picks a query of a
  // multi-query source. Errors: compile errors (Q000, T-codes, with spans), parameter errors,
  // `key_immutable`, the load_* validation codes (details() lists every error by statement),
  // `read_set_conflict` when an update/delete lost a race, `precondition_failure` for a stale
  // `if_commit`.
  Result<MutationSummary> Mutate(std::string_view source, std::string_view params_json = {},
                                 std::string_view branch = "main",
                                 std::optional<std::string> query_name = {},
                                 std::optional<std::string> if_commit = {});
  // Runs one read query (.gq `match ... return`, LANGUAGE.md §2) on the head of `branch` with the
  // query executor. `params_json` is a JSON object (empty = none); `query_name` picks a query of a
  // multi-query source. Compiled queries (per schema and source) and the executor's derived
  // structures (ordinals, columns, CSR adjacency per table version) are cached on this Database,
  // so repeated calls do no recompilation and no rescans. Errors: compile errors (Q000, T-codes,
  // with spans), parameter errors, `invalid_argument` for a mutation, `unimplemented` for search,
  // `resource_limit` past OpenOptions::max_query_memory_bytes.
  Result<QueryRows> Query(std::string_view source, std::string_view params_json = {},
                          std::string_view branch = "main", std::optional<std::string> query_name = {});
  // Export as NDJSON lines, one call per line (without the newline).
  Status Export(const std::function<Status(std::string_view line)>& sink, std::string_view branch = "main",
                const std::vector<std::string>& types = {});
  // Newest first, along first parents.
  Result<std::vector<CommitInfo>> Commits(std::string_view branch = "main");

 private:
  struct Impl;
  explicit Database(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace omnigraph
