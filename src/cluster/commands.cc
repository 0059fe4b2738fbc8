// plan, approve, status, refresh, import and force-unlock (apply is in apply.cc).
#include <memory>

#include "cluster/control.h"
#include "cluster/graph_ops.h"
#include "cluster/session.h"
#include "common/clock.h"
#include "common/error_codes.h"
#include "common/hash.h"
#include "common/output_json.h"
#include "common/ulid.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph::cluster {

namespace {

OrderedJson DigestsJson(const std::map<std::string, std::string>& digests) {
  OrderedJson j = OrderedJson::object();
  for (const auto& [a, d] : digests) j[a] = d;
  return j;
}

std::map<std::string, std::string> StateDigests(const std::optional<ClusterState>& state) {
  std::map<std::string, std::string> out;
  if (state) {
    for (const auto& [a, r] : state->resources) out[a] = r.digest;
  }
  return out;
}

OrderedJson ObservationsJson(const std::optional<ClusterState>& state) {
  OrderedJson j = OrderedJson::object();
  if (state) {
    for (const auto& [a, o] : state->observations) j[a] = OrderedJson::parse(o.dump());
  }
  return j;
}

// Checks every query and policy the state records against its catalog object. `repair`: drop the
// digest of a missing or mismatched payload from `state` and mark it drifted (refresh, import).
void VerifyCatalog(Session& s, ClusterState* state, bool repair) {
  std::vector<std::string> drop;
  for (const auto& [address, res] : state->resources) {
    const std::string key = Ledger::PayloadKey(address, res.digest);
    if (key.empty()) continue;
    auto bytes = s.ledger().store().Get(key);
    if (!bytes.ok() && bytes.status().category() != StatusCode::kNotFound) {
      s.Error("catalog_payload_read_error", address, "could not read " + key + ": " + bytes.status().ToString());
      if (repair) state->statuses[address] = {"error", {"payload_read_error"}, bytes.status().message()};
      continue;
    }
    std::string condition;
    if (!bytes.ok()) {
      s.Warn("catalog_payload_missing", address, "the catalog object " + key + " is missing");
      condition = "payload_missing";
    } else if (const std::string actual = Sha256Hex(*bytes); actual != res.digest) {
      s.Warn("catalog_payload_mismatch", address,
             "the catalog object " + key + " does not hold its digest (actual sha256:" + actual + ")");
      condition = "payload_mismatch";
    }
    if (!condition.empty() && repair) {
      drop.push_back(address);
      state->statuses[address] = {"drifted", {condition}, std::nullopt};
    }
  }
  for (const auto& a : drop) state->resources.erase(a);
}

// Observes every declared graph and records what it finds in `state` (refresh, import).
void ObserveGraphs(Session& s, ClusterState* state) {
  size_t failed = 0;
  for (const auto& r : s.desired().resources) {
    if (r.kind != "graph") continue;
    const std::string g = GraphOf(r.address);
    const std::string uri = s.ledger().root().GraphUri(g);
    const ResourceSummary* schema = s.Desired("schema." + g);
    const std::string desired_schema = schema ? schema->digest : "";
    LiveGraph live = ObserveGraph(uri, schema ? schema->content : "");
    OrderedJson o = OrderedJson::object();
    o["address"] = r.address;
    o["kind"] = "graph";
    o["graph_uri"] = uri;
    o["observed_at"] = FormatMicrosIso(NowMicros());
    o["exists"] = live.exists;
    o["desired_schema_digest"] = desired_schema;
    o["schema_digest"] = live.schema_digest ? OrderedJson(*live.schema_digest) : OrderedJson(nullptr);
    o["graph_manifest_version"] = live.version ? OrderedJson(*live.version) : OrderedJson(nullptr);
    o["schema_matches_desired"] = live.schema_digest ? OrderedJson(live.matches_desired) : OrderedJson(nullptr);
    o["error"] = live.error.empty() ? OrderedJson(nullptr) : OrderedJson(live.error);
    if (!live.exists) {
      o["schema_matches_desired"] = false;
      o["error"] = "derived graph root is missing";
      state->resources.erase(r.address);
      state->resources.erase("schema." + g);
      for (const char* a : {"graph.", "schema."}) state->statuses[a + g] = {"drifted", {"graph_missing"}, std::nullopt};
    } else if (!live.error.empty()) {
      ++failed;
      for (const char* a : {"graph.", "schema."}) {
        state->statuses[a + g] = {"error", {"graph_observation_error"}, live.error};
      }
    } else {
      // A live schema with the desired schema id is the desired one, whatever its bytes.
      state->resources["schema." + g].digest = live.matches_desired ? desired_schema : *live.schema_digest;
      state->resources[r.address];  // an imported graph is recorded with its live schema
      RecomputeGraphDigest(g, state);
      const bool match = live.matches_desired;
      for (const char* a : {"graph.", "schema."}) {
        state->statuses[a + g] = match ? ResourceStatus{"applied", {}, std::nullopt}
                                       : ResourceStatus{"drifted", {"schema_mismatch"}, std::nullopt};
      }
    }
    state->observations[r.address] = Json::parse(o.dump());
  }
  if (failed > 0) {
    s.Error("graph_observation_error", "graphs", std::to_string(failed) + " graph observation(s) failed");
  }
}

CommandResult Finish(Session& s, OrderedJson j) {
  j["diagnostics"] = s.DiagnosticsJson();
  const bool ok = !s.has_errors();
  j["ok"] = ok;
  // `ok` first, as in every cluster output.
  OrderedJson out = OrderedJson::object();
  out["ok"] = ok;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() != "ok") out[it.key()] = it.value();
  }
  return {ok, std::move(out)};
}

