#include "format/fragment_writer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "common/hash.h"
#include "format/column_builder.h"
#include "format/format_test_util.h"
#include "format/fragment_reader.h"
#include "format/page_checksum.h"
#include "io/memory_store.h"

namespace omnigraph::format {
namespace {

// Writes one column, checks the encoding of every page and the round trip.
void CheckEncoding(const Column& col, const FragmentWriterOptions& o, Encoding want, const std::string& what) {
  io::MemoryStore store;
  Schema s = *Schema::Make({{7, "c", col.type(), true}});
  Batch batch = *Batch::Make(s, {col});
  ASSERT_TRUE(WriteFragment(store, "f.ogf", batch, o).ok()) << what;
  auto r = FragmentReader::Open(store, "f.ogf");
  ASSERT_TRUE(r.ok()) << what << ": " << r.status().ToString();
  for (const auto& p : (*r)->metadata().columns[0].pages) {
    EXPECT_EQ(EncodingName(p.encoding), EncodingName(want)) << what;
  }
  auto got = (*r)->ReadAll(std::vector<FieldId>{7});
  ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
  EXPECT_TRUE(got->column(0).Equals(col)) << what;
}

Column Ints(TypeKind kind, size_t n, const std::function<int64_t(size_t)>& f, bool nulls = false) {
  ColumnBuilder b(DataType::Scalar(kind));
  for (size_t i = 0; i < n; ++i) {
    if (nulls && i % 9 == 4) {
      b.AppendNull();
    } else {
      EXPECT_TRUE(b.Append(Value::I64(f(i))).ok());
    }
  }
  return b.Finish();
}

TEST(FragmentWriterTest, ChoosesEveryEncoding) {
  FragmentWriterOptions o;
  o.max_page_rows = 1000;
  for (bool nulls : {false, true}) {
    std::string tag = nulls ? " (nulls)" : "";
    // Random-looking wide values: plain.
    CheckEncoding(Ints(
                      TypeKind::kI64, 3000, [](size_t i) { return int64_t(i * 0x9E3779B97F4A7C15ull); }, nulls),
                  o, Encoding::kPlain, "wide i64" + tag);
    // Small range: bit-packed (including negative bases and I32/U32/Date kinds).
    CheckEncoding(Ints(
                      TypeKind::kI64, 3000, [](size_t i) { return -1000000 + int64_t(i * 7 % 300); }, nulls),
                  o, Encoding::kBitPacked, "narrow i64" + tag);
    CheckEncoding(Ints(
                      TypeKind::kI32, 3000, [](size_t i) { return int64_t(i % 17) - 8; }, nulls),
                  o, Encoding::kBitPacked, "narrow i32" + tag);
    CheckEncoding(Ints(
                      TypeKind::kU32, 3000, [](size_t i) { return int64_t(i % 100); }, nulls),
                  o, Encoding::kBitPacked, "narrow u32" + tag);
    CheckEncoding(Ints(
                      TypeKind::kDate, 3000, [](size_t i) { return int64_t(19000 + i % 30); }, nulls),
                  o, Encoding::kBitPacked, "dates" + tag);
    // Long runs: RLE.
    CheckEncoding(Ints(
                      TypeKind::kI64, 3000, [](size_t i) { return int64_t(i / 500) * 1000000007; }, nulls),
                  o, Encoding::kRle, "runs i64" + tag);
    CheckEncoding(Ints(
                      TypeKind::kDateTime, 3000, [](size_t i) { return int64_t(i / 300) << 50; }, nulls),
                  o, Encoding::kRle, "datetime runs" + tag);
    // A constant needs 0 bits: bit-packed with width 0 beats one RLE run.
    CheckEncoding(Ints(
                      TypeKind::kI64, 3000, [](size_t) { return int64_t{1700000000000}; }, nulls),
                  o, Encoding::kBitPacked, "constant" + tag);
    ColumnBuilder bools(DataType::Scalar(TypeKind::kBool)), runs(DataType::Scalar(TypeKind::kBool));
    for (size_t i = 0; i < 3000; ++i) {
      if (nulls && i % 11 == 0) {
        bools.AppendNull();
        runs.AppendNull();
        continue;
      }
      bools.AppendBool((i * 31) % 7 < 3);
      runs.AppendBool(i % 1000 < 700);
    }
    CheckEncoding(bools.Finish(), o, Encoding::kBitPacked, "bools" + tag);
    if (!nulls) CheckEncoding(runs.Finish(), o, Encoding::kRle, "bool runs");
    // Strings: low cardinality -> dictionary, unique -> plain.
    ColumnBuilder low(DataType::Scalar(TypeKind::kString)), uniq(DataType::Scalar(TypeKind::kString));
    for (size_t i = 0; i < 3000; ++i) {
      if (nulls && i % 13 == 1) {
        low.AppendNull();
        uniq.AppendNull();
        continue;
      }
      low.AppendString(i % 3 == 0 ? "" : i % 3 == 1 ? "alpha-ünï" : "beta");
      uniq.AppendString("user-" + std::to_string(i * 7919));
    }
    CheckEncoding(low.Finish(), o, Encoding::kDictionary, "low-cardinality strings" + tag);
    CheckEncoding(uniq.Finish(), o, Encoding::kPlain, "unique strings" + tag);
  }
  // Fixed-size vectors and lists.
  ColumnBuilder v(DataType::Vector(8));
  for (size_t i = 0; i < 500; ++i) ASSERT_TRUE(v.AppendVector(std::vector<float>(8, float(i))).ok());
  CheckEncoding(v.Finish(), o, Encoding::kFixedSize, "vectors");
  Batch all = testing::AllTypesBatch(300);
  CheckEncoding(*all.ColumnByName("tags"), o, Encoding::kList, "string lists");
  CheckEncoding(*all.ColumnByName("nums"), o, Encoding::kList, "int lists");
  // Forced encodings apply where possible.
  FragmentWriterOptions force = o;
  force.force_encoding = Encoding::kDictionary;
  CheckEncoding(Column::FromStrings({"a", "b", "c", "d"}), force, Encoding::kDictionary, "forced dict");
  force.force_encoding = Encoding::kRle;
  CheckEncoding(Column::FromI64({1, 2, 3, 4}), force, Encoding::kRle, "forced rle");
  force.force_encoding = Encoding::kBitPacked;
  CheckEncoding(Ints(TypeKind::kU64, 100, [](size_t i) { return int64_t(i); }), force, Encoding::kBitPacked,
                "forced bit-packed");
  CheckEncoding(Column::FromI64({INT64_MIN, INT64_MAX, 0}), force, Encoding::kBitPacked, "bit-packed 64-bit range");
  FragmentWriterOptions plain = o;
  plain.allow_encodings = false;
  CheckEncoding(Ints(TypeKind::kI64, 3000, [](size_t) { return int64_t{5}; }), plain, Encoding::kPlain,
                "encodings off");
}

TEST(FragmentWriterTest, CompressionShrinksRedundantPagesAndSkipsIncompressible) {
  Column col = Column::FromStrings(std::vector<std::string>(5000, std::string(40, 'z')));
  Schema s = *Schema::Make({{1, "s", col.type(), true}});
  Batch batch = *Batch::Make(s, {col});
  for (Compression c : {Compression::kZstd, Compression::kLz4}) {
    io::MemoryStore store;
    FragmentWriterOptions o;
    o.allow_encodings = false;
    o.compression = c;
    auto info = WriteFragment(store, "f.ogf", batch, o);
    ASSERT_TRUE(info.ok());
    EXPECT_LT(info->file_size, 50000u) << CompressionName(c);
    auto r = FragmentReader::Open(store, "f.ogf");
    ASSERT_TRUE(r.ok());
    std::set<Compression> seen;
    for (const auto& p : (*r)->metadata().columns[0].pages) seen.insert(p.compression);
    EXPECT_EQ(seen, std::set<Compression>{c});
    auto got = (*r)->ReadAll(std::vector<FieldId>{1});
    ASSERT_TRUE(got.ok());
    EXPECT_TRUE(got->column(0).Equals(col));
  }
  // A 1-row page of 1 byte does not compress: stored uncompressed.
  io::MemoryStore store;
  FragmentWriterOptions o;
  o.compression = Compression::kZstd;
  Schema bs = *Schema::Make({{1, "b", DataType::Scalar(TypeKind::kBool), true}});
  ColumnBuilder b(bs.field(0).type);
  b.AppendBool(true);
  ASSERT_TRUE(WriteFragment(store, "g.ogf", *Batch::Make(bs, {b.Finish()}), o).ok());
  auto r = FragmentReader::Open(store, "g.ogf");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->metadata().columns[0].pages[0].compression, Compression::kNone);
}

TEST(FragmentWriterTest, PagesFollowTargetsAndHugeValuesGetTheirOwnPage) {
  io::MemoryStore store;
  std::vector<std::string> v = {"a", std::string(3 << 20, 'x'), "b", "c"};
  Column col = Column::FromStrings(v);
  Schema s = *Schema::Make({{1, "s", col.type(), true}, {2, "n", DataType::Scalar(TypeKind::kI64), true}});
  ColumnBuilder nb(s.field(1).type);
  for (int i = 0; i < 4; ++i) nb.AppendI64(i);
  Batch batch = *Batch::Make(s, {col, nb.Finish()});
  FragmentWriter w(s);
  for (int k = 0; k < 3; ++k) ASSERT_TRUE(w.Append(batch).ok());
  EXPECT_EQ(w.num_rows(), 12u);
  auto bytes = w.Finish();
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(store.PutIfAbsent("f.ogf", *bytes).ok());
  auto r = FragmentReader::Open(store, "f.ogf");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->metadata().columns[0].pages.size(), 4u);  // [a big] [b c a big] x2 [b c]
  EXPECT_EQ((*r)->metadata().columns[1].pages.size(), 1u);
  auto got = (*r)->ReadAll(s.field_ids());
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->GetValue(5, 0).string_value().size(), size_t{3} << 20);
  EXPECT_EQ(got->GetValue(11, 1).int_value(), 3);
  // Fixed-width columns: 64Ki rows per page by default.
  Batch big = *Batch::Make(*Schema::Make({{1, "x", DataType::Scalar(TypeKind::kI64), true}}),
                           {Column::FromI64(std::vector<int64_t>(200000, 1))});
  ASSERT_TRUE(WriteFragment(store, "big.ogf", big).ok());
  auto br = FragmentReader::Open(store, "big.ogf");
  ASSERT_TRUE(br.ok());
  EXPECT_EQ((*br)->metadata().columns[0].pages.size(), 4u);
  EXPECT_EQ((*br)->metadata().columns[0].pages[0].row_count, 65536u);
}

