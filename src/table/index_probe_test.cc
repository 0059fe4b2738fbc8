// Tests of value indexes and ProbeColumn: writes maintain value segments on indexed columns (and
// compaction and drop column keep them consistent); probes through the cache, by ranged reads
// (cold handle) and by scanning uncovered fragments all agree with a model; the bytes a ranged
// probe reads follow the number of values, not the table; damaged segments are `corrupt`.
#include "table/index_probe.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>
#include <set>

#include "common/error_codes.h"
#include "common/hash.h"
#include "io/counting_store.h"
#include "io/memory_store.h"
#include "table/compaction.h"
#include "table/id_index.h"
#include "table/table_test_util.h"
#include "table/table_writer.h"

namespace omnigraph::table {
namespace {

using testing::BatchOf;
using testing::EncodeV1;
using testing::F;
using testing::Row;

TableSchema Schema() {
  auto s = TableSchema::Make({F("id", DataType::Scalar(TypeKind::kString), false),
                              F("dst", DataType::Scalar(TypeKind::kString)), F("n", DataType::Scalar(TypeKind::kI64))},
                             "id");
  EXPECT_TRUE(s.ok());
  s->indexed_field_ids = {s->FindByName("dst")->id};
  EXPECT_TRUE(s->Validate(false).ok());
  return *s;
}

// dst: "d<dst>", except "" for a negative dst and null for none.
Row R(int id, std::optional<int> dst, int n = 0) {
  return {Value::String("e" + std::to_string(id)),
          !dst ? Value::Null(DataType::Scalar(TypeKind::kString))
               : Value::String(*dst < 0 ? std::string() : "d" + std::to_string(*dst)),
          Value::I64(n)};
}

// value -> live addresses, from a full scan.
std::map<std::string, std::set<uint64_t>> Model(const TableVersion& v, const std::string& column) {
  std::map<std::string, std::set<uint64_t>> out;
  ScanOptions opts;
  opts.columns = std::vector<std::string>{column};
  opts.with_row_address = true;
  auto b = v.ScanAll(opts);
  EXPECT_TRUE(b.ok());
  for (size_t r = 0; r < b->num_rows(); ++r) {
    if (b->column(0).IsNull(r)) continue;
    out[std::string(b->column(0).string_at(r))].insert(b->column(1).u64_values()[r]);
  }
  return out;
}

void ExpectProbeMatchesModel(const TableVersion& v, const std::string& column, const std::vector<std::string>& values,
                             ProbeStats* stats = nullptr) {
  auto model = Model(v, column);
  // Always ranged (0): the segments here are small enough to be read whole by default.
  auto got = ProbeColumn(v, v.schema().FindByName(column)->id, values, Predicate(), stats, /*whole_segment_entries=*/0);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  std::map<std::string, std::set<uint64_t>> by_value;
  for (const auto& [i, a] : *got) by_value[values[i]].insert(a);
  for (const auto& v2 : values) {
    auto it = model.find(v2);
    EXPECT_EQ(by_value[v2], it == model.end() ? std::set<uint64_t>{} : it->second) << v2;
  }
}

class IndexProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto v = TableVersion::Create(store_, "tables/p", Schema());
    ASSERT_TRUE(v.ok());
    v0_.emplace(*v);
  }
  TableVersion Cold(const TableVersion& v) {
    auto c = TableVersion::Open(store_, "tables/p", v.version_id());
    EXPECT_TRUE(c.ok());
    return *c;
  }
  io::MemoryStore store_;
  std::optional<TableVersion> v0_;
};

TEST_F(IndexProbeTest, ManifestKeepsIndexedColumnsAndDropColumnForgetsThem) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(*v0_, BatchOf(v0_->schema(), {R(1, 1), R(2, std::nullopt)})));
  const TableVersion cold = Cold(v1);
  EXPECT_EQ(cold.schema().indexed_field_ids, v1.schema().indexed_field_ids);
  int value_segments = 0;
  for (const auto& s : cold.manifest().indexes) value_segments += s.kind == kValueIndexKind;
  EXPECT_EQ(value_segments, 1);
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v2, DropColumn(v1, "dst"));
  EXPECT_TRUE(v2.schema().indexed_field_ids.empty());
  for (const auto& s : v2.manifest().indexes) EXPECT_EQ(s.kind, kIdIndexKind);
  // A bad indexed field is refused.
  TableSchema bad = Schema();
  bad.indexed_field_ids = {bad.FindByName("n")->id};
  EXPECT_FALSE(bad.Validate(false).ok());
  bad.indexed_field_ids = {bad.key_field_id};
  EXPECT_FALSE(bad.Validate(false).ok());
}

