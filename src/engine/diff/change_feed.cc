#include "engine/diff/change_feed.h"

#include <algorithm>

#include "common/base64.h"
#include "common/error_codes.h"
#include "engine/graph/graph_layout.h"
#include "engine/graph/ref_log.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kCursorPrefix = "ogc1.";

Status Rejected(const std::string& why) { return Status(ErrorCode::kCursorRejected, "change cursor rejected: " + why); }

// The graph's identity: the incarnation of main's first ref entry (written once, by init). Main
// is never deleted, so every entry of its log carries it, also after a cleanup truncated the log.
Result<std::string> GraphIdentity(Graph& graph) {
  auto first = graph.RefEntryAt(kMainBranch, 1);
  if (first.ok() || first.status().code_string() != "history_reclaimed") {
    OG_RETURN_IF_ERROR(first.status());
    return first->incarnation;
  }
  OG_ASSIGN_OR_RETURN(Snapshot head, graph.Head(kMainBranch));
  if (!head.ref()) return InternalError("branch 'main' has no ref entry");
  return head.ref()->incarnation;
}

std::string EncodeCursor(const Json& j) { return std::string(kCursorPrefix) + Base64Encode(CanonicalJson(j)); }

// The cursor at a position of a branch incarnation's history: after `commit`, reached by ref entry
// `seq` (0: an inherited commit).
std::string MintCursor(const std::string& graph_id, const std::string& branch, const std::string& incarnation,
                       const std::string& commit, uint64_t seq, const Json& filter) {
  return EncodeCursor(Json{{"graph", graph_id},
                           {"branch", branch},
                           {"incarnation", incarnation},
                           {"commit", commit},
                           {"seq", seq},
                           {"filter", filter}});
}

Result<Json> DecodeCursor(std::string_view text) {
  std::string raw;
  if (text.substr(0, kCursorPrefix.size()) != kCursorPrefix || !Base64Decode(text.substr(kCursorPrefix.size()), &raw)) {
    return Rejected("not a cursor of this version of omnigraph");
  }
  auto j = ParseJson(raw, "change cursor");
  if (!j.ok() || !j->is_object() || !j->contains("commit") || !(*j)["commit"].is_string()) {
    return Rejected("malformed cursor");
  }
  return *j;
}

}  // namespace

Result<ChangeBlock> CommitChanges(Graph& graph, std::string_view commit_id, const ChangeFilter& filter) {
  OG_ASSIGN_OR_RETURN(Snapshot to, graph.AtCommit(commit_id));
  if (to.commit().parents.empty()) {
    return Status(ErrorCode::kParentlessCommit, "commit " + std::string(commit_id) +
                                                    " is the genesis commit: it has no parent to list changes against");
  }
  OG_ASSIGN_OR_RETURN(Snapshot from,
                      graph.AtReferencedCommit(to.commit().parents.front(), "the parents of commit " + to.commit().id));
  ChangeBlock block;
  block.commit = to.shared_commit();
  block.from_commit_id = from.commit().id;
  if (!IsPhysicalOnly(to.commit())) {
    OG_ASSIGN_OR_RETURN(block.changes, DiffSnapshots(from, to, filter, Lineage::kFromIsAncestor));
  }
  return block;
}

