#include <gtest/gtest.h>

#include <string>

#include "common/little_endian.h"

namespace omnigraph {
namespace {

TEST(LittleEndianTest, LoadsLeastSignificantByteFirst) {
  const std::string b("\x01\x02\x03\x04\x05\x06\x07\x08\x09", 9);
  EXPECT_EQ(LoadLe32(b.data()), 0x04030201u);
  EXPECT_EQ(LoadLe64(b.data()), 0x0807060504030201ull);
  // Unaligned offsets.
  EXPECT_EQ(LoadLe32(b, 1), 0x05040302u);
  EXPECT_EQ(LoadLe64(b, 1), 0x0908070605040302ull);
}

TEST(LittleEndianTest, StoreAndAppendRoundTrip) {
  char buf[13] = {};
  StoreLe32(buf + 1, 0xA1B2C3D4u);
  StoreLe64(buf + 5, 0x0123456789ABCDEFull);
  EXPECT_EQ(static_cast<unsigned char>(buf[1]), 0xD4);
  EXPECT_EQ(static_cast<unsigned char>(buf[4]), 0xA1);
  EXPECT_EQ(static_cast<unsigned char>(buf[5]), 0xEF);
  EXPECT_EQ(LoadLe32(buf + 1), 0xA1B2C3D4u);
  EXPECT_EQ(LoadLe64(buf + 5), 0x0123456789ABCDEFull);

  std::string out = "x";
  AppendLe32(&out, 0xA1B2C3D4u);
  AppendLe64(&out, 0x0123456789ABCDEFull);
  ASSERT_EQ(out.size(), 13u);
  EXPECT_EQ(out, std::string(buf, 13).replace(0, 1, "x"));
  EXPECT_EQ(LoadLe32(out, 1), 0xA1B2C3D4u);
  EXPECT_EQ(LoadLe64(out, 5), 0x0123456789ABCDEFull);
}

}  // namespace
}  // namespace omnigraph
