#include "common/api_json.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "common/output_json.h"

namespace omnigraph {

namespace {
OrderedJson ActorOrNull(const std::optional<std::string>& actor) {
  return actor ? OrderedJson(*actor) : OrderedJson(nullptr);
}
}  // namespace

OrderedJson TargetJson(const ReadTargetText& t) {
  OrderedJson j = OrderedJson::object();
  j["branch"] = t.snapshot.empty() ? OrderedJson(t.branch) : OrderedJson(nullptr);
  j["snapshot"] = t.snapshot.empty() ? OrderedJson(nullptr) : OrderedJson(t.snapshot);
  return j;
}

OrderedJson RowJson(const QueryRows& r, size_t i) {
  OrderedJson o = OrderedJson::object();
  for (size_t c = 0; c < r.columns.size(); ++c) o[r.columns[c]] = OrderedJson(ValueToJson(r.rows[i][c]));
  return o;
}

OrderedJson ReadOutputJson(const QueryRows& r, const ReadTargetText& target, bool with_commit) {
  OrderedJson j = OrderedJson::object();
  j["query_name"] = r.query_name;
  j["target"] = TargetJson(target);
  j["row_count"] = r.rows.size();
  if (!r.columns.empty()) j["columns"] = r.columns;
  OrderedJson rows = OrderedJson::array();
  for (size_t i = 0; i < r.rows.size(); ++i) rows.push_back(RowJson(r, i));
  j["rows"] = std::move(rows);
  if (with_commit) j["graph_commit_id"] = r.commit_id;
  return j;
}

OrderedJson SnapshotOutputJson(const std::string& branch, const SnapshotInfo& snap) {
  std::vector<const TypeInfo*> sorted;
  for (const auto& t : snap.types) sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(), [](const TypeInfo* a, const TypeInfo* b) {
    return std::make_pair(!a->is_edge, a->name) < std::make_pair(!b->is_edge, b->name);
  });
  OrderedJson types = OrderedJson::array();
  for (const TypeInfo* t : sorted) {
    OrderedJson d = OrderedJson::object();
    d["entity_kind"] = t->is_edge ? "edge" : "node";
    d["type_name"] = t->name;
    d["dataset_path"] = "tables/" + t->table_id;
    d["published_dataset_version"] = t->table_version;
    d["native_dataset_branch"] = nullptr;
    d["entity_count"] = t->rows;
    d["table_id"] = t->table_id;
    types.push_back(std::move(d));
  }
  OrderedJson j = OrderedJson::object();
  j["graph_branch"] = branch;
  j["graph_manifest_version"] = snap.version;
  j["internal_schema_version"] = OG_STORAGE_FORMAT_VERSION;
  j["datasets"] = std::move(types);
  j["graph_commit_id"] = snap.commit_id;
  j["schema_id"] = snap.schema_id;
  j["snapshot_id"] = snap.snapshot_id;
  return j;
}

OrderedJson LoadOutputJson(const LoadRequestText& f, const LoadSummary& r, const std::optional<CommitInfo>& commit) {
  OrderedJson nodes = OrderedJson::array(), edges = OrderedJson::array();
  for (const auto& [name, st] : r.types) {
    OrderedJson t = OrderedJson::object();
    t["name"] = name;
    t["entities_loaded"] = st.loaded;
    t["inserted"] = st.changes.inserted;
    t["updated"] = st.changes.updated;
    t["deleted"] = st.changes.deleted;
    (st.kind == EntityKind::kNode ? nodes : edges).push_back(std::move(t));
  }
  OrderedJson j = OrderedJson::object();
  if (!f.uri.empty()) j["uri"] = f.uri;
  j["branch"] = f.branch;
  if (f.ingest) {
    j["base_branch"] = f.from.empty() ? OrderedJson(nullptr) : OrderedJson(f.from);
    j["branch_created"] = r.branch_created;
    j["mode"] = f.mode;
  } else {
    j["mode"] = f.mode;
    if (!f.from.empty()) j["base_branch"] = f.from;
    j["branch_created"] = r.branch_created;
  }
  j["nodes"] = std::move(nodes);
  j["edges"] = std::move(edges);
  j["total_entities"] = r.records;
  if (f.ingest) j["actor_id"] = ActorOrNull(f.actor);
  j["commit"] = commit ? CommitOutputJson(*commit) : OrderedJson(nullptr);
  j["committed"] = r.committed;
  j["version"] = r.version;
  if (!f.ingest) j["actor_id"] = ActorOrNull(f.actor);
  return j;
}

OrderedJson ChangeOutputJson(const std::string& branch, const MutationSummary& r,
                             const std::optional<std::string>& actor) {
  OrderedJson j = OrderedJson::object();
  j["branch"] = branch;
  j["query_name"] = r.query_name;
  j["affected_nodes"] = r.affected_nodes;
  j["affected_edges"] = r.affected_edges;
  j["actor_id"] = ActorOrNull(actor);
  j["commit"] = r.commit ? CommitOutputJson(*r.commit) : OrderedJson(nullptr);
  return j;
}

OrderedJson SchemaApplyOutputJson(const std::string& uri, const Database::SchemaApplyResult& r) {
  OrderedJson j = OrderedJson::object();
  j["uri"] = uri;
  j["supported"] = r.plan.supported;
  j["applied"] = r.applied;
  j["step_count"] = r.plan.steps.size();
  j["graph_manifest_version"] = r.version;
  j["steps"] = SchemaPlanStepsJson(r.plan);
  j["branch"] = r.plan.branch;
  j["graph_commit_id"] = r.commit_id;
  j["schema_id"] = r.plan.to_schema_id;
  return j;
}

}  // namespace omnigraph
