// `omnigraph check [URI] [--references-only] [--json]`: the integrity check (Database::Check).
// Exit 0 when every reachable object is intact, 1 (`check_failed`) with the list of problems
// otherwise. (`omnigraph check --query F` is the Rust CLI's deprecated spelling of `lint`; main.cc
// rewrites it before this command sees it.)
#include <cstdio>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "common/clock.h"
#include "common/error_codes.h"
#include "common/json.h"

namespace omnigraph::cli {
namespace {

int RunCheck(const GraphFlags& flags, bool references_only) {
  // A damaged graph (even one whose main ref log is gone) still opens for inspection.
  auto uri = flags.Uri();
  if (!uri.ok()) return ReportError(uri.status(), flags.json);
  OpenOptions o;
  o.inspect = true;
  auto g = Database::Open(*uri, o);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  const int64_t start = MonotonicNanos();
  auto r = (*g)->Check(!references_only);
  if (!r.ok()) return ReportError(r.status(), flags.json);
  const double secs = static_cast<double>(MonotonicNanos() - start) / 1e9;
  const Status failed =
      r->ok() ? Status::Ok()
              : Status(ErrorCode::kCheckFailed, std::to_string(r->problems_total) + " damaged or missing objects");
  if (flags.json) {
    OrderedJson problems = OrderedJson::array();
    for (const auto& p : r->problems) {
      problems.push_back(OrderedJson{{"code", p.code}, {"object", p.object}, {"message", p.message}});
    }
    OrderedJson j;
    j["uri"] = (*g)->uri();
    j["ok"] = r->ok();
    j["verified_data"] = !references_only;
    j["branches"] = r->branches;
    j["ref_entries"] = r->ref_entries;
    j["commits"] = r->commits;
    j["reclaimed_commits"] = r->reclaimed_commits;
    j["manifests"] = r->manifests;
    j["fragments"] = r->fragments;
    j["deletion_vectors"] = r->deletion_vectors;
    j["blob_files"] = r->blob_files;
    j["index_objects"] = r->index_objects;
    j["bytes_verified"] = r->bytes_verified;
    j["problems_total"] = r->problems_total;
    j["problems"] = std::move(problems);
    PrintJson(j);
    return failed.ok() ? kExitOk : ExitCodeFor(failed);
  }
  std::printf(
      "check %s: %llu branches, %llu ref entries, %llu commits (%llu reclaimed by cleanup), %llu manifests, "
      "%llu fragments, %llu deletion vectors, %llu blob files, %llu index objects; %llu bytes verified in %.2fs\n",
      (*g)->uri().c_str(), static_cast<unsigned long long>(r->branches),
      static_cast<unsigned long long>(r->ref_entries), static_cast<unsigned long long>(r->commits),
      static_cast<unsigned long long>(r->reclaimed_commits), static_cast<unsigned long long>(r->manifests),
      static_cast<unsigned long long>(r->fragments), static_cast<unsigned long long>(r->deletion_vectors),
      static_cast<unsigned long long>(r->blob_files), static_cast<unsigned long long>(r->index_objects),
      static_cast<unsigned long long>(r->bytes_verified), secs);
  for (const auto& p : r->problems) {
    std::printf("  [%s] %s: %s\n", p.code.c_str(), p.object.c_str(), p.message.c_str());
  }
  if (failed.ok()) {
    std::printf("ok\n");
    return kExitOk;
  }
  return ReportError(failed, false);
}

}  // namespace

void AddCheckCommand(CLI::App& app, CommandAction* run) {
  auto* cmd = app.add_subcommand(
      "check", "Verify every reachable object of a graph (checksums, references); exit 1 on any problem");
  auto flags = std::make_shared<GraphFlags>();
  auto references_only = std::make_shared<bool>(false);
  cmd->add_flag("--references-only", *references_only, "Check that objects exist without reading data files");
  AddGraphFlags(cmd, flags.get(), true);
  cmd->callback([=] { *run = [=] { return RunCheck(*flags, *references_only); }; });
}

}  // namespace omnigraph::cli
