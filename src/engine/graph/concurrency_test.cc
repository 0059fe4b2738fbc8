// Concurrent writers on one branch (docs/architecture.md,
// "Commits, ref logs and the write protocol"): every acknowledged write is present and the history
// is one linear chain containing every acknowledged commit. (The multi-process version runs the
// real binary: tests/concurrency/multiprocess_load.sh.)
#include <filesystem>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "common/ulid.h"
#include "engine/load/loader.h"
#include "io/local_store.h"

namespace omnigraph::engine {
namespace {

TEST(ConcurrencyTest, EightThreadsTwoHandlesFiftyAppendsEach) {
  std::string dir = (std::filesystem::temp_directory_path() / ("og-conc-" + NewUlidString())).string();
  io::LocalStoreOptions lo;
  lo.create_root = true;
  lo.fsync = false;
  auto store = std::shared_ptr<io::ObjectStore>(std::move(io::LocalStore::Open(dir, lo)).value());
  auto a = std::move(Graph::Init(store, "node Person { name: String @key }")).value();
  auto b = std::move(Graph::Open(store)).value();  // a second handle: no shared in-process mutex
  std::vector<std::vector<std::string>> acked(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      Graph& g = t % 2 == 0 ? *a : *b;
      for (int i = 0; i < 50; ++i) {
        std::string row =
            R"({"type":"Person","data":{"name":"t)" + std::to_string(t) + "-" + std::to_string(i) + R"("}})";
        auto r = LoadNdjson(g, row, LoadOptions{});
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        acked[t].push_back(r->write.commit.id);
      }
    });
  }
  for (auto& th : threads) th.join();
  auto head = a->Head();
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->RowCounts()->at("Person"), 400u);
  auto log = a->CommitLog("main");
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->size(), 401u);
  std::set<std::string> chain;
  for (const auto& c : *log) chain.insert(c->id);
  for (const auto& ids : acked) {
    for (const auto& id : ids) EXPECT_TRUE(chain.count(id)) << "acknowledged commit " << id << " is not on main";
  }
  EXPECT_EQ(head->seq(), 401u);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace
}  // namespace omnigraph::engine
