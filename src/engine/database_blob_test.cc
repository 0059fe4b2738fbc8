// The public API's schema source and Blob cells (include/omnigraph/omnigraph.h): StatBlob, ReadBlob
// with ranges, their typed errors, time travel, and SchemaSource.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <string>

#include "common/error_codes.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph {
namespace {

constexpr const char* kSchema = R"(
  node Document { title: String @key, content: Blob?, note: String? }
  edge Attachment: Document -> Document { payload: Blob? }
)";

// readme: bytes 0 1 2 3 4 255; empty: zero bytes; none: a null Blob; attachment-1: 9 8 7.
constexpr const char* kData = R"({"type":"Document","data":{"title":"readme","content":"base64:AAECAwT/","note":"n"}}
{"type":"Document","data":{"title":"empty","content":"base64:"}}
{"type":"Document","data":{"title":"none"}}
{"edge":"Attachment","from":"readme","to":"empty","data":{"id":"attachment-1","payload":"base64:CQgH"}})";

const std::string kReadme("\x00\x01\x02\x03\x04\xff", 6);

class DatabaseBlobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    auto db = Database::Init("memory://blob_" + name, kSchema);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    auto l = db_->Load(kData, LoadMode::kAppend);
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    commit_ = l->commit_id;
  }
  Result<std::string> Read(std::string_view id, std::optional<BlobRange> range = std::nullopt,
                           const ReadTarget& at = {}) {
    return db_->ReadBlob(at, EntityKind::kNode, "Document", id, "content", range);
  }
  std::unique_ptr<Database> db_;
  std::string commit_;
};

bool IsQuotedHex32(const std::string& etag) {
  if (etag.size() != 34 || etag.front() != '"' || etag.back() != '"') return false;
  for (size_t i = 1; i + 1 < etag.size(); ++i) {
    const char c = etag[i];
    if (!std::isdigit(static_cast<unsigned char>(c)) && (c < 'a' || c > 'f')) return false;
  }
  return true;
}

TEST_F(DatabaseBlobTest, SchemaSourceIsTheInitTextAtEveryTarget) {
  auto head = db_->SchemaSource();
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(*head, kSchema);
  auto at_commit = db_->SchemaSource(ReadTarget::Commit(commit_));
  ASSERT_TRUE(at_commit.ok()) << at_commit.status().ToString();
  EXPECT_EQ(*at_commit, kSchema);
  EXPECT_EQ(db_->SchemaSource("no-such-branch").status().category(), StatusCode::kNotFound);
}

TEST_F(DatabaseBlobTest, StatDescribesAManagedCellWithoutReadingIt) {
  auto info = db_->StatBlob({}, EntityKind::kNode, "Document", "readme", "content");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->kind, BlobKind::kManaged);
  EXPECT_EQ(info->size, 6u);
  EXPECT_TRUE(IsQuotedHex32(info->etag)) << info->etag;
  auto snap = db_->Snapshot();
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(info->snapshot_id, snap->snapshot_id);
  EXPECT_EQ(info->commit_id, commit_);
  // Stable for the same cell, different for another one.
  auto again = db_->StatBlob(ReadTarget::Commit(commit_), EntityKind::kNode, "Document", "readme", "content");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->etag, info->etag);
  EXPECT_EQ(again->snapshot_id, commit_);  // a bare commit's snapshot id is the commit id
  auto empty = db_->StatBlob({}, EntityKind::kNode, "Document", "empty", "content");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->size, 0u);
  EXPECT_NE(empty->etag, info->etag);
  auto edge = db_->StatBlob({}, EntityKind::kEdge, "Attachment", "attachment-1", "payload");
  ASSERT_TRUE(edge.ok()) << edge.status().ToString();
  EXPECT_EQ(edge->size, 3u);
}

TEST_F(DatabaseBlobTest, ReadReturnsTheWholePayloadOrARange) {
  auto whole = Read("readme");
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(*whole, kReadme);
  auto middle = Read("readme", BlobRange{1, 3});
  ASSERT_TRUE(middle.ok()) << middle.status().ToString();
  EXPECT_EQ(*middle, kReadme.substr(1, 3));
  auto to_end = Read("readme", BlobRange{3, std::nullopt});
  ASSERT_TRUE(to_end.ok());
  EXPECT_EQ(*to_end, kReadme.substr(3));
  auto head = Read("readme", BlobRange{0, 2});
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(*head, kReadme.substr(0, 2));
  auto clamped = Read("readme", BlobRange{0, 7});
  ASSERT_TRUE(clamped.ok());
  EXPECT_EQ(*clamped, kReadme);
  auto last = Read("readme", BlobRange{5, UINT64_MAX - 5});
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ(*last, "\xff");
  auto empty = Read("empty");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(*empty, "");
  auto edge = db_->ReadBlob({}, EntityKind::kEdge, "Attachment", "attachment-1", "payload");
  ASSERT_TRUE(edge.ok()) << edge.status().ToString();
  EXPECT_EQ(*edge, "\x09\x08\x07");
}

