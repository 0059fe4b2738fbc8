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

TEST(JsonTest, ParseErrorsNameThePositionNotTheLibrary) {
  auto bad = ParseJson("{\"a\": ", "query parameters");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().find("json.exception"), std::string::npos) << bad.status().message();
  EXPECT_EQ(bad.status().message().rfind("query parameters: parse error at line 1, column 7", 0), 0u)
      << bad.status().message();
}

TEST(JsonTest, UniqueParsingRejectsRepeatedMembersAtAnyDepth) {
  EXPECT_TRUE(ParseJson(R"({"a":1,"a":2})", "doc").ok());  // plain parsing: last one wins
  auto top = ParseJsonUnique(R"({"a":1,"a":2})", "doc");
  ASSERT_FALSE(top.ok());
  EXPECT_EQ(top.status().category(), StatusCode::kInvalidArgument);
  EXPECT_NE(top.status().message().find("\"a\" appears twice"), std::string::npos);
  EXPECT_FALSE(ParseJsonUnique(R"({"x":[{"k":1},{"k":2,"k":3}]})", "doc").ok());
  // The same name in sibling or nested objects is fine.
  auto ok = ParseJsonUnique(R"({"x":{"a":1},"y":{"a":2},"a":{"a":{"a":3}}})", "doc");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)["a"]["a"]["a"], 3);
  EXPECT_FALSE(ParseJsonUnique("{", "doc").ok());
}

TEST(JsonTest, TypedFields) {
  auto j = ParseJson(R"({"s":"x","i":-3,"u":5,"b":true,"o":{},"a":[1],"big":18446744073709551615})", "doc");
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
