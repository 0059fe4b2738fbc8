#include "engine/merge/merge.h"

#include <algorithm>
#include <deque>
#include <set>

#include "common/error_codes.h"
#include "common/logging.h"
#include "engine/graph/schema_carry.h"
#include "engine/graph/schema_store.h"
#include "engine/merge/merge_internal.h"
#include "engine/validate/load_record.h"
#include "format/batch.h"
#include "io/staging_store.h"
#include "table/table_writer.h"

namespace omnigraph::engine {

using merge_internal::MergedType;

std::string_view MergeOutcomeName(MergeOutcome outcome) {
  switch (outcome) {
    case MergeOutcome::kAlreadyUpToDate: return "already_up_to_date";
    case MergeOutcome::kFastForward: return "fast_forward";
    case MergeOutcome::kMerged: return "merged";
  }
  return "?";
}

Json MergeConflict::ToJson() const {
  return {{"entity_kind", std::string(EntityKindName(kind))},
          {"type_name", type_name},
          {"entity_id", entity_id},
          {"kind", std::string(conflict)},
          {"message", message}};
}

namespace {

// Every ancestor of `head` (inclusive), by id, with its parents as ancestry walks see them (a
// cleanup's graft where it removed a parent: Graph::ParentIds).
Result<std::map<std::string, std::vector<std::string>>> Ancestors(Graph& graph, const std::string& head) {
  std::map<std::string, std::vector<std::string>> seen;
  std::deque<std::string> todo{head};
  while (!todo.empty()) {
    std::string id = std::move(todo.front());
    todo.pop_front();
    if (seen.count(id)) continue;
    OG_ASSIGN_OR_RETURN(auto c, graph.LoadReferencedCommit(id, "the history of commit " + head));
    OG_ASSIGN_OR_RETURN(std::vector<std::string> parents, graph.ParentIds(*c));
    for (const auto& p : parents) todo.push_back(p);
    seen.emplace(id, std::move(parents));
  }
  return seen;
}

std::string Quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// The property-level three-way merge of one entity changed on both sides.
void MergeEntity(const EntityChange& s, const EntityChange& t, const std::vector<compiler::Property>& props,
                 std::optional<EntityImage>* merged, std::vector<MergeConflict>* conflicts) {
  auto conflict = [&](std::string_view kind, std::string message) {
    conflicts->push_back(MergeConflict{s.kind, s.type_name, s.id, kind, std::move(message), {}});
  };
  if (s.op == ChangeOp::kDelete && t.op == ChangeOp::kDelete) return;  // both deleted it
  if (s.op == ChangeOp::kDelete || t.op == ChangeOp::kDelete) {
    conflict(kDeleteVsUpdate, std::string(s.op == ChangeOp::kDelete ? "deleted on the source, updated on the target"
                                                                    : "updated on the source, deleted on the target"));
    return;
  }
  if (s.op == ChangeOp::kInsert || t.op == ChangeOp::kInsert) {
    if (!(*s.after == *t.after)) conflict(kDivergentInsert, "inserted on both sides with different values");
    return;  // identical inserts: nothing to apply
  }
  // Both updated: merge property by property against the base image.
  const EntityImage& base = *s.before;
  const EntityImage& a = *s.after;
  const EntityImage& b = *t.after;
  EntityImage out = b;
  std::vector<std::string> clashing;
  auto pick = [&](const auto& bv, const auto& av, const auto& tv, auto& ov, const std::string& name) {
    if (av == bv || av == tv) return;  // source kept the base value, or both agree: target's value
    if (tv == bv)
      ov = av;  // only the source changed it
    else
      clashing.push_back(name);
  };
  for (size_t i = 0; i < base.properties.size(); ++i) {
    pick(base.properties[i], a.properties[i], b.properties[i], out.properties[i], props[i].name);
  }
  pick(base.src, a.src, b.src, out.src, "from");
  pick(base.dst, a.dst, b.dst, out.dst, "to");
  if (!clashing.empty()) {
    std::string list;
    for (const auto& n : clashing) list += (list.empty() ? "" : ", ") + n;
    conflict(kDivergentUpdate, "changed differently on both sides: " + list);
    conflicts->back().property = list;
    return;
  }
  if (!(out == b)) *merged = std::move(out);
}

// Rows of `images` in table-schema order.
Result<format::Batch> BuildRows(const table::TableVersion& t, const std::vector<compiler::Property>& props,
                                const std::vector<std::pair<std::string, EntityImage>>& images) {
  std::vector<std::vector<Value>> rows;
  rows.reserve(images.size());
  for (const auto& [id, img] : images) {
    std::vector<Value> row;
    for (const auto& f : t.schema().fields) {
      if (f.name == kIdColumn) {
        row.push_back(Value::String(id));
        continue;
      }
      if (f.name == kSrcColumn) {
        row.push_back(Value::String(img.src));
        continue;
      }
      if (f.name == kDstColumn) {
        row.push_back(Value::String(img.dst));
        continue;
      }
      auto it = std::find_if(props.begin(), props.end(), [&](const auto& p) { return p.name == f.name; });
      if (it == props.end())
        row.push_back(Value::Null(f.type));
      else
        row.push_back(img.properties[static_cast<size_t>(it - props.begin())]);
    }
    rows.push_back(std::move(row));
  }
  return format::Batch::FromRows(t.schema().ToFormatSchema(), rows);
}

struct TypeWork {
  std::string name;
  EntityKind kind = EntityKind::kNode;
  const std::vector<compiler::Property>* props = nullptr;
  std::map<std::string, EntityChange> source, target;
};

// Prepares the merged write against `snap` (the target head, bound to the staging store). On
// conflicts, `conflicts_out` receives them (sorted) and the result is `merge_conflict`.
Result<PreparedWrite> PrepareMerge(Graph& graph, const Snapshot& snap, const Snapshot& source,
                                   const std::string& expected_target, MergeResult* result,
                                   std::vector<MergeConflict>* conflicts_out) {
  if (snap.commit().id != expected_target) {
    return Status(ErrorCode::kReadSetConflict,
                  "branch " + Quoted(snap.branch()) + " moved during the merge; run the merge again");
  }
  OG_ASSIGN_OR_RETURN(std::string base_id, MergeBase(graph, source.commit().id, snap.commit().id));
  OG_ASSIGN_OR_RETURN(Snapshot base, graph.AtReferencedCommit(base_id, "the merge base of the branches"));
  // Across a schema change, the side (and base) still in the older schema are carried into the
  // newer one first: the merge then applies the migration to the other side's changes. The base is
  // carried only to be read (its staged metadata is never flushed); a carried source or target can
  // be named by the merged commit, so it goes through the write's staging store.
  io::StagingStore scratch(snap.store());
  Snapshot src = source;
  Snapshot tgt = snap;
  std::optional<std::string> new_schema;  // set when the merged commit takes the source's schema
  const std::string base_schema = base.commit().schema_id;
  const std::string source_schema = source.commit().schema_id;
  const std::string target_schema = snap.commit().schema_id;
  if (base_schema != source_schema || base_schema != target_schema) {
    if (source_schema == target_schema || source_schema == base_schema) {
      if (source_schema == base_schema) {
        OG_ASSIGN_OR_RETURN(src, CarryToSchema(source, snap, &snap.store()));
      }
      OG_ASSIGN_OR_RETURN(base, CarryToSchema(base, snap, &scratch));
    } else if (target_schema == base_schema) {
      OG_ASSIGN_OR_RETURN(tgt, CarryToSchema(snap, source, &snap.store()));
      OG_ASSIGN_OR_RETURN(base, CarryToSchema(base, source, &scratch));
      new_schema = source_schema;
    } else {
      return Status(ErrorCode::kSchemaBoundary, "both branches changed the schema since their merge base (" +
                                                    source_schema + " and " + target_schema +
                                                    "); apply one branch's schema on the other first, then merge");
    }
  }
  // The side whose changes were validated under the older schema only: their after images must
  // also pass the newer schema's @range/@check (other constraints are checked on the merged result).
  const int older_side = new_schema ? 1 : source_schema != target_schema ? 0 : -1;  // 0 source, 1 target
  const compiler::Catalog& catalog = tgt.catalog();
  const RecordRules rules(catalog);
  std::vector<TypeWork> work;
  for (const auto& n : catalog.nodes()) work.push_back({n.name, EntityKind::kNode, &n.properties, {}, {}});
  for (const auto& e : catalog.edges()) work.push_back({e.name, EntityKind::kEdge, &e.properties, {}, {}});

  PreparedWrite w;
  if (new_schema) {
    w.schema_id = *new_schema;
    w.table_refs = tgt.commit().tables;
  }
  w.operation = "merge";
  w.message = "merge " + source.branch() + " into " + snap.branch();
  w.merged_parent = source.commit().id;
  std::vector<MergeConflict> conflicts;
  std::map<std::string, MergedType> merged;
  for (TypeWork& tw : work) {
    const TableRef& b = base.commit().tables.at(tw.name);
    const TableRef& s = src.commit().tables.at(tw.name);
    const TableRef& t = tgt.commit().tables.at(tw.name);
    if (b.table_id != s.table_id || b.table_id != t.table_id) {
      return Status(ErrorCode::kSchemaBoundary, "type " + Quoted(tw.name) + " was replaced by a new table on one side");
    }
    if (!(s == b)) {
      OG_ASSIGN_OR_RETURN(tw.source, DiffType(base, src, tw.name));
    }
    if (!(t == b)) {
      OG_ASSIGN_OR_RETURN(tw.target, DiffType(base, tgt, tw.name));
    }
    if (older_side >= 0 && tw.kind == EntityKind::kNode) {
      const compiler::NodeType& node = *catalog.FindNode(tw.name);
      for (const auto& [id, c] : older_side == 0 ? tw.source : tw.target) {
        if (!c.after) continue;
        Status st = rules.Check(node, c.after->properties);
        if (!st.ok()) {
          conflicts.push_back(MergeConflict{EntityKind::kNode,
                                            tw.name,
                                            id,
                                            kValueConstraintViolation,
                                            "violates the newer schema: " + st.message(),
                                            {}});
        }
      }
    }
    MergedType& m =
        merged.emplace(tw.name, MergedType{tw.name, tw.kind, std::nullopt, &tw.source, &tw.target}).first->second;
    ChangeCounts counts;
    if (s == b || tw.source.empty()) {  // nothing to bring over
      OG_ASSIGN_OR_RETURN(m.table, tgt.Table(tw.name));
      continue;
    }
    if (t == b) {  // only the source changed this type: take its table version as it is
      OG_ASSIGN_OR_RETURN(m.table, src.Table(tw.name));
      for (const auto& [id, c] : tw.source) {
        (c.op == ChangeOp::kInsert ? counts.inserted : c.op == ChangeOp::kUpdate ? counts.updated : counts.deleted)++;
      }
      w.tables.emplace(tw.name, *m.table);
      w.summary[tw.name] = counts;
      continue;
    }
    std::vector<std::pair<std::string, EntityImage>> upserts;
    std::vector<std::string> deletes;
    for (const auto& [id, sc] : tw.source) {
      auto it = tw.target.find(id);
      if (it == tw.target.end()) {
        if (sc.op == ChangeOp::kDelete) {
          deletes.push_back(id);
          counts.deleted++;
        } else {
          upserts.emplace_back(id, *sc.after);
          (sc.op == ChangeOp::kInsert ? counts.inserted : counts.updated)++;
        }
        continue;
      }
      std::optional<EntityImage> out;
      MergeEntity(sc, it->second, *tw.props, &out, &conflicts);
      if (out) {
        upserts.emplace_back(id, std::move(*out));
        counts.updated++;
      }
    }
    OG_ASSIGN_OR_RETURN(table::TableVersion target_table, tgt.Table(tw.name));
    if (upserts.empty() && deletes.empty()) {
      m.table = target_table;
      continue;
    }
    // Replace by key: delete every live row of the touched ids, append the merged rows. The rows
    // are found by probing the id index for those ids (ranged reads of their buckets), not by
    // loading the table's whole id index: the work follows the change, not the table.
    table::TableWriter writer(target_table);
    std::set<std::string> replaced(deletes.begin(), deletes.end());
    for (const auto& [id, img] : upserts) replaced.insert(id);
    OG_ASSIGN_OR_RETURN(auto live, merge_internal::FindIds(target_table, replaced));
    std::vector<uint64_t> addresses;
    addresses.reserve(live.size());
    for (const auto& [id, a] : live) addresses.push_back(a);
    std::sort(addresses.begin(), addresses.end());
    OG_RETURN_IF_ERROR(writer.Delete(addresses));
    if (!upserts.empty()) {
      OG_ASSIGN_OR_RETURN(format::Batch rows, BuildRows(target_table, *tw.props, upserts));
      OG_RETURN_IF_ERROR(writer.Append(rows));
    }
    OG_ASSIGN_OR_RETURN(m.table, writer.Commit());
    w.tables.emplace(tw.name, *m.table);
    w.summary[tw.name] = counts;
  }
  // The graph-level checks run even when entities conflict, on the candidate in which every
  // conflicting entity keeps the target's version, so one attempt lists every conflict.
  OG_RETURN_IF_ERROR(merge_internal::CheckMerged(catalog, merged, &conflicts));
  if (!conflicts.empty()) {
    std::sort(conflicts.begin(), conflicts.end(), [](const MergeConflict& a, const MergeConflict& b) {
      return std::tie(a.kind, a.type_name, a.entity_id, a.conflict) <
             std::tie(b.kind, b.type_name, b.entity_id, b.conflict);
    });
    Json list = Json::array();
    for (const auto& c : conflicts) list.push_back(c.ToJson());
    const MergeConflict& first = conflicts.front();
    *conflicts_out = conflicts;
    return Status(ErrorCode::kMergeConflict,
                  "merge of " + Quoted(source.branch()) + " into " + Quoted(snap.branch()) + " has " +
                      std::to_string(conflicts.size()) +
                      " conflict(s), nothing was published; first: " + std::string(first.conflict) + " on " +
                      first.type_name + " " + Quoted(first.entity_id) + ": " + first.message)
        .WithDetails(CanonicalJson(Json{{"merge_conflicts", list}}));
  }
  result->summary = w.summary;
  return w;
}

}  // namespace

Result<std::string> MergeBase(Graph& graph, const std::string& a, const std::string& b) {
  OG_ASSIGN_OR_RETURN(auto of_a, Ancestors(graph, a));
  // Candidates: the common ancestors reached from `b` without passing through another one.
  std::set<std::string> seen, candidates;
  std::deque<std::string> todo{b};
  while (!todo.empty()) {
    std::string id = std::move(todo.front());
    todo.pop_front();
    if (!seen.insert(id).second) continue;
    if (of_a.count(id)) {
      candidates.insert(id);
      continue;
    }
    OG_ASSIGN_OR_RETURN(auto c, graph.LoadReferencedCommit(id, "the history of commit " + b));
    OG_ASSIGN_OR_RETURN(std::vector<std::string> parents, graph.ParentIds(*c));
    for (const auto& p : parents) todo.push_back(p);
  }
  if (candidates.empty()) return InternalError("commits " + a + " and " + b + " have no common ancestor");
  // A candidate that is an ancestor of another candidate is not a best common ancestor. Every
  // ancestor of a candidate is an ancestor of `a`, so `of_a` holds them all.
  std::set<std::string> dominated;
  for (const auto& c : candidates) {
    for (const auto& p : of_a.at(c)) todo.push_back(p);
  }
  while (!todo.empty()) {
    std::string id = std::move(todo.front());
    todo.pop_front();
    if (!dominated.insert(id).second) continue;
    for (const auto& p : of_a.at(id)) todo.push_back(p);
  }
  std::vector<std::string> best;
  for (const auto& c : candidates) {
    if (!dominated.count(c)) best.push_back(c);
  }
  if (best.size() == 1) return best.front();
  // Criss-cross: several best common ancestors. Pick by the shape of the DAG only (never by
  // timestamps, which clocks can skew): the greatest generation (longest parent path to the
  // genesis commit), then the smallest commit id (docs/decisions.md "Merge base").
  std::map<std::string, uint64_t> generation;
  for (const auto& start : best) {
    std::vector<std::string> stack{start};
    while (!stack.empty()) {
      const std::string id = stack.back();
      if (generation.count(id)) {
        stack.pop_back();
        continue;
      }
      uint64_t g = 0;
      bool ready = true;
      for (const auto& p : of_a.at(id)) {
        auto it = generation.find(p);
        if (it == generation.end()) {
          stack.push_back(p);
          ready = false;
        } else {
          g = std::max(g, it->second + 1);
        }
      }
      if (ready) {
        generation[id] = g;
        stack.pop_back();
      }
    }
  }
  return *std::min_element(best.begin(), best.end(), [&](const std::string& x, const std::string& y) {
    return std::pair(generation.at(y), x) < std::pair(generation.at(x), y);
  });
}

Result<MergeResult> MergeBranches(Graph& graph, const MergeOptions& options, std::vector<MergeConflict>* conflicts) {
  if (options.source == options.target) {
    return InvalidArgumentError("cannot merge branch " + Quoted(options.source) + " into itself");
  }
  OG_ASSIGN_OR_RETURN(Snapshot source, graph.Head(options.source));
  OG_ASSIGN_OR_RETURN(Snapshot target, graph.Head(options.target));
  MergeResult result;
  const std::string& s = source.commit().id;
  const std::string& t = target.commit().id;
  OG_ASSIGN_OR_RETURN(auto source_ancestors, Ancestors(graph, s));
  if (source_ancestors.count(t)) {
    if (s == t) {
      result.outcome = MergeOutcome::kAlreadyUpToDate;
      result.commit_id = t;
      result.seq = target.seq();
    } else {
      result.outcome = MergeOutcome::kFastForward;
      OG_ASSIGN_OR_RETURN(RefEntry e, graph.AdvanceBranch(options.target, *target.ref(), s));
      result.commit_id = s;
      result.seq = e.seq;
    }
  } else {
    OG_ASSIGN_OR_RETURN(auto target_ancestors, Ancestors(graph, t));
    if (target_ancestors.count(s)) {
      result.outcome = MergeOutcome::kAlreadyUpToDate;
      result.commit_id = t;
      result.seq = target.seq();
    } else {
      WriteRequest req;
      req.branch = options.target;
      req.kind = WriteKind::kStrict;
      std::vector<MergeConflict> found;
      req.prepare = [&](const Snapshot& snap) { return PrepareMerge(graph, snap, source, t, &result, &found); };
      auto w = graph.Write(req);
      if (!w.ok()) {
        if (conflicts != nullptr && w.status().code() == ErrorCode::kMergeConflict) *conflicts = std::move(found);
        return w.status();
      }
      result.outcome = MergeOutcome::kMerged;
      result.commit_id = w->commit.id;
      result.seq = w->seq;
    }
  }
  if (options.delete_source) {
    // Only the version that was merged may be deleted: if the source moved since it was read, the
    // newer work is not in the target, and the branch stays (a warning; the merge stands).
    auto deleted = graph.DeleteBranchIf(options.source, *source.ref());
    if (deleted.ok()) {
      result.branch_deleted = true;
    } else {
      result.branch_delete_error = deleted.status().ToString();
      LogWarn("merge stands, but deleting branch " + Quoted(options.source) +
              " failed: " + *result.branch_delete_error);
    }
  }
  return result;
}

}  // namespace omnigraph::engine
