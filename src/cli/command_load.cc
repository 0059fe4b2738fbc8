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
#include "common/check.h"
#include "common/clock.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/mutex.h"

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

}  // namespace

void AddLoadCommand(CLI::App& app, CommandAction* run) {
  auto* cmd = app.add_subcommand("load", "Load an NDJSON file as one commit");
  auto flags = std::make_shared<GraphFlags>();
  auto data = std::make_shared<std::string>();
  auto mode = std::make_shared<std::string>();
  auto branch = std::make_shared<std::string>("main");
  auto if_commit = std::make_shared<std::string>();
  cmd->add_option("--data", *data, "NDJSON file")->required();
  cmd->add_option("--mode", *mode, "append | merge | overwrite")->required();
  auto* branch_opt = cmd->add_option("--branch", *branch, "Branch to load into (default main)");
  cmd->add_option("--if-commit", *if_commit, "Only load if the branch head is this commit");
  auto from = std::make_shared<std::string>();
  cmd->add_option("--from", *from, "Create --branch from this branch first when it does not exist")->needs(branch_opt);
  auto limits = std::make_shared<LoadOptions>();
  cmd->add_option("--max-memory", limits->max_memory_bytes,
                  "Fail (resource_limit) when the load would need more memory than this: the parsed records, then "
                  "those plus staging (default: half of physical memory)")
      ->transform(SizeValue());
  cmd->add_option("--max-record-size", limits->max_record_bytes,
                  "Reject (resource_limit) a line longer than this (default 64M)")
      ->transform(SizeValue());
  cmd->add_option("--chunk-size", limits->chunk_bytes, "Read and parse the input this much at a time (default 32M)")
      ->transform(SizeValue());
  AddGraphFlags(cmd, flags.get(), /*positional=*/true);
  cmd->callback([=] {
    *run = [=]() -> int {
      auto m = ParseLoadMode(*mode);
      if (!m.ok()) return ReportError(AsUsageError(m.status()), flags->json);
      auto g = OpenGraph(*flags, /*writable=*/true);
      if (!g.ok()) return ReportError(g.status(), flags->json);
      LoadOptions o = *limits;
      o.mode = *m;
      o.branch = *branch;
      if (!if_commit->empty()) o.if_commit = *if_commit;
      if (!from->empty()) o.create_branch_from = *from;
      int64_t start = MonotonicNanos();
      bool progress = !flags->json && ::isatty(STDERR_FILENO);
      std::optional<LoadProgress> printer;
      if (progress) {
        std::error_code ec;
        const bool regular = std::filesystem::is_regular_file(*data, ec);
        const auto size = regular ? std::filesystem::file_size(*data, ec) : 0;
        if (regular && !ec) {
          std::fprintf(stderr, "loading %s (%.1f MB)...\n", data->c_str(), static_cast<double>(size) / 1e6);
        } else {
          std::fprintf(stderr, "loading %s...\n", data->c_str());
        }
        printer.emplace(start);
        o.progress = [&printer](std::string_view phase, uint64_t records, uint64_t bytes) {
          printer->Report(phase, records, bytes);
        };
      }
      auto r = (*g)->LoadFile(*data, o);
      printer.reset();
      if (!r.ok()) return PrintLoadErrors(r.status(), flags->json);
      const bool created = r->branch_created;
      if (created && !flags->json) std::fprintf(stderr, "created branch %s from %s\n", branch->c_str(), from->c_str());
      double secs = static_cast<double>(MonotonicNanos() - start) / 1e9;
      if (flags->json) {
        Json nodes = Json::array(), edges = Json::array();
        for (const auto& [name, st] : r->types) {
          Json t = {{"name", name},
                    {"entities_loaded", st.loaded},
                    {"inserted", st.changes.inserted},
                    {"updated", st.changes.updated},
                    {"deleted", st.changes.deleted}};
          (st.kind == EntityKind::kNode ? nodes : edges).push_back(t);
        }
        Json j = {{"uri", (*g)->uri()},
                  {"branch", *branch},
                  {"mode", *mode},
                  {"nodes", nodes},
                  {"edges", edges},
                  {"total_entities", r->records},
                  {"committed", r->committed},
                  {"commit", r->commit_id},
                  {"version", r->version},
                  {"branch_created", created},
                  {"base_branch", from->empty() ? Json(nullptr) : Json(*from)},
                  {"actor_id", ActorJson(**g)}};
        std::printf("%s\n", CanonicalJson(j).c_str());
      } else {
        for (const auto& [name, st] : r->types) {
          std::printf("  %-24s %s %8llu loaded (+%llu ~%llu -%llu)\n", name.c_str(),
                      st.kind == EntityKind::kNode ? "node" : "edge", static_cast<unsigned long long>(st.loaded),
                      static_cast<unsigned long long>(st.changes.inserted),
                      static_cast<unsigned long long>(st.changes.updated),
                      static_cast<unsigned long long>(st.changes.deleted));
        }
        if (r->committed) {
          std::printf("loaded %llu record(s) into %s in %.2fs: commit %s (version %llu)\n",
                      static_cast<unsigned long long>(r->records), branch->c_str(), secs, r->commit_id.c_str(),
                      static_cast<unsigned long long>(r->version));
        } else {
          std::printf("nothing to load: no commit\n");
        }
      }
      return kExitOk;
    };
  });
}

}  // namespace omnigraph::cli
