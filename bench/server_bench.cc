// The HTTP server's overhead per request over the embedded call (docs/server.md): the same three
// operations run through Database::Query / Mutate directly and through POST /graphs/default/query
// and /mutate of an omnigraph-server started in this process (unauthenticated, no access log),
// from 1, 8 and 64 concurrent clients. A client is a thread; over HTTP each has its own kept-alive
// httplib::Client to 127.0.0.1. Operations, on a synthetic graph (--people Person, 5 Knows each):
//   key lookup  query q($h: String) { match { $p: Person { handle: $h } } return { $p.name } }
//   one-hop     query q($h: String) { match { $p: Person { handle: $h } $p knows $f } return { $f.name } }
//   insert      query add($h: String, $n: String) { insert Person { handle: $h, name: $n } }  (one commit)
// Per level: --requests reads (or --writes inserts) in total, split evenly over the clients, after
// one untimed warm-up call per client (connects, compiles, builds the read structures); keys drawn
// from the loaded handles with a fixed seed (the same keys embedded and over HTTP). Reported:
// p50 / p99 latency of single requests and throughput (requests / wall time of the level); the
// whole thing is repeated --runs times and the medians printed. The embedded side uses its own
// Database handle (the server opens another one at boot); the two never run at the same time. Any
// failed call or non-200 answer aborts the bench (exit 1). Client threads share the CPUs with the
// server, so at high concurrency the HTTP numbers include the client's own cost.
//   server_bench [--people 100000] [--requests 2000] [--writes 200] [--runs 3] [--clients 1,8,64]
//                [--dir /tmp]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iterator>
#include <latch>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "common/ulid.h"
#include "omnigraph/omnigraph.h"
#include "server/auth.h"
#include "server/server.h"

namespace {

using omnigraph::Database;
using omnigraph::server::Server;
using Clock = std::chrono::steady_clock;

constexpr const char* kSchema =
    "node Person {\n"
    "  handle: String @key\n"
    "  name: String\n"
    "}\n"
    "edge Knows: Person -> Person\n";
constexpr int kKnowsPerPerson = 5;

struct Op {
  const char* name;
  const char* source;
  bool write;
  const char* path;  // the HTTP route
};
const Op kOps[] = {
    {"key lookup", "query q($h: String) { match { $p: Person { handle: $h } } return { $p.name } }", false,
     "/graphs/default/query"},
    {"one-hop", "query q($h: String) { match { $p: Person { handle: $h } $p knows $f } return { $f.name } }", false,
     "/graphs/default/query"},
    {"insert 1 row", "query add($h: String, $n: String) { insert Person { handle: $h, name: $n } }", true,
     "/graphs/default/mutate"},
};

// What a failure must clean up before exiting (only ever called on the main thread).
struct Cleanup {
  Server* server = nullptr;
  std::thread* serving = nullptr;
  std::string dir;
} g_cleanup;

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "server_bench: %s\n", message.c_str());
  std::fflush(stderr);
  if (g_cleanup.server) g_cleanup.server->Stop();
  if (g_cleanup.serving && g_cleanup.serving->joinable()) g_cleanup.serving->join();
  std::error_code ec;
  if (!g_cleanup.dir.empty()) std::filesystem::remove_all(g_cleanup.dir, ec);
  std::_Exit(1);
}

template <typename T>
T Take(omnigraph::Result<T> r, const char* what) {
  if (!r.ok()) Fail(std::string(what) + ": " + r.status().ToString());
  return std::move(r).value();
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Nearest-rank percentile of sorted values.
double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(p * static_cast<double>(sorted.size()) + 0.999999);
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

std::string Handle(size_t i) { return "p" + std::to_string(i); }

std::string GraphData(size_t people) {
  std::string data;
  data.reserve(people * (50 + kKnowsPerPerson * 45));
  for (size_t i = 0; i < people; ++i) {
    data +=
        R"({"type":"Person","data":{"handle":")" + Handle(i) + R"(","name":"Person )" + std::to_string(i) + "\"}}\n";
  }
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<size_t> pick(0, people - 1);
  for (size_t i = 0; i < people; ++i) {
    for (int k = 0; k < kKnowsPerPerson; ++k) {
      data += R"({"edge":"Knows","from":")" + Handle(i) + R"(","to":")" + Handle(pick(rng)) + "\"}\n";
    }
  }
  return data;
}

