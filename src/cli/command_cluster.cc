// `omnigraph cluster validate|import|plan|apply|approve RES|status|refresh|force-unlock ID`: the
// declarative control plane (docs/cluster.md). Each command prints the JSON of src/cluster with
// --json, else a text rendering of the same JSON; exit 1 when `ok` is false.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "cluster/cluster_config.h"
#include "cluster/control.h"
#include "common/error_codes.h"
#include "common/utf8.h"

namespace omnigraph::cli {
namespace {

struct ClusterFlags {
  std::string config;
  bool json = false;
  std::string operand;  // approve: the resource; force-unlock: the lock id
};

void AddConfigFlags(CLI::App* cmd, ClusterFlags* f) {
  cmd->add_option("--config", f->config, "Cluster folder holding cluster.yaml (default: $OMNIGRAPH_CONFIG, else .)");
  cmd->add_flag("--json", f->json, "Print JSON");
}

std::string ConfigDir(const ClusterFlags& f) {
  if (!f.config.empty()) return f.config;
  if (const char* env = std::getenv("OMNIGRAPH_CONFIG"); env != nullptr && *env != '\0') return env;
  return ".";
}

void PrintDiagnostics(const OrderedJson& diagnostics) {
  for (const auto& d : diagnostics) {
    const bool error = d["severity"] == "error";
    std::printf("%s %s %s: %s\n", error ? "ERROR" : "WARN ", d["code"].get<std::string>().c_str(),
                d["path"].get<std::string>().c_str(), d["message"].get<std::string>().c_str());
  }
}

std::string Capitalized(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

// "  Update policy.base [bindings] [Blocked: approval_required]"
void PrintChanges(const OrderedJson& changes, bool with_disposition) {
  if (changes.empty()) std::printf("  no changes\n");
  for (const auto& c : changes) {
    std::string line = "  " + Capitalized(c["operation"].get<std::string>()) + " " + c["resource"].get<std::string>();
    if (c.contains("binding_change")) line += " [bindings]";
    if (with_disposition && c.contains("disposition")) {
      line += " [" + Capitalized(c["disposition"].get<std::string>());
      if (c.contains("reason")) line += ": " + c["reason"].get<std::string>();
      line += "]";
    }
    std::printf("%s\n", line.c_str());
    if (c.contains("migration")) {
      if (!c["migration"]["supported"].get<bool>()) std::printf("      migration UNSUPPORTED:\n");
      for (const auto& step : c["migration"]["steps"]) std::printf("      %s\n", step.dump().c_str());
    }
  }
}

std::string LockLine(const OrderedJson& obs) {
  if (!obs.value("locked", false)) return "not held";
  std::string s =
      "held (id=" + obs.value("lock_id", std::string()) + ", operation=" + obs.value("lock_operation", std::string());
  if (obs.contains("lock_pid")) s += ", pid=" + std::to_string(obs["lock_pid"].get<uint64_t>());
  if (obs.contains("lock_host")) s += ", host=" + obs["lock_host"].get<std::string>();
  s += ", created_at=" + obs.value("lock_created_at", std::string());
  if (obs.contains("lock_age_seconds")) s += ", age_seconds=" + std::to_string(obs["lock_age_seconds"].get<int64_t>());
  return s + ")";
}

void PrintText(const std::string& command, const cluster::CommandResult& r) {
  const OrderedJson& j = r.json;
  const OrderedJson& obs = j.contains("state_observations") ? j["state_observations"] : OrderedJson::object();
  if (command == "plan") {
    if (!r.ok) {
      std::printf("cluster plan failed\n");
    } else {
      std::printf("cluster plan: %zu change(s), %zu approval gate(s)\n", j["changes"].size(),
                  j["approvals_required"].size());
      PrintChanges(j["changes"], false);
      for (const auto& g : j["approvals_required"]) {
        std::printf("  approval %s: %s\n", g["satisfied"].get<bool>() ? "granted" : "required",
                    g["resource"].get<std::string>().c_str());
      }
    }
  } else if (command == "apply") {
    size_t applied = j["applied_count"], deferred = j["deferred_count"];
    if (r.ok) {
      std::printf("cluster apply: %zu applied, %zu deferred/blocked\n", applied, deferred);
    } else {
      std::printf("cluster apply failed\n");
    }
    PrintChanges(j["changes"], true);
    if (r.ok) {
      std::printf("  state: revision %llu, converged: %s, written: %s\n",
                  static_cast<unsigned long long>(obs.value("state_revision", uint64_t{0})),
                  j["converged"].get<bool>() ? "true" : "false", j["state_written"].get<bool>() ? "true" : "false");
    }
  } else if (command == "approve") {
    if (r.ok) {
      std::printf("cluster approve: %s %s approved by %s (approval %s)\n", j["operation"].get<std::string>().c_str(),
                  j["resource"].get<std::string>().c_str(), j["approved_by"].get<std::string>().c_str(),
                  j["approval_id"].get<std::string>().c_str());
    } else {
      std::printf("cluster approve failed\n");
    }
  } else if (command == "status") {
    if (!r.ok) {
      std::printf("cluster status failed\n");
    } else if (!obs.value("state_found", false)) {
      std::printf("cluster state missing\n");
    } else {
      std::printf("cluster state: revision %llu, %zu resource(s)\n",
                  static_cast<unsigned long long>(obs["state_revision"].get<uint64_t>()), j["resource_digests"].size());
      if (obs.contains("applied_config_digest")) {
        std::printf("  applied config: %s\n", obs["applied_config_digest"].get<std::string>().c_str());
      }
      for (const auto& [address, st] : j["resource_statuses"].items()) {
        std::printf("  %s: %s\n", address.c_str(), st["status"].get<std::string>().c_str());
      }
    }
    if (!obs.empty()) std::printf("  lock: %s\n", LockLine(obs).c_str());
  } else if (command == "refresh" || command == "import") {
    if (r.ok) {
      std::printf("cluster %s: revision %llu, %zu resource(s)\n", command.c_str(),
                  static_cast<unsigned long long>(obs["state_revision"].get<uint64_t>()), j["resource_digests"].size());
      if (obs.contains("state_cas")) std::printf("  state_cas: %s\n", obs["state_cas"].get<std::string>().c_str());
    } else {
      std::printf("cluster %s failed\n", command.c_str());
      if (obs.value("locked", false)) std::printf("  lock: %s\n", LockLine(obs).c_str());
    }
  } else if (command == "force-unlock") {
    if (r.ok) {
      std::printf("cluster force-unlock: removed lock\n");
    } else {
      std::printf("cluster force-unlock failed\n");
      if (obs.value("locked", false)) std::printf("  lock: %s\n", LockLine(obs).c_str());
    }
  }
  PrintDiagnostics(j["diagnostics"]);
}

int Validate(const ClusterFlags& f) {
  const cluster::ValidateOutput out = cluster::ValidateClusterConfig(ConfigDir(f));
  if (f.json) {
    PrintJson(cluster::ToJson(out));
  } else {
    if (out.ok) {
      std::printf("cluster config valid: %zu resource(s), %zu dependency edge(s)\n", out.resources.size(),
                  out.dependencies.size());
    } else {
      std::printf("cluster config invalid\n");
    }
    PrintDiagnostics(cluster::ToJson(out)["diagnostics"]);
  }
  std::fflush(stdout);
  return out.ok ? kExitOk : kExitError;
}

int Run(const std::string& command, const ClusterFlags& f) {
  const std::string dir = ConfigDir(f);
  cluster::CommandResult r;
  if (command == "plan") r = cluster::RunPlan(dir);
  if (command == "status") r = cluster::RunStatus(dir);
  if (command == "refresh") r = cluster::RunRefresh(dir);
  if (command == "import") r = cluster::RunImport(dir);
  if (command == "force-unlock") r = cluster::RunForceUnlock(dir, f.operand);
  if (command == "apply" || command == "approve") {
    const std::optional<std::string> actor = GraphFlags{}.Actor();
    if (actor && !IsValidUtf8(*actor)) return ReportError(UsageError("--as: the actor must be UTF-8 text"), f.json);
    if (command == "apply") {
      r = cluster::RunApply(dir, actor);
    } else {
      if (!actor) {
        return ReportError(UsageError("`cluster approve` records who approved: pass --as ACTOR (or set "
                                      "$OMNIGRAPH_ACTOR or operator.actor)"),
                           f.json);
      }
      r = cluster::RunApprove(dir, f.operand, *actor);
    }
  }
  if (f.json) {
    PrintJson(r.json);
  } else {
    PrintText(command, r);
  }
  std::fflush(stdout);
  return r.ok ? kExitOk : kExitError;
}

}  // namespace

void AddClusterCommands(CLI::App& app, CommandAction* run) {
  auto* cluster = app.add_subcommand("cluster", "The declarative control plane of a cluster folder (cluster.yaml)");
  cluster->require_subcommand(1);
  auto flags = std::make_shared<ClusterFlags>();
  auto* validate = cluster->add_subcommand("validate", "Check cluster.yaml and every file it names");
  AddConfigFlags(validate, flags.get());
  validate->callback([run, flags] { *run = [flags] { return Validate(*flags); }; });
  const std::pair<const char*, const char*> commands[] = {
      {"import", "Create the state ledger from the config and the live graphs"},
      {"plan", "Show what apply would change (read-only)"},
      {"apply", "Converge graphs, schemas, queries and policies to the config"},
      {"approve", "Approve the pending delete of a resource (digest-bound)"},
      {"status", "Show the state ledger (read-only)"},
      {"refresh", "Observe the live graphs and the catalog, and record what is there"},
      {"force-unlock", "Remove a lock left by a crashed command (needs its exact id)"},
  };
  for (const auto& [name, help] : commands) {
    auto* cmd = cluster->add_subcommand(name, help);
    const std::string n = name;
    if (n == "approve") cmd->add_option("resource", flags->operand, "Resource address, e.g. graph.scratch")->required();
    if (n == "force-unlock")
      cmd->add_option("lock_id", flags->operand, "The lock id `cluster status` shows")->required();
    AddConfigFlags(cmd, flags.get());
    cmd->callback([run, flags, n] { *run = [flags, n] { return Run(n, *flags); }; });
  }
}

}  // namespace omnigraph::cli
