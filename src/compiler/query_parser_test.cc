// Tests for the .gq parser (query_parser.h) and printer (query_printer.h): every construct of
// docs/language.md, "Read queries" and "Mutations", Q000 errors with expected tokens and exact
// spans, limits, and the print -> parse round trip.
#include "compiler/query_parser.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "common/error_codes.h"
#include "compiler/query_printer.h"

namespace omnigraph::compiler {
namespace {

Query ParseOne(const std::string& src) {
  Result<QueryFile> f = ParseQueryFile(src);
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  if (!f.ok() || f->queries.size() != 1) return Query();
  return f->queries[0];
}

Status ParseError(const std::string& src) {
  Result<QueryFile> f = ParseQueryFile(src);
  EXPECT_FALSE(f.ok()) << "parsed unexpectedly: " << src;
  return f.ok() ? Status() : f.status();
}

void ExpectErrorAt(const std::string& src, uint32_t line, uint32_t col, const std::string& text) {
  Status st = ParseError(src);
  if (st.ok()) return;
  EXPECT_EQ(st.code_string(), "Q000");
  ASSERT_TRUE(st.span().has_value());
  EXPECT_EQ(st.span()->line, line) << st.ToString();
  EXPECT_EQ(st.span()->column, col) << st.ToString();
  EXPECT_NE(st.message().find(text), std::string::npos) << st.message();
}

TEST(QueryParser, ReadmeQuickTest) {
  Query q = ParseOne("query indicates() { match { $s: Signal { slug: \"s1\" } $s indicates $p } return { $p.name } }");
  EXPECT_EQ(q.name, "indicates");
  ASSERT_EQ(q.match.size(), 2u);
  EXPECT_EQ(q.match[0].kind, ClauseKind::kBinding);
  EXPECT_EQ(q.match[0].var, "s");
  EXPECT_EQ(q.match[0].type_name, "Signal");
  ASSERT_EQ(q.match[0].properties.size(), 1u);
  EXPECT_EQ(q.match[0].properties[0].property, "slug");
  EXPECT_EQ(q.match[0].properties[0].value.literal.text, "s1");
  EXPECT_EQ(q.match[1].kind, ClauseKind::kTraversal);
  EXPECT_EQ(q.match[1].src, "s");
  EXPECT_EQ(q.match[1].edge, "indicates");
  EXPECT_EQ(q.match[1].dst, "p");
  EXPECT_FALSE(q.match[1].hops.has_value());
  ASSERT_EQ(q.projections.size(), 1u);
  EXPECT_EQ(q.projections[0].expr.kind, ExprKind::kProperty);
  EXPECT_EQ(q.projections[0].expr.property, "name");
}

TEST(QueryParser, ParamsAndAnnotations) {
  Query q = ParseOne(
      "query q($a: String, $b: I64?, $c: [Date], $d: Vector(8)?, $e: DateTime)\n"
      "  @description(\"d\") @instruction(\"i\") { match { $p: P } return { $p } }");
  ASSERT_EQ(q.params.size(), 5u);
  EXPECT_EQ(q.params[0].type, DataType::Scalar(TypeKind::kString));
  EXPECT_FALSE(q.params[0].nullable);
  EXPECT_EQ(q.params[1].type, DataType::Scalar(TypeKind::kI64));
  EXPECT_TRUE(q.params[1].nullable);
  EXPECT_EQ(q.params[2].type, DataType::List(TypeKind::kDate));
  EXPECT_EQ(q.params[3].type, DataType::Vector(8));
  EXPECT_TRUE(q.params[3].nullable);
  ASSERT_EQ(q.annotations.size(), 2u);
  EXPECT_EQ(q.annotations[0].name, "description");
  EXPECT_EQ(q.annotations[1].text, "i");
}

TEST(QueryParser, TraversalForms) {
  Query q = ParseOne(
      "query q() { match { $a knows{2,5} $b $a knows{1,} $c $a <knows> $d $a $w:knows $e "
      "$a $v:<knows> $f } return { $b } }");
  ASSERT_EQ(q.match.size(), 5u);
  ASSERT_TRUE(q.match[0].hops.has_value());
  EXPECT_EQ(q.match[0].hops->min, 2u);
  EXPECT_EQ(q.match[0].hops->max, 5u);
  EXPECT_FALSE(q.match[1].hops->max.has_value());
  EXPECT_TRUE(q.match[2].undirected);
  EXPECT_EQ(q.match[3].edge_var, "w");
  EXPECT_FALSE(q.match[3].undirected);
  EXPECT_EQ(q.match[4].edge_var, "v");
  EXPECT_TRUE(q.match[4].undirected);
}

TEST(QueryParser, FiltersNotAndTextSearch) {
  Query q = ParseOne(
      "query q() { match { $p: P $p.a = 1 $p.a != 2 $p.a < 3 $p.a <= 4 $p.a > 5 $p.a >= -6 "
      "$p.t contains \"x\" $p.n starts_with \"A\" $a < $b not { $p k $x $x.z = true } "
      "search($p.t, \"q\") match_text($p.t, $q) fuzzy($p.t, \"q\", 1) "
      "search($p.t, \"w\") = false } return { $p } }");
  ASSERT_EQ(q.match.size(), 15u);
  CompareOp ops[] = {CompareOp::kEq, CompareOp::kNe,       CompareOp::kLt,         CompareOp::kLe, CompareOp::kGt,
                     CompareOp::kGe, CompareOp::kContains, CompareOp::kStartsWith, CompareOp::kLt};
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(q.match[i + 1].kind, ClauseKind::kFilter) << i;
    EXPECT_EQ(q.match[i + 1].op, ops[i]) << i;
  }
  EXPECT_EQ(q.match[6].rhs.literal.text, "-6");
  EXPECT_EQ(q.match[10].kind, ClauseKind::kNot);
  EXPECT_EQ(q.match[10].body.size(), 2u);
  EXPECT_EQ(q.match[11].kind, ClauseKind::kTextSearch);
  EXPECT_EQ(q.match[11].call.kind, ExprKind::kSearch);
  EXPECT_EQ(q.match[12].call.kind, ExprKind::kMatchText);
  EXPECT_EQ(q.match[13].call.args.size(), 3u);
  EXPECT_EQ(q.match[14].kind, ClauseKind::kFilter);
  EXPECT_EQ(q.match[14].lhs.kind, ExprKind::kSearch);
}

TEST(QueryParser, ReturnOrderLimit) {
  Query q = ParseOne(
      "query q() { match { $p: P } return { $p.name as n, count($p) sum($p.a), now(), 1.5 } "
      "order { n desc, nearest($p.v, $q) asc, rrf(nearest($p.v, $q), bm25($p.t, $s), k = 10), "
      "$p.a } limit 7 }");
  ASSERT_EQ(q.projections.size(), 5u);
  EXPECT_EQ(q.projections[0].alias, "n");
  EXPECT_EQ(q.projections[1].expr.kind, ExprKind::kAggregate);
  EXPECT_EQ(q.projections[2].expr.agg, AggFn::kSum);
  EXPECT_EQ(q.projections[3].expr.kind, ExprKind::kNow);
  EXPECT_EQ(q.projections[4].expr.literal.kind, LiteralKind::kFloat);
  ASSERT_EQ(q.order.size(), 4u);
  EXPECT_EQ(q.order[0].expr.kind, ExprKind::kAlias);
  EXPECT_EQ(q.order[0].dir, OrderDir::kDesc);
  EXPECT_EQ(q.order[1].dir, OrderDir::kAsc);
  EXPECT_EQ(q.order[2].expr.kind, ExprKind::kRrf);
  EXPECT_EQ(q.order[2].expr.args.size(), 3u);
  EXPECT_EQ(q.order[3].dir, OrderDir::kDefault);
  EXPECT_EQ(q.limit, 7u);
}

TEST(QueryParser, Mutations) {
  Query q = ParseOne(
      "query m($n: String) { insert P { name: $n, at: now(), tags: [\"a\", \"b\"], d: "
      "date(\"2024-01-02\") } update P set { age: 3 } where name = $n insert K { from: $n, to: "
      "\"x\" } }");
  ASSERT_EQ(q.mutations.size(), 3u);
  EXPECT_TRUE(q.is_mutation());
  EXPECT_EQ(q.mutations[0].kind, MutationKind::kInsert);
  EXPECT_EQ(q.mutations[0].assignments.size(), 4u);
  EXPECT_EQ(q.mutations[0].assignments[2].value.literal.kind, LiteralKind::kList);
  EXPECT_EQ(q.mutations[0].assignments[3].value.literal.kind, LiteralKind::kDate);
  EXPECT_EQ(q.mutations[1].kind, MutationKind::kUpdate);
  EXPECT_EQ(q.mutations[1].where_property, "name");
  Query d = ParseOne("query d() { delete P where age >= 3 delete K where since < 2 }");
  EXPECT_EQ(d.mutations.size(), 2u);
  EXPECT_EQ(d.mutations[0].where_op, CompareOp::kGe);
}

TEST(QueryParser, EmptyFileAndSeveralQueries) {
  Result<QueryFile> empty = ParseQueryFile("  // nothing here\n");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->queries.empty());
  Result<QueryFile> two =
      ParseQueryFile("query a() { match { $p: P } return { $p } } query b() { delete P where x = 1 }");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->queries.size(), 2u);
}

