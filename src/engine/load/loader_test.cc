// Bulk load: modes, every validation error class (code + line), nothing written on error, and the
// export -> load round trip.
#include <gtest/gtest.h>

#include "common/error_codes.h"
#include "common/json.h"
#include "engine/load/exporter.h"
#include "engine/load/loader.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr const char* kSchema = R"(
node Person {
  name: String @key
  age: I32?
  email: String? @unique
  role: enum(admin, member)?
  born: Date?
  seen: DateTime?
  tags: [String]?
  vec: Vector(3)?
  photo: Blob?
  score: F64?
  @range(age, 0..150)
  @check(email, "[^@]+@[^@]+")
}
node Team { slug: String @key, title: String }
node Note { text: String }
edge MemberOf: Person -> Team @card(0..2) { since: I64? }
edge Knows: Person -> Person
)";

class LoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_shared<io::MemoryStore>();
    auto g = Graph::Init(store_, kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(g).value();
  }
  Result<LoadResult> Load(std::string_view data, LoadMode mode = LoadMode::kAppend) {
    LoadOptions o;
    o.mode = mode;
    return LoadNdjson(*graph_, data, o);
  }
  std::vector<std::string> Export() {
    std::vector<std::string> lines;
    auto snap = graph_->Head();
    EXPECT_TRUE(snap.ok());
    Status s = ExportNdjson(*snap, {}, [&](std::string_view l) {
      lines.emplace_back(l);
      return Status::Ok();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return lines;
  }
  void ExpectRejected(std::string_view data, ErrorCode code, uint64_t line, LoadMode mode = LoadMode::kAppend) {
    uint64_t seq = graph_->Head()->seq();
    auto r = Load(data, mode);
    ASSERT_FALSE(r.ok()) << "accepted: " << data;
    EXPECT_EQ(r.status().code(), code) << r.status().ToString();
    auto details = ParseJson(r.status().details(), "details");
    ASSERT_TRUE(details.ok()) << r.status().ToString();
    EXPECT_EQ((*details)["errors"][0]["line"].get<uint64_t>(), line) << r.status().ToString();
    EXPECT_EQ(graph_->Head()->seq(), seq);  // nothing published
  }
  std::shared_ptr<io::MemoryStore> store_;
  std::unique_ptr<Graph> graph_;
};

constexpr const char* kData =
    R"({"type":"Person","data":{"name":"Ada","age":36,"email":"ada@x.org","role":"admin","born":"1815-12-10","seen":1700000000000,"tags":["math","engines"],"vec":[1,0,0.5],"photo":"base64:AAEC/w==","score":1.5}}
{"type":"Person","data":{"name":"Grace"}}

{"type":"Team","data":{"slug":"eng","title":"Engineering"}}
{"edge":"MemberOf","from":"Ada","to":"eng","data":{"since":1843}}
{"edge":"Knows","from":"Ada","to":"Grace"}
{"type":"Note","data":{"text":"unkeyed"}}
)";

TEST_F(LoaderTest, AppendLoadsEverythingInOneCommit) {
  auto r = Load(kData);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->write.committed);
  EXPECT_EQ(r->records, 6u);
  EXPECT_EQ(r->types.at("Person").changes.inserted, 2u);
  EXPECT_EQ(graph_->Head()->seq(), 2u);
  auto counts = graph_->Head()->RowCounts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->at("Person"), 2u);
  EXPECT_EQ(counts->at("MemberOf"), 1u);
  EXPECT_EQ(counts->at("Note"), 1u);
  auto log = graph_->CommitLog("main");
  EXPECT_EQ((*log)[0]->operation, "load:append");
  EXPECT_EQ((*log)[0]->summary.at("Team").inserted, 1u);
}

TEST_F(LoaderTest, AppendRejectsExistingIdsMergeUpdatesThem) {
  ASSERT_TRUE(Load(kData).ok());
  ExpectRejected(R"({"type":"Person","data":{"name":"Ada"}})", ErrorCode::kKeyConflict, 1);
  auto r = Load(R"({"type":"Person","data":{"name":"Ada","age":37}}
{"type":"Person","data":{"name":"Alan"}})",
                LoadMode::kMerge);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->types.at("Person").changes.updated, 1u);
  EXPECT_EQ(r->types.at("Person").changes.inserted, 1u);
  EXPECT_EQ(graph_->Head()->RowCounts()->at("Person"), 3u);
}

