// JSON parameter binding; see params.h.
#include "compiler/params.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <string>
#include <utility>

#include "common/base64.h"
#include "common/error_codes.h"
#include "common/output_json.h"

namespace omnigraph::compiler {
namespace {

Status Bad(std::string_view what, std::string message) {
  return InvalidArgumentError(std::string(what) + ": " + std::move(message));
}

std::string JsonKind(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

// Signed integer from a JSON integer or (when allow_string) a decimal string.
Result<int64_t> JsonSigned(const Json& v, std::string_view what, bool allow_string) {
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return Bad(what, "integer out of range");
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  if (allow_string && v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    int64_t out = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) {
      return Bad(what, "\"" + s + "\" is not a decimal integer in range");
    }
    return out;
  }
  return Bad(
      what, "expected an integer" + std::string(allow_string ? " or a decimal string" : "") + ", found " + JsonKind(v));
}

Result<uint64_t> JsonUnsigned(const Json& v, std::string_view what, bool allow_string) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer()) return Bad(what, "expected a non-negative integer");
  if (allow_string && v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    uint64_t out = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) {
      return Bad(what, "\"" + s + "\" is not a non-negative decimal integer in range");
    }
    return out;
  }
  return Bad(what, "expected a non-negative integer" + std::string(allow_string ? " or a decimal string" : "") +
                       ", found " + JsonKind(v));
}

Result<double> JsonNumber(const Json& v, std::string_view what) {
  if (!v.is_number()) return Bad(what, "expected a number, found " + JsonKind(v));
  double d = v.get<double>();
  if (!std::isfinite(d)) return Bad(what, "number is not finite");
  return d;
}

}  // namespace

Result<std::string> DecodeBase64(std::string_view text) {
  // Any run of trailing '=' is dropped and the rest re-padded for Base64Decode, which then fails
  // only on a character outside the alphabet (a lone final character is a length error first).
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return InvalidArgumentError("invalid base64 length");
  std::string padded(text);
  padded.append((4 - padded.size() % 4) % 4, '=');
  std::string out;
  if (!Base64Decode(padded, &out)) return InvalidArgumentError("invalid base64 character");
  return out;
}

