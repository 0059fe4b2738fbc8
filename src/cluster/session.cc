#include "cluster/session.h"

#include <algorithm>

#include "common/error_codes.h"

namespace omnigraph::cluster {

bool IsConfigHeaderCode(const std::string& code) {
  static const std::set<std::string> kHeader = {"config_dir_not_found",
                                                "cluster_config_read_error",
                                                "invalid_cluster_yaml",
                                                "duplicate_yaml_key",
                                                "future_phase_field",
                                                "removed_streaming_declaration",
                                                "unsupported_cluster_config_version",
                                                "unsupported_state_backend",
                                                "invalid_storage_root",
                                                "empty_metadata_name"};
  return kHeader.count(code) != 0;
}

Session::~Session() {
  if (acquired_ && ledger_) ledger_->ReleaseLock(acquired_->lock_id);
}

bool Session::LoadDesired(bool full) {
  desired_ = ValidateClusterConfig(config_dir_);
  for (auto& d : desired_.diagnostics) {
    if (full || IsConfigHeaderCode(d.code)) diagnostics_.push_back(d);
  }
  if (!full) {
    // Resource problems do not stop status; a header problem leaves nothing to read.
    for (const auto& d : diagnostics_) {
      if (d.severity == Severity::kError) return false;
    }
    return true;
  }
  return desired_.ok;
}

bool Session::OpenLedger(bool create) {
  auto root = ResolveStorageRoot(config_dir_, desired_.storage);
  if (!root.ok()) {
    Error("invalid_storage_root", "storage", root.status().message());
    return false;
  }
  auto ledger = Ledger::Open(*root, create);
  if (!ledger.ok()) {
    Error("storage_root_invalid", "storage",
          "could not open the storage root '" + root->display + "': " + ledger.status().ToString());
    return false;
  }
  ledger_.emplace(std::move(*ledger));
  return true;
}

bool Session::Lock(const std::string& operation) {
  auto lock = ledger_->AcquireLock(operation);
  if (lock.ok()) {
    acquired_ = std::move(*lock);
    return true;
  }
  if (lock.status().category() == StatusCode::kAlreadyExists) {
    ObserveLock();
    Error("state_lock_held", Ledger::kLockKey, lock.status().message());
  } else {
    Error("state_lock_error", Ledger::kLockKey, "could not take the cluster state lock: " + lock.status().ToString());
  }
  return false;
}

void Session::ObserveLock() {
  auto held = ledger_->ReadLock();
  if (!held.ok()) {
    const bool corrupt = held.status().category() == StatusCode::kCorrupt;
    Warn(corrupt ? "invalid_state_lock" : "state_lock_read_error", Ledger::kLockKey, held.status().message());
    return;
  }
  held_ = *held;
}

bool Session::ReadState() {
  auto read = ledger_->ReadState();
  if (!read.ok()) {
    const bool corrupt = read.status().category() == StatusCode::kCorrupt;
    Error(corrupt ? "invalid_state_json" : "state_read_error", "__cluster/state", read.status().message());
    return false;
  }
  state_ = std::move(read->state);
  cas_ = std::move(read->cas);
  return true;
}

bool Session::Publish(ClusterState next) {
  next.revision = state_ ? state_->revision + 1 : 1;
  auto cas = ledger_->PublishState(next);
  if (!cas.ok()) {
    if (cas.status().category() == StatusCode::kAlreadyExists) {
      Error("state_cas_mismatch", StateKey(next.revision),
            "another command published state revision " + std::to_string(next.revision) +
                " while this one was running; re-run the command against the latest state");
    } else {
      Error("state_write_error", StateKey(next.revision), "could not publish the state: " + cas.status().ToString());
    }
    return false;
  }
  state_ = std::move(next);
  cas_ = std::move(*cas);
  return true;
}

void Session::Error(std::string code, std::string path, std::string message) {
  diagnostics_.push_back({std::move(code), Severity::kError, std::move(path), std::move(message)});
}

void Session::Warn(std::string code, std::string path, std::string message) {
  diagnostics_.push_back({std::move(code), Severity::kWarning, std::move(path), std::move(message)});
}

bool Session::has_errors() const {
  return std::any_of(diagnostics_.begin(), diagnostics_.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::kError; });
}

