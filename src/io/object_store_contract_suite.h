// The object-store contract (docs/architecture.md, "The object store") as a parameterized suite:
// a test binary includes this header once and instantiates `ContractTest` with its backends
// (object_store_contract_test.cc: memory, local and the wrapper stacks; tools/s3_server: the S3
// backend against the S3 test server). Test-only.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/error_codes.h"
#include "common/ulid.h"
#include "io/object_store.h"

namespace omnigraph::io::contract {

struct Backend {
  std::string name;
  std::function<std::shared_ptr<ObjectStore>(const std::string& dir)> make;
  friend void PrintTo(const Backend& b, std::ostream* os) { *os << b.name; }
};

class ContractTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() / ("og-contract-" + NewUlidString())).string();
    store_ = GetParam().make(dir_);
    ASSERT_NE(store_, nullptr);
  }
  void TearDown() override {
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::vector<std::string> Keys(std::string_view prefix, std::string_view after = "") {
    auto r = store_->List(prefix, after);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (auto& m : *r) out.push_back(m.key);
    }
    return out;
  }
  std::string dir_;
  std::shared_ptr<ObjectStore> store_;
};

TEST_P(ContractTest, PutGetHeadDelete) {
  EXPECT_EQ(store_->Get("a/b").status().category(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Head("a/b").status().category(), StatusCode::kNotFound);
  ASSERT_TRUE(store_->Put("a/b", "hello").ok());
  EXPECT_EQ(*store_->Get("a/b"), "hello");
  EXPECT_EQ(store_->Head("a/b")->size, 5u);
  ASSERT_TRUE(store_->Put("a/b", "replaced!").ok());
  EXPECT_EQ(*store_->Get("a/b"), "replaced!");
  ASSERT_TRUE(store_->PutVolatile("a/b", "volatile").ok());  // replaces like Put while the process runs
  EXPECT_EQ(*store_->Get("a/b"), "volatile");
  ASSERT_TRUE(store_->PutVolatile("a/new", "created").ok());
  EXPECT_EQ(*store_->Get("a/new"), "created");
  ASSERT_TRUE(store_->Delete("a/new").ok());
  ASSERT_TRUE(store_->Put("a/b", "replaced!").ok());
  ASSERT_TRUE(store_->Put("empty", "").ok());
  EXPECT_EQ(*store_->Get("empty"), "");
  EXPECT_EQ(store_->Head("empty")->size, 0u);
  ASSERT_TRUE(store_->Delete("a/b").ok());
  EXPECT_EQ(store_->Get("a/b").status().category(), StatusCode::kNotFound);
  EXPECT_TRUE(store_->Delete("a/b").ok());  // idempotent
  EXPECT_TRUE(store_->Delete("never/was").ok());
}

// The unsynced create is the same atomic create (visible at once, once only); SyncObjects then
// accepts those keys together, with keys in several folders and a key put durably before.
TEST_P(ContractTest, UnsyncedCreatesThenOneSync) {
  ASSERT_TRUE(store_->PutIfAbsentUnsynced("w/data/1", "one").ok());
  ASSERT_TRUE(store_->PutIfAbsentUnsynced("w/idx/2", "two").ok());
  ASSERT_TRUE(store_->PutIfAbsent("w/versions/3", "three").ok());
  EXPECT_EQ(*store_->Get("w/data/1"), "one");
  EXPECT_EQ(store_->PutIfAbsentUnsynced("w/data/1", "again").category(), StatusCode::kAlreadyExists);
  EXPECT_EQ(*store_->Get("w/data/1"), "one");
  EXPECT_TRUE(store_->SyncObjects({"w/data/1", "w/idx/2", "w/versions/3"}).ok());
  EXPECT_TRUE(store_->SyncObjects({}).ok());
  EXPECT_EQ(*store_->Get("w/idx/2"), "two");
}

TEST_P(ContractTest, PutIfAbsentCreatesOnce) {
  ASSERT_TRUE(store_->PutIfAbsent("refs/x/1", "first").ok());
  Status s = store_->PutIfAbsent("refs/x/1", "second");
  EXPECT_EQ(s.category(), StatusCode::kAlreadyExists);
  EXPECT_EQ(*store_->Get("refs/x/1"), "first");
}

// A streamed object (ObjectStore::NewWriter) is invisible until Commit, then exactly the appended
// bytes; Commit on a taken key is AlreadyExists and keeps the winner's bytes; an abandoned writer
// leaves nothing behind (not even a listed temp file).
TEST_P(ContractTest, StreamedWritesAppearWholeOnCommitOrNotAtAll) {
  {
    auto w = store_->NewWriter("s/one");
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    std::string expected;
    for (int i = 0; i < 300; ++i) {
      std::string piece(1000 + i, static_cast<char>('a' + i % 26));
      ASSERT_TRUE((*w)->Append(piece).ok());
      expected += piece;
    }
    EXPECT_EQ((*w)->size(), expected.size());
    EXPECT_EQ(store_->Get("s/one").status().category(), StatusCode::kNotFound);
    EXPECT_TRUE(Keys("s/").empty());
    ASSERT_TRUE((*w)->Commit().ok());
    EXPECT_EQ(*store_->Get("s/one"), expected);
    EXPECT_FALSE((*w)->Commit().ok());  // a writer commits once
  }
  {
    auto w = store_->NewWriter("s/one");
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Append("loser").ok());
    EXPECT_EQ((*w)->Commit().category(), StatusCode::kAlreadyExists);
    EXPECT_EQ(store_->Get("s/one")->size(), 300u * 1000u + 299u * 300u / 2u);
  }
  {
    auto w = store_->NewWriter("s/abandoned");
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Append("never committed").ok());
  }
  EXPECT_EQ(Keys("s/"), std::vector<std::string>{"s/one"});
  EXPECT_EQ(store_->Get("s/abandoned").status().category(), StatusCode::kNotFound);
  EXPECT_EQ(store_->NewWriter("bad//key").status().category(), StatusCode::kInvalidArgument);
}

