// Internal to src/cluster: what every ledger command shares. A Session loads the desired config,
// opens the ledger, reads the newest state, holds the lock (released when it goes) and collects
// diagnostics and the `state_observations` of the output. The diff of desired against recorded
// state and the dispositions of its changes live here too, so plan and apply agree by construction.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/cluster_config.h"
#include "cluster/ledger.h"
#include "common/json.h"

namespace omnigraph::cluster {

// The diagnostics of cluster.yaml itself, not of the files it names (status and serving need only
// its storage root).
bool IsConfigHeaderCode(const std::string& code);

class Session {
 public:
  explicit Session(std::string config_dir) : config_dir_(std::move(config_dir)) {}
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Validates the config (its diagnostics become ours); false on any error. `full` false keeps
  // only the diagnostics of cluster.yaml itself (status needs only its storage root).
  bool LoadDesired(bool full = true);
  // Resolves the storage root and opens the ledger (`create`: a writable open that creates a
  // local root). False (with a diagnostic) on failure.
  bool OpenLedger(bool create);
  // Takes the lock for `operation`; false with `state_lock_held` (or `state_lock_error`).
  bool Lock(const std::string& operation);
  // Records the holder of the lock, if any (status, plan, force-unlock); warnings for a bad file.
  void ObserveLock();
  // Reads the newest state; false with `state_read_error` / `invalid_state_json` on failure.
  bool ReadState();
  // Publishes `next` as the revision after the one read; false with `state_cas_mismatch` or
  // `state_write_error`.
  bool Publish(ClusterState next);

  void Error(std::string code, std::string path, std::string message);
  void Warn(std::string code, std::string path, std::string message);
  bool has_errors() const;

  // {state_path, lock_path, state_found, applied_config_digest?, state_revision, state_cas?,
  //  resource_count, locked, lock_id?, lock_acquired, acquired_lock_id?, lock_operation?,
  //  lock_created_at?, lock_pid?, lock_age_seconds?}
  OrderedJson StateObservations() const;
  OrderedJson DiagnosticsJson() const;

  const std::string& config_dir() const { return config_dir_; }
  const ValidateOutput& desired() const { return desired_; }
  Ledger& ledger() { return *ledger_; }
  bool has_ledger() const { return ledger_.has_value(); }
  const std::optional<ClusterState>& state() const { return state_; }
  void set_state_for_output(ClusterState s) { state_ = std::move(s); }

  // The desired resource at `address`, or null.
  const ResourceSummary* Desired(const std::string& address) const;

 private:
  std::string config_dir_;
  ValidateOutput desired_;
  std::optional<Ledger> ledger_;
  std::vector<Diagnostic> diagnostics_;
  std::optional<ClusterState> state_;
  std::optional<std::string> cas_;
  std::optional<LockInfo> held_;      // someone else's lock, as observed
  std::optional<LockInfo> acquired_;  // ours
};

struct Change {
  std::string resource;
  std::string operation;  // create | update | delete
  std::optional<std::string> before, after;
  std::string disposition;  // applied | derived | deferred | blocked
  std::string reason;       // for deferred and blocked
  bool binding_change = false;
  std::optional<std::string> metadata_change;  // "policy_bindings"
  std::optional<OrderedJson> migration;        // plan: {supported, steps[]} for schema updates
};

// The changes from `state` (null: none recorded) to the desired config, sorted by resource.
std::vector<Change> Diff(const ValidateOutput& desired, const ClusterState* state);

inline constexpr const char* kApprovalReason = "delete may remove deployed graph or schema definition";

// Whether `change` needs an approval (graph deletes, and schema deletes whose graph stays).
bool NeedsApproval(const Change& change, const std::vector<Change>& all);

// The approval that authorizes `change`, if one does: unconsumed (neither the file nor the
// ledger's approval_records says consumed), for the same resource, bound to `config_digest` and
// to the change's before/after digests.
const Approval* MatchingApproval(const Change& change, const std::vector<Approval>& approvals,
                                 const ClusterState* state, const std::string& config_digest);

// The approval meeting each gated change of `changes`, by resource; `gates` (if not null) gets
// the plan's approvals_required entries {resource, reason, satisfied}. Warns `approval_stale` for
// a gated change whose resource has only unconsumed approvals bound to other digests, and
// `invalid_approval_artifact` for files that do not parse.
std::map<std::string, Approval> ResolveApprovals(Session& s, const std::vector<Change>& changes, OrderedJson* gates);

// Sets disposition and reason of every change; `approved` holds the resources whose gate is met.
void Classify(std::vector<Change>* changes, const std::set<std::string>& approved);

// "graph.<id>" -> id, "schema.<id>" -> id, "query.<id>.<name>" -> id; "" otherwise.
std::string GraphOf(const std::string& address);

OrderedJson ChangeJson(const Change& c);
OrderedJson StatusesJson(const std::map<std::string, ResourceStatus>& statuses);

}  // namespace omnigraph::cluster
