// Tests for JSON parameter binding (params.h).
#include "compiler/params.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace omnigraph::compiler {
namespace {

ParamDecl Decl(std::string name, DataType t, bool nullable = false) {
  ParamDecl d;
  d.name = std::move(name);
  d.type = t;
  d.nullable = nullable;
  return d;
}

DataType S(TypeKind k) { return DataType::Scalar(k); }

void ExpectBad(const std::vector<ParamDecl>& decls, const std::string& json, const std::string& text) {
  Result<ParamValues> r = BindParamsJson(decls, json);
  ASSERT_FALSE(r.ok()) << json;
  EXPECT_EQ(r.status().category(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find(text), std::string::npos) << r.status().message();
}

TEST(Params, BindsEveryType) {
  std::vector<ParamDecl> d = {Decl("s", S(TypeKind::kString)),
                              Decl("b", S(TypeKind::kBool)),
                              Decl("i", S(TypeKind::kI32)),
                              Decl("l", S(TypeKind::kI64)),
                              Decl("u", S(TypeKind::kU32)),
                              Decl("ul", S(TypeKind::kU64)),
                              Decl("f", S(TypeKind::kF32)),
                              Decl("d", S(TypeKind::kF64)),
                              Decl("day", S(TypeKind::kDate)),
                              Decl("ts", S(TypeKind::kDateTime)),
                              Decl("blob", S(TypeKind::kBlob)),
                              Decl("v", DataType::Vector(2)),
                              Decl("tags", DataType::List(TypeKind::kI32))};
  auto r = BindParamsJson(d, R"({"s":"x","b":true,"i":-5,"l":"9007199254740993","u":7,
      "ul":"18446744073709551615","f":1.5,"d":2,"day":"2024-02-29","ts":"2024-01-01T00:00:01Z",
      "blob":"base64:aGk=","v":[1,2.5],"tags":[1,null,3]})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->at("s"), Value::String("x"));
  EXPECT_EQ(r->at("i"), Value::I32(-5));
  EXPECT_EQ(r->at("l").int_value(), 9007199254740993LL);
  EXPECT_EQ(r->at("ul").uint_value(), 18446744073709551615ULL);
  EXPECT_EQ(r->at("d").kind(), TypeKind::kF64);
  EXPECT_EQ(r->at("day").int_value(), 19782);
  EXPECT_EQ(r->at("ts").int_value(), 1704067201000LL);
  EXPECT_EQ(r->at("blob").string_value(), "hi");
  EXPECT_EQ(r->at("v").vector_value(), (std::vector<float>{1.0f, 2.5f}));
  ASSERT_EQ(r->at("tags").list_value().size(), 3u);
  EXPECT_TRUE(r->at("tags").list_value()[1].is_null());
}

TEST(Params, DatesAcceptIntegersToo) {
  std::vector<ParamDecl> d = {Decl("day", S(TypeKind::kDate)), Decl("ts", S(TypeKind::kDateTime))};
  auto r = BindParamsJson(d, R"({"day": 1, "ts": 86400000})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->at("day"), Value::Date(1));
  EXPECT_EQ(r->at("ts"), Value::DateTime(86400000));
  ExpectBad(d, R"({"day": "2024-13-01", "ts": 0})", "parameter $day");
  ExpectBad(d, R"({"day": 1.5, "ts": 0})", "parameter $day");
  ExpectBad(d, R"({"day": 1, "ts": true})", "parameter $ts");
}

TEST(Params, NullsAndOmissions) {
  std::vector<ParamDecl> d = {Decl("a", S(TypeKind::kString), true), Decl("b", S(TypeKind::kI64))};
  auto r = BindParamsJson(d, R"({"b": 1})");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->at("a").is_null());
  EXPECT_EQ(r->at("a").kind(), TypeKind::kString);
  ExpectBad(d, R"({"a": null})", "parameter $b (I64) is required but was not given");
  ExpectBad(d, R"({"b": null})", "parameter $b (I64) is required but is null");
  auto none = BindParamsJson({Decl("a", S(TypeKind::kString), true)}, "");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->at("a").is_null());
}

TEST(Params, UndeclaredParametersAreErrors) {
  std::vector<ParamDecl> d = {Decl("a", S(TypeKind::kString))};
  ExpectBad(d, R"({"a": "x", "extra": 1})", "parameter $extra is not declared by the query (declared: $a)");
  ExpectBad({}, R"({"x": 1})", "it declares none");
  auto dollar = BindParamsJson(d, R"({"$a": "x"})");
  ASSERT_TRUE(dollar.ok());
  EXPECT_EQ(dollar->at("a"), Value::String("x"));
}

