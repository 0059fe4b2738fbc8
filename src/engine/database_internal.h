// What the front door's files (database.cc, database_history.cc) share: the Database's state and
// the conversions from engine values to the public records. Internal to src/engine.
// Impl is shared by every thread using a Database: its mutable members are guarded (OG_GUARDED_BY).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/check.h"
#include "common/error_codes.h"
#include "compiler/query_ir.h"
#include "engine/derived/read_cache.h"
#include "engine/graph/graph.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph {

struct Database::Impl {
  explicit Impl(const OpenOptions& o);
  OpenOptions options;
  uint32_t auto_compact_fanout = 0;  // 0: off (OpenOptions, or OMNIGRAPH_AUTO_COMPACT=0)
  std::unique_ptr<engine::Graph> graph;
  engine::GraphReadCache read_cache;  // executor structures per table version, byte-budgeted
  Mutex query_mu;
  // (schema id, query name asked for, source) -> the selected query, compiled (a one-element vector:
  // only the selected query is type-checked); bounded by clearing when full.
  using QueryKey = std::tuple<std::string, std::optional<std::string>, std::string>;
  std::map<QueryKey, std::shared_ptr<const std::vector<compiler::IrQuery>>> queries OG_GUARDED_BY(query_mu);
};

namespace database_internal {

// The last resort behind every call: an allocation that fails is a `resource_limit` result, never
// an exception through the API.
template <typename F>
auto NoThrow(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return Status(ErrorCode::kResourceExhausted, "out of memory");
  } catch (const std::length_error&) {
    return Status(ErrorCode::kResourceExhausted, "a size exceeded what one process can hold");
  }
}

// The snapshot `at` names (ReadTarget::Kind).
Result<engine::Snapshot> Resolve(engine::Graph& graph, const ReadTarget& at);

// Automatic compaction after a committed load or mutation on `branch` (OpenOptions::
// auto_compact_fanout): compacts the due size tier of the types the write changed, in a commit of
// its own, unless another write moved the branch first. Never fails the write it follows: a
// failure is logged as a warning and left for the next write or `optimize`.
void AutoCompactAfter(Database::Impl& impl, const std::string& branch, const engine::WriteResult& write);

// OpenOptions::authorize_write for a write of `action` (ok when none is set).
Status AuthorizeWrite(Database::Impl& impl, std::string_view action, std::optional<std::string> branch,
                      std::optional<std::string> target_branch);

}  // namespace database_internal
}  // namespace omnigraph
