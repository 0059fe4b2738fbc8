#include "compiler/catalog.h"

#include <gtest/gtest.h>

#include "common/json.h"
#include "compiler/catalog_builder.h"

namespace omnigraph::compiler {
namespace {

Catalog Compile(std::string_view src) {
  auto r = CompileSchema(src);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : Catalog{};
}

constexpr std::string_view kSchema = R"(
interface Named { name: String @key }
node Person implements Named {
  age: I32? @index
  bio: String?
  role: enum(staff, admin, staff, guest)
  score: F64
  tags: [String]
  emb: Vector(3) @embed("bio", model="m")
  @unique(age, score)
  @range(age, 0..150)
  @check(bio, "[a-z ]*")
}
node Team { title: String @index, born: Date @index, @key(title) }
edge MemberOf: Person -> Team @card(1..2) @description("membership") { since: DateTime? @index }
edge Knows: Person -> Person { @unique(src, dst) }
)";

TEST(Catalog, BuildsTypes) {
  Catalog c = Compile(kSchema);
  ASSERT_EQ(c.nodes().size(), 2u);
  ASSERT_EQ(c.edges().size(), 2u);
  const NodeType* p = c.FindNode("Person");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->id, 1u);
  EXPECT_EQ(c.FindNode("Team")->id, 2u);
  EXPECT_EQ(c.FindEdge("MemberOf")->id, 3u);
  ASSERT_EQ(p->properties.size(), 7u);
  EXPECT_EQ(p->properties[0].name, "name");  // interface properties first
  EXPECT_EQ(p->properties[0].interface_name, "Named");
  EXPECT_EQ(p->properties[0].id, 1u);
  EXPECT_EQ(p->properties[6].id, 7u);
  EXPECT_EQ(p->key, std::vector<std::string>{"name"});
  EXPECT_EQ(p->FindProperty("name")->index, IndexKind::kFullText);
  EXPECT_EQ(p->FindProperty("age")->index, IndexKind::kSorted);
  EXPECT_TRUE(p->FindProperty("age")->nullable);
  EXPECT_EQ(p->FindProperty("bio")->index, IndexKind::kNone);
  const Property* role = p->FindProperty("role");
  EXPECT_EQ(role->enum_values, (std::vector<std::string>{"admin", "guest", "staff"}));
  EXPECT_EQ(role->type, DataType::Scalar(TypeKind::kString));
  EXPECT_EQ(p->FindProperty("tags")->type, DataType::List(TypeKind::kString));
  const Property* emb = p->FindProperty("emb");
  EXPECT_EQ(emb->type, DataType::Vector(3));
  ASSERT_TRUE(emb->embed.has_value());
  EXPECT_EQ(emb->embed->source, "bio");
  EXPECT_EQ(emb->embed->model, "m");
  ASSERT_EQ(p->uniques.size(), 1u);
  EXPECT_EQ(p->uniques[0], (std::vector<std::string>{"age", "score"}));
  ASSERT_EQ(p->ranges.size(), 1u);
  EXPECT_EQ(*p->ranges[0].MinValue(), 0.0);
  EXPECT_EQ(*p->ranges[0].MaxValue(), 150.0);
  EXPECT_EQ(p->checks[0].pattern, "[a-z ]*");
  const Property* born = c.FindNode("Team")->FindProperty("born");
  EXPECT_EQ(born->index, IndexKind::kSorted);
  const EdgeType* m = c.FindEdge("MemberOf");
  EXPECT_EQ(m->from_type, "Person");
  EXPECT_EQ(m->to_type, "Team");
  EXPECT_EQ(m->card.min, 1u);
  EXPECT_EQ(*m->card.max, 2u);
  EXPECT_EQ(m->meta.description, "membership");
  EXPECT_EQ(c.FindEdge("Knows")->uniques[0], (std::vector<std::string>{"src", "dst"}));
  EXPECT_TRUE(c.FindEdge("Knows")->card.is_default());
}

TEST(Catalog, EdgeQueryNameLookup) {
  Catalog c = Compile(kSchema);
  EXPECT_EQ(c.FindEdgeByQueryName("knows"), c.FindEdge("Knows"));
  EXPECT_EQ(c.FindEdgeByQueryName("Knows"), c.FindEdge("Knows"));
  EXPECT_EQ(c.FindEdgeByQueryName("memberOf"), c.FindEdge("MemberOf"));
  EXPECT_EQ(c.FindEdgeByQueryName("memberof"), nullptr);
  EXPECT_EQ(c.FindEdgeByQueryName(""), nullptr);
  EXPECT_EQ(c.FindNode("person"), nullptr);
  EXPECT_NE(c.FindInterface("Named"), nullptr);
}

TEST(Catalog, JsonRoundTripAndSchemaId) {
  Catalog c = Compile(kSchema);
  std::string j = c.ToJson();
  auto back = Catalog::FromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, c);
  EXPECT_EQ(back->ToJson(), j);
  EXPECT_EQ(c.SchemaId().size(), 64u);
  EXPECT_EQ(back->SchemaId(), c.SchemaId());
  // Enum order and duplicates do not matter; property order does.
  std::string reordered(kSchema);
  reordered.replace(reordered.find("staff, admin, staff, guest"), 26, "guest, admin, staff");
  EXPECT_EQ(Compile(reordered).SchemaId(), c.SchemaId());
  EXPECT_NE(Compile("node A { x: I32 }").SchemaId(), Compile("node A { x: I64 }").SchemaId());
}

