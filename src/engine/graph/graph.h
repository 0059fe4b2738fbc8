// A graph opened on an object store (docs/architecture.md,
// "Commits, ref logs and the write protocol"): init, open, snapshot resolution, commit history, and
// the one write path every writer uses:
//   capture (branch head) -> prepare + effects (the caller stages new table versions, invisible)
//   -> commit object -> publish (put_if_absent of the next ref entry: the commit point).
// Thread-safe: writers to one branch serialize on an in-process mutex; other processes are fenced
// by the ref log itself.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/graph/commit.h"
#include "engine/graph/ref_log.h"
#include "engine/graph/snapshot.h"
#include "io/object_store.h"
#include "table/table_cache.h"

namespace omnigraph::engine {

struct GraphOptions {
  std::optional<std::string> actor;  // recorded on every commit
  bool read_only = false;            // refuse every write (opens never write anyway)
  // A constructive write that keeps losing races to other processes retries (with jittered
  // exponential backoff) until this deadline, then fails with `resource_limit`.
  int64_t constructive_retry_deadline_us = int64_t{30} * 1000000;
  // An attempt whose first effect is older than half of this is re-prepared, never published
  // (cleanup's grace period; docs/architecture.md, "Commits, ref logs and the write protocol").
  int64_t cleanup_grace_us = int64_t{3600} * 1000000;
};

// What a writer's prepare step returns: the staged table versions that change, and counts.
struct PreparedWrite {
  std::map<std::string, table::TableVersion> tables;  // type name -> staged new version
  std::map<std::string, ChangeCounts> summary;
  std::string operation;  // recorded on the commit
  std::string message;
  // A merge's second parent (the source head); the first parent is always the captured head.
  std::optional<std::string> merged_parent;
  // Schema apply: the commit names this schema (staged by the prepare step) and exactly these
  // tables (type name -> table); `tables` above then names types of the new schema.
  std::optional<std::string> schema_id;
  std::optional<std::map<std::string, TableRef>> table_refs;
  // Set when the write changed nothing: no commit is published.
  bool empty() const { return tables.empty() && !merged_parent && !schema_id; }
};

enum class WriteKind {
  kStrict,        // update, delete, overwrite, merge, schema apply: a lost race is an error
  kConstructive,  // insert, append, merge-mode load: a lost race re-prepares on the new head
};

struct WriteRequest {
  std::string branch = "main";
  WriteKind kind = WriteKind::kStrict;
  std::optional<std::string> if_commit;  // precondition: the branch head is this commit
  // When `branch` does not exist (never did, or was deleted), create it from the head of this
  // branch in the same commit point: the prepare step reads that head, and the branch's create
  // entry names the write's commit (for a write that changes nothing, the source head itself), so
  // no state in between is ever visible. Ignored when `branch` exists. `invalid_argument` for
  // `main`; NotFound when the source does not exist.
  std::optional<std::string> create_branch_from;
  // Builds and stages the change against a snapshot. Called again after a lost race for
  // constructive writes whose touched tables moved. Must not publish anything.
  std::function<Result<PreparedWrite>(const Snapshot&)> prepare;
};

// One step of a branch's history (docs/decisions.md "Branch history"): a move of the branch's
// ref (`seq` > 0: entry `seq` of the live incarnation, a fast-forward included), or, before the
// branch's create entry, a commit inherited along first parents (`seq` 0). `from` is the commit
// the step's changes are listed against: the commit the previous ref entry named, or, for the
// create entry and inherited commits, the first parent (empty for the genesis commit).
struct HistoryStep {
  std::shared_ptr<const Commit> commit;
  uint64_t seq = 0;
  std::string from;
};

struct WriteResult {
  bool committed = false;  // false: nothing changed, nothing published
  Commit commit;           // the new commit (or the unchanged head's commit)
  uint64_t seq = 0;        // the branch version after the write
  int attempts = 1;
  bool branch_created = false;  // the write created the branch (WriteRequest::create_branch_from)
};

class Graph {
 public:
  // Creates a graph at an empty root: format stamp, schema, one empty table per type, the genesis
  // commit and the `main` ref (whose creation is the commit point). `already_initialized` if the
  // root holds anything but the remains of inits that never reached their commit point
  // (root_check.h): a graph, graph objects without a ref (a damaged graph), or objects that are not
  // ours; the schema's compile errors as they are (checked before anything is written).
  static Result<std::unique_ptr<Graph>> Init(std::shared_ptr<io::ObjectStore> store, std::string_view schema_source,
                                             GraphOptions options = {});
  // Opens an existing graph; never writes. NotFound if there is none (or only an unfinished
  // init); `corrupt` if graph objects are there but main's ref log is missing or damaged; format
  // errors per stamp.
  static Result<std::unique_ptr<Graph>> Open(std::shared_ptr<io::ObjectStore> store, GraphOptions options = {});
  // For the integrity check of a damaged graph: verifies only the format stamp (a root without one
  // is NotFound), not main's ref log; read-only.
  static Result<std::unique_ptr<Graph>> OpenForInspection(std::shared_ptr<io::ObjectStore> store,
                                                          GraphOptions options = {});

