// FragmentReader::Take's row-granular path (ranged_take.h): the same batches as whole-page decoding
// for every type, encoding, compression and format version; a few chunks per row read from a large
// fragment; every byte it uses checksum-verified, so a damaged byte is Corrupt, never data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <tuple>

#include "common/error_codes.h"
#include "common/hash.h"
#include "format/column_builder.h"
#include "format/format_test_util.h"
#include "format/fragment_reader.h"
#include "format/fragment_writer.h"
#include "format/page_checksum.h"
#include "io/counting_store.h"
#include "io/memory_store.h"

namespace omnigraph::format {
namespace {

// Ranged wherever the page allows it, with no coalescing (so bytes read show which path ran).
FragmentOpenOptions ForcedRanged() {
  FragmentOpenOptions o;
  o.ranged_take.min_page_bytes = 0;
  o.ranged_take.max_row_fraction = 1.0;
  o.ranged_take.max_byte_fraction = 1e9;
  o.ranged_take.coalesce_gap = 0;
  return o;
}

FragmentOpenOptions WholePages() {
  FragmentOpenOptions o;
  o.ranged_take.enabled = false;
  return o;
}

// Whether a page of a version-2 file can be read row-granularly: uncompressed, random-access.
bool RandomAccess(const PageInfo& p) {
  if (p.compression != Compression::kNone) return false;
  switch (p.encoding) {
    case Encoding::kPlain:
    case Encoding::kDictionary:
    case Encoding::kBitPacked:
    case Encoding::kFixedSize: return true;
    default: return false;
  }
}

// How many of the pages of column `col` can be read row-granularly, and how many it has.
// Version-1 pages have no chunk checksums, so they are always read whole.
std::pair<size_t, size_t> RandomAccessPages(const FragmentReader& r, size_t col) {
  const auto& pages = r.metadata().columns[col].pages;
  if (r.format_version() < 2) return {0, pages.size()};
  return {std::count_if(pages.begin(), pages.end(), RandomAccess), pages.size()};
}

std::unique_ptr<FragmentReader> OpenOrDie(io::ObjectStore& store, const std::string& key,
                                          const FragmentOpenOptions& o) {
  auto r = FragmentReader::Open(store, key, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : nullptr;
}

// Row subsets: sparse, dense, first/last, repeats, both sides of page boundaries, null rows.
std::vector<std::vector<uint64_t>> Subsets(const FragmentReader& r, std::mt19937_64& rng) {
  const uint64_t n = r.num_rows();
  std::vector<std::vector<uint64_t>> out;
  out.push_back({n / 2});
  out.push_back({0, n - 1, n - 1, 0, 7});
  for (size_t count : {size_t{5}, size_t{40}, static_cast<size_t>(n / 2)}) {
    std::vector<uint64_t> rows(count);
    for (auto& x : rows) x = rng() % n;
    out.push_back(rows);
  }
  std::vector<uint64_t> edges;
  for (size_t c : {size_t{0}, size_t{4}, size_t{11}}) {
    for (const PageInfo& p : r.metadata().columns[c].pages) {
      if (p.first_row > 0) edges.push_back(p.first_row - 1);
      edges.push_back(p.first_row);
      if (edges.size() > 30) break;
    }
  }
  out.push_back(edges);
  out.push_back({3, 8, 13, n - 2});  // every fifth row (r % 5 == 3) is null
  return out;
}

struct Variant {
  std::string name;
  FragmentWriterOptions options;
};

std::vector<Variant> Variants() {
  std::vector<Variant> v;
  auto add = [&](std::string name, auto edit) {
    FragmentWriterOptions o;
    o.max_page_rows = 64;
    edit(o);
    v.push_back({std::move(name), o});
  };
  add("default", [](FragmentWriterOptions&) {});
  add("plain", [](FragmentWriterOptions& o) { o.allow_encodings = false; });
  add("dictionary", [](FragmentWriterOptions& o) { o.force_encoding = Encoding::kDictionary; });
  add("bit-packed", [](FragmentWriterOptions& o) { o.force_encoding = Encoding::kBitPacked; });
  add("rle", [](FragmentWriterOptions& o) { o.force_encoding = Encoding::kRle; });
  add("zstd", [](FragmentWriterOptions& o) { o.compression = Compression::kZstd; });
  add("lz4 dictionary", [](FragmentWriterOptions& o) {
    o.compression = Compression::kLz4;
    o.force_encoding = Encoding::kDictionary;
  });
  add("v1", [](FragmentWriterOptions& o) { o.format_version = 1; });
  add("v1 plain", [](FragmentWriterOptions& o) {
    o.format_version = 1;
    o.allow_encodings = false;
  });
  add("one big page", [](FragmentWriterOptions& o) { o.max_page_rows = 65536; });
  return v;
}

TEST(RangedTakeTest, MatchesWholePageDecodeForEveryTypeAndEncoding) {
  const Batch batch = testing::AllTypesBatch(1000);
  const auto ids = batch.schema().field_ids();
  std::mt19937_64 rng(7);
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    auto mem = std::make_shared<io::MemoryStore>();
    io::CountingStore store(mem);
    ASSERT_TRUE(WriteFragment(store, "f.ogf", batch, v.options).ok());
    auto ranged = OpenOrDie(store, "f.ogf", ForcedRanged());
    auto whole = OpenOrDie(store, "f.ogf", WholePages());
    auto normal = OpenOrDie(store, "f.ogf", {});
    ASSERT_TRUE(ranged && whole && normal);
    for (const auto& rows : Subsets(*ranged, rng)) {
      auto a = ranged->Take(ids, rows);
      auto b = whole->Take(ids, rows);
      auto c = normal->Take(ids, rows);
      ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << a.status().ToString() << b.status().ToString();
      Batch want = batch.Take(rows);
      ASSERT_TRUE(b->Equals(want));
      ASSERT_TRUE(c->Equals(want));
      for (size_t col = 0; col < want.num_columns(); ++col) {
        ASSERT_TRUE(a->column(col).Equals(want.column(col)))
            << want.schema().field(col).name << " rows " << rows.size();
      }
    }
    // Column by column, a sparse take reads no more bytes ranged where pages allow it, the same
    // bytes where they do not. These pages are at most a few chunks, so ranged reads fetch most
    // of them; but a ranged read that failed and fell back would read more than the whole pages.
    // (SparseTakeOfAMillionRows... shows the savings on large pages.)
    std::vector<uint64_t> sparse = {1, 130, 517, 998};
    for (size_t col = 0; col < ids.size(); ++col) {
      std::vector<FieldId> one = {ids[col]};
      uint64_t bytes[2] = {0, 0};
      for (int k = 0; k < 2; ++k) {
        auto r = OpenOrDie(store, "f.ogf", k == 0 ? ForcedRanged() : WholePages());
        ASSERT_NE(r, nullptr);
        store.Reset();
        auto got = r->Take(one, sparse);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        ASSERT_TRUE(got->column(0).Equals(batch.column(col).Take(sparse)));
        bytes[k] = store.counts().bytes_read;
      }
      const std::string& name = batch.schema().field(col).name;
      auto [good, pages] = RandomAccessPages(*ranged, col);
      if (good == 0) {
        EXPECT_EQ(bytes[0], bytes[1]) << name;
      } else {
        EXPECT_LE(bytes[0], bytes[1]) << name;
      }
    }
  }
}

TEST(RangedTakeTest, NullPagesConstantsAndWideValues) {
  // All-null pages, zero-width and 64-bit bit-packing, empty strings, a non-nullable column.
  Schema s = *Schema::Make({{1, "nulls", DataType::Scalar(TypeKind::kI64), true},
                            {2, "const", DataType::Scalar(TypeKind::kU64), true},
                            {3, "wide", DataType::Scalar(TypeKind::kI64), false},
                            {4, "empty", DataType::Scalar(TypeKind::kString), true},
                            {5, "flag", DataType::Scalar(TypeKind::kBool), false}});
  const size_t n = 5000;
  ColumnBuilder nulls(s.field(0).type), cons(s.field(1).type), wide(s.field(2).type), empty(s.field(3).type),
      flag(s.field(4).type);
  for (size_t i = 0; i < n; ++i) {
    nulls.AppendNull();
    cons.AppendU64(UINT64_MAX);
    wide.AppendI64(i % 2 ? INT64_MIN + int64_t(i) : INT64_MAX - int64_t(i));
    if (i % 3 == 0) {
      empty.AppendNull();
    } else {
      empty.AppendString(i % 3 == 1 ? "" : "x");
    }
    flag.AppendBool(i % 3 == 0);
  }
  Batch batch = *Batch::Make(s, {nulls.Finish(), cons.Finish(), wide.Finish(), empty.Finish(), flag.Finish()});
  std::vector<uint64_t> rows = {4999, 0, 1, 2, 3, 1000, 1001, 2500, 2500};
  for (auto force : {std::optional<Encoding>(), std::optional(Encoding::kBitPacked)}) {
    io::MemoryStore store;
    FragmentWriterOptions o;
    o.force_encoding = force;
    ASSERT_TRUE(WriteFragment(store, "f.ogf", batch, o).ok());
    auto r = OpenOrDie(store, "f.ogf", ForcedRanged());
    ASSERT_NE(r, nullptr);
    auto got = r->Take(s.field_ids(), rows);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(got->Equals(batch.Take(rows)));
  }
}

// A fragment of `rows` rows: a unique-name string column and a random-looking i64 column.
Batch NamesAndScores(size_t rows) {
  Schema s = *Schema::Make(
      {{1, "name", DataType::Scalar(TypeKind::kString), false}, {2, "score", DataType::Scalar(TypeKind::kI64), true}});
  ColumnBuilder names(s.field(0).type), scores(s.field(1).type);
  names.Reserve(rows);
  scores.Reserve(rows);
  char buf[32];
  for (size_t i = 0; i < rows; ++i) {
    uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull;
    std::snprintf(buf, sizeof(buf), "entity-%016llx", static_cast<unsigned long long>(h));
    names.AppendString(buf);
    scores.AppendI64(static_cast<int64_t>(h ^ (h >> 29)));
  }
  return *Batch::Make(s, {names.Finish(), scores.Finish()});
}

TEST(RangedTakeTest, SparseTakeOfAMillionRowsReadsAFewChunksPerRow) {
  constexpr size_t kRows = 1'000'000;
  const Batch batch = NamesAndScores(kRows);
  const auto ids = batch.schema().field_ids();
  std::vector<uint64_t> rows;
  for (uint64_t i = 0; i < 100; ++i) rows.push_back((i * 9973 + 11) * 1000 % kRows + i);
  Batch want = batch.Take(rows);
  for (Compression comp : {Compression::kNone, Compression::kZstd}) {
    SCOPED_TRACE(CompressionName(comp));
    auto mem = std::make_shared<io::MemoryStore>();
    io::CountingStore store(mem);
    FragmentWriterOptions o;
    o.compression = comp;
    ASSERT_TRUE(WriteFragment(store, "big.ogf", batch, o).ok());
    // Compressed: the names (whose pages compress) only; random i64 pages stay uncompressed.
    std::vector<FieldId> take = ids;
    if (comp != Compression::kNone) take = {1};
    uint64_t read[2] = {0, 0}, requests[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      auto r = OpenOrDie(store, "big.ogf", k == 0 ? FragmentOpenOptions{} : WholePages());
      ASSERT_NE(r, nullptr);
      store.Reset();
      auto got = r->Take(take, rows);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ASSERT_TRUE(got->Equals(*want.Select(take)));
      read[k] = store.counts().bytes_read;
      requests[k] = store.counts().of(io::StoreOp::kGetRange);
    }
    auto r = OpenOrDie(store, "big.ogf", {});
    uint64_t column_bytes = 0;
    for (size_t c = 0; c < take.size(); ++c) {
      for (const PageInfo& p : r->metadata().columns[c].pages) {
        column_bytes += p.stored_length;
        EXPECT_EQ(p.encoding, Encoding::kPlain);
        EXPECT_EQ(p.compression, comp);
      }
    }
    std::printf(
        "[%s] columns %llu bytes; take of %zu rows: ranged %llu bytes in %llu requests, "
        "whole pages %llu bytes in %llu requests\n",
        std::string(CompressionName(comp)).c_str(), static_cast<unsigned long long>(column_bytes), rows.size(),
        static_cast<unsigned long long>(read[0]), static_cast<unsigned long long>(requests[0]),
        static_cast<unsigned long long>(read[1]), static_cast<unsigned long long>(requests[1]));
    if (comp == Compression::kNone) {
      // Each wanted byte range is rounded out to the 1 KiB chunks whose checksums verify it: an
      // end-offset chunk and a string-bytes chunk per name, a value chunk per score, plus per
      // touched page its first chunk (flags, encoding), the chunk with the last end offset and
      // the chunk checksums (4 KiB per 1 MiB page). Under 3 chunks per row and column on
      // average, < 2% of the columns.
      EXPECT_LT(read[0], column_bytes / 50);
      EXPECT_LT(read[0], 3 * rows.size() * take.size() * internal::kChecksumChunkBytes);
    } else {
      EXPECT_EQ(read[0], read[1]);  // compressed pages are read whole
    }
  }
}

TEST(RangedTakeTest, DenseRowsReadWholePages) {
  const Batch batch = NamesAndScores(65536);  // one page per column
  auto mem = std::make_shared<io::MemoryStore>();
  io::CountingStore store(mem);
  ASSERT_TRUE(WriteFragment(store, "f.ogf", batch).ok());
  std::vector<FieldId> score = {2};
  auto bytes_for = [&](const std::vector<uint64_t>& rows) -> uint64_t {
    auto r = OpenOrDie(store, "f.ogf", {});
    if (r == nullptr) return 0;
    store.Reset();
    auto got = r->Take(score, rows);
    EXPECT_TRUE(got.ok() && got->Equals(*batch.Take(rows).Select(score)));
    return store.counts().bytes_read;
  };
  auto r = OpenOrDie(store, "f.ogf", {});
  ASSERT_NE(r, nullptr);
  const PageInfo& page = r->metadata().columns[1].pages[0];
  ASSERT_EQ(page.row_count, 65536u);
  std::vector<uint64_t> every(65536 / 4), sixteenth(65536 / 16), sparse;
  for (size_t i = 0; i < every.size(); ++i) every[i] = 4 * i;           // > 1/8 of the rows
  for (size_t i = 0; i < sixteenth.size(); ++i) sixteenth[i] = 16 * i;  // coalesces to ~all
  for (uint64_t i = 0; i < 65536; i += 6000) sparse.push_back(i);       // a few rows
  const uint64_t whole = page.stored_length + page.checksums_length;
  EXPECT_EQ(bytes_for(every), whole);
  EXPECT_EQ(bytes_for(sixteenth), whole);
  // Sparse: one 4 KiB chunk per row (row 0 shares the first chunk with the flags and encoding
  // bytes) and the page's chunk checksums.
  EXPECT_EQ(bytes_for(sparse), sparse.size() * internal::kChecksumChunkBytes + page.checksums_length);
}

// Takes `rows` of field 1 from `bytes` stored at f.ogf; the status.
Status TakeFrom(io::MemoryStore& store, const std::string& bytes, std::span<const uint64_t> rows) {
  OG_RETURN_IF_ERROR(store.Put("f.ogf", bytes));
  OG_ASSIGN_OR_RETURN(std::unique_ptr<FragmentReader> r, FragmentReader::Open(store, "f.ogf"));
  std::vector<FieldId> one = {1};
  return r->Take(one, rows).status();
}

TEST(RangedTakeTest, DamagedBytesOfARangedTakeAreCorrupt) {
  const Batch batch = NamesAndScores(20000);
  io::MemoryStore mem;
  io::CountingStore store(std::shared_ptr<io::ObjectStore>(&mem, [](io::ObjectStore*) {}));
  FragmentWriter w(batch.schema());
  ASSERT_TRUE(w.Append(batch).ok());
  auto good = w.Finish();
  ASSERT_TRUE(good.ok());
  ASSERT_TRUE(mem.Put("f.ogf", *good).ok());
  auto reader = OpenOrDie(store, "f.ogf", {});
  ASSERT_NE(reader, nullptr);
  const PageInfo& page = reader->metadata().columns[0].pages[0];
  ASSERT_EQ(page.encoding, Encoding::kPlain);
  ASSERT_EQ(page.stats.null_count, 0u);
  std::vector<uint64_t> rows = {5, 777, 0, page.row_count - 1};
  std::vector<FieldId> one = {1};
  store.Reset();
  auto ok = reader->Take(one, rows);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->column(0).Equals(batch.column(0).Take(rows)));
  EXPECT_LT(store.counts().bytes_read, page.stored_length / 10);  // the ranged path ran
  auto expect_corrupt = [&](const std::string& bad, const std::string& what) {
    Status s = TakeFrom(mem, bad, rows);
    EXPECT_EQ(s.category(), StatusCode::kCorrupt) << what;
    EXPECT_NE(s.message().find("f.ogf"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("column 'name' (field 1) page 0"), std::string::npos) << s.message();
  };
  // Body: u8 flags (0), u8 encoding, then rows x u32 end offsets, then the string bytes.
  const uint64_t offsets = page.offset + 2;
  const uint64_t strings = offsets + 4 * uint64_t{page.row_count};
  for (uint64_t at : {page.offset, page.offset + 1}) {
    std::string bad = *good;
    bad[at] = static_cast<char>(bad[at] ^ 1);
    expect_corrupt(bad, "flags or encoding byte " + std::to_string(at));
  }
  // Any flip of an end offset the take reads, of the string bytes of a row, or of a chunk
  // checksum: Corrupt (before chunk checksums, a flip that kept the offsets ordered, or any flip
  // of the string bytes, was returned as data).
  for (uint64_t r : rows) {
    for (uint64_t e : {r, r == 0 ? r : r - 1, uint64_t{page.row_count} - 1}) {
      for (uint64_t b = 0; b < 4; ++b) {
        for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x10}, uint8_t{0xff}}) {
          std::string bad = *good;
          bad[offsets + 4 * e + b] = static_cast<char>(bad[offsets + 4 * e + b] ^ mask);
          expect_corrupt(bad, "end offset " + std::to_string(e));
        }
      }
    }
    const auto off = batch.column(0).offsets();
    std::string bad = *good;
    bad[strings + off[r]] = static_cast<char>(bad[strings + off[r]] ^ 0x20);  // 'e' -> 'E'
    expect_corrupt(bad, "string bytes of row " + std::to_string(r));
  }
  for (uint64_t chunk : {uint64_t{0}, page.checksums_length / 4 - 1}) {
    std::string bad = *good;
    const uint64_t at = page.offset + page.stored_length + 4 * chunk;
    bad[at] = static_cast<char>(bad[at] ^ 1);
    expect_corrupt(bad, "checksum of chunk " + std::to_string(chunk));
  }
  // A flip in a chunk the take does not use changes nothing it returns.
  std::string bad = *good;
  bad[page.offset + 40000] = static_cast<char>(bad[page.offset + 40000] ^ 1);
  ASSERT_TRUE(mem.Put("f.ogf", bad).ok());
  auto r = OpenOrDie(mem, "f.ogf", {});
  ASSERT_NE(r, nullptr);
  auto same = r->Take(one, rows);
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_TRUE(same->column(0).Equals(batch.column(0).Take(rows)));
}

