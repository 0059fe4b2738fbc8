// Tests for the type checker (type_checker.h): resolved IR details and error codes/messages that
// the golden corpus (tests/compiler/query/) does not pin down.
#include "compiler/type_checker.h"

#include <gtest/gtest.h>

#include <string>

#include "compiler/catalog_builder.h"
#include "compiler/query_select.h"

namespace omnigraph::compiler {
namespace {

constexpr const char* kSchema = R"(
node Person {
  name: String @key
  age: I32?
  tags: [String]?
  avatar: Blob?
  born: Date?
  status: enum(a, b)?
  emb: Vector(2)?
}
node Org { code: I32 @key, label: String }
edge Knows: Person -> Person { since: I32? }
edge Member: Person -> Org
)";

class TypeCheckerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<Catalog> c = CompileSchema(kSchema);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    catalog_ = std::move(*c);
  }
  Result<IrQuery> Check(const std::string& src) {
    Result<std::vector<IrQuery>> r = CompileQueries(catalog_, src);
    if (!r.ok()) return r.status();
    if (r->size() != 1) return InternalError("expected one query");
    return std::move((*r)[0]);
  }
  void ExpectError(const std::string& src, std::string_view code, const std::string& text) {
    Result<IrQuery> r = Check(src);
    ASSERT_FALSE(r.ok()) << "compiled: " << src;
    EXPECT_EQ(r.status().code_string(), code) << r.status().ToString();
    EXPECT_NE(r.status().message().find(text), std::string::npos) << r.status().message();
    EXPECT_TRUE(r.status().span().has_value());
  }
  Catalog catalog_;
};

TEST_F(TypeCheckerTest, ReadmeQuickTest) {
  Result<Catalog> c = CompileSchema(
      "node Signal { slug: String @key, title: String }\n"
      "node Pattern { slug: String @key, name: String }\n"
      "edge Indicates: Signal -> Pattern\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto r = CompileQueries(
      *c, "query indicates() { match { $s: Signal { slug: \"s1\" } $s indicates $p } return { $p.name } }");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const IrQuery& q = (*r)[0];
  ASSERT_EQ(q.variables.size(), 2u);
  EXPECT_EQ(q.variables[1].type_name, "Pattern");  // inferred from the edge
  EXPECT_EQ(q.clauses[1].edge_type, "Indicates");
  EXPECT_EQ(q.projections[0].name, "p.name");  // `variable.property`, as the Rust implementation
  EXPECT_EQ(q.clauses[0].equalities[0].value.literal, Value::String("s1"));
}

TEST_F(TypeCheckerTest, LiteralsTakeThePropertyType) {
  auto r = Check(
      "query q() { match { $p: Person { age: 3 } $p.born > \"2020-01-02\" "
      "$p.age < 2.5 } return { $p.name } }");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->clauses[0].equalities[0].value.literal.kind(), TypeKind::kI32);
  const IrExpr& born = r->clauses[1].rhs;
  EXPECT_EQ(born.literal.kind(), TypeKind::kDate);
  EXPECT_EQ(born.literal.int_value(), 18263);
  EXPECT_EQ(r->clauses[2].rhs.literal.kind(), TypeKind::kF64);  // compared numerically
}

TEST_F(TypeCheckerTest, ParameterWideningAndMismatch) {
  EXPECT_TRUE(Check("query q($a: I32) { insert Person { name: \"x\", age: $a } }").ok());
  ExpectError("query q($a: I64) { insert Person { name: \"x\", age: $a } }", "T7", "parameter $a has type I64");
  ExpectError("query q($a: String) { match { $p: Person { age: $a } } return { $p.name } }", "T3", "has type String");
  // Matching and where compare values: any numeric parameter fits a numeric property.
  EXPECT_TRUE(Check("query q($a: F64) { match { $p: Person { age: $a } } return { $p.name } }").ok());
  EXPECT_TRUE(Check("query q($a: I64) { delete Person where age > $a }").ok());
  ExpectError("query q() { insert Person { name: now() } }", "T7", "now() is a DateTime");
}

TEST_F(TypeCheckerTest, UndeclaredParametersAreNamed) {
  ExpectError("query q() { match { $p: Person { name: $who } } return { $p.name } }", "T6",
              "undeclared parameter $who");
  ExpectError("query q() { insert Person { name: $who } }", "T14", "undeclared parameter $who");
  ExpectError("query q() { match { $p: Person $p.name = $who } return { $p.name } }", "T6", "$who");
  ExpectError("query q() { delete Person where name = $who }", "T14", "$who");
}

