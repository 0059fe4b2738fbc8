#include "format/fragment_reader.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "common/error_codes.h"
#include "format/column_builder.h"
#include "format/format_test_util.h"
#include "format/fragment_writer.h"
#include "io/counting_store.h"
#include "io/latency_store.h"
#include "io/memory_store.h"

namespace omnigraph::format {
namespace {

class FragmentReaderTest : public ::testing::Test {
 protected:
  std::shared_ptr<io::MemoryStore> mem_ = std::make_shared<io::MemoryStore>();
  io::CountingStore store_{mem_};

  std::unique_ptr<FragmentReader> WriteAndOpen(const Batch& batch, const FragmentWriterOptions& o,
                                               FragmentInfo* info_out = nullptr) {
    auto info = WriteFragment(store_, "t/data/f.ogf", batch, o);
    EXPECT_TRUE(info.ok()) << info.status().ToString();
    if (info_out) *info_out = *info;
    auto r = FragmentReader::Open(store_, "t/data/f.ogf");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(*r) : nullptr;
  }
};

void ExpectBatchEq(const Batch& got, const Batch& want) {
  ASSERT_EQ(got.num_rows(), want.num_rows());
  ASSERT_TRUE(got.schema() == want.schema()) << got.schema().ToString();
  for (size_t c = 0; c < want.num_columns(); ++c) {
    for (size_t r = 0; r < want.num_rows(); ++r) {
      ASSERT_EQ(got.GetValue(r, c).ToString(), want.GetValue(r, c).ToString())
          << want.schema().field(c).name << " row " << r;
    }
    EXPECT_TRUE(got.column(c).Equals(want.column(c))) << want.schema().field(c).name;
  }
}

TEST_F(FragmentReaderTest, EveryTypeRoundTrips) {
  for (size_t rows : {size_t{0}, size_t{1}, size_t{57}}) {
    for (Compression comp : {Compression::kNone, Compression::kZstd, Compression::kLz4}) {
      for (bool enc : {true, false}) {
        mem_ = std::make_shared<io::MemoryStore>();
        io::CountingStore store(mem_);
        Batch batch = testing::AllTypesBatch(rows);
        FragmentWriterOptions o;
        o.compression = comp;
        o.allow_encodings = enc;
        ASSERT_TRUE(WriteFragment(store, "f.ogf", batch, o).ok());
        auto r = FragmentReader::Open(store, "f.ogf");
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        EXPECT_EQ((*r)->num_rows(), rows);
        EXPECT_TRUE((*r)->schema() == batch.schema());
        auto got = (*r)->ReadAll(batch.schema().field_ids());
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        ExpectBatchEq(*got, batch);
        EXPECT_TRUE((*r)->Verify().ok());
      }
    }
  }
}

TEST_F(FragmentReaderTest, MultiPageColumnsAndRowRanges) {
  Batch batch = testing::AllTypesBatch(1000);
  FragmentWriterOptions o;
  o.target_page_bytes = 512;
  o.max_page_rows = 100;
  auto r = WriteAndOpen(batch, o);
  ASSERT_NE(r, nullptr);
  for (const auto& chunk : r->metadata().columns) EXPECT_GE(chunk.pages.size(), 10u);
  auto ids = batch.schema().field_ids();
  auto all = r->ReadAll(ids);
  ASSERT_TRUE(all.ok());
  ExpectBatchEq(*all, batch);
  for (auto [b, e] : {std::pair<uint64_t, uint64_t>{0, 1}, {99, 101}, {250, 733}, {999, 1000}, {500, 500}}) {
    auto part = r->Read(ids, b, e);
    ASSERT_TRUE(part.ok()) << part.status().ToString();
    ExpectBatchEq(*part, batch.Slice(b, e - b));
  }
  EXPECT_EQ(r->Read(ids, 5, 1001).status().category(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r->Read(ids, 6, 5).status().category(), StatusCode::kInvalidArgument);
  std::vector<FieldId> bad = {99};
  EXPECT_EQ(r->ReadAll(bad).status().category(), StatusCode::kNotFound);
}

TEST_F(FragmentReaderTest, OpenIsOneRangedReadAndProjectionReadsOnlyItsColumns) {
  Batch batch = testing::AllTypesBatch(3000);
  FragmentWriterOptions o;
  o.target_page_bytes = 2048;
  FragmentInfo info;
  ASSERT_TRUE(WriteFragment(store_, "f.ogf", batch, o).ok());
  auto fi = WriteFragment(store_, "g.ogf", batch, o);
  ASSERT_TRUE(fi.ok());
  info = *fi;
  store_.Reset();
  FragmentOpenOptions oo;
  oo.file_size = info.file_size;
  oo.tail_size_hint = info.tail_size;
  auto r = FragmentReader::Open(store_, "g.ogf", oo);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(store_.counts().total(), 1u) << store_.counts().ToString();
  EXPECT_EQ(store_.counts().of(io::StoreOp::kGetRange), 1u);

  // Small first guess: exactly one extra ranged read; no size given: one Head.
  store_.Reset();
  oo.tail_size_hint = 100;
  ASSERT_TRUE(FragmentReader::Open(store_, "g.ogf", oo).ok());
  EXPECT_EQ(store_.counts().of(io::StoreOp::kGetRange), 2u);
  store_.Reset();
  ASSERT_TRUE(FragmentReader::Open(store_, "g.ogf").ok());
  EXPECT_EQ(store_.counts().of(io::StoreOp::kHead), 1u);
  EXPECT_EQ(store_.counts().of(io::StoreOp::kGetRange), 1u);

  // One column: one GetRange (its pages are contiguous) and only its bytes.
  std::vector<FieldId> one = {5};
  const auto& pages = (*r)->metadata().columns[4].pages;
  ASSERT_GT(pages.size(), 3u);
  uint64_t col_bytes = 0;
  for (const auto& p : pages) col_bytes += p.stored_length + p.checksums_length;
  store_.Reset();
  auto got = (*r)->ReadAll(one);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(store_.counts().total(), 1u);
  EXPECT_EQ(store_.counts().bytes_read, col_bytes);
  EXPECT_EQ(got->GetValue(17, 0).ToString(), batch.GetValue(17, 4).ToString());

  // A row range inside one page reads just that page.
  store_.Reset();
  ASSERT_TRUE((*r)->Read(one, pages[2].first_row, pages[2].first_row + 1).ok());
  EXPECT_EQ(store_.counts().bytes_read, pages[2].stored_length + pages[2].checksums_length);

  // Three columns: one request each, issued together (one round), when they lie further apart than
  // the coalescing gap...
  std::vector<FieldId> three = {1, 9, 13};
  FragmentOpenOptions apart = oo;
  apart.page_coalesce_gap = 0;
  auto r0 = FragmentReader::Open(store_, "g.ogf", apart);
  ASSERT_TRUE(r0.ok());
  store_.Reset();
  auto g3 = (*r0)->ReadAll(three);
  ASSERT_TRUE(g3.ok());
  EXPECT_EQ(store_.counts().total(), 3u);
  // ...and fewer when some gaps between them are smaller than the default gap.
  store_.Reset();
  auto g3c = (*r)->ReadAll(three);
  ASSERT_TRUE(g3c.ok());
  EXPECT_LT(store_.counts().total(), 3u);
  for (size_t c = 0; c < three.size(); ++c) {
    EXPECT_EQ(g3c->GetValue(2999, c).ToString(), g3->GetValue(2999, c).ToString());
  }
  std::vector<FieldId> none;
  auto g0 = (*r)->ReadAll(none);
  ASSERT_TRUE(g0.ok());
  EXPECT_EQ(g0->num_rows(), 3000u);
}

// On object storage a read costs round trips, not requests: the pages of every column of one
// Read, and the whole pages of every column of one Take, are fetched in one round.
TEST_F(FragmentReaderTest, ColumnsOfOneReadAreFetchedInOneRound) {
  Batch batch = testing::AllTypesBatch(3000);
  FragmentWriterOptions o;
  o.target_page_bytes = 2048;
  ASSERT_TRUE(WriteFragment(*mem_, "g.ogf", batch, o).ok());
  auto slow = std::make_shared<io::LatencyStore>(mem_, 20000);
  io::CountingStore counted(slow);
  FragmentOpenOptions apart;
  apart.page_coalesce_gap = 0;
  auto r = FragmentReader::Open(counted, "g.ogf", apart);
  ASSERT_TRUE(r.ok());
  std::vector<FieldId> three = {1, 9, 13};
  counted.Reset();
  slow->ResetRounds();
  auto all = (*r)->ReadAll(three);
  ASSERT_TRUE(all.ok());
  EXPECT_GE(counted.counts().total(), 3u);
  EXPECT_EQ(slow->sequential_rounds(), 1u) << counted.counts().ToString();
  std::vector<uint64_t> rows = {7, 1500, 2999};
  auto fresh = FragmentReader::Open(counted, "g.ogf", apart);
  ASSERT_TRUE(fresh.ok());
  counted.Reset();
  slow->ResetRounds();
  auto took = (*fresh)->Take(three, rows);
  ASSERT_TRUE(took.ok());
  EXPECT_GE(counted.counts().total(), 3u);
  EXPECT_EQ(slow->sequential_rounds(), 1u) << counted.counts().ToString();
  ExpectBatchEq(*took, all->Take(rows));
}

TEST_F(FragmentReaderTest, TakeReadsOnlyPagesHoldingTheRows) {
  Batch batch = testing::AllTypesBatch(2000);
  FragmentWriterOptions o;
  o.max_page_rows = 100;
  auto r = WriteAndOpen(batch, o);
  ASSERT_NE(r, nullptr);
  std::vector<uint64_t> rows = {1999, 5, 5, 150, 151, 0, 1000};
  auto ids = batch.schema().field_ids();
  auto got = r->Take(ids, rows);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectBatchEq(*got, batch.Take(rows));
  std::vector<FieldId> one = {4};
  const auto& pages = r->metadata().columns[3].pages;
  ASSERT_EQ(pages.size(), 20u);
  std::vector<uint64_t> few = {150, 1999, 120};
  store_.Reset();
  FragmentOpenOptions no_gap;  // pages 1 and 19 are fetched apart (one round, two requests)
  no_gap.page_coalesce_gap = 0;
  auto fresh = FragmentReader::Open(store_, "t/data/f.ogf", no_gap);  // empty page cache
  ASSERT_TRUE(fresh.ok());
  store_.Reset();
  ASSERT_TRUE((*fresh)->Take(one, few).ok());
  EXPECT_EQ(store_.counts().total(), 2u);
  EXPECT_EQ(store_.counts().bytes_read,
            pages[1].file_end() - pages[1].offset + pages[19].file_end() - pages[19].offset);
  // The last decoded page (19) is cached: taking from it again costs nothing.
  store_.Reset();
  std::vector<uint64_t> again = {1950};
  auto t2 = (*fresh)->Take(one, again);
  ASSERT_TRUE(t2.ok());
  EXPECT_EQ(store_.counts().total(), 0u);
  EXPECT_EQ(t2->GetValue(0, 0).ToString(), batch.GetValue(1950, 3).ToString());
  std::vector<uint64_t> adjacent = {250, 310};  // pages 2 and 3: one request
  store_.Reset();
  ASSERT_TRUE(r->Take(one, adjacent).ok());
  EXPECT_EQ(store_.counts().total(), 1u);
  std::vector<uint64_t> out_of_range = {2000};
  EXPECT_EQ(r->Take(one, out_of_range).status().category(), StatusCode::kInvalidArgument);
}

TEST_F(FragmentReaderTest, SequentialBatchesFetchEachPageOnce) {
  Batch batch = testing::AllTypesBatch(3000);
  FragmentWriterOptions o;
  o.max_page_rows = 1000;
  auto r = WriteAndOpen(batch, o);
  ASSERT_NE(r, nullptr);
  std::vector<FieldId> one = {5};
  store_.Reset();
  for (uint64_t b = 0; b < 3000; b += 300) {  // batch boundaries inside pages
    auto part = r->Read(one, b, std::min<uint64_t>(3000, b + 300));
    ASSERT_TRUE(part.ok());
    ExpectBatchEq(*part, batch.Select(one)->Slice(b, std::min<uint64_t>(3000, b + 300) - b));
  }
  EXPECT_EQ(store_.counts().total(), 3u) << store_.counts().ToString();
}

TEST_F(FragmentReaderTest, ConcurrentReadsOfOneReader) {
  Batch batch = testing::AllTypesBatch(2000);
  FragmentWriterOptions o;
  o.max_page_rows = 128;
  auto r = WriteAndOpen(batch, o);
  ASSERT_NE(r, nullptr);
  auto ids = batch.schema().field_ids();
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t b = t * 37; b + 200 <= 2000; b += 190) {
        auto part = r->Read(ids, b, b + 200);
        if (!part.ok() || !part->Equals(batch.Slice(b, 200))) ++failures;
        std::vector<uint64_t> rows = {b, 1999 - b, b + 150};
        auto t2 = r->Take(ids, rows);
        if (!t2.ok() || !t2->Equals(batch.Take(rows))) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(FragmentReaderTest, ReadPagesAndStatistics) {
  Schema s = *Schema::Make(
      {{1, "x", DataType::Scalar(TypeKind::kI64), true}, {2, "f", DataType::Scalar(TypeKind::kF64), true}});
  ColumnBuilder xb(s.field(0).type), fb(s.field(1).type);
  for (int64_t i = 0; i < 1000; ++i) {
    if (i % 10 == 0) {
      xb.AppendNull();
    } else {
      xb.AppendI64(i * 2);
    }
    fb.AppendF64(i == 7 ? std::nan("") : -static_cast<double>(i));
  }
  Batch batch = *Batch::Make(s, {xb.Finish(), fb.Finish()});
  FragmentWriterOptions o;
  o.max_page_rows = 250;
  FragmentInfo info;
  auto r = WriteAndOpen(batch, o, &info);
  ASSERT_NE(r, nullptr);
  const auto& pages = r->metadata().columns[0].pages;
  ASSERT_EQ(pages.size(), 4u);
  EXPECT_EQ(pages[1].first_row, 250u);
  EXPECT_EQ(pages[1].stats.null_count, 25u);
  EXPECT_EQ(pages[1].stats.min->int_value(), 251 * 2);
  EXPECT_EQ(pages[1].stats.max->int_value(), 499 * 2);
  EXPECT_EQ(r->metadata().columns[0].stats.null_count, 100u);
  EXPECT_EQ(r->metadata().columns[0].stats.max->int_value(), 999 * 2);
  const auto& fs = r->metadata().columns[1].stats;
  EXPECT_EQ(fs.nan_count, 1u);
  EXPECT_EQ(fs.min->float_value(), -999.0);
  EXPECT_EQ(fs.max->float_value(), 0.0);
  ASSERT_EQ(info.stats.size(), 2u);
  EXPECT_TRUE(info.stats[0] == r->metadata().columns[0].stats);
  auto p = r->ReadPages(0, 2, 4);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->Equals(batch.column(0).Slice(500, 500)));
  EXPECT_FALSE(r->ReadPages(0, 3, 3).ok());
  EXPECT_FALSE(r->ReadPages(0, 3, 5).ok());
}

TEST_F(FragmentReaderTest, ErrorsAreTyped) {
  EXPECT_EQ(FragmentReader::Open(store_, "missing.ogf").status().category(), StatusCode::kNotFound);
  ASSERT_TRUE(store_.Put("tiny.ogf", "abc").ok());
  EXPECT_EQ(FragmentReader::Open(store_, "tiny.ogf").status().category(), StatusCode::kCorrupt);
  ASSERT_TRUE(store_.Put("junk.ogf", std::string(100, 'x')).ok());
  EXPECT_EQ(FragmentReader::Open(store_, "junk.ogf").status().category(), StatusCode::kCorrupt);
  Batch batch = testing::AllTypesBatch(5);
  auto info = WriteFragment(store_, "a.ogf", batch);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(WriteFragment(store_, "a.ogf", batch).status().category(), StatusCode::kAlreadyExists);
  FragmentOpenOptions wrong;
  wrong.file_size = info->file_size + 10;
  EXPECT_EQ(FragmentReader::Open(store_, "a.ogf", wrong).status().category(), StatusCode::kCorrupt);
  FragmentWriter w(batch.schema());
  EXPECT_FALSE(w.Append(testing::AllTypesBatch(2).Select(std::vector<FieldId>{1}).value()).ok());
  ASSERT_TRUE(w.Append(batch).ok());
  ASSERT_TRUE(w.Finish().ok());
  EXPECT_FALSE(w.Finish().ok());
  EXPECT_FALSE(w.Append(batch).ok());
}

}  // namespace
}  // namespace omnigraph::format
