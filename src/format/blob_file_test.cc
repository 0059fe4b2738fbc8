#include "format/blob_file.h"

#include <gtest/gtest.h>

#include "common/error_codes.h"
#include "io/counting_store.h"
#include "io/memory_store.h"

namespace omnigraph::format {
namespace {

TEST(BlobFileTest, RoundTripByRange) {
  auto mem = std::make_shared<io::MemoryStore>();
  io::CountingStore store(mem);
  BlobFileWriter w("t/blob/01.blob");
  std::vector<std::string> payloads = {"hello", "", std::string(100000, '\x00'), "ünïcödé", "z"};
  std::vector<BlobDescriptor> descs;
  for (const auto& p : payloads) descs.push_back(w.Add(p));
  EXPECT_EQ(w.num_blobs(), payloads.size());
  ASSERT_TRUE(w.WriteTo(store).ok());
  for (size_t i = 0; i < payloads.size(); ++i) {
    store.Reset();
    auto got = BlobFileReader::Read(store, descs[i]);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, payloads[i]);
    EXPECT_EQ(store.counts().total(), 1u);
    auto enc = BlobDescriptor::Decode(descs[i].Encode());
    ASSERT_TRUE(enc.ok());
    EXPECT_EQ(*enc, descs[i]);
  }
  store.Reset();
  auto many = BlobFileReader::ReadMany(store, descs);
  ASSERT_TRUE(many.ok());
  EXPECT_EQ(*many, payloads);
  EXPECT_EQ(store.counts().total(), 1u);  // adjacent: one request
  std::vector<BlobDescriptor> gaps = {descs[4], descs[0], descs[3]};
  auto some = BlobFileReader::ReadMany(store, gaps);
  ASSERT_TRUE(some.ok());
  EXPECT_EQ((*some)[1], "hello");
  auto whole = store.Get("t/blob/01.blob");
  ASSERT_TRUE(whole.ok());
  EXPECT_TRUE(BlobFileReader::Verify(*whole, "t/blob/01.blob").ok());
}

TEST(BlobFileTest, CorruptionAndBadDescriptors) {
  io::MemoryStore store;
  BlobFileWriter w("b.blob");
  BlobDescriptor d1 = w.Add("first payload");
  BlobDescriptor d2 = w.Add("second");
  std::string bytes = w.Finish();
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    ASSERT_TRUE(store.Put("b.blob", bad).ok());
    for (const auto& d : {d1, d2}) {
      auto r = BlobFileReader::Read(store, d);
      if (r.ok()) {
        EXPECT_EQ(*r, d.offset == d1.offset ? "first payload" : "second") << "flip at " << i;
      } else {
        EXPECT_EQ(r.status().category(), StatusCode::kCorrupt) << r.status().ToString();
        EXPECT_NE(r.status().message().find("b.blob"), std::string::npos);
      }
    }
    EXPECT_EQ(BlobFileReader::Verify(bad, "b.blob").category(), StatusCode::kCorrupt) << i;
  }
  ASSERT_TRUE(store.Put("b.blob", bytes).ok());
  BlobDescriptor wrong_len = d1;
  wrong_len.length += 1;
  EXPECT_EQ(BlobFileReader::Read(store, wrong_len).status().category(), StatusCode::kCorrupt);
  BlobDescriptor past_end = d2;
  past_end.offset = 1000;
  EXPECT_EQ(BlobFileReader::Read(store, past_end).status().category(), StatusCode::kCorrupt);
  BlobDescriptor no_file = d1;
  no_file.file.clear();
  EXPECT_EQ(BlobFileReader::Read(store, no_file).status().category(), StatusCode::kInvalidArgument);
  BlobDescriptor missing = d1;
  missing.file = "other.blob";
  EXPECT_EQ(BlobFileReader::Read(store, missing).status().category(), StatusCode::kNotFound);
  EXPECT_EQ(BlobDescriptor::Decode("short").status().category(), StatusCode::kCorrupt);
}

}  // namespace
}  // namespace omnigraph::format
