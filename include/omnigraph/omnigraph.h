// The embedded C++ API of Omnigraph: everything the `omnigraph` CLI does, as a library. Open or
// create a graph by URI; load NDJSON; run read and mutation queries (prepared once, run many
// times); read any branch, version or commit, its schema source and its Blob cells; create, list,
// delete and merge branches; list commits, the changes of a commit, a change feed and the diff of
// two snapshots; build the derived read structures. Plain result values are in omnigraph/records.h.
// See docs/embedding.md.
//
// Errors are Status / Result values (omnigraph/status.h, omnigraph/result.h) whose codes are listed
// in docs/errors.md; nothing throws. An allocation failure inside any call is returned as
// `resource_limit`. Every call may also return the storage errors (`io_error`, `corrupt`,
// `not_found` for a missing graph object, `resource_limit` for a full disk).
//
// Thread safety: a Database is thread-safe; any number of threads may call it at once. Writers to
// one branch are serialized in-process and fenced across processes by the storage layer (a lost
// race re-prepares constructive writes and fails strict ones with `read_set_conflict`).
// PreparedQuery, RowCursor and every record are values: thread-compatible.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/load_mode.h"
#include "omnigraph/records.h"
#include "omnigraph/result.h"
#include "omnigraph/status.h"
#include "omnigraph/value.h"

namespace omnigraph {

// What a write is about to do, for OpenOptions::authorize_write. `action` is the policy action
// (docs/cluster.md, "Policies"): "change" (mutations, loads), "branch_create", "branch_delete",
// "branch_merge", "schema_apply"; `branch` the branch acted on, `target_branch` the branch the
// operation lands on (as the server's policy check names them); `actor` the writer (ScopedActor,
// else OpenOptions::actor).
struct WriteIntent {
  std::string_view action;
  std::optional<std::string> branch;
  std::optional<std::string> target_branch;
  std::optional<std::string> actor;
};

struct OpenOptions {
  std::optional<std::string> actor{};  // recorded on every commit this handle makes
  bool read_only = false;              // refuse writes (an open never writes in any case)
  // Memory budget of this handle's query structures (row ordinals, columns and CSR adjacency per
  // table version; least recently used dropped first). 0 keeps none (every query rebuilds).
  uint64_t cache_bytes = uint64_t{1} << 30;
  // Memory budget of one read query: its binding rows in flight and the rows and values kept for
  // its result (not the shared cache above). Past it the query fails with `resource_limit`.
  // 0 = half of the memory this process may use (physical memory or a cgroup limit).
  uint64_t max_query_memory_bytes = 0;
  // Automatic compaction (docs/cli.md, "optimize"): after a committed load or mutation, a table
  // left with `auto_compact_fanout` small fragments of one size tier is compacted in a commit of its
  // own (operation "optimize"; skipped if another write moved the branch first). 0 turns it off, as
  // does the environment variable OMNIGRAPH_AUTO_COMPACT=0.
  uint32_t auto_compact_fanout = 16;
  // The cleanup grace period this handle's writers honour (docs/cli.md, "cleanup"): an attempt
  // older than half of it is prepared again rather than published, so a concurrent cleanup with
  // this grace (or a longer one) never sweeps objects a commit is about to name.
  int64_t cleanup_grace_us = int64_t{3600} * 1000000;
  // Open a damaged graph for inspection (`omnigraph check`): only the format stamp is verified, not
  // main's ref log, and the handle is read-only. Reads of what is damaged fail as usual; `Check`
  // reports it.
  bool inspect = false;
  // s3://: write even when the endpoint ignores conditional writes (the probe at a writable open
  // found a second `If-None-Match: *` create accepted). Safe only while exactly ONE process writes
  // the graph: two writers would overwrite each other's commits. Also OMNIGRAPH_UNSAFE_SINGLE_WRITER=1.
  bool unsafe_single_writer = false;
  // A local folder that keeps immutable objects of a remote graph (s3://, memory://) between runs
  // and processes: fragment pages, index segments, deletion vectors, blobs and derived structures
  // (never refs, commits, schemas or table manifests, so a reclaimed version still reads as
  // reclaimed). Empty = no disk cache; ignored for graphs on local disk. Processes may share one
  // folder. The CLI sets it from --cache-dir or OMNIGRAPH_CACHE_DIR.
  std::string disk_cache_dir{};
  // The folder's size limit; past it the least recently used entries are deleted.
  uint64_t disk_cache_bytes = uint64_t{2} << 30;
  // Called before every write of this handle (mutations, loads, branch create/delete/merge, schema
  // apply) with what it will do; a non-ok status (its code and message as returned) refuses the
  // write, changing nothing. omnigraph-server sets it from the graph's policy, a second check behind
  // the one at its HTTP boundary. Empty: no check. Must be thread-safe.
  std::function<Status(const WriteIntent&)> authorize_write{};
};

// Which snapshot a read sees. A branch name converts implicitly (its head), so
// `db->Query(src, "", "dev")` reads the head of `dev`.
class ReadTarget {
 public:
  enum class Kind : uint8_t {
    kHead,        // the head of branch text()
    kVersion,     // branch text() at ref version version()
    kCommit,      // commit text()
    kSnapshotId,  // BRANCH@VERSION@INCARNATION, as `snapshot --json` prints it
    kAny,         // a snapshot id (has '@'), else a commit id, else a branch head
  };
  ReadTarget() = default;                                   // head of main
  ReadTarget(std::string_view branch) : text_(branch) {}    // NOLINT(runtime/explicit)
  ReadTarget(const char* branch) : text_(branch) {}         // NOLINT(runtime/explicit)
  ReadTarget(const std::string& branch) : text_(branch) {}  // NOLINT(runtime/explicit)
  static ReadTarget Head(std::string_view branch) { return ReadTarget(Kind::kHead, branch, 0); }
  static ReadTarget Version(std::string_view branch, uint64_t version) {
    return ReadTarget(Kind::kVersion, branch, version);
  }
  static ReadTarget Commit(std::string_view commit_id) { return ReadTarget(Kind::kCommit, commit_id, 0); }
  static ReadTarget SnapshotId(std::string_view id) { return ReadTarget(Kind::kSnapshotId, id, 0); }
  static ReadTarget Any(std::string_view text) { return ReadTarget(Kind::kAny, text, 0); }

