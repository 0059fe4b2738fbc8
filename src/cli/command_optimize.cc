// `omnigraph optimize [URI] [--branch B] [--json]`: compacts every table of a branch head in one
// commit (operation "optimize", no entity changes) and builds and persists the derived read
// structures of the resulting head (Database::Optimize), so later processes load them.
#include <cstdio>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "common/clock.h"
#include "common/json.h"

namespace omnigraph::cli {
namespace {

std::string TypeKey(const OptimizeSummary::Table& t) { return std::string(EntityKindName(t.kind)) + ":" + t.type_name; }

int RunOptimize(const GraphFlags& flags, const std::string& branch) {
  EchoWriteTarget("optimize", flags);
  auto g = OpenGraph(flags, /*writable=*/true);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  const int64_t start = MonotonicNanos();
  auto r = (*g)->Optimize(branch);
  if (!r.ok()) return ReportError(r.status(), flags.json);
  const double secs = static_cast<double>(MonotonicNanos() - start) / 1e9;
  if (flags.json) {
    // The Rust CLI's shape ({uri, datasets: [...]}) with ours after it.
    OrderedJson datasets = OrderedJson::array();
    for (const auto& t : r->tables) {
      OrderedJson d;
      d["type_key"] = TypeKey(t);
      d["fragments_removed"] = t.fragments_removed;
      d["fragments_added"] = t.fragments_added;
      d["committed"] = t.committed;
      d["skipped"] = nullptr;
      d["published_dataset_version"] = nullptr;
      d["lance_head_version"] = nullptr;
      d["pending_indexes"] = OrderedJson::array();
      d["fragments_before"] = t.fragments_before;
      d["rows_rewritten"] = t.rows_rewritten;
      datasets.push_back(std::move(d));
    }
    OrderedJson derived = OrderedJson::array();
    for (const auto& o : r->objects) {
      OrderedJson d;
      d["type_name"] = o.type_name;
      d["kind"] = o.kind;
      d["status"] = o.built ? "built" : "present";
      derived.push_back(std::move(d));
    }
    OrderedJson indexes = OrderedJson::array();
    for (const auto& x : r->search_indexes) {
      OrderedJson d;
      d["type_name"] = x.type_name;
      d["property"] = x.property;
      d["kind"] = x.kind;
      d["status"] = x.built ? "built" : "present";
      d["rows"] = x.rows;
      d["bytes"] = x.bytes;
      indexes.push_back(std::move(d));
    }
    OrderedJson j;
    j["uri"] = (*g)->uri();
    j["datasets"] = std::move(datasets);
    j["graph_branch"] = branch;
    j["graph_commit_id"] = r->commit_id;
    j["compacted"] = r->compacted;
    j["derived"] = std::move(derived);
    j["search_indexes"] = std::move(indexes);
    j["indexed"] = r->indexed;
    j["built"] = r->built;
    j["present"] = r->present;
    PrintJson(j);
    return kExitOk;
  }
  std::printf("optimize %s \u2014 %zu datasets\n", (*g)->uri().c_str(), r->tables.size());
  for (const auto& t : r->tables) {
    const std::string subject = std::string(EntityKindName(t.kind)) + " type '" + t.type_name + "'";
    if (t.committed) {
      std::printf("  %-40s frags %llu \u2192 %llu \u2713\n", subject.c_str(),
                  static_cast<unsigned long long>(t.fragments_removed),
                  static_cast<unsigned long long>(t.fragments_added));
    } else {
      std::printf("  %-40s no-op\n", subject.c_str());
    }
  }
  for (const auto& o : r->objects) {
    std::printf("  %-24s %-9s %s\n", o.type_name.c_str(), o.kind.c_str(), o.built ? "built" : "present");
  }
  for (const auto& x : r->search_indexes) {
    const std::string subject = x.type_name + "." + x.property;
    if (x.built) {
      std::printf("  %-24s %-9s built (%llu rows, %llu bytes)\n", subject.c_str(), x.kind.c_str(),
                  static_cast<unsigned long long>(x.rows), static_cast<unsigned long long>(x.bytes));
    } else {
      std::printf("  %-24s %-9s present\n", subject.c_str(), x.kind.c_str());
    }
  }
  std::printf("optimized %s at commit %s in %.2fs: %s; %llu read structures built, %llu already present\n",
              branch.c_str(), r->commit_id.c_str(), secs,
              r->compacted ? "compacted in one commit" : "nothing to compact",
              static_cast<unsigned long long>(r->built), static_cast<unsigned long long>(r->present));
  return kExitOk;
}

}  // namespace

void AddOptimizeCommand(CLI::App& app, CommandAction* run) {
  auto* cmd = app.add_subcommand(
      "optimize",
      "Compact a branch head's tables (one commit) and store its read structures (row ordinals, adjacency)");
  auto flags = std::make_shared<GraphFlags>();
  auto branch = std::make_shared<std::string>("main");
  cmd->add_option("--branch", *branch, "Branch (default main)");
  AddGraphFlags(cmd, flags.get(), true);
  cmd->callback([=] { *run = [=] { return RunOptimize(*flags, *branch); }; });
}

}  // namespace omnigraph::cli
