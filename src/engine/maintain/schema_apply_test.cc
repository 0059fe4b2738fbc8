// Schema apply (engine/maintain/schema_apply.h) through the public API: every supported step in one
// commit, data carried over, time travel across the change, refusals that change nothing, branches.
#include "engine/maintain/schema_apply.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "omnigraph/omnigraph.h"

namespace omnigraph {
namespace {

constexpr const char* kV1 = R"(
node Person { name: String @key, age: I32, city: String?, mood: enum(happy, sad)? }
node Pet { tag: String @key }
edge Knows: Person -> Person
)";

// Renames Person -> Human (and city -> town), adds Team and Human.email, extends the enum, makes
// age optional, drops Pet.
constexpr const char* kV2 = R"(
node Human @rename_from("Person") {
  name: String @key,
  age: I32?,
  town: String? @rename_from("city"),
  mood: enum(happy, sad, calm)?,
  email: String?
}
node Team { slug: String @key }
edge Knows: Human -> Human
)";

std::unique_ptr<Database> NewDb() {
  static int graphs = 0;  // one test may open several
  auto db = Database::Init("memory://" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                               std::to_string(++graphs),
                           kV1);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  auto l = (*db)->Load(
      R"({"type":"Person","data":{"name":"ada","age":36,"city":"london","mood":"happy"}}
{"type":"Person","data":{"name":"bob","age":40}}
{"type":"Pet","data":{"tag":"rex"}}
{"edge":"Knows","from":"ada","to":"bob"}
)",
      LoadMode::kAppend);
  EXPECT_TRUE(l.ok()) << l.status().ToString();
  return std::move(*db);
}

std::vector<std::string> Rows(Database& db, const std::string& q, const ReadTarget& at = {}) {
  auto r = db.Query(q, "", at);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> out;
  if (!r.ok()) return out;
  for (const auto& row : r->rows) {
    std::string line;
    for (const auto& v : row) {
      std::string text = v.is_null() ? "null" : v.ToString();
      std::erase(text, '"');
      line += (line.empty() ? "" : "|") + text;
    }
    out.push_back(line);
  }
  return out;
}

TEST(SchemaApplyTest, EverySupportedStepInOneCommit) {
  auto db = NewDb();
  const std::string before = db->Snapshot()->commit_id;
  auto r = db->ApplySchema(kV2, /*allow_data_loss=*/true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->applied);
  std::vector<std::string> kinds;
  for (const auto& s : r->plan.steps) kinds.push_back(s.kind);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "rename_type"), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "rename_property"), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "drop_type"), kinds.end());
  auto commits = db->Commits();
  ASSERT_TRUE(commits.ok());
  EXPECT_EQ(commits->front().id, r->commit_id);
  EXPECT_EQ(commits->front().operation, "schema_apply");
  // The data carried over under the new names; new columns read as null.
  EXPECT_EQ(Rows(*db,
                 "query q() { match { $h: Human } return { $h.name, $h.age, $h.town, $h.mood, $h.email } "
                 "order { $h.name } }"),
            (std::vector<std::string>{"ada|36|london|happy|null", "bob|40|null|null|null"}));
  EXPECT_EQ(Rows(*db, "query q() { match { $a: Human $a knows $b } return { $a.name, $b.name } }"),
            std::vector<std::string>{"ada|bob"});
  // The new schema accepts what it allows: a calm mood, no age, a Team.
  ASSERT_TRUE(db->Mutate(R"(query m() { insert Human { name: "cy", mood: "calm", email: "c@x" } })").ok());
  ASSERT_TRUE(db->Mutate(R"(query m() { insert Team { slug: "core" } })").ok());
  EXPECT_EQ(Rows(*db, "query q() { match { $h: Human { name: \"cy\" } } return { $h.mood, $h.age } }"),
            std::vector<std::string>{"calm|null"});
  // Time travel across the change reads the old schema's data, Pet included.
  EXPECT_EQ(Rows(*db, "query q() { match { $p: Pet } return { $p.tag } }", ReadTarget::Commit(before)),
            std::vector<std::string>{"rex"});
  EXPECT_EQ(
      Rows(*db, "query q() { match { $p: Person } return { $p.city } order { $p.city } }", ReadTarget::Commit(before)),
      (std::vector<std::string>{"null", "london"}));
  // The old names are gone from the head: a query over them is a compile error.
  EXPECT_FALSE(db->Query("query q() { match { $p: Person } return { $p.name } }").ok());
  // Applying the same schema again changes nothing.
  auto again = db->ApplySchema(kV2, true);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->applied);
}

