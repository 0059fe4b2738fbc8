#include "engine/graph/graph.h"

#include <chrono>
#include <random>
#include <thread>

#include "common/clock.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/thread_pool.h"
#include "common/ulid.h"
#include "compiler/catalog_builder.h"
#include "engine/graph/format_stamp.h"
#include "engine/graph/graph_layout.h"
#include "engine/graph/reclaim.h"
#include "engine/graph/root_check.h"
#include "engine/graph/schema_store.h"
#include "io/staging_store.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph {
namespace {
// The actors of the calling thread's live ScopedActor objects, innermost last.
thread_local std::vector<std::string> scoped_actors;
}  // namespace

ScopedActor::ScopedActor(std::string actor) { scoped_actors.push_back(std::move(actor)); }
ScopedActor::~ScopedActor() { scoped_actors.pop_back(); }

}  // namespace omnigraph

namespace omnigraph::engine {

std::optional<std::string> Graph::actor() const {
  if (!scoped_actors.empty()) return scoped_actors.back();
  return options_.actor;
}

namespace {

Status CheckRootForInit(io::ObjectStore& store) {
  OG_ASSIGN_OR_RETURN(RootReport root, InspectRoot(store));
  switch (root.state) {
    case RootState::kEmpty:
    case RootState::kUnfinishedInit:  // the remains of inits that never published: written over
      return Status::Ok();
    case RootState::kGraph:
      return Status(ErrorCode::kAlreadyInitialized, "a graph already exists at " + store.Describe());
    case RootState::kDamaged:
      return Status(ErrorCode::kAlreadyInitialized, "the storage root " + store.Describe() + " holds graph objects ('" +
                                                        root.key +
                                                        "') but no `main` ref: " + std::string(kDamagedRefLogAdvice));
    case RootState::kForeign:
      return Status(ErrorCode::kAlreadyInitialized, "the storage root " + store.Describe() +
                                                        " is not empty (it holds '" + root.key +
                                                        "'); initialize a graph in an empty folder");
  }
  return InternalError("unknown root state");
}

Status WriteStampIfAbsent(io::ObjectStore& store) {
  auto existing = store.Get(kFormatStampKey);
  if (existing.ok()) return ParseStamp(*existing).status();
  if (existing.status().category() != StatusCode::kNotFound) return existing.status();
  FormatStamp stamp;
  stamp.created_by = std::string("omnigraph ") + OG_VERSION;
  // Identical bytes from every writer (no per-graph content), so a racing init cannot make it
  // disagree with the graph that wins the `main` ref.
  Status s = store.PutIfAbsent(kFormatStampKey, SerializeStamp(stamp));
  if (s.ok() || s.category() == StatusCode::kAlreadyExists) return Status::Ok();
  return s;
}

}  // namespace

Graph::Graph(std::shared_ptr<io::ObjectStore> store, GraphOptions options)
    : store_(std::move(store)),
      options_(std::move(options)),
      refs_(*store_),
      table_cache_(std::make_shared<table::TableCache>()),
      manifests_(std::make_shared<ManifestCache>()) {}

Result<std::unique_ptr<Graph>> Graph::Init(std::shared_ptr<io::ObjectStore> store, std::string_view schema_source,
                                           GraphOptions options) {
  if (options.read_only) return PermissionDeniedError("init needs a writable graph");
  OG_ASSIGN_OR_RETURN(compiler::Catalog catalog, compiler::CompileSchema(schema_source));
  OG_RETURN_IF_ERROR(CheckRootForInit(*store));
  OG_RETURN_IF_ERROR(WriteStampIfAbsent(*store));
  OG_ASSIGN_OR_RETURN(std::string schema_id, WriteSchema(*store, catalog, schema_source));

  // One empty table per type, staged in parallel.
  struct Pending {
    std::string name;
    EntityKind kind;
    table::TableSchema schema;
    std::string table_id;
    std::string version_id;
  };
  std::vector<Pending> pending;
  for (const auto& n : catalog.nodes()) {
    OG_ASSIGN_OR_RETURN(table::TableSchema s, NodeTableSchema(n));
    pending.push_back({n.name, EntityKind::kNode, std::move(s), NewUlidString(), ""});
  }
  for (const auto& e : catalog.edges()) {
    OG_ASSIGN_OR_RETURN(table::TableSchema s, EdgeTableSchema(e));
    pending.push_back({e.name, EntityKind::kEdge, std::move(s), NewUlidString(), ""});
  }
  OG_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor(pending.size(), [&](size_t i) -> Status {
    OG_ASSIGN_OR_RETURN(table::TableVersion v,
                        table::TableVersion::Create(*store, TablePrefix(pending[i].table_id), pending[i].schema));
    pending[i].version_id = v.version_id();
    return Status::Ok();
  }));