TEST(Params, RangeAndShapeErrorsNameTheParameter) {
  ExpectBad({Decl("i", S(TypeKind::kI32))}, R"({"i": 2147483648})", "parameter $i: integer out of I32 range");
  ExpectBad({Decl("i", S(TypeKind::kI32))}, R"({"i": "5"})", "parameter $i: expected an integer");
  ExpectBad({Decl("u", S(TypeKind::kU32))}, R"({"u": -1})", "parameter $u");
  ExpectBad({Decl("u", S(TypeKind::kU64))}, R"({"u": "-1"})", "parameter $u");
  ExpectBad({Decl("l", S(TypeKind::kI64))}, R"({"l": "12x"})", "not a decimal integer");
  ExpectBad({Decl("l", S(TypeKind::kI64))}, R"({"l": 1.5})", "parameter $l");
  ExpectBad({Decl("s", S(TypeKind::kString))}, R"({"s": 3})", "parameter $s: expected a string");
  ExpectBad({Decl("v", DataType::Vector(3))}, R"({"v": [1, 2]})", "expected 3 numbers, found 2");
  ExpectBad({Decl("v", DataType::Vector(2))}, R"({"v": [1, "x"]})", "parameter $v[1]");
  ExpectBad({Decl("t", DataType::List(TypeKind::kString))}, R"({"t": [1]})", "parameter $t[0]");
  ExpectBad({Decl("b", S(TypeKind::kBlob))}, R"({"b": "s3://x"})", "base64");
  ExpectBad({Decl("b", S(TypeKind::kBlob))}, R"({"b": "base64:!!"})", "base64");
  ExpectBad({Decl("s", S(TypeKind::kString))}, R"([1])", "must be a JSON object");
  ExpectBad({Decl("s", S(TypeKind::kString))}, R"({"s": )", "");
}

TEST(Params, F32AndVectorElementsMustFitF32) {
  ExpectBad({Decl("f", S(TypeKind::kF32))}, R"({"f": 1e39})", "parameter $f: number is out of F32 range");
  ExpectBad({Decl("f", S(TypeKind::kF32))}, R"({"f": -3.5e38})", "out of F32 range");
  ExpectBad({Decl("v", DataType::Vector(2))}, R"({"v": [1, 1e39]})", "parameter $v[1]: number is out of F32 range");
  ExpectBad({Decl("v", DataType::Vector(2))}, R"({"v": [-1e39, 0]})", "parameter $v[0]");
  // 1e999 does not even parse as a double.
  ExpectBad({Decl("v", DataType::Vector(1))}, R"({"v": [1e999]})", "number overflow parsing '1e999'");
  auto edge = BindParamsJson({Decl("v", DataType::Vector(2))}, R"({"v": [3.4028234e38, -3.4028234e38]})");
  ASSERT_TRUE(edge.ok()) << edge.status().ToString();
  EXPECT_EQ(edge->at("v").vector_value()[0], std::numeric_limits<float>::max());
  ASSERT_TRUE(BindParamsJson({Decl("d", S(TypeKind::kF64))}, R"({"d": 1e39})").ok());
}

TEST(Params, DuplicateKeysAreErrors) {
  std::vector<ParamDecl> d = {Decl("a", S(TypeKind::kI64)), Decl("o", DataType::List(TypeKind::kString), true)};
  ExpectBad(d, R"({"a": 1, "a": 2})", "member name \"a\" appears twice");
  ExpectBad(d, R"({"a": 1, "$a": 2})", "parameter $a is given twice");
  // At any depth (a parameter object nested in an array is still user input).
  Result<ParamValues> nested = BindParamsJson(d, R"({"a": 1, "o": [{"k": 1, "k": 2}]})");
  ASSERT_FALSE(nested.ok());
  EXPECT_NE(nested.status().message().find("appears twice"), std::string::npos);
}

TEST(Params, MessagesNeverCarryLibraryExceptionText) {
  std::vector<ParamDecl> d = {Decl("a", S(TypeKind::kI64))};
  for (const char* bad : {"{\"a\": ", "{\"a\" 1}", "[1,,]", "{\"a\": tru}", "\"\\ud800\"", "{\"a\": 1} x"}) {
    Result<ParamValues> r = BindParamsJson(d, bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message().find("json.exception"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("query parameters"), std::string::npos) << r.status().message();
  }
}

TEST(Params, Base64) {
  EXPECT_EQ(*DecodeBase64("aGVsbG8="), "hello");
  EXPECT_EQ(*DecodeBase64("aGVsbG8"), "hello");
  EXPECT_EQ(*DecodeBase64(""), "");
  EXPECT_FALSE(DecodeBase64("a").ok());
  EXPECT_FALSE(DecodeBase64("a*bc").ok());
}

}  // namespace
}  // namespace omnigraph::compiler
