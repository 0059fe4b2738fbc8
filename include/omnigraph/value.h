// Typed values and data types shared by every layer (docs/language.md, "Types"): the property types
// of the schema language, and a Value that holds one (possibly null) value of such a type.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "omnigraph/result.h"

namespace omnigraph {

enum class TypeKind : uint8_t {
  kString = 0,
  kBlob,
  kBool,
  kI32,
  kI64,
  kU32,
  kU64,
  kF32,
  kF64,
  kDate,      // days since 1970-01-01 (int32 range)
  kDateTime,  // milliseconds since 1970-01-01T00:00:00Z
  kVector,    // fixed-size float32, `dimension` elements
  kList,      // list of a scalar `element` type
};

// Kind predicates.
constexpr bool IsIntegerKind(TypeKind k) {  // I32, I64, U32, U64
  return k == TypeKind::kI32 || k == TypeKind::kI64 || k == TypeKind::kU32 || k == TypeKind::kU64;
}
constexpr bool IsUnsignedKind(TypeKind k) { return k == TypeKind::kU32 || k == TypeKind::kU64; }
constexpr bool IsFloatKind(TypeKind k) { return k == TypeKind::kF32 || k == TypeKind::kF64; }
constexpr bool IsNumericKind(TypeKind k) { return IsIntegerKind(k) || IsFloatKind(k); }
constexpr bool IsTemporalKind(TypeKind k) { return k == TypeKind::kDate || k == TypeKind::kDateTime; }
// The kinds a Value holds as int64: I32, I64, Date, DateTime.
constexpr bool IsInt64HeldKind(TypeKind k) { return k == TypeKind::kI32 || k == TypeKind::kI64 || IsTemporalKind(k); }
// The kinds a Value holds as a number: numeric and temporal.
constexpr bool IsNumericOrTemporalKind(TypeKind k) { return IsNumericKind(k) || IsTemporalKind(k); }

// A schema type. Enums are Strings whose allowed values the catalog keeps; nullability belongs to
// the field, not the type.
struct DataType {
  TypeKind kind = TypeKind::kString;
  uint32_t dimension = 0;                // kVector only: 1..65536
  TypeKind element = TypeKind::kString;  // kList only: a scalar kind (not Vector/List)

  static DataType Scalar(TypeKind k) { return DataType{k, 0, TypeKind::kString}; }
  static DataType Vector(uint32_t dim) { return DataType{TypeKind::kVector, dim, TypeKind::kString}; }
  static DataType List(TypeKind elem) { return DataType{TypeKind::kList, 0, elem}; }

  bool is_scalar() const { return kind != TypeKind::kVector && kind != TypeKind::kList; }
  bool is_integer() const;
  bool is_numeric() const;  // integers and floats
  // "String", "I64", "Vector(128)", "[String]" (the schema-language spelling).
  std::string ToString() const;
  bool operator==(const DataType&) const = default;
};

std::string_view TypeKindName(TypeKind kind);
// Parses a scalar name ("String", "I64", ...); false if unknown.
bool ParseScalarTypeName(std::string_view name, TypeKind* out);

// One value. Integers of every width are held as int64 (signed kinds, Date, DateTime) or uint64
// (unsigned kinds); F32 is held as double but rounds to float on construction. Thread-compatible.
class Value {
 public:
  Value() = default;  // null of type String
  static Value Null(DataType type = DataType{}) {
    Value v;
    v.type_ = type;
    return v;
  }
  static Value Bool(bool b);
  static Value I32(int32_t v);
  static Value I64(int64_t v);
  static Value U32(uint32_t v);
  static Value U64(uint64_t v);
  static Value F32(float v);
  static Value F64(double v);
  static Value Date(int32_t days);
  static Value DateTime(int64_t millis);
  static Value String(std::string s);
  static Value Blob(std::string bytes);
  static Value Vector(std::vector<float> v);
  // Elements must be null or of kind `element`.
  static Value List(TypeKind element, std::vector<Value> items);

