// `cluster apply`: converge the graphs and the catalog to the desired config, then publish the
// next state revision (the one commit point). Phases, in order: graph creates, schema migrations,
// catalog writes, approved deletes. Every step checks the live graph or object first, so a run
// interrupted anywhere (kill -9 included) is finished by the next one; nothing records intent.
#include <algorithm>
#include <map>
#include <set>

#include "cluster/control.h"
#include "cluster/graph_ops.h"
#include "cluster/session.h"
#include "common/clock.h"
#include "common/error_codes.h"
#include "common/failpoint.h"
#include "common/hash.h"

namespace omnigraph::cluster {

namespace {

enum class Failure { kCreate, kSchema, kDelete };

// After a graph step failed, the changes that depended on it are blocked, with why.
void Demote(const std::map<std::string, Failure>& failed, const Session& s, std::vector<Change>* changes) {
  for (auto& c : *changes) {
    if (c.disposition != "applied" && c.disposition != "derived") continue;
    std::string g = GraphOf(c.resource);
    const char* reason = "dependency_not_applied";
    if (c.resource.starts_with("policy.")) {
      const ResourceSummary* p = s.Desired(c.resource);
      if (p == nullptr) continue;
      g.clear();
      for (const auto& b : p->applies_to) {
        if (b.starts_with("graph.") && failed.count(b.substr(6))) g = b.substr(6);
      }
    }
    auto it = failed.find(g);
    if (g.empty() || it == failed.end()) continue;
    if (c.resource.starts_with("graph.") && it->second == Failure::kCreate) reason = "graph_create_failed";
    if (c.resource.starts_with("graph.") && it->second == Failure::kDelete) reason = "graph_delete_failed";
    if (c.resource.starts_with("schema.") && it->second == Failure::kSchema) reason = "schema_apply_failed";
    c.disposition = "blocked";
    c.reason = reason;
  }
}

bool Injected(Session& s, const char* point) {
  Status st = OG_FAILPOINT(point);
  if (st.ok()) return false;
  s.Error("injected_failpoint", point, "injected failpoint triggered: " + std::string(point) + ": " + st.message());
  return true;
}

}  // namespace

CommandResult RunApply(const std::string& config_dir, const std::optional<std::string>& actor) {
  Session s(config_dir);
  OrderedJson j = OrderedJson::object();
  j["ok"] = false;
  j["config_dir"] = config_dir;
  if (actor) j["actor"] = *actor;
  std::vector<Change> changes;
  bool converged = false, written = false;
  std::optional<std::map<std::string, ResourceStatus>> statuses;
  auto body = [&] {
    j["desired_revision"] = {
        {"config_digest", s.desired().ok ? OrderedJson(s.desired().config_digest) : OrderedJson(nullptr)}};
    j["state_observations"] = s.has_ledger() ? s.StateObservations() : OrderedJson::object();
    j["changes"] = OrderedJson::array();
    size_t applied = 0, deferred = 0;
    for (const auto& c : changes) {
      j["changes"].push_back(ChangeJson(c));
      applied += c.disposition == "applied";
      deferred += c.disposition == "deferred" || c.disposition == "blocked";
    }
    j["applied_count"] = applied;
    j["deferred_count"] = deferred;
    j["converged"] = converged;
    j["state_written"] = written;
    j["resource_statuses"] = StatusesJson(statuses    ? *statuses
                                          : s.state() ? s.state()->statuses
                                                      : std::map<std::string, ResourceStatus>{});
    j["diagnostics"] = s.DiagnosticsJson();
    j["ok"] = !s.has_errors();
    return CommandResult{!s.has_errors(), j};
  };
  if (!s.LoadDesired() || !s.OpenLedger(true) || !s.Lock("apply") || !s.ReadState()) return body();
  if (!s.state()) {
    s.Error("state_missing", "__cluster/state",
            "apply requires an existing state; run `cluster import` to bootstrap state");
    return body();
  }
  if (Injected(s, "cluster.apply.after_lock")) return body();
  const ClusterState before = *s.state();
  const ValidateOutput& desired = s.desired();
  changes = Diff(desired, &before);
  const std::map<std::string, Approval> approvals = ResolveApprovals(s, changes, nullptr);
  std::set<std::string> approved;
  for (const auto& [resource, a] : approvals) approved.insert(resource);
  Classify(&changes, approved);

  std::map<std::string, Failure> failed;
  std::set<std::string> created;
  auto uri = [&](const std::string& g) { return s.ledger().root().GraphUri(g); };
  auto schema_of = [&](const std::string& g) { return s.Desired("schema." + g)->content; };
  // 1. Graph creates (the schema create rides along).
  for (const auto& c : changes) {
    if (!c.resource.starts_with("graph.") || c.operation != "create" || c.disposition != "applied") continue;
    const std::string g = GraphOf(c.resource);
    auto r = ConvergeGraph(uri(g), schema_of(g), actor, /*may_create=*/true);
    if (!r.ok()) {
      s.Error("graph_create_failed", c.resource,
              "could not initialize graph at '" + uri(g) + "': " + r.status().ToString());
      failed[g] = Failure::kCreate;
      continue;
    }
    created.insert(g);
    if (Injected(s, "cluster.apply.after_graph_create")) return body();
  }
  // 2. Schema migrations of graphs that already existed.
  for (const auto& c : changes) {
    if (!c.resource.starts_with("schema.") || c.operation == "delete" || c.disposition != "applied") continue;
    const std::string g = GraphOf(c.resource);
    if (created.count(g) || failed.count(g)) continue;
    auto r = ConvergeGraph(uri(g), schema_of(g), actor, /*may_create=*/false);
    if (!r.ok()) {
      s.Error("schema_apply_failed", c.resource, "schema apply failed on '" + uri(g) + "': " + r.status().ToString());
      failed[g] = Failure::kSchema;
      continue;
    }
    if (Injected(s, "cluster.apply.after_schema_apply")) return body();
  }
  Demote(failed, s, &changes);
  // 3. Catalog writes: content-addressed, so an object already there is this content.
  bool payload_failed = false;
  for (const auto& c : changes) {
    if (c.disposition != "applied" || c.operation == "delete" || !c.after) continue;
    const std::string key = Ledger::PayloadKey(c.resource, *c.after);
    if (key.empty()) continue;
    const ResourceSummary* r = s.Desired(c.resource);
    if (Sha256Hex(r->content) != *c.after) {
      s.Error("resource_content_changed", c.resource,
              "the source changed while apply was running; re-run `cluster apply`");
      payload_failed = true;
      continue;
    }
    Status st = s.ledger().store().PutIfAbsent(key, r->content);
    if (st.category() == StatusCode::kAlreadyExists) {
      // Content-addressed: an object that does not hold its digest was damaged; write it again.
      auto there = s.ledger().store().Get(key);
      st = there.ok() && Sha256Hex(*there) == *c.after ? Status::Ok() : s.ledger().store().Put(key, r->content);
    }
    if (!st.ok()) {
      s.Error("resource_payload_write_error", c.resource, "could not write " + key + ": " + st.ToString());
      payload_failed = true;
    }
  }
  if (payload_failed) return body();  // the catalog lacks what the state would name: publish nothing
  if (Injected(s, "cluster.apply.after_payload_phase")) return body();
  // 4. Approved deletes, last.
  std::set<std::string> deleted;
  for (const auto& c : changes) {
    if (!c.resource.starts_with("graph.") || c.operation != "delete" || c.disposition != "applied") continue;
    const std::string g = GraphOf(c.resource);
    if (Status st = DeleteGraph(s.ledger(), g); !st.ok()) {
      s.Error("graph_delete_failed", c.resource, "could not delete graph at '" + uri(g) + "': " + st.ToString());
      failed[g] = Failure::kDelete;
      continue;
    }
    deleted.insert(g);
    if (Injected(s, "cluster.apply.after_graph_delete")) return body();
  }
  Demote(failed, s, &changes);
  for (const auto& c : changes) {
    if (c.disposition == "blocked") {
      s.Warn("apply_dependency_blocked", c.resource,
             c.reason == "approval_required"
                 ? "blocked until approved (approval_required): run `omnigraph cluster approve graph." +
                       GraphOf(c.resource) + " --as ACTOR`, then apply again"
                 : "blocked by an unapplied or missing dependency (" + c.reason + ")");
    } else if (c.disposition == "deferred") {
      s.Warn("apply_unsupported_change", c.resource,
             "this change is not applied by `cluster apply` (" + c.reason + ")");
    }
  }

  // The next revision.
  ClusterState next = before;
  const std::string now = FormatMicrosIso(NowMicros());
  for (const auto& c : changes) {
    if (c.disposition == "applied" && c.operation != "delete") {
      const ResourceSummary* r = s.Desired(c.resource);
      StateResource res;
      res.digest = *c.after;
      res.applies_to = r->applies_to;
      if (r->kind == "embedding_provider") res.embedding_profile = r->content;
      next.resources[c.resource] = std::move(res);
      next.statuses[c.resource] = {"applied", {}, std::nullopt};
    } else if (c.disposition == "applied") {
      next.resources.erase(c.resource);
      next.statuses.erase(c.resource);
    } else if (c.disposition == "derived") {
      next.statuses[c.resource] = {"applied", {}, std::nullopt};
    } else if (c.disposition == "blocked") {
      next.statuses[c.resource] = {"blocked",
                                   {c.reason},
                                   c.reason == "approval_required" ? "waiting for `cluster approve`"
                                                                   : "waiting on an unapplied or missing dependency"};
    }
  }
  for (const std::string& g : deleted) {
    const std::string prefix = "query." + g + ".";
    for (auto* m : {&next.statuses}) {
      for (auto it = m->begin(); it != m->end();) {
        const bool gone = it->first == "graph." + g || it->first == "schema." + g || it->first.starts_with(prefix);
        it = gone ? m->erase(it) : std::next(it);
      }
    }
    for (auto it = next.resources.begin(); it != next.resources.end();) {
      const bool gone = it->first == "graph." + g || it->first == "schema." + g || it->first.starts_with(prefix);
      it = gone ? next.resources.erase(it) : std::next(it);
    }
    const Approval& a = approvals.at("graph." + g);
    next.approval_records[a.approval_id] = {now, "apply"};
    next.observations["graph." + g] = Json{{"kind", "tombstone"},
                                           {"deleted_at", now},
                                           {"approval_id", a.approval_id},
                                           {"actor", actor ? Json(*actor) : Json(nullptr)}};
  }
  // A resource that no change touches is what the config declares; a block recorded by an earlier
  // run (a failed migration since reverted in the config) no longer holds.
  for (const auto& r : desired.resources) {
    auto st = next.statuses.find(r.address);
    const bool changed =
        std::any_of(changes.begin(), changes.end(), [&](const Change& c) { return c.resource == r.address; });
    if (!changed && st != next.statuses.end() && st->second.status == "blocked")
      st->second = {"applied", {}, std::nullopt};
  }
  for (auto it = next.statuses.begin(); it != next.statuses.end();) {  // nothing declared or recorded
    const bool orphan = desired.resource_digests.count(it->first) == 0 && next.resources.count(it->first) == 0;
    it = orphan ? next.statuses.erase(it) : std::next(it);
  }
  for (const std::string& g : created) next.observations.erase("graph." + g);  // refresh observes again
  for (const auto& r : desired.resources) {
    if (r.kind != "graph" || next.resources.count(r.address) == 0) continue;
    const std::string g = GraphOf(r.address);
    if (failed.count(g) == 0) {
      auto p = desired.graph_providers.find(g);
      next.resources[r.address].embedding_provider =
          p == desired.graph_providers.end() ? std::nullopt : std::optional<std::string>(p->second);
    }
    RecomputeGraphDigest(g, &next);
  }
  converged = Diff(desired, &next).empty();
  if (converged) next.config_digest = desired.config_digest;
  next.revision = before.revision;
  if (!(next == before)) {
    if (Injected(s, "cluster.apply.before_state_write")) return body();
    written = s.Publish(next);
    if (!written) return body();
    for (const std::string& g : deleted) {
      (void)s.ledger().MarkApprovalConsumed(approvals.at("graph." + g), now);  // the ledger is authoritative
    }
  }
  statuses = next.statuses;
  return body();
}

}  // namespace omnigraph::cluster
