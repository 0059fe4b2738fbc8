// The public embedded API (include/omnigraph/omnigraph.h) over the engine.
#include "omnigraph/omnigraph.h"

#include <map>
#include <mutex>
#include <new>
#include <stdexcept>

#include "common/clock.h"
#include "common/error_codes.h"
#include "compiler/params.h"
#include "compiler/type_checker.h"
#include "engine/executor.h"
#include "engine/exporter.h"
#include "engine/graph.h"
#include "engine/loader.h"
#include "engine/mutation.h"
#include "io/store_uri.h"

namespace omnigraph {

struct Database::Impl {
  explicit Impl(const OpenOptions& o) : options(o), read_cache(o.cache_bytes) {}
  OpenOptions options;
  std::unique_ptr<engine::Graph> graph;
  engine::GraphReadCache read_cache;  // executor structures per table version, byte-budgeted
  std::mutex query_mu;                // guards `queries`
  // (schema id, source) -> compiled queries; bounded by clearing when full.
  std::map<std::pair<std::string, std::string>, std::shared_ptr<const std::vector<compiler::IrQuery>>> queries;
};

Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::~Database() = default;

namespace {

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

engine::ExecOptions ExecOptionsOf(const OpenOptions& o) {
  engine::ExecOptions e;
  if (o.max_query_memory_bytes != 0) e.max_memory_bytes = o.max_query_memory_bytes;
  return e;
}

engine::GraphOptions ToGraphOptions(const OpenOptions& o) {
  engine::GraphOptions g;
  g.actor = o.actor;
  g.read_only = o.read_only;
  return g;
}
}  // namespace

Result<std::unique_ptr<Database>> Database::Init(std::string_view uri, std::string_view schema_source,
                                                 OpenOptions options) {
  return NoThrow([&]() -> Result<std::unique_ptr<Database>> {
    io::OpenStoreOptions so;
    so.create = true;
    OG_ASSIGN_OR_RETURN(auto store, io::OpenStore(uri, so));
    auto impl = std::make_unique<Impl>(options);
    OG_ASSIGN_OR_RETURN(impl->graph, engine::Graph::Init(std::move(store), schema_source, ToGraphOptions(options)));
    return std::unique_ptr<Database>(new Database(std::move(impl)));
  });
}

Result<std::unique_ptr<Database>> Database::Open(std::string_view uri, OpenOptions options) {
  return NoThrow([&]() -> Result<std::unique_ptr<Database>> {
    io::OpenStoreOptions so;
    so.writable = !options.read_only;
    OG_ASSIGN_OR_RETURN(auto store, io::OpenStore(uri, so));
    auto impl = std::make_unique<Impl>(options);
    OG_ASSIGN_OR_RETURN(impl->graph, engine::Graph::Open(std::move(store), ToGraphOptions(options)));
    return std::unique_ptr<Database>(new Database(std::move(impl)));
  });
}

Result<SnapshotInfo> Database::Snapshot(std::string_view branch) {
  return NoThrow([&]() -> Result<SnapshotInfo> {
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
  });
}

Result<LoadSummary> Database::Load(std::string_view ndjson, LoadMode mode, std::string_view branch) {
  return NoThrow([&]() -> Result<LoadSummary> {
    engine::LoadOptions o;
    o.mode = mode == LoadMode::kAppend ? engine::LoadMode::kAppend
             : mode == LoadMode::kMerge ? engine::LoadMode::kMerge
                                        : engine::LoadMode::kOverwrite;
    o.branch = std::string(branch);
    OG_ASSIGN_OR_RETURN(engine::LoadResult r, engine::LoadNdjson(*impl_->graph, ndjson, o));
    return LoadSummary{r.write.committed, r.write.commit.id, r.write.seq, r.records};
  });
}

Result<MutationSummary> Database::Mutate(std::string_view source, std::string_view params_json,
                                         std::string_view branch, std::optional<std::string> query_name,
                                         std::optional<std::string> if_commit) {
  return NoThrow([&]() -> Result<MutationSummary> {
    engine::MutationOptions o;
    o.branch = std::string(branch);
    o.query_name = std::move(query_name);
    o.if_commit = std::move(if_commit);
    OG_ASSIGN_OR_RETURN(engine::MutationResult r, engine::RunMutation(*impl_->graph, source, params_json, o));
    return MutationSummary{r.query_name,       o.branch,           r.affected_nodes, r.affected_edges,
                           r.write.committed, r.write.committed ? r.write.commit.id : "", r.write.seq};
  });
}

Result<QueryRows> Database::Query(std::string_view source, std::string_view params_json, std::string_view branch,
                                 std::optional<std::string> query_name) {
  return NoThrow([&]() -> Result<QueryRows> {
    OG_ASSIGN_OR_RETURN(engine::Snapshot snap, impl_->graph->Head(branch));
    std::shared_ptr<const std::vector<compiler::IrQuery>> compiled;
    auto key = std::make_pair(snap.commit().schema_id, std::string(source));
    {
      std::lock_guard<std::mutex> l(impl_->query_mu);
      auto it = impl_->queries.find(key);
      if (it != impl_->queries.end()) compiled = it->second;
    }
    if (compiled == nullptr) {
      OG_ASSIGN_OR_RETURN(auto qs, compiler::CompileQueries(snap.catalog(), source));
      compiled = std::make_shared<const std::vector<compiler::IrQuery>>(std::move(qs));
      std::lock_guard<std::mutex> l(impl_->query_mu);
      if (impl_->queries.size() >= 256) impl_->queries.clear();
      impl_->queries.emplace(std::move(key), compiled);
    }
    const compiler::IrQuery* q = nullptr;
    if (query_name) {
      for (const auto& c : *compiled) {
        if (c.name == *query_name) q = &c;
      }
      if (q == nullptr) return NotFoundError("no query named '" + *query_name + "' in the source");
    } else if (compiled->size() == 1) {
      q = &compiled->front();
    } else {
      return InvalidArgumentError("the source has " + std::to_string(compiled->size()) + " queries; name the one to run");
    }
    if (q->is_mutation) return InvalidArgumentError("'" + q->name + "' is a mutation: run it with Mutate");
    OG_ASSIGN_OR_RETURN(compiler::ParamValues params, compiler::BindParamsJson(q->params, params_json));
    OG_ASSIGN_OR_RETURN(engine::QueryResult r,
                        engine::ExecuteQuery(snap, *q, params, NowMicros() / 1000, &impl_->read_cache, ExecOptionsOf(impl_->options)));
    return QueryRows{std::move(r.columns), std::move(r.rows)};
  });
}

Status Database::Export(const std::function<Status(std::string_view)>& sink, std::string_view branch,
                        const std::vector<std::string>& types) {
  return NoThrow([&]() -> Status {
    OG_ASSIGN_OR_RETURN(engine::Snapshot snap, impl_->graph->Head(branch));
    return engine::ExportNdjson(snap, types, sink);
  });
}

Result<std::vector<CommitInfo>> Database::Commits(std::string_view branch) {
  return NoThrow([&]() -> Result<std::vector<CommitInfo>> {
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
  });
}

}  // namespace omnigraph