// The report: a merge of 3,000 unchanged rows said `updated: 3000` and published a commit with an
// empty change list. Rows equal to the stored ones are not updates.
TEST_F(LoaderTest, MergeOfUnchangedRowsPublishesNothing) {
  std::string people;
  for (int i = 0; i < 3000; ++i) {
    people += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + R"(","age":)" + std::to_string(i % 100) +
              R"(,"tags":["a","b"],"score":1.5}})" + "\n";
  }
  ASSERT_TRUE(Load(people).ok());
  const uint64_t seq = graph_->Head()->seq();
  auto same = Load(people, LoadMode::kMerge);
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_FALSE(same->write.committed);
  EXPECT_EQ(same->types.at("Person").changes.updated, 0u);
  EXPECT_EQ(same->types.at("Person").changes.inserted, 0u);
  EXPECT_EQ(graph_->Head()->seq(), seq);
  // An absent nullable property equals a stored null; one changed value is one update.
  auto one = Load(R"({"type":"Person","data":{"name":"p7","age":7,"tags":["a","b"],"score":1.5,"email":null}}
{"type":"Person","data":{"name":"p8","age":9,"tags":["a","b"],"score":1.5}}
{"type":"Person","data":{"name":"new"}})",
                  LoadMode::kMerge);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_TRUE(one->write.committed);
  EXPECT_EQ(one->types.at("Person").changes.updated, 1u);
  EXPECT_EQ(one->types.at("Person").changes.inserted, 1u);
  auto log = graph_->CommitLog("main");
  EXPECT_EQ((*log)[0]->summary.at("Person"), (ChangeCounts{1, 1, 0}));
  auto snap = graph_->Head();
  EXPECT_EQ(snap->RowCounts()->at("Person"), 3001u);
}

TEST_F(LoaderTest, OverwriteReplacesMentionedTypesOnly) {
  ASSERT_TRUE(Load(kData).ok());
  auto r = Load(R"({"type":"Note","data":{"text":"a"}}
{"type":"Note","data":{"text":"b"}})",
                LoadMode::kOverwrite);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto counts = *graph_->Head()->RowCounts();
  EXPECT_EQ(counts.at("Note"), 2u);
  EXPECT_EQ(counts.at("Person"), 2u);
  // Overwriting Team without MemberOf would leave Ada's edge dangling.
  ExpectRejected(R"({"type":"Team","data":{"slug":"ops","title":"Ops"}})", ErrorCode::kLoadDanglingEdge, 0,
                 LoadMode::kOverwrite);
}