  const DataType& type() const { return type_; }
  TypeKind kind() const { return type_.kind; }
  bool is_null() const { return std::holds_alternative<std::monostate>(data_); }

  // Checked accessors, for code that does not know the kind: nullopt (nullptr) when the value is
  // null or cannot be read as asked. AsInt64: signed integers, Date (days), DateTime (ms), and
  // unsigned integers up to INT64_MAX; AsUint64: unsigned integers and non-negative signed ones;
  // AsDouble: any number (integers above 2^53 round); AsString: String and Blob bytes.
  std::optional<bool> AsBool() const;
  std::optional<int64_t> AsInt64() const;
  std::optional<uint64_t> AsUint64() const;
  std::optional<double> AsDouble() const;
  const std::string* AsString() const;
  const std::vector<float>* AsVector() const;
  const std::vector<Value>* AsList() const;

  // Direct accessors; precondition: not null and the matching representation (a mismatch is a
  // programming error: std::get throws). Use the As* accessors when the kind is not known.
  bool bool_value() const { return std::get<bool>(data_); }
  int64_t int_value() const { return std::get<int64_t>(data_); }                    // signed ints, Date, DateTime
  uint64_t uint_value() const { return std::get<uint64_t>(data_); }                 // U32, U64
  double float_value() const { return std::get<double>(data_); }                    // F32, F64
  const std::string& string_value() const { return std::get<std::string>(data_); }  // String, Blob
  const std::vector<float>& vector_value() const { return std::get<std::vector<float>>(data_); }
  const std::vector<Value>& list_value() const { return *std::get<std::shared_ptr<const std::vector<Value>>>(data_); }

  // Total order used for sorting and statistics: null first; numbers by numeric value across
  // kinds (NaN after all numbers); strings/blobs bytewise; lists/vectors lexicographically; values
  // of unrelated kinds by kind.
  std::weak_ordering Compare(const Value& other) const;
  bool operator==(const Value& other) const { return Compare(other) == 0; }

  // JSON-ish display: strings quoted, null as NULL, Date as YYYY-MM-DD, DateTime as ISO-8601 ms.
  std::string ToString() const;

 private:
  DataType type_;
  std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string, std::vector<float>,
               std::shared_ptr<const std::vector<Value>>>
      data_;
};

// The canonical string of a key value (docs/language.md, "Keys and ids"): integers in decimal,
// bools true/false, Date as epoch days, DateTime as epoch ms, finite floats in shortest round-trip
// form with -0 as 0, strings as themselves. InvalidArgument for null, NaN/inf, Blob, Vector, List.
Result<std::string> CanonicalKeyString(const Value& v);
// Id of a keyed node: one key value -> its canonical string; several -> the JSON array of the
// canonical strings in declaration order.
Result<std::string> DeriveKeyId(const std::vector<Value>& key_values);

// Calendar conversions (proleptic Gregorian, UTC). Parse accepts "YYYY-MM-DD" for dates and
// "YYYY-MM-DDTHH:MM:SS[.fff...][Z|±HH:MM]" (or a space instead of T, or a bare date) for datetimes.
Result<int32_t> ParseIsoDate(std::string_view text);
Result<int64_t> ParseIsoDateTimeMillis(std::string_view text);
std::string FormatIsoDate(int32_t days);
std::string FormatIsoDateTimeMillis(int64_t millis);

// Whether `d` may be stored as an F32 (a scalar or a Vector element): finite, and rounding to a
// finite float — below FLT_MAX plus half its ulp (2^103) in magnitude, so the shortest decimal of
// FLT_MAX, 3.4028235e38 (a little above FLT_MAX as a double), is FLT_MAX. Every conversion to F32
// (load, mutation literals, parameters) checks it first, so a stored F32 is always finite (JSON has
// no spelling for infinity) and the cast to float is defined.
inline bool FitsF32(double d) {
  constexpr double kLimit = static_cast<double>(std::numeric_limits<float>::max()) + 0x1p103;
  return std::isfinite(d) && std::fabs(d) < kLimit;
}

}  // namespace omnigraph
