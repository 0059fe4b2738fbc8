// `omnigraph branch create|list|delete|merge` (docs/cli.md; ARCHITECTURE.md §4, §7).
#include <cstdio>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "engine/merge/merge.h"

namespace omnigraph::cli {
namespace {

Json ActorJson(const engine::Graph& g) {
  return g.options().actor ? Json(*g.options().actor) : Json(nullptr);
}

int RunCreate(const GraphFlags& flags, const std::string& name, const std::string& from) {
  auto g = OpenGraph(flags, /*writable=*/true);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto e = (*g)->CreateBranch(name, from);
  if (!e.ok()) return ReportError(e.status(), flags.json);
  if (flags.json) {
    std::printf("%s\n", CanonicalJson(Json{{"uri", (*g)->store().Describe()}, {"name", name}, {"from", from},
                                           {"commit", e->commit_id}, {"actor_id", ActorJson(**g)}})
                            .c_str());
  } else {
    std::printf("created branch %s from %s at commit %s\n", name.c_str(), from.c_str(), e->commit_id.c_str());
  }
  return kExitOk;
}

int RunList(const GraphFlags& flags) {
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto names = (*g)->Branches();
  if (!names.ok()) return ReportError(names.status(), flags.json);
  if (flags.json) {
    std::printf("%s\n", CanonicalJson(Json{{"branches", *names}}).c_str());
  } else {
    for (const auto& n : *names) std::printf("%s\n", n.c_str());
  }
  return kExitOk;
}

int RunDelete(const GraphFlags& flags, const std::string& name) {
  auto g = OpenGraph(flags, /*writable=*/true);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto e = (*g)->DeleteBranch(name);
  if (!e.ok()) return ReportError(e.status(), flags.json);
  if (flags.json) {
    std::printf("%s\n", CanonicalJson(Json{{"uri", (*g)->store().Describe()}, {"name", name},
                                           {"actor_id", ActorJson(**g)}})
                            .c_str());
  } else {
    std::printf("deleted branch %s\n", name.c_str());
  }
  return kExitOk;
}

int RunMerge(const GraphFlags& flags, const engine::MergeOptions& o) {
  auto g = OpenGraph(flags, /*writable=*/true);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto r = engine::MergeBranches(**g, o);
  if (!r.ok()) {
    if (!flags.json && r.status().code() == ErrorCode::kMergeConflict) {
      std::fprintf(stderr, "error[merge_conflict]: %s\n", r.status().message().c_str());
      auto d = ParseJson(r.status().details(), "merge conflicts");
      if (d.ok() && d->contains("merge_conflicts")) {
        for (const auto& c : (*d)["merge_conflicts"]) {
          std::fprintf(stderr, "  %s %s %s %s: %s\n", c["kind"].get<std::string>().c_str(),
                       c["entity_kind"].get<std::string>().c_str(), c["type_name"].get<std::string>().c_str(),
                       c["entity_id"].get<std::string>().c_str(), c["message"].get<std::string>().c_str());
        }
      }
      return kExitError;
    }
    return ReportError(r.status(), flags.json);
  }
  if (flags.json) {
    Json j = {{"source", o.source}, {"target", o.target},
              {"outcome", std::string(engine::MergeOutcomeName(r->outcome))},
              {"commit", r->commit_id}, {"version", r->seq}, {"actor_id", ActorJson(**g)}};
    if (o.delete_source) j["branch_deleted"] = r->branch_deleted;
    if (r->branch_delete_error) j["branch_delete_error"] = *r->branch_delete_error;
    std::printf("%s\n", CanonicalJson(j).c_str());
  } else {
    std::printf("%s: %s into %s, commit %s (version %llu)\n", std::string(engine::MergeOutcomeName(r->outcome)).c_str(),
                o.source.c_str(), o.target.c_str(), r->commit_id.c_str(), static_cast<unsigned long long>(r->seq));
    for (const auto& [name, n] : r->summary) {
      std::printf("  %-24s +%llu ~%llu -%llu\n", name.c_str(), static_cast<unsigned long long>(n.inserted),
                  static_cast<unsigned long long>(n.updated), static_cast<unsigned long long>(n.deleted));
    }
    if (r->branch_deleted) std::printf("deleted branch %s\n", o.source.c_str());
    if (r->branch_delete_error) std::fprintf(stderr, "warning: could not delete %s: %s\n", o.source.c_str(), r->branch_delete_error->c_str());
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
    AddGraphFlags(cmd, flags.get(), /*positional=*/true);
    cmd->add_option("--uri", flags->store_uri, "Graph URI (same as --store)");
    cmd->callback([=] { *run = [=] { return RunCreate(*flags, *name, *from); }; });
  }
  {
    auto* cmd = branch->add_subcommand("list", "Live branches, sorted");
    auto flags = std::make_shared<GraphFlags>();
    AddGraphFlags(cmd, flags.get(), /*positional=*/true);
    cmd->callback([=] { *run = [=] { return RunList(*flags); }; });
  }
  {
    auto* cmd = branch->add_subcommand("delete", "Delete a branch (a tombstone ref entry)");
    auto flags = std::make_shared<GraphFlags>();
    auto name = std::make_shared<std::string>();
    cmd->add_option("name", *name, "Branch name")->required();
    AddGraphFlags(cmd, flags.get(), /*positional=*/true);
    cmd->add_option("--uri", flags->store_uri, "Graph URI (same as --store)");
    cmd->callback([=] { *run = [=] { return RunDelete(*flags, *name); }; });
  }
  {
    auto* cmd = branch->add_subcommand("merge", "Three-way merge of SOURCE into a target branch");
    auto flags = std::make_shared<GraphFlags>();
    auto o = std::make_shared<engine::MergeOptions>();
    cmd->add_option("source", o->source, "Branch to merge")->required();
    cmd->add_option("--into", o->target, "Target branch (default main)");
    cmd->add_flag("--delete-branch", o->delete_source, "Delete the source branch after a successful merge");
    AddGraphFlags(cmd, flags.get(), /*positional=*/true);
    cmd->add_option("--uri", flags->store_uri, "Graph URI (same as --store)");
    cmd->callback([=] { *run = [=] { return RunMerge(*flags, *o); }; });
  }
}

}  // namespace omnigraph::cli
