// Tests of the manifest model and its stored form: round trip, checksum and validation failures
// reported as kCorrupt, newer format versions refused, type spellings.
#include "table/manifest.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "common/error_codes.h"
#include "common/hash.h"
#include "common/json.h"
#include "common/ulid.h"
#include "table/table_test_util.h"

namespace omnigraph::table {
namespace {

using testing::F;

Manifest Sample() {
  Manifest m;
  m.version_id = NewUlidString();
  m.parent_version_id = NewUlidString();
  m.sequence = 7;
  m.created_ms = 1700000000000;
  m.operation = {"upsert", 3, 2, "note \xc3\xa9"};
  auto s =
      TableSchema::Make({F("id", DataType::Scalar(TypeKind::kString), false),
                         F("age", DataType::Scalar(TypeKind::kI64)), F("v", DataType::Vector(4)),
                         F("tags", DataType::List(TypeKind::kString)), F("when", DataType::Scalar(TypeKind::kDate))},
                        "id");
  EXPECT_TRUE(s.ok());
  m.schema = *s;
  FragmentMeta f;
  f.id = 3;
  f.file_key = "data/" + NewUlidString() + ".ogf";
  f.file_size = 1234;
  f.tail_size = 200;
  f.physical_rows = 10;
  f.deletion_key = "del/" + NewUlidString() + ".del";
  f.deleted_rows = 2;
  f.blob_keys = {"blob/" + NewUlidString() + ".blob"};
  ColumnStats st;
  st.row_count = 10;
  st.null_count = 1;
  st.min = Value::I64(-5);
  st.max = Value::I64(99);
  f.stats[2] = st;
  ColumnStats ss;
  ss.row_count = 10;
  ss.min = Value::String("a");
  ss.max = Value::String("zz");
  f.stats[1] = ss;
  ColumnStats ds;
  ds.row_count = 10;
  ds.min = Value::Date(-3);
  ds.max = Value::Date(3);
  f.stats[5] = ds;
  m.fragments.push_back(f);
  m.next_fragment_id = 4;
  m.row_count = 8;
  IndexSegmentMeta idx{"id", 1, {3}, {"idx/" + NewUlidString() + "/id.seg"}, 10};
  m.indexes.push_back(idx);
  return m;
}

TEST(ManifestTest, RoundTrip) {
  Manifest m = Sample();
  std::string bytes = EncodeManifest(m);
  OG_ASSERT_OK_AND_ASSIGN(Manifest d, DecodeManifest(bytes, "m"));
  EXPECT_EQ(EncodeManifest(d), bytes);
  EXPECT_EQ(d.schema, m.schema);
  ASSERT_EQ(d.fragments.size(), 1u);
  EXPECT_EQ(d.fragments[0].stats.at(2).min->int_value(), -5);
  EXPECT_EQ(d.fragments[0].stats.at(5).min->kind(), TypeKind::kDate);
  EXPECT_EQ(d.fragments[0].stats.at(1).max->string_value(), "zz");
  EXPECT_EQ(d.operation.note, m.operation.note);
  EXPECT_EQ(d.indexes[0].keys, m.indexes[0].keys);
}

TEST(ManifestTest, EveryFlippedByteIsDetected) {
  std::string bytes = EncodeManifest(Sample());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x20);
    auto r = DecodeManifest(bad, "m");
    ASSERT_FALSE(r.ok()) << "byte " << i;
    EXPECT_EQ(r.status().category(), StatusCode::kCorrupt) << "byte " << i;
  }
  EXPECT_EQ(DecodeManifest(bytes.substr(0, bytes.size() / 2), "m").status().category(), StatusCode::kCorrupt);
  EXPECT_EQ(DecodeManifest("", "m").status().category(), StatusCode::kCorrupt);
}

// Wraps an arbitrary body in a correctly checksummed envelope.
std::string Envelope(const std::string& body) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XxHash64(body)));
  return std::string("{\"checksum\":\"") + hex + "\",\"manifest\":" + body + "}";
}

void Mutate(Json& root, Json& node, const std::string& path, int* checked) {
  const Json alternatives[] = {Json(nullptr),           Json("x"), Json(-1), Json(1e30), Json::array(), Json::object(),
                               Json(uint64_t{1} << 40), Json(true)};
  for (const Json& alt : alternatives) {
    Json saved = node;
    node = alt;
    auto r = DecodeManifest(Envelope(CanonicalJson(root)), "m");
    if (!r.ok()) {
      EXPECT_TRUE(r.status().category() == StatusCode::kCorrupt || r.status().code_string() == "format_too_new")
          << path << " = " << alt.dump() << ": " << r.status().ToString();
    }
    ++*checked;
    node = saved;
  }
  if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it) Mutate(root, it.value(), path + "." + it.key(), checked);
  } else if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i) Mutate(root, node[i], path + "[" + std::to_string(i) + "]", checked);
  }
}

