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
