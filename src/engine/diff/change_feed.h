// Change listing (docs/architecture.md, "Merges and change listing"): the exact entity changes of
// one commit against its first parent, and a change feed along a branch's history (Graph::
// BranchHistory: its ref moves, then inherited commits) in one block per step, with an opaque
// cursor bound to graph, branch incarnation and filters. A step's block lists the changes from the
// previous ref position to the new one, so a fast-forward is one block holding everything it
// brought in (docs/decisions.md "Branch history"). Cursors are handed out only after complete
// steps; delivery is at-least-once (dedupe by commit id).
// Thread-safe: reads immutable commits and snapshots.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/diff/entity_diff.h"
#include "engine/graph/graph.h"

namespace omnigraph::engine {

struct ChangeBlock {
  std::shared_ptr<const Commit> commit;  // the cause: the commit the branch moved to
  std::string from_commit_id;            // the changes are listed against this commit
  uint64_t seq = 0;                      // the branch's ref entry (0: an inherited commit, or `commit changes`)
  std::vector<EntityChange> changes;
};

// The changes of commit `commit_id` against its first parent. `parentless_commit` for the genesis
// commit. Across a `schema_apply` commit the parent is carried into the commit's schema (see
// DiffSnapshots): the changes are named in the newer types and properties.
Result<ChangeBlock> CommitChanges(Graph& graph, std::string_view commit_id, const ChangeFilter& filter = {});

struct PollOptions {
  std::string branch = "main";
  // Exactly one of: a cursor from an earlier poll, or a start: "now" (no replay), "beginning"
  // (the whole history, inherited commits included), "after:<commit id>" (a commit the branch's
  // ref moved to, or an inherited commit).
  std::optional<std::string> cursor;
  std::string start = "now";
  ChangeFilter filter;
  size_t max_commits = 100;  // blocks per poll; caught_up is false when more remain
};

struct PollResult {
  std::vector<ChangeBlock> blocks;  // oldest first
  std::string cursor;               // resumes after the last block
  bool caught_up = true;
};

// `change_cursor_rejected` for a malformed cursor, one of another graph, branch incarnation or
// filter set, or a start commit that is not a position of the branch's history.
Result<PollResult> PollChanges(Graph& graph, const PollOptions& options);

// The cursor a poll of `head`'s branch returns once it has delivered everything up to `head` (a
// branch head the caller read), for `filter`: what start "now" gives at that head. The change
// baseline pairs it with a snapshot of `head`, read once, so the two always match.
Result<std::string> CursorAtHead(Graph& graph, const Snapshot& head, const ChangeFilter& filter);

}  // namespace omnigraph::engine