// docs/format/fragment.md "Page checksums": in version 2 each page is followed by the low 32 bits
// of xxhash64 of each 4 KiB chunk of its stored bytes, and the footer's page checksum is xxhash64
// of that array; version 1 has no array and checksums the stored bytes.
TEST(FragmentWriterTest, PagesAreFollowedByTheirChunkChecksums) {
  Batch batch = testing::AllTypesBatch(3000);
  for (uint16_t version : {uint16_t{1}, uint16_t{2}}) {
    for (Compression comp : {Compression::kNone, Compression::kZstd}) {
      FragmentWriterOptions o;
      o.format_version = version;
      o.compression = comp;
      o.target_page_bytes = 10000;  // pages of one to a few chunks
      FragmentInfo info;
      FragmentWriter w(batch.schema(), o);
      ASSERT_TRUE(w.Append(batch).ok());
      auto bytes = w.Finish(&info);
      ASSERT_TRUE(bytes.ok());
      io::MemoryStore store;
      ASSERT_TRUE(store.Put("f.ogf", *bytes).ok());
      auto r = FragmentReader::Open(store, "f.ogf");
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      uint64_t next = 16;  // pages and their checksums are contiguous, in column order
      size_t multi_chunk = 0;
      for (const auto& chunk : (*r)->metadata().columns) {
        for (const PageInfo& p : chunk.pages) {
          ASSERT_EQ(p.offset, next);
          std::string_view stored = std::string_view(*bytes).substr(p.offset, p.stored_length);
          if (version == 1) {
            EXPECT_EQ(p.checksums_length, 0u);
            EXPECT_EQ(p.checksum, XxHash64(stored));
          } else {
            const uint64_t chunks = internal::ChunkCount(p.stored_length);
            ASSERT_EQ(p.checksums_length, 4 * chunks);
            std::string_view sums = std::string_view(*bytes).substr(p.offset + p.stored_length, 4 * chunks);
            EXPECT_EQ(p.checksum, XxHash64(sums));
            for (uint64_t c = 0; c < chunks; ++c) {
              uint32_t want = static_cast<uint32_t>(
                  XxHash64(stored.substr(c * internal::kChecksumChunkBytes, internal::kChecksumChunkBytes)));
              uint32_t got = 0;
              std::memcpy(&got, sums.data() + 4 * c, 4);
              EXPECT_EQ(got, want) << "chunk " << c;
            }
            multi_chunk += chunks > 1;
          }
          next = p.file_end();
        }
      }
      EXPECT_EQ(next, info.file_size - info.tail_size);  // the footer follows the last page
      if (version == 2) {
        EXPECT_GT(multi_chunk, 0u);
      }
      EXPECT_TRUE((*r)->Verify().ok());
    }
  }
}

