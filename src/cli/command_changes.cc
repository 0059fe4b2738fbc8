// Change listing: `commit changes ID`, `changes poll`, `diff FROM TO` (docs/cli.md), on the public
// API's CommitChanges, PollChanges and Diff.
#include <cstdio>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/output_json.h"

namespace omnigraph::cli {
namespace {

struct FilterFlags {
  std::string kind, op;
  std::vector<std::string> types;
  Result<ChangeFilter> Build() const {
    ChangeFilter f;
    if (!kind.empty()) {
      OG_ASSIGN_OR_RETURN(f.kind, ParseEntityKind(kind));
    }
    if (!op.empty()) {
      OG_ASSIGN_OR_RETURN(f.op, ParseChangeOp(op));
    }
    f.types = types;
    return f;
  }
};

void AddFilterFlags(CLI::App* cmd, FilterFlags* f) {
  cmd->add_option("--kind", f->kind, "Only node or edge changes");
  cmd->add_option("--type", f->types, "Only this type (repeatable)");
  cmd->add_option("--op", f->op, "Only insert, update or delete");
}

void PrintChangesText(const std::vector<EntityChange>& changes) {
  for (const auto& c : changes) {
    Json j = ChangeToJson(c);
    std::string images;
    if (j.contains("before")) images += " before=" + CanonicalJson(j["before"]);
    if (j.contains("after")) images += " after=" + CanonicalJson(j["after"]);
    std::printf("  %-6s %s %s %s%s\n", std::string(ChangeOpName(c.op)).c_str(),
                std::string(EntityKindName(c.kind)).c_str(), c.type_name.c_str(), c.id.c_str(), images.c_str());
  }
}

Json ChangesJson(const std::vector<EntityChange>& changes) {
  Json a = Json::array();
  for (const auto& c : changes) a.push_back(ChangeToJson(c));
  return a;
}

int RunCommitChanges(const GraphFlags& flags, const std::string& id, const FilterFlags& ff) {
  auto filter = ff.Build();
  if (!filter.ok()) return ReportError(AsUsageError(filter.status()), flags.json);
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto block = (*g)->CommitChanges(id, *filter);
  if (!block.ok()) return ReportError(block.status(), flags.json);
  if (flags.json) {
    std::printf(
        "%s\n",
        CanonicalJson(Json{{"cause", CauseJson(block->commit)}, {"changes", ChangesJson(block->changes)}}).c_str());
  } else {
    std::printf("commit %s (%s), %zu change(s)\n", id.c_str(), block->commit.operation.c_str(), block->changes.size());
    PrintChangesText(block->changes);
  }
  return kExitOk;
}

int RunPoll(const GraphFlags& flags, ChangePollRequest o, const std::string& cursor, const FilterFlags& ff) {
  auto filter = ff.Build();
  if (!filter.ok()) return ReportError(AsUsageError(filter.status()), flags.json);
  if (o.max_commits == 0) return ReportError(UsageError("--limit must be at least 1"), flags.json);
  o.filter = *filter;
  if (!cursor.empty()) o.cursor = cursor;
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto r = (*g)->PollChanges(o);
  if (!r.ok()) return ReportError(r.status(), flags.json);
  if (flags.json) {
    Json blocks = Json::array();
    for (const auto& b : r->blocks) {
      blocks.push_back({{"cause", CauseJson(b.commit)},
                        {"from_commit_id", b.from_commit_id},
                        {"version", b.commit.version ? Json(*b.commit.version) : Json(nullptr)},
                        {"changes", ChangesJson(b.changes)}});
    }
    std::printf("%s\n",
                CanonicalJson(Json{{"blocks", blocks}, {"cursor", r->cursor}, {"caught_up", r->caught_up}}).c_str());
  } else {
    for (const auto& b : r->blocks) {
      std::printf("commit %s (%s", b.commit.id.c_str(), b.commit.operation.c_str());
      if (b.commit.version) std::printf(", version %llu", static_cast<unsigned long long>(*b.commit.version));
      if (b.commit.parents.empty() || b.commit.parents.front() != b.from_commit_id) {
        std::printf(", changes since %s", b.from_commit_id.c_str());
      }
      std::printf("), %zu change(s)\n", b.changes.size());
      PrintChangesText(b.changes);
    }
    std::printf("cursor %s%s\n", r->cursor.c_str(), r->caught_up ? "" : " (more to come: poll again)");
  }
  return kExitOk;
}

// FROM and TO: a snapshot id, a commit id, or a branch name (its head).
int RunDiff(const GraphFlags& flags, const std::string& from, const std::string& to, const FilterFlags& ff) {
  auto filter = ff.Build();
  if (!filter.ok()) return ReportError(AsUsageError(filter.status()), flags.json);
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto d = (*g)->Diff(ReadTarget::Any(from), ReadTarget::Any(to), *filter);
  if (!d.ok()) return ReportError(d.status(), flags.json);
  if (flags.json) {
    std::printf("%s\n", CanonicalJson(Json{{"from_commit_id", d->from_commit_id},
                                           {"to_commit_id", d->to_commit_id},
                                           {"changes", ChangesJson(d->changes)}})
                            .c_str());
  } else {
    std::printf("%s -> %s, %zu change(s)\n", d->from_commit_id.c_str(), d->to_commit_id.c_str(), d->changes.size());
    PrintChangesText(d->changes);
  }
  return kExitOk;
}

}  // namespace

void AddCommitChangesCommand(CLI::App* commit, CommandAction* run) {
  auto* cmd = commit->add_subcommand("changes", "The entity changes of one commit against its first parent");
  auto flags = std::make_shared<GraphFlags>();
  auto id = std::make_shared<std::string>();
  auto ff = std::make_shared<FilterFlags>();
  cmd->add_option("id", *id, "Commit id")->required();
  AddFilterFlags(cmd, ff.get());
  AddGraphFlags(cmd, flags.get(), /*positional=*/true, /*uri_flag=*/true);
  cmd->callback([=] { *run = [=] { return RunCommitChanges(*flags, *id, *ff); }; });
}

void AddChangesCommands(CLI::App& app, CommandAction* run) {
  {
    auto* changes = app.add_subcommand("changes", "The change feed of a branch");
    changes->require_subcommand(1);
    auto* cmd = changes->add_subcommand("poll", "Changes since a cursor or start point, in blocks per commit");
    auto flags = std::make_shared<GraphFlags>();
    auto o = std::make_shared<ChangePollRequest>();
    auto cursor = std::make_shared<std::string>();
    auto ff = std::make_shared<FilterFlags>();
    cmd->add_option("--branch", o->branch, "Branch (default main)");
    auto* start = cmd->add_option("--start", o->start, "now (default) | beginning | after:<commit id>");
    cmd->add_option("--cursor", *cursor, "Resume after an earlier poll")->excludes(start);
    cmd->add_option("--limit", o->max_commits, "Commits per poll (default 100)");
    AddFilterFlags(cmd, ff.get());
    AddGraphFlags(cmd, flags.get(), /*positional=*/false, /*uri_flag=*/true);
    cmd->callback([=] { *run = [=] { return RunPoll(*flags, *o, *cursor, *ff); }; });
  }
  {
    auto* cmd = app.add_subcommand("diff", "Entity changes between two snapshots (ids, commits or branches)");
    auto flags = std::make_shared<GraphFlags>();
    auto from = std::make_shared<std::string>();
    auto to = std::make_shared<std::string>();
    auto ff = std::make_shared<FilterFlags>();
    cmd->add_option("from", *from, "Snapshot id, commit id or branch")->required();
    cmd->add_option("to", *to, "Snapshot id, commit id or branch")->required();
    AddFilterFlags(cmd, ff.get());
    AddGraphFlags(cmd, flags.get(), /*positional=*/true);
    cmd->callback([=] { *run = [=] { return RunDiff(*flags, *from, *to, *ff); }; });
  }
}

}  // namespace omnigraph::cli
