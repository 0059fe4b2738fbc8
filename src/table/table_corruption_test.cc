// Corruption and concurrency at the table level: flipping any byte of any object a version
// references either leaves every read correct (bytes no reader checks, e.g. a fragment header) or
// makes it fail with kCorrupt — never wrong data; concurrent scans and id lookups on one version.
#include <gtest/gtest.h>

#include <thread>

#include "common/error_codes.h"
#include "io/memory_store.h"
#include "table/id_index.h"
#include "table/table_test_util.h"
#include "table/table_writer.h"

namespace omnigraph::table {
namespace {

using testing::AllRows;
using testing::BatchOf;
using testing::F;
using testing::Row;
using testing::SameRows;
using testing::Sorted;

TableSchema Schema() {
  auto s = TableSchema::Make({F("id", DataType::Scalar(TypeKind::kString), false),
                              F("n", DataType::Scalar(TypeKind::kI64)), F("s", DataType::Scalar(TypeKind::kString))},
                             "id");
  EXPECT_TRUE(s.ok());
  return *s;
}

std::vector<Row> Rows(int b, int e) {
  std::vector<Row> out;
  for (int i = b; i < e; ++i)
    out.push_back({Value::String("k" + std::to_string(i)), Value::I64(i * 7), Value::String(i % 2 ? "odd" : "")});
  return out;
}

// Reads everything the version offers; ok only if every read is exactly right.
Status ReadEverything(io::ObjectStore& store, const std::string& version, const std::vector<Row>& want) {
  OG_ASSIGN_OR_RETURN(TableVersion v, TableVersion::Open(store, "tables/x", version));
  OG_ASSIGN_OR_RETURN(format::Batch b, v.ScanAll({}));
  if (!SameRows(Sorted(b.ToRows()), want)) return InternalError("scan returned wrong data");
  OG_ASSIGN_OR_RETURN(IdIndex idx, IdIndex::Open(v));
  for (const Row& r : want) {
    auto a = idx.Lookup(r[0].string_value());
    if (!a) return InternalError("id index lost " + r[0].string_value());
    uint64_t addr[] = {*a};
    OG_ASSIGN_OR_RETURN(format::Batch t, v.Take(addr));
    if (!SameRows(t.ToRows(), {r})) return InternalError("take returned wrong data");
  }
  return Status::Ok();
}

TEST(TableCorruptionTest, EveryFlippedByteIsCorrectOrCorrupt) {
  io::MemoryStore store;
  auto v0 = TableVersion::Create(store, "tables/x", Schema());
  ASSERT_TRUE(v0.ok());
  auto v1 = AppendRows(*v0, BatchOf(v0->schema(), Rows(0, 12)));
  ASSERT_TRUE(v1.ok());
  auto v2 = DeleteWhere(*v1, Predicate::Eq("s", Value::String("odd")));
  ASSERT_TRUE(v2.ok());
  const std::vector<Row> want = AllRows(*v2);
  ASSERT_EQ(want.size(), 6u);
  OG_ASSERT_OK(ReadEverything(store, v2->version_id(), want));
  size_t corrupt = 0, harmless = 0;
  for (const std::string& key : v2->ReferencedKeys()) {
    const std::string original = *store.Get(key);
    for (size_t i = 0; i < original.size(); ++i) {
      std::string bad = original;
      bad[i] = static_cast<char>(bad[i] ^ 0x10);
      OG_ASSERT_OK(store.Put(key, bad));
      Status s = ReadEverything(store, v2->version_id(), want);
      if (s.ok()) {
        ++harmless;
      } else {
        ASSERT_EQ(s.category(), StatusCode::kCorrupt) << key << " byte " << i << ": " << s.ToString();
        ++corrupt;
      }
    }
    OG_ASSERT_OK(store.Put(key, original));
  }
  EXPECT_GT(corrupt, 1000u);
  // Only the 16-byte fragment header is never read (fragment.md: readers start from the tail).
  EXPECT_LE(harmless, 16u * v2->manifest().fragments.size());
}

TEST(TableConcurrencyTest, ParallelScansAndLookupsOnOneVersion) {
  io::MemoryStore store;
  auto v0 = TableVersion::Create(store, "tables/x", Schema());
  ASSERT_TRUE(v0.ok());
  WriteOptions wo;
  wo.max_rows_per_fragment = 100;
  auto v1 = AppendRows(*v0, BatchOf(v0->schema(), Rows(0, 1000)), wo);
  ASSERT_TRUE(v1.ok());
  auto v2 = DeleteWhere(*v1, Predicate::Lt("n", Value::I64(700)));
  ASSERT_TRUE(v2.ok());
  const TableVersion v = *v2;  // shares one cache across threads
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        auto n = v.CountRows(Predicate::Ge("n", Value::I64(7 * 500)));
        if (!n.ok() || *n != 500) ++failures[t];
        auto idx = IdIndex::Open(v);
        if (!idx.ok() || !idx->Lookup("k999") || idx->Lookup("k50")) ++failures[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int f : failures) EXPECT_EQ(f, 0);
}

}  // namespace
}  // namespace omnigraph::table