TEST(RangedTakeTest, FlippedValueByteOfAPlainI64IsCorrupt) {
  // Before chunk checksums, a ranged read returned the changed integer as data.
  const Batch batch = NamesAndScores(20000);
  FragmentWriter w(batch.schema());
  ASSERT_TRUE(w.Append(batch).ok());
  auto good = w.Finish();
  ASSERT_TRUE(good.ok());
  io::MemoryStore mem;
  io::CountingStore store(std::shared_ptr<io::ObjectStore>(&mem, [](io::ObjectStore*) {}));
  ASSERT_TRUE(mem.Put("f.ogf", *good).ok());
  auto reader = OpenOrDie(mem, "f.ogf", {});
  ASSERT_NE(reader, nullptr);
  const PageInfo& page = reader->metadata().columns[1].pages[0];
  ASSERT_EQ(page.encoding, Encoding::kPlain);
  ASSERT_EQ(page.compression, Compression::kNone);
  ASSERT_EQ(page.stats.null_count, 0u);
  const uint64_t row = 7777;
  std::string bad = *good;
  const uint64_t at = page.offset + 2 + 8 * row + 3;  // u8 flags, u8 encoding, rows x i64
  bad[at] = static_cast<char>(bad[at] ^ 0x10);
  ASSERT_TRUE(mem.Put("f.ogf", bad).ok());
  auto r = OpenOrDie(store, "f.ogf", {});
  ASSERT_NE(r, nullptr);
  const std::vector<FieldId> score = {2};
  const std::vector<uint64_t> one = {row};
  auto got = r->Take(score, one);
  ASSERT_FALSE(got.ok()) << "returned " << got->GetValue(0, 0).ToString() << " instead of "
                         << batch.GetValue(row, 1).ToString();
  EXPECT_EQ(got.status().category(), StatusCode::kCorrupt);
  const std::string& m = got.status().message();
  EXPECT_NE(m.find("fragment f.ogf column 'score' (field 2) page 0"), std::string::npos) << m;
  // A row in another chunk of the page is still read ranged, and right.
  const std::vector<uint64_t> other = {100};
  store.Reset();
  auto fine = r->Take(score, other);
  ASSERT_TRUE(fine.ok()) << fine.status().ToString();
  EXPECT_TRUE(fine->Equals(*batch.Take(other).Select(score)));
  EXPECT_LT(store.counts().bytes_read, page.stored_length / 4);
  // Whole-page reads report it too.
  EXPECT_EQ(r->Read(score, row, row + 1).status().category(), StatusCode::kCorrupt);
}

