#include "cluster/graph_ops.h"

#include <filesystem>
#include <memory>

#include "cluster/cluster_config.h"
#include "common/error_codes.h"
#include "common/hash.h"
#include "engine/graph/graph_layout.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph::cluster {

namespace {

OpenOptions ReadOnly() {
  OpenOptions o;
  o.read_only = true;
  o.cache_bytes = 0;
  return o;
}

}  // namespace

LiveGraph ObserveGraph(const std::string& uri, const std::string& desired_source) {
  LiveGraph live;
  auto db = Database::Open(uri, ReadOnly());
  if (!db.ok()) {
    if (db.status().category() == StatusCode::kNotFound) return live;
    live.exists = true;
    live.error = db.status().ToString();
    return live;
  }
  live.exists = true;
  auto source = (*db)->SchemaSource();
  auto snap = (*db)->Snapshot();
  if (!source.ok() || !snap.ok()) {
    live.error = (!source.ok() ? source.status() : snap.status()).ToString();
    return live;
  }
  live.schema_digest = Sha256Hex(*source);
  live.version = snap->version;
  live.matches_desired = *source == desired_source;
  if (!live.matches_desired) {
    auto plan = (*db)->PlanSchema(desired_source);
    live.matches_desired = plan.ok() && plan->from_schema_id == plan->to_schema_id;
  }
  return live;
}

Result<SchemaPlan> PreviewMigration(const std::string& uri, const std::string& schema_source) {
  OG_ASSIGN_OR_RETURN(auto db, Database::Open(uri, ReadOnly()));
  return db->PlanSchema(schema_source);
}

Result<ConvergeResult> ConvergeGraph(const std::string& uri, const std::string& schema_source,
                                     const std::optional<std::string>& actor, bool may_create) {
  OpenOptions options;
  options.actor = actor;
  options.cache_bytes = 0;
  ConvergeResult result;
  auto db = Database::Open(uri, options);
  if (!db.ok()) {
    if (db.status().category() != StatusCode::kNotFound || !may_create) return db.status();
    OG_ASSIGN_OR_RETURN(auto created, Database::Init(uri, schema_source, options));
    result.created = true;
    return result;
  }
  OG_ASSIGN_OR_RETURN(std::string live, (*db)->SchemaSource());
  if (live == schema_source) return result;
  OG_ASSIGN_OR_RETURN(SchemaPlan plan, (*db)->PlanSchema(schema_source));
  // The same catalog in other bytes (comments, layout): the engine keeps one source per schema id,
  // so there is nothing to apply and the graph already holds the declared schema.
  if (plan.from_schema_id == plan.to_schema_id) return result;
  if (!plan.supported) {
    std::string why;
    for (const auto& step : plan.steps) {
      if (step.kind != "unsupported_change") continue;
      why += (why.empty() ? "" : "; ") + step.code + " " + step.entity + ": " + step.reason;
    }
    return InvalidArgumentError("the migration is not supported: " + why);
  }
  OG_ASSIGN_OR_RETURN(auto applied, (*db)->ApplySchema(schema_source));
  result.migrated = applied.applied;
  return result;
}

Status DeleteGraph(Ledger& ledger, const std::string& graph_id) {
  const std::string prefix = StorageRoot::GraphPrefix(graph_id);
  OG_RETURN_IF_ERROR(ledger.store().DeletePrefix(prefix + std::string(engine::kRefsPrefix)));
  OG_RETURN_IF_ERROR(ledger.store().DeletePrefix(prefix));
  if (!ledger.root().uri.starts_with("s3://")) {
    std::error_code ec;
    std::filesystem::remove_all(ledger.root().GraphUri(graph_id), ec);
    if (ec) return IoError("could not remove " + ledger.root().GraphUri(graph_id) + ": " + ec.message());
  }
  return Status::Ok();
}

void RecomputeGraphDigest(const std::string& g, ClusterState* state) {
  auto graph = state->resources.find("graph." + g);
  if (graph == state->resources.end()) return;
  std::string schema_digest;
  if (auto it = state->resources.find("schema." + g); it != state->resources.end()) schema_digest = it->second.digest;
  std::map<std::string, std::string> queries;
  const std::string prefix = "query." + g + ".";
  for (auto it = state->resources.lower_bound(prefix); it != state->resources.end() && it->first.starts_with(prefix);
       ++it) {
    queries[it->first.substr(prefix.size())] = it->second.digest;
  }
  const std::optional<std::string>& provider = graph->second.embedding_provider;
  const std::string* provider_digest = nullptr;
  if (provider) {
    if (auto it = state->resources.find(*provider); it != state->resources.end()) provider_digest = &it->second.digest;
  }
  graph->second.digest = GraphDigest(g, schema_digest, queries, provider ? &*provider : nullptr, provider_digest);
}

}  // namespace omnigraph::cluster
