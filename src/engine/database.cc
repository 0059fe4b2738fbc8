// The public embedded API (include/omnigraph/omnigraph.h), the engine's front door: open and init,
// reads, and the one way into a query (Prepare -> Execute / Apply). Writes other than mutations,
// branches, history and changes are in database_history.cc.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "common/clock.h"
#include "compiler/params.h"
#include "compiler/query_select.h"
#include "compiler/type_checker.h"
#include "engine/database_internal.h"
#include "engine/exec/executor.h"
#include "engine/graph/graph_layout.h"
#include "engine/load/exporter.h"
#include "engine/mutate/mutation.h"
#include "engine/search/vector.h"
#include "io/disk_cache_store.h"
#include "io/store_uri.h"

namespace omnigraph {

using database_internal::AuthorizeWrite;
using database_internal::AutoCompactAfter;
using database_internal::NoThrow;
using database_internal::Resolve;

// ---- PreparedQuery and RowCursor ----------------------------------------------------------------

struct PreparedQuery::Impl {
  std::string source;
  std::optional<std::string> requested_name;  // as given to Prepare
  std::string schema_id;
  std::shared_ptr<const std::vector<compiler::IrQuery>> compiled;  // keeps `query` alive
  const compiler::IrQuery* query = nullptr;
  std::vector<ParamInfo> params;
  std::vector<std::string> columns;
};

PreparedQuery::PreparedQuery() = default;
PreparedQuery::~PreparedQuery() = default;
PreparedQuery::PreparedQuery(const PreparedQuery&) = default;
PreparedQuery& PreparedQuery::operator=(const PreparedQuery&) = default;
PreparedQuery::PreparedQuery(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

namespace {
const std::string kEmptyString;
const std::vector<ParamInfo> kNoParams;
const std::vector<std::string> kNoColumns;
}  // namespace

const std::string& PreparedQuery::name() const { return impl_ ? impl_->query->name : kEmptyString; }
bool PreparedQuery::is_mutation() const { return impl_ && impl_->query->is_mutation; }
const std::string& PreparedQuery::schema_id() const { return impl_ ? impl_->schema_id : kEmptyString; }
const std::vector<ParamInfo>& PreparedQuery::params() const { return impl_ ? impl_->params : kNoParams; }
const std::vector<std::string>& PreparedQuery::columns() const { return impl_ ? impl_->columns : kNoColumns; }

struct RowCursor::Impl {
  std::unique_ptr<engine::QueryStream> stream;
  std::string commit_id;
};

RowCursor::RowCursor() = default;
RowCursor::~RowCursor() = default;
RowCursor::RowCursor(RowCursor&&) noexcept = default;
RowCursor& RowCursor::operator=(RowCursor&&) noexcept = default;
RowCursor::RowCursor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
const std::vector<std::string>& RowCursor::columns() const { return impl_ ? impl_->stream->columns() : kNoColumns; }
const std::string& RowCursor::commit_id() const { return impl_ ? impl_->commit_id : kEmptyString; }
uint64_t RowCursor::total_rows() const { return impl_ ? impl_->stream->total_rows() : 0; }

Result<size_t> RowCursor::Next(std::vector<std::vector<Value>>* out, size_t max_rows) {
  out->clear();
  if (impl_ == nullptr) return size_t{0};
  return impl_->stream->Next(out, max_rows);
}

// ---- Open and init ------------------------------------------------------------------------------

Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::~Database() = default;

namespace database_internal {

Result<engine::Snapshot> Resolve(engine::Graph& graph, const ReadTarget& at) {
  switch (at.kind()) {
    case ReadTarget::Kind::kHead: return graph.Head(at.text());
    case ReadTarget::Kind::kVersion: return graph.AtBranchVersion(at.text(), at.version());
    case ReadTarget::Kind::kCommit: return graph.AtCommit(at.text());
    case ReadTarget::Kind::kSnapshotId: return graph.AtSnapshotId(at.text());
    case ReadTarget::Kind::kAny: {
      if (at.text().find('@') != std::string::npos) return graph.AtSnapshotId(at.text());
      auto c = graph.AtCommit(at.text());
      if (c.ok() || c.status().category() != StatusCode::kNotFound) return c;
      auto h = graph.Head(at.text());
      if (h.ok()) return h;
      return NotFoundError("'" + at.text() + "' is neither a snapshot id, a commit id nor a branch");
    }
  }
  return InvalidArgumentError("unknown read target");
}

}  // namespace database_internal

namespace {

// OMNIGRAPH_AUTO_COMPACT=0 (or off/false/no) turns automatic compaction off for the process.
uint32_t AutoCompactFanout(const OpenOptions& o) {
  const char* env = std::getenv("OMNIGRAPH_AUTO_COMPACT");
  if (env != nullptr) {
    std::string v(env);
    if (v == "0" || v == "off" || v == "false" || v == "no") return 0;
  }
  return o.auto_compact_fanout == 1 ? 2 : o.auto_compact_fanout;
}

engine::GraphOptions ToGraphOptions(const OpenOptions& o) {
  engine::GraphOptions g;
  g.actor = o.actor;
  g.read_only = o.read_only;
  g.cleanup_grace_us = o.cleanup_grace_us;
  return g;
}

// The outermost folder of `path` that does not exist yet (what an init creates), or empty.
std::filesystem::path FirstMissing(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) || ec) return {};
  std::filesystem::path missing = path;
  for (std::filesystem::path p = path.parent_path(); !p.empty() && p != p.parent_path(); p = p.parent_path()) {
    if (std::filesystem::exists(p, ec) || ec) break;
    missing = p;
  }
  return missing;
}

}  // namespace

