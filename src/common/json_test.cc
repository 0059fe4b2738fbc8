#include <gtest/gtest.h>

#include "common/json.h"

namespace omnigraph {
namespace {

TEST(JsonTest, ParseErrorsAreTypedNotThrown) {
  auto bad = ParseJson("{\"a\": ", "manifest");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().category(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("manifest"), std::string::npos);
  auto corrupt = ParseJson("[1,", "stored object", /*corrupt=*/true);
  EXPECT_EQ(corrupt.status().category(), StatusCode::kCorrupt);
}

TEST(JsonTest, TypedFields) {
  auto j = ParseJson(R"({"s":"x","i":-3,"u":5,"b":true,"o":{},"a":[1],"big":18446744073709551615})",
                     "doc");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(*GetString(*j, "s", "doc"), "x");
  EXPECT_EQ(*GetInt(*j, "i", "doc"), -3);
  EXPECT_EQ(*GetUint(*j, "u", "doc"), 5u);
  EXPECT_TRUE(*GetBool(*j, "b", "doc"));
  EXPECT_TRUE(GetObject(*j, "o", "doc").ok());
  EXPECT_TRUE(GetArray(*j, "a", "doc").ok());
  EXPECT_FALSE(GetString(*j, "i", "doc").ok());
  EXPECT_FALSE(GetUint(*j, "i", "doc").ok());
  EXPECT_FALSE(GetInt(*j, "big", "doc").ok());
  auto missing = GetString(*j, "nope", "doc");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'nope'"), std::string::npos);
}

TEST(JsonTest, CanonicalIsSortedAndCompact) {
  auto j = ParseJson(R"({"b":1, "a":{"d":2,"c":"ü"}})", "doc");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(CanonicalJson(*j), R"({"a":{"c":"ü","d":2},"b":1})");
}

}  // namespace
}  // namespace omnigraph
