// Graph compaction (`omnigraph optimize`, and the automatic compaction after small writes): rewrites
// small or deletion-heavy fragments of every table of a branch head into few large ones (and, for
// `optimize`, builds the search index segments over the result), and publishes every new table
// version in ONE commit with operation "optimize". Such a commit changes no
// entity: its change listing is empty, the change feed skips it, and merges see identical images
// (docs/decisions.md, "Maintenance"). Nothing worth rewriting publishes nothing.
// Thread-safe (each call is one write through Graph::Write).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/graph/graph.h"
#include "engine/maintain/search_indexes.h"
#include "omnigraph/result.h"
#include "table/compaction.h"

namespace omnigraph::engine {

struct TableCompaction {
  std::string type_name;
  EntityKind kind = EntityKind::kNode;
  uint64_t fragments_before = 0;  // fragments of the table at the captured head
  uint64_t fragments_removed = 0;
  uint64_t fragments_added = 0;
  uint64_t rows_rewritten = 0;
  bool changed = false;  // the table got a new version in the published commit
};

// Automatic compaction's size tiers: a fragment with fewer than `small_rows` live rows is in tier
// floor(log_fanout(live rows)); when one tier holds `fanout` fragments, that tier and every lower
// one are rewritten together (into one fragment of a higher tier). Each row is so rewritten at most
// about log_fanout(small_rows) times however many writes made it, and one compaction rewrites at
// most about fanout * small_rows rows.
struct AutoCompactPolicy {
  uint32_t fanout = 16;
  uint64_t small_rows = 65536;
};

// The fragments automatic compaction would rewrite now (empty: none is due).
std::vector<uint32_t> DueFragments(const table::Manifest& manifest, const AutoCompactPolicy& policy);

struct CompactGraphOptions {
  std::string branch = "main";
  table::CompactOptions table;  // the rules for explicit compaction
  // Automatic mode: only the types named here, only their due tier (DueFragments), and only while
  // the branch head is still `if_commit` (a moved head skips the compaction: precondition_failure).
  std::optional<AutoCompactPolicy> automatic;
  std::vector<std::string> types;  // empty: every type
  std::optional<std::string> if_commit;
  std::string message;
  // Also build the search index segments of every (compacted or not) table in the same commit
  // (search_indexes.h, IndexTable): explicit `optimize` only.
  bool search_indexes = false;
};

struct GraphCompaction {
  std::vector<TableCompaction> tables;     // node types, then edge types, in catalog order
  std::vector<SearchIndexStatus> indexes;  // with `search_indexes`: one per indexed property
  WriteResult write;                       // write.committed false: nothing was rewritten
};

// Errors: those of Graph::Write (NotFound for a missing branch, precondition_failure for a stale
// if_commit, permission_denied on a read-only graph) and of the tables' reads and writes.
Result<GraphCompaction> CompactGraph(Graph& graph, const CompactGraphOptions& options);

}  // namespace omnigraph::engine
