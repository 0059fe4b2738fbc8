// `omnigraph cleanup [URI] [--keep N] [--older-than DUR] [--grace DUR] [--confirm] [--json]`:
// garbage collection (Database::Cleanup). Without --confirm it deletes nothing and previews what
// would go; the Rust CLI's refusal line goes to stderr either way.
#include <cstdio>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "common/json.h"

namespace omnigraph::cli {
namespace {

constexpr int64_t kSecondUs = 1000000;

struct CleanupFlags {
  std::optional<uint64_t> keep;
  std::string older_than;
  std::string grace = "1h";
  bool confirm = false;
};

// "90", "90s", "15m", "2h", "7d", "1w" (the Rust CLI's units) -> microseconds.
Result<int64_t> ParseDuration(std::string_view flag, std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const std::string_view unit = text.substr(digits);
  int64_t scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  if (unit == "m") scale = 60;
  if (unit == "h") scale = 3600;
  if (unit == "d") scale = 86400;
  if (unit == "w") scale = 7 * 86400;
  if (digits == 0 || digits > 9 || scale == 0) {
    return UsageError(std::string(flag) + " '" + std::string(text) +
                      "' is not a duration: a whole number with an optional unit s, m, h, d or w");
  }
  return std::stoll(std::string(text.substr(0, digits))) * scale * kSecondUs;
}

std::string Policy(const CleanupFlags& f, std::optional<int64_t> older_than_us) {
  std::string older = older_than_us ? std::to_string(*older_than_us / kSecondUs) + "s" : "";
  if (f.keep && older_than_us) {
    return "keep " + std::to_string(*f.keep) + " versions, remove anything older than " + older;
  }
  if (f.keep) return "keep " + std::to_string(*f.keep) + " versions";
  return "remove anything older than " + older;
}

std::string TypeKey(const CleanupSummary::Table& t) { return std::string(EntityKindName(t.kind)) + ":" + t.type_name; }

int RunCleanup(const GraphFlags& flags, const CleanupFlags& f) {
  std::optional<int64_t> older_than_us;
  if (!f.older_than.empty()) {
    auto d = ParseDuration("--older-than", f.older_than);
    if (!d.ok()) return ReportError(d.status(), flags.json);
    older_than_us = *d;
  }
  auto grace = ParseDuration("--grace", f.grace);
  if (!grace.ok()) return ReportError(grace.status(), flags.json);
  if (!f.keep && !older_than_us) {
    return ReportError(UsageError("cleanup requires at least one of --keep or --older-than"), flags.json);
  }
  if (f.keep && *f.keep == 0) return ReportError(UsageError("--keep must be at least 1"), flags.json);
  auto g = OpenGraph(flags, /*writable=*/true);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  const std::string uri = (*g)->uri();
  const std::string policy = Policy(f, older_than_us);
  if (!f.confirm) {
    std::fprintf(stderr, "cleanup is destructive \u2014 rerun with --confirm. Policy for %s: %s\n", uri.c_str(),
                 policy.c_str());
  } else {
    if (*grace < 3600 * kSecondUs) {
      std::fprintf(stderr,
                   "warning: --grace %s is shorter than the grace writers honour by default (1h): safe only while no "
                   "other process writes to this graph\n",
                   f.grace.c_str());
    }
    EchoWriteTarget("cleanup", flags);
  }
  Database::CleanupOptions o;
  o.keep = f.keep;
  o.older_than_us = older_than_us;
  o.grace_us = *grace;
  o.confirm = f.confirm;
  auto r = (*g)->Cleanup(o);
  if (!r.ok()) return ReportError(r.status(), flags.json);
  uint64_t versions = 0;
  for (const auto& t : r->tables) versions += t.versions_removed;
  if (flags.json) {
    // The Rust CLI's shape ({uri, keep_versions, older_than_secs, datasets}) with ours after it.
    OrderedJson datasets = OrderedJson::array();
    for (const auto& t : r->tables) {
      OrderedJson d;
      d["type_key"] = TypeKey(t);
      d["bytes_removed"] = t.bytes_removed;
      d["old_versions_removed"] = t.versions_removed;
      d["error"] = nullptr;
      d["objects_removed"] = t.objects_removed;
      datasets.push_back(std::move(d));
    }
    OrderedJson kinds = OrderedJson::object();
    for (const auto& k : r->kinds) kinds[k.kind] = OrderedJson{{"objects", k.objects}, {"bytes", k.bytes}};
    OrderedJson j;
    j["uri"] = uri;
    j["keep_versions"] = f.keep ? OrderedJson(*f.keep) : OrderedJson(nullptr);
    j["older_than_secs"] = older_than_us ? OrderedJson(*older_than_us / kSecondUs) : OrderedJson(nullptr);
    j["datasets"] = std::move(datasets);
    j["confirmed"] = r->confirmed;
    j["completed"] = r->completed;
    j["grace_secs"] = *grace / kSecondUs;
    j["kept_commits"] = r->kept_commits;
    j["unkept_commits"] = r->unkept_commits;
    j["objects_removed"] = r->objects_removed();
    j["bytes_removed"] = r->bytes_removed();
    j["young_objects"] = r->young_objects;
    j["removed"] = std::move(kinds);
    j["record_id"] = r->record_id.empty() ? OrderedJson(nullptr) : OrderedJson(r->record_id);
    PrintJson(j);
    return kExitOk;
  }
  const char* verb = r->confirmed ? "removed" : "would remove";
  std::printf("cleanup %s (%s) \u2014 %s %llu versions (%llu bytes) across %zu datasets\n", uri.c_str(), policy.c_str(),
              verb, static_cast<unsigned long long>(versions), static_cast<unsigned long long>(r->bytes_removed()),
              r->tables.size());
  for (const auto& k : r->kinds) {
    std::printf("  %-9s %8llu objects %12llu bytes\n", k.kind.c_str(), static_cast<unsigned long long>(k.objects),
                static_cast<unsigned long long>(k.bytes));
  }
  std::printf("kept the data of %llu commits; %llu older commits are outside the kept history\n",
              static_cast<unsigned long long>(r->kept_commits), static_cast<unsigned long long>(r->unkept_commits));
  if (r->young_objects > 0) {
    std::printf("left %llu unreferenced objects younger than the grace period (%s)\n",
                static_cast<unsigned long long>(r->young_objects), f.grace.c_str());
  }
  if (!r->completed) {
    std::printf("stopped early: the run outlived half the grace period; run cleanup again to finish\n");
  }
  return kExitOk;
}

}  // namespace

void AddCleanupCommand(CLI::App& app, CommandAction* run) {
  auto* cmd =
      app.add_subcommand("cleanup", "Delete old table versions and unreferenced objects (preview unless --confirm)");
  auto flags = std::make_shared<GraphFlags>();
  auto f = std::make_shared<CleanupFlags>();
  cmd->add_option("--keep", f->keep, "Keep the newest N versions (ref entries) of each branch");
  cmd->add_option("--older-than", f->older_than, "Keep everything younger than this (e.g. 7d, 12h, 30m)");
  cmd->add_option("--grace", f->grace, "Never delete an unreferenced object younger than this (default 1h)");
  cmd->add_flag("--confirm", f->confirm, "Delete (without it: a preview)");
  AddGraphFlags(cmd, flags.get(), true);
  cmd->callback([=] { *run = [=] { return RunCleanup(*flags, *f); }; });
}

}  // namespace omnigraph::cli