// Recomputes every checksum covering page `p` of the fragment `file` after its stored bytes
// changed (its chunk checksums, its footer entry, the footer checksum): a damaged page that all
// checksums accept, as a buggy writer could produce. `p` is the page's entry before the change.
void Reseal(std::string* file, const PageInfo& p) {
  std::string sums;
  const uint64_t sum = internal::AppendChunkChecksums(std::string_view(*file).substr(p.offset, p.stored_length), &sums);
  file->replace(p.offset + p.stored_length, sums.size(), sums);
  const size_t trailer = file->size() - 24;
  uint64_t footer_len = 0;
  std::memcpy(&footer_len, file->data() + trailer, 8);
  const size_t footer = trailer - footer_len;
  const std::string old_sum(reinterpret_cast<const char*>(&p.checksum), 8);
  const size_t entry = file->find(old_sum, footer);
  ASSERT_LT(entry, trailer);
  file->replace(entry, 8, reinterpret_cast<const char*>(&sum), 8);
  std::string covered = file->substr(footer, footer_len);
  covered.append(*file, trailer, 8);
  covered.append(*file, trailer + 16, 8);
  const uint64_t footer_sum = XxHash64(covered);
  file->replace(trailer + 8, 8, reinterpret_cast<const char*>(&footer_sum), 8);
}