TEST(QueryParser, ErrorsNameExpectedTokensWithSpans) {
  ExpectErrorAt("query q( { }", 1, 10, "expected parameter (`$name`) or `)`, found `{`");
  ExpectErrorAt("query q() {\n  match { $p: person }\n}", 2, 15, "expected type name, found identifier `person`");
  ExpectErrorAt("query q() { match { $p: P } }", 1, 29, "expected `return`");
  ExpectErrorAt("query q() { match { $p: P } return { } }", 1, 38, "expected expression");
  ExpectErrorAt("match { }", 1, 1, "expected `query` or end of input");
  ExpectErrorAt("query q() { match { $a knows{1 $b } return { $b } }", 1, 32, "expected `,`");
  ExpectErrorAt("query q() { match { $p.a ~ 1 } return { $p } }", 1, 26, "");
  ExpectErrorAt("query q() { match { $p.a = } return { $p } }", 1, 28, "expected expression");
  ExpectErrorAt("query q() { match { $p: P } return { $p } limit x }", 1, 49, "expected integer");
  ExpectErrorAt("query q() { match { $p: P } return { $p } order { $p.a } x }", 1, 58, "expected `limit` or `}`");
  ExpectErrorAt("query q() @author(\"x\") { }", 1, 12, "expected `description` or `instruction`");
  ExpectErrorAt("query q() { update P { a: 1 } where a = 1 }", 1, 22, "expected `set`");
  ExpectErrorAt("query q() { delete P where a = b }", 1, 32, "expected literal, parameter");
  ExpectErrorAt("query q() { match { $p: P } return { foo($p) } }", 1, 38, "unknown function `foo`");
  ExpectErrorAt("query q() { match { $p: P } return { count($p, $p) } }", 1, 46, "expected `)`");
  ExpectErrorAt("query q() { match { $p: P } return { $p } limit 99999999999999999999 }", 1, 49, "out of range");
  ExpectErrorAt("query q($v: Vector(0)) { }", 1, 20, "vector dimension");
  ExpectErrorAt("query q() { match { \"unterminated } }", 1, 21, "");
}