Database::Impl::Impl(const OpenOptions& o)
    : options(o), auto_compact_fanout(AutoCompactFanout(o)), read_cache(o.cache_bytes) {}

Result<std::unique_ptr<Database>> Database::Init(std::string_view uri, std::string_view schema_source,
                                                 OpenOptions options) {
  return NoThrow([&]() -> Result<std::unique_ptr<Database>> {
    OG_ASSIGN_OR_RETURN(io::StoreUri parsed, io::ParseStoreUri(uri));
    std::filesystem::path created;  // the folder this init creates, if any
    if (parsed.scheme == io::StoreScheme::kFile) created = FirstMissing(parsed.path);
    io::OpenStoreOptions so;
    so.create = true;
    so.unsafe_single_writer = options.unsafe_single_writer;
    auto store = io::OpenStore(parsed, so);
    // A failed init removes the folder it created, unless a ref made it a graph after all (a
    // concurrent init won) or the root was already a graph.
    auto clean_up = [&](const Status& why) {
      if (created.empty() || why.code() == ErrorCode::kAlreadyInitialized) return;
      if (store.ok()) {
        auto refs = (*store)->ListPage(engine::kRefsPrefix, "", 1);
        if (!refs.ok() || !refs->empty()) return;
      }
      std::error_code ec;
      std::filesystem::remove_all(created, ec);
    };
    if (!store.ok()) {
      clean_up(store.status());
      return store.status();
    }
    auto impl = std::make_unique<Impl>(options);
    auto graph = engine::Graph::Init(*store, schema_source, ToGraphOptions(options));
    if (!graph.ok()) {
      clean_up(graph.status());
      return graph.status();
    }
    impl->graph = std::move(*graph);
    return std::unique_ptr<Database>(new Database(std::move(impl)));
  });
}

Result<std::unique_ptr<Database>> Database::Open(std::string_view uri, OpenOptions options) {
  return NoThrow([&]() -> Result<std::unique_ptr<Database>> {
    if (options.inspect) options.read_only = true;
    io::OpenStoreOptions so;
    so.writable = !options.read_only;
    so.unsafe_single_writer = options.unsafe_single_writer;
    OG_ASSIGN_OR_RETURN(io::StoreUri parsed, io::ParseStoreUri(uri));
    OG_ASSIGN_OR_RETURN(auto store, io::OpenStore(parsed, so));
    if (!options.disk_cache_dir.empty() && parsed.scheme != io::StoreScheme::kFile) {
      io::DiskCacheOptions dc;
      dc.dir = options.disk_cache_dir;
      dc.max_bytes = options.disk_cache_bytes;
      dc.cacheable = engine::IsDiskCacheableKey;
      OG_ASSIGN_OR_RETURN(store, io::DiskCacheStore::Open(std::move(store), std::move(dc)));
    }
    auto impl = std::make_unique<Impl>(options);
    if (options.inspect) {
      OG_ASSIGN_OR_RETURN(impl->graph, engine::Graph::OpenForInspection(std::move(store), ToGraphOptions(options)));
    } else {
      OG_ASSIGN_OR_RETURN(impl->graph, engine::Graph::Open(std::move(store), ToGraphOptions(options)));
    }
    return std::unique_ptr<Database>(new Database(std::move(impl)));
  });
}

std::string Database::uri() const { return impl_->graph->store().Describe(); }
const std::optional<std::string>& Database::actor() const { return impl_->graph->options().actor; }