Result<Value> JsonToValue(const Json& v, const DataType& type, std::string_view what) {
  switch (type.kind) {
    case TypeKind::kString:
      if (!v.is_string()) return Bad(what, "expected a string, found " + JsonKind(v));
      return Value::String(v.get<std::string>());
    case TypeKind::kBool:
      if (!v.is_boolean()) return Bad(what, "expected a boolean, found " + JsonKind(v));
      return Value::Bool(v.get<bool>());
    case TypeKind::kI32: {
      OG_ASSIGN_OR_RETURN(int64_t i, JsonSigned(v, what, false));
      if (i < INT32_MIN || i > INT32_MAX) return Bad(what, "integer out of I32 range");
      return Value::I32(static_cast<int32_t>(i));
    }
    case TypeKind::kI64: {
      OG_ASSIGN_OR_RETURN(int64_t i, JsonSigned(v, what, true));
      return Value::I64(i);
    }
    case TypeKind::kU32: {
      OG_ASSIGN_OR_RETURN(uint64_t u, JsonUnsigned(v, what, false));
      if (u > UINT32_MAX) return Bad(what, "integer out of U32 range");
      return Value::U32(static_cast<uint32_t>(u));
    }
    case TypeKind::kU64: {
      OG_ASSIGN_OR_RETURN(uint64_t u, JsonUnsigned(v, what, true));
      return Value::U64(u);
    }
    case TypeKind::kF32: {
      OG_ASSIGN_OR_RETURN(double d, JsonNumber(v, what));
      if (!FitsF32(d)) return Bad(what, "number is out of F32 range");
      return Value::F32(static_cast<float>(d));
    }
    case TypeKind::kF64: {
      OG_ASSIGN_OR_RETURN(double d, JsonNumber(v, what));
      return Value::F64(d);
    }
    case TypeKind::kDate: {
      if (v.is_string()) {
        auto days = ParseIsoDate(v.get_ref<const std::string&>());
        if (!days.ok()) return Bad(what, days.status().message());
        return Value::Date(*days);
      }
      if (!v.is_number_integer()) {
        return Bad(what, "expected an ISO date string or epoch days, found " + JsonKind(v));
      }
      OG_ASSIGN_OR_RETURN(int64_t i, JsonSigned(v, what, false));
      if (i < INT32_MIN || i > INT32_MAX) return Bad(what, "epoch days out of range");
      return Value::Date(static_cast<int32_t>(i));
    }
    case TypeKind::kDateTime: {
      if (v.is_string()) {
        auto ms = ParseIsoDateTimeMillis(v.get_ref<const std::string&>());
        if (!ms.ok()) return Bad(what, ms.status().message());
        return Value::DateTime(*ms);
      }
      if (!v.is_number_integer()) {
        return Bad(what, "expected an ISO datetime string or epoch milliseconds, found " + JsonKind(v));
      }
      OG_ASSIGN_OR_RETURN(int64_t i, JsonSigned(v, what, false));
      return Value::DateTime(i);
    }
    case TypeKind::kBlob: {
      if (!v.is_string()) return Bad(what, "expected a \"base64:...\" string, found " + JsonKind(v));
      const std::string& s = v.get_ref<const std::string&>();
      if (s.rfind("base64:", 0) != 0) {
        return Bad(what,
                   "Blob parameters are strings \"base64:...\" (external URIs are not "
                   "supported)");
      }
      auto bytes = DecodeBase64(std::string_view(s).substr(7));
      if (!bytes.ok()) return Bad(what, bytes.status().message());
      return Value::Blob(std::move(*bytes));
    }
    case TypeKind::kVector: {
      if (!v.is_array()) return Bad(what, "expected an array of numbers, found " + JsonKind(v));
      if (v.size() != type.dimension) {
        return Bad(what, "expected " + std::to_string(type.dimension) + " numbers, found " + std::to_string(v.size()));
      }
      std::vector<float> out;
      out.reserve(v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        const std::string item_what = std::string(what) + "[" + std::to_string(i) + "]";
        OG_ASSIGN_OR_RETURN(double d, JsonNumber(v[i], item_what));
        if (!FitsF32(d)) return Bad(item_what, "number is out of F32 range (vector elements are F32)");
        out.push_back(static_cast<float>(d));
      }
      return Value::Vector(std::move(out));
    }
    case TypeKind::kList: {
      if (!v.is_array()) return Bad(what, "expected an array, found " + JsonKind(v));
      std::vector<Value> items;
      items.reserve(v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        std::string item_what = std::string(what) + "[" + std::to_string(i) + "]";
        if (v[i].is_null()) {
          items.push_back(Value::Null(DataType::Scalar(type.element)));
          continue;
        }
        OG_ASSIGN_OR_RETURN(Value item, JsonToValue(v[i], DataType::Scalar(type.element), item_what));
        items.push_back(std::move(item));
      }
      return Value::List(type.element, std::move(items));
    }
  }
  return Bad(what, "unsupported type");
}

