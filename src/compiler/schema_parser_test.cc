#include "compiler/schema_parser.h"

#include <gtest/gtest.h>

#include "compiler/diagnostic.h"

namespace omnigraph::compiler {
namespace {

AstSchema Parse(std::string_view src) {
  auto r = ParseSchema(src);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : AstSchema{};
}

void ExpectSyntaxError(std::string_view src, uint32_t line, uint32_t col, std::string_view needle) {
  auto r = ParseSchema(src);
  ASSERT_FALSE(r.ok()) << src;
  EXPECT_EQ(r.status().code_string(), "S000");
  ASSERT_TRUE(r.status().span().has_value());
  EXPECT_EQ(r.status().span()->line, line) << r.status().ToString();
  EXPECT_EQ(r.status().span()->column, col) << r.status().ToString();
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
}

TEST(SchemaParser, QuickStartSchema) {
  // The Rust README quick test separates members with commas; they are optional separators.
  auto s = Parse(
      "node Signal { slug: String @key, title: String }\n"
      "node Pattern { slug: String @key, name: String }\n"
      "edge Indicates: Signal -> Pattern\n");
  ASSERT_EQ(s.nodes.size(), 2u);
  ASSERT_EQ(s.nodes[0].properties.size(), 2u);
  EXPECT_EQ(s.nodes[0].properties[0].annotations[0].name, "key");
  EXPECT_EQ(s.nodes[0].properties[1].name.name, "title");
  ASSERT_EQ(s.edges.size(), 1u);
  EXPECT_EQ(s.edges[0].from.name, "Signal");
  EXPECT_EQ(s.edges[0].to.name, "Pattern");
  EXPECT_FALSE(s.edges[0].card.has_value());
}

TEST(SchemaParser, DoubleCommaIsAnError) { ExpectSyntaxError("node A { a: String,, b: I32 }", 1, 20, "expected"); }

TEST(SchemaParser, FullNode) {
  auto s = Parse(R"(
interface Named { name: String @index }
node Person @description("a person") implements Named {
  age: I32? @range_hint(1)
  tags: [String]
  emb: Vector(4) @embed("name", model="m1")
  kind: enum(b, a-1, 2c)
  @key(name)
  @unique(age, tags)
  @range(age, -1..150)
  @check(name, "[A-Z].*")
  @custom(1, x=2.5)
}
edge Knows: Person -> Person @card(0..5) @weight { since: Date @index @unique(src, dst) }
edge Likes: Person -> Person @card(1..*)
edge Hates: Person -> Person @card(2..)
)");
  ASSERT_EQ(s.interfaces.size(), 1u);
  ASSERT_EQ(s.nodes.size(), 1u);
  ASSERT_EQ(s.edges.size(), 3u);
  const AstNode& n = s.nodes[0];
  EXPECT_EQ(n.name.name, "Person");
  EXPECT_EQ(n.decl_index, 0u);
  ASSERT_EQ(n.annotations.size(), 1u);
  EXPECT_EQ(n.annotations[0].args[0].value.text, "a person");
  ASSERT_EQ(n.implements.size(), 1u);
  ASSERT_EQ(n.properties.size(), 4u);
  EXPECT_TRUE(n.properties[0].type.nullable);
  EXPECT_EQ(n.properties[1].type.kind, AstType::Kind::kList);
  EXPECT_EQ(n.properties[2].type.kind, AstType::Kind::kVector);
  EXPECT_EQ(n.properties[2].type.dimension, 4u);
  EXPECT_EQ(n.properties[2].annotations[0].args[1].name, "model");
  ASSERT_EQ(n.properties[3].type.enum_values.size(), 3u);
  EXPECT_EQ(n.properties[3].type.enum_values[1].name, "a-1");
  EXPECT_EQ(n.properties[3].type.enum_values[2].name, "2c");
  ASSERT_EQ(n.constraints.size(), 4u);
  EXPECT_EQ(n.constraints[2].kind, AstConstraint::Kind::kRange);
  EXPECT_EQ(n.constraints[2].min->text, "-1");
  EXPECT_EQ(n.constraints[2].max->text, "150");
  EXPECT_EQ(n.constraints[3].pattern, "[A-Z].*");
  ASSERT_EQ(n.body_annotations.size(), 1u);
  EXPECT_EQ(n.body_annotations[0].args[1].value.kind, AstLiteral::Kind::kFloat);
  const AstEdge& e = s.edges[0];
  EXPECT_EQ(e.decl_index, 1u);
  ASSERT_TRUE(e.card.has_value());
  EXPECT_EQ(e.card->min, 0u);
  EXPECT_EQ(*e.card->max, 5u);
  EXPECT_EQ(e.annotations[0].name, "weight");
  EXPECT_FALSE(s.edges[1].card->max.has_value());
  EXPECT_FALSE(s.edges[2].card->max.has_value());
  EXPECT_EQ(s.edges[2].card->min, 2u);
}

TEST(SchemaParser, Spans) {
  auto s = Parse("node A {\n  name: String?\n}");
  const auto& p = s.nodes[0].properties[0];
  EXPECT_EQ(p.name.span.line, 2u);
  EXPECT_EQ(p.name.span.column, 3u);
  EXPECT_EQ(p.type.span.column, 9u);
  EXPECT_EQ(p.type.span.end_column, 16u);
  EXPECT_EQ(s.nodes[0].span.end_line, 3u);
}

TEST(SchemaParser, Errors) {
  ExpectSyntaxError("nod A {}", 1, 1, "`interface`, `node` or `edge`");
  ExpectSyntaxError("node a {}", 1, 6, "TypeName");
  ExpectSyntaxError("node A { Name: String }", 1, 10, "property name");
  ExpectSyntaxError("node A { name: Int }", 1, 16, "expected a type");
  ExpectSyntaxError("node A { name: [Vector(2)] }", 1, 17, "scalar type");
  ExpectSyntaxError("node A { name: String", 1, 22, "end of input");
  ExpectSyntaxError("edge E: A B", 1, 11, "`->`");
  ExpectSyntaxError("edge E: A -> B @card(1)", 1, 23, "`..`");
  ExpectSyntaxError("edge E: A -> B @card(..3)", 1, 22, "minimum");
  ExpectSyntaxError("node A { @key }", 1, 15, "`(`");
  ExpectSyntaxError("node A { @range(x, ..) }", 1, 22, "at least one bound");
  ExpectSyntaxError("node A { @check(x, 3) }", 1, 20, "regular expression");
  ExpectSyntaxError("node A { x: enum() }", 1, 18, "enum value");
  ExpectSyntaxError("node A { x: String @foo(1, 2) }", 1, 28, "name = literal");
  ExpectSyntaxError("node A # {}", 1, 8, "`#`");
  ExpectSyntaxError("node A implements { }", 1, 19, "interface name");
  ExpectSyntaxError("edge E: A -> B @card(0..1) @card(0..2)", 1, 28, "twice");
}

TEST(SchemaParser, Limits) {
  SchemaParseLimits l;
  l.max_declarations = 2;
  EXPECT_FALSE(ParseSchema("node A {} node B {} node C {}", l).ok());
  l = SchemaParseLimits();
  l.max_members = 1;
  EXPECT_FALSE(ParseSchema("node A { a: I32 b: I32 }", l).ok());
  l = SchemaParseLimits();
  l.max_enum_values = 2;
  EXPECT_FALSE(ParseSchema("node A { a: enum(x, y, z) }", l).ok());
  // Deep or long inputs never crash: a long run of braces is just a syntax error.
  std::string braces(100000, '{');
  EXPECT_FALSE(ParseSchema("node A " + braces).ok());
}

TEST(Diagnostic, RendersCaret) {
  std::string src = "node A {\n\tname: Strin\n}\n";
  auto r = ParseSchema(src);
  ASSERT_FALSE(r.ok());
  std::string out = RenderDiagnostic(r.status(), src, "a.pg");
  EXPECT_EQ(out,
            "error[S000]: expected a type (String, Blob, Bool, I32, I64, U32, U64, F32, F64, "
            "Date, DateTime, [scalar], Vector(n) or enum(...)), found type name `Strin`\n"
            " --> a.pg:2:8\n"
            "  |\n"
            "2 | \tname: Strin\n"
            "  | \t      ^^^^^\n");
}

TEST(Diagnostic, LongLinesAreCutToAWindowAroundTheSpan) {
  std::string line = std::string(500, 'a') + " BAD " + std::string(500, 'b');
  Status s = InvalidArgumentError("bad").WithSpan(SourceSpan{"", 1, 502, 1, 505});
  std::string out = RenderDiagnostic(s, line);
  // "1 | " + window + "\n": at most 200 code points of the line, with "…" (3 bytes) at each cut.
  size_t at = out.find("1 | ");
  ASSERT_NE(at, std::string::npos);
  std::string echoed = out.substr(at + 4, out.find('\n', at) - at - 4);
  EXPECT_EQ(echoed.size(), 200u + 3 + 3);
  EXPECT_EQ(echoed.substr(0, 3), "\u2026");
  EXPECT_NE(echoed.find(" BAD "), std::string::npos);
  // The carets still sit under BAD.
  std::string caret_line = out.substr(out.rfind("  | ") + 4);
  EXPECT_EQ(caret_line.find('^'), echoed.find("BAD") - 2);  // "…" is 3 bytes, 1 column
  EXPECT_EQ(caret_line.substr(caret_line.find('^')), "^^^\n");
  // A short line is echoed whole.
  EXPECT_NE(RenderDiagnostic(s.WithSpan(SourceSpan{"", 1, 1, 1, 2}), "short").find("1 | short\n"), std::string::npos);
}

TEST(Diagnostic, NonPrintableBytesAreEscaped) {
  std::string line = std::string("a\x1b[31mb\x07") + "c\xff" + "d\xe2\x80\xae" + "X";
  Status s = InvalidArgumentError("bad").WithSpan(SourceSpan{"", 1, 14, 1, 15});
  std::string out = RenderDiagnostic(s, line);
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  EXPECT_EQ(out.find('\x07'), std::string::npos);
  EXPECT_EQ(out.find('\xff'), std::string::npos);
  EXPECT_EQ(out.find("\xe2\x80\xae"), std::string::npos);  // RIGHT-TO-LEFT OVERRIDE
  EXPECT_NE(out.find("1 | a\\x1b[31mb\\x07c\\xffd\\u{202e}X\n"), std::string::npos) << out;
  // Columns 1..13 are a ESC [ 3 1 m b BEL c 0xff d U+202E (12 glyphs) then X at 13; column 14 is
  // past the end: the caret follows the text, widened escapes included.
  std::string caret_line = out.substr(out.rfind("  | ") + 4);
  EXPECT_EQ(caret_line, std::string(std::string("a\\x1b[31mb\\x07c\\xffd\\u{202e}X").size(), ' ') + "^\n");
}

TEST(Diagnostic, NoSpanAndOutOfRange) {
  Status s = InvalidArgumentError("plain");
  EXPECT_EQ(RenderDiagnostic(s, "x"), "error[invalid_argument]: plain\n");
  Status t = s.WithSpan(SourceSpan{"", 9, 1, 9, 2});
  EXPECT_EQ(RenderDiagnostic(t, "x"), "error[invalid_argument]: plain\n --> <source>:9:1\n");
  EXPECT_EQ(RenderDiagnostic(Status::Ok(), "x"), "");
}

}  // namespace
}  // namespace omnigraph::compiler
