// Differential property test: random sequences of appends, deletes (by predicate and by address),
// upserts, overwrites, combined writes and compactions against the in-memory ModelTable; every
// version's full contents and random filtered scans are compared, every version is reopened
// cold, and structural diffs between random version pairs are checked exactly.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "io/memory_store.h"
#include "table/compaction.h"
#include "table/model_table.h"
#include "table/table_diff.h"
#include "table/table_test_util.h"
#include "table/table_version.h"
#include "table/table_writer.h"

namespace omnigraph::table {
namespace {

using testing::BatchOf;
using testing::F;
using testing::ModelTable;
using testing::Row;
using testing::RowsToString;
using testing::SameRows;
using testing::Sorted;

const DataType kStr = DataType::Scalar(TypeKind::kString);
const DataType kI64 = DataType::Scalar(TypeKind::kI64);
const DataType kF64 = DataType::Scalar(TypeKind::kF64);
const std::vector<std::string> kNames = {"ann", "bob", "carla", "dan", "", "\xc3\xa9mile"};
const std::vector<std::string> kTags = {"a", "b", "c"};

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(int percent) { return Int(1, 100) <= percent; }

  Row NewRow(const std::string& id) {
    Row r;
    r.push_back(Value::String(id));
    r.push_back(Value::I64(seq_++));
    r.push_back(Chance(15) ? Value::Null(kI64) : Value::I64(Int(-50, 50)));
    if (Chance(10)) {
      r.push_back(Value::Null(kF64));
    } else if (Chance(5)) {
      r.push_back(Value::F64(std::numeric_limits<double>::quiet_NaN()));
    } else {
      r.push_back(Value::F64(Int(-1000, 1000) / 8.0));
    }
    r.push_back(Chance(15) ? Value::Null(kStr) : Value::String(kNames[Int(0, kNames.size() - 1)]));
    if (Chance(10)) {
      r.push_back(Value::Null(DataType::List(TypeKind::kString)));
    } else {
      std::vector<Value> t;
      for (int i = Int(0, 3); i > 0; --i) t.push_back(Chance(10) ? Value::Null(kStr) : Value::String(kTags[Int(0, 2)]));
      r.push_back(Value::List(TypeKind::kString, std::move(t)));
    }
    return r;
  }
  std::string FreshId() { return "id" + std::to_string(next_id_++); }

  Predicate Leaf() {
    switch (Int(0, 9)) {
      case 0: return Predicate::Compare("age", static_cast<CompareOp>(Int(0, 5)), Value::I64(Int(-60, 60)));
      case 1:
        return Predicate::Compare(
            "score", static_cast<CompareOp>(Int(0, 5)),
            Chance(10) ? Value::F64(std::numeric_limits<double>::quiet_NaN()) : Value::F64(Int(-130, 130)));
      case 2:
        return Predicate::Compare("name", static_cast<CompareOp>(Int(0, 5)),
                                  Value::String(kNames[Int(0, kNames.size() - 1)]));
      case 3: return Predicate::In("name", {Value::String(kNames[Int(0, 2)]), Value::String(kNames[Int(3, 5)])});
      case 4: return Predicate::StartsWith("name", kNames[Int(0, kNames.size() - 1)].substr(0, Int(0, 2)));
      case 5: return Predicate::Contains("name", std::string(1, "aeno"[Int(0, 3)]));
      case 6: return Predicate::ListContains("tags", Value::String(kTags[Int(0, 2)]));
      case 7: return Int(0, 1) ? Predicate::IsNull("age") : Predicate::IsNotNull("tags");
      case 8:
        return Predicate::In("age", {Value::I64(Int(-50, 50)), Value::I64(Int(-50, 50)), Value::I64(Int(-50, 50))});
      default: return Predicate::Compare("seq", static_cast<CompareOp>(Int(0, 5)), Value::I64(Int(0, seq_ + 5)));
    }
  }
  Predicate Pred(int depth = 0) {
    if (depth >= 2 || Chance(50)) return Leaf();
    switch (Int(0, 2)) {
      case 0: return Predicate::And({Pred(depth + 1), Pred(depth + 1)});
      case 1: return Predicate::Or({Pred(depth + 1), Pred(depth + 1)});
      default: return Predicate::Not(Pred(depth + 1));
    }
  }
  std::mt19937& rng() { return rng_; }

