#include "compiler/lexer.h"

#include <gtest/gtest.h>

namespace omnigraph::compiler {
namespace {

std::vector<Token> Lex(std::string_view s, SourceLanguage lang = SourceLanguage::kSchema) {
  auto r = Tokenize(s, lang);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::vector<Token>{};
}

std::vector<TokenKind> Kinds(const std::vector<Token>& toks) {
  std::vector<TokenKind> k;
  for (const auto& t : toks) k.push_back(t.kind);
  return k;
}

TEST(Lexer, WordsAndVariables) {
  auto t = Lex("node Person $x $_ _id $Up");
  ASSERT_EQ(t.size(), 7u);
  EXPECT_EQ(t[0].kind, TokenKind::kIdent);
  EXPECT_EQ(t[0].text, "node");
  EXPECT_TRUE(t[0].IsWord("node"));
  EXPECT_EQ(t[1].kind, TokenKind::kTypeName);
  EXPECT_EQ(t[1].text, "Person");
  EXPECT_EQ(t[2].kind, TokenKind::kVariable);
  EXPECT_EQ(t[2].text, "x");
  EXPECT_EQ(t[3].text, "_");
  EXPECT_EQ(t[4].kind, TokenKind::kIdent);
  EXPECT_EQ(t[5].kind, TokenKind::kVariable);
  EXPECT_EQ(t[5].text, "Up");
  EXPECT_EQ(t[6].kind, TokenKind::kEnd);
}

TEST(Lexer, Punctuation) {
  auto t = Lex("-> .. . { } ( ) [ ] : , ? @ < > = != <= >= - *");
  std::vector<TokenKind> want = {TokenKind::kArrow,    TokenKind::kDotDot, TokenKind::kDot,    TokenKind::kLBrace,
                                 TokenKind::kRBrace,   TokenKind::kLParen, TokenKind::kRParen, TokenKind::kLBracket,
                                 TokenKind::kRBracket, TokenKind::kColon,  TokenKind::kComma,  TokenKind::kQuestion,
                                 TokenKind::kAt,       TokenKind::kLt,     TokenKind::kGt,     TokenKind::kEq,
                                 TokenKind::kNe,       TokenKind::kLe,     TokenKind::kGe,     TokenKind::kMinus,
                                 TokenKind::kStar,     TokenKind::kEnd};
  EXPECT_EQ(Kinds(t), want);
}

TEST(Lexer, Numbers) {
  auto t = Lex("0 42 1.5 2.25e-3 1..5 -7 3.x");
  ASSERT_EQ(t.size(), 13u);
  EXPECT_EQ(t[0].kind, TokenKind::kInt);
  EXPECT_EQ(t[1].text, "42");
  EXPECT_EQ(t[2].kind, TokenKind::kFloat);
  EXPECT_EQ(t[2].text, "1.5");
  EXPECT_EQ(t[3].kind, TokenKind::kFloat);
  EXPECT_EQ(t[3].text, "2.25e-3");
  EXPECT_EQ(t[4].kind, TokenKind::kInt);  // 1..5 = Int DotDot Int
  EXPECT_EQ(t[5].kind, TokenKind::kDotDot);
  EXPECT_EQ(t[6].kind, TokenKind::kInt);
  EXPECT_EQ(t[7].kind, TokenKind::kMinus);  // negative literals are the parser's job
  EXPECT_EQ(t[8].kind, TokenKind::kInt);
  EXPECT_EQ(t[9].kind, TokenKind::kInt);  // "3." is Int then Dot
  EXPECT_EQ(t[10].kind, TokenKind::kDot);
}

TEST(Lexer, ExponentsMakeFloatsAndMustBeFinite) {
  auto t = Lex("1e5 2E-3 7e+2 3ex", SourceLanguage::kQuery);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[0].kind, TokenKind::kFloat);
  EXPECT_EQ(t[0].text, "1e5");
  EXPECT_EQ(t[1].kind, TokenKind::kFloat);
  EXPECT_EQ(t[2].text, "7e+2");
  EXPECT_EQ(t[3].kind, TokenKind::kInt);  // "3ex": no digits after e
  EXPECT_EQ(t[4].kind, TokenKind::kIdent);
  for (const char* huge : {"1e999", "1.0e400", "2E+309"}) {
    auto r = Tokenize(std::string("x ") + huge, SourceLanguage::kQuery);
    ASSERT_FALSE(r.ok()) << huge;
    EXPECT_EQ(r.status().code_string(), "Q000") << huge;
    EXPECT_NE(r.status().message().find("out of range"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(huge), std::string::npos);
    EXPECT_EQ(r.status().span()->column, 3u);
  }
  // Tiny magnitudes round to zero: not an error.
  EXPECT_TRUE(Tokenize("1e-999", SourceLanguage::kQuery).ok());
}

TEST(Lexer, StringEscapes) {
  auto t = Lex(R"("a\"b\\c\nd\te\u{41}\u{1F600}")");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].kind, TokenKind::kString);
  EXPECT_EQ(t[0].text, "a\"b\\c\nd\teA\xF0\x9F\x98\x80");
  auto u = Lex("\"h\xC3\xA9llo\" x");
  EXPECT_EQ(u[0].text, "h\xC3\xA9llo");
  EXPECT_EQ(u[1].column, 9u);  // columns count code points
}

TEST(Lexer, CommentsAndSpans) {
  auto t = Lex("// c\n  node /* a\nb */ X\n");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].line, 2u);
  EXPECT_EQ(t[0].column, 3u);
  EXPECT_EQ(t[0].end_column, 7u);
  EXPECT_EQ(t[0].offset, 7u);
  EXPECT_EQ(t[0].end_offset, 11u);
  EXPECT_EQ(t[1].line, 3u);
  EXPECT_EQ(t[1].column, 6u);
  EXPECT_EQ(t[2].kind, TokenKind::kEnd);
  EXPECT_EQ(t[2].line, 4u);
  EXPECT_EQ(t[2].column, 1u);
}