TEST_F(IndexProbeTest, ProbesAgreeWithAModelThroughWritesAndCompaction) {
  std::mt19937 rng(7);
  TableVersion v = *v0_;
  int next = 0;
  for (int round = 0; round < 40; ++round) {
    std::vector<Row> rows;
    const int count = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < count; ++i) {
      const int d = static_cast<int>(rng() % 50);
      rows.push_back(R(next++, d % 7 == 0 ? std::optional<int>() : d % 11 == 1 ? -1 : d, round));
    }
    OG_ASSERT_OK_AND_ASSIGN(v, AppendRows(v, BatchOf(v.schema(), rows)));
    if (round % 5 == 4) {
      OG_ASSERT_OK_AND_ASSIGN(v, DeleteWhere(v, Predicate::Eq("n", Value::I64(round - 2))));
      std::vector<Row> up{R(static_cast<int>(rng() % next), 3, 99), R(static_cast<int>(rng() % next), 4, 99)};
      if (up[0][0] == up[1][0]) up.pop_back();
      OG_ASSERT_OK_AND_ASSIGN(v, UpsertRows(v, BatchOf(v.schema(), up)));
    }
    if (round == 25) {
      CompactOptions co;
      co.small_fragment_rows = 1000;
      OG_ASSERT_OK_AND_ASSIGN(CompactResult r, Compact(v, co));
      ASSERT_TRUE(r.changed);
      v = r.version;
    }
  }
  std::vector<std::string> values{"d0", "d3", "d4", "d13", "d49", "nope", "d3", ""};
  ExpectProbeMatchesModel(v, "dst", values);  // the writer's cache holds the segments
  ProbeStats cold_stats;
  ExpectProbeMatchesModel(Cold(v), "dst", values, &cold_stats);
  EXPECT_GT(cold_stats.segments_ranged, 0u);
  EXPECT_EQ(cold_stats.fragments_scanned, 0u);
  std::vector<std::string> ids{"e0", "e5", "e77", "e300", "e9999"};
  ExpectProbeMatchesModel(Cold(v), "id", ids);
  // Without segments every fragment is scanned, with the same answer.
  Manifest m = v.manifest();
  m.indexes.clear();
  OG_ASSERT_OK_AND_ASSIGN(TableVersion bare, StageManifest(v, m));
  ProbeStats scan_stats;
  ExpectProbeMatchesModel(bare, "dst", values, &scan_stats);
  EXPECT_EQ(scan_stats.fragments_scanned, bare.manifest().fragments.size());
}

// A store like a local disk (objects costly to create, cheap to read): small writes leave their
// fragments uncovered, at most 8 fragments and 256 rows of them at a time, and the write past
// that covers them in its segments. Lookups (id index and value probes, warm and cold) agree with
// the model throughout, through deletes, upserts and compaction.
class FewObjectsStore : public io::MemoryStore {
 public:
  bool prefers_fewer_objects() const override { return true; }
};

