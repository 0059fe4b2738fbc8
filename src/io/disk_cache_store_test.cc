#include "io/disk_cache_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "common/error_codes.h"
#include "common/ulid.h"
#include "io/counting_store.h"
#include "io/memory_store.h"

namespace omnigraph::io {
namespace {

namespace fs = std::filesystem;

class DiskCacheStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() / ("og-disk-cache-" + NewUlidString())).string();
    ASSERT_TRUE(mem_->Put("data/a.ogf", std::string(1000, 'a') + std::string(1000, 'b')).ok());
    ASSERT_TRUE(mem_->Put("versions/v1", "manifest").ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<DiskCacheStore> Open(uint64_t max_bytes = uint64_t{1} << 20) {
    DiskCacheOptions o;
    o.dir = dir_;
    o.max_bytes = max_bytes;
    o.cacheable = [](std::string_view key) { return key.substr(0, 5) == "data/"; };
    auto s = DiskCacheStore::Open(counted_, o);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }
  // The entry files in the cache folder (not temp files).
  std::vector<fs::path> Entries() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      if (e.is_regular_file() && e.path().parent_path().filename() != "tmp") out.push_back(e.path());
    }
    return out;
  }

  std::string dir_;
  std::shared_ptr<MemoryStore> mem_ = std::make_shared<MemoryStore>();
  std::shared_ptr<CountingStore> counted_ = std::make_shared<CountingStore>(mem_);
};

TEST_F(DiskCacheStoreTest, CacheableReadsAreServedFromDiskAfterTheFirst) {
  auto c = Open();
  ASSERT_NE(c, nullptr);
  for (int i = 0; i < 3; ++i) {
    auto r = c->GetRange("data/a.ogf", 990, 20);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, std::string(10, 'a') + std::string(10, 'b'));
  }
  EXPECT_EQ(counted_->counts().total(), 1u);
  EXPECT_EQ(c->stats().hits, 2u);
  EXPECT_EQ(c->stats().misses, 1u);
  // Another handle on the same folder (another process) finds the entry too.
  auto other = Open();
  ASSERT_TRUE(other->GetRange("data/a.ogf", 990, 20).ok());
  EXPECT_EQ(counted_->counts().total(), 1u);
  // A whole-object entry answers every range inside it.
  ASSERT_TRUE(c->Get("data/a.ogf").ok());
  counted_->Reset();
  auto r = c->GetRange("data/a.ogf", 5, 3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "aaa");
  EXPECT_EQ(counted_->counts().total(), 0u);
}

TEST_F(DiskCacheStoreTest, OtherKeysErrorsAndWritesPassThrough) {
  auto c = Open();
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(c->Get("versions/v1").ok());
  EXPECT_EQ(counted_->counts().of(StoreOp::kGet), 2u);
  EXPECT_TRUE(Entries().empty());
  // A missing object is an error every time, never an entry.
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(c->Get("data/missing.ogf").status().category(), StatusCode::kNotFound);
  }
  EXPECT_TRUE(Entries().empty());
  ASSERT_TRUE(c->PutIfAbsent("data/new.ogf", "fresh").ok());
  auto got = mem_->Get("data/new.ogf");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, "fresh");
}

TEST_F(DiskCacheStoreTest, DeleteAndReplaceDropTheEntries) {
  auto c = Open();
  ASSERT_TRUE(c->GetRange("data/a.ogf", 0, 4).ok());
  ASSERT_TRUE(c->Get("data/a.ogf").ok());
  EXPECT_EQ(Entries().size(), 2u);
  ASSERT_TRUE(c->Put("data/a.ogf", "new").ok());
  EXPECT_TRUE(Entries().empty());
  auto r = c->Get("data/a.ogf");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "new");
  ASSERT_TRUE(c->Delete("data/a.ogf").ok());
  EXPECT_EQ(c->Get("data/a.ogf").status().category(), StatusCode::kNotFound);
  EXPECT_EQ(c->used_bytes(), 0u);
}

