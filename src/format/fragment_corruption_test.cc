// The byte-flip test of issue 3: every single-byte corruption of a fragment is either harmless
// (the byte is not interpreted, reads return exactly the right data) or reported as kCorrupt.
#include <gtest/gtest.h>

#include "common/error_codes.h"
#include "format/format_test_util.h"
#include "format/fragment_reader.h"
#include "format/fragment_writer.h"
#include "io/memory_store.h"

namespace omnigraph::format {
namespace {

struct FlipOutcome {
  size_t harmless = 0;
  size_t corrupt = 0;
};

// Opens and reads `bytes` in several ways; every result must be right or kCorrupt.
void CheckAllReads(io::MemoryStore& store, const std::string& bytes, const Batch& want, const FragmentOpenOptions& oo,
                   size_t at, FlipOutcome* out) {
  ASSERT_TRUE(store.Put("f.ogf", bytes).ok());
  bool any_corrupt = false;
  auto check = [&](const Status& s) {
    ASSERT_EQ(s.category(), StatusCode::kCorrupt) << "flip at " << at << ": " << s.ToString();
    EXPECT_NE(s.message().find("f.ogf"), std::string::npos) << s.message();
    any_corrupt = true;
  };
  auto r = FragmentReader::Open(store, "f.ogf", oo);
  if (!r.ok()) {
    check(r.status());
    ++out->corrupt;
    return;
  }
  auto ids = want.schema().field_ids();
  auto all = (*r)->ReadAll(ids);
  if (all.ok()) {
    ASSERT_TRUE(all->Equals(want)) << "flip at " << at << " returned wrong data";
  } else {
    check(all.status());
    EXPECT_NE(all.status().message().find("page"), std::string::npos) << all.status().message();
  }
  std::vector<uint64_t> rows = {4, 0, 2};
  auto t = (*r)->Take(ids, rows);
  if (t.ok()) {
    ASSERT_TRUE(t->Equals(want.Take(rows))) << "flip at " << at;
  } else {
    check(t.status());
  }
  Status v = (*r)->Verify();
  if (!v.ok()) check(v);
  if (any_corrupt) {
    ++out->corrupt;
  } else {
    ++out->harmless;
  }
}

void FlipEveryByte(const FragmentWriterOptions& wo, const FragmentOpenOptions& oo_in) {
  io::MemoryStore store;
  Batch want = testing::AllTypesBatch(6);
  FragmentInfo info;
  FragmentWriter w(want.schema(), wo);
  ASSERT_TRUE(w.Append(want).ok());
  auto bytes = w.Finish(&info);
  ASSERT_TRUE(bytes.ok());
  FlipOutcome outcome;
  for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}}) {
    for (size_t i = 0; i < bytes->size(); ++i) {
      std::string bad = *bytes;
      bad[i] = static_cast<char>(bad[i] ^ mask);
      FragmentOpenOptions oo = oo_in;
      if (oo.file_size) oo.file_size = bad.size();
      CheckAllReads(store, bad, want, oo, i, &outcome);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  // Every byte outside the 16-byte header is interpreted (and checksummed).
  EXPECT_EQ(outcome.corrupt, 2 * bytes->size()) << "harmless flips: " << outcome.harmless;
}

TEST(FragmentCorruptionTest, EveryFlippedByteIsDetectedPlain) {
  FragmentWriterOptions wo;
  wo.allow_encodings = false;
  FlipEveryByte(wo, {});
}

TEST(FragmentCorruptionTest, EveryFlippedByteIsDetectedEncodedAndCompressed) {
  FragmentWriterOptions wo;
  wo.compression = Compression::kZstd;
  wo.max_page_rows = 4;
  FlipEveryByte(wo, {});
  wo.compression = Compression::kLz4;
  wo.force_encoding = Encoding::kDictionary;
  FragmentOpenOptions small_tail;  // two ranged reads on open
  small_tail.tail_size_hint = 40;
  FlipEveryByte(wo, small_tail);
}

TEST(FragmentCorruptionTest, TruncatedFilesAreCorrupt) {
  io::MemoryStore store;
  Batch want = testing::AllTypesBatch(6);
  FragmentWriter w(want.schema());
  ASSERT_TRUE(w.Append(want).ok());
  auto bytes = w.Finish();
  ASSERT_TRUE(bytes.ok());
  for (size_t len : {size_t{0}, size_t{10}, size_t{39}, bytes->size() / 2, bytes->size() - 1}) {
    ASSERT_TRUE(store.Put("f.ogf", bytes->substr(0, len)).ok());
    EXPECT_EQ(FragmentReader::Open(store, "f.ogf").status().category(), StatusCode::kCorrupt) << len;
  }
  ASSERT_TRUE(store.Put("f.ogf", *bytes + "x").ok());
  EXPECT_EQ(FragmentReader::Open(store, "f.ogf").status().category(), StatusCode::kCorrupt);
}

}  // namespace
}  // namespace omnigraph::format
