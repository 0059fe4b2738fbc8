// Omnigraph's side of the peer benchmark (scripts/bench.sh, docs/benchmarks.md): on the data of
// bench/peers/gen.js, measures through the embedded C++ API (in-process, like the peers):
//   - bulk load of data.ndjson (one append load = one commit) on local disk: entities/s, peak RSS;
//   - one-row commits (an insert mutation each) on local disk with fsync on: median latency;
//   - the twenty-two queries of bench/peers/run.js, cold (first run on a fresh handle) and warm
//     (median of --reps after one warm-up), asserting the answers equal the peers' (results.json).
//     "cold" is the first pass on the graph (on a freshly loaded graph: building the read
//     structures and persisting them as derived objects); "cold2" is another fresh handle (a new
//     read cache, as a new process) that loads the persisted structures.
//     q_key q_1hop q_2hop q_3hop q_agg1hop q_global2hop q_reach13 q_filter (the first eight),
//     q_top_outdeg q_top_indeg_age q_city_count q_city_age q_order_prop q_antijoin q_reach_filter
//     q_edge_filter q_edge_filter_group q_edge_filter_dst q_edge_between q_2hop_paths_key
//     q_shortest q_write_read; kQueries below has
//     each one's meaning and .gq text.
//     q_write_read (a one-row insert mutation, then the 1-hop read, timed together; the inserted
//     edge is deleted again, untimed, after each run) runs on its own handle after the cold2
//     pass, so that it changes nothing the other queries see: its "cold" is the first run
//     (the warm-up), it has no "cold2".
//   build/release/bench/query_bench --data DIR [--reps 5] [--peers results.json] [--out ours.json]
//                                   [--dir /tmp] [--source p42] [--target p7] [--graph ROOT]
//                                   [--only q_name[,q_name...]]
//   --graph ROOT: query the graph an earlier run loaded (its root is printed; runs keep it) instead
//   of loading one (--data DIR then only names the data, for its meta.json). --only: run these
//   queries only (e.g. one under perf, with a large --reps). Either skips the one-row commits (so
//   that a kept graph stays as loaded); --graph also skips q_write_read unless --only names it.
//   --source/--target: the keys SRC and DST of run.js (use the same as the peers' run).
// Graph shapes: gen.js --shape skewed (the default) makes a simple graph, --shape uniform one with
// parallel edges and self-loops. A few of the first eight queries' .gq texts count (source,
// target) pairs where the peers count edges, or let a self-loop produce the source: the same on a
// simple graph. When DIR/meta.json says the shape is not skewed, their `any_graph` forms (edge
// variables, an explicit `!= SRC`) are run instead.
// Exit status: 0 when every answer agrees with the peers' (or no peer file was given), 1 otherwise.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
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

// The queries of bench/peers/run.js in .gq (see there for each one's meaning). Where a peer counts
// DISTINCT endpoints, the query groups by the endpoint (one row per distinct node) and the answer
// is the row count. A traversal without an edge variable yields each (source, target) pair once
// (parallel edges collapse); where the peers count edges, the query binds the edge and counts it.
struct BenchQuery {
  const char* name;
  const char* source;
  enum Answer {
    kFirstString,  // the first column of the first row (null without rows)
    kRowCount,     // the number of rows
    kFirstInt,     // the first column of the one row
    kCountAvg,     // {"count": first column, "avg": second column}
    kIntOrNull,    // the first column of the first row, null without rows
    kRows,         // every row, as a list of its values
    kColumn,       // the first column of every row
    kWriteRead,    // q_write_read: the row count of the read after the insert (its own phase)
  } answer;
  // When not null: `source` relies on a simple graph (no parallel edges, no self-loops: the skewed
  // shape of gen.js) and this is the same query on any graph (the uniform shape).
  const char* any_graph;
};

