#include "engine/change_feed.h"

#include <algorithm>

#include "common/base64.h"
#include "common/error_codes.h"
#include "engine/graph_layout.h"
#include "engine/ref_log.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kCursorPrefix = "ogc1.";

Status Rejected(const std::string& why) {
  return Status(ErrorCode::kCursorRejected, "change cursor rejected: " + why);
}

// The graph's identity: the incarnation of main's first ref entry (written once, by init).
Result<std::string> GraphIdentity(Graph& graph) {
  OG_ASSIGN_OR_RETURN(std::string bytes, graph.store().Get(RefEntryKey(kMainBranch, 1)));
  OG_ASSIGN_OR_RETURN(RefEntry e, RefLog::Parse(bytes, RefEntryKey(kMainBranch, 1)));
  return e.incarnation;
}

std::string EncodeCursor(const Json& j) { return std::string(kCursorPrefix) + Base64Encode(CanonicalJson(j)); }

Result<Json> DecodeCursor(std::string_view text) {
  std::string raw;
  if (text.substr(0, kCursorPrefix.size()) != kCursorPrefix ||
      !Base64Decode(text.substr(kCursorPrefix.size()), &raw)) {
    return Rejected("not a cursor of this version of omnigraph");
  }
  auto j = ParseJson(raw, "change cursor");
  if (!j.ok() || !j->is_object() || !j->contains("commit") || !(*j)["commit"].is_string()) {
    return Rejected("malformed cursor");
  }
  return *j;
}

}  // namespace

Json CauseJson(const Commit& c) {
  Json j = {{"graph_commit_id", c.id}, {"authored_branch", c.branch}, {"authored_at", c.timestamp_us},
            {"operation", c.operation}};
  if (!c.parents.empty()) j["parent_commit_id"] = c.parents[0];
  if (c.parents.size() > 1) j["merged_parent_commit_id"] = c.parents[1];
  if (c.actor) j["actor_id"] = *c.actor;
  return j;
}

Result<ChangeBlock> CommitChanges(Graph& graph, std::string_view commit_id, const ChangeFilter& filter) {
  OG_ASSIGN_OR_RETURN(Snapshot to, graph.AtCommit(commit_id));
  if (to.commit().parents.empty()) {
    return Status(ErrorCode::kParentlessCommit,
                  "commit " + std::string(commit_id) + " is the genesis commit: it has no parent to list changes against");
  }
  OG_ASSIGN_OR_RETURN(Snapshot from, graph.AtCommit(to.commit().parents.front()));
  ChangeBlock block;
  block.commit = to.shared_commit();
  OG_ASSIGN_OR_RETURN(block.changes, DiffSnapshots(from, to, filter));
  return block;
}

Result<PollResult> PollChanges(Graph& graph, const PollOptions& o) {
  OG_ASSIGN_OR_RETURN(Snapshot head, graph.Head(o.branch));
  OG_ASSIGN_OR_RETURN(std::string graph_id, GraphIdentity(graph));
  const std::string incarnation = head.ref() ? head.ref()->incarnation : "";
  Json filter = o.filter.ToJson();
  // Where the previous poll stopped: empty = from the very beginning.
  std::optional<std::string> after;
  if (o.cursor) {
    OG_ASSIGN_OR_RETURN(Json c, DecodeCursor(*o.cursor));
    if (c.value("graph", "") != graph_id) return Rejected("it belongs to another graph");
    if (c.value("branch", "") != o.branch) {
      return Rejected("it belongs to branch '" + c.value("branch", "") + "', not '" + o.branch + "'");
    }
    if (c.value("incarnation", "") != incarnation) {
      return Rejected("branch '" + o.branch + "' was deleted and re-created since the cursor was made");
    }
    if (!c.contains("filter") || c["filter"] != filter) return Rejected("it was made with other --kind/--type/--op filters");
    after = c["commit"].get<std::string>();
  } else if (o.start == "now") {
    after = head.commit().id;
  } else if (o.start.rfind("after:", 0) == 0) {
    after = o.start.substr(6);
  } else if (o.start != "beginning") {
    return InvalidArgumentError("unknown --start '" + o.start + "' (use now, beginning or after:<commit id>)");
  }
  // The first-parent chain from the head back to `after` (exclusive), newest first.
  std::vector<std::shared_ptr<const Commit>> chain;
  for (auto c = head.shared_commit();;) {
    if (after && c->id == *after) break;
    if (c->parents.empty()) {
      if (after) {
        return Rejected("commit " + *after + " is not on the first-parent history of branch '" + o.branch + "'");
      }
      break;  // genesis has no changes of its own
    }
    chain.push_back(c);
    OG_ASSIGN_OR_RETURN(c, graph.LoadCommit(c->parents.front()));
  }
  std::reverse(chain.begin(), chain.end());
  PollResult out;
  if (chain.size() > o.max_commits) {
    chain.resize(o.max_commits);
    out.caught_up = false;
  }
  std::string last = after.value_or("");
  for (const auto& c : chain) {
    OG_ASSIGN_OR_RETURN(ChangeBlock b, CommitChanges(graph, c->id, o.filter));
    out.blocks.push_back(std::move(b));
    last = c->id;
  }
  if (last.empty()) {
    // "beginning" on a graph with only its genesis commit: resume after genesis.
    auto c = head.shared_commit();
    last = c->id;
  }
  out.cursor = EncodeCursor(
      Json{{"graph", graph_id}, {"branch", o.branch}, {"incarnation", incarnation}, {"commit", last}, {"filter", filter}});
  return out;
}

}  // namespace omnigraph::engine