Result<PollResult> PollChanges(Graph& graph, const PollOptions& o) {
  // A poll of zero commits could never make progress (caught_up false forever).
  if (o.max_commits == 0) return InvalidArgumentError("a change poll must ask for at least one commit (limit 0)");
  OG_ASSIGN_OR_RETURN(Snapshot head, graph.Head(o.branch));
  OG_ASSIGN_OR_RETURN(std::string graph_id, GraphIdentity(graph));
  const std::string incarnation = head.ref() ? head.ref()->incarnation : "";
  Json filter = o.filter.ToJson();
  // Where the previous poll stopped: a history step, named by its ref entry (seq > 0: the branch's
  // own ref move) or by its commit (seq 0: an inherited commit; or a start / old cursor that names
  // only a commit, resolved below). Nothing at all: from the very beginning.
  std::optional<std::string> after_commit;
  uint64_t after_seq = 0;
  if (o.cursor) {
    OG_ASSIGN_OR_RETURN(Json c, DecodeCursor(*o.cursor));
    if (c.value("graph", "") != graph_id) return Rejected("it belongs to another graph");
    if (c.value("branch", "") != o.branch) {
      return Rejected("it belongs to branch '" + c.value("branch", "") + "', not '" + o.branch + "'");
    }
    if (c.value("incarnation", "") != incarnation) {
      return Rejected("branch '" + o.branch + "' was deleted and re-created since the cursor was made");
    }
    if (!c.contains("filter") || c["filter"] != filter)
      return Rejected("it was made with other --kind/--type/--op filters");
    after_commit = c["commit"].get<std::string>();
    if (c.contains("seq")) {
      if (!c["seq"].is_number_unsigned()) return Rejected("malformed cursor");
      after_seq = c["seq"].get<uint64_t>();
      if (after_seq > head.seq()) return Rejected("it is ahead of branch '" + o.branch + "'");
    }
  } else if (o.start == "now") {
    after_commit = head.commit().id;
    after_seq = head.seq();
  } else if (o.start.rfind("after:", 0) == 0) {
    after_commit = o.start.substr(6);
  } else if (o.start != "beginning") {
    return InvalidArgumentError("unknown --start '" + o.start + "' (use now, beginning or after:<commit id>)");
  }
  // The steps after the position, newest first. A ref-entry position reads only the newer entries.
  OG_ASSIGN_OR_RETURN(std::vector<HistoryStep> steps, graph.BranchHistory(o.branch, SIZE_MAX, after_seq));
  if (after_seq > 0 && !steps.empty() && steps.back().seq != after_seq + 1) {
    // The walk did not end at the position: the branch was re-created since `head` was read.
    return Rejected("branch '" + o.branch + "' was deleted and re-created since the cursor was made");
  }
  if (after_commit && after_seq == 0) {
    auto at =
        std::find_if(steps.begin(), steps.end(), [&](const HistoryStep& s) { return s.commit->id == *after_commit; });
    if (at == steps.end()) {
      return Rejected("commit " + *after_commit + " is not in the history of branch '" + o.branch +
                      "' (neither a commit its ref moved to nor an inherited commit)");
    }
    after_seq = at->seq;
    steps.erase(at, steps.end());
  }
  std::reverse(steps.begin(), steps.end());
  PollResult out;
  for (const HistoryStep& step : steps) {
    // The genesis commit has no changes of its own; a compaction step has none either (the feed
    // skips it; a step from an older commit may still span other changes and is listed).
    const bool physical_only =
        IsPhysicalOnly(*step.commit) && !step.commit->parents.empty() && step.commit->parents.front() == step.from;
    if (!step.from.empty() && !physical_only) {
      if (out.blocks.size() == o.max_commits) {
        out.caught_up = false;
        break;
      }
      OG_ASSIGN_OR_RETURN(Snapshot from, graph.AtReferencedCommit(step.from, "the history of the branch"));
      OG_ASSIGN_OR_RETURN(Snapshot to, graph.AtReferencedCommit(step.commit->id, "the history of the branch"));
      ChangeBlock b;
      b.commit = step.commit;
      b.from_commit_id = step.from;
      b.seq = step.seq;
      OG_ASSIGN_OR_RETURN(b.changes, DiffSnapshots(from, to, o.filter, Lineage::kFromIsAncestor));
      out.blocks.push_back(std::move(b));
    }
    after_commit = step.commit->id;
    after_seq = step.seq;
  }
  if (!after_commit) {  // "beginning" on a graph with only its genesis commit
    after_commit = head.commit().id;
    after_seq = head.seq();
  }
  out.cursor = MintCursor(graph_id, o.branch, incarnation, *after_commit, after_seq, filter);
  return out;
}

Result<std::string> CursorAtHead(Graph& graph, const Snapshot& head, const ChangeFilter& filter) {
  OG_ASSIGN_OR_RETURN(std::string graph_id, GraphIdentity(graph));
  return MintCursor(graph_id, head.branch(), head.ref() ? head.ref()->incarnation : "", head.commit().id, head.seq(),
                    filter.ToJson());
}

}  // namespace omnigraph::engine
