// `omnigraph load [URI] --data F.ndjson --mode append|merge|overwrite [--branch B [--from A]]`: one
// NDJSON file = one atomic commit, fully validated first. The file is streamed (read and parsed a
// chunk at a time), never held in memory whole.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "cli/remote_commands.h"
#include "common/api_json.h"
#include "common/check.h"
#include "common/clock.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/mutex.h"
#include "common/output_json.h"

namespace omnigraph::cli {
namespace {

// Progress lines on stderr (when it is a terminal): "parsing" rewrites its line once per chunk and
// the other phases end theirs. Staging reports nothing until it is done (seconds for a large
// load), so while it runs a ticker rewrites its line with the elapsed time four times a second.
// Thread-safe (the loader reports from its threads; the ticker prints from its own).
class LoadProgress {
 public:
  explicit LoadProgress(int64_t start_nanos) : start_(start_nanos), ticker_([this] { Tick(); }) {}
  ~LoadProgress() {
    {
      MutexLock lock(&mu_);
      done_ = true;
      if (staging_) std::fputc('\n', stderr);  // a failed stage: end its line before the errors
    }
    wake_.notify_all();
    ticker_.join();
  }
  LoadProgress(const LoadProgress&) = delete;
  LoadProgress& operator=(const LoadProgress&) = delete;

  void Report(std::string_view phase, uint64_t records, uint64_t bytes) {
    MutexLock lock(&mu_);
    staging_ = phase == "staging";  // overwritten by the "staged" line
    records_ = records;
    if (staging_) {
      PrintStaging();
      return;
    }
    const double s = Seconds();
    std::fprintf(stderr, "\r\033[K  %-9.*s %llu records, %.1f MB, %.2fs (%.0f records/s)%s",
                 static_cast<int>(phase.size()), phase.data(), static_cast<unsigned long long>(records),
                 static_cast<double>(bytes) / 1e6, s, s > 0 ? static_cast<double>(records) / s : 0.0,
                 phase == "parsing" ? "" : "\n");
  }

 private:
  double Seconds() const { return static_cast<double>(MonotonicNanos() - start_) / 1e9; }
  void PrintStaging() OG_REQUIRES(mu_) {
    std::fprintf(stderr, "\r\033[K  staging   %llu records: encoding fragments, building indexes... (%.2fs)",
                 static_cast<unsigned long long>(records_), Seconds());
  }
  void Tick() {
    MutexLock lock(&mu_);
    while (!done_) {
      wake_.wait_for(mu_, std::chrono::milliseconds(250));
      if (!done_ && staging_) PrintStaging();
    }
  }