TEST(IndexDeferralTest, SmallWritesDeferTheirSegmentsAndLookupsAgree) {
  FewObjectsStore store;
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v, TableVersion::Create(store, "tables/p", Schema()));
  std::mt19937 rng(11);
  int next = 0;
  size_t deferred = 0, covering = 0;
  for (int round = 0; round < 60; ++round) {
    std::vector<Row> rows;
    const int count = round == 40 ? 300 : 1 + static_cast<int>(rng() % 3);  // one large write
    for (int i = 0; i < count; ++i) rows.push_back(R(next++, static_cast<int>(rng() % 20), round));
    auto keys = [](const TableVersion& t) {
      std::set<std::string> k;
      for (const auto& seg : t.manifest().indexes) k.insert(seg.keys.begin(), seg.keys.end());
      return k;
    };
    const std::set<std::string> segments_before = keys(v);
    OG_ASSERT_OK_AND_ASSIGN(v, AppendRows(v, BatchOf(v.schema(), rows)));
    (keys(v) == segments_before ? deferred : covering) += 1;
    if (round % 7 == 6) {
      OG_ASSERT_OK_AND_ASSIGN(v, DeleteWhere(v, Predicate::Eq("n", Value::I64(round - 3))));
      std::vector<Row> up{R(static_cast<int>(rng() % next), 5, 99)};
      OG_ASSERT_OK_AND_ASSIGN(v, UpsertRows(v, BatchOf(v.schema(), up)));
    }
    if (round == 50) {
      CompactOptions co;
      co.small_fragment_rows = 1000;
      OG_ASSERT_OK_AND_ASSIGN(CompactResult r, Compact(v, co));
      v = r.version;
    }
    // Never more than 8 uncovered fragments (256 rows).
    std::set<uint32_t> covered;
    for (const auto& seg : v.manifest().indexes) covered.insert(seg.fragment_ids.begin(), seg.fragment_ids.end());
    uint64_t uncovered = 0, rows_uncovered = 0;
    for (const auto& f : v.manifest().fragments) {
      if (covered.count(f.id)) continue;
      ++uncovered;
      rows_uncovered += f.physical_rows;
    }
    EXPECT_LE(uncovered, 8u) << round;
    EXPECT_LE(rows_uncovered, 256u) << round;
    // (Writes cover every indexed column at once: the same rows for each.)
    EXPECT_EQ(UncoveredRows(v, v.schema().FindByName("dst")->id), rows_uncovered) << round;
    EXPECT_EQ(UncoveredRows(v, v.schema().key_field_id), rows_uncovered) << round;
    if (round % 10 == 9 || round == 40 || round == 50) {
      std::vector<std::string> values{"d0", "d3", "d5", "d19", "nope"};
      ExpectProbeMatchesModel(v, "dst", values);
      OG_ASSERT_OK_AND_ASSIGN(TableVersion cold, TableVersion::Open(store, "tables/p", v.version_id()));
      ExpectProbeMatchesModel(cold, "dst", values);
      std::vector<std::string> ids{"e0", "e1", "e" + std::to_string(next - 1), "e" + std::to_string(next / 2), "e-1"};
      ExpectProbeMatchesModel(cold, "id", ids);
      OG_ASSERT_OK_AND_ASSIGN(IdIndex idx, IdIndex::Open(cold));
      auto model = Model(cold, "id");
      for (const std::string& id : ids) {
        auto it = model.find(id);
        const std::optional<uint64_t> want =
            it == model.end() ? std::nullopt : std::optional<uint64_t>(*it->second.rbegin());
        EXPECT_EQ(idx.Lookup(id), want) << id << " round " << round;
      }
    }
  }
  EXPECT_GT(deferred, 30u);  // most one-to-three-row writes wrote no segment
  EXPECT_GT(covering, 5u);   // and every few writes one covered them
}

// A deferred fragment written before a column was added (and then indexed) has no such column in
// its file: the write that covers it indexes only the columns it has.
TEST(IndexDeferralTest, CoveringReadsOnlyTheColumnsAFragmentHas) {
  FewObjectsStore store;
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v, TableVersion::Create(store, "tables/p", Schema()));
  OG_ASSERT_OK_AND_ASSIGN(v, AppendRows(v, BatchOf(v.schema(), {R(0, 1), R(1, 2)})));  // deferred
  OG_ASSERT_OK_AND_ASSIGN(v, AddColumn(v, "tag", DataType::Scalar(TypeKind::kString)));
  OG_ASSERT_OK_AND_ASSIGN(v, AddValueIndex(v, "tag"));
  std::vector<Row> rows;
  for (int i = 2; i < 302; ++i) {
    Row r = R(i, i % 9);
    r.push_back(Value::String("t" + std::to_string(i % 5)));
    rows.push_back(std::move(r));
  }
  OG_ASSERT_OK_AND_ASSIGN(v, AppendRows(v, BatchOf(v.schema(), rows)));  // covers the first fragment
  std::set<uint32_t> covered;
  for (const auto& seg : v.manifest().indexes) covered.insert(seg.fragment_ids.begin(), seg.fragment_ids.end());
  EXPECT_EQ(covered.size(), v.manifest().fragments.size());
  OG_ASSERT_OK_AND_ASSIGN(TableVersion cold, TableVersion::Open(store, "tables/p", v.version_id()));
  ExpectProbeMatchesModel(cold, "tag", {"t0", "t4", "nope"});
  ExpectProbeMatchesModel(cold, "id", {"e0", "e1", "e301", "e7"});
  ExpectProbeMatchesModel(cold, "dst", {"d1", "d2", "d8"});
}