TEST_F(TypeCheckerTest, VariablesAndScopes) {
  // The same variable may be bound twice with the same type; a later binding may precede a filter.
  EXPECT_TRUE(Check("query q() { match { $p.age > 1 $p: Person $p: Person { age: 2 } } "
                    "return { $p.name } }")
                  .ok());
  ExpectError("query q($p: String) { match { $p: Person } return { $p.name } }", "T25", "name of a parameter");
  ExpectError("query q() { match { $p: Person $p knows $_ $_.age = 3 } return { $p.name } }", "T6", "anonymous");
  ExpectError("query q() { match { $p: Person not { $x: Person } } return { $p.name } }", "T9", "outside it");
  // Variables bound inside not are not visible outside.
  ExpectError("query q() { match { $p: Person not { $p knows $f } } return { $f.name } }", "T6", "$f");
  ExpectError("query q() { match { $a $e:knows $b $e: Person } return { $a.name } }", "T25", "edge type Knows");
}

TEST_F(TypeCheckerTest, IdentityComparisonAndWholeNodes) {
  auto r = Check("query q() { match { $a knows $b $a != $b } return { $a, $b.name } }");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->projections[0].expr.type.kind, IrType::Kind::kNode);
  ExpectError("query q() { match { $a member $o $a = $o } return { $a.name } }", "T7", "cannot compare");
  ExpectError("query q() { match { $a: Person $a < $a } return { $a.name } }", "T7", "");
}

TEST_F(TypeCheckerTest, BindingRestrictions) {
  ExpectError("query q($b: Blob) { match { $p: Person { avatar: $b } } return { $p.name } }", "T3",
              "cannot be matched by value");
  ExpectError("query q() { match { $p: Person { tags: [\"a\"] } } return { $p.name } }", "T3", "cannot be matched");
  ExpectError("query q() { match { $p: Person { name: \"a\", name: \"b\" } } return { $p.name } }", "T13",
              "appears twice");
  ExpectError("query q() { match { $k: Knows } return { $k.since } }", "T1", "is an edge type");
}

TEST_F(TypeCheckerTest, ComparisonsAndBlob) {
  ExpectError("query q($b: Blob) { match { $p: Person $p.avatar = $b } return { $p.name } }", "T7", "Blob");
  ExpectError("query q() { match { $p: Person $p.tags = [\"a\"] } return { $p.name } }", "T7", "lists");
  ExpectError("query q() { match { $p: Person $p.tags contains 3 } return { $p.name } }", "T7", "");
  ExpectError("query q() { match { $p: Person $p.status = \"c\" } return { $p.name } }", "T7", "enum values");
  ExpectError("query q() { match { $p: Person $p.born = \"yesterday\" } return { $p.name } }", "T7", "");
  ExpectError("query q() { match { $p: Person $p.name starts_with 1 } return { $p.name } }", "T7", "");
}

TEST_F(TypeCheckerTest, ProjectionNamesAndAggregates) {
  auto r = Check(
      "query q() { match { $a knows $b } return { $a.name, count($b), now(), 1, "
      "$b.age as b_age } }");
  ASSERT_FALSE(r.ok());  // now()/literal are not grouping keys
  EXPECT_EQ(r.status().code_string(), "T9");
  r = Check("query q() { match { $a knows $b } return { $a.name, count($b), max($b.age) } }");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->projections[0].name, "a.name");
  EXPECT_EQ(r->projections[1].name, "b");  // an aggregate takes its argument's name
  EXPECT_EQ(r->projections[2].name, "b.age");
  EXPECT_EQ(r->group_keys, std::vector<int>{0});
  r = Check("query q($n: String) { match { $a knows $b } return { $a.name, $b.name, $a, $n, count($b) as c } }");
  ASSERT_TRUE(r.ok()) << r.status().ToString();  // two variables' `name`s no longer collide
  EXPECT_EQ(r->projections[1].name, "b.name");
  EXPECT_EQ(r->projections[2].name, "a");
  EXPECT_EQ(r->projections[3].name, "n");
  EXPECT_EQ(r->projections[4].name, "c");
  ExpectError("query q() { match { $a knows $b } return { $a.name, $a.name } }", "T26", "add `as <name>`");
  ExpectError("query q() { match { $a knows $b } return { $a, count($a) } }", "T26", "`a`");
  // an order by a bare name that is only the property part of a column says how to write it
  ExpectError("query q() { match { $a: Person } return { $a.name } order { name } }", "T6", "`a.name`");
  ExpectError("query q() { match { $a: Person } return { $a.name as x, $a.age as x } }", "T26", "`x`");
  ExpectError("query q() { match { $a: Person } return { count(count($a)) } }", "T28", "nest");
  ExpectError("query q() { match { $a: Person } return { avg($a.born) } }", "T8", "numeric");
  ExpectError("query q() { match { $a: Person } return { count($a.avatar) } }", "T24", "Blob");
  ExpectError("query q() { match { $a: Person } return { $a.name } order { count($a) } }", "T28", "");
  ExpectError("query q() { match { $a: Person } return { count($a) } order { $a.age } }", "T9", "grouping key");
}

