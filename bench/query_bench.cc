// Omnigraph's side of the peer benchmark (scripts/bench.sh, docs/benchmarks.md): on the data of
// bench/peers/gen.js, measures through the embedded C++ API (in-process, like the peers):
//   - bulk load of data.ndjson (one append load = one commit) on local disk: entities/s, peak RSS;
//   - one-row commits (an insert mutation each) on local disk with fsync on: median latency;
//   - the eight queries of bench/peers/run.js, cold (first run on a fresh handle) and warm
//     (median of --reps after one warm-up), asserting the answers equal the peers' (results.json).
//     "cold" is the first pass on the graph (on a freshly loaded graph: building the read
//     structures and persisting them as derived objects); "cold2" is another fresh handle (a new
//     read cache, as a new process) that loads the persisted structures.
//   build/release/bench/query_bench --data DIR [--reps 5] [--peers results.json] [--out ours.json]
//                                   [--dir /tmp] [--source p42] [--graph ROOT] [--only q_name]
//   --graph ROOT: query the graph an earlier run loaded (its root is printed; runs keep it) instead
//   of loading one. --only: run one query (e.g. under perf, with a large --reps). Either skips the
//   one-row commits (so that a kept graph stays as loaded).
// Exit status: 0 when every answer agrees with the peers' (or no peer file was given), 1 otherwise.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "omnigraph/omnigraph.h"

namespace {

using omnigraph::Database;
using omnigraph::QueryRows;
using omnigraph::Value;

double NowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double PeakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "query_bench: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

template <class T>
T Take(omnigraph::Result<T> r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "query_bench: %s: %s\n", what, r.status().ToString().c_str());
    std::exit(2);
  }
  return std::move(r).value();
}

// The queries of bench/peers/run.js in .gq. Where a peer counts DISTINCT endpoints, the query
// groups by the endpoint (one row per distinct node) and the answer is the row count.
struct BenchQuery {
  const char* name;
  const char* source;
  enum Answer { kFirstString, kRowCount, kFirstInt, kCountAvg } answer;
};

const BenchQuery kQueries[] = {
    {"q_key", "query q($k: String) { match { $p: Person { pid: $k } } return { $p.name } }", BenchQuery::kFirstString},
    {"q_1hop", "query q($k: String) { match { $a: Person { pid: $k } $a knows $b } return { $b.pid } }",
     BenchQuery::kRowCount},
    {"q_2hop",
     "query q($k: String) { match { $a: Person { pid: $k } $a knows $b $b knows $c } "
     "return { $c.pid, count($b) as paths } }",
     BenchQuery::kRowCount},
    {"q_3hop",
     "query q($k: String) { match { $a: Person { pid: $k } $a knows $b $b knows $c $c knows $d } "
     "return { $d.pid, count($c) as paths } }",
     BenchQuery::kRowCount},
    {"q_agg1hop", "query q() { match { $a: Person $a knows $b } return { count($b) as n, avg($b.age) as age } }",
     BenchQuery::kCountAvg},
    {"q_global2hop", "query q() { match { $a: Person $a knows $b $b knows $c } return { count($c) as paths } }",
     BenchQuery::kFirstInt},
    {"q_reach13", "query q($k: String) { match { $a: Person { pid: $k } $a knows{1,3} $b } return { count($b) as n } }",
     BenchQuery::kFirstInt},
    {"q_filter", "query q() { match { $p: Person { city: \"city7\" } $p.age > 80 } return { count($p) as n } }",
     BenchQuery::kFirstInt},
};

nlohmann::json AnswerOf(const BenchQuery& q, const QueryRows& rows) {
  switch (q.answer) {
    case BenchQuery::kFirstString:
      if (rows.rows.empty()) return nullptr;
      return rows.rows[0][0].string_value();
    case BenchQuery::kRowCount: return rows.rows.size();
    case BenchQuery::kFirstInt: return rows.rows.at(0).at(0).int_value();
    case BenchQuery::kCountAvg: {
      const Value& avg = rows.rows.at(0).at(1);
      return {{"count", rows.rows.at(0).at(0).int_value()}, {"avg", avg.is_null() ? NAN : avg.float_value()}};
    }
  }
  return nullptr;
}

