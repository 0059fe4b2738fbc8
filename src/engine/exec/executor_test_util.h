// Shared by the executor's tests: a query run on the executor and on the reference evaluator.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "compiler/type_checker.h"
#include "engine/derived/read_cache.h"
#include "engine/exec/executor.h"
#include "engine/exec/reference_eval.h"

namespace omnigraph::engine {

// Runs `src` (one read query, no parameters) on `snap` with `cache` and through the reference
// evaluator; both must succeed with equal rows (in order).
inline void ExpectSameAsReference(const Snapshot& snap, const std::string& src, GraphReadCache* cache) {
  auto qs = compiler::CompileQueries(snap.catalog(), src);
  ASSERT_TRUE(qs.ok()) << src << ": " << qs.status().ToString();
  auto got = ExecuteQuery(snap, qs->front(), {}, 0, cache);
  auto want = EvaluateReference(snap, qs->front(), {}, 0);
  ASSERT_TRUE(got.ok()) << src << ": " << got.status().ToString();
  ASSERT_TRUE(want.ok()) << src << ": " << want.status().ToString();
  EXPECT_EQ(got->rows, want->rows) << src;
}

// "2020-01-01" + day as a date literal's text (days < 28 * 12 * 10 stay in 2020..2029).
inline std::string TestDate(int day) {
  char b[16];
  std::snprintf(b, sizeof b, "%04d-%02d-%02d", 2020 + day / 336, 1 + day / 28 % 12, 1 + day % 28);
  return b;
}

// A small deterministic generator of test data: Next(n) is in [0, n).
struct TestLcg {
  uint64_t x;
  int Next(uint64_t n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((x >> 33) % n);
  }
};

}  // namespace omnigraph::engine
