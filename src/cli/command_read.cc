// Read-only graph commands: `export`, `snapshot`, `commit list`, `commit show`.
#include <cstdio>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "common/clock.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "engine/exporter.h"

namespace omnigraph::cli {
namespace {

Json CommitJson(const engine::Commit& c, std::optional<uint64_t> version) {
  Json j = {{"graph_commit_id", c.id},
            {"graph_branch", c.branch},
            {"parent_commit_id", c.parents.empty() ? Json(nullptr) : Json(c.parents[0])},
            {"merged_parent_commit_id", c.parents.size() > 1 ? Json(c.parents[1]) : Json(nullptr)},
            {"actor_id", c.actor ? Json(*c.actor) : Json(nullptr)},
            {"created_at", c.timestamp_us},
            {"operation", c.operation},
            {"schema_id", c.schema_id}};
  j["graph_manifest_version"] = version ? Json(*version) : Json(nullptr);
  return j;
}

std::string SummaryText(const engine::Commit& c) {
  std::string out;
  for (const auto& [name, n] : c.summary) {
    if (!out.empty()) out += ", ";
    out += name + " +" + std::to_string(n.inserted);
    if (n.updated) out += " ~" + std::to_string(n.updated);
    if (n.deleted) out += " -" + std::to_string(n.deleted);
  }
  return out;
}

int RunExport(const GraphFlags& flags, const std::string& branch, const std::vector<std::string>& types) {
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), false);
  auto snap = (*g)->Head(branch);
  if (!snap.ok()) return ReportError(snap.status(), false);
  Status s = engine::ExportNdjson(*snap, types, [](std::string_view line) -> Status {
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
    return std::ferror(stdout) ? IoError("writing to stdout failed") : Status::Ok();
  });
  return ReportError(s, false);
}

int RunSnapshot(const GraphFlags& flags, const std::string& branch) {
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto snap = (*g)->Head(branch);
  if (!snap.ok()) return ReportError(snap.status(), flags.json);
  auto counts = snap->RowCounts();
  if (!counts.ok()) return ReportError(counts.status(), flags.json);
  const engine::Commit& c = snap->commit();
  if (flags.json) {
    Json types = Json::array();
    for (const auto& [name, ref] : c.tables) {
      types.push_back({{"type_name", name}, {"entity_kind", std::string(engine::EntityKindName(ref.kind))},
                       {"table_id", ref.table_id}, {"table_version", ref.version_id},
                       {"entity_count", counts->at(name)}});
    }
    Json j = {{"graph_branch", branch}, {"graph_manifest_version", snap->seq()},
              {"graph_commit_id", c.id}, {"schema_id", c.schema_id}, {"datasets", types},
              {"snapshot_id", engine::Graph::SnapshotId(*snap)}};
    std::printf("%s\n", CanonicalJson(j).c_str());
  } else {
    std::printf("branch %s, version %llu, commit %s\nsnapshot %s\nschema %s\n", branch.c_str(),
                static_cast<unsigned long long>(snap->seq()), c.id.c_str(),
                engine::Graph::SnapshotId(*snap).c_str(), c.schema_id.c_str());
    for (const auto& [name, ref] : c.tables) {
      std::printf("  %-24s %s %10llu\n", name.c_str(), std::string(engine::EntityKindName(ref.kind)).c_str(),
                  static_cast<unsigned long long>(counts->at(name)));
    }
  }
  return kExitOk;
}