  Kind kind() const { return kind_; }
  const std::string& text() const { return text_; }
  uint64_t version() const { return version_; }

 private:
  ReadTarget(Kind kind, std::string_view text, uint64_t version) : kind_(kind), text_(text), version_(version) {}
  Kind kind_ = Kind::kHead;
  std::string text_ = "main";
  uint64_t version_ = 0;
};

// Parameter values by name (without '$'). A value of the declared kind is taken as it is; other
// values follow the JSON parameter rules (docs/language.md "Parameters"): an I64 for an I32
// parameter must fit, a String for a Date must be an ISO date, and so on.
using Params = std::map<std::string, Value>;

struct ParamInfo {
  std::string name{};  // without '$'
  DataType type{};
  bool nullable = false;
};

// One query of a .gq source, compiled against one schema. Cheap to copy (shared, immutable). A
// default-constructed PreparedQuery is empty: running it is `invalid_argument`.
class PreparedQuery {
 public:
  PreparedQuery();
  ~PreparedQuery();
  PreparedQuery(const PreparedQuery&);
  PreparedQuery& operator=(const PreparedQuery&);

  bool empty() const { return impl_ == nullptr; }
  const std::string& name() const;
  bool is_mutation() const;
  const std::string& schema_id() const;             // the schema it was compiled against
  const std::vector<ParamInfo>& params() const;     // in declaration order
  const std::vector<std::string>& columns() const;  // read queries: the result's column names

  // The opaque compiled form, for the implementation.
  struct Impl;
  explicit PreparedQuery(std::shared_ptr<const Impl> impl);
  const Impl* impl() const { return impl_.get(); }