TEST_F(IndexProbeTest, RangedProbeReadsFollowTheValuesNotTheTable) {
  std::vector<Row> rows;
  for (int i = 0; i < 200000; ++i) rows.push_back(R(i, i % 50000));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v, AppendRows(*v0_, BatchOf(v0_->schema(), rows)));
  uint64_t segment_bytes = 0;
  for (const auto& s : v.manifest().indexes) {
    if (s.kind == kValueIndexKind) segment_bytes += store_.Get(v.AbsoluteKey(s.keys[0]))->size();
  }
  std::vector<std::string> values;
  for (int i = 0; i < 20; ++i) values.push_back("d" + std::to_string(i * 2477));
  ProbeStats stats;
  auto got = ProbeColumn(Cold(v), v.schema().FindByName("dst")->id, values, Predicate(), &stats, 0);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->size(), 80u);  // 4 rows per value
  EXPECT_GT(segment_bytes, 2'000'000u);
  // The header chunk, and per value at most 12 checksummed chunks (bucket, hashes, key ends,
  // address ends, key, addresses; a range may straddle two chunks) with their sums.
  EXPECT_LT(stats.bytes_read, (2 + 12 * values.size()) * (IdSegment::kChunkBytes + 4)) << stats.bytes_read;
  EXPECT_LT(stats.bytes_read, segment_bytes / 10) << stats.bytes_read << " of " << segment_bytes;
  EXPECT_EQ(stats.whole_reads, 0u);
  // The header twice; per value the chunks above and their sums (stored apart from them).
  EXPECT_LE(stats.ranged_reads, 2 + 14 * values.size());
}

// A stored segment never changes, so what a value matched in it is remembered (TableCache): a
// second probe of the same values reads nothing, and a later version still applies its own
// deletions to the remembered addresses.
TEST_F(IndexProbeTest, RepeatedProbesOfASegmentReadItOnce) {
  std::vector<Row> rows;
  for (int i = 0; i < 100000; ++i) rows.push_back(R(i, i % 25000, i % 7));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v, AppendRows(*v0_, BatchOf(v0_->schema(), rows)));
  std::vector<std::string> values{"d3", "d4", "absent"};
  // Handles sharing one cache (as a graph's do).
  auto cache = std::make_shared<TableCache>();
  auto open = [&](const TableVersion& t) {
    auto c = TableVersion::Open(store_, "tables/p", t.version_id(), cache);
    EXPECT_TRUE(c.ok());
    return *c;
  };
  ProbeStats first, second, third;
  ExpectProbeMatchesModel(open(v), "dst", values, &first);
  EXPECT_GT(first.segments_ranged, 0u);
  EXPECT_GT(first.bytes_read, 0u);
  ExpectProbeMatchesModel(open(v), "dst", values, &second);
  EXPECT_EQ(second.segments_ranged, 0u);
  EXPECT_EQ(second.segments_remembered, first.segments_ranged);
  EXPECT_EQ(second.bytes_read, 0u);
  // d3 is on rows 3, 25003, 50003, 75003 (n = 3, 4, 5, 6): deleting n = 5 leaves three.
  OG_ASSERT_OK_AND_ASSIGN(TableVersion later, DeleteWhere(v, Predicate::Eq("n", Value::I64(5))));
  ExpectProbeMatchesModel(open(later), "dst", values, &third);
  EXPECT_EQ(third.segments_ranged, 0u);
  auto d3 = ProbeColumn(open(later), later.schema().FindByName("dst")->id, std::vector<std::string>{"d3"}, Predicate(),
                        nullptr, 0);
  ASSERT_TRUE(d3.ok());
  EXPECT_EQ(d3->size(), 3u);
}

