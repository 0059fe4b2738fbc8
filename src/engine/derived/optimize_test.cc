// `optimize` (engine/derived/optimize.h) when the store cannot take the derived objects: the store's error
// comes back as it is (a full disk is resource_limit naming the path, another OS error io_error),
// never internal; after the failure a retry on a healthy store succeeds.
#include "engine/derived/optimize.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "common/error_codes.h"
#include "engine/graph/graph.h"
#include "engine/graph/graph_layout.h"
#include "engine/load/loader.h"
#include "io/fault_store.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr const char* kSchema = "node P { n: String @key }\nedge K: P -> P\n";

class OptimizeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mem_ = std::make_shared<io::MemoryStore>();
    fault_ = std::make_shared<io::FaultStore>(mem_);
    auto g = Graph::Init(mem_, kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    std::string data;
    for (int i = 0; i < 20; ++i) data += R"({"type":"P","data":{"n":"p)" + std::to_string(i) + "\"}}\n";
    for (int i = 0; i < 20; ++i) {
      data += R"({"edge":"K","from":"p)" + std::to_string(i) + R"(","to":"p)" + std::to_string((i * 3) % 20) + "\"}\n";
    }
    auto r = LoadNdjson(**g, data, LoadOptions{});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // Optimize through the fault store, whose rule fails the first write of a derived object.
  Result<OptimizeResult> OptimizeFailingWith(Status error) {
    io::FaultRule rule;
    rule.ops = io::kWriteOps;
    rule.key_contains = std::string(kDerivedPrefix);
    rule.error = std::move(error);
    fault_->AddRule(rule);
    auto g = Graph::Open(fault_, GraphOptions{});
    if (!g.ok()) return g.status();
    OG_ASSIGN_OR_RETURN(Snapshot snap, (*g)->Head("main"));
    return BuildDerivedObjects(snap);
  }
  std::shared_ptr<io::MemoryStore> mem_;
  std::shared_ptr<io::FaultStore> fault_;
};

TEST_F(OptimizeTest, FullDiskIsResourceLimitWithThePath) {
  auto r = OptimizeFailingWith(ErrnoError("write /graph/derived/x.ogord", ENOSPC));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_string(), "resource_limit") << r.status().ToString();
  EXPECT_NE(r.status().message().find("/graph/derived/x.ogord"), std::string::npos);
  EXPECT_NE(r.status().message().find("No space left on device"), std::string::npos);
  EXPECT_NE(r.status().message().find("derived object"), std::string::npos);
}

TEST_F(OptimizeTest, QuotaIsResourceLimit) {
  auto r = OptimizeFailingWith(ErrnoError("write /graph/derived/y", EDQUOT));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_string(), "resource_limit");
}

TEST_F(OptimizeTest, OtherIoErrorIsIoError) {
  auto r = OptimizeFailingWith(ErrnoError("fsync /graph/derived/z", EIO));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_string(), "io_error");
  EXPECT_NE(r.status().message().find("/graph/derived/z"), std::string::npos);
}

TEST_F(OptimizeTest, InjectedFaultIsNotInternal) {
  auto r = OptimizeFailingWith(Status());  // the fault store's own injected_fault
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().category(), StatusCode::kInternal) << r.status().ToString();
  EXPECT_EQ(r.status().code_string(), "injected_fault");
}

TEST_F(OptimizeTest, RetryAfterTheFailureSucceeds) {
  ASSERT_FALSE(OptimizeFailingWith(ErrnoError("write /graph/derived/x", ENOSPC)).ok());
  fault_->Reset();
  auto g = Graph::Open(fault_, GraphOptions{});
  ASSERT_TRUE(g.ok());
  auto snap = (*g)->Head("main");
  ASSERT_TRUE(snap.ok());
  auto r = BuildDerivedObjects(*snap);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->built + r->present, 2u);
}

}  // namespace
}  // namespace omnigraph::engine