TEST(QueryParser, MixingInsertsAndDeletesIsAParseError) {
  ExpectErrorAt("query q() {\n  update P set { a: 1 } where a = 2\n  delete P where a = 1\n}", 3, 3,
                "mixes inserts/updates and deletes; split it");
  ExpectErrorAt("query q() { delete P where a = 1 insert P { a: 1 } }", 1, 34, "mixes");
}

TEST(QueryParser, DepthAndLengthLimits) {
  std::string deep = "query q() { match { $p: P ";
  for (int i = 0; i < 200; ++i) deep += "not { ";
  deep += "$p.a = 1 ";
  for (int i = 0; i < 200; ++i) deep += "} ";
  deep += "} return { $p } }";
  Status st = ParseError(deep);
  EXPECT_EQ(st.code_string(), "Q000");
  EXPECT_NE(st.message().find("nesting is deeper than the limit"), std::string::npos);

  std::string lists = "query q() { insert P { a: ";
  for (int i = 0; i < 100000; ++i) lists += "[";
  st = ParseError(lists);
  EXPECT_EQ(st.code_string(), "Q000");

  QueryParseLimits small;
  small.lex.max_source_bytes = 16;
  st = ParseQueryFile("query q() { match { $p: P } return { $p } }", small).status();
  EXPECT_EQ(st.code_string(), "Q000");
  small = QueryParseLimits();
  small.max_queries = 1;
  st = ParseQueryFile("query a() { delete P where a = 1 } query b() { delete P where a = 1 }", small).status();
  EXPECT_EQ(st.code_string(), "Q000");
}