  Commit genesis;
  genesis.id = NewUlidString();
  genesis.branch = std::string(kMainBranch);
  genesis.actor = options.actor;
  genesis.timestamp_us = NowMicros();
  genesis.operation = "init";
  genesis.schema_id = schema_id;
  for (const auto& p : pending) genesis.tables[p.name] = TableRef{p.kind, p.table_id, p.version_id};
  OG_RETURN_IF_ERROR(WriteCommit(*store, genesis));

  RefEntry entry;
  entry.seq = 1;
  entry.op = RefOp::kCreate;
  entry.commit_id = genesis.id;
  entry.incarnation = NewUlidString();
  entry.actor = options.actor;
  entry.time_us = genesis.timestamp_us;
  Status published = RefLog(*store).Publish(kMainBranch, nullptr, &entry);
  if (!published.ok()) {
    if (published.code() == ErrorCode::kReadSetConflict) {
      return Status(ErrorCode::kAlreadyInitialized,
                    "another process initialized a graph at " + store->Describe() + " first");
    }
    return published;
  }
  std::unique_ptr<Graph> g(new Graph(std::move(store), std::move(options)));
  {
    MutexLock lock(&g->mu_);  // not shared yet; taken so the lock discipline holds everywhere
    g->known_heads_[std::string(kMainBranch)] = entry;
  }
  const uint64_t charge = 512 + 160 * genesis.tables.size();
  const std::string genesis_id = genesis.id;
  g->commits_.Put(genesis_id, std::make_shared<const Commit>(std::move(genesis)), charge);
  return g;
}

Result<std::unique_ptr<Graph>> Graph::Open(std::shared_ptr<io::ObjectStore> store, GraphOptions options) {
  OG_RETURN_IF_ERROR(ReadStamp(*store).status());
  auto head = RefLog(*store).ReadHead(kMainBranch);
  if (!head.ok()) {
    if (head.status().category() != StatusCode::kCorrupt) return head.status();
    return CorruptError(head.status().message() + "; " + std::string(kDamagedRefLogAdvice));
  }
  if (!*head) {
    // Only the remains of an init that never reached its commit point may be initialized again;
    // anything more is a graph whose ref log was lost.
    OG_ASSIGN_OR_RETURN(RootReport root, InspectRoot(*store));
    if (root.state != RootState::kEmpty && root.state != RootState::kUnfinishedInit) {
      return CorruptError("the graph at " + store->Describe() + " has no `main` ref but holds graph objects ('" +
                          root.key + "'): " + std::string(kDamagedRefLogAdvice));
    }
    return NotFoundError("no Omnigraph graph at " + store->Describe() +
                         " (initialization did not complete); run `omnigraph init` again");
  }
  std::unique_ptr<Graph> g(new Graph(std::move(store), std::move(options)));
  {
    MutexLock lock(&g->mu_);
    g->known_heads_[std::string(kMainBranch)] = **head;
  }
  return g;
}

Result<std::unique_ptr<Graph>> Graph::OpenForInspection(std::shared_ptr<io::ObjectStore> store, GraphOptions options) {
  OG_RETURN_IF_ERROR(ReadStamp(*store).status());
  options.read_only = true;
  return std::unique_ptr<Graph>(new Graph(std::move(store), std::move(options)));
}

