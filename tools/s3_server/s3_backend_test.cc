// The S3 backend (io/s3) against the S3 test server, both real, over HTTP on 127.0.0.1: the whole
// object-store contract suite, then what is particular to S3 (multipart uploads, retries of
// injected faults, the ambiguous create, typed errors for refused credentials and missing
// buckets, virtual-hosted addressing, paging past 1000 keys).
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/error_codes.h"
#include "io/object_store_contract_suite.h"
#include "io/s3/s3_store.h"
#include "s3_server/s3_test_env.h"

namespace omnigraph::s3server {
namespace {

TestS3* g_s3 = nullptr;  // one server for the whole binary; every test uses its own prefix

class S3Environment : public ::testing::Environment {
 public:
  void SetUp() override {
    auto env = TestS3::Start();
    ASSERT_TRUE(env.ok()) << env.status().ToString();
    env_ = std::move(env).value();
    g_s3 = env_.get();
  }
  void TearDown() override {
    g_s3 = nullptr;
    env_.reset();
  }

 private:
  std::unique_ptr<TestS3> env_;
};

[[maybe_unused]] const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new S3Environment());

std::unique_ptr<io::s3::S3Store> OpenOrDie(io::s3::S3Config config, io::s3::S3StoreOptions options = {}) {
  auto s = io::s3::S3Store::Open(std::move(config), TestS3::kBucket, TestS3::NewPrefix(), options);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : nullptr;
}

std::vector<io::contract::Backend> Backends() {
  return {{"s3", [](const std::string&) -> std::shared_ptr<io::ObjectStore> { return OpenOrDie(g_s3->Config()); }}};
}

using io::contract::ContractTest;
INSTANTIATE_TEST_SUITE_P(S3, ContractTest, ::testing::ValuesIn(Backends()),
                         [](const auto& info) { return info.param.name; });

// Restores a fault-free server when a test ends, whatever it asserted.
struct FaultScope {
  explicit FaultScope(const std::vector<std::string>& specs) { EXPECT_TRUE(g_s3->server().SetFaults(specs).ok()); }
  ~FaultScope() { EXPECT_TRUE(g_s3->server().SetFaults({}).ok()); }
};

std::string Pattern(size_t n, char seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(seed + (i * 131 + i / 7) % 251);
  return s;
}

TEST(S3Backend, LargeWritesGoAsMultipartUploadsAndReadBackWhole) {
  io::s3::S3Config config = g_s3->Config();
  config.part_size = 5ull << 20;  // S3's minimum part size
  auto store = OpenOrDie(config);
  ASSERT_NE(store, nullptr);
  const std::string data = Pattern((12ull << 20) + 12345, 'a');
  const uint64_t before = store->stats().requests.load();
  auto w = store->NewWriter("big/object");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (size_t off = 0; off < data.size(); off += 1'000'003) {
    ASSERT_TRUE((*w)->Append(std::string_view(data).substr(off, 1'000'003)).ok());
  }
  EXPECT_EQ(store->List("big/")->size(), 0u);  // invisible before Commit
  ASSERT_TRUE((*w)->Commit().ok());
  // CreateMultipartUpload, 3 parts, CompleteMultipartUpload; and the List above.
  EXPECT_EQ(store->stats().requests.load() - before, 6u);
  EXPECT_EQ(store->Head("big/object")->size, data.size());
  EXPECT_EQ(*store->Get("big/object"), data);
  EXPECT_EQ(*store->GetRange("big/object", (5ull << 20) - 3, 10), data.substr((5ull << 20) - 3, 10));
  // A second streamed create of the same key loses, as PutIfAbsent does.
  auto again = store->NewWriter("big/object");
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE((*again)->Append(data).ok());
  EXPECT_EQ((*again)->Commit().category(), StatusCode::kAlreadyExists);
  EXPECT_EQ(*store->Get("big/object"), data);
}

TEST(S3Backend, AnAbandonedMultipartUploadLeavesNoObject) {
  io::s3::S3Config config = g_s3->Config();
  config.part_size = 5ull << 20;
  auto store = OpenOrDie(config);
  ASSERT_NE(store, nullptr);
  {
    auto w = store->NewWriter("big/abandoned");
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Append(Pattern(11ull << 20, 'q')).ok());  // two parts uploaded
  }
  EXPECT_EQ(store->Head("big/abandoned").status().category(), StatusCode::kNotFound);
  EXPECT_TRUE(store->List("")->empty());
}

TEST(S3Backend, InjectedFaultsAreRetriedAndEveryWriteLandsOnce) {
  auto store = OpenOrDie(g_s3->Config());
  ASSERT_NE(store, nullptr);
  FaultScope faults({"slowdown=11,error500=13,reset=7,conflict=5,lost=3,truncate=4"});
  for (int i = 0; i < 40; ++i) {
    const std::string key = "k/" + std::to_string(i);
    // A create whose answer was lost is retried: the retry's 412 is resolved as our own create.
    const Status created = store->PutIfAbsent(key, "v" + std::to_string(i));
    ASSERT_TRUE(created.ok()) << i << ": " << created.ToString();
    const Status put = store->Put(key + ".plain", "p");
    ASSERT_TRUE(put.ok()) << i << ": " << put.ToString();
    ASSERT_EQ(*store->Get(key), "v" + std::to_string(i));
  }
  EXPECT_EQ(store->PutIfAbsent("k/0", "other").category(), StatusCode::kAlreadyExists);
  EXPECT_EQ(*store->Get("k/0"), "v0");
  EXPECT_EQ(store->List("k/")->size(), 80u);
  EXPECT_GT(store->stats().retries.load(), 20u);
  ASSERT_TRUE(store->DeletePrefix("k/").ok());
  EXPECT_TRUE(store->List("k/")->empty());
}