OrderedJson Session::StateObservations() const {
  OrderedJson j = OrderedJson::object();
  j["state_path"] = ledger_ ? ledger_->StatePath() : "";
  j["lock_path"] = ledger_ ? ledger_->LockPath() : "";
  j["state_found"] = state_.has_value();
  if (state_ && state_->config_digest) j["applied_config_digest"] = *state_->config_digest;
  j["state_revision"] = state_ ? state_->revision : 0;
  if (cas_) j["state_cas"] = *cas_;
  j["resource_count"] = state_ ? state_->resources.size() : 0;
  j["locked"] = held_.has_value();
  if (held_) j["lock_id"] = held_->lock_id;
  j["lock_acquired"] = acquired_.has_value();
  if (acquired_) j["acquired_lock_id"] = acquired_->lock_id;
  if (held_) {
    j["lock_operation"] = held_->operation;
    j["lock_created_at"] = held_->created_at;
    j["lock_pid"] = held_->pid;
    if (!held_->host.empty()) j["lock_host"] = held_->host;
    if (auto age = held_->AgeSeconds()) j["lock_age_seconds"] = *age;
  }
  return j;
}

OrderedJson Session::DiagnosticsJson() const {
  OrderedJson out = OrderedJson::array();
  for (const auto& d : diagnostics_) {
    out.push_back({{"code", d.code},
                   {"severity", d.severity == Severity::kError ? "error" : "warning"},
                   {"path", d.path},
                   {"message", d.message}});
  }
  return out;
}

const ResourceSummary* Session::Desired(const std::string& address) const {
  for (const auto& r : desired_.resources) {
    if (r.address == address) return &r;
  }
  return nullptr;
}

// ---- Diff and dispositions ----------------------------------------------------------------------

std::string GraphOf(const std::string& address) {
  for (const char* prefix : {"graph.", "schema."}) {
    if (address.starts_with(prefix)) return address.substr(std::string(prefix).size());
  }
  if (address.starts_with("query.")) {
    const std::string rest = address.substr(6);
    return rest.substr(0, rest.find('.'));
  }
  return "";
}

std::vector<Change> Diff(const ValidateOutput& desired, const ClusterState* state) {
  std::vector<Change> out;
  static const std::map<std::string, StateResource> kNone;
  const auto& prior = state ? state->resources : kNone;
  for (const auto& r : desired.resources) {
    auto it = prior.find(r.address);
    if (it == prior.end()) {
      out.push_back({r.address, "create", std::nullopt, r.digest, "", "", false, std::nullopt, std::nullopt});
    } else if (it->second.digest != r.digest) {
      out.push_back({r.address, "update", it->second.digest, r.digest, "", "", false, std::nullopt, std::nullopt});
    } else if (r.kind == "policy" && it->second.applies_to != r.applies_to) {
      out.push_back({r.address, "update", r.digest, r.digest, "", "", true, "policy_bindings", std::nullopt});
    }
  }
  for (const auto& [address, res] : prior) {
    if (desired.resource_digests.count(address) == 0) {
      out.push_back({address, "delete", res.digest, std::nullopt, "", "", false, std::nullopt, std::nullopt});
    }
  }
  std::sort(out.begin(), out.end(), [](const Change& a, const Change& b) { return a.resource < b.resource; });
  return out;
}

bool NeedsApproval(const Change& c, const std::vector<Change>& all) {
  if (c.operation != "delete") return false;
  if (c.resource.starts_with("graph.")) return true;
  if (!c.resource.starts_with("schema.")) return false;
  const std::string graph = "graph." + GraphOf(c.resource);
  return std::none_of(all.begin(), all.end(),
                      [&](const Change& o) { return o.resource == graph && o.operation == "delete"; });
}

const Approval* MatchingApproval(const Change& c, const std::vector<Approval>& approvals, const ClusterState* state,
                                 const std::string& config_digest) {
  for (const auto& a : approvals) {
    if (a.consumed_at || (state && state->approval_records.count(a.approval_id) != 0)) continue;
    if (a.resource == c.resource && a.operation == c.operation && a.bound_config_digest == config_digest &&
        a.bound_before_digest == c.before && a.bound_after_digest == c.after) {
      return &a;
    }
  }
  return nullptr;
}

