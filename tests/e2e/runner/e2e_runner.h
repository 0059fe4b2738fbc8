// Runs one end-to-end test file under one configuration (tests/e2e/README.md; docs/architecture.md,
// "Code conventions"):
//   memory        a MemoryStore
//   local         a LocalStore in a fresh temporary folder
//   restart-each  memory, reopening the graph from storage after every record
//   fault-sweep   memory; every write record is also run with the store crashing at each of its
//                 requests in turn (before and after the request lands); after each crash the
//                 graph, reopened, must equal exactly the state before or after the record, and a
//                 retry from the before state must succeed.
// Directives: schema [error CODE] | schema file PATH; load MODE [branch B [from A]] [error CODE [line N]] |
// load MODE file PATH; counts [at LABEL]; export [TYPE...]; commits; snapshot LABEL; restart;
// params {json}; run [ordered] | run error CODE (body: a read query);
// mutate [branch B] [if-commit LABEL] [params {json}] [error CODE] (body: a mutation query;
// expected output `affected_nodes N affected_edges M` or `no change`).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "e2e_file.h"
#include "engine/graph/graph.h"
#include "io/memory_store.h"
#include "s3_server/s3_test_env.h"

namespace omnigraph::e2e {

// `... error CODE [line N]` of a write record.
struct Expectation {
  bool error = false;
  std::string code;
  std::optional<uint64_t> line;
};

// The options of a `mutate` record.
struct MutateSpec {
  std::string branch = "main";
  std::optional<std::string> if_commit_label;  // a `snapshot` label
  std::optional<std::string> params;           // JSON; else the pending `params` record
  Expectation expect;
};
Result<MutateSpec> ParseMutate(const Record& r);

// memory, local (a temp folder), restart-each (reopen after every record), fault-sweep (crash
// every write at each of its requests), s3 (the S3 backend on an in-process S3 test server),
// s3-faults (s3, with the server injecting retryable faults).
// kS3CrashSweep: the fault sweep on the S3 backend (each copy a fresh prefix on the test server).
enum class Config { kMemory, kLocal, kRestartEach, kFaultSweep, kS3, kS3Faults, kS3CrashSweep };
Result<Config> ParseConfig(std::string_view name);

struct RunReport {
  int records = 0;
  int failures = 0;
  int fault_runs = 0;  // fault-sweep: crashed runs checked
  std::vector<std::string> messages;
};

class Runner {
 public:
  Runner(Config config, bool rewrite) : config_(config), rewrite_(rewrite) {}
  // Runs every record; failures are reported, not thrown. With rewrite, fills in missing expected
  // outputs of `file`.
  RunReport Run(TestFile& file);

 private:
  Status SetUp();
  Status RunRecord(TestFile& file, Record& r);
  Status RunWrite(const TestFile& file, const Record& r, io::ObjectStore& store, bool* committed);
  Status Sweep(const TestFile& file, const Record& r);
  bool Sweeps() const { return config_ == Config::kFaultSweep || config_ == Config::kS3CrashSweep; }
  // A copy of the graph's objects in a store of the same kind (memory, or a fresh S3 prefix).
  Result<std::shared_ptr<io::ObjectStore>> CloneCurrent();
  Result<std::vector<std::string>> Query(const Record& r);
  // `run [ordered]`: the body is a read query, run on the executor and on the reference evaluator
  // (they must agree: same error code, or same rows); rows print
  // tab-separated with NULL for nulls; compared as a sorted multiset unless `ordered`.
  Result<std::vector<std::string>> RunQuery(const Record& r);
  Status Reopen();
  // Whether the configuration can count its objects (a rejected write must leave none behind).
  bool CountsObjects() const;
  uint64_t ObjectCount() const;
  Status Fail(const Record& r, const std::string& what);

  Config config_;
  bool rewrite_;
  std::shared_ptr<io::ObjectStore> store_;
  std::shared_ptr<io::MemoryStore> memory_;  // for the memory-based configurations
  std::string local_dir_;
  std::unique_ptr<s3server::TestS3> s3_;  // s3 configurations: the server (declared before graph_)
  std::unique_ptr<engine::Graph> graph_;
  std::map<std::string, std::string> labels_;  // snapshot label -> commit id
  std::string params_;                         // JSON for the next `run` / `mutate`
  std::string mutation_output_;                // the last mutate's result line
  RunReport report_;
};

// The comparable state of a store: export of main with generated ids masked, plus the number of
// commits on main; "<no graph>" when there is none.
std::string Fingerprint(std::shared_ptr<io::ObjectStore> store);
std::shared_ptr<io::MemoryStore> CloneStore(io::MemoryStore& from);

}  // namespace omnigraph::e2e