Mutex& Graph::BranchMutex(const std::string& branch) {
  MutexLock lock(&mu_);
  auto& m = branch_mutexes_[branch];
  if (!m) m = std::make_unique<Mutex>();
  return *m;
}

Result<std::shared_ptr<const Commit>> Graph::LoadCommit(std::string_view commit_id) {
  const std::string id(commit_id);
  if (auto hit = commits_.Get<Commit>(id)) return hit;
  auto read = ReadCommit(*store_, commit_id);
  if (!read.ok() && read.status().category() == StatusCode::kNotFound) {
    // Removed by a cleanup (history_reclaimed), or never there (NotFound).
    Status missing = MissingCommitError(*store_, commit_id, "");
    if (missing.code_string() == "history_reclaimed") return missing;
    return read.status();
  }
  OG_ASSIGN_OR_RETURN(Commit c, std::move(read));
  const uint64_t charge = 512 + 160 * c.tables.size() + 96 * c.summary.size();
  auto shared = std::make_shared<const Commit>(std::move(c));
  commits_.Put(id, shared, charge);
  return shared;
}

Result<std::shared_ptr<const Commit>> Graph::LoadReferencedCommit(std::string_view commit_id,
                                                                  std::string_view named_by) {
  auto c = LoadCommit(commit_id);
  if (!c.ok() && c.status().category() == StatusCode::kNotFound) {
    return CorruptError("commit object " + CommitKey(commit_id) + ", named by " + std::string(named_by) +
                        ", is missing");
  }
  return c;
}

Result<std::vector<std::string>> Graph::ParentIds(const Commit& commit) {
  bool reclaimed = false;
  for (const auto& p : commit.parents) {
    auto c = LoadReferencedCommit(p, "the parents of commit " + commit.id);
    if (c.ok()) continue;
    if (c.status().code_string() != "history_reclaimed") return c.status();
    reclaimed = true;
  }
  if (!reclaimed) return commit.parents;
  OG_ASSIGN_OR_RETURN(auto records, CleanupRecords(*store_));
  if (auto graft = GraftOf(records, commit.id)) return *graft;
  return Status(ErrorCode::kHistoryReclaimed,
                "the parents of commit " + commit.id + " were reclaimed by cleanup, and no cleanup kept its ancestry");
}

Result<Snapshot> Graph::AtReferencedCommit(std::string_view commit_id, std::string_view named_by) {
  OG_ASSIGN_OR_RETURN(auto commit, LoadReferencedCommit(commit_id, named_by));
  return MakeSnapshot(std::move(commit), std::nullopt, "");
}

Result<std::shared_ptr<const compiler::Catalog>> Graph::LoadCatalog(const std::string& schema_id) {
  if (auto hit = catalogs_.Get<compiler::Catalog>(schema_id)) return hit;
  auto read = ReadSchema(*store_, schema_id);
  if (!read.ok() && read.status().category() == StatusCode::kNotFound) {
    return CorruptError("schema object " + SchemaKey(schema_id) + ", named by a commit, is missing");
  }
  OG_ASSIGN_OR_RETURN(StoredSchema s, std::move(read));
  const uint64_t charge = 4096 + 2048 * (s.catalog->nodes().size() + s.catalog->edges().size());
  catalogs_.Put(schema_id, s.catalog, charge);
  return s.catalog;
}

Result<Snapshot> Graph::MakeSnapshot(std::shared_ptr<const Commit> commit, std::optional<RefEntry> ref,
                                     std::string branch) {
  OG_ASSIGN_OR_RETURN(auto catalog, LoadCatalog(commit->schema_id));
  return Snapshot(store_.get(), std::move(commit), std::move(catalog), std::move(ref), std::move(branch), table_cache_,
                  manifests_, DerivedStore{store_.get(), /*writable=*/!options_.read_only});
}

