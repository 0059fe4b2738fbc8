// The object-store contract (docs/architecture.md, "The object store"), run on every backend and
// wrapper stack.
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/error_codes.h"
#include "common/ulid.h"
#include "io/counting_store.h"
#include "io/disk_cache_store.h"
#include "io/fault_store.h"
#include "io/latency_store.h"
#include "io/local_store.h"
#include "io/memory_store.h"
#include "io/object_store_contract_suite.h"

namespace omnigraph::io {
namespace {

using contract::Backend;
using contract::ContractTest;

std::shared_ptr<ObjectStore> MakeLocal(const std::string& dir, bool fsync) {
  LocalStoreOptions o;
  o.create_root = true;
  o.fsync = fsync;
  auto s = LocalStore::Open(dir, o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return std::shared_ptr<ObjectStore>(std::move(s).value());
}

std::vector<Backend> Backends() {
  return {
      {"memory", [](const std::string&) { return std::make_shared<MemoryStore>(); }},
      {"local", [](const std::string& d) { return MakeLocal(d, true); }},
      {"local_nofsync", [](const std::string& d) { return MakeLocal(d, false); }},
      {"counting_memory",
       [](const std::string&) { return std::make_shared<CountingStore>(std::make_shared<MemoryStore>()); }},
      {"fault_local", [](const std::string& d) { return std::make_shared<FaultStore>(MakeLocal(d, false)); }},
      {"latency_counting_fault_memory",
       [](const std::string&) {
         return std::make_shared<LatencyStore>(
             std::make_shared<CountingStore>(std::make_shared<FaultStore>(std::make_shared<MemoryStore>())),
             /*delay_micros=*/0, /*max_concurrency=*/4);
       }},
      // Every key cached: the contract holds even for keys that are replaced and deleted.
      {"disk_cache_memory",
       [](const std::string& d) {
         DiskCacheOptions o;
         o.dir = d + "/cache";
         o.cacheable = [](std::string_view) { return true; };
         auto s = DiskCacheStore::Open(std::make_shared<MemoryStore>(), o);
         EXPECT_TRUE(s.ok()) << s.status().ToString();
         return std::shared_ptr<ObjectStore>(std::move(s).value());
       }},
  };
}

INSTANTIATE_TEST_SUITE_P(AllBackends, ContractTest, ::testing::ValuesIn(Backends()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace omnigraph::io