 private:
  std::mt19937 rng_;
  int64_t seq_ = 0;
  int next_id_ = 0;
};

TableSchema Schema() {
  auto s = TableSchema::Make({F("id", kStr, false), F("seq", kI64, false), F("age", kI64), F("score", kF64),
                              F("name", kStr), F("tags", DataType::List(TypeKind::kString))},
                             "id");
  EXPECT_TRUE(s.ok());
  return *s;
}

// address -> seq of every live row.
std::map<uint64_t, int64_t> AddressMap(const TableVersion& v) {
  ScanOptions o;
  o.columns = std::vector<std::string>{"seq"};
  o.with_row_address = true;
  auto b = v.ScanAll(o);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  std::map<uint64_t, int64_t> out;
  if (!b.ok()) return out;
  for (size_t i = 0; i < b->num_rows(); ++i) out[b->column(1).u64_values()[i]] = b->column(0).i64_values()[i];
  return out;
}

void CheckScan(const TableVersion& v, const ModelTable& model, const Predicate& p) {
  ScanOptions o;
  o.filter = p;
  o.batch_rows = 13;
  auto b = v.ScanAll(o);
  ASSERT_TRUE(b.ok()) << p.ToString() << ": " << b.status().ToString();
  auto got = Sorted(b->ToRows());
  auto want = Sorted(model.Select(p));
  ASSERT_TRUE(SameRows(got, want)) << p.ToString() << "\ngot:\n"
                                   << RowsToString(got) << "want:\n"
                                   << RowsToString(want);
}

void RunSequence(uint32_t seed, int steps) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  io::MemoryStore store;
  Gen g(seed);
  ModelTable model;
  model.names = {"id", "seq", "age", "score", "name", "tags"};
  model.key = 0;
  auto created = TableVersion::Create(store, "tables/prop", Schema());
  ASSERT_TRUE(created.ok());
  std::vector<TableVersion> versions = {*created};
  std::vector<std::vector<Row>> snapshots = {{}};
  WriteOptions wo;
  wo.max_rows_per_fragment = g.Chance(50) ? 7 : 64;
  wo.fragment.max_page_rows = 16;

  for (int step = 0; step < steps; ++step) {
    const TableVersion& cur = versions.back();
    const int op = g.Int(0, 9);
    SCOPED_TRACE("step " + std::to_string(step) + " op " + std::to_string(op));
    Result<TableVersion> next = cur;
    if (op <= 2) {  // append
      std::vector<Row> rows;
      for (int i = g.Int(0, 30); i > 0; --i) rows.push_back(g.NewRow(g.FreshId()));
      next = AppendRows(cur, BatchOf(cur.schema(), rows), wo);
      model.Append(rows);
    } else if (op == 3) {  // delete by predicate
      Predicate p = g.Pred();
      next = DeleteWhere(cur, p, wo);
      model.DeleteWhere(p);
    } else if (op == 4) {  // delete by address
      auto addrs = AddressMap(cur);
      std::vector<uint64_t> pick;
      std::set<int64_t> seqs;
      for (const auto& [a, s] : addrs) {
        if (g.Chance(20)) {
          pick.push_back(a);
          seqs.insert(s);
        }
      }
      next = DeleteRows(cur, pick, wo);
      model.DeleteIf([&](const Row& r) { return seqs.count(r[1].int_value()) > 0; });
    } else if (op <= 6) {  // upsert: some existing ids, some new
      std::vector<Row> rows;
      std::set<std::string> used;
      for (int i = g.Int(0, 12); i > 0; --i) {
        std::string id = (!model.rows.empty() && g.Chance(60))
                             ? model.rows[g.Int(0, model.rows.size() - 1)][0].string_value()
                             : g.FreshId();
        if (used.insert(id).second) rows.push_back(g.NewRow(id));
      }
      next = UpsertRows(cur, BatchOf(cur.schema(), rows), wo);
      model.Upsert(rows);
    } else if (op == 7) {  // overwrite
      std::vector<Row> rows;
      for (int i = g.Int(0, 20); i > 0; --i) rows.push_back(g.NewRow(g.FreshId()));
      next = Overwrite(cur, BatchOf(cur.schema(), rows), wo);
      model.Overwrite(rows);
    } else if (op == 8) {  // compaction
      CompactOptions co;
      co.target_rows_per_fragment = 50;
      co.small_fragment_rows = 25;
      co.min_candidates = 1;
      co.fragment.max_page_rows = 16;
      auto c = Compact(cur, co);
      ASSERT_TRUE(c.ok()) << c.status().ToString();
      if (!c->changed) continue;
      next = c->version;
    } else {  // combined write
      TableWriter w(cur, wo);
      std::vector<Row> add;
      for (int i = g.Int(0, 10); i > 0; --i) add.push_back(g.NewRow(g.FreshId()));
      ASSERT_TRUE(w.Append(BatchOf(cur.schema(), add)).ok());
      model.Append(add);
      Predicate p = g.Pred();
      ASSERT_TRUE(w.DeleteWhere(p).ok());
      model.DeleteWhere(p);
      std::vector<Row> up;
      if (!model.rows.empty()) up.push_back(g.NewRow(model.rows[g.Int(0, model.rows.size() - 1)][0].string_value()));
      up.push_back(g.NewRow(g.FreshId()));
      ASSERT_TRUE(w.Upsert(BatchOf(cur.schema(), up)).ok());
      model.Upsert(up);
      next = w.Commit();
    }
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    ASSERT_EQ(next->row_count(), model.rows.size());
    auto got = testing::AllRows(*next);
    auto want = Sorted(model.rows);
    ASSERT_TRUE(SameRows(got, want)) << "got:\n" << RowsToString(got) << "want:\n" << RowsToString(want);
    for (int k = 0; k < 3; ++k) CheckScan(*next, model, g.Pred());
    versions.push_back(*next);
    snapshots.push_back(want);
  }