// One call of an operation: "" on success, else what went wrong. Call(0) is the warm-up.
using Call = std::function<std::string(size_t i)>;
// Builds a client's calls on its thread: (client index, timed calls) -> Call for i in 0..n.
using MakeCall = std::function<Call(size_t client, size_t n)>;

struct LevelResult {
  double p50_us = 0, p99_us = 0, rps = 0;
};

LevelResult RunLevel(size_t clients, size_t total, const MakeCall& make, const std::string& what) {
  std::vector<std::vector<double>> lat(clients);
  std::latch ready(static_cast<std::ptrdiff_t>(clients + 1));
  std::atomic<bool> stop{false};
  std::atomic<size_t> errors{0};
  std::mutex mu;
  std::string first_error;
  auto fail = [&](const std::string& e) {
    errors.fetch_add(1);
    stop.store(true);
    std::lock_guard<std::mutex> lock(mu);
    if (first_error.empty()) first_error = e;
  };
  std::vector<std::thread> threads;
  for (size_t t = 0; t < clients; ++t) {
    const size_t n = total / clients + (t < total % clients ? 1 : 0);
    threads.emplace_back([&, t, n] {
      Call call = make(t, n);
      std::string e = call(0);  // untimed: connect, compile, build the read structures
      if (!e.empty()) fail("warm-up: " + e);
      lat[t].reserve(n);
      ready.arrive_and_wait();
      for (size_t i = 1; i <= n && !stop.load(std::memory_order_relaxed); ++i) {
        const Clock::time_point start = Clock::now();
        e = call(i);
        lat[t].push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
        if (!e.empty()) {
          fail(e);
          break;
        }
      }
    });
  }
  ready.arrive_and_wait();
  const Clock::time_point start = Clock::now();
  for (std::thread& th : threads) th.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (errors.load() > 0) {
    Fail(what + ": " + std::to_string(errors.load()) + " failed request(s) before stopping; first: " + first_error);
  }
  std::vector<double> all;
  for (const auto& v : lat) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  return {Percentile(all, 0.50), Percentile(all, 0.99), static_cast<double>(all.size()) / seconds};
}

// The parameter objects (JSON text) of one client's calls 0..n. Reads: random existing handles,
// seeded by (run, op, clients, client) so embedded and HTTP see the same keys. Writes: fresh
// handles, unique per mode and level.
std::vector<std::string> ParamsOf(size_t op, size_t run, size_t clients, size_t client, size_t n, size_t people,
                                  const char* mode) {
  std::vector<std::string> out;
  out.reserve(n + 1);
  if (kOps[op].write) {
    const std::string prefix = std::string("w-") + mode + "-r" + std::to_string(run) + "-c" + std::to_string(clients) +
                               "-t" + std::to_string(client) + "-";
    for (size_t i = 0; i <= n; ++i) out.push_back(R"({"h":")" + prefix + std::to_string(i) + R"(","n":"writer"})");
    return out;
  }
  std::seed_seq seed{uint64_t{20261204}, uint64_t{run}, uint64_t{op}, uint64_t{clients}, uint64_t{client}};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, people - 1);
  for (size_t i = 0; i <= n; ++i) out.push_back(R"({"h":")" + Handle(pick(rng)) + "\"}");
  return out;
}

// The warm-up's answer check: a key lookup finds its one person, a one-hop at least one friend.
bool RowsOk(size_t op, int64_t rows) { return op == 0 ? rows == 1 : rows >= 1; }