TEST_F(LoaderTest, EveryValidationErrorHasItsCodeAndLine) {
  ASSERT_TRUE(Load(kData).ok());
  const std::string ok = R"({"type":"Person","data":{"name":"Zed"}})";
  ExpectRejected(ok + "\n{\"type\":\"Person\",", ErrorCode::kLoadJson, 2);
  ExpectRejected(R"({"type":"Person","data":{"name":"A","name":"B"}})", ErrorCode::kLoadJson, 1);
  {  // duplicates past the first 16 members of an object, and inside a nested object
    std::string wide = R"({"type":"Person","data":{)";
    for (int i = 0; i < 20; ++i) wide += "\"k" + std::to_string(i) + "\":1,";
    ExpectRejected(wide + R"("k18":2}})", ErrorCode::kLoadJson, 1);
    ExpectRejected(R"({"type":"Person","data":{"name":"A","x":{"a":1,"a":2}}})", ErrorCode::kLoadJson, 1);
  }
  ExpectRejected(R"({"type":"Person","edge":"Knows","data":{}})", ErrorCode::kLoadEnvelope, 1);
  ExpectRejected(R"({"type":"Person","extra":1,"data":{"name":"Q"}})", ErrorCode::kLoadEnvelope, 1);
  ExpectRejected(R"([1,2])", ErrorCode::kLoadEnvelope, 1);
  ExpectRejected(ok + "\n" + R"({"type":"Robot","data":{}})", ErrorCode::kLoadUnknownType, 2);
  ExpectRejected(R"({"type":"Person","data":{"name":"Q","height":2}})", ErrorCode::kLoadUnknownProperty, 1);
  ExpectRejected(R"({"type":"Person","data":{"name":"Q","_rowid":2}})", ErrorCode::kLoadReservedProperty, 1);
  ExpectRejected(R"({"edge":"Knows","from":"Ada","to":"Grace","data":{"src":"x"}})", ErrorCode::kLoadReservedProperty,
                 1);
  ExpectRejected(R"({"type":"Person","data":{"name":"Q","age":"old"}})", ErrorCode::kLoadTypeMismatch, 1);
  ExpectRejected(R"({"type":"Person","data":{"name":"Q","age":3000000000}})", ErrorCode::kLoadTypeMismatch, 1);
  ExpectRejected(R"({"type":"Person","data":{"name":"Q","vec":[1,2]}})", ErrorCode::kLoadTypeMismatch, 1);
  ExpectRejected(R"({"type":"Person","data":{"name":"Q","born":"1815-13-10"}})", ErrorCode::kLoadTypeMismatch, 1);
  ExpectRejected(R"({"type":"Person","data":{"name":"Q","photo":"http://x/y.png"}})", ErrorCode::kLoadTypeMismatch, 1);
  ExpectRejected(R"({"type":"Person","data":{"name":"Q","photo":"base64:!!"}})", ErrorCode::kLoadTypeMismatch, 1);
  ExpectRejected(R"({"type":"Person","data":{}})", ErrorCode::kLoadMissingProperty, 1);
  ExpectRejected(R"({"type":"Team","data":{"slug":"x","title":null}})", ErrorCode::kLoadMissingProperty, 1);
  ExpectRejected(R"({"type":"Person","data":{"name":"Q","role":"owner"}})", ErrorCode::kLoadEnumValue, 1);
  ExpectRejected(R"({"type":"Person","data":{"name":"Q","age":151}})", ErrorCode::kLoadRange, 1);
  ExpectRejected(R"({"type":"Person","data":{"name":"Q","email":"nope"}})", ErrorCode::kLoadCheck, 1);
  ExpectRejected(R"({"type":"Person","data":{"id":"other","name":"Q"}})", ErrorCode::kLoadBadId, 1);
  ExpectRejected(R"({"type":"Note","data":{"id":7,"text":"t"}})", ErrorCode::kLoadBadId, 1);
  ExpectRejected(ok + "\n" + ok, ErrorCode::kLoadDuplicateId, 2);
  ExpectRejected(R"({"type":"Person","data":{"name":"Q","email":"ada@x.org"}})", ErrorCode::kLoadUnique, 1);
  ExpectRejected(R"({"type":"Person","data":{"name":"Q","email":"q@x.org"}}
{"type":"Person","data":{"name":"R","email":"q@x.org"}})",
                 ErrorCode::kLoadUnique, 2);
  ExpectRejected(R"({"edge":"Knows","from":"Ada","to":"Nobody"})", ErrorCode::kLoadDanglingEdge, 1);
  ExpectRejected(R"({"edge":"MemberOf","from":"Grace","to":"Ada"})", ErrorCode::kLoadDanglingEdge, 1);
  ExpectRejected(R"({"type":"Team","data":{"slug":"t2","title":"T2"}}
{"type":"Team","data":{"slug":"t3","title":"T3"}}
{"edge":"MemberOf","from":"Ada","to":"t2"}
{"edge":"MemberOf","from":"Ada","to":"t3"})",
                 ErrorCode::kLoadCardinality, 3);
}

TEST_F(LoaderTest, ErrorsAreBoundedAndListed) {
  std::string bad;
  for (int i = 0; i < 500; ++i)
    bad += R"({"type":"Nope","data":{}})"
           "\n";
  LoadOptions o;
  o.max_errors = 10;
  auto r = LoadNdjson(*graph_, bad, o);
  ASSERT_FALSE(r.ok());
  auto details = ParseJson(r.status().details(), "details");
  ASSERT_TRUE(details.ok());
  EXPECT_EQ((*details)["errors"].size(), 10u);
  EXPECT_TRUE((*details)["truncated"].get<bool>());
  EXPECT_EQ(store_->object_count(), store_->object_count());
}

TEST_F(LoaderTest, ExportThenOverwriteLoadReproducesTheGraph) {
  ASSERT_TRUE(Load(kData).ok());
  std::vector<std::string> first = Export();
  ASSERT_EQ(first.size(), 6u);
  EXPECT_EQ(first[0].find("{\"edge\":\"Knows\",\"from\":"), 0u);  // edges first: Knows, MemberOf
  // the Rust implementation's key order: kind, endpoints, then data with the id first
  EXPECT_NE(first[0].find("\"data\":{\"id\":"), std::string::npos) << first[0];
  std::string joined;
  for (const auto& l : first) joined += l + "\n";
  auto fresh_store = std::make_shared<io::MemoryStore>();
  auto fresh = std::move(Graph::Init(fresh_store, kSchema)).value();
  LoadOptions o;
  o.mode = LoadMode::kOverwrite;
  auto r = LoadNdjson(*fresh, joined, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> second;
  ASSERT_TRUE(ExportNdjson(*fresh->Head(), {}, [&](std::string_view l) {
                second.emplace_back(l);
                return Status::Ok();
              }).ok());
  EXPECT_EQ(first, second);
  EXPECT_NE(joined.find("\"photo\":\"base64:AAEC/w==\""), std::string::npos);
  EXPECT_NE(joined.find("\"born\":-56"), std::string::npos);  // epoch days before 1970
}

}  // namespace
}  // namespace omnigraph::engine