  // Every version reopened cold reads exactly as when it was written.
  for (size_t i = 0; i < versions.size(); ++i) {
    auto o = TableVersion::Open(store, "tables/prop", versions[i].version_id());
    ASSERT_TRUE(o.ok()) << o.status().ToString();
    ASSERT_TRUE(SameRows(testing::AllRows(*o), snapshots[i])) << "version " << i;
  }

  // Diffs between random pairs (both directions) are exact.
  for (int k = 0; k < 25; ++k) {
    const TableVersion& a = versions[g.Int(0, versions.size() - 1)];
    const TableVersion& b = versions[g.Int(0, versions.size() - 1)];
    auto d = DiffVersions(a, b);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    auto ma = AddressMap(a), mb = AddressMap(b);
    std::vector<uint64_t> del, ins;
    std::multiset<int64_t> seqs;
    for (const auto& [addr, s] : ma) {
      seqs.insert(s);
      auto it = mb.find(addr);
      if (it == mb.end()) {
        del.push_back(addr);
      } else {
        ASSERT_EQ(it->second, s) << "an address names different rows in two versions";
      }
    }
    for (const auto& [addr, s] : mb) {
      if (!ma.count(addr)) ins.push_back(addr);
    }
    ASSERT_EQ(d->deleted, del);
    ASSERT_EQ(d->inserted, ins);
    for (uint64_t x : d->deleted) seqs.erase(seqs.find(ma.at(x)));
    for (uint64_t x : d->inserted) seqs.insert(mb.at(x));
    std::multiset<int64_t> want;
    for (const auto& [addr, s] : mb) want.insert(s);
    ASSERT_EQ(seqs, want);
  }
}

TEST(TablePropertyTest, RandomHistoriesMatchTheModel) {
  for (uint32_t seed = 1; seed <= 12; ++seed) RunSequence(seed, 40);
}

TEST(TablePropertyTest, DiffOfUnchangedVersionsReadsNothing) {
  io::MemoryStore store;
  Gen g(99);
  auto v = TableVersion::Create(store, "tables/d", Schema());
  ASSERT_TRUE(v.ok());
  std::vector<Row> rows;
  for (int i = 0; i < 200; ++i) rows.push_back(g.NewRow(g.FreshId()));
  WriteOptions wo;
  wo.max_rows_per_fragment = 50;
  auto v1 = AppendRows(*v, BatchOf(v->schema(), rows), wo);
  ASSERT_TRUE(v1.ok());
  auto v2 = DeleteWhere(*v1, Predicate::Lt("seq", Value::I64(10)), wo);
  ASSERT_TRUE(v2.ok());
  auto v3 = AppendRows(*v2, BatchOf(v->schema(), {g.NewRow(g.FreshId())}), wo);
  ASSERT_TRUE(v3.ok());
  auto d = DiffVersions(*v2, *v3);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->deletion_vectors_read, 0u);  // 4 fragments unchanged: no reads
  EXPECT_TRUE(d->deleted.empty());
  EXPECT_EQ(d->inserted.size(), 1u);
  auto d2 = DiffVersions(*v1, *v3);
  ASSERT_TRUE(d2.ok());
  EXPECT_EQ(d2->deletion_vectors_read, 1u);  // only the changed fragment
  EXPECT_EQ(d2->deleted.size(), 10u);
}

}  // namespace
}  // namespace omnigraph::table
