// F32 values and Vector elements outside the F32 range (or not finite) are rejected with a typed
// error on every way in (load, mutation literals, mutation parameters), never stored as infinity
// (which exports as null and does not load back); the largest F32 round-trips.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/error_codes.h"
#include "compiler/catalog.h"
#include "engine/load/exporter.h"
#include "engine/load/loader.h"
#include "engine/mutate/mutation.h"
#include "engine/validate/load_record.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr const char* kSchema = "node Doc { name: String @key, v: Vector(2)?, f: F32? }\n";

class F32RangeTest : public ::testing::Test {
 protected:
  void SetUp() override { graph_ = NewGraph(); }
  static std::unique_ptr<Graph> NewGraph() {
    auto g = Graph::Init(std::make_shared<io::MemoryStore>(), kSchema);
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    return g.ok() ? std::move(g).value() : nullptr;
  }
  Result<LoadResult> Load(Graph& g, std::string_view data) {
    LoadOptions o;
    o.mode = LoadMode::kMerge;
    return LoadNdjson(g, data, o);
  }
  void ExpectNothingPublished(uint64_t seq) { EXPECT_EQ(graph_->Head()->seq(), seq); }
  std::string ExportAll(Graph& g) {
    std::string out;
    auto snap = g.Head();
    EXPECT_TRUE(ExportNdjson(*snap, {}, [&](std::string_view l) {
                  out += std::string(l) + "\n";
                  return Status::Ok();
                }).ok());
    return out;
  }
  std::unique_ptr<Graph> graph_;
};

TEST_F(F32RangeTest, LoadRejectsVectorElementsOutsideF32) {
  const uint64_t seq = graph_->Head()->seq();
  for (const char* line :
       {R"({"type":"Doc","data":{"name":"a","v":[1e39,0]}})", R"({"type":"Doc","data":{"name":"a","v":[0,-3.5e38]}})",
        R"({"type":"Doc","data":{"name":"a","f":1e39}})"}) {
    auto r = Load(*graph_, line);
    ASSERT_FALSE(r.ok()) << line;
    EXPECT_EQ(r.status().code(), ErrorCode::kLoadTypeMismatch) << r.status().ToString();
    EXPECT_NE(r.status().message().find("out of F32 range"), std::string::npos) << r.status().ToString();
    ExpectNothingPublished(seq);
  }
}

TEST_F(F32RangeTest, TheLargestF32RoundTrips) {
  ASSERT_TRUE(
      Load(*graph_, R"({"type":"Doc","data":{"name":"a","v":[3.4028234e38,-3.4028234e38],"f":-3.4028234e38}})").ok());
  const std::string exported = ExportAll(*graph_);
  EXPECT_EQ(exported.find("null,"), std::string::npos) << exported;
  auto other = NewGraph();
  auto r = Load(*other, exported);
  ASSERT_TRUE(r.ok()) << r.status().ToString() << "\n" << exported;
  EXPECT_EQ(ExportAll(*other), exported);
}

TEST_F(F32RangeTest, MutationLiteralsAndParametersAreChecked) {
  const uint64_t seq = graph_->Head()->seq();
  auto lit = RunMutation(*graph_, R"(query q() { insert Doc { name: "a", v: [1e39, 0] } })", "");
  ASSERT_FALSE(lit.ok());
  EXPECT_EQ(lit.status().category(), StatusCode::kInvalidArgument);
  EXPECT_NE(lit.status().message().find("out of F32 range"), std::string::npos) << lit.status().ToString();
  auto scalar = RunMutation(*graph_, R"(query q() { insert Doc { name: "a", f: 1.0e39 } })", "");
  ASSERT_FALSE(scalar.ok());
  EXPECT_NE(scalar.status().message().find("out of F32 range"), std::string::npos) << scalar.status().ToString();
  auto param =
      RunMutation(*graph_, R"(query q($v: Vector(2)) { insert Doc { name: "a", v: $v } })", R"({"v": [0, 1e39]})");
  ASSERT_FALSE(param.ok());
  EXPECT_EQ(param.status().category(), StatusCode::kInvalidArgument);
  EXPECT_NE(param.status().message().find("$v[1]"), std::string::npos) << param.status().ToString();
  ExpectNothingPublished(seq);
}

TEST_F(F32RangeTest, ConformValueRejectsNonFiniteF32) {
  compiler::Property v;
  v.name = "v";
  v.type = DataType::Vector(2);
  v.nullable = true;
  const float inf = std::numeric_limits<float>::infinity();
  for (float bad : {inf, -inf, std::numeric_limits<float>::quiet_NaN()}) {
    auto r = ConformValue(Value::Vector({0.0f, bad}), v);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kLoadTypeMismatch);
    EXPECT_NE(r.status().message().find("element 1"), std::string::npos) << r.status().ToString();
  }
  EXPECT_TRUE(ConformValue(Value::Vector({1.0f, std::numeric_limits<float>::max()}), v).ok());
  compiler::Property f;
  f.name = "f";
  f.type = DataType::Scalar(TypeKind::kF32);
  f.nullable = true;
  EXPECT_EQ(ConformValue(Value::F32(inf), f).status().code(), ErrorCode::kLoadTypeMismatch);
  EXPECT_TRUE(ConformValue(Value::F32(1.5f), f).ok());
}

}  // namespace
}  // namespace omnigraph::engine
