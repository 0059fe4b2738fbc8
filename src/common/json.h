// JSON helpers around nlohmann::json: parsing that returns Status instead of throwing, typed field
// access with errors naming the field, and canonical (sorted-key, compact) serialization.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "omnigraph/result.h"

namespace omnigraph {

using Json = nlohmann::json;
// Keeps keys in insertion order: for command output, whose key order follows the Rust CLI's
// structs (stored objects use Json, whose sorted keys make CanonicalJson stable).
using OrderedJson = nlohmann::ordered_json;

// Parses `text`; `what` names the document in errors. Malformed input -> InvalidArgument with the
// byte offset; `corrupt` = true reports kCorrupt instead (for stored objects).
// Messages never carry the library's exception text.
Result<Json> ParseJson(std::string_view text, std::string_view what, bool corrupt = false);
// Same (InvalidArgument), and a member name repeated within one object, at any depth, is an error
// too (as the loader's lines): for user input, where the last-one-wins of plain parsing would
// silently drop a value. Nesting deeper than 256 levels is an error too (walking such a value
// would overflow the stack).
Result<Json> ParseJsonUnique(std::string_view text, std::string_view what);

// Compact serialization with sorted keys (nlohmann objects are sorted maps), stable across runs.
std::string CanonicalJson(const Json& j);

// Typed field access on an object; errors name `what` and the field.
Result<std::string> GetString(const Json& obj, std::string_view field, std::string_view what);
Result<int64_t> GetInt(const Json& obj, std::string_view field, std::string_view what);
Result<uint64_t> GetUint(const Json& obj, std::string_view field, std::string_view what);
Result<bool> GetBool(const Json& obj, std::string_view field, std::string_view what);
Result<const Json*> GetObject(const Json& obj, std::string_view field, std::string_view what);
Result<const Json*> GetArray(const Json& obj, std::string_view field, std::string_view what);

}  // namespace omnigraph