TEST_P(ContractTest, ExactlyOneWinnerAmongConcurrentCreators) {
  constexpr int kThreads = 12, kKeys = 15;
  std::vector<std::atomic<int>> winners(kKeys);
  std::vector<std::atomic<int>> losers(kKeys);
  std::atomic<int> other_errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kKeys; ++k) {
        Status s = store_->PutIfAbsent("race/" + std::to_string(k), "writer-" + std::to_string(t));
        if (s.ok())
          winners[k]++;
        else if (s.category() == StatusCode::kAlreadyExists)
          losers[k]++;
        else
          other_errors++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(other_errors.load(), 0);
  for (int k = 0; k < kKeys; ++k) {
    EXPECT_EQ(winners[k].load(), 1) << "key " << k;
    EXPECT_EQ(losers[k].load(), kThreads - 1);
    auto v = store_->Get("race/" + std::to_string(k));
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->rfind("writer-", 0), 0u);
  }
}

TEST_P(ContractTest, ReadersNeverSeePartialReplace) {
  constexpr size_t kSize = 256 * 1024;
  ASSERT_TRUE(store_->Put("obj", std::string(kSize, 'a')).ok());
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0}, reads{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        auto v = store_->Get("obj");
        if (!v.ok() || v->size() != kSize || v->find_first_not_of((*v)[0]) != std::string::npos) {
          bad++;
        }
        reads++;
      }
    });
  }
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(store_->Put("obj", std::string(kSize, static_cast<char>('a' + i % 26))).ok());
  }
  while (reads.load() < 20) std::this_thread::yield();
  stop = true;
  for (auto& th : readers) th.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST_P(ContractTest, ListIsOrderedPaginatedAndHonoursStartAfter) {
  constexpr int kN = 1200;  // more than one page of 1000
  for (int i = kN - 1; i >= 0; --i) {
    char key[32];
    std::snprintf(key, sizeof(key), "many/%05d", i);
    ASSERT_TRUE(store_->PutIfAbsent(key, "x").ok());
  }
  ASSERT_TRUE(store_->Put("other/z", "y").ok());
  auto keys = Keys("many/");
  ASSERT_EQ(keys.size(), static_cast<size_t>(kN));
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_EQ(keys.front(), "many/00000");
  EXPECT_EQ(keys.back(), "many/01199");
  auto after = Keys("many/", "many/01100");
  ASSERT_EQ(after.size(), 99u);
  EXPECT_EQ(after.front(), "many/01101");
  EXPECT_TRUE(Keys("many/", "many/99999").empty());
  EXPECT_EQ(Keys("", "many/01199"), std::vector<std::string>{"other/z"});
  auto page = store_->ListPage("many/", "", 10);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->size(), 10u);
  auto all = store_->List("many/");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ((*all)[0].size, 1u);
}

