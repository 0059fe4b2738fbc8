// `omnigraph optimize [URI] [--branch B] [--json]`: builds and persists the derived read
// structures of a branch head (Database::Optimize) so later processes load them.
#include <cstdio>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "common/clock.h"
#include "common/json.h"

namespace omnigraph::cli {
namespace {

int RunOptimize(const GraphFlags& flags, const std::string& branch) {
  auto g = OpenGraph(flags, /*writable=*/true);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  const int64_t start = MonotonicNanos();
  auto r = (*g)->Optimize(branch);
  if (!r.ok()) return ReportError(r.status(), flags.json);
  const double secs = static_cast<double>(MonotonicNanos() - start) / 1e9;
  if (flags.json) {
    Json objects = Json::array();
    for (const auto& o : r->objects) {
      objects.push_back({{"type_name", o.type_name}, {"kind", o.kind}, {"status", o.built ? "built" : "present"}});
    }
    Json j = {{"uri", (*g)->uri()}, {"graph_branch", branch}, {"graph_commit_id", r->commit_id},
              {"derived", objects}, {"built", r->built},      {"present", r->present}};
    PrintJson(OrderedJson(j));
  } else {
    for (const auto& o : r->objects) {
      std::printf("  %-24s %-9s %s\n", o.type_name.c_str(), o.kind.c_str(), o.built ? "built" : "present");
    }
    std::printf("optimized %s at commit %s in %.2fs: %llu built, %llu already present\n", branch.c_str(),
                r->commit_id.c_str(), secs, static_cast<unsigned long long>(r->built),
                static_cast<unsigned long long>(r->present));
  }
  return kExitOk;
}

}  // namespace

void AddOptimizeCommand(CLI::App& app, CommandAction* run) {
  auto* cmd =
      app.add_subcommand("optimize", "Build and store the read structures (row ordinals, adjacency) of a branch head");
  auto flags = std::make_shared<GraphFlags>();
  auto branch = std::make_shared<std::string>("main");
  cmd->add_option("--branch", *branch, "Branch (default main)");
  AddGraphFlags(cmd, flags.get(), true);
  cmd->callback([=] { *run = [=] { return RunOptimize(*flags, *branch); }; });
}

}  // namespace omnigraph::cli