  const int64_t start_;
  Mutex mu_;
  std::condition_variable_any wake_;
  bool done_ OG_GUARDED_BY(mu_) = false;
  bool staging_ OG_GUARDED_BY(mu_) = false;
  uint64_t records_ OG_GUARDED_BY(mu_) = 0;
  std::thread ticker_;  // last: starts once the members above exist
};

int PrintLoadErrors(const Status& s, bool json) {
  if (json || s.errors().empty()) return ReportError(s, json);
  std::fprintf(stderr, "error[%.*s]: %s\n", static_cast<int>(s.code_string().size()), s.code_string().data(),
               s.message().c_str());
  for (const ErrorItem& e : s.errors()) {
    const uint64_t line = e.line.value_or(0);
    std::string where = line > 0 ? "line " + std::to_string(line) : "load";
    std::fprintf(stderr, "  %s: [%.*s] %s\n", where.c_str(), static_cast<int>(ErrorCodeName(e.code).size()),
                 ErrorCodeName(e.code).data(), e.message.c_str());
  }
  if (s.errors_truncated()) std::fprintf(stderr, "  (more errors not shown)\n");
  return ExitCodeFor(s);
}

struct LoadFlags {
  GraphFlags graph;
  std::string data, mode, branch = "main", if_commit, from;
  LoadOptions limits;
  bool ingest = false;  // the Rust CLI's deprecated `ingest`: --mode merge, --from main by default
};

// The Rust CLI's LoadOutput / IngestOutput, then ours (common/api_json.h).
OrderedJson LoadJson(const LoadFlags& f, Database& db, const LoadSummary& r) {
  std::optional<CommitInfo> commit;
  if (r.committed) {
    auto c = db.GetCommit(r.commit_id);
    if (c.ok()) {
      commit = *c;
      commit->version = r.version;  // the ref version the load published (a commit read by id has none)
    }
  }
  LoadRequestText request{db.uri(), f.branch, f.from, f.mode, f.ingest, db.actor()};
  return LoadOutputJson(request, r, commit);
}

void PrintLoadHuman(const LoadFlags& f, Database& db, const LoadSummary& r) {
  size_t node_types = 0, edge_types = 0;
  for (const auto& [name, st] : r.types) ++(st.kind == EntityKind::kNode ? node_types : edge_types);
  if (f.ingest) {
    std::printf("ingested %llu entities from %s into branch %s from %s with %s (%s)\n",
                static_cast<unsigned long long>(r.records), db.uri().c_str(), f.branch.c_str(), f.from.c_str(),
                f.mode.c_str(), r.branch_created ? "branch created" : "branch exists");
    for (const auto& [name, st] : r.types) {
      std::printf("%s type '%s': %llu entities loaded\n", st.kind == EntityKind::kNode ? "node" : "edge", name.c_str(),
                  static_cast<unsigned long long>(st.loaded));
    }
    if (db.actor()) std::printf("actor_id: %s\n", db.actor()->c_str());
  } else {
    std::printf("loaded %s on branch %s with %s: %llu entities across %zu node types and %zu edge types\n",
                db.uri().c_str(), f.branch.c_str(), f.mode.c_str(), static_cast<unsigned long long>(r.records),
                node_types, edge_types);
    if (r.branch_created) std::printf("branch %s created from %s\n", f.branch.c_str(), f.from.c_str());
  }
  // Ours after the Rust lines: the commit published, or that there was nothing to publish.
  if (r.committed) {
    std::printf("commit %s (version %llu)\n", r.commit_id.c_str(), static_cast<unsigned long long>(r.version));
  } else {
    std::printf("nothing to load: no commit\n");
  }
}

int RunLoad(const LoadFlags& f) {
  const bool json = f.graph.json;
  if (f.ingest) {
    std::fprintf(stderr,
                 "warning: `omnigraph ingest` is a deprecated loader command; use `omnigraph load --from <base> "
                 "--mode <mode>` (ingest keeps its defaults: --from main --mode merge)\n");
  }
  auto m = ParseLoadMode(f.mode);
  if (!m.ok()) return ReportError(AsUsageError(m.status()), json);
  // Flags of the embedded loader that a served load cannot honour (refused rather than dropped).
  const LoadOptions defaults;
  std::string local_only_flag;
  if (!f.if_commit.empty()) {
    local_only_flag = "--if-commit";
  } else if (f.limits.max_memory_bytes != defaults.max_memory_bytes) {
    local_only_flag = "--max-memory";
  } else if (f.limits.max_record_bytes != defaults.max_record_bytes) {
    local_only_flag = "--max-record-size";
  } else if (f.limits.chunk_bytes != defaults.chunk_bytes) {
    local_only_flag = "--chunk-size";
  }
  if (auto rc = RemoteLoad(f.graph, f.data, f.mode, f.branch, f.from, f.ingest, local_only_flag)) return *rc;
  auto g = OpenGraph(f.graph, /*writable=*/true);
  if (!g.ok()) return ReportError(g.status(), json);
  LoadOptions o = f.limits;
  o.mode = *m;
  o.branch = f.branch;
  if (!f.if_commit.empty()) o.if_commit = f.if_commit;
  if (!f.from.empty()) o.create_branch_from = f.from;
  EchoWriteTarget(f.ingest ? "ingest" : "load", f.graph);
  const bool progress = !json && ::isatty(STDERR_FILENO);
  std::optional<LoadProgress> printer;
  if (progress) {
    std::error_code ec;
    const bool regular = std::filesystem::is_regular_file(f.data, ec);
    const auto size = regular ? std::filesystem::file_size(f.data, ec) : 0;
    if (regular && !ec) {
      std::fprintf(stderr, "loading %s (%.1f MB)...\n", f.data.c_str(), static_cast<double>(size) / 1e6);
    } else {
      std::fprintf(stderr, "loading %s...\n", f.data.c_str());
    }
    printer.emplace(MonotonicNanos());
    o.progress = [&printer](std::string_view phase, uint64_t records, uint64_t bytes) {
      printer->Report(phase, records, bytes);
    };
  }
  auto r = (*g)->LoadFile(f.data, o);
  printer.reset();
  if (!r.ok()) return PrintLoadErrors(r.status(), json);
  if (json) {
    PrintJson(LoadJson(f, **g, *r));
  } else {
    PrintLoadHuman(f, **g, *r);
  }
  return kExitOk;
}

void AddLoadFlags(CLI::App* cmd, LoadFlags* f) {
  cmd->add_option("--data", f->data, "NDJSON file")->required();
  auto* mode = cmd->add_option("--mode", f->mode,
                               f->ingest ? "append | merge (default) | overwrite" : "append | merge | overwrite");
  if (!f->ingest) mode->required();
  cmd->add_option("--branch", f->branch, "Branch to load into (default main)");
  cmd->add_option("--if-commit", f->if_commit, "Only load if the branch head is this commit");
  cmd->add_option("--from", f->from, "Create --branch from this branch first when it does not exist");
  cmd->add_option("--max-memory", f->limits.max_memory_bytes,
                  "Fail (resource_limit) when the load would need more memory than this: the parsed records, then "
                  "those plus staging (default: half of physical memory)")
      ->transform(SizeValue());
  cmd->add_option("--max-record-size", f->limits.max_record_bytes,
                  "Reject (resource_limit) a line longer than this (default 64M)")
      ->transform(SizeValue());
  cmd->add_option("--chunk-size", f->limits.chunk_bytes, "Read and parse the input this much at a time (default 32M)")
      ->transform(SizeValue());
  AddGraphFlags(cmd, &f->graph, /*positional=*/true);
}

}  // namespace

void AddLoadCommand(CLI::App& app, CommandAction* run) {
  {
    auto* cmd = app.add_subcommand("load", "Load an NDJSON file as one commit");
    auto f = std::make_shared<LoadFlags>();
    AddLoadFlags(cmd, f.get());
    cmd->callback([=] { *run = [=] { return RunLoad(*f); }; });
  }
  {
    // Hidden (an empty group), as in the Rust CLI: the deprecated permissive loader.
    auto* cmd = app.add_subcommand("ingest", "Deprecated: load with --mode merge --from main by default");
    cmd->group("");
    auto f = std::make_shared<LoadFlags>();
    f->ingest = true;
    f->mode = "merge";
    f->from = "main";
    AddLoadFlags(cmd, f.get());
    cmd->callback([=] { *run = [=] { return RunLoad(*f); }; });
  }
}

}  // namespace omnigraph::cli