std::vector<size_t> ParseList(const std::string& s) {
  std::vector<size_t> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (std::atoi(item.c_str()) > 0) out.push_back(static_cast<size_t>(std::atoi(item.c_str())));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  size_t people = 100000, reads = 2000, writes = 200, runs = 3;
  std::vector<size_t> levels = {1, 8, 64};
  std::string base_dir = "/tmp";
  for (int i = 1; i < argc; i += 2) {
    const std::string k = argv[i];
    if (i + 1 >= argc) Fail("missing value for " + k);
    const std::string v = argv[i + 1];
    const size_t n = static_cast<size_t>(std::max(1, std::atoi(v.c_str())));
    if (k == "--people")
      people = n;
    else if (k == "--requests")
      reads = n;
    else if (k == "--writes")
      writes = n;
    else if (k == "--runs")
      runs = n;
    else if (k == "--clients")
      levels = ParseList(v);
    else if (k == "--dir")
      base_dir = v;
    else
      Fail("unknown argument " + k +
           " (usage: server_bench [--people N] [--requests N] [--writes N] [--runs N] [--clients 1,8,64] [--dir D])");
  }
  if (levels.empty()) Fail("--clients lists no positive count");
  const size_t max_clients = *std::max_element(levels.begin(), levels.end());
  std::signal(SIGPIPE, SIG_IGN);

  g_cleanup.dir = base_dir + "/og-server-bench-" + omnigraph::NewUlidString();
  std::filesystem::create_directories(g_cleanup.dir);
  const std::string store = g_cleanup.dir + "/graph";
  {
    const std::string data = GraphData(people);
    auto db = Take(Database::Init(store, kSchema), "init");
    const Clock::time_point t = Clock::now();
    auto loaded = Take(db->Load(data, omnigraph::LoadMode::kAppend), "load");
    Take(db->Optimize(), "optimize");
    std::fprintf(stderr, "loaded %llu records and optimized in %.1f s (%s)\n",
                 static_cast<unsigned long long>(loaded.records),
                 std::chrono::duration<double>(Clock::now() - t).count(), store.c_str());
  }

  // The embedded side's own handle; the server opens another at boot.
  std::unique_ptr<Database> db = Take(Database::Open(store), "open");
  omnigraph::server::ServerOptions options;
  options.boot.store = store;
  options.listen.host = "127.0.0.1";
  options.listen.port = 0;
  options.listen.threads = std::max<size_t>(64, max_clients) + 8;  // + a few for connections still closing
  options.listen.keep_alive_max_requests = size_t{1} << 30;        // one connection per client for a whole level
  options.unauthenticated = true;
  options.access_log = nullptr;
  options.per_actor_inflight_max = std::max<size_t>(16, max_clients);  // every write is "anonymous"
  auto tokens = Take(omnigraph::server::TokenTable::FromPairs({}), "token table");
  std::unique_ptr<Server> server = Take(Server::Start(std::move(options), std::move(tokens)), "server start");
  std::thread serving([srv = server.get()] { srv->Run().IgnoreError(); });
  g_cleanup.server = server.get();
  g_cleanup.serving = &serving;
  const int port = server->port();

  // (op, clients, http?) -> per-run results.
  std::map<std::tuple<size_t, size_t, bool>, std::vector<LevelResult>> results;
  for (size_t run = 0; run < runs; ++run) {
    for (size_t op = 0; op < std::size(kOps); ++op) {
      const std::string source = kOps[op].source;
      const size_t total = kOps[op].write ? writes : reads;
      for (size_t clients : levels) {
        const std::string what =
            std::string(kOps[op].name) + ", " + std::to_string(clients) + " clients, run " + std::to_string(run + 1);
        MakeCall embedded = [&, op, clients, run](size_t client, size_t n) -> Call {
          auto params =
              std::make_shared<std::vector<std::string>>(ParamsOf(op, run, clients, client, n, people, "embedded"));
          Database* d = db.get();
          if (kOps[op].write) {
            return [d, source, params](size_t i) -> std::string {
              auto r = d->Mutate(source, (*params)[i]);
              return r.ok() ? std::string() : r.status().ToString();
            };
          }
          return [d, source, params, op](size_t i) -> std::string {
            auto r = d->Query(source, (*params)[i]);
            if (!r.ok()) return r.status().ToString();
            if (i == 0 && !RowsOk(op, static_cast<int64_t>(r->rows.size()))) {
              return "unexpected row count " + std::to_string(r->rows.size()) + " for " + (*params)[i];
            }
            return std::string();
          };
        };
        MakeCall http = [&, op, clients, run](size_t client, size_t n) -> Call {
          const std::vector<std::string> params = ParamsOf(op, run, clients, client, n, people, "http");
          const std::string query_json = nlohmann::json(source).dump();
          auto bodies = std::make_shared<std::vector<std::string>>();
          bodies->reserve(params.size());
          for (const std::string& p : params)
            bodies->push_back(R"({"query":)" + query_json + R"(,"params":)" + p + "}");
          auto cli = std::make_shared<httplib::Client>("127.0.0.1", port);
          cli->set_keep_alive(true);
          cli->set_tcp_nodelay(true);
          cli->set_read_timeout(120, 0);
          cli->set_write_timeout(120, 0);
          const std::string path = kOps[op].path;
          const bool check_rows = !kOps[op].write;
          return [cli, bodies, path, check_rows, op](size_t i) -> std::string {
            httplib::Result res = cli->Post(path, (*bodies)[i], "application/json");
            if (!res) return "transport error: " + httplib::to_string(res.error());
            if (res->status != 200) return "HTTP " + std::to_string(res->status) + ": " + res->body.substr(0, 500);
            if (i == 0 && check_rows) {
              const nlohmann::json j = nlohmann::json::parse(res->body, nullptr, false);
              const int64_t rows = j.is_object() ? j.value("row_count", int64_t{-1}) : -1;
              if (!RowsOk(op, rows)) return "unexpected row_count " + std::to_string(rows) + " for " + (*bodies)[i];
            }
            return std::string();
          };
        };
        // Embedded first, then HTTP, on (nearly) the same graph state.
        const LevelResult e = RunLevel(clients, total, embedded, "embedded " + what);
        const LevelResult h = RunLevel(clients, total, http, "http " + what);
        results[{op, clients, false}].push_back(e);
        results[{op, clients, true}].push_back(h);
        std::fprintf(stderr, "%-30s embedded p50 %8.1f µs %9.0f req/s | http p50 %8.1f µs %9.0f req/s\n", what.c_str(),
                     e.p50_us, e.rps, h.p50_us, h.rps);
      }
    }
  }
  server->Stop();
  serving.join();
  g_cleanup.server = nullptr;
  g_cleanup.serving = nullptr;

  std::printf(
      "omnigraph-server overhead over the embedded API: %zu people, %d Knows each; %zu reads / %zu writes "
      "per level; medians of %zu runs\n\n",
      people, kKnowsPerPerson, reads, writes, runs);
  std::printf(
      "| op | clients | embedded p50 µs | embedded p99 µs | embedded req/s | http p50 µs | http p99 µs | "
      "http req/s | overhead p50 µs |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (size_t op = 0; op < std::size(kOps); ++op) {
    for (size_t clients : levels) {
      double m[2][3] = {};
      for (int is_http = 0; is_http < 2; ++is_http) {
        std::vector<double> p50, p99, rps;
        for (const LevelResult& r : results[{op, clients, is_http == 1}]) {
          p50.push_back(r.p50_us);
          p99.push_back(r.p99_us);
          rps.push_back(r.rps);
        }
        m[is_http][0] = Median(p50);
        m[is_http][1] = Median(p99);
        m[is_http][2] = Median(rps);
      }
      std::printf("| %s | %zu | %.1f | %.1f | %.0f | %.1f | %.1f | %.0f | %.1f |\n", kOps[op].name, clients, m[0][0],
                  m[0][1], m[0][2], m[1][0], m[1][1], m[1][2], m[1][0] - m[0][0]);
    }
  }
  db.reset();
  std::error_code ec;
  std::filesystem::remove_all(g_cleanup.dir, ec);
  return 0;
}