// The page of `meta` whose bytes or chunk checksums hold file offset `at`, or nullptr.
const PageInfo* PageAt(const FragmentMetadata& meta, uint64_t at) {
  for (const auto& chunk : meta.columns) {
    for (const PageInfo& p : chunk.pages) {
      if (at >= p.offset && at < p.file_end()) return &p;
    }
  }
  return nullptr;
}

// Flips every byte of the pages (stored bytes and chunk checksums) of the fragment `good` and
// takes `rows` ranged wherever possible: the exact original rows or Corrupt, never other data.
// With `reseal`, the checksums are recomputed after the flip, so the damaged page reaches the
// ranged decoder: it must return well-formed columns or Corrupt, never crash or read out of
// bounds (run under ASan too); only pages it reads are flipped then (the whole-page decoder has
// its own hostile-input tests in page_codec_test.cc). Returns {ok, corrupt} counts.
std::pair<size_t, size_t> FlipEveryPageByte(const std::string& good, const Batch& batch, std::span<const uint64_t> rows,
                                            bool reseal) {
  io::MemoryStore store;
  EXPECT_TRUE(store.Put("f.ogf", good).ok());
  FragmentOpenOptions oo = ForcedRanged();
  oo.ranged_take.coalesce_gap = 4096;  // few requests: fast enough to flip every byte
  auto reader = OpenOrDie(store, "f.ogf", oo);
  if (reader == nullptr) return {0, 0};
  const Batch want = batch.Take(rows);
  const auto ids = batch.schema().field_ids();
  uint64_t data_end = 0;
  for (const auto& chunk : reader->metadata().columns) {
    for (const PageInfo& p : chunk.pages) data_end = std::max(data_end, p.file_end());
  }
  size_t ok = 0, corrupt = 0;
  for (uint64_t at = 16; at < data_end; ++at) {
    const PageInfo* page = PageAt(reader->metadata(), at);
    if (reseal && !RandomAccess(*page)) continue;
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ (at % 2 ? 0x01 : 0xff));
    if (reseal) Reseal(&bad, *page);
    EXPECT_TRUE(store.Put("f.ogf", bad).ok());
    auto r = OpenOrDie(store, "f.ogf", oo);
    if (r == nullptr) return {ok, corrupt};
    auto got = r->Take(ids, rows);
    if (!got.ok()) {
      ++corrupt;
      if (got.status().category() == StatusCode::kCorrupt) continue;
      ADD_FAILURE() << "flip at " << at << ": " << got.status().ToString();
      break;
    }
    ++ok;
    bool right = got->num_rows() == rows.size();
    for (size_t c = 0; right && c < got->num_columns(); ++c) {
      right = reseal ? got->column(c).Equals(got->column(c)) : got->column(c).Equals(want.column(c));
      if (!right) {
        ADD_FAILURE() << "flip at " << at << " returned other data in column " << batch.schema().field(c).name;
      }
    }
    if (!right) break;
  }
  return {ok, corrupt};
}