  io::ObjectStore& store() const { return *store_; }
  const GraphOptions& options() const { return options_; }
  // The actor recorded on what this thread writes now: the innermost omnigraph::ScopedActor of the
  // calling thread, else options().actor.
  std::optional<std::string> actor() const;

  // The head of a branch. NotFound for an unknown or deleted branch; `corrupt` for a damaged ref
  // log or a missing commit or schema.
  Result<Snapshot> Head(std::string_view branch = "main");
  // The schema of the last head of `branch` this handle read, from memory only (no storage
  // request): nullopt when the branch was never read here or that commit or catalog is no longer
  // cached. It may be stale: writers compile against it and check the schema id again inside
  // Write's prepare (one round trip less per write than reading the head first).
  struct KnownSchema {
    std::string schema_id;
    std::shared_ptr<const compiler::Catalog> catalog;
  };
  std::optional<KnownSchema> LastKnownSchema(std::string_view branch);
  // A snapshot of any commit (not tied to a branch head).
  Result<Snapshot> AtCommit(std::string_view commit_id);
  // The branch as it was at ref sequence `seq` (<= head). NotFound otherwise.
  Result<Snapshot> AtBranchVersion(std::string_view branch, uint64_t seq);

  // A commit by id (as a user gives it): NotFound if absent, `history_reclaimed` if a cleanup
  // removed it, `corrupt` if damaged.
  Result<std::shared_ptr<const Commit>> LoadCommit(std::string_view commit_id);
  // A commit named by another object (`named_by`: a ref entry, a commit's parent list): a missing
  // one is `corrupt`, not NotFound.
  Result<std::shared_ptr<const Commit>> LoadReferencedCommit(std::string_view commit_id, std::string_view named_by);
  Result<Snapshot> AtReferencedCommit(std::string_view commit_id, std::string_view named_by);
  // Forgets the cached commit objects (after this process's cleanup removed some, so that its
  // history reads as the store's; another process's cache keeps them until it evicts them).
  void ForgetCachedCommits() { commits_.Clear(); }
  // The parents of `commit` as ancestry walks (merge bases, check) see them: its own parents, or,
  // when a cleanup removed one, the graft that cleanup recorded (its nearest kept ancestors).
  // `history_reclaimed` when a parent was removed and no cleanup kept the commit's ancestry.
  Result<std::vector<std::string>> ParentIds(const Commit& commit);
  // The history of a branch, newest first (branches.cc): one step per ref entry of the live
  // incarnation back to its create entry, then the commits inherited before it along first
  // parents. With `stop_at_seq` > 0, only the steps newer than ref entry `stop_at_seq`. NotFound
  // for an unknown or deleted branch. Cost: one GET per ref entry walked, commits are cached.
  // History a cleanup reclaimed (a ref entry or commit it removed) is `history_reclaimed`, or,
  // with `kept_part`, the end of the history (`commit list` shows what cleanup kept).
  Result<std::vector<HistoryStep>> BranchHistory(std::string_view branch, size_t limit = SIZE_MAX,
                                                 uint64_t stop_at_seq = 0, bool kept_part = false);
  // The commits of BranchHistory, newest first (`commit list --branch`).
  Result<std::vector<std::shared_ptr<const Commit>>> CommitLog(std::string_view branch, size_t limit = SIZE_MAX);
  // Ref entry `seq` of `branch` (one GET). NotFound if it does not exist; `history_reclaimed` if a
  // cleanup truncated the log above it; `corrupt` if it is missing while a newer entry exists (a gap).
  Result<RefEntry> RefEntryAt(std::string_view branch, uint64_t seq);
  // Reads the ref entries head_seq-1 down to max(1, stop_at_seq) (at most `limit`, 1024) and their
  // commits in parallel; what failed to read is left out.
  std::map<uint64_t, RefEntry> PrefetchRefEntries(std::string_view branch, uint64_t head_seq, uint64_t stop_at_seq,
                                                  size_t limit);
  Result<std::vector<std::string>> Branches();