// Change listings run across the schema change: the older side is carried into the newer schema,
// so changes are named in the newer types and properties, and rows of an added type are inserts.
TEST(SchemaApplyTest, ChangesListAcrossTheSchemaChange) {
  auto db = NewDb();
  const std::string before = db->Snapshot()->commit_id;
  ChangePollRequest poll;
  auto first = db->PollChanges(poll);  // "now": a cursor at the old schema's head
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto r = db->ApplySchema(kV2, /*allow_data_loss=*/true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // The apply itself changes no entity's values (renames and a widened enum keep every image; the
  // dropped type's rows are not listed as deletes).
  auto apply = db->CommitChanges(r->commit_id);
  ASSERT_TRUE(apply.ok()) << apply.status().ToString();
  EXPECT_TRUE(apply->changes.empty());
  ASSERT_TRUE(db->Mutate(R"(query m() { insert Human { name: "cy", mood: "calm", email: "c@x" } })").ok());
  ASSERT_TRUE(db->Mutate(R"(query m() { insert Team { slug: "core" } })").ok());
  ASSERT_TRUE(db->Mutate(R"(query m() { update Human set { town: "paris" } where name = "ada" })").ok());
  // The feed resumes from the old-schema cursor: one block per commit, the apply's empty.
  poll.cursor = first->cursor;
  auto page = db->PollChanges(poll);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->blocks.size(), 4u);
  EXPECT_TRUE(page->blocks[0].changes.empty());
  ASSERT_EQ(page->blocks[3].changes.size(), 1u);
  // A forward diff from the old schema names the new types and properties.
  auto d = db->Diff(ReadTarget::Commit(before), ReadTarget::Head("main"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  std::vector<std::string> seen;
  for (const auto& c : d->changes) {
    std::string line = c.type_name + ":" + c.id + ":" + std::string(ChangeOpName(c.op));
    if (c.op == ChangeOp::kUpdate) {
      for (size_t i = 0; i < c.before->properties.size(); ++i) {
        if (!(c.before->properties[i] == c.after->properties[i])) line += ":" + c.after->properties[i].first;
      }
    }
    seen.push_back(line);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"Human:ada:update:town", "Human:cy:insert", "Team:core:insert"}));
  // Backward (newer first) or between unrelated sides it stays a boundary.
  auto back = db->Diff(ReadTarget::Head("main"), ReadTarget::Commit(before));
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(std::string(back.status().code_string()), "schema_boundary") << back.status().ToString();
}

TEST(SchemaApplyTest, AQueryPreparedAgainstTheOldSchemaNamesTheChange) {
  auto db = NewDb();
  auto q = db->Prepare("query q() { match { $p: Person } return { $p.city } }");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  auto still = db->Prepare("query q() { match { $p: Pet } return { $p.tag } }");
  ASSERT_TRUE(still.ok());
  ASSERT_TRUE(db->ApplySchema(std::string(kV1) + "node Extra { k: String @key }\n").ok());
  EXPECT_TRUE(db->Execute(*still).ok());  // still fits the new schema: recompiled
  ASSERT_TRUE(db->ApplySchema(kV2, true).ok());
  auto r = db->Execute(*q);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("the schema changed since the query was prepared"), std::string::npos)
      << r.status().ToString();
}

