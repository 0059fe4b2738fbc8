#include "common/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace omnigraph {
namespace {

TEST(Utf8Test, AcceptsValidText) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii\n"));
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));  // é € 😀
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));                           // U+10FFFF
}

TEST(Utf8Test, RejectsInvalidBytesAtTheirOffset) {
  EXPECT_EQ(FirstInvalidUtf8("ab\xFF"), 2u);
  EXPECT_EQ(FirstInvalidUtf8("a\x80"), 1u);                                     // a lone continuation byte
  EXPECT_EQ(FirstInvalidUtf8("a\xC3"), 1u);                                     // truncated
  EXPECT_EQ(FirstInvalidUtf8("\xC0\xAF"), 0u);                                  // overlong '/'
  EXPECT_EQ(FirstInvalidUtf8("\xE0\x80\xAF"), 0u);                              // overlong
  EXPECT_EQ(FirstInvalidUtf8("x\xED\xA0\x80"), 1u);                             // a surrogate
  EXPECT_EQ(FirstInvalidUtf8("\xF4\x90\x80\x80"), 0u);                          // above U+10FFFF
  EXPECT_EQ(FirstInvalidUtf8("ok\xE2\x82"), 2u);                                // truncated at the end
  EXPECT_EQ(FirstInvalidUtf8(std::string("a\0b", 3)), std::string_view::npos);  // NUL is valid UTF-8
}

}  // namespace
}  // namespace omnigraph

#include "common/yaml_text.h"

namespace omnigraph {
namespace {

TEST(YamlTextTest, FindsASecondDocument) {
  EXPECT_EQ(SecondYamlDocumentLine(""), 0u);
  EXPECT_EQ(SecondYamlDocumentLine("a: 1\nb: 2\n"), 0u);
  EXPECT_EQ(SecondYamlDocumentLine("# c\n---\na: 1\n...\n# end\n"), 0u);
  EXPECT_EQ(SecondYamlDocumentLine("%YAML 1.2\n---\na: 1\n"), 0u);
  EXPECT_EQ(SecondYamlDocumentLine("a: |\n  --- not a marker\n"), 0u);
  EXPECT_EQ(SecondYamlDocumentLine("a: ---x\n----\n"), 0u);
  EXPECT_EQ(SecondYamlDocumentLine("a: 1\n---\nb: 2\n"), 2u);
  EXPECT_EQ(SecondYamlDocumentLine("---\na: 1\n--- \n"), 3u);
  EXPECT_EQ(SecondYamlDocumentLine("a: 1\n...\nb: 2\n"), 3u);
  EXPECT_EQ(SecondYamlDocumentLine("---\n---\n"), 2u);
}

}  // namespace
}  // namespace omnigraph
