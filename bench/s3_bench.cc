// The same operations on local disk and on S3 (the S3 test server in this process, with injected
// latency per request), through the public embedded API: one-row commit, branch create, cold and
// warm key lookup, cold one-hop and 2-hop from a key, a bulk load, and `commit list` over 100
// commits. Prints a Markdown table: medians of --runs, S3 requests per operation (counted by the
// server), and S3 time in units of the injected latency (an upper bound of sequential round trips).
//   s3_bench [--people N] [--latency-ms MS] [--runs R]
// Results: docs/benchmarks.md ("S3").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/ulid.h"
#include "omnigraph/omnigraph.h"
#include "s3_server/s3_test_env.h"

namespace {

using omnigraph::Database;

constexpr const char* kSchema =
    "node Person { name: String @key, age: I32? }\n"
    "edge Knows: Person -> Person\n";

double NowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename T>
T Check(omnigraph::Result<T> r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, r.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(r).value();
}

struct Sample {
  double ms = 0;
  uint64_t requests = 0;
};

struct Row {
  std::vector<Sample> local, s3;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

class Backend {
 public:
  Backend(std::string uri, omnigraph::s3server::TestS3* s3) : uri_(std::move(uri)), s3_(s3) {}
  const std::string& uri() const { return uri_; }
  uint64_t requests() const { return s3_ ? s3_->server().requests() : 0; }
  // Runs `fn` and measures it.
  Sample Measure(const std::function<void()>& fn) const {
    const uint64_t before = requests();
    const double start = NowMs();
    fn();
    return Sample{NowMs() - start, requests() - before};
  }

 private:
  std::string uri_;
  omnigraph::s3server::TestS3* s3_;
};

std::string BulkData(int people) {
  std::string data;
  data.reserve(static_cast<size_t>(people) * 260);
  for (int i = 0; i < people; ++i) {
    data +=
        R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + R"(","age":)" + std::to_string(i % 90) + "}}\n";
  }
  for (int i = 0; i < people; ++i) {
    for (int k = 1; k <= 4; ++k) {
      data += R"({"edge":"Knows","from":"p)" + std::to_string(i) + R"(","to":"p)" +
              std::to_string((i * 7 + k * 7919) % people) + "\"}\n";
    }
  }
  return data;
}

}  // namespace

int main(int argc, char** argv) {
  int people = 200000;  // 5 records each (a node and 4 edges): 1M records
  int latency_ms = 20;
  int runs = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--people") people = std::atoi(argv[i + 1]);
    if (a == "--latency-ms") latency_ms = std::atoi(argv[i + 1]);
    if (a == "--runs") runs = std::atoi(argv[i + 1]);
  }
  auto s3 = Check(omnigraph::s3server::TestS3::Start({"latency=" + std::to_string(latency_ms)}), "start S3");
  for (const auto& [k, v] : s3->Env()) setenv(k.c_str(), v.c_str(), 1);
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("og-s3bench-" + omnigraph::NewUlidString())).string();
  Backend local(dir + "/g.omni", nullptr);
  Backend remote(s3->Uri(omnigraph::s3server::TestS3::NewPrefix()), s3.get());

  std::vector<std::string> order;
  std::map<std::string, Row> rows;
  auto add = [&](const std::string& name, bool is_s3, Sample s) {
    if (!rows.count(name)) order.push_back(name);
    (is_s3 ? rows[name].s3 : rows[name].local).push_back(s);
  };
  const std::string data = BulkData(people);
  const std::string lookup = R"(query q($k: String) { match { $p: Person { name: $k } } return { $p.age } })";
  const std::string hop1 =
      R"(query q($k: String) { match { $a: Person { name: $k } $a knows $b } return { $b.name } })";
  const std::string hop2 =
      R"(query q($k: String) { match { $a: Person { name: $k } $a knows $m $m knows $b } return { count($b) as n } })";
  const std::string insert = R"(query q($k: String) { insert Person { name: $k, age: 1 } })";

  for (const Backend* b : {&local, &remote}) {
    const bool is_s3 = b == &remote;
    auto db = Check(Database::Init(b->uri(), kSchema), "init");
    add("load " + std::to_string(people * 5) + " records (one commit)", is_s3,
        b->Measure([&] { Check(db->Load(data, omnigraph::LoadMode::kAppend), "load"); }));
    add("optimize (store read structures)", is_s3, b->Measure([&] { Check(db->Optimize(), "optimize"); }));
    for (int r = 0; r < runs; ++r) {
      const std::string key = "\"p" + std::to_string((r * 104729) % people) + "\"";
      const std::string params = "{\"k\":" + key + "}";
      add("cold key lookup (open + query)", is_s3, b->Measure([&] {
        auto cold = Check(Database::Open(b->uri()), "open");
        Check(cold->Query(lookup, params), "lookup");
      }));
      add("warm key lookup", is_s3, b->Measure([&] { Check(db->Query(lookup, params), "lookup"); }));
      add("cold one-hop from a key (open + query)", is_s3, b->Measure([&] {
        auto cold = Check(Database::Open(b->uri()), "open");
        Check(cold->Query(hop1, params), "one-hop");
      }));
      add("cold 2-hop count from a key (open + query)", is_s3, b->Measure([&] {
        auto cold = Check(Database::Open(b->uri()), "open");
        Check(cold->Query(hop2, params), "two-hop");
      }));
      // A new process whose --cache-dir an earlier one filled (local disk: no cache, as the CLI).
      omnigraph::OpenOptions cached;
      cached.disk_cache_dir = dir + "/cache";
      if (r == 0) Check(Check(Database::Open(b->uri(), cached), "open")->Query(hop1, "{\"k\":\"p1\"}"), "fill");
      add("cold one-hop from a key, disk cache filled before (open + query)", is_s3, b->Measure([&] {
        auto cold = Check(Database::Open(b->uri(), cached), "open");
        Check(cold->Query(hop1, params), "one-hop");
      }));
      add("branch create", is_s3,
          b->Measure([&] { Check(db->CreateBranch("b" + std::to_string(r)), "branch create"); }));
    }
    for (int c = 0; c < 100; ++c) {
      const std::string params = "{\"k\":\"new" + std::to_string(c) + "\"}";
      Sample s = b->Measure([&] { Check(db->Mutate(insert, params), "one-row commit"); });
      if (c >= 100 - runs) add("one-row commit (mutation)", is_s3, s);
    }
    for (int r = 0; r < runs; ++r) {
      add("commit list (100+ commits, cold handle)", is_s3, b->Measure([&] {
        auto cold = Check(Database::Open(b->uri()), "open");
        Check(cold->Commits("main"), "commit list");
      }));
    }
  }

  std::printf("S3 test server latency %d ms per request; %d people, %d runs (medians)\n\n", latency_ms, people, runs);
  std::printf("| operation | local ms | S3 ms | S3 / local | S3 requests | S3 ms / latency |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  for (const std::string& name : order) {
    const Row& row = rows[name];
    std::vector<double> lm, sm, sr;
    for (const Sample& s : row.local) lm.push_back(s.ms);
    for (const Sample& s : row.s3) {
      sm.push_back(s.ms);
      sr.push_back(static_cast<double>(s.requests));
    }
    const double l = Median(lm), s = Median(sm);
    std::printf("| %s | %.1f | %.1f | %.1fx | %.0f | %.1f |\n", name.c_str(), l, s, l > 0 ? s / l : 0, Median(sr),
                latency_ms > 0 ? s / latency_ms : 0);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
