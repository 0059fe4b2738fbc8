// Shared by the executor's tests: a query run on the executor and on the reference evaluator.
#pragma once

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

}  // namespace omnigraph::engine
