#include <set>
#include <string>

#include <gtest/gtest.h>

#include "common/error_codes.h"

namespace omnigraph {
namespace {

Status Fails() { return NotFoundError("missing thing"); }
Result<int> Seven() { return 7; }
Result<int> Broken() { return CorruptError("bad bytes"); }

Status UsesMacros(bool fail, int* out) {
  OG_ASSIGN_OR_RETURN(int v, fail ? Broken() : Seven());
  *out = v;
  OG_RETURN_IF_ERROR(Status::Ok());
  return Status::Ok();
}

TEST(StatusTest, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code_string(), "ok");
  EXPECT_EQ(s.category(), StatusCode::kOk);
  EXPECT_EQ(s.ToString(), "ok");
}

TEST(StatusTest, CarriesCodeCategoryMessageSpan) {
  Status s = Fails().WithSpan(SourceSpan{"q.gq", 3, 7, 3, 9}).WithDetails("{\"x\":1}");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kNotFound);
  EXPECT_EQ(s.category(), StatusCode::kNotFound);
  EXPECT_EQ(s.code_string(), "not_found");
  EXPECT_EQ(s.message(), "missing thing");
  ASSERT_TRUE(s.span().has_value());
  EXPECT_EQ(s.span()->line, 3u);
  EXPECT_EQ(s.details(), "{\"x\":1}");
  EXPECT_EQ(s.ToString(), "not_found: missing thing (at q.gq:3:7)");
  Status copy = s;
  EXPECT_EQ(copy.ToString(), s.ToString());
  EXPECT_EQ(s.WithContext("reading x").message(), "reading x: missing thing");
}

TEST(StatusTest, MacrosPropagate) {
  int out = 0;
  EXPECT_TRUE(UsesMacros(false, &out).ok());
  EXPECT_EQ(out, 7);
  Status s = UsesMacros(true, &out);
  EXPECT_EQ(s.code(), ErrorCode::kCorrupt);
}

TEST(StatusTest, ResultValueAndError) {
  Result<std::string> r = std::string("abc");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "abc");
  EXPECT_EQ(r->size(), 3u);
  Result<std::string> e = IoError("disk");
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.status().category(), StatusCode::kIo);
  EXPECT_EQ(e.value_or("fallback"), "fallback");
}

TEST(ErrorCodesTest, NamesAreUniqueAndNonEmpty) {
  std::set<std::string> names;
  for (const auto& info : AllErrorCodes()) {
    EXPECT_FALSE(info.name.empty());
    EXPECT_FALSE(info.meaning.empty());
    EXPECT_TRUE(names.insert(std::string(info.name)).second) << "duplicate code " << info.name;
    EXPECT_EQ(&InfoFor(info.code), &info);
    EXPECT_GE(info.http_status, 400);
  }
}

TEST(ErrorCodesTest, ErrnoMapping) {
  EXPECT_EQ(ErrnoError("open x", ENOENT).category(), StatusCode::kNotFound);
  EXPECT_EQ(ErrnoError("open x", EACCES).category(), StatusCode::kPermissionDenied);
  EXPECT_EQ(ErrnoError("write x", ENOSPC).category(), StatusCode::kResourceExhausted);
  EXPECT_EQ(ErrnoError("read x", EIO).category(), StatusCode::kIo);
  EXPECT_NE(ErrnoError("open x", ENOENT).message().find("open x"), std::string::npos);
}

}  // namespace
}  // namespace omnigraph