CommandResult RefreshOrImport(const std::string& config_dir, bool import) {
  Session s(config_dir);
  const char* op = import ? "import" : "refresh";
  OrderedJson j = OrderedJson::object();
  j["operation"] = op;
  j["config_dir"] = config_dir;
  auto body = [&](Session& s) {
    j["state_observations"] = s.StateObservations();
    j["resource_digests"] = DigestsJson(StateDigests(s.state()));
    j["resource_statuses"] = StatusesJson(s.state() ? s.state()->statuses : std::map<std::string, ResourceStatus>{});
    j["observations"] = ObservationsJson(s.state());
    return Finish(s, j);
  };
  if (!s.LoadDesired() || !s.OpenLedger(true) || !s.Lock(op) || !s.ReadState()) return body(s);
  if (import && s.state()) {
    s.Error("state_already_exists", "__cluster/state",
            "state already exists (revision " + std::to_string(s.state()->revision) +
                "); `cluster import` only bootstraps a cluster without state (use `cluster refresh`)");
    return body(s);
  }
  if (!import && !s.state()) {
    s.Error("state_missing", "__cluster/state",
            "refresh requires an existing state; run `cluster import` to bootstrap state");
    return body(s);
  }
  ClusterState next = s.state() ? *s.state() : ClusterState{};
  VerifyCatalog(s, &next, /*repair=*/true);
  ObserveGraphs(s, &next);
  if (import && s.has_errors()) return body(s);  // import creates no state from a failed observation
  s.Publish(std::move(next));
  return body(s);
}

}  // namespace

CommandResult RunPlan(const std::string& config_dir) {
  Session s(config_dir);
  OrderedJson j = OrderedJson::object();
  j["config_dir"] = config_dir;
  std::vector<Change> changes;
  OrderedJson blast = OrderedJson::array(), gates = OrderedJson::array();
  auto body = [&] {
    j["desired_revision"] = {
        {"config_digest", s.desired().ok ? OrderedJson(s.desired().config_digest) : OrderedJson(nullptr)}};
    j["resource_digests"] = DigestsJson(s.desired().resource_digests);
    OrderedJson deps = OrderedJson::array();
    for (const auto& d : s.desired().dependencies) deps.push_back({{"from", d.from}, {"to", d.to}});
    j["dependencies"] = deps;
    j["state_observations"] = s.has_ledger() ? s.StateObservations() : OrderedJson::object();
    j["changes"] = OrderedJson::array();
    for (const auto& c : changes) j["changes"].push_back(ChangeJson(c));
    j["blast_radius"] = blast;
    j["approvals_required"] = gates;
    return Finish(s, j);
  };
  if (!s.LoadDesired() || !s.OpenLedger(false)) return body();
  s.ObserveLock();
  if (!s.ReadState()) return body();
  const ClusterState* state = s.state() ? &*s.state() : nullptr;
  changes = Diff(s.desired(), state);
  std::set<std::string> approved;
  for (const auto& [resource, approval] : ResolveApprovals(s, changes, &gates)) approved.insert(resource);
  Classify(&changes, approved);
  for (auto& c : changes) {
    if (!c.resource.starts_with("schema.") || c.operation != "update") continue;
    const std::string g = GraphOf(c.resource);
    auto preview = PreviewMigration(s.ledger().root().GraphUri(g), s.Desired(c.resource)->content);
    if (!preview.ok()) {
      s.Warn("schema_preview_unavailable", c.resource,
             "could not preview the migration of graph `" + g + "`: " + preview.status().ToString());
      continue;
    }
    c.migration = {{"supported", preview->supported}, {"steps", SchemaPlanStepsJson(*preview)}};
  }
  for (const auto& c : changes) {
    OrderedJson affected = OrderedJson::array();
    for (const auto& d : s.desired().dependencies) {
      if (d.to == c.resource) affected.push_back(d.from);
    }
    if (!affected.empty()) blast.push_back({{"resource", c.resource}, {"affected", affected}});
  }
  return body();
}