// ---- Reads --------------------------------------------------------------------------------------

Result<SnapshotInfo> Database::Snapshot(const ReadTarget& at) {
  return NoThrow([&]() -> Result<SnapshotInfo> {
    OG_ASSIGN_OR_RETURN(engine::Snapshot snap, Resolve(*impl_->graph, at));
    OG_ASSIGN_OR_RETURN(auto counts, snap.RowCounts());
    SnapshotInfo out;
    out.branch = snap.branch();
    out.version = snap.seq();
    out.snapshot_id = engine::Graph::SnapshotId(snap);
    out.commit_id = snap.commit().id;
    out.schema_id = snap.commit().schema_id;
    for (const auto& [name, ref] : snap.commit().tables) {
      out.types.push_back(TypeInfo{name, ref.kind == EntityKind::kEdge, counts.at(name), ref.table_id, ref.version_id});
    }
    return out;
  });
}

Status Database::Export(const std::function<Status(std::string_view)>& sink, const ReadTarget& at,
                        const std::vector<std::string>& types) {
  return NoThrow([&]() -> Status {
    OG_ASSIGN_OR_RETURN(engine::Snapshot snap, Resolve(*impl_->graph, at));
    return engine::ExportNdjson(snap, types, sink);
  });
}

// ---- Queries ------------------------------------------------------------------------------------

namespace {

// Compiles `source` against `snap`'s schema (cached per schema and source) and picks the query.
Result<PreparedQuery> PrepareAt(Database::Impl& impl, const std::string& schema_id, const compiler::Catalog& catalog,
                                std::string_view source, const std::optional<std::string>& name);
Result<PreparedQuery> PrepareAt(Database::Impl& impl, const engine::Snapshot& snap, std::string_view source,
                                const std::optional<std::string>& name) {
  return PrepareAt(impl, snap.commit().schema_id, snap.catalog(), source, name);
}

}  // namespace

Result<PreparedQuery> Database::Prepare(std::string_view source, std::optional<std::string> query_name,
                                        const ReadTarget& schema_at) {
  return NoThrow([&]() -> Result<PreparedQuery> {
    OG_ASSIGN_OR_RETURN(engine::Snapshot snap, Resolve(*impl_->graph, schema_at));
    return PrepareAt(*impl_, snap, source, query_name);
  });
}

namespace {

Result<PreparedQuery> PrepareAt(Database::Impl& impl, const std::string& schema_id, const compiler::Catalog& catalog,
                                std::string_view source, const std::optional<std::string>& name) {
  std::shared_ptr<const std::vector<compiler::IrQuery>> compiled;
  Database::Impl::QueryKey key{schema_id, name, std::string(source)};
  {
    MutexLock l(&impl.query_mu);
    auto it = impl.queries.find(key);
    if (it != impl.queries.end()) compiled = it->second;
  }
  if (compiled == nullptr) {
    OG_ASSIGN_OR_RETURN(compiler::IrQuery q,
                        compiler::CompileSelectedQuery(catalog, source, name, compiler::QueryKind::kAny));
    std::vector<compiler::IrQuery> qs;
    qs.push_back(std::move(q));
    compiled = std::make_shared<const std::vector<compiler::IrQuery>>(std::move(qs));
    MutexLock l(&impl.query_mu);
    if (impl.queries.size() >= 256) impl.queries.clear();
    impl.queries.emplace(std::move(key), compiled);
  }
  OG_ASSIGN_OR_RETURN(const compiler::IrQuery* q, compiler::SelectQuery(*compiled, name, compiler::QueryKind::kAny));
  auto p = std::make_shared<PreparedQuery::Impl>();
  p->source = std::string(source);
  p->requested_name = name;
  p->schema_id = schema_id;
  p->compiled = compiled;
  p->query = q;
  for (const auto& d : q->params) p->params.push_back(ParamInfo{d.name, d.type, d.nullable});
  for (const auto& proj : q->projections) p->columns.push_back(proj.name);
  return PreparedQuery(std::move(p));
}

}  // namespace

