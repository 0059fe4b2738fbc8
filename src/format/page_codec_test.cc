// Hostile-input robustness of the page decoder (the checksums are bypassed here): every
// truncation and byte mutation of a valid page body decodes to a well-formed column or fails
// with kCorrupt, never crashes or reads out of bounds.
#include "format/page_codec.h"

#include <gtest/gtest.h>

#include <random>

#include "common/error_codes.h"
#include "format/format_test_util.h"

namespace omnigraph::format::internal {
namespace {

void TouchEveryCell(const Column& c) {
  // (Not Value::ToString: it throws on invalid UTF-8, which mutated string bytes may be.)
  for (size_t i = 0; i < c.length(); ++i) {
    Value v = c.GetValue(i);
    EXPECT_TRUE(v.Compare(v) == 0 || v.kind() == TypeKind::kF32 || v.kind() == TypeKind::kF64);
  }
  EXPECT_TRUE(c.Equals(c));
}

TEST(PageCodecTest, RoundTripAndMutationsOfEveryType) {
  Batch batch = testing::AllTypesBatch(30);
  std::vector<EncodeOptions> variants(6);
  variants[1].allow_encodings = false;
  variants[5].allow_encodings = false;
  variants[5].version = 1;  // plain strings as lengths
  variants[2].force_encoding = Encoding::kDictionary;
  variants[3].force_encoding = Encoding::kRle;
  variants[4].force_encoding = Encoding::kBitPacked;
  size_t corrupt = 0, ok = 0;
  for (const EncodeOptions& opt : variants) {
    for (size_t c = 0; c < batch.num_columns(); ++c) {
      const Column& col = batch.column(c);
      std::string body;
      EncodeColumnBody(col, opt, &body);
      auto back = DecodeColumnBody(body, col.type(), col.length(), opt.version);
      ASSERT_TRUE(back.ok()) << col.type().ToString() << ": " << back.status().ToString();
      ASSERT_TRUE(back->Equals(col)) << col.type().ToString();
      for (size_t len = 0; len < body.size(); ++len) {
        auto r = DecodeColumnBody(body.substr(0, len), col.type(), col.length(), opt.version);
        ASSERT_FALSE(r.ok()) << col.type().ToString() << " truncated to " << len;
        ASSERT_EQ(r.status().category(), StatusCode::kCorrupt);
      }
      for (size_t i = 0; i < body.size(); ++i) {
        for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x10}, uint8_t{0xff}}) {
          std::string bad = body;
          bad[i] = static_cast<char>(bad[i] ^ mask);
          auto r = DecodeColumnBody(bad, col.type(), col.length(), opt.version);
          if (r.ok()) {
            ASSERT_EQ(r->length(), col.length());
            TouchEveryCell(*r);
            ++ok;
          } else {
            ASSERT_EQ(r.status().category(), StatusCode::kCorrupt) << r.status().ToString();
            ++corrupt;
          }
        }
      }
    }
  }
  EXPECT_GT(corrupt, 0u);
  EXPECT_GT(ok, 0u);  // value bytes decode to other values: only checksums catch those
}

TEST(PageCodecTest, RandomBytesNeverCrash) {
  std::mt19937_64 rng(42);
  Schema schema = testing::AllTypesSchema();
  for (int iter = 0; iter < 3000; ++iter) {
    std::string junk(rng() % 64, '\0');
    for (char& ch : junk) ch = static_cast<char>(rng());
    const DataType& t = schema.field(iter % schema.num_fields()).type;
    auto r = DecodeColumnBody(junk, t, rng() % 9, static_cast<uint16_t>(1 + iter % 2));
    if (r.ok()) {
      TouchEveryCell(*r);
    } else {
      ASSERT_EQ(r.status().category(), StatusCode::kCorrupt);
    }
  }
}

TEST(PageCodecTest, DecompressRejectsBadInput) {
  std::string raw(5000, 'a');
  for (Compression c : {Compression::kZstd, Compression::kLz4}) {
    std::string packed;
    ASSERT_TRUE(CompressPage(c, 3, raw, &packed));
    auto back = DecompressPage(c, packed, raw.size());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, raw);
    EXPECT_EQ(DecompressPage(c, packed, raw.size() + 1).status().category(), StatusCode::kCorrupt);
    EXPECT_EQ(DecompressPage(c, packed.substr(0, packed.size() / 2), raw.size()).status().category(),
              StatusCode::kCorrupt);
  }
  EXPECT_EQ(DecompressPage(Compression::kNone, "abc", 4).status().category(), StatusCode::kCorrupt);
}

// Large string pages: mostly distinct values skip the dictionary attempt (a strided sample
// decides), few distinct values still get the dictionary; both round trip.
TEST(PageCodecTest, LargeStringPagesChooseDictionaryByCardinality) {
  auto page = [](size_t rows, int distinct) {
    std::mt19937 rng(3);
    std::vector<Value> v;
    for (size_t i = 0; i < rows; ++i) {
      // distinct < 0: runs of -distinct equal values (1024 distinct in 4096 rows, stride 4).
      const size_t k = distinct < 0                         ? i / static_cast<size_t>(-distinct)
                       : distinct == static_cast<int>(rows) ? i
                                                            : rng() % static_cast<size_t>(distinct);
      v.push_back(Value::String("value-" + std::to_string(k)));
    }
    return *Column::FromValues(DataType::Scalar(TypeKind::kString), v);
  };
  const EncodeOptions opt;
  for (auto [rows, distinct, expected] :
       {std::tuple{5000, 5000, Encoding::kPlain}, std::tuple{5000, 12, Encoding::kDictionary},
        std::tuple{5000, 1000, Encoding::kDictionary}, std::tuple{4096, -4, Encoding::kDictionary}}) {
    const Column col = page(static_cast<size_t>(rows), distinct);
    std::string body;
    EXPECT_EQ(EncodeColumnBody(col, opt, &body), expected) << distinct;
    auto back = DecodeColumnBody(body, col.type(), col.length(), opt.version);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(back->Equals(col));
  }
}

}  // namespace
}  // namespace omnigraph::format::internal
