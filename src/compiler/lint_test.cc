// Tests for lint (lint.h): L201, L202, descriptors, and the JSON shape of `lint --json`.
#include "compiler/lint.h"

#include <gtest/gtest.h>

#include <string>

#include "common/json.h"

namespace omnigraph::compiler {
namespace {

constexpr const char* kSchema = R"(
node Person {
  name: String @key
  age: I32?
  nick: String?
  tags: [String]?
  emb: Vector(3)? @embed("name")
}
node Org { name: String @key }
edge WorksAt: Person -> Org
)";

TEST(Lint, CleanFileIsOk) {
  LintReport r = LintSources(kSchema, "query q() { match { $p: Person } return { $p.name } }");
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.queries_processed, 1u);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(r.warnings, 0u);
  ASSERT_EQ(r.results.size(), 1u);
  ASSERT_TRUE(r.results[0].operation.has_value());
}

TEST(Lint, L201NullablePropertyNeverUpdated) {
  LintReport r = LintSources(kSchema,
                             "query set_age($n: String, $a: I32) {\n"
                             "  update Person set { age: $a } where name = $n\n}\n");
  EXPECT_TRUE(r.ok);                 // warnings only
  ASSERT_EQ(r.findings.size(), 2u);  // nick and tags; key and @embed target are exempt
  EXPECT_EQ(r.findings[0].code, "L201");
  EXPECT_EQ(r.findings[0].property, "nick");
  EXPECT_EQ(r.findings[0].severity, "warning");
  EXPECT_EQ(r.findings[0].query_names, std::vector<std::string>{"set_age"});
  EXPECT_EQ(r.findings[1].property, "tags");
  EXPECT_EQ(r.warnings, 2u);
}

TEST(Lint, L202MutationWithoutParams) {
  LintReport r = LintSources(kSchema, "query seed() { insert Person { name: \"Ada\" } }");
  EXPECT_TRUE(r.ok);
  ASSERT_EQ(r.results.size(), 1u);
  ASSERT_EQ(r.results[0].warnings.size(), 1u);
  EXPECT_EQ(r.results[0].warnings[0].rfind("L202: ", 0), 0u);
  EXPECT_EQ(r.warnings, 1u);
}

TEST(Lint, ErrorsPerQueryAndParseErrors) {
  LintReport r = LintSources(kSchema,
                             "query ok() { match { $p: Person } return { $p.name } }\n"
                             "query bad() { match { $p: Persn } return { $p.name } }\n");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.errors, 1u);
  ASSERT_EQ(r.results.size(), 2u);
  EXPECT_TRUE(r.results[0].ok);
  EXPECT_FALSE(r.results[1].ok);
  EXPECT_EQ(r.results[1].error_code, "T1");
  EXPECT_NE(r.results[1].error.find("(at 2:27)"), std::string::npos) << r.results[1].error;
  std::string text = LintReportText(r, kSchema,
                                    "query ok() { match { $p: Person } return { $p.name } }\n"
                                    "query bad() { match { $p: Persn } return { $p.name } }\n");
  EXPECT_NE(text.find("^"), std::string::npos) << text;

  LintReport p = LintSources(kSchema, "query q( {");
  EXPECT_FALSE(p.ok);
  ASSERT_EQ(p.findings.size(), 1u);
  EXPECT_EQ(p.findings[0].code, "Q000");
  EXPECT_EQ(p.queries_processed, 0u);

  LintReport s = LintSources("node X { id: String }", "query q() { delete X where id = \"a\" }");
  EXPECT_FALSE(s.ok);
  ASSERT_EQ(s.findings.size(), 1u);
  EXPECT_EQ(s.findings[0].code[0], 'S');
  EXPECT_TRUE(s.findings[0].in_schema);
}

TEST(Lint, OperationDescriptorAndJsonShape) {
  LintOptions opts{"s.pg", "q.gq"};
  LintReport r = LintSources(kSchema,
                             "query read() { match { $p worksAt $o } return { $p, $p.tags, $p.emb, "
                             "count($o) as n, $p.age } }\n"
                             "query del($n: String) { delete Person where name = $n }\n",
                             opts);
  ASSERT_TRUE(r.ok) << LintReportJson(r);
  Result<Json> j = ParseJson(LintReportJson(r), "lint");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)["status"], "ok");
  EXPECT_EQ((*j)["schema_source"]["kind"], "file");
  EXPECT_EQ((*j)["schema_source"]["path"], "s.pg");
  EXPECT_EQ((*j)["query_path"], "q.gq");
  EXPECT_EQ((*j)["queries_processed"], 2);
  const Json& read = (*j)["results"][0];
  EXPECT_EQ(read["kind"], "read");
  EXPECT_EQ(read["status"], "ok");
  const Json& cols = read["operation"]["result"];
  ASSERT_EQ(cols.size(), 5u);
  EXPECT_EQ(cols[0]["kind"], "object");
  EXPECT_EQ(cols[1]["kind"], "list");
  EXPECT_EQ(cols[1]["item_kind"], "string");
  EXPECT_EQ(cols[2]["kind"], "vector");
  EXPECT_EQ(cols[2]["vector_dim"], 3);
  EXPECT_EQ(cols[3]["name"], "n");
  EXPECT_EQ(cols[3]["kind"], "bigint");
  EXPECT_EQ(cols[3]["nullable"], false);
  EXPECT_EQ(cols[4]["kind"], "int");
  EXPECT_EQ(cols[4]["nullable"], true);
  EXPECT_EQ(read["operation"]["reads"].size(), 3u);
  EXPECT_EQ(read["operation"]["reads"][0]["kind"], "node");
  EXPECT_EQ(read["operation"]["reads"][0]["type_name"], "Org");
  EXPECT_TRUE(read["operation"]["writes"].empty());
  const Json& del = (*j)["results"][1];
  EXPECT_EQ(del["kind"], "mutation");
  EXPECT_TRUE(del["operation"]["result"].empty());
  EXPECT_EQ(del["operation"]["writes"].size(), 2u);  // Person and its incident WorksAt edges
  EXPECT_FALSE(del.contains("warnings"));
  EXPECT_FALSE(del.contains("error"));
}

}  // namespace
}  // namespace omnigraph::compiler