namespace {

// The query of `prepared` compiled against `snap`'s schema: itself, or recompiled from its source
// when the schema differs (same name).
Result<PreparedQuery> Rebind(Database::Impl& impl, const PreparedQuery& prepared, const engine::Snapshot& snap) {
  if (prepared.empty()) return InvalidArgumentError("the prepared query is empty (use Database::Prepare)");
  if (prepared.impl()->schema_id == snap.commit().schema_id) return prepared;
  auto rebound = PrepareAt(impl, snap, prepared.impl()->source, std::string(prepared.name()));
  if (!rebound.ok()) {  // name the schema change the query no longer fits
    return rebound.status().WithContext("the schema changed since the query was prepared (schema " +
                                        prepared.impl()->schema_id.substr(0, 12) + " -> " +
                                        snap.commit().schema_id.substr(0, 12) + ")");
  }
  return rebound;
}

// Runs read query `q` (parameters bound) at `snap`.
engine::ExecOptions ExecOptionsOf(const Database::Impl& impl, const QueryOptions& options) {
  engine::ExecOptions exec;
  if (impl.options.max_query_memory_bytes != 0) exec.max_memory_bytes = impl.options.max_query_memory_bytes;
  if (options.max_memory_bytes != 0) exec.max_memory_bytes = options.max_memory_bytes;
  return exec;
}

Result<QueryRows> Run(Database::Impl& impl, const PreparedQuery& q, const compiler::ParamValues& bound,
                      const engine::Snapshot& snap, const QueryOptions& options) {
  OG_RETURN_IF_ERROR(compiler::SelectQuery(*q.impl()->compiled, q.name(), compiler::QueryKind::kRead).status());
  const engine::ExecOptions exec = ExecOptionsOf(impl, options);
  const int64_t now_ms = options.now_ms ? *options.now_ms : NowMicros() / 1000;
  OG_ASSIGN_OR_RETURN(engine::QueryResult r,
                      engine::ExecuteQuery(snap, *q.impl()->query, bound, now_ms, &impl.read_cache, exec));
  return QueryRows{q.name(), std::move(r.columns), std::move(r.rows), snap.commit().id};
}

}  // namespace

Result<QueryRows> Database::Execute(const PreparedQuery& query, const Params& params, const ReadTarget& at,
                                    const QueryOptions& options) {
  return NoThrow([&]() -> Result<QueryRows> {
    OG_ASSIGN_OR_RETURN(engine::Snapshot snap, Resolve(*impl_->graph, at));
    OG_ASSIGN_OR_RETURN(PreparedQuery q, Rebind(*impl_, query, snap));
    if (q.is_mutation()) return Run(*impl_, q, {}, snap, options);  // the kind error
    OG_ASSIGN_OR_RETURN(compiler::ParamValues bound, compiler::BindParamValues(q.impl()->query->params, params));
    return Run(*impl_, q, bound, snap, options);
  });
}

Result<RowCursor> Database::OpenCursor(const PreparedQuery& query, const Params& params, const ReadTarget& at,
                                       const QueryOptions& options) {
  return NoThrow([&]() -> Result<RowCursor> {
    OG_ASSIGN_OR_RETURN(engine::Snapshot snap, Resolve(*impl_->graph, at));
    OG_ASSIGN_OR_RETURN(PreparedQuery q, Rebind(*impl_, query, snap));
    OG_RETURN_IF_ERROR(compiler::SelectQuery(*q.impl()->compiled, q.name(), compiler::QueryKind::kRead).status());
    OG_ASSIGN_OR_RETURN(compiler::ParamValues bound, compiler::BindParamValues(q.impl()->query->params, params));
    const int64_t now_ms = options.now_ms ? *options.now_ms : NowMicros() / 1000;
    auto impl = std::make_unique<RowCursor::Impl>();
    impl->commit_id = snap.commit().id;
    // The stream keeps the compiled source (and so the query) alive.
    OG_ASSIGN_OR_RETURN(impl->stream,
                        engine::QueryStream::Open(snap, q.impl()->compiled, *q.impl()->query, std::move(bound), now_ms,
                                                  &impl_->read_cache, ExecOptionsOf(*impl_, options)));
    return RowCursor(std::move(impl));
  });
}

Result<QueryRows> Database::Query(std::string_view source, std::string_view params_json, const ReadTarget& at,
                                  std::optional<std::string> query_name, const QueryOptions& options) {
  return NoThrow([&]() -> Result<QueryRows> {
    OG_ASSIGN_OR_RETURN(engine::Snapshot snap, Resolve(*impl_->graph, at));
    OG_ASSIGN_OR_RETURN(PreparedQuery q, PrepareAt(*impl_, snap, source, query_name));
    if (q.is_mutation()) return Run(*impl_, q, {}, snap, options);  // the kind error
    OG_ASSIGN_OR_RETURN(compiler::ParamValues bound, compiler::BindParamsJson(q.impl()->query->params, params_json));
    return Run(*impl_, q, bound, snap, options);
  });
}

// ---- Mutations ----------------------------------------------------------------------------------

