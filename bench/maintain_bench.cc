// Maintenance costs (docs/benchmarks.md "maintain_bench"), through the embedded C++ API on local
// disk (fsync on): on a graph of N persons and N `knows` edges loaded in one commit,
//   1. four queries (point lookup, one hop, count, filtered count): warm median on a fresh handle;
//   2. --writes small mutations (inserts, updates, deletes of nodes, edge inserts) with automatic
//      compaction OFF: median latency; the queries again (now over many small fragments);
//   3. `optimize`: wall time, fragments before/after, rows rewritten; the queries again;
//   4. `cleanup --keep 1` (grace 0): wall time, objects and bytes reclaimed;
//   5. --writes more small mutations with automatic compaction ON: median latency, the head's
//      fragments afterwards; then cleanup again.
//   build/release/bench/maintain_bench [--sizes 100000,1000000] [--writes 1000] [--reps 5] [--dir /tmp]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "omnigraph/omnigraph.h"

namespace {

using omnigraph::Database;
namespace fs = std::filesystem;

double NowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class T>
T Take(omnigraph::Result<T> r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "maintain_bench: %s: %s\n", what, r.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(r).value();
}

struct Q {
  const char* name;
  std::string text;
};

std::vector<Q> Queries(int n) {
  const std::string mid = "p" + std::to_string(n / 2);
  return {
      {"point", "query q() { match { $p: Person { name: \"" + mid + "\" } } return { $p.age } }"},
      {"one_hop", "query q() { match { $p: Person { name: \"" + mid + "\" } $p knows $f } return { count($f) } }"},
      {"count", "query q() { match { $p: Person } return { count($p) } }"},
      {"filter", "query q() { match { $p: Person $p.age > 50 } return { count($p) } }"},
  };
}

// Warm median per query on a fresh handle (one warm-up run first).
std::vector<double> MeasureQueries(const std::string& root, int n, int reps) {
  auto db = Take(Database::Open(root), "open");
  std::vector<double> out;
  for (const Q& q : Queries(n)) {
    Take(db->Query(q.text), q.name);
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      double t0 = NowMs();
      Take(db->Query(q.text), q.name);
      t.push_back(NowMs() - t0);
    }
    out.push_back(Median(t));
  }
  return out;
}

std::string Ms(const std::vector<double>& v) {
  std::string s;
  for (double x : v) {
    char b[32];
    std::snprintf(b, sizeof(b), "%s%.2f", s.empty() ? "" : " / ", x);
    s += b;
  }
  return s;
}

// `count` small mutations; returns the median latency in ms. `next` numbers new persons.
double SmallWrites(Database& db, int n, int count, int* next) {
  std::vector<double> t;
  for (int i = 0; i < count; ++i) {
    std::string q;
    const int victim = (i * 7919) % n;
    switch (i % 10) {
      case 0: case 1: case 2: case 3:
        q = "query m() { insert Person { name: \"new" + std::to_string((*next)++) + "\", age: 30 } }";
        break;
      case 4: case 5: case 6: case 7:
        q = "query m() { update Person set { age: " + std::to_string(i % 90) + " } where name = \"p" +
            std::to_string(victim) + "\" }";
        break;
      case 8:
        q = "query m() { delete Person where name = \"p" + std::to_string((victim + 1) % n) + "\" }";
        break;
      default:
        q = "query m() { insert Knows { from: \"p" + std::to_string(victim) + "\", to: \"p" +
            std::to_string((victim + 3) % n) + "\" } }";
    }
    double t0 = NowMs();
    Take(db.Mutate(q), "mutate");
    t.push_back(NowMs() - t0);
  }
  return Median(t);
}

size_t Files(const fs::path& p) {
  size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(p)) n += e.is_regular_file() ? 1 : 0;
  return n;
}