TEST(SchemaApplyTest, RefusalsChangeNothing) {
  auto db = NewDb();
  const std::string head = db->Snapshot()->commit_id;
  // A type change is unsupported (OG-MF-106).
  auto bad = db->ApplySchema(
      "node Person { name: String @key, age: String, city: String?, mood: enum(happy, sad)? }"
      "\nnode Pet { tag: String @key }\nedge Knows: Person -> Person\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.status().code_string()), "OG-MF-106") << bad.status().ToString();
  // A required property on a populated type (OG-MF-103).
  bad = db->ApplySchema(std::string(kV1) + "\n" + "node Extra { k: String @key }\n");
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();  // adding a type is fine...
  const std::string after_add = db->Snapshot()->commit_id;
  auto required = db->ApplySchema(
      "node Person { name: String @key, age: I32, city: String?, mood: enum(happy, sad)?, must: String }\n"
      "node Pet { tag: String @key }\nnode Extra { k: String @key }\nedge Knows: Person -> Person\n");
  ASSERT_FALSE(required.ok());
  EXPECT_EQ(std::string(required.status().code_string()), "OG-MF-103") << required.status().ToString();
  EXPECT_EQ(db->Snapshot()->commit_id, after_add);
  EXPECT_NE(after_add, head);
  // A stale --if-commit.
  auto stale = db->ApplySchema(kV2, true, "main", head);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(std::string(stale.status().code_string()), "precondition_failure");
  EXPECT_EQ(db->Snapshot()->commit_id, after_add);
}

TEST(SchemaApplyTest, AnAddedRangeOrCheckIsValidatedAgainstExistingRows) {
  auto db = NewDb();
  const std::string head = db->Snapshot()->commit_id;
  auto with = [](const std::string& constraint) {
    return "node Person { name: String @key, age: I32, city: String?, mood: enum(happy, sad)?\n" + constraint +
           " }\nnode Pet { tag: String @key }\nedge Knows: Person -> Person\n";
  };
  auto bad = db->ApplySchema(with("@range(age, 0..39)"));  // bob is 40
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.status().code_string()), "load_range") << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("bob"), std::string::npos) << bad.status().ToString();
  EXPECT_EQ(bad.status().message().find("ada"), std::string::npos) << bad.status().ToString();
  auto check = db->ApplySchema(with("@check(city, \"^[a-z]+$\")"));  // london passes, null is not checked
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_NE(db->Snapshot()->commit_id, head);
  auto range = db->ApplySchema(with("@check(city, \"^[a-z]+$\")\n@range(age, 0..120)"));
  ASSERT_TRUE(range.ok()) << range.status().ToString();
  // From now on the constraint holds for writes too.
  auto m = db->Mutate(R"(query m() { insert Person { name: "old", age: 200 } })");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(std::string(m.status().code_string()), "load_range");
}

TEST(SchemaApplyTest, AnAddedUniqueOrCardIsValidatedAgainstExistingRows) {
  auto db = NewDb();
  ASSERT_TRUE(db->Mutate(R"(query m() { insert Person { name: "cy", age: 36, city: "london" } })").ok());
  ASSERT_TRUE(db->Mutate(R"(query m() { insert Knows { from: "ada", to: "cy" } })").ok());
  const std::string head = db->Snapshot()->commit_id;
  auto with = [](const std::string& person, const std::string& knows) {
    return "node Person { name: String @key, age: I32, city: String?, mood: enum(happy, sad)?\n" + person +
           " }\nnode Pet { tag: String @key }\nedge Knows: Person -> Person " + knows + "\n";
  };
  // ada and cy share a city (bob's null never collides).
  auto bad = db->ApplySchema(with("@unique(city)", ""));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.status().code_string()), "load_unique") << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("ada = cy"), std::string::npos) << bad.status().ToString();
  // ada knows two people.
  bad = db->ApplySchema(with("", "@card(0..1)"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.status().code_string()), "load_cardinality") << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("ada (2)"), std::string::npos) << bad.status().ToString();
  EXPECT_EQ(db->Snapshot()->commit_id, head);
  // Constraints the data satisfies apply, and hold for later writes.
  auto good = db->ApplySchema(with("@unique(name, age)\n@index(city)", "@card(0..2)"));
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  auto m = db->Mutate(R"(query m() { insert Knows { from: "ada", to: "ada" } })");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(std::string(m.status().code_string()), "load_cardinality") << m.status().ToString();
  good = db->ApplySchema(with("@unique(name, age)\n@index(city)\n@unique(age)", "@card(0..2)"));
  ASSERT_FALSE(good.ok());  // ada and cy are both 36
  EXPECT_EQ(std::string(good.status().code_string()), "load_unique") << good.status().ToString();
  ASSERT_TRUE(db->Mutate(R"(query m() { update Person set { age: 37 } where name = "cy" })").ok());
  good = db->ApplySchema(with("@unique(name, age)\n@index(city)\n@unique(city)", "@card(0..2)"));
  ASSERT_FALSE(good.ok());
  ASSERT_TRUE(db->Mutate(R"(query m() { update Person set { city: "paris" } where name = "cy" })").ok());
  good = db->ApplySchema(with("@unique(name, age)\n@index(city)\n@unique(city)", "@card(0..2)"));
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  m = db->Mutate(R"(query m() { insert Person { name: "dee", age: 1, city: "paris" } })");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(std::string(m.status().code_string()), "load_unique") << m.status().ToString();
  EXPECT_EQ(Rows(*db, R"(query q() { match { $p: Person { city: "paris" } } return { $p.name } })"),
            std::vector<std::string>{"cy"});
}