CommandResult RunApprove(const std::string& config_dir, const std::string& resource, const std::string& actor) {
  Session s(config_dir);
  OrderedJson j = OrderedJson::object();
  j["config_dir"] = config_dir;
  auto body = [&] { return Finish(s, j); };
  if (!s.LoadDesired() || !s.OpenLedger(true) || !s.Lock("approve") || !s.ReadState()) return body();
  if (!s.state()) {
    s.Error("state_missing", "__cluster/state", "approve requires an existing state; run `cluster import` first");
    return body();
  }
  const std::vector<Change> changes = Diff(s.desired(), &*s.state());
  const Change* change = nullptr;
  for (const auto& c : changes) {
    if (c.resource == resource && NeedsApproval(c, changes)) change = &c;
  }
  if (change == nullptr) {
    s.Error("approval_not_required", resource,
            "no pending change for this resource requires approval (check `cluster plan`)");
    return body();
  }
  Approval a;
  a.approval_id = NewUlidString();
  a.resource = resource;
  a.operation = change->operation;
  a.reason = kApprovalReason;
  a.bound_config_digest = s.desired().config_digest;
  a.bound_before_digest = change->before;
  a.bound_after_digest = change->after;
  a.approved_by = actor;
  a.created_at = FormatMicrosIso(NowMicros());
  if (Status st = s.ledger().WriteApproval(a); !st.ok()) {
    s.Error("approval_write_error", Ledger::kApprovalsPrefix, "could not write the approval: " + st.ToString());
    return body();
  }
  j["approval_id"] = a.approval_id;
  j["resource"] = a.resource;
  j["operation"] = a.operation;
  j["approved_by"] = a.approved_by;
  return body();
}

CommandResult RunStatus(const std::string& config_dir) {
  Session s(config_dir);
  OrderedJson j = OrderedJson::object();
  j["config_dir"] = config_dir;
  auto body = [&] {
    j["state_observations"] = s.has_ledger() ? s.StateObservations() : OrderedJson::object();
    j["resource_digests"] = DigestsJson(StateDigests(s.state()));
    j["resource_statuses"] = StatusesJson(s.state() ? s.state()->statuses : std::map<std::string, ResourceStatus>{});
    j["observations"] = ObservationsJson(s.state());
    return Finish(s, j);
  };
  if (!s.LoadDesired(/*full=*/false) || !s.OpenLedger(false)) return body();
  s.ObserveLock();
  if (!s.ReadState()) return body();
  if (!s.state()) {
    s.Warn("state_missing", "__cluster/state", "no state has been published; no applied cluster revision is recorded");
    return body();
  }
  ClusterState copy = *s.state();
  VerifyCatalog(s, &copy, /*repair=*/false);
  return body();
}

CommandResult RunRefresh(const std::string& config_dir) { return RefreshOrImport(config_dir, false); }
CommandResult RunImport(const std::string& config_dir) { return RefreshOrImport(config_dir, true); }

CommandResult RunForceUnlock(const std::string& config_dir, const std::string& lock_id) {
  Session s(config_dir);
  OrderedJson j = OrderedJson::object();
  j["config_dir"] = config_dir;
  bool removed = false;
  auto body = [&] {
    j["state_observations"] = s.has_ledger() ? s.StateObservations() : OrderedJson::object();
    j["lock_removed"] = removed;
    return Finish(s, j);
  };
  if (!s.LoadDesired(/*full=*/false) || !s.OpenLedger(false)) return body();
  auto held = s.ledger().ReadLock();
  if (!held.ok()) {
    const bool corrupt = held.status().category() == StatusCode::kCorrupt;
    s.Error(corrupt ? "invalid_state_lock" : "state_lock_read_error", Ledger::kLockKey, held.status().message());
    return body();
  }
  if (!held->has_value()) {
    s.Error("state_lock_missing", Ledger::kLockKey, "no cluster state lock is held");
    return body();
  }
  s.ObserveLock();
  if ((*held)->lock_id != lock_id) {
    s.Error("state_lock_id_mismatch", Ledger::kLockKey,
            "lock id mismatch: held lock is " + (*held)->lock_id +
                ", refusing to remove (pass the exact id from `cluster status`)");
    return body();
  }
  if (Status st = s.ledger().store().Delete(Ledger::kLockKey); !st.ok()) {
    s.Error("state_lock_error", Ledger::kLockKey, "could not remove the lock: " + st.ToString());
    return body();
  }
  removed = true;
  s.ObserveLock();
  return body();
}

}  // namespace omnigraph::cluster
