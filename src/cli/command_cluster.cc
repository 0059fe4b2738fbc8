// `omnigraph cluster ...`: the declarative control plane (docs/cluster.md). `validate` reads a
// cluster folder and reports its resources, digests, dependencies and diagnostics; the commands
// that read or write the state ledger are not implemented yet and say so (`unimplemented`).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "cli/cli_util.h"
#include "cluster/cluster_config.h"
#include "common/error_codes.h"

namespace omnigraph::cli {
namespace {

struct ClusterFlags {
  std::string config;
  bool json = false;
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
    for (const auto& d : out.diagnostics) {
      std::printf("%s %s %s: %s\n", d.severity == cluster::Severity::kError ? "ERROR" : "WARN ", d.code.c_str(),
                  d.path.c_str(), d.message.c_str());
    }
  }
  std::fflush(stdout);
  return out.ok ? kExitOk : kExitError;
}

// The action of a subcommand not built yet: a typed `unimplemented` error, never a fake success.
CommandAction Unimplemented(std::shared_ptr<ClusterFlags> flags, const char* name) {
  return [flags, name] {
    return ReportError(Status(ErrorCode::kUnimplemented, std::string("`cluster ") + name +
                                                             "` (the state ledger under __cluster/) is not implemented "
                                                             "yet; `cluster validate` is"),
                       flags->json);
  };
}

}  // namespace

void AddClusterCommands(CLI::App& app, CommandAction* run) {
  auto* cluster = app.add_subcommand("cluster", "The declarative control plane of a cluster folder (cluster.yaml)");
  cluster->require_subcommand(1);
  auto flags = std::make_shared<ClusterFlags>();
  auto* validate = cluster->add_subcommand("validate", "Check cluster.yaml and every file it names");
  AddConfigFlags(validate, flags.get());
  validate->callback([run, flags] { *run = [flags] { return Validate(*flags); }; });
  auto operand = std::make_shared<std::string>();
  for (const char* name : {"plan", "apply", "status", "refresh", "import", "approve", "force-unlock"}) {
    auto* cmd = cluster->add_subcommand(name, std::string("Not implemented yet: cluster ") + name);
    const std::string n = name;
    if (n == "approve" || n == "force-unlock") {
      cmd->add_option(n == "approve" ? "resource" : "lock_id", *operand)->required();
    }
    AddConfigFlags(cmd, flags.get());
    cmd->callback([run, flags, name] { *run = Unimplemented(flags, name); });
  }
}

}  // namespace omnigraph::cli
