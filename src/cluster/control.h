// The commands of the control plane that read or write the state ledger (docs/cluster.md):
// import, plan, apply, approve, status, refresh and force-unlock. Each takes the cluster folder
// (where cluster.yaml is) and returns its output as the JSON `--json` prints; the CLI renders the
// same JSON as text. `ok` is false exactly when `diagnostics` holds an error.
//
// What runs where: validate/plan/status never write (plan and status take no lock; a published
// revision is immutable, so they read a consistent one). import, apply, approve and refresh take
// `__cluster/lock.json` for their whole run and fail with `state_lock_held` naming the holder.
// apply converges: graph creates, then schema migrations, then catalog writes, then approved
// deletes; each step is idempotent (it checks the live graph first), and publishing the next
// state revision is the one commit point. Thread-compatible.
#pragma once

#include <optional>
#include <string>

#include "common/json.h"

namespace omnigraph::cluster {

struct CommandResult {
  bool ok = false;
  OrderedJson json;
};

// `cluster plan`: {ok, config_dir, desired_revision{config_digest}, resource_digests,
// dependencies, state_observations, changes[], blast_radius[], approvals_required[], diagnostics}.
CommandResult RunPlan(const std::string& config_dir);
// `cluster apply`: {ok, config_dir, actor?, desired_revision, state_observations, changes[],
// applied_count, deferred_count, converged, state_written, resource_statuses, diagnostics}.
CommandResult RunApply(const std::string& config_dir, const std::optional<std::string>& actor);
// `cluster approve RES`: {ok, config_dir, approval_id?, resource?, operation?, approved_by?,
// diagnostics}. Writes a digest-bound approval artifact for the pending delete of RES.
CommandResult RunApprove(const std::string& config_dir, const std::string& resource, const std::string& actor);
// `cluster status`: {ok, config_dir, state_observations, resource_digests, resource_statuses,
// observations, diagnostics}. Reads the ledger and the catalog only.
CommandResult RunStatus(const std::string& config_dir);
// `cluster refresh` / `cluster import`: {ok, operation, config_dir, state_observations,
// resource_digests, resource_statuses, observations, diagnostics}. Observe the live graphs (and
// verify the catalog) and publish a revision; import only when no state exists yet.
CommandResult RunRefresh(const std::string& config_dir);
CommandResult RunImport(const std::string& config_dir);
// `cluster force-unlock ID`: {ok, config_dir, state_observations, lock_removed, diagnostics}.
CommandResult RunForceUnlock(const std::string& config_dir, const std::string& lock_id);

}  // namespace omnigraph::cluster
