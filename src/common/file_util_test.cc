#include "common/file_util.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace omnigraph {
namespace {

class FileUtilTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/og-file-util-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string dir_;
};

TEST_F(FileUtilTest, ReadsARegularFile) {
  auto text = ReadSourceFile(Write("a.pg", "node A {}\n"), "schema file");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, "node A {}\n");
  auto empty = ReadSourceFile(Write("e.pg", ""), "schema file");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, "");
}

TEST_F(FileUtilTest, MissingFileIsNotFoundNamingThePath) {
  auto r = ReadSourceFile(dir_ + "/nope.gq", "query file");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_string(), "not_found");
  EXPECT_NE(r.status().message().find("query file '" + dir_ + "/nope.gq'"), std::string::npos);
}

TEST_F(FileUtilTest, DirectoryIsInvalidArgument) {
  auto r = ReadSourceFile(dir_, "schema file");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_string(), "invalid_argument");
  EXPECT_NE(r.status().message().find("is a directory"), std::string::npos);
  auto opened = OpenInputFile(dir_, "data file");
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code_string(), "invalid_argument");
}

TEST_F(FileUtilTest, EmptyPathIsInvalidArgument) {
  auto r = ReadSourceFile("", "params file");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_string(), "invalid_argument");
}

TEST_F(FileUtilTest, LargerThanTheLimitIsResourceLimit) {
  std::string path = Write("big.json", std::string(1000, 'x'));
  auto r = ReadSourceFile(path, "params file", /*max_bytes=*/999);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_string(), "resource_limit");
  EXPECT_TRUE(ReadSourceFile(path, "params file", 1000).ok());
}

TEST_F(FileUtilTest, StreamsAreReadAndLimited) {
  std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    FILE* f = std::fopen(fifo.c_str(), "w");
    for (int i = 0; i < 100; ++i) std::fputs("0123456789", f);
    std::fclose(f);
    _exit(0);
  }
  auto r = ReadSourceFile(fifo, "query file", /*max_bytes=*/500);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_string(), "resource_limit");
  int st = 0;
  ::waitpid(pid, &st, 0);
}

TEST_F(FileUtilTest, UnreadableIsPermissionDenied) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file";
  std::string path = Write("secret.pg", "x");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  auto r = ReadSourceFile(path, "schema file");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_string(), "permission_denied");
}

TEST_F(FileUtilTest, OpenInputFileKnowsTheSizeOfRegularFiles) {
  auto f = OpenInputFile(Write("d.ndjson", "{}\n"), "data file");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->size(), std::optional<uint64_t>(3));
  EXPECT_GE(f->fd(), 0);
}

}  // namespace
}  // namespace omnigraph