  // Branches (docs/architecture.md, "Branches"; branches.cc). Create writes one ref entry naming
  // the head commit of `from`: `already_exists` if `name` is live (also for the loser of a
  // concurrent create), `invalid_argument` for `main` or a bad name, NotFound for a missing `from`.
  // A deleted name starts a new incarnation.
  Result<RefEntry> CreateBranch(std::string_view name, std::string_view from = "main");
  // The same at commit `commit_id` (any commit of the graph; NotFound if there is none).
  Result<RefEntry> CreateBranchAtCommit(std::string_view name, std::string_view commit_id);
  // Writes a delete entry. NotFound if not live; `invalid_argument` for `main`.
  Result<RefEntry> DeleteBranch(std::string_view name);
  // Deletes `name` only if its head is still `expected` (same incarnation and sequence): the delete
  // entry is put_if_absent at expected.seq + 1. `read_set_conflict` if the branch moved.
  Result<RefEntry> DeleteBranchIf(std::string_view name, const RefEntry& expected);
  // Moves `branch` from head `expected_seq` to an existing commit (a fast-forward): one ref entry.
  // `read_set_conflict` if the branch moved.
  Result<RefEntry> AdvanceBranch(std::string_view branch, const RefEntry& expected, std::string commit_id);

  // Snapshot ids `<branch>@<seq>@<incarnation>` (docs/architecture.md, "Branches"): the id of a
  // branch snapshot, or the commit id for a bare commit snapshot.
  static std::string SnapshotId(const Snapshot& snap);
  // Resolves a snapshot id or a commit id. `stale_incarnation` when the branch was deleted and
  // re-created since the id was made; NotFound for unknown ids.
  Result<Snapshot> AtSnapshotId(std::string_view id);

  // The write path. `read_set_conflict` for a strict write that lost a race,
  // `precondition_failure` when `if_commit` no longer names the head, `resource_limit` when a
  // constructive write exhausted its retry budget. `if_commit` names a logical state: it still
  // holds when the head is a chain of compaction commits (IsPhysicalOnly) on top of it, so the
  // automatic compaction after a write never fails the writer's next conditional write.
  Result<WriteResult> Write(const WriteRequest& request);

 private:
  // What a write captured: the snapshot its prepare step reads (the branch head, or the source
  // head when the write creates the branch) and the ref entry it publishes after (none: the
  // branch's first entry).
  struct Capture {
    Snapshot snap;
    std::optional<RefEntry> after;
    bool create = false;
  };
  Graph(std::shared_ptr<io::ObjectStore> store, GraphOptions options);
  // The newest ref entry of `branch` (a delete entry included), via the warm head cache.
  Result<std::optional<RefEntry>> ReadBranchHead(std::string_view branch);
  // Publishes the create entry of branch `name` at `commit_id` (after a delete entry, if any).
  Result<RefEntry> PublishCreate(std::string_view name, const std::string& commit_id);
  Result<Capture> CaptureWrite(const WriteRequest& req);
  // Whether `head` is `expected` or reaches it through compaction commits only (first parents).
  Result<bool> LogicallyAt(const Commit& head, std::string_view expected);
  Result<Snapshot> MakeSnapshot(std::shared_ptr<const Commit> commit, std::optional<RefEntry> ref, std::string branch);
  Result<std::shared_ptr<const compiler::Catalog>> LoadCatalog(const std::string& schema_id);
  // Serializes this process's writers to one branch.
  Mutex& BranchMutex(const std::string& branch);

  std::shared_ptr<io::ObjectStore> store_;
  GraphOptions options_;
  RefLog refs_;
  std::shared_ptr<table::TableCache> table_cache_;
  std::shared_ptr<ManifestCache> manifests_;
  Mutex mu_;
  // Immutable commits and catalogs by id, bounded by estimated bytes (common/lru_cache.h).
  ByteLruCache commits_{uint64_t{16} << 20};
  ByteLruCache catalogs_{uint64_t{64} << 20};
  std::map<std::string, RefEntry> known_heads_ OG_GUARDED_BY(mu_);  // warm head reads: one LIST
  std::map<std::string, std::unique_ptr<Mutex>> branch_mutexes_ OG_GUARDED_BY(mu_);
};

}  // namespace omnigraph::engine