TEST(RangedTakeTest, EveryFlippedStoredByteGivesTheOriginalDataOrCorrupt) {
  // Pages of one chunk, every type and encoding: every flip of a page the take touches is caught.
  const Batch small = testing::AllTypesBatch(64);
  const std::vector<uint64_t> rows = {63, 0, 31, 32, 50, 50};
  for (std::optional<Encoding> force : {std::optional<Encoding>(), std::optional(Encoding::kDictionary),
                                        std::optional(Encoding::kBitPacked), std::optional(Encoding::kPlain)}) {
    SCOPED_TRACE(force ? EncodingName(*force) : "default");
    FragmentWriterOptions o;
    o.max_page_rows = 32;
    o.force_encoding = force;
    if (force == Encoding::kPlain) o.allow_encodings = false;
    FragmentWriter w(small.schema(), o);
    ASSERT_TRUE(w.Append(small).ok());
    auto good = w.Finish();
    ASSERT_TRUE(good.ok());
    auto [ok, corrupt] = FlipEveryPageByte(*good, small, rows, /*reseal=*/false);
    EXPECT_EQ(ok, 0u);  // every page holds a requested row
    EXPECT_GT(corrupt, 0u);
    std::tie(ok, corrupt) = FlipEveryPageByte(*good, small, rows, /*reseal=*/true);
    EXPECT_GT(corrupt, 0u);  // structure checks
    EXPECT_GT(ok, 0u);       // value bytes that stay well-formed: checksum-valid data is data
  }
  // Plain pages of several chunks: flips of the chunks the take does not use change nothing.
  const Batch large = NamesAndScores(1000);
  FragmentWriter w(large.schema());
  ASSERT_TRUE(w.Append(large).ok());
  auto good = w.Finish();
  ASSERT_TRUE(good.ok());
  const std::vector<uint64_t> few = {5, 777, 998};
  auto [ok, corrupt] = FlipEveryPageByte(*good, large, few, /*reseal=*/false);
  EXPECT_GT(corrupt, 0u);
  EXPECT_GT(ok, 10000u);
}