Result<std::optional<RefEntry>> Graph::ReadBranchHead(std::string_view branch) {
  OG_RETURN_IF_ERROR(ValidateBranchName(branch));
  std::optional<RefEntry> known;
  {
    MutexLock lock(&mu_);
    auto it = known_heads_.find(std::string(branch));
    if (it != known_heads_.end()) known = it->second;
  }
  std::optional<RefEntry> head;
  if (known) {
    OG_ASSIGN_OR_RETURN(head, refs_.ReadHeadAfter(branch, *known));
  } else {
    OG_ASSIGN_OR_RETURN(head, refs_.ReadHead(branch));
  }
  if (head) {
    MutexLock lock(&mu_);
    known_heads_[std::string(branch)] = *head;
  }
  return head;
}

Result<Snapshot> Graph::Head(std::string_view branch) {
  OG_ASSIGN_OR_RETURN(std::optional<RefEntry> head, ReadBranchHead(branch));
  if (!head || head->op == RefOp::kDelete) {
    return NotFoundError("branch '" + std::string(branch) + "' does not exist");
  }
  OG_ASSIGN_OR_RETURN(auto commit,
                      LoadReferencedCommit(head->commit_id, "ref entry " + RefEntryKey(branch, head->seq)));
  return MakeSnapshot(std::move(commit), head, std::string(branch));
}

std::optional<Graph::KnownSchema> Graph::LastKnownSchema(std::string_view branch) {
  std::string commit_id;
  {
    MutexLock lock(&mu_);
    auto it = known_heads_.find(std::string(branch));
    if (it == known_heads_.end() || it->second.op == RefOp::kDelete) return std::nullopt;
    commit_id = it->second.commit_id;
  }
  auto commit = commits_.Get<Commit>(commit_id);
  if (commit == nullptr) return std::nullopt;
  auto catalog = catalogs_.Get<compiler::Catalog>(commit->schema_id);
  if (catalog == nullptr) return std::nullopt;
  return KnownSchema{commit->schema_id, std::move(catalog)};
}

Result<Snapshot> Graph::AtCommit(std::string_view commit_id) {
  OG_ASSIGN_OR_RETURN(auto commit, LoadCommit(commit_id));
  return MakeSnapshot(std::move(commit), std::nullopt, "");
}

Result<Snapshot> Graph::AtBranchVersion(std::string_view branch, uint64_t seq) {
  OG_ASSIGN_OR_RETURN(RefEntry e, RefEntryAt(branch, seq));
  if (e.op == RefOp::kDelete) {
    return NotFoundError("branch '" + std::string(branch) + "' was deleted at version " + std::to_string(seq));
  }
  OG_ASSIGN_OR_RETURN(auto commit, LoadReferencedCommit(e.commit_id, "ref entry " + RefEntryKey(branch, seq)));
  return MakeSnapshot(std::move(commit), e, std::string(branch));
}

Result<std::vector<std::string>> Graph::Branches() { return refs_.LiveBranches(); }

Result<Graph::Capture> Graph::CaptureWrite(const WriteRequest& req) {
  OG_ASSIGN_OR_RETURN(std::optional<RefEntry> head, ReadBranchHead(req.branch));
  if (head && head->op != RefOp::kDelete) {
    OG_ASSIGN_OR_RETURN(auto commit,
                        LoadReferencedCommit(head->commit_id, "ref entry " + RefEntryKey(req.branch, head->seq)));
    OG_ASSIGN_OR_RETURN(Snapshot snap, MakeSnapshot(std::move(commit), head, req.branch));
    return Capture{std::move(snap), std::move(head), false};
  }
  if (!req.create_branch_from) return NotFoundError("branch '" + req.branch + "' does not exist");
  if (req.branch == kMainBranch) return InvalidArgumentError("branch 'main' cannot be created");
  auto source = Head(*req.create_branch_from);
  if (!source.ok()) {
    if (source.status().category() != StatusCode::kNotFound) return source.status();
    return NotFoundError("cannot create branch '" + req.branch + "': source branch '" + *req.create_branch_from +
                         "' does not exist");
  }
  return Capture{std::move(*source), std::move(head), true};
}