TEST_F(DiskCacheStoreTest, DamagedEntryIsAMissAndIsReplaced) {
  auto c = Open();
  ASSERT_TRUE(c->GetRange("data/a.ogf", 0, 1500).ok());
  auto entries = Entries();
  ASSERT_EQ(entries.size(), 1u);
  {
    std::fstream f(entries[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-3, std::ios::end);
    f.put('X');
  }
  counted_->Reset();
  auto r = c->GetRange("data/a.ogf", 0, 1500);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, std::string(1000, 'a') + std::string(500, 'b'));
  EXPECT_EQ(counted_->counts().total(), 1u);
  EXPECT_EQ(c->stats().bad_entries, 1u);
  // Truncated to less than a header: a miss too.
  fs::resize_file(Entries()[0], 7);
  r = c->GetRange("data/a.ogf", 0, 1500);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->size(), 1500u);
  EXPECT_EQ(c->stats().bad_entries, 2u);
}

TEST_F(DiskCacheStoreTest, FolderStaysUnderItsBudget) {
  const uint64_t budget = 20000;
  auto c = Open(budget);
  for (int i = 0; i < 40; ++i) {
    std::string key = "data/f" + std::to_string(i) + ".ogf";
    ASSERT_TRUE(mem_->Put(key, std::string(1000, static_cast<char>('a' + i % 26))).ok());
    auto r = c->Get(key);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, std::string(1000, static_cast<char>('a' + i % 26)));
  }
  uint64_t on_disk = 0;
  for (const auto& e : Entries()) on_disk += fs::file_size(e);
  EXPECT_LE(on_disk, budget);
  EXPECT_EQ(on_disk, c->used_bytes());
  EXPECT_GT(c->stats().evicted, 0u);
  // The most recent entry survived.
  counted_->Reset();
  ASSERT_TRUE(c->Get("data/f39.ogf").ok());
  EXPECT_EQ(counted_->counts().total(), 0u);
  // Reads larger than an eighth of the budget pass through.
  ASSERT_TRUE(mem_->Put("data/big.ogf", std::string(budget / 4, 'z')).ok());
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(c->Get("data/big.ogf").ok());
  EXPECT_EQ(counted_->counts().of(StoreOp::kGet), 2u);
}

// The folder a user names may hold other files (~/.cache, /tmp): the cache counts, evicts and
// cleans up only what it wrote, under its own subfolder.
TEST_F(DiskCacheStoreTest, OtherFilesInTheFolderAreNeverTouched) {
  fs::create_directories(fs::path(dir_) / "tmp");
  {
    std::ofstream(fs::path(dir_) / "theirs.bin") << std::string(50000, 'x');
    std::ofstream(fs::path(dir_) / "tmp" / "old.txt") << "keep me";
  }
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(48);
  fs::last_write_time(fs::path(dir_) / "theirs.bin", old);
  fs::last_write_time(fs::path(dir_) / "tmp" / "old.txt", old);
  auto c = Open(/*max_bytes=*/20000);
  EXPECT_EQ(c->used_bytes(), 0u);
  for (int i = 0; i < 40; ++i) {
    std::string key = "data/g" + std::to_string(i) + ".ogf";
    ASSERT_TRUE(mem_->Put(key, std::string(1000, 'y')).ok());
    ASSERT_TRUE(c->Get(key).ok());
  }
  EXPECT_GT(c->stats().evicted, 0u);
  EXPECT_TRUE(fs::exists(fs::path(dir_) / "theirs.bin"));
  EXPECT_TRUE(fs::exists(fs::path(dir_) / "tmp" / "old.txt"));
}

TEST_F(DiskCacheStoreTest, ConcurrentReadersAgree) {
  auto c = Open();
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        uint64_t off = static_cast<uint64_t>((i * 37 + t) % 1900);
        auto r = c->GetRange("data/a.ogf", off, 100);
        std::string want;
        for (uint64_t k = off; k < off + 100; ++k) want += k < 1000 ? 'a' : 'b';
        if (!r.ok() || *r != want) wrong.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(c->stats().errors, 0u);
}

TEST_F(DiskCacheStoreTest, BadOptionsAreTypedErrors) {
  DiskCacheOptions o;
  o.cacheable = [](std::string_view) { return true; };
  EXPECT_EQ(DiskCacheStore::Open(mem_, o).status().category(), StatusCode::kInvalidArgument);
  o.dir = "/proc/og-cannot-create-here";
  EXPECT_EQ(DiskCacheStore::Open(mem_, o).status().code(), ErrorCode::kIo);
  o.dir = dir_;
  o.cacheable = nullptr;
  EXPECT_EQ(DiskCacheStore::Open(mem_, o).status().category(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace omnigraph::io
