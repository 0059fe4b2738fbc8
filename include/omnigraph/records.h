// The plain values the embedded API (omnigraph/omnigraph.h) returns: snapshots, commits, branches,
// load/mutation/merge outcomes, entity changes and the change feed. Every struct here is a value:
// copyable, no pointers into the database, thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "omnigraph/result.h"
#include "omnigraph/value.h"

namespace omnigraph {

enum class EntityKind : uint8_t { kNode, kEdge };
// "node", "edge"; ParseEntityKind is the inverse (`invalid_argument` otherwise).
std::string_view EntityKindName(EntityKind kind);
Result<EntityKind> ParseEntityKind(std::string_view name);

// Rows inserted, updated and deleted in one type by one write.
struct ChangeCounts {
  uint64_t inserted = 0, updated = 0, deleted = 0;
  bool operator==(const ChangeCounts&) const = default;
};

struct TypeInfo {
  std::string name{};
  bool is_edge = false;
  uint64_t rows = 0;
  std::string table_id{};       // opaque; survives renames
  std::string table_version{};  // the table version this snapshot sees
};

struct SnapshotInfo {
  std::string branch{};       // empty for a snapshot read at a commit id
  uint64_t version = 0;       // the branch's ref sequence number (0 at a bare commit)
  std::string snapshot_id{};  // BRANCH@VERSION@INCARNATION (the commit id at a bare commit)
  std::string commit_id{};
  std::string schema_id{};
  std::vector<TypeInfo> types{};  // sorted by name
};

struct CommitInfo {
  std::string id{};
  std::vector<std::string> parents{};  // first = the branch's previous head; a merge has two
  std::string branch{};                // the branch it was authored on
  std::optional<std::string> actor{};
  int64_t timestamp_us = 0;
  std::string operation{};  // "init", "load:append", "mutate:<query>", "merge", ...
  std::string schema_id{};
  std::string message{};
  // In a branch's history: the ref entry that moved the branch to this commit; nullopt for a
  // commit the branch inherited (before its create entry) and for a commit read by id.
  std::optional<uint64_t> version{};
  struct Table {
    EntityKind kind = EntityKind::kNode;
    std::string table_id{}, table_version{};
  };
  std::map<std::string, Table> tables{};          // every type, by name
  std::map<std::string, ChangeCounts> summary{};  // per changed type
  using Counts = ChangeCounts;                    // (earlier spelling)
};

// A branch's ref entry after a branch operation.
struct BranchInfo {
  std::string name{};
  std::string commit_id{};  // the head (empty for the entry a delete writes)
  uint64_t version = 0;     // the entry's sequence number
};

struct LoadSummary {
  bool committed = false;  // false when the data changed nothing
  std::string commit_id{};
  uint64_t version = 0;
  uint64_t records = 0;
  bool branch_created = false;  // LoadOptions::create_branch_from created the branch
  struct TypeStats {
    EntityKind kind = EntityKind::kNode;
    uint64_t loaded = 0;  // records of this type in the input
    ChangeCounts changes;
  };
  std::map<std::string, TypeStats> types{};
};

struct MutationSummary {
  std::string query_name{};
  std::string branch{};
  uint64_t affected_nodes = 0;                    // node rows inserted + updated + deleted
  uint64_t affected_edges = 0;                    // edge rows inserted + updated + deleted
  bool committed = false;                         // false when the mutation changed nothing (no commit)
  std::string commit_id{};                        // the new commit; empty when nothing changed
  uint64_t version = 0;                           // the branch version after the mutation
  std::map<std::string, ChangeCounts> changes{};  // per changed type
  std::optional<CommitInfo> commit{};             // the new commit, when committed
};

enum class MergeOutcome : uint8_t {
  kAlreadyUpToDate,  // the source adds nothing: no commit
  kFastForward,      // the target moved to the source head
  kMerged,           // a merge commit with two parents
  kConflicts,        // nothing was published: see MergeResult::conflicts
};
// "already_up_to_date", "fast_forward", "merged", "conflicts".
std::string_view MergeOutcomeName(MergeOutcome outcome);

// One reason a merge cannot be published. `kind` is one of: divergent_insert, divergent_update,
// delete_vs_update, orphan_edge, unique_violation, cardinality_violation,
// value_constraint_violation.
struct MergeConflict {
  std::string kind{};
  EntityKind entity_kind = EntityKind::kNode;
  std::string type_name{};
  std::string entity_id{};
  std::string property{};  // divergent_update: the properties both sides changed, ", "-separated (edges: from/to too)
  std::string message{};
};

struct MergeResult {
  MergeOutcome outcome = MergeOutcome::kAlreadyUpToDate;
  std::string commit_id{};  // the target's head after the merge (unchanged on conflicts)
  uint64_t version = 0;
  std::map<std::string, ChangeCounts> summary{};  // changes applied to the target, per type
  std::vector<MergeConflict> conflicts{};         // outcome kConflicts: every conflict, sorted
  bool branch_deleted = false;
  // The merge stands, but the source was not deleted (it moved since it was read, or the delete
  // failed): why.
  std::optional<std::string> branch_delete_error{};
};

enum class ChangeOp : uint8_t { kInsert, kUpdate, kDelete };
// "insert", "update", "delete"; ParseChangeOp is the inverse (`invalid_argument` otherwise).
std::string_view ChangeOpName(ChangeOp op);
Result<ChangeOp> ParseChangeOp(std::string_view name);

// One entity as stored: its properties by name in declaration order, plus edge endpoints.
struct EntityImage {
  std::vector<std::pair<std::string, Value>> properties{};
  std::string from{}, to{};  // edges only: endpoint node ids
};

struct EntityChange {
  EntityKind kind = EntityKind::kNode;
  std::string type_name{};
  std::string type_id{};  // the table id: opaque, survives renames
  std::string id{};
  ChangeOp op = ChangeOp::kInsert;
  std::optional<EntityImage> before, after;  // insert: after; update: both; delete: before
};

// Which changes a listing returns: a change matches when its kind, type name and op are each among
// the listed ones; an empty member matches everything. (Several values: `--kind node --kind edge`.)
struct ChangeFilter {
  std::vector<EntityKind> kinds{};
  std::vector<std::string> types{};
  std::vector<ChangeOp> ops{};
};

// Changes per page of a paged listing (Database::PageCommitChanges): the default and the most a
// page may ask for (the Rust implementation's limits).
constexpr size_t kDefaultChangesPerPage = 1000;
constexpr size_t kMaxChangesPerPage = 8192;

// The changes one commit (the cause) brought to a branch, listed against `from_commit_id`.
struct ChangeBlock {
  CommitInfo commit{};
  std::string from_commit_id{};
  std::vector<EntityChange> changes{};  // nodes before edges, then type, id
};

struct CommitChangesPageRequest {
  ChangeFilter filter{};
  size_t max_changes = kDefaultChangesPerPage;  // 1 to kMaxChangesPerPage
  // The previous page's next_page_token (same commit and filter); none for the first page.
  std::optional<std::string> page_token{};
};

// One page of a commit's changes: the cause and the changes from the page's position on, in the
// order of the whole listing, so the pages in turn add up to CommitChanges.
struct CommitChangesPage {
  ChangeBlock block{};
  std::optional<std::string> next_page_token{};  // absent on the last page
};

struct ChangePollRequest {
  std::string branch = "main";
  // Exactly one of: a cursor from an earlier poll, or a start: "now" (no replay), "beginning"
  // (the whole history), "after:<commit id>".
  std::optional<std::string> cursor{};
  std::string start = "now";
  ChangeFilter filter{};
  size_t max_commits = 100;  // blocks per poll (at least 1: 0 is invalid_argument)
};

struct ChangePage {
  std::vector<ChangeBlock> blocks{};  // oldest first; a block's commit.version is set for ref moves
  std::string cursor{};               // resumes after the last block
  bool caught_up = true;              // false: more blocks remain, poll again
};

// The change feed's baseline handshake (Database::CaptureChangeBaseline): the commit a snapshot
// was read at, and the cursor that resumes the feed right after that commit.
struct ChangeBaseline {
  std::string snapshot_commit_id{};
  std::string resume_cursor{};
};

struct DiffResult {
  std::string from_commit_id{}, to_commit_id{};
  std::vector<EntityChange> changes{};
};

// Where a Blob's bytes live. Every Blob this storage format holds is managed: its payload is in the
// graph's own blob files. (The Rust implementation also has external Blobs, URI references.)
enum class BlobKind : uint8_t { kManaged };

// One non-null Blob cell (Database::StatBlob).
struct BlobInfo {
  BlobKind kind = BlobKind::kManaged;
  uint64_t size = 0;  // payload bytes
  // A strong HTTP entity tag: '"', 32 lower-case hex digits, '"' (34 characters). Derived from the
  // payload's storage identity, so equal tags mean equal bytes; an update of the cell gives a new
  // tag even when the bytes are equal.
  std::string etag{};
  std::string snapshot_id{};  // the snapshot read, as SnapshotInfo::snapshot_id
  std::string commit_id{};
};

// Bytes [offset, offset + length) of a Blob, clamped to its end; without a length, to the end.
struct BlobRange {
  uint64_t offset = 0;
  std::optional<uint64_t> length{};
};

struct OptimizeSummary {
  std::string branch{};
  std::string commit_id{};  // the branch head after the run (the compaction commit, if one was made)
  // Compaction: one row per type (node types, then edge types, in schema order).
  struct Table {
    std::string type_name;
    EntityKind kind = EntityKind::kNode;
    uint64_t fragments_before = 0;
    uint64_t fragments_removed = 0;
    uint64_t fragments_added = 0;
    uint64_t rows_rewritten = 0;
    bool committed = false;  // the table was rewritten in the compaction commit
  };
  std::vector<Table> tables{};
  bool compacted = false;  // some table was compacted (in the run's one commit, operation "optimize")
  // Derived read structures of the resulting head.
  struct Object {
    std::string type_name;
    std::string kind;    // "ordinals" (node types) or "adjacency" (edge types)
    bool built = false;  // false: it was already stored
  };
  std::vector<Object> objects{};
  uint64_t built = 0, present = 0;
  // Search index segments of @index (and key) properties (docs/search.md, "Indexes": HNSW for a
  // Vector, an inverted text index for a String), published in the same commit as the compaction.
  struct SearchIndex {
    std::string type_name;
    std::string property;
    std::string kind;    // "vector" or "text"
    bool built = false;  // false: an index already covered every row
    uint64_t rows = 0;   // vectors indexed
    uint64_t bytes = 0;  // the index object's size
  };
  std::vector<SearchIndex> search_indexes{};
  bool indexed = false;  // some index segment was built (and published)
};

// What `Database::Cleanup` removed (or, in a preview, would remove).
struct CleanupSummary {
  bool confirmed = false;       // false: a preview; nothing was deleted
  bool completed = true;        // false: stopped at half the grace period (run it again to finish)
  std::string record_id{};      // the audit record written before the first delete (empty: none)
  uint64_t kept_commits = 0;    // commits whose data is kept (readable by time travel)
  uint64_t unkept_commits = 0;  // commits outside the kept history (reading them: history_reclaimed)
  uint64_t kept_objects = 0;
  uint64_t young_objects = 0;  // unreachable but younger than the grace period: left alone
  struct Kind {
    std::string kind;  // "manifest", "fragment", "deletion", "blob", "index", "derived", "commit"
    uint64_t objects = 0;
    uint64_t bytes = 0;
  };
  std::vector<Kind> kinds{};
  struct Table {
    std::string type_name;  // the newest name of the table (its id when no kept commit names it)
    std::string table_id;
    EntityKind kind = EntityKind::kNode;
    uint64_t versions_removed = 0;
    uint64_t objects_removed = 0;
    uint64_t bytes_removed = 0;
  };
  std::vector<Table> tables{};
  uint64_t objects_removed() const {
    uint64_t n = 0;
    for (const auto& k : kinds) n += k.objects;
    return n;
  }
  uint64_t bytes_removed() const {
    uint64_t n = 0;
    for (const auto& k : kinds) n += k.bytes;
    return n;
  }
};

// What `Database::Check` found.
struct CheckReport {
  uint64_t branches = 0, ref_entries = 0, commits = 0;
  uint64_t reclaimed_commits = 0;  // data removed by cleanup: counted, not a problem
  uint64_t manifests = 0, fragments = 0, deletion_vectors = 0, blob_files = 0, index_objects = 0;
  uint64_t bytes_verified = 0;
  struct Problem {
    std::string code;    // error code string: corrupt, not_found, format_too_new, ...
    std::string object;  // the damaged or missing object's key
    std::string message;
  };
  std::vector<Problem> problems{};  // the first 1,000
  uint64_t problems_total = 0;
  bool ok() const { return problems_total == 0; }
};

// What `Database::PlanSchema` found: the ordered steps from the branch head's schema to a new one.
struct SchemaPlan {
  std::string branch{};
  std::string from_schema_id{};  // the head's schema
  std::string to_schema_id{};    // the proposed schema (ids carried over from the head's)
  bool supported = true;         // false when any step is unsupported_change
  struct Step {
    std::string kind;       // add_type, rename_type, add_property, rename_property, extend_enum,
                            // make_nullable, update_type_metadata, update_property_metadata,
                            // drop_constraint, add_constraint, drop_property, drop_type,
                            // unsupported_change
    std::string type_kind;  // "node" or "edge"
    std::string type_name;  // in the new schema (the old name for drops)
    std::string property{};
    std::string old_name{};  // renames
    std::string constraint{};
    std::vector<std::string> added_values{};
    std::string mode{};    // drops: "soft" or "hard"
    std::string code{};    // OG-MF-... (unsupported) or OG-DS-10x (drop of populated data)
    std::string entity{};  // "Person" or "Person.age"
    std::string reason{};
  };
  std::vector<Step> steps{};
};

}  // namespace omnigraph