TEST(ManifestTest, StructurallyBadBodiesWithValidChecksumsAreCorrupt) {
  std::string bytes = EncodeManifest(Sample());
  const std::string prefix = "{\"checksum\":\"0123456789abcdef\",\"manifest\":";
  std::string body = bytes.substr(prefix.size(), bytes.size() - prefix.size() - 1);
  OG_ASSERT_OK(DecodeManifest(Envelope(body), "m"));
  auto parsed = ParseJson(body, "body");
  ASSERT_TRUE(parsed.ok());
  Json root = *parsed;
  int checked = 0;
  Mutate(root, root, "", &checked);
  EXPECT_GT(checked, 400);
  EXPECT_EQ(DecodeManifest(Envelope("[1,2]"), "m").status().category(), StatusCode::kCorrupt);
  EXPECT_EQ(DecodeManifest(Envelope("{}"), "m").status().category(), StatusCode::kCorrupt);
}

TEST(ManifestTest, InconsistentManifestsAreRejected) {
  Manifest m = Sample();
  m.row_count = 9;
  EXPECT_EQ(ValidateManifest(m, true).category(), StatusCode::kCorrupt);
  EXPECT_EQ(DecodeManifest(EncodeManifest(m), "m").status().category(), StatusCode::kCorrupt);
  m = Sample();
  m.fragments[0].deleted_rows = 11;
  EXPECT_FALSE(ValidateManifest(m, false).ok());
  m = Sample();
  m.next_fragment_id = 3;
  EXPECT_FALSE(ValidateManifest(m, false).ok());
  m = Sample();
  m.indexes[0].fragment_ids = {9};
  EXPECT_FALSE(ValidateManifest(m, false).ok());
  m = Sample();
  m.fragments[0].file_key = "../escape";
  EXPECT_EQ(DecodeManifest(EncodeManifest(m), "m").status().category(), StatusCode::kCorrupt);
}

TEST(ManifestTest, NewerFormatIsRefused) {
  Manifest m = Sample();
  m.format_version = kManifestFormatVersion + 1;
  auto r = DecodeManifest(EncodeManifest(m), "m");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_string(), "format_too_new");
}

TEST(ManifestTest, SchemaValidation) {
  EXPECT_FALSE(
      TableSchema::Make({F("a", DataType::Scalar(TypeKind::kI64)), F("a", DataType::Scalar(TypeKind::kI64))}, "").ok());
  EXPECT_FALSE(TableSchema::Make({F("", DataType::Scalar(TypeKind::kI64))}, "").ok());
  EXPECT_FALSE(TableSchema::Make({F("id", DataType::Scalar(TypeKind::kString), true)}, "id").ok());  // nullable key
  EXPECT_FALSE(TableSchema::Make({F("id", DataType::Scalar(TypeKind::kI64), false)}, "id").ok());
  EXPECT_FALSE(TableSchema::Make({F("id", DataType::Scalar(TypeKind::kString), false)}, "missing").ok());
  EXPECT_FALSE(TableSchema::Make({F("v", DataType::Vector(0))}, "").ok());
  EXPECT_TRUE(TableSchema::Make({F("v", DataType::Vector(65536))}, "").ok());
}

TEST(ManifestTest, TypeSpellings) {
  for (const DataType& t :
       {DataType::Scalar(TypeKind::kString), DataType::Scalar(TypeKind::kBlob), DataType::Scalar(TypeKind::kDateTime),
        DataType::Scalar(TypeKind::kU32), DataType::Vector(128), DataType::List(TypeKind::kF32)}) {
    OG_ASSERT_OK_AND_ASSIGN(DataType back, TypeFromString(TypeToString(t)));
    EXPECT_EQ(back, t) << TypeToString(t);
  }
  EXPECT_FALSE(TypeFromString("Vector(0)").ok());
  EXPECT_FALSE(TypeFromString("[Blob]").ok());
  EXPECT_FALSE(TypeFromString("Int").ok());
  EXPECT_FALSE(TypeFromString("Vector(99999999999)").ok());
}

}  // namespace
}  // namespace omnigraph::table