TEST(QueryParser, ContainsWithBareVariableParsesAsTraversal) {
  // As in the reference implementation: `$q contains $m` is a traversal over edge `contains`.
  Query q = ParseOne("query q() { match { $q contains $m $p.tags contains $m } return { $m } }");
  EXPECT_EQ(q.match[0].kind, ClauseKind::kTraversal);
  EXPECT_EQ(q.match[1].kind, ClauseKind::kFilter);
}

TEST(QueryPrinter, RoundTripIsStable) {
  const char* sources[] = {
      "query q($a: String?, $v: Vector(3), $l: [I64]) @description(\"say \\\"hi\\\"\\n\") {\n"
      " match { $p: P { name: $a, n: -3, f: 2.50, b: true, d: date(\"2020-01-01\"), "
      "t: datetime(\"2020-01-01T00:00:00Z\"), l: [1, 2], e: [] } $p k{0,} $x $p <k> $y "
      "$p $w:k $z not { $x k $p } search($p.s, \"a\\tb\") $p.s starts_with \"\\u{1F600}\" } "
      "return { $p.name as n, count($x), bm25($p.s, $a) } order { n desc, "
      "rrf(nearest($p.v, $v), bm25($p.s, $a)) } limit 3 }",
      "query m() { insert P { a: 1, b: now() } insert K { from: \"a\", to: \"b\" } "
      "update P set { } where a starts_with \"x\" }",
  };
  for (const char* src : sources) {
    Result<QueryFile> a = ParseQueryFile(src);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    std::string printed = PrintQueryFile(*a);
    Result<QueryFile> b = ParseQueryFile(printed);
    ASSERT_TRUE(b.ok()) << b.status().ToString() << "\n" << printed;
    EXPECT_EQ(PrintQueryFile(*b), printed);
  }
}

// Property test: random queries built from the grammar print and re-parse to the same tree.
TEST(QueryPrinter, RandomQueriesRoundTrip) {
  std::mt19937 rng(42);
  auto pick = [&](std::initializer_list<const char*> xs) {
    std::uniform_int_distribution<size_t> d(0, xs.size() - 1);
    return std::string(*(xs.begin() + d(rng)));
  };
  for (int iter = 0; iter < 300; ++iter) {
    std::string src = "query q" + std::to_string(iter) +
                      "($x: " + pick({"String", "I32?", "[F64]", "Vector(2)", "DateTime?"}) + ") { match { $a: A";
    int clauses = 1 + static_cast<int>(rng() % 5);
    for (int c = 0; c < clauses; ++c) {
      src += " " + pick({"$a k $b", "$a k{1,3} $b", "$a <k> $c", "$a $e:k $d", "$a.p = 1", "$a.p != \"s\"",
                         "$a.l contains 2.5", "not { $a k $z }", "search($a.t, $x)", "fuzzy($a.t, \"w\", 2)",
                         "$a.d > date(\"2020-02-02\")", "$a.p <= -7", "$x >= $a.p"});
    }
    src += " } return { " + pick({"$a", "$a.p as z", "count($a)", "$a.p, max($a.q)"}) + " }";
    if (rng() % 2) src += " order { " + pick({"$a.p desc", "z", "nearest($a.v, $x) asc"}) + " }";
    if (rng() % 2) src += " limit " + std::to_string(rng() % 100);
    src += " }";
    Result<QueryFile> a = ParseQueryFile(src);
    ASSERT_TRUE(a.ok()) << a.status().ToString() << "\n" << src;
    std::string printed = PrintQueryFile(*a);
    Result<QueryFile> b = ParseQueryFile(printed);
    ASSERT_TRUE(b.ok()) << b.status().ToString() << "\n" << printed;
    EXPECT_EQ(PrintQueryFile(*b), printed);
  }
}

}  // namespace
}  // namespace omnigraph::compiler
