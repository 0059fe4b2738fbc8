// `omnigraph branch create|list|delete|merge` (docs/cli.md), on the public API's branch calls.
#include <cstdio>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "cli/remote_commands.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/output_json.h"

namespace omnigraph::cli {
namespace {

int RunCreate(const GraphFlags& flags, const std::string& name, const std::string& from) {
  if (auto rc = RemoteBranchCreate(flags, name, from)) return *rc;
  auto g = OpenGraph(flags, /*writable=*/true);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  EchoWriteTarget("branch create", flags);
  auto e = (*g)->CreateBranch(name, from);
  if (!e.ok()) return ReportError(e.status(), flags.json);
  if (flags.json) {  // the Rust CLI's shape, then our commit
    OrderedJson j = OrderedJson::object();
    j["uri"] = (*g)->uri();
    j["from"] = from;
    j["name"] = name;
    j["actor_id"] = OrderedJson(ActorJson(**g));
    j["commit"] = e->commit_id;
    PrintJson(j);
  } else {
    std::printf("created branch %s from %s\n", name.c_str(), from.c_str());
  }
  return kExitOk;
}

int RunList(const GraphFlags& flags) {
  if (auto rc = RemoteBranchList(flags)) return *rc;
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto names = (*g)->Branches();
  if (!names.ok()) return ReportError(names.status(), flags.json);
  if (flags.json) {
    PrintJson(OrderedJson{{"branches", *names}});
  } else {
    for (const auto& n : *names) std::printf("%s\n", n.c_str());
  }
  return kExitOk;
}

int RunDelete(const GraphFlags& flags, const std::string& name) {
  if (auto rc = RemoteBranchDelete(flags, name)) return *rc;
  auto g = OpenGraph(flags, /*writable=*/true);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  EchoWriteTarget("branch delete", flags);
  auto e = (*g)->DeleteBranch(name);
  if (!e.ok()) return ReportError(e.status(), flags.json);
  if (flags.json) {
    OrderedJson j = OrderedJson::object();
    j["uri"] = (*g)->uri();
    j["name"] = name;
    j["actor_id"] = OrderedJson(ActorJson(**g));
    PrintJson(j);
  } else {
    std::printf("deleted branch %s\n", name.c_str());
  }
  return kExitOk;
}

struct MergeFlags {
  std::string source;
  MergeOptions options;
};

// A merge with conflicts published nothing: exit as `merge_conflict`, listing every conflict.
int ReportConflicts(const MergeFlags& m, const MergeResult& r, bool json) {
  Status s = MergeConflictStatus(m.source, m.options.target, r.conflicts);
  if (json) return ReportError(s, json);
  std::fprintf(stderr, "error[merge_conflict]: %s\n", s.message().c_str());
  for (const auto& c : r.conflicts) {
    std::fprintf(stderr, "  %s %s %s %s: %s\n", c.kind.c_str(), std::string(EntityKindName(c.entity_kind)).c_str(),
                 c.type_name.c_str(), c.entity_id.c_str(), c.message.c_str());
  }
  return kExitError;
}

int RunMerge(const GraphFlags& flags, const MergeFlags& m) {
  if (auto rc = RemoteBranchMerge(flags, m.source, m.options.target, m.options.delete_source)) return *rc;
  auto g = OpenGraph(flags, /*writable=*/true);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  EchoWriteTarget("branch merge", flags);
  auto r = (*g)->Merge(m.source, m.options);
  if (!r.ok()) return ReportError(r.status(), flags.json);
  if (r->outcome == MergeOutcome::kConflicts) return ReportConflicts(m, *r, flags.json);
  const std::string& target = m.options.target;
  if (r->branch_delete_error) {
    std::fprintf(stderr, "warning: merged, but could not delete branch '%s': %s\n", m.source.c_str(),
                 r->branch_delete_error->c_str());
  }
  if (flags.json) {  // the Rust CLI's shape, then our commit and version
    OrderedJson j = OrderedJson::object();
    j["source"] = m.source;
    j["target"] = target;
    j["outcome"] = std::string(MergeOutcomeName(r->outcome));
    j["actor_id"] = OrderedJson(ActorJson(**g));
    if (m.options.delete_source) j["branch_deleted"] = r->branch_deleted;
    if (r->branch_delete_error) j["branch_delete_error"] = *r->branch_delete_error;
    j["commit"] = r->commit_id;
    j["version"] = r->version;
    PrintJson(j);
  } else {
    std::printf("merged %s into %s: %s\n", m.source.c_str(), target.c_str(),
                std::string(MergeOutcomeName(r->outcome)).c_str());
    if (r->branch_deleted) std::printf("deleted branch %s\n", m.source.c_str());
  }
  return kExitOk;
}

}  // namespace

void AddBranchCommands(CLI::App& app, CommandAction* run) {
  auto* branch = app.add_subcommand("branch", "Create, list, delete and merge branches");
  branch->require_subcommand(1);
  {
    auto* cmd = branch->add_subcommand("create", "Create a branch at the head of another (one ref entry)");
    auto flags = std::make_shared<GraphFlags>();
    auto name = std::make_shared<std::string>();
    auto from = std::make_shared<std::string>("main");
    cmd->add_option("name", *name, "New branch name")->required();
    cmd->add_option("--from", *from, "Source branch (default main)");
    AddGraphFlags(cmd, flags.get(), /*positional=*/true, /*uri_flag=*/true);
    cmd->callback([=] { *run = [=] { return RunCreate(*flags, *name, *from); }; });
  }
  {
    auto* cmd = branch->add_subcommand("list", "Live branches, sorted");
    auto flags = std::make_shared<GraphFlags>();
    AddGraphFlags(cmd, flags.get(), /*positional=*/true, /*uri_flag=*/true);
    cmd->callback([=] { *run = [=] { return RunList(*flags); }; });
  }
  {
    auto* cmd = branch->add_subcommand("delete", "Delete a branch (a tombstone ref entry)");
    auto flags = std::make_shared<GraphFlags>();
    auto name = std::make_shared<std::string>();
    cmd->add_option("name", *name, "Branch name")->required();
    AddGraphFlags(cmd, flags.get(), /*positional=*/true, /*uri_flag=*/true);
    cmd->callback([=] { *run = [=] { return RunDelete(*flags, *name); }; });
  }
  {
    auto* cmd = branch->add_subcommand("merge", "Three-way merge of SOURCE into a target branch");
    auto flags = std::make_shared<GraphFlags>();
    auto o = std::make_shared<MergeFlags>();
    cmd->add_option("source", o->source, "Branch to merge")->required();
    cmd->add_option("--into", o->options.target, "Target branch (default main)");
    cmd->add_flag("--delete-branch", o->options.delete_source, "Delete the source branch after a successful merge");
    AddGraphFlags(cmd, flags.get(), /*positional=*/true, /*uri_flag=*/true);
    cmd->callback([=] { *run = [=] { return RunMerge(*flags, *o); }; });
  }
}

}  // namespace omnigraph::cli