TEST_F(TypeCheckerTest, EdgeBindings) {
  auto r = Check("query q() { match { $a $k:knows $b } return { $k.since, $k.id, $k.src } }");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->clauses[0].edge_var, 2);
  ExpectError(
      "query q($v: Vector(2)) { match { $a $k:knows $b } return { $a.name } "
      "order { nearest($k.since, $v) } limit 1 }",
      "T23", "edge binding");
  ExpectError("query q() { match { $a $_:knows $b } return { $a.name } }", "T23", "needs a name");
  ExpectError("query q() { match { $a $b:knows $b } return { $a.name } }", "T23", "already bound");
}

TEST_F(TypeCheckerTest, Mutations) {
  auto r = Check("query q($n: String) { insert Person { name: $n } insert Member { from: $n, to: 7 } }");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->mutations.size(), 2u);
  ASSERT_TRUE(r->mutations[1].to.has_value());
  EXPECT_EQ(r->mutations[1].to->literal.kind(), TypeKind::kI32);  // key value of Org
  ExpectError("query q() { insert Org { code: 1 } }", "T12", "`label`");
  ExpectError("query q() { insert Member { from: \"a\", to: 1, from: \"b\" } }", "T13", "twice");
  ExpectError("query q() { update Person set { } where name = \"a\" }", "T10", "assigns nothing");
  ExpectError("query q() { update Person set { id: \"x\" } where name = \"a\" }", "T11", "`id`");
  ExpectError("query q() { update Member set { from: \"x\" } where id = \"a\" }", "T16", "");
  ExpectError("query q() { insert Knows { from: \"a\", to: \"b\", weight: 1 } }", "T11", "from`, `to`");
  ExpectError("query q() { delete Person where tags < \"a\" }", "T7", "cannot use `<`");
  ExpectError("query q() { insert person { name: \"a\" } }", "Q000", "type name");
  auto d = Check("query q() { delete Member where src = \"a\" }");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->writes.size(), 1u);
}

TEST_F(TypeCheckerTest, ReadsAndWrites) {
  auto r = Check("query q() { match { $p: Person not { $p member $o } } return { $p.name } }");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->reads.size(), 3u);
  EXPECT_EQ(r->reads[0].type_name, "Org");
  EXPECT_EQ(r->reads[2].kind, VarKind::kEdge);
  EXPECT_TRUE(r->writes.empty());
  auto m = Check("query q() { delete Person where name = \"x\" }");
  ASSERT_TRUE(m.ok());
  // Deleting a node also deletes its incident edges.
  EXPECT_EQ(m->writes.size(), 3u);
}

TEST_F(TypeCheckerTest, DuplicateQueryNames) {
  auto r = CompileQueries(catalog_,
                          "query a() { delete Person where name = \"x\" }\n"
                          "query a() { delete Person where name = \"y\" }");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_string(), "T27");
  EXPECT_EQ(r.status().span()->line, 2u);
}

// Only the query that runs is type-checked (as the Rust implementation): a stale query beside it
// does not stop it; syntax errors and duplicate names anywhere in the file still do.
TEST_F(TypeCheckerTest, OnlyTheSelectedQueryIsChecked) {
  const std::string src =
      "query stale() { match { $p: Person } return { $p.gone } }\n"
      "query ok() { match { $p: Person } return { $p.name } }\n"
      "query change($n: String) { insert Person { name: $n } }\n";
  auto ok = CompileSelectedQuery(catalog_, src, "ok", QueryKind::kRead);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->name, "ok");
  auto stale = CompileSelectedQuery(catalog_, src, "stale", QueryKind::kRead);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code_string(), "T6");
  EXPECT_EQ(stale.status().span()->line, 1u);
  auto kind = CompileSelectedQuery(catalog_, src, "change", QueryKind::kRead);
  ASSERT_FALSE(kind.ok());
  EXPECT_NE(kind.status().message().find("is a mutation"), std::string::npos);
  EXPECT_TRUE(CompileSelectedQuery(catalog_, src, "change", QueryKind::kMutation).ok());
  EXPECT_EQ(CompileSelectedQuery(catalog_, src, std::nullopt, QueryKind::kAny).status().category(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(CompileSelectedQuery(catalog_, src, "nope", QueryKind::kAny).status().category(), StatusCode::kNotFound);
  EXPECT_FALSE(CompileQueries(catalog_, src).ok());  // lint's view: every query
  auto syntax = CompileSelectedQuery(catalog_, src + "query broken( {", "ok", QueryKind::kRead);
  EXPECT_EQ(syntax.status().code_string(), "Q000");
  auto dup = CompileSelectedQuery(catalog_, src + "query ok() { match { $p: Person } return { $p } }", "change",
                                  QueryKind::kMutation);
  EXPECT_EQ(dup.status().code_string(), "T27");
}

}  // namespace
}  // namespace omnigraph::compiler