void RunSize(const std::string& dir, int n, int writes, int reps) {
  const std::string root = dir + "/og-maintain-" + std::to_string(n);
  fs::remove_all(root);
  std::string data;
  data.reserve(static_cast<size_t>(n) * 90);
  for (int i = 0; i < n; ++i) {
    data += "{\"type\":\"Person\",\"data\":{\"name\":\"p" + std::to_string(i) + "\",\"age\":" +
            std::to_string(i % 100) + "}}\n";
  }
  for (int i = 0; i < n; ++i) {
    data += "{\"edge\":\"Knows\",\"from\":\"p" + std::to_string(i) + "\",\"to\":\"p" +
            std::to_string((static_cast<int64_t>(i) * 7 + 1) % n) + "\"}\n";
  }
  omnigraph::OpenOptions off;
  off.auto_compact_fanout = 0;
  {
    auto db = Take(Database::Init(root, "node Person { name: String @key, age: I32? }\nedge Knows: Person -> Person\n",
                                  off),
                   "init");
    double t0 = NowMs();
    Take(db->Load(data, omnigraph::LoadMode::kAppend), "load");
    std::printf("N=%d: loaded %d entities in %.1f s\n", n, 2 * n, (NowMs() - t0) / 1000);
  }
  std::printf("  queries (point / one_hop / count / filter), warm median ms:\n");
  std::printf("    fresh load            %s\n", Ms(MeasureQueries(root, n, reps)).c_str());
  int next = 0;
  double write_ms;
  {
    auto db = Take(Database::Open(root, off), "open");
    write_ms = SmallWrites(*db, n, writes, &next);
  }
  std::printf("    after %d writes     %s   (write median %.2f ms, automatic compaction off)\n", writes,
              Ms(MeasureQueries(root, n, reps)).c_str(), write_ms);
  {
    auto db = Take(Database::Open(root, off), "open");
    double t0 = NowMs();
    auto o = Take(db->Optimize(), "optimize");
    const double secs = (NowMs() - t0) / 1000;
    uint64_t before = 0, after = 0, rows = 0;
    for (const auto& t : o.tables) {
      before += t.fragments_before;
      after += t.fragments_before - t.fragments_removed + t.fragments_added;
      rows += t.rows_rewritten;
    }
    std::printf("    after optimize        %s   (optimize %.2f s: fragments %llu -> %llu, %llu rows rewritten, "
                "%.0f rows/s incl. derived build)\n",
                Ms(MeasureQueries(root, n, reps)).c_str(), secs, static_cast<unsigned long long>(before),
                static_cast<unsigned long long>(after), static_cast<unsigned long long>(rows), rows / secs);
  }
  auto cleanup = [&](const char* label) {
    auto db = Take(Database::Open(root, off), "open");
    Database::CleanupOptions c;
    c.keep = 1;
    c.grace_us = 0;
    c.confirm = true;
    const size_t files_before = Files(root);
    double t0 = NowMs();
    auto r = Take(db->Cleanup(c), "cleanup");
    const double secs = (NowMs() - t0) / 1000;
    std::printf("  cleanup --keep 1 (%s): %.2f s, %llu objects (%.1f MB) reclaimed, %.0f objects/s; files %zu -> %zu\n",
                label, secs, static_cast<unsigned long long>(r.objects_removed()), r.bytes_removed() / 1e6,
                r.objects_removed() / secs, files_before, Files(root));
    std::string kinds;
    for (const auto& k : r.kinds) {
      char b[96];
      std::snprintf(b, sizeof(b), "%s%s %llu (%.1f MB)", kinds.empty() ? "" : ", ", k.kind.c_str(),
                    static_cast<unsigned long long>(k.objects), k.bytes / 1e6);
      kinds += b;
    }
    std::printf("    reclaimed: %s\n", kinds.c_str());
  };
  cleanup("after optimize");
  omnigraph::OpenOptions on;  // automatic compaction on (fanout 16)
  {
    auto db = Take(Database::Open(root, on), "open");
    write_ms = SmallWrites(*db, n, writes, &next);
    std::printf("  %d more writes, automatic compaction on: write median %.2f ms\n", writes, write_ms);
  }
  std::printf("    after auto writes     %s\n", Ms(MeasureQueries(root, n, reps)).c_str());
  cleanup("after automatic compaction");
  {
    // After cleanup --keep 1 only the head is kept: the check counts the head's objects.
    auto db = Take(Database::Open(root, off), "open");
    auto chk = Take(db->Check(true), "check");
    std::printf("  head after automatic compaction: %llu fragments, %llu index objects; check %s (%.1f MB verified)\n",
                static_cast<unsigned long long>(chk.fragments), static_cast<unsigned long long>(chk.index_objects),
                chk.ok() ? "ok" : "FAILED", chk.bytes_verified / 1e6);
  }
  fs::remove_all(root);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {100000, 1000000};
  int writes = 1000, reps = 5;
  std::string dir = "/tmp";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--sizes") {
      sizes.clear();
      for (size_t p = 0; p < v.size();) {
        size_t c = v.find(',', p);
        sizes.push_back(std::atoi(v.substr(p, c - p).c_str()));
        p = c == std::string::npos ? v.size() : c + 1;
      }
    } else if (a == "--writes") {
      writes = std::atoi(v.c_str());
    } else if (a == "--reps") {
      reps = std::atoi(v.c_str());
    } else if (a == "--dir") {
      dir = v;
    } else {
      std::fprintf(stderr, "maintain_bench: unknown flag %s\n", a.c_str());
      return 2;
    }
  }
  for (int n : sizes) RunSize(dir, n, writes, reps);
  return 0;
}