TEST_P(ContractTest, NoSiblingPrefixBleed) {
  ASSERT_TRUE(store_->Put("a/b/1", "x").ok());
  ASSERT_TRUE(store_->Put("a/bc/2", "x").ok());
  EXPECT_EQ(Keys("a/b/"), std::vector<std::string>{"a/b/1"});
  EXPECT_EQ(Keys("a/bc/"), std::vector<std::string>{"a/bc/2"});
  auto plain = Keys("a/bc");
  EXPECT_EQ(plain, std::vector<std::string>{"a/bc/2"});
  EXPECT_TRUE(Keys("a/bcd").empty());
  EXPECT_TRUE(Keys("zzz/").empty());
}

TEST_P(ContractTest, RangeReads) {
  ASSERT_TRUE(store_->Put("r", "0123456789").ok());
  EXPECT_EQ(*store_->GetRange("r", 0, 10), "0123456789");
  EXPECT_EQ(*store_->GetRange("r", 3, 4), "3456");
  EXPECT_EQ(*store_->GetRange("r", 0, 0), "");
  EXPECT_EQ(*store_->GetRange("r", 10, 0), "");  // empty range at the end
  Status past = store_->GetRange("r", 8, 3).status();
  EXPECT_EQ(past.code(), ErrorCode::kRangeOutOfBounds);
  EXPECT_EQ(store_->GetRange("r", 11, 0).status().code(), ErrorCode::kRangeOutOfBounds);
  EXPECT_EQ(store_->GetRange("r", UINT64_MAX, 2).status().code(), ErrorCode::kRangeOutOfBounds);
  EXPECT_EQ(store_->GetRange("missing", 0, 1).status().category(), StatusCode::kNotFound);
}

TEST_P(ContractTest, DeletePrefix) {
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(store_->Put("tmp/" + std::to_string(i), "x").ok());
  ASSERT_TRUE(store_->Put("tmpfile", "keep").ok());
  ASSERT_TRUE(store_->DeletePrefix("tmp/").ok());
  EXPECT_TRUE(Keys("tmp/").empty());
  EXPECT_EQ(*store_->Get("tmpfile"), "keep");
  EXPECT_EQ(store_->DeletePrefix("").category(), StatusCode::kInvalidArgument);
}

TEST_P(ContractTest, KeysWithSpacesAndUnicode) {
  const std::string k1 = "graphs/my graph/nodes ü 東京/ü.json";
  const std::string k2 = "graphs/my graph/emoji 🚀";
  ASSERT_TRUE(store_->Put(k1, "1").ok());
  ASSERT_TRUE(store_->PutIfAbsent(k2, "2").ok());
  EXPECT_EQ(*store_->Get(k1), "1");
  EXPECT_EQ(*store_->Get(k2), "2");
  auto keys = Keys("graphs/my graph/");
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0], k2);  // 'e' < 'n'
  EXPECT_EQ(keys[1], k1);
}

TEST_P(ContractTest, InvalidKeysAreRejected) {
  for (std::string bad : std::vector<std::string>{"", "/abs", "a//b", "a/./b", "a/../b", "..", "a/", ".og-tmp-x",
                                                  "x/.og-hidden", std::string(2000, 'k'), std::string("nul\0x", 5)}) {
    EXPECT_EQ(store_->Put(bad, "x").category(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(store_->Get(bad).status().category(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST_P(ContractTest, LargeObject) {
  std::string big(64u << 20, '\0');
  for (size_t i = 0; i < big.size(); i += 4096) big[i] = static_cast<char>(i / 4096);
  ASSERT_TRUE(store_->PutIfAbsent("big", big).ok());
  auto back = store_->Get("big");
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == big);
  auto tail = store_->GetRange("big", big.size() - 8192, 8192);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(*tail, big.substr(big.size() - 8192));
}

}  // namespace omnigraph::io::contract