TEST(Catalog, SourceRoundTrip) {
  Catalog c = Compile(kSchema);
  std::string src = c.ToSource();
  auto again = CompileSchema(src);
  ASSERT_TRUE(again.ok()) << again.status().ToString() << "\n" << src;
  EXPECT_EQ(*again, c) << src;
  EXPECT_EQ(again->ToSource(), src);
}

TEST(Catalog, FromJsonRejectsCorruptIr) {
  Catalog c = Compile(kSchema);
  Json j = *ParseJson(c.ToJson(), "t");
  auto expect_corrupt = [](const Json& bad) {
    auto r = Catalog::FromJson(CanonicalJson(bad));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().category(), StatusCode::kCorrupt) << r.status().ToString();
  };
  EXPECT_FALSE(Catalog::FromJson("not json").ok());
  expect_corrupt(Json::array());
  Json bad = j;
  bad["format"] = 2;
  expect_corrupt(bad);
  bad = j;
  bad["edges"][0]["from"] = "Nobody";
  expect_corrupt(bad);
  bad = j;
  bad["nodes"][0]["properties"][1]["type"] = "Vector(0)";
  expect_corrupt(bad);
  bad = j;
  bad["nodes"][0]["properties"][1]["id"] = 1;
  expect_corrupt(bad);
  bad = j;
  bad["nodes"][0]["key"] = Json::array({"missing"});
  expect_corrupt(bad);
  bad = j;
  bad["nodes"][1]["name"] = "Person";
  expect_corrupt(bad);
  bad = j;
  bad["nodes"][0]["properties"][3]["enum"] = Json::array({"b", "a"});
  expect_corrupt(bad);
  bad = j;
  bad["nodes"][0]["properties"][2]["index"] = "vector";
  expect_corrupt(bad);
  bad = j;
  bad["edges"][0]["card"]["max"] = 0;
  expect_corrupt(bad);
  bad = j;
  bad["nodes"][0]["ranges"][0]["min"] = "abc";
  expect_corrupt(bad);
  bad = j;
  bad["nodes"][0]["properties"][0]["nullable"] = true;  // the key property
  expect_corrupt(bad);
  bad = j;
  bad["nodes"][0]["properties"][1]["embed"] = Json{{"source", "bio"}, {"model", ""}};
  expect_corrupt(bad);
  bad = j;
  bad["nodes"][0]["properties"][6]["embed"]["source"] = "age";
  expect_corrupt(bad);
  bad = j;
  bad["nodes"][0]["interfaces"] = Json::array({"Ghost"});
  expect_corrupt(bad);
  bad = j;
  bad["nodes"][0]["properties"][1]["name"] = "id";
  expect_corrupt(bad);
  bad = j;
  bad["edges"][0]["name"] = "lower";
  expect_corrupt(bad);
}

TEST(Catalog, IndexKindRules) {
  EXPECT_EQ(IndexKindFor(DataType::Scalar(TypeKind::kString), false), IndexKind::kFullText);
  EXPECT_EQ(IndexKindFor(DataType::Scalar(TypeKind::kString), true), IndexKind::kSorted);
  EXPECT_EQ(IndexKindFor(DataType::Scalar(TypeKind::kBool), false), IndexKind::kSorted);
  EXPECT_EQ(IndexKindFor(DataType::Scalar(TypeKind::kDateTime), false), IndexKind::kSorted);
  EXPECT_EQ(IndexKindFor(DataType::Vector(8), false), IndexKind::kVector);
  EXPECT_EQ(IndexKindFor(DataType::List(TypeKind::kI64), false), IndexKind::kNone);
  EXPECT_EQ(IndexKindFor(DataType::Scalar(TypeKind::kBlob), false), IndexKind::kNone);
  EXPECT_EQ(DataTypeSource(DataType::List(TypeKind::kDate)), "[Date]");
  EXPECT_EQ(DataTypeSource(DataType::Vector(12)), "Vector(12)");
}

TEST(Catalog, UnknownAnnotationsKeptAsMetadata) {
  Catalog c = Compile("node A @audit @owner(\"ops\", level=3) { x: I32 @deprecated(since=\"v2\") @ui(-1.5) }");
  const NodeType* a = c.FindNode("A");
  ASSERT_EQ(a->meta.annotations.size(), 2u);
  EXPECT_EQ(a->meta.annotations[0].name, "audit");
  EXPECT_FALSE(a->meta.annotations[0].has_parens);
  EXPECT_EQ(a->meta.annotations[1].positional->text, "ops");
  EXPECT_EQ(a->meta.annotations[1].named[0].first, "level");
  const Property& x = a->properties[0];
  ASSERT_EQ(x.meta.annotations.size(), 2u);
  EXPECT_FALSE(x.meta.annotations[0].positional.has_value());
  EXPECT_EQ(x.meta.annotations[1].positional->text, "-1.5");
  EXPECT_EQ(x.meta.annotations[1].positional->kind, AnnotationValue::Kind::kFloat);
  auto again = CompileSchema(c.ToSource());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, c);
}

TEST(Catalog, CopyKeepsLookups) {
  Catalog c = Compile(kSchema);
  Catalog d = c;
  Catalog e;
  e = d;
  EXPECT_NE(e.FindNode("Team"), nullptr);
  EXPECT_EQ(e.FindNode("Team"), &e.nodes()[1]);
  Catalog f = std::move(e);
  EXPECT_EQ(f.FindNode("Team"), &f.nodes()[1]);
}

}  // namespace
}  // namespace omnigraph::compiler