bool SameAnswer(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_object() && b.is_object()) {
    if (a.value("count", -1) != b.value("count", -2)) return false;
    double x = a.value("avg", NAN), y = b.value("avg", NAN);
    return std::fabs(x - y) <= 1e-9 * std::max(1.0, std::fabs(y));
  }
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  return a == b;
}

}  // namespace

int main(int argc, char** argv) {
  std::string data, peers_file, out_file, dir = "/tmp", source = "p42", graph, only;
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--data")
      data = argv[i + 1];
    else if (k == "--reps")
      reps = std::max(1, std::atoi(argv[i + 1]));
    else if (k == "--peers")
      peers_file = argv[i + 1];
    else if (k == "--out")
      out_file = argv[i + 1];
    else if (k == "--dir")
      dir = argv[i + 1];
    else if (k == "--source")
      source = argv[i + 1];
    else if (k == "--graph")
      graph = argv[i + 1];
    else if (k == "--only")
      only = argv[i + 1];
    else {
      std::fprintf(stderr, "query_bench: unknown argument %s\n", k.c_str());
      return 2;
    }
  }
  if (data.empty() && graph.empty()) {
    std::fprintf(stderr,
                 "usage: query_bench --data DIR | --graph ROOT [--reps N] [--peers results.json] [--out F] "
                 "[--dir D] [--source K] [--only q_name]\n");
    return 2;
  }
  const std::string root =
      !graph.empty() ? graph : dir + "/og-query-bench-" + std::to_string(static_cast<long long>(NowMs()));
  nlohmann::json out;

  // 1. Bulk load (the file is read before the clock starts; the peers' CSV parse is in theirs).
  if (graph.empty()) {
    const std::string schema = ReadFile(data + "/schema.pg");
    const std::string ndjson = ReadFile(data + "/data.ndjson");
    auto db = Take(Database::Init(root, schema), "init");
    double t = NowMs();
    auto loaded = Take(db->Load(ndjson, omnigraph::LoadMode::kAppend), "load");
    double ms = NowMs() - t;
    out["load"] = {{"ms", ms},
                   {"records", loaded.records},
                   {"records_per_s", static_cast<double>(loaded.records) / (ms / 1000)},
                   {"peak_rss_mb", PeakRssMb()}};
    std::printf("load: %llu records in %.0f ms (%.0f records/s), peak RSS %.0f MB (graph %s)\n",
                static_cast<unsigned long long>(loaded.records), ms, static_cast<double>(loaded.records) / (ms / 1000),
                PeakRssMb(), root.c_str());
  }

  // 2. Queries: cold = first run on a freshly opened handle (OS page cache warm); warm = median.
  nlohmann::json params = {{"k", source}};
  const std::string params_json = params.dump();
  nlohmann::json answers, cold, cold2, warm;
  auto cold_pass = [&](Database& db, nlohmann::json* times) {
    for (const BenchQuery& q : kQueries) {
      if (!only.empty() && only != q.name) continue;
      double t = NowMs();
      const bool keyed = std::string(q.source).find("$k") != std::string::npos;
      QueryRows rows = Take(db.Query(q.source, keyed ? params_json : "{}"), q.name);
      (*times)[q.name] = NowMs() - t;
      nlohmann::json a = AnswerOf(q, rows);
      if (answers.contains(q.name) && !SameAnswer(a, answers[q.name])) {
        std::fprintf(stderr, "query_bench: %s answered differently on a fresh handle\n", q.name);
        std::exit(1);
      }
      answers[q.name] = a;
    }
  };
  {
    auto db = Take(Database::Open(root), "open");
    cold_pass(*db, &cold);
    for (const BenchQuery& q : kQueries) {
      if (!only.empty() && only != q.name) continue;
      const std::string p = std::string(q.source).find("$k") != std::string::npos ? params_json : "{}";
      std::vector<double> runs;
      Take(db->Query(q.source, p), q.name);
      for (int r = 0; r < reps; ++r) {
        double t = NowMs();
        Take(db->Query(q.source, p), q.name);
        runs.push_back(NowMs() - t);
      }
      warm[q.name] = Median(runs);
    }
  }
  {
    auto db = Take(Database::Open(root), "open");
    cold_pass(*db, &cold2);
  }
  out["answers"] = answers;
  out["cold_ms"] = cold;
  out["cold2_ms"] = cold2;
  out["warm_ms"] = warm;

  // 3. One-row commits with fsync on (the default), each an insert mutation: median latency.
  if (graph.empty() && only.empty()) {
    auto db = Take(Database::Open(root), "open");
    std::vector<double> runs;
    for (int i = 0; i < 30; ++i) {
      nlohmann::json p = {{"pid", "bench-" + std::to_string(i)}};
      double t = NowMs();
      Take(db->Mutate("query add($pid: String) { insert Person { pid: $pid, name: \"n\", age: 30, city: \"c\" } }",
                      p.dump()),
           "one-row commit");
      runs.push_back(NowMs() - t);
    }
    out["one_row_commit_ms"] = Median(runs);
    std::printf("one-row commit (local disk, fsync on): median %.2f ms of %zu\n", Median(runs), runs.size());
  }

  // 4. Compare with the peers.
  int status = 0;
  nlohmann::json peers;
  if (!peers_file.empty()) {
    peers = nlohmann::json::parse(ReadFile(peers_file), nullptr, false);
    if (peers.is_discarded()) {
      std::fprintf(stderr, "query_bench: %s is not JSON\n", peers_file.c_str());
      return 2;
    }
  }
  std::printf("%-14s %10s %10s %10s", "query", "cold ms", "cold2 ms", "warm ms");
  std::vector<std::pair<std::string, nlohmann::json>> peer_rows;
  if (peers.contains("peers")) {
    for (const auto& p : peers["peers"]) {
      if (p.value("ok", false)) peer_rows.emplace_back(p.value("peer", "?"), p);
    }
  }
  for (const auto& [name, p] : peer_rows) std::printf(" %10s", name.c_str());
  std::printf("  ratio to fastest peer  answer\n");
  for (const BenchQuery& q : kQueries) {
    if (!only.empty() && only != q.name) continue;
    std::printf("%-14s %10.3f %10.3f %10.3f", q.name, cold[q.name].get<double>(), cold2[q.name].get<double>(),
                warm[q.name].get<double>());
    double best = INFINITY;
    for (const auto& [name, p] : peer_rows) {
      double ms = NAN;
      if (p.contains("queries") && p["queries"].contains(q.name)) {
        const auto& e = p["queries"][q.name];
        ms = e.is_number() ? e.get<double>() : e.value("median_ms", NAN);
      }
      std::printf(" %10.3f", ms);
      if (!std::isnan(ms)) best = std::min(best, ms);
    }
    double ratio = warm[q.name].get<double>() / best;
    std::string verdict = "-";
    if (peers.contains("answers") && peers["answers"].contains(q.name)) {
      bool same = SameAnswer(answers[q.name], peers["answers"][q.name]);
      verdict = same ? "agrees"
                     : "DIFFERS (ours " + answers[q.name].dump() + ", peers " + peers["answers"][q.name].dump() + ")";
      if (!same) status = 1;
    }
    std::printf("  %8.2fx  %s\n", std::isinf(best) ? NAN : ratio, verdict.c_str());
  }
  if (!out_file.empty()) {
    std::ofstream f(out_file);
    f << out.dump(2) << "\n";
  }
  return status;
}