TEST(S3Backend, PersistentThrottlingIsATypedErrorNotAnEmptyResult) {
  io::s3::S3Config config = g_s3->Config();
  config.retry.max_attempts = 3;
  auto store = OpenOrDie(config);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Put("x", "1").ok());
  {
    FaultScope faults({"slowdown=1"});
    EXPECT_EQ(store->Get("x").status().code_string(), "store_throttled");
    EXPECT_EQ(store->List("").status().code_string(), "store_throttled");
  }
  {
    FaultScope faults({"error500=1"});
    EXPECT_EQ(store->Get("x").status().category(), StatusCode::kTransient);
  }
  {
    FaultScope faults({"reset=1"});
    EXPECT_EQ(store->Put("y", "2").category(), StatusCode::kTransient);
  }
  EXPECT_EQ(*store->Get("x"), "1");
}

TEST(S3Backend, RefusedCredentialsAndMissingBucketsAreTypedErrors) {
  io::s3::S3Config bad = g_s3->Config();
  bad.credentials.secret_access_key = "wrong";
  auto refused = io::s3::S3Store::Open(bad, TestS3::kBucket, "p");
  EXPECT_EQ(refused.status().category(), StatusCode::kPermissionDenied) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("SignatureDoesNotMatch"), std::string::npos);
  io::s3::S3StoreOptions read_only;
  read_only.writable = false;
  auto reader = io::s3::S3Store::Open(bad, TestS3::kBucket, "p", read_only);  // readers do not probe
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->Get("a").status().category(), StatusCode::kPermissionDenied);
  EXPECT_EQ((*reader)->List("").status().category(), StatusCode::kPermissionDenied);

  auto missing = io::s3::S3Store::Open(g_s3->Config(), "no-such-bucket", "p");
  EXPECT_EQ(missing.status().category(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("bucket does not exist"), std::string::npos);
}

TEST(S3Backend, ConcurrentCreatorsOfOneKeyHaveExactlyOneWinnerEvenWithConflicts) {
  auto store = OpenOrDie(g_s3->Config());
  ASSERT_NE(store, nullptr);
  FaultScope faults({"conflict=3"});
  for (int round = 0; round < 10; ++round) {
    const std::string key = "race/" + std::to_string(round);
    std::atomic<int> winners{0}, losers{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t) {
      threads.emplace_back([&, t] {
        Status s = store->PutIfAbsent(key, "writer " + std::to_string(t));
        if (s.ok()) winners++;
        if (s.category() == StatusCode::kAlreadyExists) losers++;
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(winners.load(), 1) << round;
    EXPECT_EQ(losers.load(), 5) << round;
  }
}

TEST(S3Backend, VirtualHostedAddressingReachesTheSameObjects) {
  const std::string prefix = TestS3::NewPrefix();
  auto path_style = g_s3->Open(prefix);
  ASSERT_TRUE(path_style.ok());
  ASSERT_TRUE((*path_style)->Put("vh/key with spaces+plus", "hello").ok());
  io::s3::S3Config config = g_s3->Config();
  config.endpoint = "http://localhost:" + std::to_string(g_s3->port());
  config.virtual_hosted = true;
  std::string host, path;
  io::s3::HttpClient client(config);
  EXPECT_EQ(client.UrlFor({"GET", TestS3::kBucket, "a/b", {}, {}, {}}, &host, &path),
            "http://" + std::string(TestS3::kBucket) + ".localhost:" + std::to_string(g_s3->port()) + "/a/b");
  auto vh = io::s3::S3Store::Open(config, TestS3::kBucket, prefix);
  ASSERT_TRUE(vh.ok()) << vh.status().ToString();
  EXPECT_EQ(*(*vh)->Get("vh/key with spaces+plus"), "hello");
}

TEST(S3Backend, ListingPagesPastAThousandKeys) {
  auto store = OpenOrDie(g_s3->Config());
  ASSERT_NE(store, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < 1203; i += 4) {
        char key[32];
        std::snprintf(key, sizeof key, "many/%05d", i);
        EXPECT_TRUE(store->Put(key, "x").ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  const uint64_t before = store->stats().requests.load();
  auto all = store->List("many/");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1203u);
  EXPECT_EQ(store->stats().requests.load() - before, 2u);  // two ListObjectsV2 pages
  for (size_t i = 1; i < all->size(); ++i) EXPECT_LT((*all)[i - 1].key, (*all)[i].key);
  EXPECT_EQ((*all)[1000].key, "many/01000");
  ASSERT_TRUE(store->DeletePrefix("many/").ok());  // two DeleteObjects batches
  EXPECT_TRUE(store->List("many/")->empty());
}

// An object of another tool that our key rules reject is skipped without cutting the listing short
// (a page short of max_keys means the end to ObjectStore::List).
TEST(S3Backend, ForeignKeysAreSkippedWithoutEndingTheListing) {
  const std::string prefix = TestS3::NewPrefix();
  auto store = g_s3->Open(prefix);
  ASSERT_TRUE(store.ok());
  io::s3::HttpClient raw(g_s3->Config());
  auto put = raw.Send({"PUT", TestS3::kBucket, prefix + "/lst/a//foreign", {}, {}, "x"});
  ASSERT_TRUE(put.ok() && put->status == 200);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < 1001; i += 4) {
        char key[32];
        std::snprintf(key, sizeof key, "lst/b%05d", i);
        EXPECT_TRUE((*store)->Put(key, "x").ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  auto all = (*store)->List("lst/");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 1001u);
  EXPECT_EQ(all->front().key, "lst/b00000");
}

}  // namespace
}  // namespace omnigraph::s3server