const BenchQuery kQueries[] = {
    {"q_key", "query q($k: String) { match { $p: Person { pid: $k } } return { $p.name } }", BenchQuery::kFirstString,
     nullptr},
    {"q_1hop", "query q($k: String) { match { $a: Person { pid: $k } $a knows $b } return { $b.pid } }",
     BenchQuery::kRowCount, nullptr},
    {"q_2hop",
     "query q($k: String) { match { $a: Person { pid: $k } $a knows $b $b knows $c } "
     "return { $c.pid, count($b) as paths } }",
     BenchQuery::kRowCount, nullptr},
    {"q_3hop",
     "query q($k: String) { match { $a: Person { pid: $k } $a knows $b $b knows $c $c knows $d } "
     "return { $d.pid, count($c) as paths } }",
     BenchQuery::kRowCount, nullptr},
    // The peers count and average over edges: over (a, b) pairs here, unless the graph has
    // parallel edges.
    {"q_agg1hop", "query q() { match { $a: Person $a knows $b } return { count($b) as n, avg($b.age) as age } }",
     BenchQuery::kCountAvg,
     "query q() { match { $a: Person $a $e:knows $b } return { count($e) as n, avg($b.age) as age } }"},
    {"q_global2hop", "query q() { match { $a: Person $a knows $b $b knows $c } return { count($c) as paths } }",
     BenchQuery::kFirstInt,
     "query q() { match { $a: Person $a $e1:knows $b $b $e2:knows $c } return { count($e2) as paths } }"},
    // Breadth-first distance (docs/language.md, "Hop bounds"): a self-loop on the source would
    // produce the source at hop 1; the peers exclude it.
    {"q_reach13", "query q($k: String) { match { $a: Person { pid: $k } $a knows{1,3} $b } return { count($b) as n } }",
     BenchQuery::kFirstInt,
     "query q($k: String) { match { $a: Person { pid: $k } $a knows{1,3} $b $b.pid != $k } "
     "return { count($b) as n } }"},
    {"q_filter", "query q() { match { $p: Person { city: \"city7\" } $p.age > 80 } return { count($p) as n } }",
     BenchQuery::kFirstInt, nullptr},
    // One row per (a, b) pair: count($b) is the number of distinct out-neighbours.
    {"q_top_outdeg",
     "query q() { match { $a: Person $a knows $b } return { $a.pid, count($b) as n } "
     "order { n desc, $a.pid asc } limit 5 }",
     BenchQuery::kRows, nullptr},
    {"q_top_indeg_age",
     "query q() { match { $a: Person $a knows $b $a.age > 50 } return { $b.pid, count($a) as n } "
     "order { n desc, $b.pid asc } limit 5 }",
     BenchQuery::kRows, nullptr},
    {"q_city_count",
     "query q() { match { $p: Person } return { $p.city, count($p) as n } order { n desc, $p.city asc } limit 5 }",
     BenchQuery::kRows, nullptr},
    {"q_city_age",
     "query q() { match { $p: Person } return { $p.city, $p.age, count($p) as n } "
     "order { n desc, $p.city asc, $p.age asc } limit 5 }",
     BenchQuery::kRows, nullptr},
    {"q_order_prop", "query q() { match { $p: Person } return { $p.pid } order { $p.age desc, $p.pid asc } limit 10 }",
     BenchQuery::kColumn, nullptr},
    {"q_antijoin", "query q() { match { $p: Person not { $p knows $_ } } return { count($p) as n } }",
     BenchQuery::kFirstInt, nullptr},
    {"q_reach_filter",
     "query q($k: String) { match { $a: Person { pid: $k } $a knows{1,2} $b $b.age > 50 $b.pid != $k } "
     "return { count($b) as n } }",
     BenchQuery::kFirstInt, nullptr},
    {"q_edge_filter", "query q() { match { $a: Person $a $e:knows $b $e.since >= 2020 } return { count($e) as n } }",
     BenchQuery::kFirstInt, nullptr},
    // Edges kept by a selective test of their own property (since = 2024: ~1/36 of them), then
    // their destinations: grouped by a destination property, and counted under a destination test.
    {"q_edge_filter_group",
     "query q() { match { $a: Person $a $e:knows $b $e.since = 2024 } return { $b.city, count($e) as n } "
     "order { n desc, $b.city asc } limit 5 }",
     BenchQuery::kRows, nullptr},
    {"q_edge_filter_dst",
     "query q() { match { $a: Person $a $e:knows $b $e.since = 2024 $b.age > 85 } return { count($e) as n } }",
     BenchQuery::kFirstInt, nullptr},
    {"q_edge_between",
     "query q() { match { $a: Person { city: \"city7\" } $a $e:knows $b $b.age > 80 } return { count($e) as n } }",
     BenchQuery::kFirstInt, nullptr},
    {"q_2hop_paths_key",
     "query q($k: String) { match { $a: Person { pid: $k } $a $e1:knows $b $b $e2:knows $c } "
     "return { count($e2) as n } }",
     BenchQuery::kFirstInt, nullptr},
    {"q_shortest",
     "query q($s: String, $t: String) { match { $a: Person { pid: $s } $b: Person { pid: $t } "
     "$p: shortest($a knows $b) } return { length($p) as hops } }",
     BenchQuery::kIntOrNull, nullptr},
    // The read of q_write_read (q_1hop); the write and the untimed undo are kWriteRead* below.
    {"q_write_read", "query q($k: String) { match { $a: Person { pid: $k } $a knows $b } return { $b.pid } }",
     BenchQuery::kWriteRead, nullptr},
};