TEST_F(DatabaseBlobTest, RangeErrorsAreTyped) {
  auto zero = Read("readme", BlobRange{0, 0});
  EXPECT_EQ(zero.status().code(), ErrorCode::kInvalidArgument) << zero.status().ToString();
  auto overflow = Read("readme", BlobRange{UINT64_MAX, 2});
  EXPECT_EQ(overflow.status().code(), ErrorCode::kInvalidArgument) << overflow.status().ToString();
  EXPECT_NE(overflow.status().message().find("overflows"), std::string::npos);
  // Checked before the cell is looked up.
  EXPECT_EQ(Read("missing", BlobRange{0, 0}).status().code(), ErrorCode::kInvalidArgument);
  auto past = Read("readme", BlobRange{6, std::nullopt});
  EXPECT_EQ(past.status().code(), ErrorCode::kRangeOutOfBounds) << past.status().ToString();
  EXPECT_NE(past.status().message().find("not satisfiable"), std::string::npos);
  // No range of an empty Blob is satisfiable; the whole of it is.
  EXPECT_EQ(Read("empty", BlobRange{0, std::nullopt}).status().code(), ErrorCode::kRangeOutOfBounds);
  EXPECT_EQ(Read("empty", BlobRange{0, 1}).status().code(), ErrorCode::kRangeOutOfBounds);
}

TEST_F(DatabaseBlobTest, SelectorErrorsAreTyped) {
  auto category = [&](EntityKind kind, std::string_view type, std::string_view id, std::string_view property) {
    auto stat = db_->StatBlob({}, kind, type, id, property);
    auto read = db_->ReadBlob({}, kind, type, id, property);
    EXPECT_EQ(stat.status().category(), read.status().category()) << stat.status().ToString();
    return stat.status().category();
  };
  EXPECT_EQ(category(EntityKind::kNode, "Nope", "readme", "content"), StatusCode::kNotFound);
  EXPECT_EQ(category(EntityKind::kEdge, "Document", "readme", "content"), StatusCode::kNotFound);  // other kind
  EXPECT_EQ(category(EntityKind::kNode, "Document", "readme", "nope"), StatusCode::kNotFound);
  EXPECT_EQ(category(EntityKind::kNode, "Document", "missing", "content"), StatusCode::kNotFound);
  EXPECT_EQ(category(EntityKind::kNode, "Document", "none", "content"), StatusCode::kNotFound);  // null cell
  EXPECT_EQ(category(EntityKind::kNode, "Document", "readme", "note"), StatusCode::kInvalidArgument);
  EXPECT_EQ(category(EntityKind::kNode, "Document", "readme", "title"), StatusCode::kInvalidArgument);
  EXPECT_EQ(db_->StatBlob("no-such-branch", EntityKind::kNode, "Document", "readme", "content").status().category(),
            StatusCode::kNotFound);
}

TEST_F(DatabaseBlobTest, ReadsFollowTheTarget) {
  auto before = db_->StatBlob({}, EntityKind::kNode, "Document", "readme", "content");
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE(db_->CreateBranch("feature").ok());
  auto f = db_->Load(R"({"type":"Document","data":{"title":"readme","content":"base64:CQgH"}})", LoadMode::kMerge,
                     "feature");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  auto m = db_->Load(R"({"type":"Document","data":{"title":"readme","content":"base64:BgUEAw=="}})", LoadMode::kMerge);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto feature = Read("readme", std::nullopt, "feature");
  ASSERT_TRUE(feature.ok()) << feature.status().ToString();
  EXPECT_EQ(*feature, "\x09\x08\x07");
  auto head = Read("readme");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(*head, "\x06\x05\x04\x03");
  auto old = Read("readme", std::nullopt, ReadTarget::Commit(commit_));
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(*old, kReadme);
  // A changed cell has a new tag; the old snapshot keeps the old one.
  auto after = db_->StatBlob({}, EntityKind::kNode, "Document", "readme", "content");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->size, 4u);
  EXPECT_NE(after->etag, before->etag);
  auto past = db_->StatBlob(ReadTarget::Commit(commit_), EntityKind::kNode, "Document", "readme", "content");
  ASSERT_TRUE(past.ok());
  EXPECT_EQ(past->etag, before->etag);
}

}  // namespace
}  // namespace omnigraph