TEST_F(IndexProbeTest, DamagedSegmentsAreCorruptNotCrashes) {
  std::vector<Row> rows;
  for (int i = 0; i < 5000; ++i) rows.push_back(R(i, i % 1000));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v, AppendRows(*v0_, BatchOf(v0_->schema(), rows)));
  std::string key;
  for (const auto& s : v.manifest().indexes) {
    if (s.kind == kValueIndexKind) key = v.AbsoluteKey(s.keys[0]);
  }
  ASSERT_FALSE(key.empty());
  const std::string good = *store_.Get(key);
  std::vector<std::string> values;
  for (int i = 0; i < 1000; i += 7) values.push_back("d" + std::to_string(i));
  const auto model = Model(v, "dst");
  // Flipped bytes of the header, the bucket directory, the entry arrays, the keys and the chunk
  // sums: every probe gives `corrupt` or exactly the right rows, never wrong ones.
  std::vector<size_t> offsets;
  for (size_t i = 8; i < 40; ++i) offsets.push_back(i);
  for (size_t i = 40; i < good.size() - 8; i += 97) offsets.push_back(i);
  int corrupt = 0;
  for (size_t off : offsets) {
    std::string bad = good;
    bad[off] = static_cast<char>(bad[off] ^ 0x5a);
    ASSERT_TRUE(store_.Put(key, bad).ok());
    auto got = ProbeColumn(Cold(v), v.schema().FindByName("dst")->id, values, Predicate(), nullptr, 0);
    if (!got.ok()) {
      EXPECT_TRUE(got.status().code() == ErrorCode::kCorrupt || got.status().code() == ErrorCode::kFormatTooNew)
          << got.status().ToString();
      ++corrupt;
      continue;
    }
    std::map<std::string, std::set<uint64_t>> by_value;
    for (const auto& [i, a] : *got) by_value[values[i]].insert(a);
    for (const auto& value : values) {
      auto it = model.find(value);
      EXPECT_EQ(by_value[value], it == model.end() ? std::set<uint64_t>{} : it->second)
          << "wrong rows for " << value << " with byte " << off << " flipped";
    }
  }
  EXPECT_GT(corrupt, static_cast<int>(offsets.size()) / 2);
  ASSERT_TRUE(store_.Put(key, good).ok());
  ExpectProbeMatchesModel(Cold(v), "dst", values);
}

TEST_F(IndexProbeTest, LongValuesAcrossChunksAndRounds) {
  // Values of 0..700 bytes cross chunk boundaries, including chunks an earlier round of the probe
  // fetched (the bucket directory's last chunk is the first keys' first chunk).
  std::mt19937 rng(3);
  std::vector<std::string> distinct;
  for (int i = 0; i < 300; ++i)
    distinct.push_back(std::string(rng() % 700, static_cast<char>('a' + i % 26)) + std::to_string(i));
  std::vector<Row> rows;
  for (int i = 0; i < 3000; ++i) {
    rows.push_back(
        {Value::String("e" + std::to_string(i)), Value::String(distinct[rng() % distinct.size()]), Value::I64(i)});
  }
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v, AppendRows(*v0_, BatchOf(v0_->schema(), rows)));
  std::vector<std::string> values(distinct.begin(), distinct.begin() + 150);
  values.push_back("absent");
  ProbeStats stats;
  ExpectProbeMatchesModel(Cold(v), "dst", values, &stats);
  EXPECT_GT(stats.segments_ranged, 0u);
}

TEST_F(IndexProbeTest, SmallSegmentsAreReadWholeAndCached) {
  std::vector<Row> rows;
  for (int i = 0; i < 1000; ++i) rows.push_back(R(i, i % 100));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v, AppendRows(*v0_, BatchOf(v0_->schema(), rows)));
  const TableVersion cold = Cold(v);
  std::vector<std::string> values{"d1", "d2"};
  ProbeStats first, second;
  ASSERT_TRUE(ProbeColumn(cold, cold.schema().FindByName("dst")->id, values, Predicate(), &first).ok());
  EXPECT_EQ(first.whole_reads, 1u);
  EXPECT_EQ(first.segments_ranged, 0u);
  auto again = ProbeColumn(cold, cold.schema().FindByName("dst")->id, values, Predicate(), &second);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(second.segments_in_memory, 1u);  // cached by the first probe
  EXPECT_EQ(second.bytes_read, 0u);
  EXPECT_EQ(again->size(), 20u);
}

