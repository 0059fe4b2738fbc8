// The long run (docs/decisions.md "Maintenance"): a graph written by many single-row commits with
// automatic compaction on stays bounded without anyone running optimize, and after
// `cleanup --keep 1` it holds O(live data) objects (table data and history metadata alike). OG_LONGRUN_COMMITS sets the
// number of commits (default 1,000; `ctest -L large` runs 10,000). The bounds are counts, never times; the timings it
// prints are for the record (docs/benchmarks.md).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/clock.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph {
namespace {

namespace fs = std::filesystem;

size_t FilesUnder(const fs::path& dir) {
  size_t n = 0;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) n += e.is_regular_file() ? 1 : 0;
  return n;
}

TEST(MaintenanceLongRun, SingleRowCommitsStayBoundedAndCleanupLeavesLiveData) {
  const char* env = std::getenv("OG_LONGRUN_COMMITS");
  const int n = env != nullptr ? std::atoi(env) : 1000;
  ASSERT_GT(n, 0);
  setenv("OMNIGRAPH_FSYNC", "0", 1);
  // Its own clock (every read moves it 1 ms), so ids made by earlier tests in this process never
  // look younger than this run's objects.
  ScopedTestClock clock;
  clock.SetTick(1000);
  const fs::path root = fs::temp_directory_path() / ("og-longrun-" + std::to_string(::getpid()));
  fs::remove_all(root);
  OpenOptions o;  // automatic compaction on (fanout 16)
  auto db = std::move(Database::Init(root.string(), "node Person { name: String @key, n: I64 }", o)).value();
  constexpr const char* kInsert = "query m($name: String, $n: I64) { insert Person { name: $name, n: $n } }";
  constexpr const char* kCount = "query q() { match { $p: Person } return { count($p) } }";
  const int64_t start = MonotonicNanos();
  int64_t first_query_us = 0;
  for (int i = 0; i < n; ++i) {
    const std::string params = R"({"name":"p)" + std::to_string(i) + R"(","n":)" + std::to_string(i) + "}";
    auto m = db->Mutate(kInsert, params);
    ASSERT_TRUE(m.ok()) << i << ": " << m.status().ToString();
    if (i == 99) {
      const int64_t q0 = MonotonicNanos();
      ASSERT_TRUE(db->Query(kCount).ok());
      first_query_us = (MonotonicNanos() - q0) / 1000;
    }
  }
  const double write_secs = static_cast<double>(MonotonicNanos() - start) / 1e9;
  // A cold handle's first count and a point lookup.
  auto cold = std::move(Database::Open(root.string())).value();
  const int64_t q0 = MonotonicNanos();
  auto count = cold->Query(kCount);
  const int64_t cold_query_us = (MonotonicNanos() - q0) / 1000;
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(count->rows.at(0).at(0).int_value(), n);
  auto point = cold->Query(R"(query q() { match { $p: Person { name: "p7" } } return { $p.n } })");
  ASSERT_TRUE(point.ok());
  EXPECT_EQ(point->rows.at(0).at(0).int_value(), 7);

  // Bounded without optimize: size tiers keep at most fanout - 1 fragments per populated tier
  // (tiers 0..4 below 65,536 rows) plus the large ones.
  auto before = cold->Check(/*verify_data=*/false);
  ASSERT_TRUE(before.ok());
  const size_t files_before = FilesUnder(root / "tables");

  clock.Advance(int64_t{2} * 3600 * 1000000);
  Database::CleanupOptions c;
  c.keep = 1;
  c.grace_us = 0;  // no other writer
  c.confirm = true;
  const int64_t c0 = MonotonicNanos();
  auto cleaned = cold->Cleanup(c);
  const double cleanup_secs = static_cast<double>(MonotonicNanos() - c0) / 1e9;
  ASSERT_TRUE(cleaned.ok()) << cleaned.status().ToString();
  EXPECT_TRUE(cleaned->completed);
  auto after = cold->Check();
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->ok()) << (after->problems.empty() ? "" : after->problems[0].message);
  EXPECT_LE(after->fragments, 5u * 15u) << "the head's fragments are not bounded by the size tiers";
  EXPECT_LE(after->index_objects, 5u * 15u + 5u);
  // O(live data): what is left under tables/ is the head's manifest, fragments, deletion vectors and
  // index segments, however many commits made them.
  const size_t files_after = FilesUnder(root / "tables");
  EXPECT_LE(files_after, after->manifests + after->fragments + after->deletion_vectors + after->index_objects + 1);
  EXPECT_LE(files_after, 200u);
  // The history went with its data: the head's commit object, the head's ref entry and its
  // predecessor (plus the truncation floor and the HEAD hint), one cleanup record, one schema.
  EXPECT_EQ(FilesUnder(root / "commits"), 1u);
  EXPECT_LE(FilesUnder(root / "refs"), 4u);
  EXPECT_EQ(FilesUnder(root / "audit"), 1u);
  auto listed = cold->Commits("main");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(listed->size(), 1u);
  auto again = cold->Query(kCount);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->rows.at(0).at(0).int_value(), n);
  std::printf(
      "longrun: %d single-row commits in %.1f s (%.2f ms/commit); count query %lld us at 100 rows, %lld us cold at "
      "%d rows; head fragments %llu; files under tables/ %zu before cleanup, %zu after (%.2f s, %llu objects, %llu "
      "bytes)\n",
      n, write_secs, write_secs * 1000 / n, static_cast<long long>(first_query_us),
      static_cast<long long>(cold_query_us), n, static_cast<unsigned long long>(after->fragments), files_before,
      files_after, cleanup_secs, static_cast<unsigned long long>(cleaned->objects_removed()),
      static_cast<unsigned long long>(cleaned->bytes_removed()));
  fs::remove_all(root);
}

}  // namespace
}  // namespace omnigraph
