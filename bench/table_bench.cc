// Table-format benchmark (issue 3): N rows of (id String, age I64, score F64, name String,
// tags [String], vec Vector(D)) appended to a table on LocalStore (fsync off, page cache warm),
// then: full scan of one fixed-width column vs raw sequential read bandwidth of the same files,
// a 0.1%-selectivity filtered scan (page pruning), id lookups, one 1M-row append, compressed
// size vs raw, and the sorted index (sorted runs of `age`): building the runs, then the same
// 0.1% range through them. Prints one line per measurement (median of --reps runs where repeated).
//   build/release/bench/table_bench [--rows 10000000] [--dim 128] [--reps 3] [--dir /tmp]
//                                   [--compression none|lz4|zstd]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/ulid.h"
#include "format/batch.h"
#include "format/column_builder.h"
#include "io/counting_store.h"
#include "io/local_store.h"
#include "table/id_index.h"
#include "table/scanner.h"
#include "table/sorted_index.h"
#include "table/table_version.h"
#include "table/table_writer.h"

using namespace omnigraph;

namespace {

struct Args {
  uint64_t rows = 10'000'000;
  uint32_t dim = 128;
  int reps = 3;
  std::string dir = "/tmp";
  format::Compression compression = format::Compression::kNone;
};

double Seconds(int64_t start) { return static_cast<double>(MonotonicNanos() - start) / 1e9; }

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void Check(const Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
    std::exit(1);
  }
}
template <class T>
T Take(Result<T> r, const char* what) {
  Check(r.status(), what);
  return std::move(r).value();
}

std::string IdOf(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "id-%010llu", static_cast<unsigned long long>(i));
  return buf;
}