// A segment shorter than a version-4 header (a version-1 segment of one short key: 45 bytes)
// cannot be probed by ranges: it is read whole and answers as any other.
TEST_F(IndexProbeTest, SegmentsShorterThanAHeaderAreReadWhole) {
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v, AppendRows(*v0_, BatchOf(v0_->schema(), {R(0, 1)})));
  for (const auto& s : v.manifest().indexes) {
    if (s.kind != kValueIndexKind) continue;
    const std::string old = EncodeV1({{"d1", MakeRowAddress(s.fragment_ids[0], 0)}});
    ASSERT_LT(old.size(), 48u);
    ASSERT_TRUE(store_.Put(v.AbsoluteKey(s.keys[0]), old).ok());
  }
  ProbeStats stats;
  ExpectProbeMatchesModel(Cold(v), "dst", {"d1", "d2"}, &stats);
  EXPECT_EQ(stats.whole_reads, 1u);
}

TEST_F(IndexProbeTest, SegmentsWithoutChunkSumsAreReadWholeAndVerified) {
  std::vector<Row> rows;
  for (int i = 0; i < 3000; ++i) rows.push_back(R(i, i % 500));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v, AppendRows(*v0_, BatchOf(v0_->schema(), rows)));
  // Rewrite the (grouped) value segment as version 2: the version-3 body of the same entries
  // without chunk sums.
  for (const auto& s : v.manifest().indexes) {
    if (s.kind != kValueIndexKind) continue;
    const std::string key = v.AbsoluteKey(s.keys[0]);
    OG_ASSERT_OK_AND_ASSIGN(IdSegment grouped, IdSegment::Parse(*store_.Get(key), key));
    ASSERT_EQ(grouped.layout_version(), IdSegment::kGroupedVersion);
    std::vector<std::pair<std::string, uint64_t>> entries;
    for (size_t g = 0; g < grouped.group_count(); ++g) {
      for (size_t e = grouped.group_entries(g).first; e < grouped.group_entries(g).second; ++e)
        entries.emplace_back(std::string(grouped.group_key(g)), grouped.address(e));
    }
    std::string bytes = IdSegment::Build(std::move(entries)).bytes();
    uint64_t n, bits, key_bytes = 0;
    std::memcpy(&n, bytes.data() + 16, 8);
    bits = static_cast<uint8_t>(bytes[24]);
    std::memcpy(&key_bytes, bytes.data() + 32, 8);
    const uint64_t body = 40 + 24 * n + 4 * ((uint64_t{1} << bits) + 1) + key_bytes;
    std::string v2 = bytes.substr(0, body);
    const uint32_t version = 2;
    std::memcpy(v2.data() + 8, &version, 4);
    const uint64_t sum = XxHash64(v2);
    v2.append(reinterpret_cast<const char*>(&sum), 8);
    ASSERT_TRUE(store_.Put(key, v2).ok());
  }
  std::vector<std::string> values{"d1", "d7", "d499", "none"};
  ProbeStats stats;
  ExpectProbeMatchesModel(Cold(v), "dst", values, &stats);
  EXPECT_EQ(stats.whole_reads, 1u);
}

