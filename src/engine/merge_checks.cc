// Validation of a merged result (merge_internal.h). Only entities changed on either side since the
// merge base can break a constraint that held on both sides, so only those are looked at; the
// merged tables are scanned with pushed-down IN predicates on the touched ids. Run also when
// entities conflict: then on the candidate where each conflicting entity keeps the target's
// version.
#include <set>

#include "common/json.h"
#include "engine/merge_internal.h"
#include "engine/schema_store.h"
#include "table/id_index.h"
#include "table/predicate.h"

namespace omnigraph::engine::merge_internal {
namespace {

std::string Quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

std::vector<Value> Strings(const std::set<std::string>& ids) {
  std::vector<Value> out;
  out.reserve(ids.size());
  for (const auto& id : ids) out.push_back(Value::String(id));
  return out;
}

// Ids changed (inserted or updated) on either side.
std::set<std::string> Touched(const MergedType& t) {
  std::set<std::string> out;
  for (const auto* side : {t.source, t.target}) {
    for (const auto& [id, c] : *side) {
      if (c.op != ChangeOp::kDelete) out.insert(id);
    }
  }
  return out;
}

Status CheckOrphans(const compiler::Catalog& catalog, const std::map<std::string, MergedType>& types,
                    std::vector<MergeConflict>* out) {
  std::map<std::string, std::set<std::string>> deleted;  // node type -> ids deleted on a side
  std::map<std::string, std::string> side_of;             // "type/id" -> "source" | "target"
  for (const auto& [name, t] : types) {
    if (t.kind != EntityKind::kNode) continue;
    for (const auto& [side, changes] : {std::pair{"source", t.source}, std::pair{"target", t.target}}) {
      for (const auto& [id, c] : *changes) {
        if (c.op != ChangeOp::kDelete) continue;
        deleted[name].insert(id);
        side_of[name + "/" + id] = side;
      }
    }
  }
  // A node deleted on one side and updated on the other is a delete_vs_update conflict and keeps
  // the target's version in the merged candidate: only nodes really gone can orphan an edge.
  for (auto it = deleted.begin(); it != deleted.end();) {
    OG_ASSIGN_OR_RETURN(table::IdIndex index, table::IdIndex::Open(*types.at(it->first).table));
    std::vector<std::string> ids(it->second.begin(), it->second.end());
    auto found = index.LookupMany(ids);
    for (size_t i = 0; i < ids.size(); ++i) {
      if (found[i]) it->second.erase(ids[i]);
    }
    it = it->second.empty() ? deleted.erase(it) : std::next(it);
  }
  if (deleted.empty()) return Status::Ok();
  for (const auto& e : catalog.edges()) {
    auto from = deleted.find(e.from_type);
    auto to = deleted.find(e.to_type);
    std::vector<table::Predicate> any;
    if (from != deleted.end()) any.push_back(table::Predicate::In(std::string(kSrcColumn), Strings(from->second)));
    if (to != deleted.end()) any.push_back(table::Predicate::In(std::string(kDstColumn), Strings(to->second)));
    if (any.empty()) continue;
    table::ScanOptions opts;
    opts.columns = std::vector<std::string>{std::string(kIdColumn), std::string(kSrcColumn), std::string(kDstColumn)};
    opts.filter = table::Predicate::Or(std::move(any));
    OG_ASSIGN_OR_RETURN(format::Batch b, types.at(e.name).table->ScanAll(opts));
    for (size_t r = 0; r < b.num_rows(); ++r) {
      std::string src = b.GetValue(r, 1).string_value(), dst = b.GetValue(r, 2).string_value();
      bool src_gone = from != deleted.end() && from->second.count(src);
      const std::string& node_type = src_gone ? e.from_type : e.to_type;
      const std::string& node = src_gone ? src : dst;
      out->push_back(MergeConflict{EntityKind::kEdge, e.name, b.GetValue(r, 0).string_value(), kOrphanEdge,
                                   "references " + node_type + " " + Quoted(node) + ", which was deleted on the " +
                                       side_of[node_type + "/" + node] + " branch"});
    }
  }
  return Status::Ok();
}

Status CheckUniques(const MergedType& t, const std::vector<std::vector<std::string>>& uniques,
                    std::vector<MergeConflict>* out) {
  if (uniques.empty()) return Status::Ok();
  std::set<std::string> touched = Touched(t);
  if (touched.empty()) return Status::Ok();
  for (const auto& tuple : uniques) {
    std::vector<std::string> cols{std::string(kIdColumn)};
    for (const auto& p : tuple) cols.push_back(p);
    table::ScanOptions opts;
    opts.columns = cols;
    OG_ASSIGN_OR_RETURN(format::Batch b, t.table->ScanAll(opts));
    std::map<std::string, std::vector<std::string>> by_value;
    for (size_t r = 0; r < b.num_rows(); ++r) {
      Json key = Json::array();
      bool has_null = false;
      for (size_t c = 1; c < cols.size(); ++c) {
        Value v = b.GetValue(r, c);
        has_null = has_null || v.is_null();
        key.push_back(ValueToJson(v));
      }
      if (!has_null) by_value[key.dump()].push_back(b.GetValue(r, 0).string_value());
    }
    std::string names;
    for (const auto& p : tuple) names += (names.empty() ? "" : ", ") + p;
    for (const auto& [key, ids] : by_value) {
      if (ids.size() < 2) continue;
      for (const auto& id : ids) {
        if (!touched.count(id)) continue;
        out->push_back(MergeConflict{t.kind, t.name, id, kUniqueViolation,
                                     "@unique(" + names + ") value " + key + " is held by " +
                                         std::to_string(ids.size()) + " entities after the merge"});
      }
    }
  }
  return Status::Ok();
}

Status CheckCardinality(const compiler::EdgeType& e, const std::map<std::string, MergedType>& types,
                        std::vector<MergeConflict>* out) {
  if (e.card.is_default()) return Status::Ok();
  const MergedType& t = types.at(e.name);
  std::set<std::string> sources;
  for (const auto* side : {t.source, t.target}) {
    for (const auto& [id, c] : *side) {
      if (c.before) sources.insert(c.before->src);
      if (c.after) sources.insert(c.after->src);
    }
  }
  if (sources.empty()) return Status::Ok();
  table::ScanOptions opts;
  opts.columns = std::vector<std::string>{std::string(kSrcColumn)};
  opts.filter = table::Predicate::In(std::string(kSrcColumn), Strings(sources));
  OG_ASSIGN_OR_RETURN(format::Batch b, t.table->ScanAll(opts));
  std::map<std::string, uint64_t> counts;
  for (size_t r = 0; r < b.num_rows(); ++r) counts[b.GetValue(r, 0).string_value()]++;
  OG_ASSIGN_OR_RETURN(table::IdIndex nodes, table::IdIndex::Open(*types.at(e.from_type).table));
  for (const auto& src : sources) {
    if (!nodes.Lookup(src)) continue;  // the node is gone: its edges are checked as orphans
    uint64_t n = counts[src];
    if (n < e.card.min || (e.card.max && n > *e.card.max)) {
      out->push_back(MergeConflict{EntityKind::kNode, e.from_type, src, kCardinalityViolation,
                                   "would have " + std::to_string(n) + " " + e.name + " edge(s) after the merge; @card allows " +
                                       std::to_string(e.card.min) + ".." + (e.card.max ? std::to_string(*e.card.max) : "")});
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckMerged(const compiler::Catalog& catalog, const std::map<std::string, MergedType>& types,
                   std::vector<MergeConflict>* conflicts) {
  OG_RETURN_IF_ERROR(CheckOrphans(catalog, types, conflicts));
  for (const auto& n : catalog.nodes()) OG_RETURN_IF_ERROR(CheckUniques(types.at(n.name), n.uniques, conflicts));
  for (const auto& e : catalog.edges()) {
    OG_RETURN_IF_ERROR(CheckUniques(types.at(e.name), e.uniques, conflicts));
    OG_RETURN_IF_ERROR(CheckCardinality(e, types, conflicts));
  }
  // Value constraints (@range, @check, enums, nullability) hold per property, and every merged
  // property value comes unchanged from one side, where it was validated: with one schema on both
  // sides (a schema boundary is refused above) a merge cannot produce value_constraint_violation.
  return Status::Ok();
}

}  // namespace omnigraph::engine::merge_internal
