#include "common/json.h"

#include <optional>
#include <set>
#include <vector>

#include "common/error_codes.h"

namespace omnigraph {
namespace {
Status FieldError(std::string_view what, std::string_view field, std::string_view problem, bool corrupt) {
  std::string m = std::string(what) + ": field '" + std::string(field) + "' " + std::string(problem);
  return corrupt ? CorruptError(std::move(m)) : InvalidArgumentError(std::move(m));
}

Result<const Json*> Field(const Json& obj, std::string_view field, std::string_view what) {
  if (!obj.is_object()) return InvalidArgumentError(std::string(what) + ": expected a JSON object");
  auto it = obj.find(field);
  if (it == obj.end()) return FieldError(what, field, "is missing", false);
  return &*it;
}

// nlohmann's message without its "[json.exception.parse_error.101] " prefix: messages name
// the document and the position, never the library.
std::string CleanParseMessage(std::string_view what) {
  if (what.substr(0, 1) == "[") {
    const size_t close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  return std::string(what);
}

Result<Json> ParseJsonImpl(std::string_view text, std::string_view what, bool corrupt, bool unique) {
  // With `unique`, a parser callback tracks the member names of every open object; a repeat is
  // remembered (the callback cannot stop the parse) and reported once the parse is done.
  std::vector<std::set<std::string>> open_objects;
  std::optional<std::string> duplicate;
  // Nesting past this depth is refused: the parse itself is iterative, but serializing and walking
  // a value recurse once per level, and a 1 MiB body can nest 500k levels (a stack overflow).
  constexpr int kMaxDepth = 256;
  bool too_deep = false;
  Json::parser_callback_t callback = nullptr;
  if (unique) {
    callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
      if (depth > kMaxDepth) {
        too_deep = true;
        return false;  // discard it: nothing of that depth is kept
      }
      switch (event) {
        case Json::parse_event_t::object_start: open_objects.emplace_back(); break;
        case Json::parse_event_t::object_end:
          if (!open_objects.empty()) open_objects.pop_back();
          break;
        case Json::parse_event_t::key:
          if (!open_objects.empty() && parsed.is_string() &&
              !open_objects.back().insert(parsed.get<std::string>()).second && !duplicate) {
            duplicate = parsed.get<std::string>();
          }
          break;
        default: break;
      }
      return true;
    };
  }
  Json j = Json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/false);
  auto fail = [&](std::string detail) -> Status {
    std::string m = std::string(what) + ": " + std::move(detail);
    return corrupt ? CorruptError(std::move(m)) : InvalidArgumentError(std::move(m));
  };
  if (j.is_discarded()) {
    // Re-run with exceptions only to learn the position; nothing escapes this function.
    std::string detail = "malformed JSON";
    try {
      Json ignored = Json::parse(text.begin(), text.end());
      (void)ignored;
    } catch (const Json::exception& e) {
      detail = CleanParseMessage(e.what());
    } catch (...) {
    }
    return fail(std::move(detail));
  }
  if (too_deep) return fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
  if (duplicate) return fail("member name " + Json(*duplicate).dump() + " appears twice in one object");
  return j;
}

}  // namespace

Result<Json> ParseJson(std::string_view text, std::string_view what, bool corrupt) {
  return ParseJsonImpl(text, what, corrupt, /*unique=*/false);
}

Result<Json> ParseJsonUnique(std::string_view text, std::string_view what) {
  return ParseJsonImpl(text, what, /*corrupt=*/false, /*unique=*/true);
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
