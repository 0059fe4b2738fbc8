#include "compiler/migration_planner.h"

#include <gtest/gtest.h>

#include "common/json.h"
#include "compiler/catalog_builder.h"

namespace omnigraph::compiler {
namespace {

Catalog C(std::string_view src) {
  auto r = CompileSchema(src);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : Catalog{};
}

MigrationPlan Plan(std::string_view a, std::string_view b, std::map<std::string, uint64_t> rows = {},
                   bool allow_data_loss = false) {
  MigrationOptions o;
  o.row_counts = std::move(rows);
  o.allow_data_loss = allow_data_loss;
  return PlanMigration(C(a), C(b), o);
}

// "kind type[.property] [extra]" per step, for compact expectations.
std::vector<std::string> Describe(const MigrationPlan& p) {
  std::vector<std::string> out;
  for (const auto& s : p.steps) {
    std::string d = std::string(MigrationStepKindName(s.kind)) + " " + s.type_name;
    if (!s.property.empty()) d += "." + s.property;
    if (!s.old_name.empty()) d += " from " + s.old_name;
    if (!s.constraint.empty()) d += " " + s.constraint;
    for (const auto& v : s.added_values) d += " +" + v;
    if (s.kind == MigrationStepKind::kDropType || s.kind == MigrationStepKind::kDropProperty) {
      d += s.mode == DropMode::kHard ? " hard" : " soft";
    }
    if (!s.code.empty()) d += " " + s.code;
    out.push_back(d);
  }
  return out;
}

using V = std::vector<std::string>;

TEST(MigrationPlanner, NoChangeIsEmpty) {
  auto p = Plan("node A { x: I32 }", "node A { x: I32 }");
  EXPECT_TRUE(p.empty());
  EXPECT_TRUE(p.supported());
  EXPECT_EQ(p.ToJson(), R"({"steps":[],"supported":true})");
  // Enum reorder is not a change.
  EXPECT_TRUE(Plan("node A { e: enum(a, b) }", "node A { e: enum(b, a, a) }").empty());
}

TEST(MigrationPlanner, AddAndRenameType) {
  EXPECT_EQ(Describe(Plan("node A { x: I32 }", "node A { x: I32 }\nnode B { y: I32 }")), (V{"add_type B"}));
  EXPECT_EQ(Describe(Plan("node A { x: I32 }", "node Z @rename_from(\"A\") { x: I32 }")), (V{"rename_type Z from A"}));
  // An edge following a renamed endpoint is not an endpoint change.
  EXPECT_EQ(
      Describe(Plan("node A { x: I32 }\nedge E: A -> A", "node Z @rename_from(\"A\") { x: I32 }\nedge E: Z -> Z")),
      (V{"rename_type Z from A"}));
}

TEST(MigrationPlanner, Properties) {
  EXPECT_EQ(Describe(Plan("node A { x: I32 }", "node A { x: I32, y: String? }", {{"A", 5}})), (V{"add_property A.y"}));
  // Required property on an empty type is fine.
  EXPECT_EQ(Describe(Plan("node A { x: I32 }", "node A { x: I32, y: String }")), (V{"add_property A.y"}));
  EXPECT_EQ(Describe(Plan("node A { x: I32 }", "node A { z: I32 @rename_from(\"x\") }")),
            (V{"rename_property A.z from x"}));
  EXPECT_EQ(Describe(Plan("node A { e: enum(a, b) }", "node A { e: enum(a, b, c, d) }")), (V{"extend_enum A.e +c +d"}));
  EXPECT_EQ(Describe(Plan("node A { x: I32 }", "node A { x: I32? }")), (V{"make_nullable A.x"}));
  EXPECT_EQ(Describe(Plan("node A { x: I32 }", "node A { x: I32 @description(\"d\") }")),
            (V{"update_property_metadata A.x"}));
  EXPECT_EQ(Describe(Plan("node A { x: I32 }", "node A @description(\"d\") { x: I32 }")),
            (V{"update_type_metadata A"}));
  EXPECT_EQ(Describe(Plan("node A { x: I32, y: I32 }", "node A { x: I32 }", {{"A", 3}})),
            (V{"drop_property A.y soft OG-DS-104"}));
  EXPECT_EQ(Describe(Plan("node A { x: I32, y: I32 }", "node A { x: I32 }", {}, true)), (V{"drop_property A.y hard"}));
}

TEST(MigrationPlanner, Constraints) {
  EXPECT_EQ(Describe(Plan("node A { x: I32 }", "node A { x: I32 @index }")), (V{"add_constraint A @index(x)"}));
  EXPECT_EQ(Describe(Plan("node A { x: I32 @unique }", "node A { x: I32 }")), (V{"drop_constraint A @unique(x)"}));
  EXPECT_EQ(Describe(Plan("node A { x: I32, @range(x, 0..5) }", "node A { x: I32, @range(x, 0..9) }")),
            (V{"drop_constraint A @range(x, 0..5)", "add_constraint A @range(x, 0..9)"}));
  EXPECT_EQ(Describe(Plan("node A { s: String }", "node A { s: String, @check(s, \"a+\") }")),
            (V{"add_constraint A @check(s, \"a+\")"}));
  EXPECT_EQ(Describe(Plan("node A { x: I32 }\nedge E: A -> A", "node A { x: I32 }\nedge E: A -> A @card(0..1)")),
            (V{"add_constraint E @card(0..1)"}));
  EXPECT_EQ(Describe(Plan("node A { x: I32 }", "node A { x: I32 @key }")), (V{"add_constraint A @key(x)"}));
  // Renamed properties carry their constraints: no drop/add.
  EXPECT_EQ(Describe(Plan("node A { x: I32 @key @index }", "node A { y: I32 @key @rename_from(\"x\") }")),
            (V{"rename_property A.y from x"}));
}

TEST(MigrationPlanner, DropTypes) {
  EXPECT_EQ(
      Describe(Plan("node A { x: I32 }\nnode B { y: I32 }\nedge E: A -> B", "node A { x: I32 }", {{"B", 1}, {"E", 2}})),
      (V{"drop_type E soft OG-DS-103", "drop_type B soft OG-DS-102"}));
  EXPECT_EQ(Describe(Plan("node A { x: I32 }\nnode B { y: I32 }", "node A { x: I32 }", {}, true)),
            (V{"drop_type B hard"}));
}

TEST(MigrationPlanner, UnsupportedChanges) {
  auto code = [](const MigrationPlan& p) {
    EXPECT_FALSE(p.supported());
    for (const auto& s : p.steps) {
      if (s.kind == MigrationStepKind::kUnsupportedChange) {
        EXPECT_FALSE(s.reason.empty());
        return s.code + " " + s.entity;
      }
    }
    return std::string("none");
  };
  EXPECT_EQ(code(Plan("node A { x: I32 }", "node A { x: I32, y: I32 }", {{"A", 1}})), "OG-MF-103 A.y");
  EXPECT_EQ(code(Plan("node A { x: I32 }", "node A { x: I64 }")), "OG-MF-106 A.x");
  EXPECT_EQ(code(Plan("node A { x: String }", "node A { x: enum(a) }")), "OG-MF-106 A.x");
  EXPECT_EQ(code(Plan("node A { e: enum(a, b) }", "node A { e: enum(a, c) }")), "OG-MF-106 A.e");
  EXPECT_EQ(code(Plan("node A { x: I32? }", "node A { x: I32 }")), "OG-MF-106 A.x");
  EXPECT_EQ(code(Plan("node A { t: String, v: Vector(2) @embed(\"t\", model=\"a\") }",
                      "node A { t: String, v: Vector(2) @embed(\"t\", model=\"b\") }")),
            "OG-MF-107 A.v");
  EXPECT_EQ(code(Plan("node A { x: I32 }\nnode B { x: I32 }\nedge E: A -> A",
                      "node A { x: I32 }\nnode B { x: I32 }\nedge E: A -> B")),
            "OG-MF-108 E");
  EXPECT_EQ(code(Plan("node A { x: I32 @key, y: I32 }", "node A { x: I32, y: I32 @key }", {{"A", 1}})), "OG-MF-109 A");
  EXPECT_EQ(code(Plan("node A { x: I32 }", "node B @rename_from(\"Nope\") { x: I32 }")), "OG-MF-110 B");
  EXPECT_EQ(code(Plan("node A { x: I32 }", "node A { x: I32 }\nnode B @rename_from(\"A\") { x: I32 }")), "OG-MF-110 B");
  EXPECT_EQ(code(Plan("node A { x: I32 }", "node A { y: I32 @rename_from(\"q\") }")), "OG-MF-110 A.y");
  EXPECT_EQ(code(Plan("node A { x: I32 }\nnode B { x: I32 }", "node B { x: I32 }\nedge A: B -> B")), "OG-MF-111 A");
  // Key change on an empty type is a plain constraint change.
  EXPECT_EQ(Describe(Plan("node A { x: I32 @key, y: I32 }", "node A { x: I32, y: I32 @key }")),
            (V{"drop_constraint A @key(x)", "add_constraint A @key(y)"}));
}

TEST(MigrationPlanner, OrderAndJson) {
  auto p = Plan("node A { x: I32, old: I32 }\nnode Gone { g: I32 }",
                "node New { n: I32 }\nnode A { x: I32?, y: I32?, @index(x) }");
  EXPECT_EQ(Describe(p), (V{"add_type New", "make_nullable A.x", "add_property A.y", "add_constraint A @index(x)",
                            "drop_property A.old soft", "drop_type Gone soft"}));
  std::string j = p.ToJson();
  EXPECT_NE(j.find(R"({"entity":"New","kind":"add_type","type_kind":"node","type_name":"New"})"), std::string::npos)
      << j;
  EXPECT_NE(j.find(R"("mode":"soft")"), std::string::npos);
}

TEST(MigrationPlanner, RebaseIdsKeepsStableIds) {
  Catalog a = C("node A { x: I32, y: I32 }\nnode B { z: I32 }\nedge E: A -> B");
  Catalog b =
      C("node C { c: I32 }\n"
        "node B2 @rename_from(\"B\") { w: I32, z: I32 }\n"
        "node A { y: I32, q: I32 @rename_from(\"x\") }\n"
        "edge E: A -> B2");
  Catalog r = RebaseIds(a, b);
  EXPECT_EQ(r.FindNode("A")->id, 1u);
  EXPECT_EQ(r.FindNode("B2")->id, 2u);
  EXPECT_EQ(r.FindEdge("E")->id, 3u);
  EXPECT_EQ(r.FindNode("C")->id, 4u);
  EXPECT_EQ(r.FindNode("A")->FindProperty("y")->id, 2u);
  EXPECT_EQ(r.FindNode("A")->FindProperty("q")->id, 1u);
  EXPECT_EQ(r.FindNode("B2")->FindProperty("z")->id, 1u);
  EXPECT_EQ(r.FindNode("B2")->FindProperty("w")->id, 2u);
  // Rebased IR still round-trips through JSON.
  auto back = Catalog::FromJson(r.ToJson());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
}

// A dropped property's or type's id is never given to a later one: the high-water marks survive in
// the stored IR (and are stored only when a drop made them necessary).
TEST(MigrationPlanner, DroppedIdsAreNeverReused) {
  Catalog v1 = C("node A { x: I32, y: I32? }\nnode B { z: I32 }");
  EXPECT_EQ(v1.ToJson().find("high_water"), std::string::npos);  // unchanged IR for every old schema
  Catalog v2 = RebaseIds(v1, C("node A { x: I32 }"));            // drops A.y (id 2) and B (id 2)
  EXPECT_EQ(v2.FindNode("A")->property_id_high_water, 2u);
  EXPECT_EQ(v2.type_id_high_water(), 2u);
  auto stored = Catalog::FromJson(v2.ToJson());
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ(*stored, v2);
  EXPECT_NE(v2.SchemaId(), C("node A { x: I32 }").SchemaId());
  Catalog v3 = RebaseIds(*stored, C("node A { x: I32, w: String? }\nnode D { k: I32 }"));
  EXPECT_EQ(v3.FindNode("A")->FindProperty("w")->id, 3u);
  EXPECT_EQ(v3.FindNode("D")->id, 3u);
  // A high-water mark that is not above every id is not canonical IR.
  Json j = *ParseJson(v1.ToJson(), "t");
  j["nodes"][0]["property_id_high_water"] = 1;
  EXPECT_FALSE(Catalog::FromJson(CanonicalJson(j)).ok());
}

}  // namespace
}  // namespace omnigraph::compiler