// A legacy version-3 value segment (as written before version 4) is probed by ranged reads, then
// merged by the next append into one version-4 segment; probes agree with a scan throughout.
TEST_F(IndexProbeTest, LegacyVersion3ValueSegmentMergesIntoVersion4) {
  std::vector<Row> rows;
  for (int i = 0; i < 3000; ++i) rows.push_back(R(i, i % 11 == 0 ? std::optional<int>() : i % 13 == 0 ? -1 : i % 500));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v1, AppendRows(*v0_, BatchOf(v0_->schema(), rows)));
  std::string legacy_key, legacy_rel;
  std::map<std::string, std::vector<uint64_t>> merged_model;  // what the merged segment must hold
  for (const auto& s : v1.manifest().indexes) {
    if (s.kind != kValueIndexKind) continue;
    ASSERT_TRUE(legacy_key.empty());
    legacy_rel = s.keys[0];
    legacy_key = v1.AbsoluteKey(s.keys[0]);
    OG_ASSERT_OK_AND_ASSIGN(IdSegment grouped, IdSegment::Parse(*store_.Get(legacy_key), legacy_key));
    ASSERT_EQ(grouped.layout_version(), IdSegment::kGroupedVersion);
    std::vector<std::pair<std::string, uint64_t>> entries;
    for (size_t g = 0; g < grouped.group_count(); ++g) {
      for (size_t e = grouped.group_entries(g).first; e < grouped.group_entries(g).second; ++e)
        entries.emplace_back(std::string(grouped.group_key(g)), grouped.address(e));
    }
    for (const auto& [key, address] : entries) merged_model[key].push_back(address);
    IdSegment legacy = IdSegment::Build(std::move(entries));
    ASSERT_EQ(legacy.size(), s.entries);
    ASSERT_TRUE(store_.Put(legacy_key, legacy.bytes()).ok());
  }
  ASSERT_FALSE(legacy_key.empty());
  // A cold handle (no cached version-4 segment) reads the version-3 bytes.
  const TableVersion cold1 = Cold(v1);
  OG_ASSERT_OK_AND_ASSIGN(IdSegment stored, IdSegment::Parse(*store_.Get(legacy_key), legacy_key));
  EXPECT_EQ(stored.layout_version(), IdSegment::kWriteVersion);
  std::vector<std::string> values{"", "none", "d0", "d7", "d499", "d500", "d650", "d799", "d800"};
  for (int i = 1; i < 800; i += 37) values.push_back("d" + std::to_string(i));
  ProbeStats v3_stats;
  ExpectProbeMatchesModel(Cold(v1), "dst", values, &v3_stats);
  EXPECT_EQ(v3_stats.segments_ranged, 1u);
  EXPECT_EQ(v3_stats.whole_reads, 0u);
  // Deletes, then an append of half as many rows (so the old segment is merged in) whose values
  // overlap the old ones: their groups gather addresses from both segments.
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v2, DeleteWhere(cold1, Predicate::Eq("dst", Value::String("d7"))));
  ASSERT_EQ(v2.cache()->GetIdSegment(legacy_rel), nullptr);  // the merge reads the stored bytes
  rows.clear();
  for (int i = 3000; i < 4600; ++i) rows.push_back(R(i, i % 17 == 0 ? -1 : i % 800));
  OG_ASSERT_OK_AND_ASSIGN(TableVersion v3, AppendRows(v2, BatchOf(v2.schema(), rows)));
  std::set<uint32_t> old_fragments;
  for (const auto& f : v1.manifest().fragments) old_fragments.insert(f.id);
  for (const auto& [value, addresses] : Model(v3, "dst")) {
    for (uint64_t a : addresses) {
      if (!old_fragments.count(RowAddressFragment(a))) merged_model[value].push_back(a);
    }
  }
  for (auto& [value, addresses] : merged_model) std::sort(addresses.begin(), addresses.end());
  int value_segments = 0;
  for (const auto& s : v3.manifest().indexes) {
    OG_ASSERT_OK_AND_ASSIGN(IdSegment seg, IdSegment::Parse(*store_.Get(v3.AbsoluteKey(s.keys[0])), s.keys[0]));
    EXPECT_EQ(seg.size(), s.entries);
    if (s.kind == kIdIndexKind) {
      EXPECT_EQ(seg.layout_version(), IdSegment::kWriteVersion);
      continue;
    }
    ++value_segments;
    EXPECT_EQ(seg.layout_version(), IdSegment::kGroupedVersion);
    EXPECT_EQ(s.fragment_ids.size(), v3.manifest().fragments.size());  // covers both appends
    EXPECT_NE(v3.AbsoluteKey(s.keys[0]), legacy_key);
    // Exactly the legacy segment's entries (deleted rows included) and the new rows', grouped.
    std::map<std::string, std::vector<uint64_t>> got;
    for (size_t g = 0; g < seg.group_count(); ++g) {
      for (size_t e = seg.group_entries(g).first; e < seg.group_entries(g).second; ++e)
        got[std::string(seg.group_key(g))].push_back(seg.address(e));
    }
    EXPECT_EQ(got, merged_model);
  }
  EXPECT_EQ(value_segments, 1);
  ProbeStats ranged, in_memory;
  ExpectProbeMatchesModel(Cold(v3), "dst", values, &ranged);
  EXPECT_EQ(ranged.segments_ranged, 1u);
  EXPECT_EQ(ranged.whole_reads, 0u);
  EXPECT_EQ(ranged.fragments_scanned, 0u);
  ExpectProbeMatchesModel(v3, "dst", values, &in_memory);  // the writer's cache holds it
  EXPECT_EQ(in_memory.segments_in_memory, 1u);
  EXPECT_EQ(in_memory.bytes_read, 0u);
  // Read whole, verified and cached: the same answers.
  const TableVersion cold3 = Cold(v3);
  const auto model = Model(v3, "dst");
  ProbeStats whole;
  const FieldId dst = cold3.schema().FindByName("dst")->id;
  OG_ASSERT_OK_AND_ASSIGN(auto hits, ProbeColumn(cold3, dst, values, Predicate(), &whole,
                                                 /*whole_segment_entries=*/uint64_t{1} << 20));
  EXPECT_EQ(whole.whole_reads, 1u);
  std::map<std::string, std::set<uint64_t>> by_value;
  for (const auto& [i, a] : hits) by_value[values[i]].insert(a);
  size_t expected = 0;
  for (const auto& value : values) {
    auto it = model.find(value);
    EXPECT_EQ(by_value[value], it == model.end() ? std::set<uint64_t>{} : it->second) << value;
    expected += it == model.end() ? 0 : it->second.size();
  }
  EXPECT_GT(expected, 100u);
}