TEST(RangedTakeTest, DictionaryCountFlipIsCorrupt) {
  Schema s = *Schema::Make({{1, "kind", DataType::Scalar(TypeKind::kString), true}});
  ColumnBuilder b(s.field(0).type);
  for (size_t i = 0; i < 60000; ++i) b.AppendString("kind-" + std::to_string(i % 300));
  Batch batch = *Batch::Make(s, {b.Finish()});
  FragmentWriter w(s);
  ASSERT_TRUE(w.Append(batch).ok());
  auto good = w.Finish();
  ASSERT_TRUE(good.ok());
  io::MemoryStore mem;
  ASSERT_TRUE(mem.Put("f.ogf", *good).ok());
  auto reader = OpenOrDie(mem, "f.ogf", {});
  ASSERT_NE(reader, nullptr);
  const PageInfo& page = reader->metadata().columns[0].pages[0];
  ASSERT_EQ(page.encoding, Encoding::kDictionary);
  ASSERT_GE(page.stored_length, 16u * 1024);
  std::vector<uint64_t> rows = {59999, 3, 4000};
  auto got = reader->Take(std::vector<FieldId>{1}, rows);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->Equals(batch.Take(rows)));
  // u8 flags, u8 encoding, u32 count: a changed count misplaces every part of the page.
  for (uint64_t b = 0; b < 4; ++b) {
    std::string bad = *good;
    bad[page.offset + 2 + b] = static_cast<char>(bad[page.offset + 2 + b] ^ 1);
    EXPECT_EQ(TakeFrom(mem, bad, rows).category(), StatusCode::kCorrupt) << b;
  }
}

