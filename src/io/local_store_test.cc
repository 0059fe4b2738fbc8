// LocalStore specifics: cross-process atomic create, crash between temp write and publish,
// invisible temp names, open errors.
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/error_codes.h"
#include "common/failpoint.h"
#include "common/ulid.h"
#include "io/local_store.h"

namespace omnigraph::io {
namespace {

namespace fs = std::filesystem;

class LocalStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() / ("og-local-" + NewUlidString())).string();
    LocalStoreOptions o;
    o.create_root = true;
    auto s = LocalStore::Open(dir_, o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  size_t CountTempFiles() {
    size_t n = 0;
    for (auto& e : fs::recursive_directory_iterator(dir_)) {
      if (e.path().filename().string().rfind(".og-", 0) == 0) ++n;
    }
    return n;
  }
  std::string dir_;
  std::unique_ptr<LocalStore> store_;
};

TEST_F(LocalStoreTest, ExactlyOneWinnerAcrossProcesses) {
  constexpr int kProcs = 8, kKeys = 10;
  std::vector<pid_t> pids;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Child: own store handle on the same root; exit code = number of keys won.
      LocalStoreOptions o;
      auto s = LocalStore::Open(dir_, o);
      if (!s.ok()) ::_exit(100);
      int won = 0;
      for (int k = 0; k < kKeys; ++k) {
        Status st = (*s)->PutIfAbsent("refs/main/" + std::to_string(k), "proc-" + std::to_string(p));
        if (st.ok())
          ++won;
        else if (st.category() != StatusCode::kAlreadyExists)
          ::_exit(101);
      }
      ::_exit(won);
    }
    pids.push_back(pid);
  }
  int total_won = 0;
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_LT(WEXITSTATUS(status), 100) << "child failed with " << WEXITSTATUS(status);
    total_won += WEXITSTATUS(status);
  }
  EXPECT_EQ(total_won, kKeys);  // each key won exactly once
  auto keys = store_->List("refs/main/");
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys->size(), static_cast<size_t>(kKeys));
  EXPECT_EQ(CountTempFiles(), 0u);
}

// Streamed writers: a committed, a losing and an abandoned writer leave no temp file behind.
TEST_F(LocalStoreTest, StreamedWritersLeaveNoTempFiles) {
  for (const char* key : {"f/x", "f/x", "f/y"}) {
    auto w = store_->NewWriter(key);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->Append(std::string(100000, 'z')).ok());
    if (std::string_view(key) != "f/y") (void)(*w)->Commit();  // the second one loses
  }
  EXPECT_EQ(CountTempFiles(), 0u);
  EXPECT_EQ(store_->Get("f/x")->size(), 100000u);
  EXPECT_EQ(store_->Head("f/y").status().category(), StatusCode::kNotFound);
}

#if defined(OG_FAILPOINTS_ENABLED)
// A real crash (the child process dies) after the temp file is written and synced, before the
// rename/link: the object must not be visible, and the leftover temp file must be invisible.
TEST_F(LocalStoreTest, CrashBetweenTempWriteAndPublishLeavesNoVisibleObject) {
  for (bool create : {false, true}) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      FailpointRegistry::Action die;
      die.fn = []() -> Status { ::_exit(0); };
      if (!FailpointRegistry::Global().Arm("io.local.after_temp_write", die).ok()) ::_exit(2);
      Status s = create ? store_->PutIfAbsent("commits/c1.json", "payload") : store_->Put("commits/c1.json", "payload");
      if (!s.ok()) std::fprintf(stderr, "child: %s\n", s.ToString().c_str());
      ::_exit(s.ok() ? 3 : 4);  // not reached when the failpoint fires
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0) << "the child did not crash at the failpoint";
    EXPECT_EQ(store_->Get("commits/c1.json").status().category(), StatusCode::kNotFound);
    auto all = store_->List("");
    ASSERT_TRUE(all.ok());
    EXPECT_TRUE(all->empty());
    EXPECT_GE(CountTempFiles(), 1u);  // the crash really left a temp file behind
  }
  // The key is still creatable afterwards.
  EXPECT_TRUE(store_->PutIfAbsent("commits/c1.json", "after").ok());
}

TEST_F(LocalStoreTest, RefusesWritesWithoutHardLinks) {
  ScopedFailpoints scope;
  ASSERT_TRUE(FailpointRegistry::Global().ArmError("io.local.link_probe", IoError("no links")).ok());
  auto s = LocalStore::Open(dir_, LocalStoreOptions{});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), ErrorCode::kStoreUnsupported);
  EXPECT_NE(s.status().message().find("hard links"), std::string::npos);
  LocalStoreOptions read_only;
  read_only.writable = false;
  EXPECT_TRUE(LocalStore::Open(dir_, read_only).ok());  // reading needs no links
  EXPECT_EQ(CountTempFiles(), 0u);
}

TEST_F(LocalStoreTest, FailedWriteCleansUpItsTempFile) {
  ScopedFailpoints scope;
  ASSERT_TRUE(FailpointRegistry::Global().ArmError("io.local.after_temp_write", IoError("disk went away")).ok());
  EXPECT_FALSE(store_->Put("x/y", "data").ok());
  EXPECT_EQ(store_->Get("x/y").status().category(), StatusCode::kNotFound);
  EXPECT_EQ(CountTempFiles(), 0u);
}
#endif

TEST_F(LocalStoreTest, TempNamesAreInvisible) {
  ASSERT_TRUE(store_->Put("d/visible", "1").ok());
  std::ofstream(dir_ + "/d/.og-tmp-leftover") << "partial";
  auto keys = store_->List("d/");
  ASSERT_TRUE(keys.ok());
  ASSERT_EQ(keys->size(), 1u);
  EXPECT_EQ((*keys)[0].key, "d/visible");
}

TEST_F(LocalStoreTest, OpenErrors) {
  LocalStoreOptions o;
  EXPECT_EQ(LocalStore::Open(dir_ + "/missing", o).status().category(), StatusCode::kNotFound);
  EXPECT_EQ(LocalStore::Open("relative/path", o).status().category(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(store_->Put("file", "x").ok());
  EXPECT_EQ(LocalStore::Open(dir_ + "/file", o).status().category(), StatusCode::kInvalidArgument);
  o.create_root = true;
  EXPECT_TRUE(LocalStore::Open(dir_ + "/new/nested/root", o).ok());
}

TEST_F(LocalStoreTest, KeyUnderAnExistingObjectIsAnError) {
  ASSERT_TRUE(store_->Put("a", "file").ok());
  Status s = store_->Put("a/b", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(*store_->Get("a"), "file");
}

TEST_F(LocalStoreTest, DurableAcrossReopen) {
  ASSERT_TRUE(store_->PutIfAbsent("k", "v").ok());
  store_.reset();
  auto again = LocalStore::Open(dir_, LocalStoreOptions{});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*(*again)->Get("k"), "v");
}

}  // namespace
}  // namespace omnigraph::io
