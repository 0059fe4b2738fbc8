#include "omnigraph/value.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "common/error_codes.h"
#include "common/json.h"

namespace omnigraph {
namespace {

constexpr std::string_view kKindNames[] = {"String", "Blob", "Bool", "I32",      "I64",    "U32", "U64",
                                           "F32",    "F64",  "Date", "DateTime", "Vector", "List"};

// Days from civil (Howard Hinnant's algorithm), proleptic Gregorian.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

bool ParseDigits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

Status BadDate(std::string_view text, std::string_view what) {
  return InvalidArgumentError("invalid " + std::string(what) + " '" + std::string(text) +
                              "' (expected ISO-8601, e.g. 2026-12-02" + (what == "datetime" ? "T18:21:46Z" : "") + ")");
}

// Parses YYYY-MM-DD at the start of `text` into days.
bool ParseDatePart(std::string_view text, int64_t* days) {
  int y, m, d;
  if (text.size() < 10 || text[4] != '-' || text[7] != '-') return false;
  if (!ParseDigits(text, 0, 4, &y) || !ParseDigits(text, 5, 2, &m) || !ParseDigits(text, 8, 2, &d)) return false;
  if (m < 1 || m > 12 || d < 1 || static_cast<unsigned>(d) > DaysInMonth(y, m)) return false;
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

std::string ShortestDouble(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

std::string ShortestFloat(float v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

}  // namespace

bool DataType::is_integer() const { return IsIntegerKind(kind); }
bool DataType::is_numeric() const { return IsNumericKind(kind); }

std::string DataType::ToString() const {
  if (kind == TypeKind::kVector) return "Vector(" + std::to_string(dimension) + ")";
  if (kind == TypeKind::kList) return "[" + std::string(TypeKindName(element)) + "]";
  return std::string(TypeKindName(kind));
}

std::string_view TypeKindName(TypeKind kind) {
  auto i = static_cast<size_t>(kind);
  return i < std::size(kKindNames) ? kKindNames[i] : "?";
}

bool ParseScalarTypeName(std::string_view name, TypeKind* out) {
  for (size_t i = 0; i < std::size(kKindNames); ++i) {
    auto k = static_cast<TypeKind>(i);
    if (k == TypeKind::kVector || k == TypeKind::kList) continue;
    if (kKindNames[i] == name) {
      *out = k;
      return true;
    }
  }
  return false;
}

Value Value::Bool(bool b) {
  Value v;
  v.type_ = DataType::Scalar(TypeKind::kBool);
  v.data_ = b;
  return v;
}
Value Value::I32(int32_t x) {
  Value v;
  v.type_ = DataType::Scalar(TypeKind::kI32);
  v.data_ = int64_t{x};
  return v;
}
Value Value::I64(int64_t x) {
  Value v;
  v.type_ = DataType::Scalar(TypeKind::kI64);
  v.data_ = x;
  return v;
}
Value Value::U32(uint32_t x) {
  Value v;
  v.type_ = DataType::Scalar(TypeKind::kU32);
  v.data_ = uint64_t{x};
  return v;
}
Value Value::U64(uint64_t x) {
  Value v;
  v.type_ = DataType::Scalar(TypeKind::kU64);
  v.data_ = x;
  return v;
}
Value Value::F32(float x) {
  Value v;
  v.type_ = DataType::Scalar(TypeKind::kF32);
  v.data_ = static_cast<double>(x);
  return v;
}
Value Value::F64(double x) {
  Value v;
  v.type_ = DataType::Scalar(TypeKind::kF64);
  v.data_ = x;
  return v;
}
Value Value::Date(int32_t d) {
  Value v;
  v.type_ = DataType::Scalar(TypeKind::kDate);
  v.data_ = int64_t{d};
  return v;
}
Value Value::DateTime(int64_t ms) {
  Value v;
  v.type_ = DataType::Scalar(TypeKind::kDateTime);
  v.data_ = ms;
  return v;
}
Value Value::String(std::string s) {
  Value v;
  v.type_ = DataType::Scalar(TypeKind::kString);
  v.data_ = std::move(s);
  return v;
}
Value Value::Blob(std::string b) {
  Value v;
  v.type_ = DataType::Scalar(TypeKind::kBlob);
  v.data_ = std::move(b);
  return v;
}
Value Value::Vector(std::vector<float> x) {
  Value v;
  v.type_ = DataType::Vector(static_cast<uint32_t>(x.size()));
  v.data_ = std::move(x);
  return v;
}
Value Value::List(TypeKind element, std::vector<Value> items) {
  Value v;
  v.type_ = DataType::List(element);
  v.data_ = std::make_shared<const std::vector<Value>>(std::move(items));
  return v;
}

std::weak_ordering Value::Compare(const Value& o) const {
  if (is_null() || o.is_null()) {
    if (is_null() && o.is_null()) return std::weak_ordering::equivalent;
    return is_null() ? std::weak_ordering::less : std::weak_ordering::greater;
  }
  TypeKind a = kind(), b = o.kind();
  if (IsNumericOrTemporalKind(a) && IsNumericOrTemporalKind(b)) {
    if (IsInt64HeldKind(a) && IsInt64HeldKind(b)) return int_value() <=> o.int_value();
    if (IsUnsignedKind(a) && IsUnsignedKind(b)) return uint_value() <=> o.uint_value();
    if (!IsFloatKind(a) && !IsFloatKind(b)) {  // signed vs unsigned
      if (IsInt64HeldKind(a))
        return int_value() < 0 ? std::weak_ordering::less : static_cast<uint64_t>(int_value()) <=> o.uint_value();
      return o.int_value() < 0 ? std::weak_ordering::greater : uint_value() <=> static_cast<uint64_t>(o.int_value());
    }
    auto as_double = [](const Value& v) {
      if (IsFloatKind(v.kind())) return v.float_value();
      if (IsInt64HeldKind(v.kind())) return static_cast<double>(v.int_value());
      return static_cast<double>(v.uint_value());
    };
    double x = as_double(*this), y = as_double(o);
    bool xn = std::isnan(x), yn = std::isnan(y);
    if (xn || yn) {
      if (xn && yn) return std::weak_ordering::equivalent;
      return xn ? std::weak_ordering::greater : std::weak_ordering::less;
    }
    if (x < y) return std::weak_ordering::less;
    if (x > y) return std::weak_ordering::greater;
    return std::weak_ordering::equivalent;
  }
  if (a != b) {
    bool a_str = a == TypeKind::kString || a == TypeKind::kBlob;
    bool b_str = b == TypeKind::kString || b == TypeKind::kBlob;
    if (!(a_str && b_str)) return static_cast<int>(a) <=> static_cast<int>(b);
  }
  switch (a) {
    case TypeKind::kBool: return bool_value() <=> o.bool_value();
    case TypeKind::kString:
    case TypeKind::kBlob: {
      int c = string_value().compare(o.string_value());
      return c < 0 ? std::weak_ordering::less : (c > 0 ? std::weak_ordering::greater : std::weak_ordering::equivalent);
    }
    case TypeKind::kVector: {
      const auto& x = vector_value();
      const auto& y = o.vector_value();
      for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
        if (x[i] < y[i]) return std::weak_ordering::less;
        if (x[i] > y[i]) return std::weak_ordering::greater;
      }
      return x.size() <=> y.size();
    }
    case TypeKind::kList: {
      const auto& x = list_value();
      const auto& y = o.list_value();
      for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
        auto c = x[i].Compare(y[i]);
        if (c != 0) return c;
      }
      return x.size() <=> y.size();
    }
    default: return std::weak_ordering::equivalent;
  }
}

std::string Value::ToString() const {
  if (is_null()) return "NULL";
  switch (kind()) {
    case TypeKind::kBool: return bool_value() ? "true" : "false";
    case TypeKind::kI32:
    case TypeKind::kI64: return std::to_string(int_value());
    case TypeKind::kU32:
    case TypeKind::kU64: return std::to_string(uint_value());
    case TypeKind::kF32: return ShortestFloat(static_cast<float>(float_value()));
    case TypeKind::kF64: return ShortestDouble(float_value());
    case TypeKind::kDate: return FormatIsoDate(static_cast<int32_t>(int_value()));
    case TypeKind::kDateTime: return FormatIsoDateTimeMillis(int_value());
    case TypeKind::kString:  // invalid UTF-8 is replaced, never thrown
      return Json(string_value()).dump(-1, ' ', false, Json::error_handler_t::replace);
    case TypeKind::kBlob: return "<blob " + std::to_string(string_value().size()) + " bytes>";
    case TypeKind::kVector: {
      std::string out = "[";
      for (size_t i = 0; i < vector_value().size(); ++i) {
        if (i) out += ",";
        out += ShortestFloat(vector_value()[i]);
      }
      return out + "]";
    }
    case TypeKind::kList: {
      std::string out = "[";
      for (size_t i = 0; i < list_value().size(); ++i) {
        if (i) out += ",";
        out += list_value()[i].ToString();
      }
      return out + "]";
    }
  }
  return "?";
}

Result<std::string> CanonicalKeyString(const Value& v) {
  if (v.is_null()) return InvalidArgumentError("a key value cannot be null");
  switch (v.kind()) {
    case TypeKind::kString: return v.string_value();
    case TypeKind::kBool: return std::string(v.bool_value() ? "true" : "false");
    case TypeKind::kI32:
    case TypeKind::kI64:
    case TypeKind::kDate:
    case TypeKind::kDateTime: return std::to_string(v.int_value());
    case TypeKind::kU32:
    case TypeKind::kU64: return std::to_string(v.uint_value());
    case TypeKind::kF32:
    case TypeKind::kF64: {
      double d = v.float_value();
      if (!std::isfinite(d)) return InvalidArgumentError("NaN and infinity are not valid key values");
      if (d == 0) return std::string("0");
      return v.kind() == TypeKind::kF32 ? ShortestFloat(static_cast<float>(d)) : ShortestDouble(d);
    }
    default: return InvalidArgumentError(std::string(TypeKindName(v.kind())) + " values cannot be keys");
  }
}

Result<std::string> DeriveKeyId(const std::vector<Value>& key_values) {
  if (key_values.empty()) return InvalidArgumentError("a key needs at least one value");
  if (key_values.size() == 1) return CanonicalKeyString(key_values[0]);
  Json arr = Json::array();
  for (const Value& v : key_values) {
    OG_ASSIGN_OR_RETURN(std::string s, CanonicalKeyString(v));
    arr.push_back(std::move(s));
  }
  return CanonicalJson(arr);
}

Result<int32_t> ParseIsoDate(std::string_view text) {
  int64_t days;
  if (text.size() != 10 || !ParseDatePart(text, &days)) return BadDate(text, "date");
  return static_cast<int32_t>(days);
}

Result<int64_t> ParseIsoDateTimeMillis(std::string_view text) {
  int64_t days;
  if (!ParseDatePart(text, &days)) return BadDate(text, "datetime");
  int64_t ms = days * 86400000;
  if (text.size() == 10) return ms;
  if (text[10] != 'T' && text[10] != 't' && text[10] != ' ') return BadDate(text, "datetime");
  int hh, mm, ss = 0;
  size_t p = 11;
  if (!ParseDigits(text, p, 2, &hh) || p + 2 >= text.size() || text[p + 2] != ':' || !ParseDigits(text, p + 3, 2, &mm))
    return BadDate(text, "datetime");
  p += 5;
  if (p < text.size() && text[p] == ':') {
    if (!ParseDigits(text, p + 1, 2, &ss)) return BadDate(text, "datetime");
    p += 3;
  }
  if (hh > 23 || mm > 59 || ss > 60) return BadDate(text, "datetime");
  int64_t frac_ms = 0;
  if (p < text.size() && (text[p] == '.' || text[p] == ',')) {
    ++p;
    size_t digits = 0;
    while (p < text.size() && text[p] >= '0' && text[p] <= '9') {
      if (digits < 3) frac_ms = frac_ms * 10 + (text[p] - '0');
      ++digits;
      ++p;
    }
    if (digits == 0) return BadDate(text, "datetime");
    for (size_t i = digits; i < 3; ++i) frac_ms *= 10;
  }
  int64_t offset_min = 0;
  if (p < text.size()) {
    if (text[p] == 'Z' || text[p] == 'z') {
      ++p;
    } else if (text[p] == '+' || text[p] == '-') {
      int oh, om = 0;
      int sign = text[p] == '-' ? -1 : 1;
      if (!ParseDigits(text, p + 1, 2, &oh)) return BadDate(text, "datetime");
      p += 3;
      if (p < text.size() && text[p] == ':') ++p;
      if (p < text.size()) {
        if (!ParseDigits(text, p, 2, &om)) return BadDate(text, "datetime");
        p += 2;
      }
      if (oh > 23 || om > 59) return BadDate(text, "datetime");
      offset_min = sign * (oh * 60 + om);
    }
  }
  if (p != text.size()) return BadDate(text, "datetime");
  return ms + (hh * 3600 + mm * 60 + ss) * int64_t{1000} + frac_ms - offset_min * 60000;
}

std::string FormatIsoDate(int32_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
  return buf;
}

std::string FormatIsoDateTimeMillis(int64_t millis) {
  int64_t days = millis / 86400000;
  int64_t rem = millis % 86400000;
  if (rem < 0) {
    rem += 86400000;
    days -= 1;
  }
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ", static_cast<long long>(y), m, d,
                static_cast<long long>(rem / 3600000), static_cast<long long>(rem / 60000 % 60),
                static_cast<long long>(rem / 1000 % 60), static_cast<long long>(rem % 1000));
  return buf;
}

std::optional<bool> Value::AsBool() const {
  if (const bool* b = std::get_if<bool>(&data_)) return *b;
  return std::nullopt;
}

std::optional<int64_t> Value::AsInt64() const {
  if (const int64_t* i = std::get_if<int64_t>(&data_)) return *i;
  if (const uint64_t* u = std::get_if<uint64_t>(&data_)) {
    if (*u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return static_cast<int64_t>(*u);
  }
  return std::nullopt;
}

std::optional<uint64_t> Value::AsUint64() const {
  if (const uint64_t* u = std::get_if<uint64_t>(&data_)) return *u;
  if (const int64_t* i = std::get_if<int64_t>(&data_)) {
    if (*i >= 0 && IsIntegerKind(kind())) return static_cast<uint64_t>(*i);
  }
  return std::nullopt;
}

std::optional<double> Value::AsDouble() const {
  if (const double* d = std::get_if<double>(&data_)) return *d;
  if (!IsIntegerKind(kind())) return std::nullopt;
  if (const int64_t* i = std::get_if<int64_t>(&data_)) return static_cast<double>(*i);
  if (const uint64_t* u = std::get_if<uint64_t>(&data_)) return static_cast<double>(*u);
  return std::nullopt;
}

const std::string* Value::AsString() const { return std::get_if<std::string>(&data_); }
const std::vector<float>* Value::AsVector() const { return std::get_if<std::vector<float>>(&data_); }
const std::vector<Value>* Value::AsList() const {
  const auto* l = std::get_if<std::shared_ptr<const std::vector<Value>>>(&data_);
  return l != nullptr ? l->get() : nullptr;
}

}  // namespace omnigraph