void ExpectError(std::string_view src, uint32_t line, uint32_t col, std::string_view needle,
                 SourceLanguage lang = SourceLanguage::kSchema, LexLimits limits = LexLimits()) {
  auto r = Tokenize(src, lang, limits);
  ASSERT_FALSE(r.ok()) << src;
  EXPECT_EQ(r.status().code_string(), lang == SourceLanguage::kSchema ? "S000" : "Q000");
  ASSERT_TRUE(r.status().span().has_value());
  EXPECT_EQ(r.status().span()->line, line) << r.status().ToString();
  EXPECT_EQ(r.status().span()->column, col) << r.status().ToString();
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
}

TEST(Lexer, Errors) {
  ExpectError("node # x", 1, 6, "`#`");
  ExpectError("a\n  \"abc", 2, 3, "unterminated string");
  ExpectError("/* never", 1, 1, "unterminated block comment");
  ExpectError("\"\\q\"", 1, 2, "unknown escape");
  ExpectError("\"\\u{110000}\"", 1, 2, "scalar value");
  ExpectError("\"\\u{D800}\"", 1, 2, "scalar value");
  ExpectError("\"\\u41\"", 1, 2, "`{`");
  ExpectError("\"\\u{}\"", 1, 2, "malformed");
  ExpectError("x ! y", 1, 3, "`!`", SourceLanguage::kQuery);
  ExpectError("$ x", 1, 1, "variable name", SourceLanguage::kQuery);
  ExpectError("a \xFF", 1, 3, "UTF-8");
  ExpectError("\"\xC3\"", 1, 2, "UTF-8");
  ExpectError("caf\xC3\xA9", 1, 4, "unexpected character `\xC3\xA9` (U+00E9)");
  // A bidirectional override is named, not echoed (it would reorder the rest of the message).
  ExpectError("a \xE2\x80\xAE b", 1, 3, "unexpected character U+202E outside");
  ExpectError("a\x01", 1, 2, "control character");
}

TEST(Lexer, Limits) {
  LexLimits l;
  l.max_identifier_bytes = 4;
  ExpectError("abcd abcde", 1, 6, "longer than 4", SourceLanguage::kSchema, l);
  l = LexLimits();
  l.max_string_bytes = 3;
  ExpectError("\"abcdef\"", 1, 1, "longer than 3", SourceLanguage::kSchema, l);
  l = LexLimits();
  l.max_source_bytes = 3;
  ExpectError("abcd", 1, 1, "over the limit", SourceLanguage::kSchema, l);
  l = LexLimits();
  l.max_tokens = 3;
  ExpectError("a b c d", 1, 5, "tokens", SourceLanguage::kSchema, l);
  l = LexLimits();
  l.max_number_bytes = 3;
  ExpectError("1234", 1, 1, "number", SourceLanguage::kSchema, l);
}

TEST(Lexer, Describe) {
  auto t = Lex("foo Bar $v 1 \"s\" {");
  EXPECT_EQ(DescribeToken(t[0]), "identifier `foo`");
  EXPECT_EQ(DescribeToken(t[1]), "type name `Bar`");
  EXPECT_EQ(DescribeToken(t[2]), "variable `$v`");
  EXPECT_EQ(DescribeToken(t[3]), "integer `1`");
  EXPECT_EQ(DescribeToken(t[4]), "string literal");
  EXPECT_EQ(DescribeToken(t[5]), "`{`");
  EXPECT_EQ(DescribeToken(t[6]), "end of input");
  Status s = ParseErrorAt(SourceLanguage::kQuery, t[1], "boom");
  EXPECT_EQ(s.code_string(), "Q000");
  EXPECT_EQ(s.span()->column, 5u);
}

}  // namespace
}  // namespace omnigraph::compiler
