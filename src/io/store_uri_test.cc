#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>

#include "common/error_codes.h"
#include "io/store_uri.h"

namespace omnigraph::io {
namespace {

std::string Cwd() {
  char buf[4096];
  EXPECT_NE(::getcwd(buf, sizeof(buf)), nullptr);
  return buf;
}

TEST(StoreUriTest, Paths) {
  EXPECT_EQ(ParseStoreUri("/data/g.omni")->path, "/data/g.omni");
  EXPECT_EQ(ParseStoreUri("/data/./x/../g.omni/")->path, "/data/g.omni");
  EXPECT_EQ(ParseStoreUri("./graph.omni")->path, NormalizePath(Cwd() + "/graph.omni"));
  EXPECT_EQ(ParseStoreUri("graph.omni")->ToString(), "file://" + NormalizePath(Cwd() + "/graph.omni"));
  EXPECT_EQ(ParseStoreUri("file:///abs/g")->path, "/abs/g");
  EXPECT_EQ(ParseStoreUri("file://rel/g")->path, NormalizePath(Cwd() + "/rel/g"));
  EXPECT_EQ(ParseStoreUri("file://../up")->path, NormalizePath(Cwd() + "/../up"));
  EXPECT_EQ(NormalizePath("/../../a//b/."), "/a/b");
  EXPECT_EQ(NormalizePath("/"), "/");
}

TEST(StoreUriTest, FileUrisArePercentDecoded) {
  EXPECT_EQ(ParseStoreUri("file:///tmp/my%20graph")->path, "/tmp/my graph");
  EXPECT_EQ(ParseStoreUri("file:///a%2fb%2Fc")->path, "/a/b/c");
  EXPECT_EQ(ParseStoreUri("file:///caf%C3%A9")->path, "/caf\xC3\xA9");
  EXPECT_EQ(ParseStoreUri("file:///100%25")->path, "/100%");
  // A bare path is a path, not a URI: its '%' is kept as it is.
  EXPECT_EQ(ParseStoreUri("/tmp/my%20graph")->path, "/tmp/my%20graph");
  // The canonical form parses back to the same path.
  auto odd = ParseStoreUri("/tmp/50%off");
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->ToString(), "file:///tmp/50%25off");
  EXPECT_EQ(ParseStoreUri(odd->ToString())->path, "/tmp/50%off");
  for (const char* bad : {"file:///a%", "file:///a%2", "file:///a%zz", "file:///a%g0", "file:///a%00b"}) {
    auto r = ParseStoreUri(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), ErrorCode::kBadUri) << bad;
  }
}

TEST(StoreUriTest, MemoryAndS3) {
  auto m = ParseStoreUri("memory://t1");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->scheme, StoreScheme::kMemory);
  EXPECT_EQ(m->path, "t1");
  auto s = ParseStoreUri("s3://bucket/some/prefix/");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->scheme, StoreScheme::kS3);
  EXPECT_EQ(s->bucket, "bucket");
  EXPECT_EQ(s->prefix, "some/prefix");
  EXPECT_EQ(s->ToString(), "s3://bucket/some/prefix");
}

TEST(StoreUriTest, BadUris) {
  for (const char* bad : {"", "memory://", "s3://", "s3:///x", "gs://bucket/x", "http://h/x"}) {
    auto r = ParseStoreUri(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), ErrorCode::kBadUri) << bad;
  }
}

TEST(StoreUriTest, OpenMemoryIsSharedByName) {
  auto a = OpenStore("memory://shared-test");
  auto b = OpenStore("memory://shared-test");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*a)->Put("k", "v").ok());
  EXPECT_EQ(*(*b)->Get("k"), "v");
  ForgetMemoryStore("shared-test");
  auto c = OpenStore("memory://shared-test");
  EXPECT_EQ((*c)->Get("k").status().category(), StatusCode::kNotFound);
}

TEST(StoreUriTest, OpenS3WithoutCredentialsIsAConfigError) {
  ::unsetenv("AWS_ACCESS_KEY_ID");
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  auto r = OpenStore("s3://bucket/graph");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(std::string(r.status().code_string()), "store_config") << r.status().ToString();
  EXPECT_NE(r.status().message().find("AWS_ACCESS_KEY_ID"), std::string::npos);
}

TEST(StoreUriTest, OpenLocalMissingWithoutCreate) {
  auto r = OpenStore("/nonexistent/og/path/xyz");
  EXPECT_EQ(r.status().category(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace omnigraph::io