// Appended batches are paged as they are (no copy into one column first): a page never spans two
// batches of 4096 rows or more, runs of shorter batches are joined, and the rows read back are
// exactly the rows appended, in order, with their statistics.
TEST(FragmentWriterTest, PagesFollowAppendedBatchesAndShortOnesAreJoined) {
  FragmentWriterOptions o;
  o.max_page_rows = 3000;
  Schema s = *Schema::Make(
      {{1, "s", DataType::Scalar(TypeKind::kString), true}, {2, "n", DataType::Scalar(TypeKind::kI64), true}});
  const std::vector<size_t> sizes = {5000, 10, 3, 5000, 1, 4095, 2, 70000, 7};
  FragmentWriter w(s, o);
  ColumnBuilder all_s(DataType::Scalar(TypeKind::kString)), all_n(DataType::Scalar(TypeKind::kI64));
  size_t row = 0;
  for (size_t size : sizes) {
    ColumnBuilder bs(DataType::Scalar(TypeKind::kString)), bn(DataType::Scalar(TypeKind::kI64));
    for (size_t i = 0; i < size; ++i, ++row) {
      const std::string v = "v" + std::to_string(row * 7919 % 100003);
      if (row % 11 == 3) {
        bs.AppendNull();
        all_s.AppendNull();
      } else {
        bs.AppendString(v);
        all_s.AppendString(v);
      }
      bn.AppendI64(static_cast<int64_t>(row));
      all_n.AppendI64(static_cast<int64_t>(row));
    }
    ASSERT_TRUE(w.Append(*Batch::Make(s, {bs.Finish(), bn.Finish()})).ok());
  }
  io::MemoryStore store;
  ASSERT_TRUE(w.WriteTo(store, "f.ogf").ok());
  auto r = FragmentReader::Open(store, "f.ogf");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // The pieces paged separately: 5000 | 10+3 (a short run, ended by the long batch after it) |
  // 5000 | 1+4095 (joined: the run reaches 4096) | 2 | 70000 | 7. Every page lies in one piece.
  const std::vector<uint64_t> piece_ends = {5000, 5013, 10013, 14109, 14111, 84111, 84118};
  for (size_t c = 0; c < 2; ++c) {
    uint64_t next = 0;
    for (const auto& p : (*r)->metadata().columns[c].pages) {
      EXPECT_EQ(p.first_row, next);
      next = p.first_row + p.row_count;
      EXPECT_LE(p.row_count, 3000u);
      auto end = std::lower_bound(piece_ends.begin(), piece_ends.end(), p.first_row + 1);
      ASSERT_NE(end, piece_ends.end());
      EXPECT_LE(p.first_row + p.row_count, *end) << "page at row " << p.first_row << " spans two pieces";
    }
    EXPECT_EQ(next, row);
  }
  auto got = (*r)->ReadAll(std::vector<FieldId>{1, 2});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(got->column(0).Equals(all_s.Finish()));
  EXPECT_TRUE(got->column(1).Equals(all_n.Finish()));
  EXPECT_EQ((*r)->metadata().columns[1].stats.max, Value::I64(static_cast<int64_t>(row - 1)));
}

}  // namespace
}  // namespace omnigraph::format