// q_write_read (bench/peers/run.js): timed, the insert of SRC -> TGT, then the read above; untimed
// after each run, the edge's id and its delete. TGT is fresh in every run: p0, p1, ... skipping
// SRC and the persons SRC already knows (listed by the read above before the first run).
constexpr const char* kWriteReadInsert =
    "query w($s: String, $t: String) { insert Knows { from: $s, to: $t, since: 2024 } }";
constexpr const char* kWriteReadEdgeId =
    "query q($s: String, $t: String) { match { $a: Person { pid: $s } $b: Person { pid: $t } $a $e:knows $b } "
    "return { $e.id } }";
constexpr const char* kWriteReadUndo = "query d($id: String) { delete Knows where id = $id }";

// The text run for `q`: its any_graph form on a graph that may not be simple.
const char* SourceOf(const BenchQuery& q, bool simple_graph) {
  return simple_graph || q.any_graph == nullptr ? q.source : q.any_graph;
}

// The parameters of a query text: those it declares of $k (the source key), $s (the source key)
// and $t (the target key), as a JSON object text.
std::string ParamsFor(const std::string& text, const std::string& source, const std::string& target) {
  const size_t open = text.find('(');
  const size_t close = text.find(')', open);
  const std::string declared = open == std::string::npos ? "" : text.substr(open, close - open);
  nlohmann::json p = nlohmann::json::object();
  if (declared.find("$k:") != std::string::npos) p["k"] = source;
  if (declared.find("$s:") != std::string::npos) p["s"] = source;
  if (declared.find("$t:") != std::string::npos) p["t"] = target;
  return p.dump();
}

// A result value as JSON, as the peers record it: null, a string, or a number.
nlohmann::json JsonOf(const Value& v) {
  if (v.is_null()) return nullptr;
  if (const std::string* s = v.AsString()) return *s;
  if (omnigraph::IsFloatKind(v.kind())) return v.float_value();
  if (std::optional<int64_t> i = v.AsInt64()) return *i;
  if (std::optional<uint64_t> u = v.AsUint64()) return *u;
  return v.ToString();
}

nlohmann::json AnswerOf(const BenchQuery& q, const QueryRows& rows) {
  switch (q.answer) {
    case BenchQuery::kFirstString:
      if (rows.rows.empty()) return nullptr;
      return rows.rows[0][0].string_value();
    case BenchQuery::kRowCount:
    case BenchQuery::kWriteRead: return rows.rows.size();
    case BenchQuery::kFirstInt: return rows.rows.at(0).at(0).int_value();
    case BenchQuery::kCountAvg: {
      const Value& avg = rows.rows.at(0).at(1);
      return {{"count", rows.rows.at(0).at(0).int_value()}, {"avg", avg.is_null() ? NAN : avg.float_value()}};
    }
    case BenchQuery::kIntOrNull:
      if (rows.rows.empty() || rows.rows[0].empty()) return nullptr;
      return JsonOf(rows.rows[0][0]);
    case BenchQuery::kRows: {
      nlohmann::json out = nlohmann::json::array();
      for (const std::vector<Value>& row : rows.rows) {
        nlohmann::json r = nlohmann::json::array();
        for (const Value& v : row) r.push_back(JsonOf(v));
        out.push_back(std::move(r));
      }
      return out;
    }
    case BenchQuery::kColumn: {
      nlohmann::json out = nlohmann::json::array();
      for (const std::vector<Value>& row : rows.rows) out.push_back(row.empty() ? nlohmann::json() : JsonOf(row[0]));
      return out;
    }
  }
  return nullptr;
}

bool SameAnswer(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!SameAnswer(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object() && b.is_object()) {
    if (a.value("count", -1) != b.value("count", -2)) return false;
    double x = a.value("avg", NAN), y = b.value("avg", NAN);
    return std::fabs(x - y) <= 1e-9 * std::max(1.0, std::fabs(y));
  }
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  return a == b;
}