namespace {

// A lost `if_commit` compare-and-swap: the Rust implementation's message, and the expected and
// actual heads as details ({"precondition_failure":{expected, actual?}}) for clients.
Status StalePrecondition(const std::string& branch, const std::string& expected,
                         const std::optional<std::string>& actual) {
  OrderedJson body = {{"expected", expected}};
  if (actual) body["actual"] = *actual;
  return PreconditionFailedError("precondition failed on branch '" + branch + "': expected head '" + expected +
                                 "' but current is " + actual.value_or("<absent>"))
      .WithDetails(OrderedJson{{"precondition_failure", body}}.dump());
}

}  // namespace

Result<bool> Graph::LogicallyAt(const Commit& head, std::string_view expected) {
  // Bounded: automatic compaction adds at most one commit after a write, `optimize` one per run.
  constexpr int kMaxPhysicalSteps = 64;
  std::shared_ptr<const Commit> hold;
  const Commit* c = &head;
  for (int i = 0; i <= kMaxPhysicalSteps; ++i) {
    if (c->id == expected) return true;
    if (!IsPhysicalOnly(*c) || c->parents.empty()) return false;
    auto parent = LoadReferencedCommit(c->parents.front(), "the parents of commit " + c->id);
    if (!parent.ok() && parent.status().code_string() == "history_reclaimed") return false;  // not reachable
    OG_ASSIGN_OR_RETURN(hold, std::move(parent));
    c = hold.get();
  }
  return false;
}

