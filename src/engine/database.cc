// The public embedded API (include/omnigraph/omnigraph.h) over the engine.
#include "omnigraph/omnigraph.h"

#include "engine/exporter.h"
#include "engine/graph.h"
#include "engine/loader.h"
#include "io/store_uri.h"

namespace omnigraph {

struct Database::Impl {
  std::unique_ptr<engine::Graph> graph;
};

Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::~Database() = default;

namespace {
engine::GraphOptions ToGraphOptions(const OpenOptions& o) {
  engine::GraphOptions g;
  g.actor = o.actor;
  g.read_only = o.read_only;
  return g;
}
}  // namespace

Result<std::unique_ptr<Database>> Database::Init(std::string_view uri, std::string_view schema_source,
                                                 OpenOptions options) {
  io::OpenStoreOptions so;
  so.create = true;
  OG_ASSIGN_OR_RETURN(auto store, io::OpenStore(uri, so));
  auto impl = std::make_unique<Impl>();
  OG_ASSIGN_OR_RETURN(impl->graph, engine::Graph::Init(std::move(store), schema_source, ToGraphOptions(options)));
  return std::unique_ptr<Database>(new Database(std::move(impl)));
}

Result<std::unique_ptr<Database>> Database::Open(std::string_view uri, OpenOptions options) {
  io::OpenStoreOptions so;
  so.writable = !options.read_only;
  OG_ASSIGN_OR_RETURN(auto store, io::OpenStore(uri, so));
  auto impl = std::make_unique<Impl>();
  OG_ASSIGN_OR_RETURN(impl->graph, engine::Graph::Open(std::move(store), ToGraphOptions(options)));
  return std::unique_ptr<Database>(new Database(std::move(impl)));
}

Result<SnapshotInfo> Database::Snapshot(std::string_view branch) {
  OG_ASSIGN_OR_RETURN(engine::Snapshot snap, impl_->graph->Head(branch));
  OG_ASSIGN_OR_RETURN(auto counts, snap.RowCounts());
  SnapshotInfo out;
  out.branch = std::string(branch);
  out.version = snap.seq();
  out.commit_id = snap.commit().id;
  out.schema_id = snap.commit().schema_id;
  for (const auto& [name, ref] : snap.commit().tables) {
    out.types.push_back(TypeInfo{name, ref.kind == engine::EntityKind::kEdge, counts.at(name)});
  }
  return out;
}

Result<LoadSummary> Database::Load(std::string_view ndjson, LoadMode mode, std::string_view branch) {
  engine::LoadOptions o;
  o.mode = mode == LoadMode::kAppend ? engine::LoadMode::kAppend
           : mode == LoadMode::kMerge ? engine::LoadMode::kMerge
                                      : engine::LoadMode::kOverwrite;
  o.branch = std::string(branch);
  OG_ASSIGN_OR_RETURN(engine::LoadResult r, engine::LoadNdjson(*impl_->graph, ndjson, o));
  return LoadSummary{r.write.committed, r.write.commit.id, r.write.seq, r.records};
}

Status Database::Export(const std::function<Status(std::string_view)>& sink, std::string_view branch,
                        const std::vector<std::string>& types) {
  OG_ASSIGN_OR_RETURN(engine::Snapshot snap, impl_->graph->Head(branch));
  return engine::ExportNdjson(snap, types, sink);
}

Result<std::vector<CommitInfo>> Database::Commits(std::string_view branch) {
  OG_ASSIGN_OR_RETURN(auto log, impl_->graph->CommitLog(branch));
  std::vector<CommitInfo> out;
  for (const auto& c : log) {
    CommitInfo i;
    i.id = c->id;
    i.parents = c->parents;
    i.branch = c->branch;
    i.actor = c->actor;
    i.timestamp_us = c->timestamp_us;
    i.operation = c->operation;
    for (const auto& [name, n] : c->summary) i.summary[name] = {n.inserted, n.updated, n.deleted};
    out.push_back(std::move(i));
  }
  return out;
}

}  // namespace omnigraph
