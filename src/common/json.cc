#include "common/json.h"

#include "common/error_codes.h"

namespace omnigraph {
namespace {
Status FieldError(std::string_view what, std::string_view field, std::string_view problem,
                  bool corrupt) {
  std::string m = std::string(what) + ": field '" + std::string(field) + "' " + std::string(problem);
  return corrupt ? CorruptError(std::move(m)) : InvalidArgumentError(std::move(m));
}

Result<const Json*> Field(const Json& obj, std::string_view field, std::string_view what) {
  if (!obj.is_object()) return InvalidArgumentError(std::string(what) + ": expected a JSON object");
  auto it = obj.find(field);
  if (it == obj.end()) return FieldError(what, field, "is missing", false);
  return &*it;
}
}  // namespace

Result<Json> ParseJson(std::string_view text, std::string_view what, bool corrupt) {
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    // Re-run with exceptions only to learn the position; nothing escapes this function.
    std::string detail = "malformed JSON";
    try {
      Json ignored = Json::parse(text.begin(), text.end());
      (void)ignored;
    } catch (const Json::parse_error& e) {
      detail = e.what();
    } catch (...) {
    }
    std::string m = std::string(what) + ": " + detail;
    return corrupt ? CorruptError(std::move(m)) : InvalidArgumentError(std::move(m));
  }
  return j;
}

std::string CanonicalJson(const Json& j) {
  return j.dump(-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

Result<std::string> GetString(const Json& obj, std::string_view field, std::string_view what) {
  OG_ASSIGN_OR_RETURN(const Json* v, Field(obj, field, what));
  if (!v->is_string()) return FieldError(what, field, "must be a string", false);
  return v->get<std::string>();
}

Result<int64_t> GetInt(const Json& obj, std::string_view field, std::string_view what) {
  OG_ASSIGN_OR_RETURN(const Json* v, Field(obj, field, what));
  if (v->is_number_unsigned()) {
    uint64_t u = v->get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return FieldError(what, field, "is out of range", false);
    return static_cast<int64_t>(u);
  }
  if (!v->is_number_integer()) return FieldError(what, field, "must be an integer", false);
  return v->get<int64_t>();
}

Result<uint64_t> GetUint(const Json& obj, std::string_view field, std::string_view what) {
  OG_ASSIGN_OR_RETURN(const Json* v, Field(obj, field, what));
  if (v->is_number_unsigned()) return v->get<uint64_t>();
  if (v->is_number_integer() && v->get<int64_t>() >= 0) return static_cast<uint64_t>(v->get<int64_t>());
  return FieldError(what, field, "must be a non-negative integer", false);
}

Result<bool> GetBool(const Json& obj, std::string_view field, std::string_view what) {
  OG_ASSIGN_OR_RETURN(const Json* v, Field(obj, field, what));
  if (!v->is_boolean()) return FieldError(what, field, "must be a boolean", false);
  return v->get<bool>();
}

Result<const Json*> GetObject(const Json& obj, std::string_view field, std::string_view what) {
  OG_ASSIGN_OR_RETURN(const Json* v, Field(obj, field, what));
  if (!v->is_object()) return FieldError(what, field, "must be an object", false);
  return v;
}

Result<const Json*> GetArray(const Json& obj, std::string_view field, std::string_view what) {
  OG_ASSIGN_OR_RETURN(const Json* v, Field(obj, field, what));
  if (!v->is_array()) return FieldError(what, field, "must be an array", false);
  return v;
}

}  // namespace omnigraph