 private:
  std::shared_ptr<const Impl> impl_;
};

// The rows of a read query: one column name per projection, rows in the query's total order.
struct QueryRows {
  std::string query_name{};
  std::vector<std::string> columns{};
  std::vector<std::vector<Value>> rows{};
  std::string commit_id{};  // the commit the query read
};

// A read query's rows, handed out in batches. OpenCursor runs the match and orders it (the matched
// rows are held as row ordinals, within the query budget); each Next builds only its batch's
// values, so the values of a large result are never all in memory at once. Aggregates and results
// of at most 64 rows are built whole at open. Must not outlive its Database.
class RowCursor {
 public:
  RowCursor();
  ~RowCursor();
  RowCursor(RowCursor&&) noexcept;
  RowCursor& operator=(RowCursor&&) noexcept;

  const std::vector<std::string>& columns() const;
  const std::string& commit_id() const;  // the commit the query read
  uint64_t total_rows() const;
  // Up to `max_rows` (> 0) next rows into `out` (cleared first); the number of rows, 0 once no
  // row is left. Errors: a failing read, `resource_limit` past the query budget.
  Result<size_t> Next(std::vector<std::vector<Value>>* out, size_t max_rows = 1024);

  // The opaque state, for the implementation.
  struct Impl;
  explicit RowCursor(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

struct QueryOptions {
  // Overrides OpenOptions::max_query_memory_bytes for this call (0 = keep it).
  uint64_t max_memory_bytes = 0;
  std::optional<int64_t> now_ms{};  // the value of now() (default: the wall clock)
};

struct WriteOptions {
  std::string branch = "main";
  std::optional<std::string> if_commit{};  // only write if the branch head is this commit
};

struct LoadOptions {
  LoadMode mode = LoadMode::kAppend;
  std::string branch = "main";
  // When `branch` does not exist, create it from this branch's head in the load's own commit point
  // (an invalid load never creates it). Ignored when `branch` exists.
  std::optional<std::string> create_branch_from{};
  std::optional<std::string> if_commit{};
  size_t max_errors = 100;                     // errors listed before giving up
  uint64_t max_memory_bytes = 0;               // 0 = half of the process's memory; past it: resource_limit
  size_t chunk_bytes = size_t{32} << 20;       // read and parse this much at a time
  size_t max_record_bytes = size_t{64} << 20;  // a longer line is resource_limit
  // Called with the phase ("parsing", "parsed", "validated", "staging", "staged"), the records and
  // the input bytes read so far. Runs on the loading thread.
  std::function<void(std::string_view phase, uint64_t records, uint64_t bytes)> progress{};
};

struct MergeOptions {
  std::string target = "main";
  bool delete_source = false;  // delete the source branch after a successful merge
};

// Names the actor of the writes THIS thread makes while the object lives: their commits, ref log
// entries, branch creates/deletes and cleanup records record `actor` instead of the handle's
// OpenOptions::actor (the innermost of nested scopes wins). A server acting for many callers on one
// shared Database sets it per request. Not movable; destroy it on the thread that made it.
class ScopedActor {
 public:
  explicit ScopedActor(std::string actor);
  ~ScopedActor();
  ScopedActor(const ScopedActor&) = delete;
  ScopedActor& operator=(const ScopedActor&) = delete;
};

class Database {
 public:
  // Creates a graph at `uri` (a path, file://, or memory://) from .pg schema source. Errors:
  // `already_initialized`, schema compile errors (with spans), storage errors. A failed init
  // removes the folder it created (never a folder that was there before).
  static Result<std::unique_ptr<Database>> Init(std::string_view uri, std::string_view schema_source,
                                                OpenOptions options = {});
  // Opens an existing graph. NotFound if there is none; `format_too_new` for newer formats.
  static Result<std::unique_ptr<Database>> Open(std::string_view uri, OpenOptions options = {});
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // The store, as a canonical URI ("file:///abs/path", "memory://name").
  std::string uri() const;
  const std::optional<std::string>& actor() const;

  // ---- Reads ------------------------------------------------------------------------------------
  // NotFound for an unknown branch, version or commit; `invalid_argument` for a malformed id.
  Result<SnapshotInfo> Snapshot(const ReadTarget& at = {});
  // Export as NDJSON lines (without the newline), one sink call per line; `load --mode overwrite`
  // of the lines reproduces the graph. `types` empty = every type.
  Status Export(const std::function<Status(std::string_view line)>& sink, const ReadTarget& at = {},
                const std::vector<std::string>& types = {});

  // The .pg source of the schema of snapshot `at`, byte for byte as given to Init.
  Result<std::string> SchemaSource(const ReadTarget& at = {});
  // The migration from the schema at the head of `branch` to `schema_source` (docs/cli.md,
  // "schema plan"): ordered steps, with unsupported changes as steps carrying OG-MF codes and drops
  // of populated types or properties as OG-DS codes (hard with `allow_data_loss`). Read-only. The
  // new schema's compile errors as they are (with spans).
  Result<SchemaPlan> PlanSchema(std::string_view schema_source, bool allow_data_loss = false,
                                std::string_view branch = "main");
  // Applies that migration as ONE commit (operation "schema_apply") on `branch` (docs/cli.md,
  // "schema apply"). Refused, changing nothing: an unsupported change (its OG-MF code) and adding a
  // constraint (`unimplemented`). `precondition_failure` for a stale `if_commit`;
  // `read_set_conflict` if another write moved the branch meanwhile. Returns the plan applied and
  // the new head (`applied` false and `commit_id` the unchanged head when the schema was already
  // this one).
  struct SchemaApplyResult {
    SchemaPlan plan;
    bool applied = false;
    std::string commit_id;
    uint64_t version = 0;  // the branch's ref version after the apply
  };
  Result<SchemaApplyResult> ApplySchema(std::string_view schema_source, bool allow_data_loss = false,
                                        std::string_view branch = "main", std::optional<std::string> if_commit = {});

  // ---- Blobs ------------------------------------------------------------------------------------
  // The Blob cell `property` of the node or edge `id` of type `type` at `at`. StatBlob describes it
  // without reading the payload; ReadBlob returns the payload, or the bytes of `range`. The payload
  // is read and checksum-verified whole, in memory, also for a range (its size is bounded by the
  // load and mutation record limits). Errors: NotFound for an unknown type (or one of the other
  // entity kind), an unknown property, a missing entity or a null cell; `invalid_argument` for a
  // property that is not a Blob. ReadBlob's range, checked before anything is read:
  // `invalid_argument` for a length of 0 or an end past 2^64 - 1; then `range_out_of_bounds` when
  // it starts at or past the end (so any range of an empty Blob); an end past the Blob is clamped.
  Result<BlobInfo> StatBlob(const ReadTarget& at, EntityKind kind, std::string_view type, std::string_view id,
                            std::string_view property);
  Result<std::string> ReadBlob(const ReadTarget& at, EntityKind kind, std::string_view type, std::string_view id,
                               std::string_view property, std::optional<BlobRange> range = std::nullopt);

  // ---- Queries: one way in ----------------------------------------------------------------------
  // Compiles `source` (.gq) against the schema at `schema_at` and picks one query: `query_name`,
  // or the only one. Compiled sources are cached per (schema, source). Errors: compile errors
  // (Q000, T-codes, with spans), NotFound for an unknown name, `invalid_argument` for an unnamed
  // pick from several queries.
  Result<PreparedQuery> Prepare(std::string_view source, std::optional<std::string> query_name = {},
                                const ReadTarget& schema_at = {});
  // Runs a prepared read query at `at` (recompiled from its source if `at` has another schema, so
  // compile errors are possible then). Errors: `invalid_argument` for a mutation or a parameter of the wrong type,
  // missing or undeclared; `unimplemented` for search functions; `resource_limit` past the query budget.
  Result<QueryRows> Execute(const PreparedQuery& query, const Params& params = {}, const ReadTarget& at = {},
                            const QueryOptions& options = {});
  // The same rows as Execute, handed out in batches.
  Result<RowCursor> OpenCursor(const PreparedQuery& query, const Params& params = {}, const ReadTarget& at = {},
                               const QueryOptions& options = {});
  // Runs a prepared mutation (insert/update/delete) as one atomic commit on options.branch.
  // Errors: `invalid_argument` for a read query; parameter errors; `key_immutable`; the load_*
  // validation codes (Status::errors() lists every error with its statement); `read_set_conflict`
  // when an update/delete lost a race; `precondition_failure` for a stale `if_commit`.
  Result<MutationSummary> Apply(const PreparedQuery& mutation, const Params& params = {},
                                const WriteOptions& options = {});
  // Conveniences: Prepare + Execute / Apply with parameters as a JSON object text (empty = none).
  Result<QueryRows> Query(std::string_view source, std::string_view params_json = {}, const ReadTarget& at = {},
                          std::optional<std::string> query_name = {}, const QueryOptions& options = {});
  Result<MutationSummary> Mutate(std::string_view source, std::string_view params_json = {},
                                 std::string_view branch = "main", std::optional<std::string> query_name = {},
                                 std::optional<std::string> if_commit = {});

  // ---- Loads ------------------------------------------------------------------------------------
  // One NDJSON document = one atomic commit, validated in full first (docs/language.md
  // "Load data"). A rejected load changes nothing; its Status lists every error (line, code,
  // message) in errors().
  Result<LoadSummary> Load(std::string_view ndjson, const LoadOptions& options);
  Result<LoadSummary> Load(std::string_view ndjson, LoadMode mode, std::string_view branch = "main");
  // The same, streaming a file chunk by chunk (typed errors for a missing, unreadable or
  // directory path).
  Result<LoadSummary> LoadFile(const std::string& path, const LoadOptions& options);

  // ---- Branches ---------------------------------------------------------------------------------
  // A new branch at the head of branch `from`. `already_exists`, NotFound for a missing `from`,
  // `invalid_argument` for a bad name.
  Result<BranchInfo> CreateBranch(std::string_view name, std::string_view from = "main");
  // A new branch at commit `commit_id` (any commit of the graph).
  Result<BranchInfo> CreateBranchAtCommit(std::string_view name, std::string_view commit_id);
  Result<std::vector<std::string>> Branches();  // live branches, sorted
  // NotFound for a missing branch; `invalid_argument` for main.
  Result<BranchInfo> DeleteBranch(std::string_view name);
  // Three-way merge of `source` into options.target. Conflicts are data: outcome kConflicts with
  // MergeResult::conflicts, nothing published. Errors: NotFound for a missing branch,
  // `schema_boundary` when the heads have different schemas (unless fast-forward),
  // `read_set_conflict` when the target moved during the merge.
  Result<MergeResult> Merge(std::string_view source, const MergeOptions& options = {});

  // ---- History and changes ----------------------------------------------------------------------
  // A branch's history, newest first: its ref moves (version set), then the commits it inherited
  // along first parents from the branch it was created from.
  Result<std::vector<CommitInfo>> Commits(std::string_view branch = "main");
  Result<CommitInfo> GetCommit(std::string_view commit_id);
  // The changes of one commit against its first parent. `parentless_commit` for the genesis
  // commit; `schema_boundary` across a schema change.
  Result<ChangeBlock> CommitChanges(std::string_view commit_id, const ChangeFilter& filter = {});
  // The same listing a page at a time: at most request.max_changes changes from the position of
  // request.page_token on, and the token of the next page. Commits are immutable, so a token stays
  // valid. `invalid_argument` for max_changes 0 or above kMaxChangesPerPage, and for a malformed
  // page token or one of another commit or filter.
  Result<CommitChangesPage> PageCommitChanges(std::string_view commit_id, const CommitChangesPageRequest& request);
  // The change feed of a branch: blocks per commit since a cursor or start point, and the cursor
  // to resume from. `change_cursor_rejected` for a cursor of another graph, branch incarnation or
  // filter set.
  Result<ChangePage> PollChanges(const ChangePollRequest& request);
  // The feed's baseline handshake: streams the entities of the head of `branch` to `sink` in
  // Export's line format, restricted to filter.kinds and filter.types (filter.ops binds only the
  // cursor), and returns that head's commit and the cursor that resumes the feed right after it
  // for `filter`. One head read serves both, so the snapshot and the cursor always match. NotFound
  // for a missing branch or an unknown type name. `sink` may have had lines when it fails.
  Result<ChangeBaseline> CaptureChangeBaseline(std::string_view branch, const ChangeFilter& filter,
                                               const std::function<Status(std::string_view line)>& sink);
  // Every entity change from snapshot `from` to snapshot `to`. `schema_boundary` across schemas.
  Result<DiffResult> Diff(const ReadTarget& from, const ReadTarget& to, const ChangeFilter& filter = {});

  // ---- Maintenance ------------------------------------------------------------------------------
  // Compacts every table of the branch head (small or deletion-heavy fragments rewritten into few
  // large ones, index segments merged) in ONE commit with operation "optimize" that changes no
  // entity (its change listing is empty, the feed skips it; nothing to rewrite: no commit), then
  // builds and stores the derived read structures (row ordinals, adjacency) of the resulting head,
  // so a cold process loads them instead of rebuilding. `permission_denied` on a read-only handle
  // (as every write there).
  Result<OptimizeSummary> Optimize(std::string_view branch = "main");

  // Garbage collection (docs/cli.md "cleanup"): keeps, per live branch, its head, its newest `keep`
  // ref entries and the entries younger than `older_than_us` (at least one of the two is
  // required), plus the merge base of every pair of live branches; deletes every other table
  // version, fragment, deletion vector, blob, index segment, derived object and unpublished commit
  // once it is older than `grace_us`. Commit objects and the ref logs stay, so `commit list` shows
  // all history; reading a reclaimed commit is `history_reclaimed`. Without `confirm` it deletes
  // nothing and reports what would go. Safe while other writers run (in any process).
  struct CleanupOptions {
    std::optional<uint64_t> keep;
    std::optional<int64_t> older_than_us;
    int64_t grace_us = int64_t{3600} * 1000000;
    bool confirm = false;
  };
  Result<CleanupSummary> Cleanup(const CleanupOptions& options);

  // Integrity check (docs/cli.md "check"): every ref log, every commit and schema they reach, and
  // for every commit whose data cleanup kept, every table manifest and the objects it names
  // (fragments page by page against their checksums, deletion vectors, blobs, index segments;
  // `verify_data` = false checks only that they exist). Damage is reported as problems, not as an
  // error; the call fails only when the check cannot run. Read-only.
  Result<CheckReport> Check(bool verify_data = true);

  // The opaque state, for the implementation.
  struct Impl;

 private:
  explicit Database(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Embeds a document's text into `dim` floats with the provider the environment names
// (docs/search.md, "Embedding a String query": OMNIGRAPH_EMBEDDINGS_MOCK, OMNIGRAPH_EMBED_*, the
// provider's API key), as an insert does for an @embed property. `model`: the model the vector
// must come from ("" = any). `embedding_config` / `embedding_failed` on failure.
Result<std::vector<float>> EmbedDocumentText(std::string_view text, uint32_t dim, const std::string& model = "");

// Sets glibc's allocator up for a process that runs queries; the `omnigraph` CLI, `omnigraph-server`
// and the benchmarks call it first thing, and an embedding program may. Blocks up to 32 MiB come
// from the heap instead of mappings of their own, and up to 256 MiB of freed heap stay in the
// process, and every thread allocates from that one heap (threads that allocated before the call
// keep their own). Without it, a query that allocates a few large transient buffers (a byte per
// edge of a 10M-edge table, a million binding rows) returns them to the kernel when it ends and
// the next query faults them back in page by page, which can cost more than the query itself.
// Returns false (and changes nothing) where the C library is not glibc.
bool TuneProcessAllocator();

}  // namespace omnigraph