// A time of `times` (NAN when the query has none, e.g. q_write_read's cold2).
double MsOf(const nlohmann::json& times, const char* name) {
  return times.contains(name) && times[name].is_number() ? times[name].get<double>() : NAN;
}

}  // namespace

int main(int argc, char** argv) {
  omnigraph::TuneProcessAllocator();  // as the CLI and the server do (docs/benchmarks.md)
  std::string data, peers_file, out_file, dir = "/tmp", source = "p42", target = "p7", graph;
  std::set<std::string> only;  // --only's names (empty: every query)
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
    else if (k == "--target")
      target = argv[i + 1];
    else if (k == "--graph")
      graph = argv[i + 1];
    else if (k == "--only") {
      std::string list = argv[i + 1];
      for (size_t at = 0; at <= list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        if (comma > at) only.insert(list.substr(at, comma - at));
        at = comma + 1;
      }
    } else {
      std::fprintf(stderr, "query_bench: unknown argument %s\n", k.c_str());
      return 2;
    }
  }
  for (const std::string& name : only) {
    if (std::none_of(std::begin(kQueries), std::end(kQueries), [&](const BenchQuery& q) { return name == q.name; })) {
      std::fprintf(stderr, "query_bench: --only names an unknown query %s\n", name.c_str());
      return 2;
    }
  }
  if (data.empty() && graph.empty()) {
    std::fprintf(stderr,
                 "usage: query_bench --data DIR | --graph ROOT [--reps N] [--peers results.json] [--out F] "
                 "[--dir D] [--source K] [--target K] [--only q_name[,q_name...]]\n");
    return 2;
  }
  // The graph's shape (gen.js, DIR/meta.json; skewed when unknown): which forms of kQueries run.
  std::string shape = "skewed";
  if (!data.empty()) {
    std::ifstream in(data + "/meta.json", std::ios::binary);
    if (in) {
      std::ostringstream text;
      text << in.rdbuf();
      nlohmann::json meta = nlohmann::json::parse(text.str(), nullptr, false);
      if (meta.is_object()) shape = meta.value("shape", "skewed");
    }
  }
  const bool simple_graph = shape == "skewed";
  std::printf("graph shape: %s (%s forms of the queries)\n", shape.c_str(),
              simple_graph ? "simple-graph" : "any-graph");
  const std::string root =
      !graph.empty() ? graph : dir + "/og-query-bench-" + std::to_string(static_cast<long long>(NowMs()));
  nlohmann::json out;
  out["shape"] = shape;
  out["source"] = source;
  out["target"] = target;

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
  // q_write_read is not in these passes: it has its own (2b).
  struct Planned {
    const BenchQuery* q;
    const char* text;
    std::string params;
  };
  std::vector<Planned> planned;
  for (const BenchQuery& q : kQueries) {
    if (q.answer == BenchQuery::kWriteRead || (!only.empty() && !only.contains(q.name))) continue;
    const char* text = SourceOf(q, simple_graph);
    planned.push_back({&q, text, ParamsFor(text, source, target)});
  }
  nlohmann::json answers, cold, cold2, warm;
  auto cold_pass = [&](Database& db, nlohmann::json* times) {
    for (const Planned& p : planned) {
      const BenchQuery& q = *p.q;
      double t = NowMs();
      QueryRows rows = Take(db.Query(p.text, p.params), q.name);
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
    for (const Planned& p : planned) {
      const BenchQuery& q = *p.q;
      std::vector<double> runs;
      Take(db->Query(p.text, p.params), q.name);
      for (int r = 0; r < reps; ++r) {
        double t = NowMs();
        Take(db->Query(p.text, p.params), q.name);
        runs.push_back(NowMs() - t);
      }
      warm[q.name] = Median(runs);
    }
  }
  {
    auto db = Take(Database::Open(root), "open");
    cold_pass(*db, &cold2);
  }

  // 2b. q_write_read (kQueries) on its own handle, after the passes above, so that they see the
  // graph as loaded. Per run, timed: the insert of SRC -> TGT (a one-row commit on local disk,
  // fsync on; the peers' writes are in memory) and the read; untimed: the new edge's id and its
  // delete, so that every run sees the graph as loaded plus its own edge and answers the same.
  // "cold" is the first run (the warm-up), "warm" the median of the --reps after it.
  for (const BenchQuery& q : kQueries) {
    if (q.answer != BenchQuery::kWriteRead || (only.empty() ? !graph.empty() : !only.contains(q.name))) continue;
    auto db = Take(Database::Open(root), "open");
    const std::string read_params = ParamsFor(q.source, source, target);
    QueryRows friends = Take(db->Query(q.source, read_params), "q_write_read: friends");
    // The first reads of a version go through the indexes (a hop from a key reads its lists by
    // point until it is asked for again and again, Context::PointAdjacency); this phase measures
    // a process that serves reads, whose CSR is in memory: read on until it is.
    for (int i = 0; i < 3; ++i) Take(db->Query(q.source, read_params), "q_write_read: warm-up");
    std::set<std::string> known;
    for (const std::vector<Value>& row : friends.rows) known.insert(row.at(0).string_value());
    std::vector<std::string> targets;  // p0, p1, ... but SRC and its friends: a new friend per run
    // (At least three: the node updates below take the first three.)
    for (int i = 0; static_cast<int>(targets.size()) < std::max(reps + 1, 3); ++i) {
      std::string p = "p" + std::to_string(i);
      if (p != source && known.count(p) == 0) targets.push_back(std::move(p));
    }
    std::vector<double> runs, write_part;  // the whole run, and its insert alone
    for (int r = 0; r <= reps; ++r) {
      const nlohmann::json edge = {{"s", source}, {"t", targets[r]}};
      const std::string edge_params = edge.dump();
      double t = NowMs();
      Take(db->Mutate(kWriteReadInsert, edge_params), "q_write_read: insert");
      const double written = NowMs();
      QueryRows rows = Take(db->Query(q.source, read_params), "q_write_read: read");
      const double ms = NowMs() - t;
      if (r > 0) write_part.push_back(written - t);
      QueryRows ids = Take(db->Query(kWriteReadEdgeId, edge_params), "q_write_read: edge id");
      if (ids.rows.size() != 1) {
        std::fprintf(stderr, "query_bench: q_write_read: %zu edges %s -> %s after the insert\n", ids.rows.size(),
                     source.c_str(), targets[r].c_str());
        std::exit(1);
      }
      const nlohmann::json undo = {{"id", ids.rows[0].at(0).string_value()}};
      Take(db->Mutate(kWriteReadUndo, undo.dump()), "q_write_read: delete");
      nlohmann::json a = AnswerOf(q, rows);
      if (r == 0) {
        answers[q.name] = a;
        cold[q.name] = ms;
        continue;
      }
      if (!SameAnswer(a, answers[q.name])) {
        std::fprintf(stderr, "query_bench: %s answered differently in run %d\n", q.name, r);
        std::exit(1);
      }
      runs.push_back(ms);
    }
    warm[q.name] = Median(runs);
    std::fprintf(stderr, "q_write_read: the insert alone: median %.3f ms of %zu\n", Median(write_part),
                 write_part.size());
    // Not in the table (no peer runs it): a one-row NODE insert, then the same read. A node-table
    // write changes the ordinals the CSR is numbered by: the read's hop takes its lists by point
    // (Context::PointAdjacency) and the node version's ordinals are derived (docs/benchmarks.md).
    std::vector<double> node_runs, node_writes, node_second;
    for (int r = 0; r < 3; ++r) {
      const nlohmann::json p = {{"pid", "wr-node-" + std::to_string(r)}};
      const double t = NowMs();
      Take(db->Mutate("query add($pid: String) { insert Person { pid: $pid, name: \"n\", age: 30, city: \"c\" } }",
                      p.dump()),
           "q_write_read: node insert");
      node_writes.push_back(NowMs() - t);
      Take(db->Query(q.source, read_params), "q_write_read: read after the node insert");
      node_runs.push_back(NowMs() - t);
      const double t2 = NowMs();
      Take(db->Query(q.source, read_params), "q_write_read: second read after the node insert");
      node_second.push_back(NowMs() - t2);
    }
    std::fprintf(stderr,
                 "q_write_read: a node insert then the read: median %.1f ms of %zu (the insert alone %.1f; a second "
                 "read %.2f)\n",
                 Median(node_runs), node_runs.size(), Median(node_writes), Median(node_second));
    // Also not in the table: a node UPDATE of a loaded person (its row is deleted where it was and
    // written again at the end of the table, so every ordinal after it shifts), and a node DELETE
    // of a node with an edge (the edge goes with it), each then the same read. The deleted nodes
    // are the ones inserted above, given an edge from SRC first (untimed).
    std::vector<double> update_runs, delete_runs, update_writes, delete_writes;  // whole runs, writes alone
    std::vector<double> update_reads, update_derives;                            // the read alone, the third read
    for (int r = 0; r < std::max(3, reps); ++r) {
      // A new age every time (an unchanged row writes nothing), also when a kept graph is run again.
      const int64_t age =
          1000 + std::chrono::system_clock::now().time_since_epoch() / std::chrono::microseconds(1) % 1000000;
      const nlohmann::json up = {{"pid", targets[static_cast<size_t>(r) % targets.size()]}, {"age", age}};
      double t = NowMs();
      Take(db->Mutate("query up($pid: String, $age: I64) { update Person set { age: $age } where pid = $pid }",
                      up.dump()),
           "q_write_read: node update");
      const double updated = NowMs();
      update_writes.push_back(updated - t);
      Take(db->Query(q.source, read_params), "q_write_read: read after the node update");
      update_runs.push_back(NowMs() - t);
      update_reads.push_back(NowMs() - updated);
      // The first two reads of new node versions take their lists by point; the third derives
      // the CSR (Csr::RemapNodes): timed alone.
      Take(db->Query(q.source, read_params), "q_write_read: second read after the node update");
      t = NowMs();
      Take(db->Query(q.source, read_params), "q_write_read: third read after the node update");
      update_derives.push_back(NowMs() - t);
      if (r >= 3) continue;  // (three node deletes: the nodes inserted above)
      const std::string node = "wr-node-" + std::to_string(r);
      const nlohmann::json edge = {{"s", source}, {"t", node}};
      Take(db->Mutate(kWriteReadInsert, edge.dump()), "q_write_read: edge to the node to delete");
      Take(db->Query(q.source, read_params), "q_write_read: read before the node delete");
      const nlohmann::json del = {{"pid", node}};
      t = NowMs();
      Take(db->Mutate("query del($pid: String) { delete Person where pid = $pid }", del.dump()),
           "q_write_read: node delete");
      delete_writes.push_back(NowMs() - t);
      QueryRows after = Take(db->Query(q.source, read_params), "q_write_read: read after the node delete");
      delete_runs.push_back(NowMs() - t);
      if (after.rows.size() != friends.rows.size()) {  // the graph as loaded again
        std::fprintf(stderr, "query_bench: q_write_read answered differently after a node delete\n");
        std::exit(1);
      }
    }
    std::fprintf(stderr,
                 "q_write_read: a node update then the read: median %.1f ms of %zu (the update alone %.1f, the "
                 "read alone %.2f; the version's third read %.2f)\n",
                 Median(update_runs), update_runs.size(), Median(update_writes), Median(update_reads),
                 Median(update_derives));
    std::fprintf(stderr,
                 "q_write_read: a node delete (with its edge) then the read: median %.1f ms of %zu (the delete alone "
                 "%.1f)\n",
                 Median(delete_runs), delete_runs.size(), Median(delete_writes));
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
  if (peers.is_object() && (peers.value("source", source) != source || peers.value("target", target) != target)) {
    std::fprintf(stderr, "query_bench: warning: the peers ran with --source %s --target %s, ours with %s %s\n",
                 peers.value("source", source).c_str(), peers.value("target", target).c_str(), source.c_str(),
                 target.c_str());
  }
  std::printf("%-20s %10s %10s %10s", "query", "cold ms", "cold2 ms", "warm ms");
  std::vector<std::pair<std::string, nlohmann::json>> peer_rows;
  if (peers.contains("peers")) {
    for (const auto& p : peers["peers"]) {
      if (p.value("ok", false)) peer_rows.emplace_back(p.value("peer", "?"), p);
    }
  }
  for (const auto& [name, p] : peer_rows) std::printf(" %10s", name.c_str());
  std::printf("  ratio to fastest peer  answer\n");
  for (const BenchQuery& q : kQueries) {
    if (!answers.contains(q.name)) continue;  // not run (--only, or q_write_read with --graph)
    std::printf("%-20s %10.3f %10.3f %10.3f", q.name, MsOf(cold, q.name), MsOf(cold2, q.name), MsOf(warm, q.name));
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
    double ratio = MsOf(warm, q.name) / best;
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
