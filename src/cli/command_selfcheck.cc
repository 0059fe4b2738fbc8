// `omnigraph selfcheck --store URI [--json]`: exercises the object-store contract on a store —
// write, read back, ranged read, list, conditional create (the second must be refused), delete —
// and reports each step. Leaves nothing behind on success.
#include <cstdio>
#include <vector>

#include "cli/cli_util.h"
#include "common/clock.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/ulid.h"
#include "io/store_uri.h"

namespace omnigraph::cli {
namespace {

struct Step {
  std::string name;
  Status status;
  int64_t micros = 0;
};

Status Expect(bool cond, const std::string& what) { return cond ? Status::Ok() : InternalError("self-check: " + what); }

int RunSelfCheck(const std::string& uri, bool json) {
  io::OpenStoreOptions opts;
  opts.create = true;
  // Every step runs, the conditional create included, so a store that ignores conditional writes
  // is reported by the step that shows it (not refused before the check starts).
  opts.unsafe_single_writer = true;
  auto store_or = io::OpenStore(uri, opts);
  if (!store_or.ok()) return ReportError(store_or.status(), json);
  std::shared_ptr<io::ObjectStore> store = *store_or;
  const std::string base = "_selfcheck/" + NewUlidString();
  const std::string key = base + "/object";
  const std::string payload = "omnigraph self-check payload " + base;
  std::vector<Step> steps;
  auto step = [&](std::string name, const std::function<Status()>& fn) {
    if (!steps.empty() && !steps.back().status.ok()) return;
    int64_t start = MonotonicNanos();
    Status s = fn();
    steps.push_back(Step{std::move(name), s, (MonotonicNanos() - start) / 1000});
  };
  step("put", [&] { return store->Put(key, payload); });
  step("get", [&] {
    OG_ASSIGN_OR_RETURN(std::string back, store->Get(key));
    return Expect(back == payload, "read back different bytes");
  });
  step("get_range", [&] {
    OG_ASSIGN_OR_RETURN(std::string part, store->GetRange(key, 10, 10));
    return Expect(part == payload.substr(10, 10), "range read returned wrong bytes");
  });
  step("list", [&] {
    OG_ASSIGN_OR_RETURN(auto keys, store->List(base + "/"));
    return Expect(keys.size() == 1 && keys[0].key == key && keys[0].size == payload.size(),
                  "list did not return exactly the written object");
  });
  step("put_if_absent(new)", [&] { return store->PutIfAbsent(base + "/created", "1"); });
  step("put_if_absent(existing) refused", [&] {
    Status s = store->PutIfAbsent(base + "/created", "2");
    if (s.ok())
      return Status(ErrorCode::kStoreNoConditionalWrites,
                    "self-check: a second create-if-absent (If-None-Match: *) of one key succeeded: this store "
                    "ignores conditional writes, so concurrent writers would overwrite each other's commits");
    if (s.category() != StatusCode::kAlreadyExists) return s;
    OG_ASSIGN_OR_RETURN(std::string v, store->Get(base + "/created"));
    return Expect(v == "1", "the losing conditional create changed the object");
  });
  step("delete", [&] {
    OG_RETURN_IF_ERROR(store->DeletePrefix(base + "/"));
    OG_ASSIGN_OR_RETURN(auto keys, store->List(base + "/"));
    return Expect(keys.empty(), "objects remain after delete");
  });
  bool ok = steps.back().status.ok();
  // A failed check still removes what it wrote (best effort; the failure is what it reports).
  if (!ok) (void)store->DeletePrefix(base + "/");
  if (json) {
    Json arr = Json::array();
    for (const auto& s : steps) {
      Json j = {{"step", s.name}, {"ok", s.status.ok()}, {"micros", s.micros}};
      if (!s.status.ok()) j["error"] = s.status.ToString();
      arr.push_back(j);
    }
    PrintJson(OrderedJson{{"ok", ok}, {"store", store->Describe()}, {"steps", OrderedJson(arr)}});
  } else {
    std::printf("store self-check on %s\n", store->Describe().c_str());
    for (const auto& s : steps) {
      std::printf("  %-34s %s  (%lld us)\n", s.name.c_str(), s.status.ok() ? "ok" : "FAILED",
                  static_cast<long long>(s.micros));
      if (!s.status.ok()) std::printf("    %s\n", s.status.ToString().c_str());
    }
    std::printf("%s\n", ok ? "self-check passed" : "self-check FAILED");
  }
  return ok ? kExitOk : ExitCodeFor(steps.back().status);
}

}  // namespace

void AddSelfCheckCommand(CLI::App& app, CommandAction* run) {
  auto* cmd = app.add_subcommand("selfcheck", "Check that a storage location honours the object-store contract");
  auto uri = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("--store", *uri, "Storage URI (path, file://, memory://, s3://bucket/prefix)")->required();
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->callback([run, uri, json] { *run = [uri, json] { return RunSelfCheck(*uri, *json); }; });
}

}  // namespace omnigraph::cli