Result<ParamValues> BindParams(const std::vector<ParamDecl>& decls, const Json& params) {
  if (!params.is_null() && !params.is_object()) {
    return InvalidArgumentError("query parameters must be a JSON object, found " + JsonKind(params));
  }
  std::set<std::string> declared;
  for (const ParamDecl& d : decls) declared.insert(d.name);
  if (params.is_object()) {
    std::set<std::string> given;
    for (auto it = params.begin(); it != params.end(); ++it) {
      std::string name = it.key();
      if (!name.empty() && name[0] == '$') name.erase(0, 1);
      if (!given.insert(name).second) {
        return InvalidArgumentError("parameter $" + name + " is given twice (as \"" + name + "\" and as \"$" + name +
                                    "\")");
      }
      if (!declared.count(name)) {
        std::string list;
        for (const ParamDecl& d : decls) list += (list.empty() ? "$" : ", $") + d.name;
        return InvalidArgumentError("parameter $" + name + " is not declared by the query" +
                                    (list.empty() ? " (it declares none)" : " (declared: " + list + ")"));
      }
    }
  }
  ParamValues out;
  for (const ParamDecl& d : decls) {
    std::string what = "parameter $" + d.name;
    const Json* v = nullptr;
    if (params.is_object()) {
      auto it = params.find(d.name);
      if (it == params.end()) it = params.find("$" + d.name);
      if (it != params.end()) v = &*it;
    }
    if (v == nullptr || v->is_null()) {
      if (!d.nullable) {
        return InvalidArgumentError(what + " (" + d.type.ToString() + ") is required" +
                                    (v == nullptr ? " but was not given" : " but is null"));
      }
      out[d.name] = Value::Null(d.type);
      continue;
    }
    OG_ASSIGN_OR_RETURN(Value value, JsonToValue(*v, d.type, what));
    out[d.name] = std::move(value);
  }
  return out;
}

Result<ParamValues> BindParamsJson(const std::vector<ParamDecl>& decls, std::string_view json) {
  if (json.find_first_not_of(" \t\r\n") == std::string_view::npos) return BindParams(decls, Json());
  OG_ASSIGN_OR_RETURN(Json j, ParseJsonUnique(json, "query parameters"));
  return BindParams(decls, j);
}

Result<ParamValues> BindParamValues(const std::vector<ParamDecl>& decls, const ParamValues& given) {
  Json as_json = Json::object();
  ParamValues exact;
  for (const auto& [raw, v] : given) {
    std::string name = !raw.empty() && raw[0] == '$' ? raw.substr(1) : raw;
    if (as_json.contains(name) || exact.count(name)) {
      return InvalidArgumentError("parameter $" + name + " is given twice (as \"" + name + "\" and as \"$" + name +
                                  "\")");
    }
    auto d = std::find_if(decls.begin(), decls.end(), [&](const ParamDecl& p) { return p.name == name; });
    if (d != decls.end() && !v.is_null() && v.type() == d->type) {
      bool fits = true;
      if (v.kind() == TypeKind::kF32) fits = FitsF32(v.float_value());
      if (v.kind() == TypeKind::kVector) {
        for (float f : v.vector_value()) fits = fits && FitsF32(f);
      }
      if (!fits)
        return InvalidArgumentError("parameter $" + name + " (" + d->type.ToString() + ") is out of F32 range");
      exact[name] = v;
      continue;
    }
    if (!v.is_null() && v.kind() == TypeKind::kBlob) {
      return InvalidArgumentError("parameter $" + name + " is a Blob; the query declares " +
                                  (d == decls.end() ? std::string("no such parameter") : d->type.ToString()));
    }
    as_json[name] = ValueToJson(v);  // the JSON rules decide (undeclared names are reported there)
  }
  std::vector<ParamDecl> rest;
  for (const ParamDecl& d : decls) {
    if (!exact.count(d.name)) rest.push_back(d);
  }
  if (rest.size() != decls.size()) {
    // Undeclared names must still be named against the full declaration list.
    for (auto it = as_json.begin(); it != as_json.end(); ++it) {
      auto d = std::find_if(decls.begin(), decls.end(), [&](const ParamDecl& p) { return p.name == it.key(); });
      if (d == decls.end()) return BindParams(decls, Json{{it.key(), it.value()}});
    }
  }
  OG_ASSIGN_OR_RETURN(ParamValues out, BindParams(rest, as_json));
  for (auto& [name, v] : exact) out[name] = std::move(v);
  return out;
}

}  // namespace omnigraph::compiler
