// Read-only graph commands: `export`, `snapshot`, `commit list`, `commit show`.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "cli/remote_commands.h"
#include "common/api_json.h"
#include "common/clock.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/output_json.h"

namespace omnigraph::cli {
namespace {

std::string SummaryText(const CommitInfo& c) {
  std::string out;
  for (const auto& [name, n] : c.summary) {
    if (!out.empty()) out += ", ";
    out += name + " +" + std::to_string(n.inserted);
    if (n.updated) out += " ~" + std::to_string(n.updated);
    if (n.deleted) out += " -" + std::to_string(n.deleted);
  }
  return out;
}

using FilePtr = std::unique_ptr<FILE, int (*)(FILE*)>;

Status WriteLine(FILE* f, std::string_view line, const std::string& what) {
  errno = 0;
  if (std::fwrite(line.data(), 1, line.size(), f) != line.size() || std::fputc('\n', f) == EOF) {
    return ErrnoError("writing " + what, errno != 0 ? errno : EIO);
  }
  return Status::Ok();
}

// `export --out FILE`: the lines go to a temp file in FILE's folder, renamed to FILE once every
// line is written, so FILE is the whole export or untouched.
Status ExportToFile(Database& db, const ReadTarget& at, const std::vector<std::string>& types,
                    const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string tmp = dir + "." + base + ".og-tmp-" + std::to_string(::getpid());
  FilePtr f(std::fopen(tmp.c_str(), "wbx"), &std::fclose);
  if (f == nullptr) return ErrnoError("cannot create '" + tmp + "' for the export", errno);
  Status s = db.Export([&](std::string_view line) { return WriteLine(f.get(), line, "'" + tmp + "'"); }, at, types);
  errno = 0;
  if (std::fclose(f.release()) != 0 && s.ok()) s = ErrnoError("writing '" + tmp + "'", errno != 0 ? errno : EIO);
  if (s.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) s = ErrnoError("cannot write '" + path + "'", errno);
  if (!s.ok()) std::remove(tmp.c_str());
  return s;
}

// `export` to stdout: the lines are first written to an anonymous temp file and copied out only
// once every table was read, so a corrupt or unreadable table fails before any line is printed.
Status ExportToStdout(Database& db, const ReadTarget& at, const std::vector<std::string>& types) {
  FilePtr spill(std::tmpfile(), &std::fclose);
  if (spill == nullptr) {
    return ErrnoError("cannot create a temporary file for the export (set TMPDIR, or use --out FILE)", errno);
  }
  const std::string what = "the export's temporary file (set TMPDIR, or use --out FILE)";
  OG_RETURN_IF_ERROR(db.Export([&](std::string_view line) { return WriteLine(spill.get(), line, what); }, at, types));
  if (std::fflush(spill.get()) != 0) return ErrnoError("writing " + what, errno);
  std::rewind(spill.get());
  char buf[1 << 16];
  for (;;) {
    const size_t n = std::fread(buf, 1, sizeof(buf), spill.get());
    if (n > 0 && std::fwrite(buf, 1, n, stdout) != n)
      return ErrnoError("writing standard output", errno != 0 ? errno : EIO);
    if (n < sizeof(buf)) break;
  }
  if (std::ferror(spill.get())) return ErrnoError("reading " + what, errno != 0 ? errno : EIO);
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    return ErrnoError("writing standard output", errno != 0 ? errno : EIO);
  return Status::Ok();
}

int RunExport(const GraphFlags& flags, const std::string& branch, const std::vector<std::string>& types,
              const std::string& out) {
  if (auto rc = RemoteExport(flags, branch, types, out)) return *rc;
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), false);
  const ReadTarget at = ReadTarget::Head(branch);  // resolved once per export: one commit
  return ReportError(out.empty() ? ExportToStdout(**g, at, types) : ExportToFile(**g, at, types, out), false);
}

int RunSnapshot(const GraphFlags& flags, const std::string& branch) {
  if (auto rc = RemoteSnapshot(flags, branch)) return *rc;
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto snap = (*g)->Snapshot(ReadTarget::Head(branch));
  if (!snap.ok()) return ReportError(snap.status(), flags.json);
  if (flags.json) {
    PrintJson(SnapshotOutputJson(branch, *snap));
  } else {
    std::printf("branch %s, version %llu, commit %s\nsnapshot %s\nschema %s\n", branch.c_str(),
                static_cast<unsigned long long>(snap->version), snap->commit_id.c_str(), snap->snapshot_id.c_str(),
                snap->schema_id.c_str());
    for (const auto& t : snap->types) {
      std::printf("  %-24s %s %10llu\n", t.name.c_str(), t.is_edge ? "edge" : "node",
                  static_cast<unsigned long long>(t.rows));
    }
  }
  return kExitOk;
}

int RunCommitList(const GraphFlags& flags, const std::string& branch) {
  if (auto rc = RemoteCommitList(flags, branch)) return *rc;
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  // The branch's ref moves (fast-forwards included), then inherited commits (docs/decisions.md).
  auto log = (*g)->Commits(branch);
  if (!log.ok()) return ReportError(log.status(), flags.json);
  if (flags.json) {
    OrderedJson arr = OrderedJson::array();
    for (const auto& c : *log) arr.push_back(CommitOutputJson(c));
    PrintJson(OrderedJson{{"commits", arr}});
  } else {
    for (const auto& c : *log) {
      std::printf("%s  v%-4s %s  %-14s %s%s\n", c.id.c_str(), c.version ? std::to_string(*c.version).c_str() : "-",
                  FormatMicrosIso(c.timestamp_us).c_str(), c.operation.c_str(),
                  c.actor ? ("by " + *c.actor + "  ").c_str() : "", SummaryText(c).c_str());
    }
  }
  return kExitOk;
}

int RunCommitShow(const GraphFlags& flags, const std::string& id) {
  if (auto rc = RemoteCommitShow(flags, id)) return *rc;
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto c = (*g)->GetCommit(id);
  if (!c.ok()) return ReportError(c.status(), flags.json);
  if (flags.json) {
    PrintJson(CommitOutputJson(*c));
  } else {
    const CommitInfo& k = *c;
    std::printf("commit %s\nbranch %s\noperation %s\ncreated %s\n", k.id.c_str(), k.branch.c_str(), k.operation.c_str(),
                FormatMicrosIso(k.timestamp_us).c_str());
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
    auto out = std::make_shared<std::string>();
    cmd->add_option("--out", *out, "Write to this file (whole or not at all) instead of stdout");
    AddGraphFlags(cmd, flags.get(), true);
    auto jsonl = std::make_shared<bool>(false);
    cmd->add_flag("--jsonl", *jsonl, "Deprecated, no effect: export always writes JSONL")->group("");
    cmd->callback([=] {
      *run = [=] {
        if (*jsonl) std::fprintf(stderr, "warning: --jsonl is deprecated; `omnigraph export` always emits JSONL\n");
        return RunExport(*flags, *branch, *types, *out);
      };
    });
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
    AddGraphFlags(show, sflags.get(), /*positional=*/false, /*uri_flag=*/true);
    show->callback([=] { *run = [=] { return RunCommitShow(*sflags, *id); }; });
    AddCommitChangesCommand(commit, run);
  }
}

}  // namespace omnigraph::cli
