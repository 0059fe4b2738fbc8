// Object-store latency and throughput: put / get / put_if_absent on LocalStore (fsync on and off)
// and MemoryStore, for small (1 KiB) and large (4 MiB) objects. Run:
//   build/release/bench/io_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// The local stores write under $OG_BENCH_DIR (default /tmp).
#include <cstdlib>
#include <filesystem>

#include <benchmark/benchmark.h>

#include "common/ulid.h"
#include "io/local_store.h"
#include "io/memory_store.h"

namespace omnigraph::io {
namespace {

enum Backend { kMemory = 0, kLocalFsync = 1, kLocalNoFsync = 2 };

struct Fixture {
  std::shared_ptr<ObjectStore> store;
  std::string dir;
  explicit Fixture(int backend) {
    if (backend == kMemory) {
      store = std::make_shared<MemoryStore>();
      return;
    }
    const char* base = std::getenv("OG_BENCH_DIR");
    dir = std::string(base ? base : "/tmp") + "/og-io-bench-" + NewUlidString();
    LocalStoreOptions o;
    o.create_root = true;
    o.fsync = backend == kLocalFsync;
    store = std::shared_ptr<ObjectStore>(std::move(LocalStore::Open(dir, o)).value());
  }
  ~Fixture() {
    if (!dir.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  }
};

const char* Name(int backend) {
  return backend == kMemory ? "memory" : backend == kLocalFsync ? "local_fsync" : "local_nofsync";
}

void BM_Put(benchmark::State& state) {
  Fixture f(static_cast<int>(state.range(0)));
  std::string data(static_cast<size_t>(state.range(1)), 'x');
  int64_t i = 0;
  for (auto _ : state) {
    Status s = f.store->Put("bench/p/" + std::to_string(i++ % 256), data);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
  }
  state.SetBytesProcessed(state.iterations() * state.range(1));
  state.SetLabel(Name(static_cast<int>(state.range(0))));
}

void BM_PutIfAbsent(benchmark::State& state) {
  Fixture f(static_cast<int>(state.range(0)));
  std::string data(static_cast<size_t>(state.range(1)), 'x');
  int64_t i = 0;
  for (auto _ : state) {
    Status s = f.store->PutIfAbsent("bench/c/" + std::to_string(i++), data);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
  }
  state.SetBytesProcessed(state.iterations() * state.range(1));
  state.SetLabel(Name(static_cast<int>(state.range(0))));
}

void BM_Get(benchmark::State& state) {
  Fixture f(static_cast<int>(state.range(0)));
  std::string data(static_cast<size_t>(state.range(1)), 'x');
  for (int i = 0; i < 64; ++i) (void)f.store->Put("bench/g/" + std::to_string(i), data).ok();
  int64_t i = 0;
  for (auto _ : state) {
    auto r = f.store->Get("bench/g/" + std::to_string(i++ % 64));
    if (!r.ok()) state.SkipWithError(r.status().ToString().c_str());
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(state.iterations() * state.range(1));
  state.SetLabel(Name(static_cast<int>(state.range(0))));
}

void Args(benchmark::internal::Benchmark* b) {
  for (int backend : {kMemory, kLocalNoFsync, kLocalFsync}) {
    for (int64_t size : {int64_t{1} << 10, int64_t{4} << 20}) b->Args({backend, size});
  }
}

BENCHMARK(BM_Put)->Apply(Args)->UseRealTime();
BENCHMARK(BM_PutIfAbsent)->Apply(Args)->UseRealTime();
BENCHMARK(BM_Get)->Apply(Args)->UseRealTime();

}  // namespace
}  // namespace omnigraph::io

BENCHMARK_MAIN();