// A merge across a schema change that only one side made: the other side's changes are carried
// into the newer schema (renames followed by catalog id), in either direction.
TEST(SchemaApplyTest, MergesAcrossASchemaChange) {
  auto db = NewDb();
  ASSERT_TRUE(db->CreateBranch("feature").ok());
  ASSERT_TRUE(db->Mutate(R"(query m() { insert Person { name: "cy", age: 5, city: "rome" } })", "", "feature").ok());
  ASSERT_TRUE(db->Mutate(R"(query m() { update Person set { age: 41 } where name = "bob" })", "", "feature").ok());
  ASSERT_TRUE(db->ApplySchema(kV2, /*allow_data_loss=*/true).ok());
  auto merged = db->Merge("feature");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(Rows(*db, "query q() { match { $h: Human } return { $h.name, $h.age, $h.town } order { $h.name } }"),
            (std::vector<std::string>{"ada|36|london", "bob|41|null", "cy|5|rome"}));

  // The other direction: the branch evolves the schema, main keeps writing in the old one.
  auto db2 = NewDb();
  ASSERT_TRUE(db2->CreateBranch("evolve").ok());
  ASSERT_TRUE(db2->ApplySchema(kV2, true, "evolve").ok());
  ASSERT_TRUE(db2->Mutate(R"(query m() { insert Team { slug: "core" } })", "", "evolve").ok());
  ASSERT_TRUE(db2->Mutate(R"(query m() { insert Person { name: "dan", age: 9, city: "oslo" } })").ok());
  merged = db2->Merge("evolve");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(Rows(*db2, "query q() { match { $h: Human } return { $h.name, $h.town } order { $h.name } }"),
            (std::vector<std::string>{"ada|london", "bob|null", "dan|oslo"}));
  EXPECT_EQ(Rows(*db2, "query q() { match { $t: Team } return { $t.slug } }"), std::vector<std::string>{"core"});
  auto src = db2->SchemaSource("main");
  ASSERT_TRUE(src.ok());
  EXPECT_NE(src->find("node Human"), std::string::npos);

  // A change that breaks a constraint the newer schema added is a conflict; both sides changing
  // the schema is schema_boundary. Neither publishes anything.
  auto db3 = NewDb();
  ASSERT_TRUE(db3->CreateBranch("feature").ok());
  ASSERT_TRUE(db3->Mutate(R"(query m() { insert Person { name: "old", age: 300 } })", "", "feature").ok());
  ASSERT_TRUE(db3->ApplySchema("node Person { name: String @key, age: I32, city: String?, mood: enum(happy, sad)?\n"
                               "@range(age, 0..150) }\nnode Pet { tag: String @key }\nedge Knows: Person -> Person\n")
                  .ok());
  const std::string head = db3->Snapshot()->commit_id;
  auto conflict = db3->Merge("feature");
  ASSERT_TRUE(conflict.ok()) << conflict.status().ToString();
  EXPECT_EQ(conflict->outcome, MergeOutcome::kConflicts);
  ASSERT_EQ(conflict->conflicts.size(), 1u);
  EXPECT_EQ(conflict->conflicts[0].entity_id, "old");
  EXPECT_EQ(conflict->conflicts[0].kind, "value_constraint_violation");
  ASSERT_TRUE(db3->ApplySchema(std::string(kV1) + "node Extra { k: String @key }\n", false, "feature").ok());
  auto boundary = db3->Merge("feature");
  ASSERT_FALSE(boundary.ok());
  EXPECT_EQ(std::string(boundary.status().code_string()), "schema_boundary") << boundary.status().ToString();
  EXPECT_EQ(db3->Snapshot()->commit_id, head);
}

TEST(SchemaApplyTest, OnABranchOnly) {
  auto db = NewDb();
  ASSERT_TRUE(db->CreateBranch("evolve").ok());
  auto r = db->ApplySchema(kV2, true, "evolve");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Rows(*db, "query q() { match { $h: Human } return { count($h) } }", "evolve"),
            std::vector<std::string>{"2"});
  // main keeps the old schema.
  EXPECT_EQ(Rows(*db, "query q() { match { $p: Person } return { count($p) } }", "main"),
            std::vector<std::string>{"2"});
  auto src = db->SchemaSource("main");
  ASSERT_TRUE(src.ok());
  EXPECT_NE(src->find("node Person"), std::string::npos);
}

}  // namespace
}  // namespace omnigraph
