#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "common/output_json.h"
#include "omnigraph/value.h"

namespace omnigraph {
namespace {

TEST(ValueTest, CanonicalKeyStrings) {
  EXPECT_EQ(*CanonicalKeyString(Value::String("Ada")), "Ada");
  EXPECT_EQ(*CanonicalKeyString(Value::I64(-42)), "-42");
  EXPECT_EQ(*CanonicalKeyString(Value::U64(18446744073709551615ULL)), "18446744073709551615");
  EXPECT_EQ(*CanonicalKeyString(Value::Bool(true)), "true");
  EXPECT_EQ(*CanonicalKeyString(Value::Date(19000)), "19000");
  EXPECT_EQ(*CanonicalKeyString(Value::DateTime(1700000000123)), "1700000000123");
  EXPECT_EQ(*CanonicalKeyString(Value::F64(0.1)), "0.1");
  EXPECT_EQ(*CanonicalKeyString(Value::F64(-0.0)), "0");
  EXPECT_EQ(*CanonicalKeyString(Value::F32(0.1f)), "0.1");
  EXPECT_FALSE(CanonicalKeyString(Value::F64(std::nan(""))).ok());
  EXPECT_FALSE(CanonicalKeyString(Value::F64(INFINITY)).ok());
  EXPECT_FALSE(CanonicalKeyString(Value::Null()).ok());
  EXPECT_FALSE(CanonicalKeyString(Value::Vector({1.0f})).ok());
  EXPECT_EQ(*DeriveKeyId({Value::String("a"), Value::I32(7)}), R"(["a","7"])");
}

TEST(ValueTest, CompareAcrossNumericKinds) {
  EXPECT_TRUE(Value::I32(3) == Value::I64(3));
  EXPECT_TRUE(Value::I64(3) == Value::F64(3.0));
  EXPECT_TRUE(Value::I64(-1).Compare(Value::U64(0)) < 0);
  EXPECT_TRUE(Value::U64(UINT64_MAX).Compare(Value::I64(INT64_MAX)) > 0);
  EXPECT_TRUE(Value::Null().Compare(Value::I64(INT64_MIN)) < 0);
  EXPECT_TRUE(Value::F64(std::nan("")).Compare(Value::F64(INFINITY)) > 0);
  EXPECT_TRUE(Value::String("a").Compare(Value::String("b")) < 0);
  EXPECT_TRUE(Value::List(TypeKind::kI64, {Value::I64(1)})
                  .Compare(Value::List(TypeKind::kI64, {Value::I64(1), Value::I64(0)})) < 0);
}

TEST(ValueTest, IsoDates) {
  EXPECT_EQ(*ParseIsoDate("1970-01-01"), 0);
  EXPECT_EQ(*ParseIsoDate("2000-03-01"), 11017);
  EXPECT_EQ(*ParseIsoDate("1969-12-31"), -1);
  EXPECT_FALSE(ParseIsoDate("2023-02-29").ok());
  EXPECT_TRUE(ParseIsoDate("2024-02-29").ok());
  EXPECT_FALSE(ParseIsoDate("2024-13-01").ok());
  EXPECT_FALSE(ParseIsoDate("2024-1-01").ok());
  EXPECT_EQ(FormatIsoDate(11017), "2000-03-01");
  EXPECT_EQ(FormatIsoDate(-1), "1969-12-31");
  EXPECT_EQ(*ParseIsoDateTimeMillis("1970-01-01T00:00:01Z"), 1000);
  EXPECT_EQ(*ParseIsoDateTimeMillis("1970-01-01T00:00:01.5Z"), 1500);
  EXPECT_EQ(*ParseIsoDateTimeMillis("1970-01-01T01:00:00+01:00"), 0);
  EXPECT_EQ(*ParseIsoDateTimeMillis("1970-01-02"), 86400000);
  EXPECT_EQ(*ParseIsoDateTimeMillis("2023-11-14 22:13:20.123"), 1700000000123);
  EXPECT_FALSE(ParseIsoDateTimeMillis("2023-11-14T25:00:00Z").ok());
  EXPECT_FALSE(ParseIsoDateTimeMillis("2023-11-14T10:00:00Zjunk").ok());
  EXPECT_EQ(FormatIsoDateTimeMillis(1700000000123), "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(FormatIsoDateTimeMillis(-1), "1969-12-31T23:59:59.999Z");
}

TEST(ValueTest, DisplayAndTypes) {
  EXPECT_EQ(Value::String("a\"b").ToString(), R"("a\"b")");
  EXPECT_EQ(Value::Null().ToString(), "NULL");
  EXPECT_EQ(Value::Vector({1.5f, 2.0f}).ToString(), "[1.5,2]");
  EXPECT_EQ(DataType::Vector(128).ToString(), "Vector(128)");
  EXPECT_EQ(DataType::List(TypeKind::kString).ToString(), "[String]");
  TypeKind k;
  EXPECT_TRUE(ParseScalarTypeName("DateTime", &k));
  EXPECT_EQ(k, TypeKind::kDateTime);
  EXPECT_FALSE(ParseScalarTypeName("Vector", &k));
  EXPECT_FALSE(ParseScalarTypeName("string", &k));
}

TEST(ValueTest, CheckedAccessorsNeverThrow) {
  EXPECT_EQ(Value::I32(-5).AsInt64(), std::optional<int64_t>(-5));
  EXPECT_EQ(Value::I32(-5).AsUint64(), std::nullopt);
  EXPECT_EQ(Value::I32(7).AsUint64(), std::optional<uint64_t>(7));
  EXPECT_EQ(Value::U64(std::numeric_limits<uint64_t>::max()).AsInt64(), std::nullopt);
  EXPECT_EQ(Value::U64(9).AsInt64(), std::optional<int64_t>(9));
  EXPECT_EQ(Value::Date(3).AsInt64(), std::optional<int64_t>(3));
  EXPECT_EQ(Value::Date(3).AsUint64(), std::nullopt);  // a date is not an unsigned number
  EXPECT_EQ(Value::Date(3).AsDouble(), std::nullopt);
  EXPECT_EQ(Value::F64(2.5).AsDouble(), std::optional<double>(2.5));
  EXPECT_EQ(Value::I64(4).AsDouble(), std::optional<double>(4.0));
  EXPECT_EQ(Value::F64(2.5).AsInt64(), std::nullopt);
  EXPECT_EQ(Value::Bool(true).AsBool(), std::optional<bool>(true));
  EXPECT_EQ(Value::String("x").AsBool(), std::nullopt);
  ASSERT_NE(Value::String("x").AsString(), nullptr);
  EXPECT_EQ(*Value::String("x").AsString(), "x");
  EXPECT_EQ(Value::I32(1).AsString(), nullptr);
  EXPECT_EQ(Value::Null(DataType::Scalar(TypeKind::kI64)).AsInt64(), std::nullopt);
  ASSERT_NE(Value::Vector({1.0f, 2.0f}).AsVector(), nullptr);
  EXPECT_EQ(Value::Vector({1.0f, 2.0f}).AsVector()->size(), 2u);
  auto list = Value::List(TypeKind::kI32, {Value::I32(1), Value::I32(2)});
  ASSERT_NE(list.AsList(), nullptr);
  EXPECT_EQ(list.AsList()->size(), 2u);
  EXPECT_EQ(Value::I32(1).AsList(), nullptr);
}

TEST(ValueTest, F32RangeIncludesWhatRoundsToFltMax) {
  constexpr double kMax = std::numeric_limits<float>::max();
  EXPECT_TRUE(FitsF32(kMax));
  EXPECT_TRUE(FitsF32(3.4028235e38));  // FLT_MAX as every shortest-decimal printer writes it
  EXPECT_TRUE(FitsF32(-3.4028235e38));
  EXPECT_EQ(static_cast<float>(3.4028235e38), std::numeric_limits<float>::max());
  EXPECT_TRUE(FitsF32(std::nextafter(kMax + 0x1p103, 0.0)));
  EXPECT_FALSE(FitsF32(kMax + 0x1p103));  // the tie rounds to even: infinity
  EXPECT_FALSE(FitsF32(3.5e38));
  EXPECT_FALSE(FitsF32(std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(FitsF32(std::nan("")));
}

TEST(ValueTest, F32PrintsAtItsStoredWidth) {
  EXPECT_EQ(ValueToJson(Value::F32(0.1f)).dump(), "0.1");
  EXPECT_EQ(ValueToJson(Value::F32(-2.5f)).dump(), "-2.5");
  EXPECT_EQ(ValueToJson(Value::F32(16777217.0f)).dump(), "16777216.0");
  EXPECT_EQ(ValueToJson(Value::F32(3.4028235e38f)).dump(), "3.4028235e+38");
  EXPECT_EQ(ValueToJson(Value::Vector({0.1f, 0.2f, 1.0f})).dump(), "[0.1,0.2,1.0]");
  EXPECT_EQ(ValueToJson(Value::F64(0.1)).dump(), "0.1");
  EXPECT_EQ(ValueToJson(Value::F64(0.10000000149011612)).dump(), "0.10000000149011612");  // F64 as stored
  // The printed number reads back as the same float.
  for (float f : {0.1f, 1e-7f, 123.456f, 1.17549435e-38f, 7.0e-45f}) {
    EXPECT_EQ(static_cast<float>(ValueToJson(Value::F32(f)).get<double>()), f) << f;
  }
}

}  // namespace
}  // namespace omnigraph
