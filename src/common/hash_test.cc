#include <gtest/gtest.h>

#include "common/hash.h"

namespace omnigraph {
namespace {

TEST(HashTest, Sha256KnownVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(HashTest, XxHash64KnownVectors) {
  EXPECT_EQ(XxHash64("", 0), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(XxHash64("abc", 0), 0x44BC2CF5AD770999ULL);
  EXPECT_NE(XxHash64("abc", 1), XxHash64("abc", 0));
}

TEST(HashTest, XxHash64StreamEqualsOneShot) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data += std::to_string(i * 7919) + ",";
  for (uint64_t seed : {uint64_t{0}, uint64_t{42}}) {
    for (size_t cut : {size_t{0}, size_t{1}, size_t{31}, size_t{32}, data.size() / 2, data.size()}) {
      XxHash64Stream h(seed);
      h.Update(std::string_view(data).substr(0, cut));
      h.Update("");
      h.Update(std::string_view(data).substr(cut));
      EXPECT_EQ(h.Digest(), XxHash64(data, seed)) << "seed " << seed << " cut " << cut;
    }
  }
  EXPECT_EQ(XxHash64Stream().Digest(), XxHash64(""));
}

TEST(HashTest, HexRoundTrip) {
  std::string raw("\x00\x01\xfe\xff review/2026", 16);
  std::string back;
  ASSERT_TRUE(HexDecode(HexEncode(raw), &back));
  EXPECT_EQ(back, raw);
  EXPECT_FALSE(HexDecode("abc", &back));
  EXPECT_FALSE(HexDecode("zz", &back));
}

}  // namespace
}  // namespace omnigraph

#include "common/base64.h"

namespace omnigraph {
namespace {
TEST(Base64Test, RoundTripAndRejects) {
  for (std::string s : {std::string(""), std::string("f"), std::string("fo"), std::string("foo"), std::string("foob"),
                        std::string("\x00\xff\x10", 3)}) {
    std::string back;
    ASSERT_TRUE(Base64Decode(Base64Encode(s), &back)) << s;
    EXPECT_EQ(back, s);
  }
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  std::string out;
  EXPECT_FALSE(Base64Decode("Zm8", &out));
  EXPECT_FALSE(Base64Decode("Zm!=", &out));
  EXPECT_FALSE(Base64Decode("Z=8=", &out));
  EXPECT_FALSE(Base64Decode("Zm==Zm==", &out));
}
}  // namespace
}  // namespace omnigraph