format::Batch MakeBatch(const table::TableSchema& schema, uint64_t first, uint64_t n, uint32_t dim,
                        std::mt19937_64& rng) {
  static const char* kNames[] = {"ada", "grace", "alan", "edsger", "barbara", "donald", "ken", "radia"};
  static const char* kTags[] = {"graph", "vector", "branch", "merge", "index", "search"};
  format::ColumnBuilder id(DataType::Scalar(TypeKind::kString)), age(DataType::Scalar(TypeKind::kI64)),
      score(DataType::Scalar(TypeKind::kF64)), name(DataType::Scalar(TypeKind::kString)),
      tags(DataType::List(TypeKind::kString)), vec(DataType::Vector(dim));
  std::vector<float> v(dim);
  std::uniform_real_distribution<float> uni(-1, 1);
  for (uint64_t i = first; i < first + n; ++i) {
    id.AppendString(IdOf(i));
    age.AppendI64(static_cast<int64_t>(i));  // clustered: page statistics can prune ranges
    score.AppendF64(static_cast<double>(rng() % 100000) / 100.0);
    name.AppendString(kNames[rng() % 8]);
    std::vector<Value> t{Value::String(kTags[rng() % 6]), Value::String(kTags[rng() % 6])};
    Check(tags.AppendList(t), "tags");
    for (auto& x : v) x = uni(rng);
    Check(vec.AppendVector(v), "vec");
  }
  std::vector<format::Column> cols;
  cols.push_back(id.Finish());
  cols.push_back(age.Finish());
  cols.push_back(score.Finish());
  cols.push_back(name.Finish());
  cols.push_back(tags.Finish());
  cols.push_back(vec.Finish());
  return Take(format::Batch::Make(schema.ToFormatSchema(), std::move(cols)), "batch");
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--rows")
      a.rows = std::stoull(argv[i + 1]);
    else if (k == "--dim")
      a.dim = static_cast<uint32_t>(std::stoul(argv[i + 1]));
    else if (k == "--reps")
      a.reps = std::stoi(argv[i + 1]);
    else if (k == "--dir")
      a.dir = argv[i + 1];
    else if (k == "--compression") {
      std::string c = argv[i + 1];
      a.compression = c == "zstd"  ? format::Compression::kZstd
                      : c == "lz4" ? format::Compression::kLz4
                                   : format::Compression::kNone;
    }
  }
  std::string root = a.dir + "/og-table-bench-" + NewUlidString();
  io::LocalStoreOptions lo;
  lo.create_root = true;
  lo.fsync = false;
  auto local = std::shared_ptr<io::ObjectStore>(Take(io::LocalStore::Open(root, lo), "open"));
  auto store = std::make_shared<io::CountingStore>(local);

  std::vector<table::Field> fields = {
      {0, "id", DataType::Scalar(TypeKind::kString), false}, {0, "age", DataType::Scalar(TypeKind::kI64), false},
      {0, "score", DataType::Scalar(TypeKind::kF64), false}, {0, "name", DataType::Scalar(TypeKind::kString), false},
      {0, "tags", DataType::List(TypeKind::kString), true},  {0, "vec", DataType::Vector(a.dim), false}};
  auto schema = Take(table::TableSchema::Make(fields, "id"), "schema");
  auto base = Take(table::TableVersion::Create(*store, "tables/bench", schema), "create");
  std::printf("table_bench: %llu rows, Vector(%u), %d reps, compression %s, %s\n",
              static_cast<unsigned long long>(a.rows), a.dim, a.reps,
              std::string(format::CompressionName(a.compression)).c_str(), root.c_str());

  // 1. Write: append all rows in 1M-row writes (generation time excluded).
  std::mt19937_64 rng(42);
  const uint64_t kChunk = 1'000'000;
  double write_secs = 0, first_append_secs = 0;
  std::vector<double> append_runs;
  uint64_t raw_bytes = 0;
  table::TableVersion current = base;
  for (uint64_t first = 0; first < a.rows; first += kChunk) {
    uint64_t n = std::min(kChunk, a.rows - first);
    format::Batch b = MakeBatch(schema, first, n, a.dim, rng);
    raw_bytes += n * (8 + 8 + 13 + 5 + 14 + 4ull * a.dim);  // approximate in-memory value bytes
    int64_t t = MonotonicNanos();
    table::WriteOptions wo;
    wo.fragment.compression = a.compression;
    current = Take(table::AppendRows(current, b, wo), "append");
    double s = Seconds(t);
    if (first == 0) first_append_secs = s;
    write_secs += s;
    append_runs.push_back(s);
  }
  io::StoreCounts wrote = store->counts();
  std::printf(
      "write: %.0f rows/s, %.0f MB/s of files (%.2f s total); first 1M-row append %.3f s, "
      "median append %.3f s\n",
      static_cast<double>(a.rows) / write_secs, static_cast<double>(wrote.bytes_written) / 1e6 / write_secs, write_secs,
      first_append_secs, Median(append_runs));
  {
    // The store's own floor for such an append: one PutIfAbsent of an object the size of the first
    // fragment, its bytes already in memory (a fresh file, like every fragment).
    const uint64_t size = current.manifest().fragments.front().file_size;
    std::string bytes(size, '\x5a');
    int64_t t = MonotonicNanos();
    Check(local->PutIfAbsent("tables/bench/floor.bin", bytes), "floor put");
    double s = Seconds(t);
    Check(local->Delete("tables/bench/floor.bin"), "floor delete");
    std::printf("store floor: one PutIfAbsent of %.1f MB (bytes ready in memory): %.3f s\n", size / 1e6, s);
  }
  std::printf("size: %.1f MB on disk vs ~%.1f MB raw values (%.2fx)\n", wrote.bytes_written / 1e6, raw_bytes / 1e6,
              static_cast<double>(raw_bytes) / static_cast<double>(wrote.bytes_written));

  // 2. Raw sequential read bandwidth of the table's files (the physical limit), then a full scan
  //    of `age` (8-byte fixed width).
  std::vector<double> raw_runs, scan_runs, score_runs, filter_runs;
  uint64_t file_bytes = 0;
  for (int r = 0; r < a.reps; ++r) {
    auto files = Take(local->List("tables/bench/data/"), "list");
    int64_t t = MonotonicNanos();
    file_bytes = 0;
    for (const auto& f : files) file_bytes += Take(local->Get(f.key), "get").size();
    raw_runs.push_back(static_cast<double>(file_bytes) / Seconds(t));

    for (const char* col : {"age", "score"}) {
      table::ScanOptions o;
      o.columns = std::vector<std::string>{col};
      auto scanner = Take(current.Scan(o), "scan");
      t = MonotonicNanos();
      uint64_t rows = 0;
      double sum = 0;
      for (;;) {
        auto b = Take(scanner->Next(), "next");
        if (!b) break;
        if (col[0] == 'a') {
          for (int64_t x : b->columns()[0].i64_values()) sum += static_cast<double>(x);
        } else {
          for (double x : b->columns()[0].f64_values()) sum += x;
        }
        rows += b->num_rows();
      }
      double s = Seconds(t);
      if (rows != a.rows) std::fprintf(stderr, "scan returned %llu rows\n", static_cast<unsigned long long>(rows));
      (col[0] == 'a' ? scan_runs : score_runs).push_back(static_cast<double>(rows) / s);
      if (sum == 42) std::printf("!");
    }

    table::ScanOptions f;
    f.columns = std::vector<std::string>{"id", "score"};
    int64_t lo = static_cast<int64_t>(a.rows / 2);
    f.filter =
        table::Predicate::And({table::Predicate::Ge("age", Value::I64(lo)),
                               table::Predicate::Lt("age", Value::I64(lo + static_cast<int64_t>(a.rows / 1000)))});
    auto fs = Take(current.Scan(f), "filtered scan");
    t = MonotonicNanos();
    uint64_t hits = 0;
    for (;;) {
      auto b = Take(fs->Next(), "next");
      if (!b) break;
      hits += b->num_rows();
    }
    filter_runs.push_back(Seconds(t));
    if (r == 0) {
      std::printf("filtered scan (0.1%%): %llu rows; ranges read %llu, pruned %llu; fragments pruned %llu of %llu\n",
                  static_cast<unsigned long long>(hits), static_cast<unsigned long long>(fs->metrics().ranges_read),
                  static_cast<unsigned long long>(fs->metrics().ranges_pruned),
                  static_cast<unsigned long long>(fs->metrics().fragments_pruned),
                  static_cast<unsigned long long>(fs->metrics().fragments));
    }
  }
  double raw_bw = Median(raw_runs), scan_rps = Median(scan_runs);
  std::printf("raw sequential read: %.0f MB/s over %.1f MB of files\n", raw_bw / 1e6, file_bytes / 1e6);
  std::printf(
      "full scan of age (I64, increasing): %.0f rows/s = %.0f MB/s of column data = %.0f%% of raw read bandwidth\n",
      scan_rps, scan_rps * 8 / 1e6, 100.0 * scan_rps * 8 / raw_bw);
  double score_rps = Median(score_runs);
  std::printf(
      "full scan of score (F64, random): %.0f rows/s = %.0f MB/s of column data = %.0f%% of raw read bandwidth\n",
      score_rps, score_rps * 8 / 1e6, 100.0 * score_rps * 8 / raw_bw);
  std::printf("filtered scan (0.1%% by age range): %.4f s (median)\n", Median(filter_runs));

  // 3. Id lookups: open the index, then 1 and 1M random ids.
  std::vector<double> open_runs, one_runs, many_runs;
  for (int r = 0; r < a.reps; ++r) {
    int64_t t = MonotonicNanos();
    auto idx = Take(table::IdIndex::Open(current), "id index");
    open_runs.push_back(Seconds(t));
    std::vector<std::string> ids;
    uint64_t n = std::min<uint64_t>(1'000'000, a.rows);
    ids.reserve(n);
    for (uint64_t i = 0; i < n; ++i) ids.push_back(IdOf(rng() % a.rows));
    t = MonotonicNanos();
    auto one = idx.Lookup(ids[0]);
    one_runs.push_back(Seconds(t));
    t = MonotonicNanos();
    auto found = idx.LookupMany(ids);
    many_runs.push_back(Seconds(t));
    size_t hits = std::count_if(found.begin(), found.end(), [](const auto& x) { return x.has_value(); });
    if (!one || hits != ids.size()) std::fprintf(stderr, "lookup misses: %zu of %zu\n", ids.size() - hits, ids.size());
  }
  std::printf("id index: open %.3f s (%zu segments); 1 lookup %.1f us; 1M lookups %.3f s (%.0f lookups/s)\n",
              Median(open_runs), Take(table::IdIndex::Open(current), "idx").segment_count(), Median(one_runs) * 1e6,
              Median(many_runs), 1e6 / Median(many_runs));

  // 4. The sorted index of `age`: the runs built (credit given as four selective scans would),
  //    then the 0.1% range through them, as scan positions.
  {
    const table::FieldId age = current.schema().FindByName("age")->id;
    for (uint64_t i = 0; i < table::kScansBeforeRun; ++i) table::NoteSelectiveScan(current, age);
    const int64_t lo = static_cast<int64_t>(a.rows / 2);
    const table::IntRange range{lo, lo + static_cast<int64_t>(a.rows / 1000) - 1};
    int64_t t = MonotonicNanos();
    table::SortedStats stats;
    auto first = Take(table::SortedPositions(current, age, range, a.rows, &stats), "sorted runs");
    const double build = Seconds(t);
    std::vector<double> probe_runs;
    size_t hits = 0;
    for (int r = 0; r < a.reps; ++r) {
      t = MonotonicNanos();
      auto again = Take(table::SortedPositions(current, age, range, a.rows), "sorted positions");
      probe_runs.push_back(Seconds(t));
      hits = again ? again->size() : 0;
    }
    std::printf(
        "sorted index of age: %llu runs built in %.3f s (with the range's first answer, %zu rows); "
        "the 0.1%% range through the runs %.6f s (median), %zu rows\n",
        static_cast<unsigned long long>(stats.runs_built), build, first ? first->size() : 0, Median(probe_runs), hits);
  }

  std::error_code ec;
  std::filesystem::remove_all(root, ec);
  return 0;
}