TEST(RangedTakeTest, ReadsVersion1Files) {
  const Batch batch = testing::AllTypesBatch(300);
  io::MemoryStore store;
  FragmentWriterOptions o;
  o.format_version = 1;
  ASSERT_TRUE(WriteFragment(store, "v1.ogf", batch, o).ok());
  auto r = OpenOrDie(store, "v1.ogf", ForcedRanged());
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->format_version(), 1);
  auto all = r->ReadAll(batch.schema().field_ids());
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->Equals(batch));
  std::vector<uint64_t> rows = {299, 0, 150, 150};
  auto t = r->Take(batch.schema().field_ids(), rows);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->Equals(batch.Take(rows)));
  EXPECT_TRUE(r->Verify().ok());
  for (uint16_t bad : {uint16_t{0}, uint16_t{kFragmentFormatVersion + 1}}) {
    o.format_version = bad;
    EXPECT_EQ(WriteFragment(store, "bad.ogf", batch, o).status().category(), StatusCode::kInvalidArgument);
  }
  ASSERT_TRUE(WriteFragment(store, "v2.ogf", batch).ok());
  EXPECT_EQ(OpenOrDie(store, "v2.ogf", {})->format_version(), kFragmentFormatVersion);
}

}  // namespace
}  // namespace omnigraph::format