// ProbeMatch answers IN / equality / OR-of-those filters on hash-indexed String columns exactly
// as a scan does (cold handle, after deletes and upserts), and declines every other shape.
TEST_F(IndexProbeTest, ProbeMatchAgreesWithAScanOrDeclines) {
  TableVersion v = *v0_;
  for (int round = 0; round < 4; ++round) {
    std::vector<Row> rows;
    for (int i = 0; i < 700; ++i) rows.push_back(R(round * 700 + i, (i * 7 + round) % 300, i % 5));
    OG_ASSERT_OK_AND_ASSIGN(v, AppendRows(v, BatchOf(v.schema(), rows)));
  }
  OG_ASSERT_OK_AND_ASSIGN(v, DeleteWhere(v, Predicate::Eq("n", Value::I64(3))));
  OG_ASSERT_OK_AND_ASSIGN(v, UpsertRows(v, BatchOf(v.schema(), {R(1, 5, 9), R(2, 6, 9)})));
  const TableVersion cold = Cold(v);
  auto scan = [&](const Predicate& p) {
    ScanOptions o;
    o.columns = std::vector<std::string>{};
    o.filter = p;
    o.with_row_address = true;
    auto b = cold.ScanAll(o);
    EXPECT_TRUE(b.ok());
    std::vector<uint64_t> out(b->column(0).u64_values().begin(), b->column(0).u64_values().end());
    return out;
  };
  auto S = [](const char* s) { return Value::String(s); };
  const std::vector<Predicate> answered{
      Predicate::Eq("id", S("e1")),
      Predicate::In("dst", {S("d5"), S("d6"), S("d299"), S("nope")}),
      Predicate::Or({Predicate::In("id", {S("e3"), S("e2000")}), Predicate::Eq("dst", S("d17"))}),
      Predicate::In("dst", {Value::Null(DataType::Scalar(TypeKind::kString))}),
  };
  for (const Predicate& p : answered) {
    OG_ASSERT_OK_AND_ASSIGN(auto got, ProbeMatch(cold, p));
    ASSERT_TRUE(got.has_value()) << p.ToString();
    EXPECT_EQ(*got, scan(p)) << p.ToString();
  }
  std::vector<Value> many;
  for (int i = 0; i < 100; ++i) many.push_back(Value::String("d" + std::to_string(i)));
  const std::vector<Predicate> declined{
      Predicate::Eq("n", Value::I64(1)),  // no hash index
      Predicate::Gt("dst", S("d5")),      // not equality
      Predicate::And({Predicate::Eq("id", S("e1")), Predicate::Eq("dst", S("d5"))}),
      Predicate::In("dst", many),  // too many values
      Predicate(),
  };
  for (const Predicate& p : declined) {
    OG_ASSERT_OK_AND_ASSIGN(auto got, ProbeMatch(cold, p));
    EXPECT_FALSE(got.has_value()) << p.ToString();
  }
}

}  // namespace
}  // namespace omnigraph::table