namespace {

MutationSummary ToSummary(const engine::MutationResult& r, const std::string& branch) {
  MutationSummary s;
  s.query_name = r.query_name;
  s.branch = branch;
  s.affected_nodes = r.affected_nodes;
  s.affected_edges = r.affected_edges;
  s.committed = r.write.committed;
  s.commit_id = r.write.committed ? r.write.commit.id : "";
  s.version = r.write.seq;
  s.changes = r.changes;
  if (r.write.committed) s.commit = engine::ToCommitInfo(r.write.commit, r.write.seq);
  return s;
}

// Runs mutation `mutation` with typed `params`, or (params null) JSON `params_json`. The branch
// head is read once, inside the write: the query is rebound there when the head's schema is not
// the one it was prepared for. `user_prepared`: the caller prepared it (Database::Apply), so a
// rebind that fails names the schema change; otherwise (Database::Mutate prepared it against the
// schema it last saw) the compile error is reported as it is.
Result<MutationSummary> ApplyBound(Database::Impl& impl, const PreparedQuery& mutation, std::string_view params_json,
                                   const Params* params, const WriteOptions& options, bool user_prepared) {
  if (mutation.empty()) return InvalidArgumentError("the prepared query is empty (use Database::Prepare)");
  OG_RETURN_IF_ERROR(AuthorizeWrite(impl, "change", options.branch, std::nullopt));
  OG_RETURN_IF_ERROR(
      compiler::SelectQuery(*mutation.impl()->compiled, mutation.name(), compiler::QueryKind::kMutation).status());
  auto bind = [&](const PreparedQuery& q) -> Result<compiler::ParamValues> {
    const auto& decls = q.impl()->query->params;
    return params != nullptr ? compiler::BindParamValues(decls, *params) : compiler::BindParamsJson(decls, params_json);
  };
  PreparedQuery current = mutation;
  OG_ASSIGN_OR_RETURN(compiler::ParamValues bound, bind(current));
  engine::MutationOptions o;
  o.branch = options.branch;
  o.if_commit = options.if_commit;
  OG_ASSIGN_OR_RETURN(engine::MutationResult r,
                      engine::ExecuteBoundMutation(
                          *impl.graph, engine::MutationWriteKind(*mutation.impl()->query),
                          [&](const engine::Snapshot& snap) -> Result<engine::BoundMutation> {
                            if (current.impl()->schema_id != snap.commit().schema_id) {
                              OG_ASSIGN_OR_RETURN(current, user_prepared
                                                               ? Rebind(impl, mutation, snap)
                                                               : PrepareAt(impl, snap, mutation.impl()->source,
                                                                           mutation.impl()->requested_name));
                              OG_ASSIGN_OR_RETURN(bound, bind(current));
                            }
                            return engine::BoundMutation{current.impl()->query, bound};
                          },
                          o));
  AutoCompactAfter(impl, options.branch, r.write);
  return ToSummary(r, options.branch);
}

}  // namespace

Result<MutationSummary> Database::Apply(const PreparedQuery& mutation, const Params& params,
                                        const WriteOptions& options) {
  return NoThrow([&]() -> Result<MutationSummary> {
    return ApplyBound(*impl_, mutation, {}, &params, options, /*user_prepared=*/true);
  });
}

Result<MutationSummary> Database::Mutate(std::string_view source, std::string_view params_json, std::string_view branch,
                                         std::optional<std::string> query_name, std::optional<std::string> if_commit) {
  return NoThrow([&]() -> Result<MutationSummary> {
    // Prepared against the schema this handle last saw on the branch (no request) when the source
    // compiles there, else against the head read now; the write rebinds it if the head moved on.
    std::optional<PreparedQuery> q;
    if (auto known = impl_->graph->LastKnownSchema(branch)) {
      auto p = PrepareAt(*impl_, known->schema_id, *known->catalog, source, query_name);
      if (p.ok()) q = std::move(*p);
    }
    if (!q) {
      OG_ASSIGN_OR_RETURN(engine::Snapshot head, impl_->graph->Head(branch));
      OG_ASSIGN_OR_RETURN(q, PrepareAt(*impl_, head, source, query_name));
    }
    WriteOptions o;
    o.branch = std::string(branch);
    o.if_commit = std::move(if_commit);
    return ApplyBound(*impl_, *q, params_json, nullptr, o, /*user_prepared=*/false);
  });
}

Result<std::vector<float>> EmbedDocumentText(std::string_view text, uint32_t dim, const std::string& model) {
  return engine::search::EmbedDocument(text, dim, model, "document");
}

}  // namespace omnigraph