std::map<std::string, Approval> ResolveApprovals(Session& s, const std::vector<Change>& changes, OrderedJson* gates) {
  std::map<std::string, Approval> out;
  if (std::none_of(changes.begin(), changes.end(), [&](const Change& c) { return NeedsApproval(c, changes); })) {
    return out;
  }
  std::vector<std::string> bad;
  auto approvals = s.ledger().ListApprovals(&bad);
  for (const auto& b : bad) s.Warn("invalid_approval_artifact", Ledger::kApprovalsPrefix, b);
  if (!approvals.ok()) {
    s.Warn("approval_read_error", Ledger::kApprovalsPrefix, approvals.status().ToString());
    approvals = std::vector<Approval>{};
  }
  const ClusterState* state = s.state() ? &*s.state() : nullptr;
  for (const auto& c : changes) {
    if (!NeedsApproval(c, changes)) continue;
    const Approval* match = MatchingApproval(c, *approvals, state, s.desired().config_digest);
    if (match != nullptr) out[c.resource] = *match;
    if (gates != nullptr) {
      gates->push_back({{"resource", c.resource}, {"reason", kApprovalReason}, {"satisfied", match != nullptr}});
    }
    if (match != nullptr) continue;
    for (const auto& a : *approvals) {
      if (a.resource == c.resource && !a.consumed_at && !(state && state->approval_records.count(a.approval_id))) {
        s.Warn("approval_stale", c.resource,
               "an approval artifact exists but its bound digests no longer match the plan; re-run `cluster approve`");
        break;
      }
    }
  }
  return out;
}

void Classify(std::vector<Change>* changes, const std::set<std::string>& approved) {
  std::set<std::string> graph_deletes, schema_deferred;
  for (const auto& c : *changes) {
    if (c.operation != "delete") continue;
    if (c.resource.starts_with("graph.")) graph_deletes.insert(GraphOf(c.resource));
  }
  for (const auto& c : *changes) {
    if (c.resource.starts_with("schema.") && c.operation == "delete" && graph_deletes.count(GraphOf(c.resource)) == 0) {
      schema_deferred.insert(GraphOf(c.resource));
    }
  }
  auto set = [](Change& c, const char* disposition, const char* reason = "") {
    c.disposition = disposition;
    c.reason = reason;
  };
  for (auto& c : *changes) {
    const std::string g = GraphOf(c.resource);
    const bool graph_deleted = !g.empty() && graph_deletes.count(g) != 0;
    const bool rides = graph_deleted && approved.count("graph." + g) != 0;
    if (c.resource.starts_with("graph.")) {
      if (c.operation == "create") set(c, "applied");
      if (c.operation == "update") {
        schema_deferred.count(g) ? set(c, "deferred", "apply_unsupported_kind") : set(c, "derived");
      }
      if (c.operation == "delete") rides ? set(c, "applied") : set(c, "blocked", "approval_required");
    } else if (c.resource.starts_with("schema.")) {
      if (c.operation != "delete") {
        set(c, "applied");
      } else if (graph_deleted) {
        rides ? set(c, "applied") : set(c, "blocked", "approval_required");
      } else {
        set(c, "deferred", "apply_unsupported_kind");
      }
    } else if (c.resource.starts_with("query.")) {
      if (c.operation == "delete") {
        graph_deleted && !rides ? set(c, "blocked", "approval_required") : set(c, "applied");
      } else {
        schema_deferred.count(g) ? set(c, "blocked", "dependency_not_applied") : set(c, "applied");
      }
    } else if (c.resource.starts_with("policy.") || c.resource.starts_with("provider.embedding.")) {
      set(c, "applied");
    } else {
      set(c, "deferred", "apply_unsupported_kind");
    }
  }
}

OrderedJson ChangeJson(const Change& c) {
  OrderedJson j = OrderedJson::object();
  j["resource"] = c.resource;
  j["operation"] = c.operation;
  if (c.before) j["before_digest"] = *c.before;
  if (c.after) j["after_digest"] = *c.after;
  if (!c.disposition.empty()) j["disposition"] = c.disposition;
  if (!c.reason.empty()) j["reason"] = c.reason;
  if (c.binding_change) j["binding_change"] = true;
  if (c.metadata_change) j["metadata_change"] = *c.metadata_change;
  if (c.migration) j["migration"] = *c.migration;
  return j;
}

OrderedJson StatusesJson(const std::map<std::string, ResourceStatus>& statuses) {
  OrderedJson j = OrderedJson::object();
  for (const auto& [address, st] : statuses) {
    OrderedJson x = {{"status", st.status}};
    if (!st.conditions.empty()) x["conditions"] = st.conditions;
    if (st.message) x["message"] = *st.message;
    j[address] = std::move(x);
  }
  return j;
}

}  // namespace omnigraph::cluster
