// The state ledger of a cluster (docs/cluster.md, "The state ledger"): what `cluster apply` last
// converged, kept beside the graphs under `<storage>/__cluster/` and read and written only through
// an io::ObjectStore, so a local folder and an s3:// prefix behave the same.
//
//   __cluster/state/<revision, 20 digits>.json   one immutable object per published revision
//   __cluster/lock.json                          the operation lock (created if absent, deleted)
//   __cluster/resources/query/<g>/<name>/<digest>.gq   the content-addressed catalog
//   __cluster/resources/policy/<name>/<digest>.yaml
//   __cluster/approvals/<ulid>.json              digest-bound delete approvals
//   graphs/<id>.omni/                            the graphs
//
// Publishing revision N+1 is creating its object with PutIfAbsent: of two writers that read
// revision N, exactly one succeeds and the other gets `state_cas_mismatch`. That create is the only
// commit point of every command; every other step is idempotent (docs/decisions.md).
// Thread-compatible; the store is thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "io/object_store.h"
#include "omnigraph/result.h"

namespace omnigraph::cluster {

// Where a cluster's ledger and graphs live: `storage:` of cluster.yaml, else the config folder.
struct StorageRoot {
  std::string uri;      // what io::OpenStore takes: an absolute path or s3://bucket/prefix
  std::string display;  // the same, as printed in outputs
  // The graph `id`'s root: "<display>/graphs/<id>.omni".
  std::string GraphUri(const std::string& graph_id) const;
  // Its key prefix inside the root's store: "graphs/<id>.omni/".
  static std::string GraphPrefix(const std::string& graph_id);
};

// `storage` absent: the config folder (made absolute). A relative local path is taken relative to
// the config folder (not the working directory); file:// is stripped; s3:// is kept (trailing '/'
// removed). InvalidArgument for an empty value or an s3:// URI without a bucket.
Result<StorageRoot> ResolveStorageRoot(const std::string& config_dir, const std::optional<std::string>& storage);

struct StateResource {
  std::string digest;
  std::vector<std::string> applies_to;            // policies: "cluster" | "graph.<id>", sorted
  std::optional<std::string> embedding_provider;  // graphs: "provider.embedding.<name>"
  std::optional<std::string> embedding_profile;   // providers: the profile's compact JSON
  bool operator==(const StateResource&) const = default;
};

struct ResourceStatus {
  std::string status;  // applied | drifted | blocked | error
  std::vector<std::string> conditions;
  std::optional<std::string> message;
  bool operator==(const ResourceStatus&) const = default;
};

struct ApprovalRecord {
  std::string consumed_at;
  std::string consumed_by_operation;
  bool operator==(const ApprovalRecord&) const = default;
};

// One revision of the ledger.
struct ClusterState {
  uint64_t revision = 0;
  std::optional<std::string> config_digest;  // the desired config the last converged apply reached
  std::map<std::string, StateResource> resources;
  std::map<std::string, ResourceStatus> statuses;
  std::map<std::string, ApprovalRecord> approval_records;
  std::map<std::string, Json> observations;  // "graph.<id>" -> what refresh/import saw, or a tombstone
  bool operator==(const ClusterState&) const = default;
};

// Pretty JSON with sorted keys and a final newline (the bytes published).
std::string SerializeState(const ClusterState& state);
// Strict: unknown keys and wrong types are Corrupt errors naming `source` and the key.
Result<ClusterState> ParseState(std::string_view text, std::string_view source);

// "sha256:<hex of the bytes>".
std::string StateCas(std::string_view bytes);

struct LockInfo {
  std::string lock_id;
  std::string operation;  // plan | apply | approve | refresh | import
  std::string created_at;
  uint32_t pid = 0;
  std::string host;
  // "id=..., operation=..., pid=..., created_at=..., age_seconds=..."
  std::string Summary() const;
  std::optional<int64_t> AgeSeconds() const;
};

struct Approval {
  std::string approval_id;
  std::string resource;
  std::string operation;  // "delete"
  std::string reason;
  std::string bound_config_digest;
  std::optional<std::string> bound_before_digest;
  std::optional<std::string> bound_after_digest;
  std::string approved_by;
  std::string created_at;
  std::optional<std::string> consumed_at;
};

class Ledger {
 public:
  static constexpr const char* kStatePrefix = "__cluster/state/";
  static constexpr const char* kLockKey = "__cluster/lock.json";
  static constexpr const char* kApprovalsPrefix = "__cluster/approvals/";

  // Opens the root's store (created when `create` and local).
  static Result<Ledger> Open(const StorageRoot& root, bool create);
  Ledger(StorageRoot root, std::shared_ptr<io::ObjectStore> store) : root_(std::move(root)), store_(std::move(store)) {}

  const StorageRoot& root() const { return root_; }
  io::ObjectStore& store() { return *store_; }
  std::string StatePath() const;  // for outputs: "<display>/__cluster/state"
  std::string LockPath() const;

  struct StateRead {
    std::optional<ClusterState> state;  // nullopt: never published
    std::optional<std::string> cas;     // StateCas of the newest revision's bytes
  };
  // The newest revision (one List and one Get). Corrupt for unreadable JSON.
  Result<StateRead> ReadState();
  // Publishes `next` (whose revision must be the read revision + 1). AlreadyExists when another
  // writer published that revision first (the CAS lost). Returns the new CAS.
  Result<std::string> PublishState(const ClusterState& next);

  // AlreadyExists (with the holder, when it parses) if a lock is held.
  Result<LockInfo> AcquireLock(const std::string& operation);
  // Deletes the lock if it is still `lock_id`'s. Best effort by design: a lock that is not ours
  // (force-unlocked and taken again) is left alone.
  void ReleaseLock(const std::string& lock_id);
  // The held lock, nullopt if none; Corrupt for a lock file that does not parse.
  Result<std::optional<LockInfo>> ReadLock();

  // Catalog keys: "__cluster/resources/query/<g>/<name>/<digest>.gq",
  // "__cluster/resources/policy/<name>/<digest>.yaml"; empty for other kinds.
  static std::string PayloadKey(const std::string& address, const std::string& digest);

  // Every approval artifact, by id. Files that do not parse are reported in `bad` and skipped.
  Result<std::vector<Approval>> ListApprovals(std::vector<std::string>* bad);
  Status WriteApproval(const Approval& approval);
  // Rewrites the artifact with consumed_at (the ledger's approval_records is authoritative).
  Status MarkApprovalConsumed(const Approval& approval, const std::string& consumed_at);

 private:
  StorageRoot root_;
  std::shared_ptr<io::ObjectStore> store_;
};

std::string StateKey(uint64_t revision);

}  // namespace omnigraph::cluster