Result<WriteResult> Graph::Write(const WriteRequest& req) {
  if (options_.read_only) return PermissionDeniedError("the graph was opened read-only");
  if (!req.prepare) return InvalidArgumentError("a write needs a prepare step");
  MutexLock branch_lock(&BranchMutex(req.branch));
  OG_ASSIGN_OR_RETURN(Capture cap, CaptureWrite(req));
  if (req.if_commit) {
    OG_ASSIGN_OR_RETURN(bool holds, LogicallyAt(cap.snap.commit(), *req.if_commit));
    if (!holds) return StalePrecondition(req.branch, *req.if_commit, cap.snap.commit().id);
  }
  const int64_t deadline = NowMicros() + options_.constructive_retry_deadline_us;
  std::optional<PreparedWrite> prepared;
  // The types the prepare step read (a superset of those it wrote): the write's read set. Every
  // table access goes through Snapshot::Table, so the set is exact, not declared by the writer.
  std::set<std::string> read_set;
  // Effects are buffered while preparing and written in parallel just before the publish.
  std::unique_ptr<io::StagingStore> staging;
  // When the current prepared attempt began: its effects (flushed before the first publish and
  // reused by later ones) are at most this old, and must not outlive half the grace period.
  int64_t prepared_at = 0;
  for (int attempt = 1;; ++attempt) {
    const Snapshot& snap = cap.snap;
    if (!prepared) {
      prepared_at = NowMicros();
      staging = std::make_unique<io::StagingStore>(*store_);
      Snapshot rebound = snap.Rebind(staging.get());
      OG_ASSIGN_OR_RETURN(PreparedWrite w, req.prepare(rebound));
      prepared = std::move(w);
      read_set = rebound.TablesRead();
      for (const auto& [name, v] : prepared->tables) read_set.insert(name);
    }
    const bool changes = !prepared->empty();
    if (!changes && !cap.create) {
      return WriteResult{false, snap.commit(), snap.seq(), attempt, false};
    }
    if (NowMicros() - prepared_at > options_.cleanup_grace_us / 2) {
      prepared.reset();  // its objects may be swept by a concurrent cleanup: start over
      if (NowMicros() > deadline) {
        return ResourceExhaustedError("write to '" + req.branch + "' kept outliving the cleanup grace period");
      }
      continue;
    }
    Commit c;
    if (changes) {
      c.id = NewUlidString();
      c.parents = {snap.commit().id};
      if (prepared->merged_parent) c.parents.push_back(*prepared->merged_parent);
      c.branch = req.branch;
      c.actor = actor();
      c.timestamp_us = NowMicros();
      c.operation = prepared->operation;
      c.message = prepared->message;
      c.schema_id = prepared->schema_id.value_or(snap.commit().schema_id);
      c.tables = prepared->table_refs.value_or(snap.commit().tables);
      for (const auto& [name, v] : prepared->tables) {
        auto it = c.tables.find(name);
        if (it == c.tables.end()) return InternalError("write staged unknown type '" + name + "'");
        it->second.version_id = v.version_id();
      }
      c.summary = prepared->summary;
      OG_RETURN_IF_ERROR(WriteCommit(*staging, c));
      OG_RETURN_IF_ERROR(staging->Flush());  // one parallel round trip: fragments, manifests, commit
    } else {
      c = snap.commit();  // a branch created by a write that changes nothing: at the source head
    }
    // The commit point. A write that creates the branch publishes its create entry naming the new
    // commit directly: there is no "created, not yet written" state.
    RefEntry entry;
    entry.seq = cap.after ? cap.after->seq + 1 : 1;
    entry.op = cap.create ? RefOp::kCreate : RefOp::kAdvance;
    entry.commit_id = c.id;
    entry.incarnation = cap.create ? NewUlidString() : cap.after->incarnation;
    entry.actor = actor();
    entry.time_us = changes ? c.timestamp_us : NowMicros();
    Status s = refs_.Publish(req.branch, cap.after ? &*cap.after : nullptr, &entry, /*update_hint=*/!cap.create);
    if (s.ok()) {
      for (const auto& [name, v] : prepared->tables) {
        manifests_->Put(c.tables.at(name).table_id + "/" + v.version_id(), v.shared_manifest());
      }
      if (changes) {
        commits_.Put(c.id, std::make_shared<const Commit>(c), 512 + 160 * c.tables.size() + 96 * c.summary.size());
      }
      MutexLock lock(&mu_);
      known_heads_[req.branch] = entry;
      return WriteResult{changes, std::move(c), entry.seq, attempt, cap.create};
    }
    if (s.code() != ErrorCode::kReadSetConflict) return s;
    // Lost the race to another writer (another process: our own are serialized above).
    if (req.if_commit) {  // the head that won, when it can be read
      auto now = Head(req.branch);
      return StalePrecondition(req.branch, *req.if_commit,
                               now.ok() ? std::optional<std::string>(now->commit().id) : std::nullopt);
    }
    if (req.kind == WriteKind::kStrict) return s;
    if (NowMicros() > deadline) {
      return ResourceExhaustedError("write to '" + req.branch + "' lost " + std::to_string(attempt) +
                                    " races in a row to other writers; try again");
    }
    // Jittered exponential backoff, so that competing writers do not starve one another.
    {
      static thread_local std::mt19937_64 rng{std::random_device{}()};
      int64_t cap_us = std::min<int64_t>(int64_t{1000} << std::min(attempt, 8), 250'000);
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % static_cast<uint64_t>(cap_us)));
    }
    OG_ASSIGN_OR_RETURN(Capture newer, CaptureWrite(req));
    if (!cap.create && (newer.create || newer.after->incarnation != cap.after->incarnation)) {
      return Status(ErrorCode::kReadSetConflict, "branch '" + req.branch + "' was deleted" +
                                                     (newer.create ? "" : " and re-created") + " during the write");
    }
    // Reuse the staged versions only when no table the prepare step read (incl. every table it
    // wrote) moved: its validation (endpoints exist, unique values, cardinality) still holds.
    bool reusable = newer.snap.commit().schema_id == snap.commit().schema_id;
    for (const std::string& name : read_set) {
      auto a = snap.commit().tables.find(name);
      auto b = newer.snap.commit().tables.find(name);
      if (a == snap.commit().tables.end() || b == newer.snap.commit().tables.end() || !(a->second == b->second)) {
        reusable = false;
      }
    }
    if (!reusable) prepared.reset();
    cap = std::move(newer);
  }
}

}  // namespace omnigraph::engine