int RunCommitList(const GraphFlags& flags, const std::string& branch) {
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  // The branch's ref moves (fast-forwards included), then inherited commits (docs/decisions.md).
  auto log = (*g)->BranchHistory(branch);
  if (!log.ok()) return ReportError(log.status(), flags.json);
  auto version = [](const engine::HistoryStep& s) {
    return s.seq > 0 ? std::optional<uint64_t>(s.seq) : std::nullopt;
  };
  if (flags.json) {
    Json arr = Json::array();
    for (const auto& s : *log) arr.push_back(CommitJson(*s.commit, version(s)));
    std::printf("%s\n", CanonicalJson(Json{{"commits", arr}}).c_str());
  } else {
    for (const auto& s : *log) {
      const engine::Commit& c = *s.commit;
      auto v = version(s);
      std::printf("%s  v%-4s %s  %-14s %s%s\n", c.id.c_str(), v ? std::to_string(*v).c_str() : "-",
                  FormatMicrosIso(c.timestamp_us).c_str(), c.operation.c_str(),
                  c.actor ? ("by " + *c.actor + "  ").c_str() : "", SummaryText(c).c_str());
    }
  }
  return kExitOk;
}

int RunCommitShow(const GraphFlags& flags, const std::string& id) {
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto c = (*g)->LoadCommit(id);
  if (!c.ok()) return ReportError(c.status(), flags.json);
  if (flags.json) {
    std::printf("%s\n", CanonicalJson((*c)->ToJson()).c_str());
  } else {
    const engine::Commit& k = **c;
    std::printf("commit %s\nbranch %s\noperation %s\ncreated %s\n", k.id.c_str(), k.branch.c_str(),
                k.operation.c_str(), FormatMicrosIso(k.timestamp_us).c_str());
    if (k.actor) std::printf("actor %s\n", k.actor->c_str());
    for (const auto& p : k.parents) std::printf("parent %s\n", p.c_str());
    std::printf("schema %s\n", k.schema_id.c_str());
    for (const auto& [name, n] : k.summary) {
      std::printf("  %-24s +%llu ~%llu -%llu\n", name.c_str(), static_cast<unsigned long long>(n.inserted),
                  static_cast<unsigned long long>(n.updated), static_cast<unsigned long long>(n.deleted));
    }
  }
  return kExitOk;
}

}  // namespace

void AddReadCommands(CLI::App& app, CommandAction* run) {
  {
    auto* cmd = app.add_subcommand("export", "Print a branch as NDJSON (load --mode overwrite reproduces it)");
    auto flags = std::make_shared<GraphFlags>();
    auto branch = std::make_shared<std::string>("main");
    auto types = std::make_shared<std::vector<std::string>>();
    cmd->add_option("--branch", *branch, "Branch (default main)");
    cmd->add_option("--type", *types, "Only this node or edge type (repeatable)");
    AddGraphFlags(cmd, flags.get(), true);
    cmd->callback([=] { *run = [=] { return RunExport(*flags, *branch, *types); }; });
  }
  {
    auto* cmd = app.add_subcommand("snapshot", "Print the head of a branch: version, commit, row counts");
    auto flags = std::make_shared<GraphFlags>();
    auto branch = std::make_shared<std::string>("main");
    cmd->add_option("--branch", *branch, "Branch (default main)");
    AddGraphFlags(cmd, flags.get(), true);
    cmd->callback([=] { *run = [=] { return RunSnapshot(*flags, *branch); }; });
  }
  {
    auto* commit = app.add_subcommand("commit", "Commit history");
    commit->require_subcommand(1);
    auto* list = commit->add_subcommand("list", "Commits of a branch, newest first");
    auto flags = std::make_shared<GraphFlags>();
    auto branch = std::make_shared<std::string>("main");
    list->add_option("--branch", *branch, "Branch (default main)");
    AddGraphFlags(list, flags.get(), true);
    list->callback([=] { *run = [=] { return RunCommitList(*flags, *branch); }; });
    auto* show = commit->add_subcommand("show", "One commit");
    auto sflags = std::make_shared<GraphFlags>();
    auto id = std::make_shared<std::string>();
    show->add_option("id", *id, "Commit id")->required();
    AddGraphFlags(show, sflags.get(), false);
    show->callback([=] { *run = [=] { return RunCommitShow(*sflags, *id); }; });
    AddCommitChangesCommand(commit, run);
  }
}

}  // namespace omnigraph::cli
