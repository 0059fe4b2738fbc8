// Query parameter binding (docs/language.md, "Parameters"): JSON parameters -> typed Values per the
// query's declared parameter types. Deviation from the reference: undeclared
// parameters are an error, and Date/DateTime accept ISO strings and integers alike.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "compiler/query_ast.h"
#include "omnigraph/result.h"
#include "omnigraph/value.h"

namespace omnigraph::compiler {

using ParamValues = std::map<std::string, Value>;  // name without '$' -> value

// Binds `params` (a JSON object, or null for "no parameters") to `decls`. Every declared parameter
// gets a value: omitted or null nullable ones are typed nulls. Rules: String/Bool as JSON
// string/bool; I32/U32 JSON integers in range; I64/U64 JSON integers or decimal strings; F32/F64
// any JSON number; Date ISO "YYYY-MM-DD" string or epoch-day integer; DateTime ISO string or
// epoch-ms integer; Blob "base64:..." string; Vector(n) array of n numbers; [T] array of T.
// Errors (InvalidArgument, message naming the parameter): not an object, undeclared key, missing
// or null non-nullable parameter, a name given both bare and with '$', wrong JSON type,
// out-of-range number (F32 and Vector elements: FitsF32), bad date, wrong length.
// Pure; thread-safe.
Result<ParamValues> BindParams(const std::vector<ParamDecl>& decls, const Json& params);
// Same, from JSON text (empty text = no parameters); a member name repeated within one object (at
// any depth) is an error, as in load lines.
Result<ParamValues> BindParamsJson(const std::vector<ParamDecl>& decls, std::string_view json);

// Binds typed values (names with or without '$'): a non-null value whose type is the declared one
// is taken as it is (F32 and vector elements must fit F32); any other value goes through the JSON
// rules above as its JSON form (common/output_json.h), so an I64 for an I32 parameter must fit and
// a String for a Date must be an ISO date. Errors as BindParams. Pure; thread-safe.
Result<ParamValues> BindParamValues(const std::vector<ParamDecl>& decls, const ParamValues& given);

// Converts one JSON value to `type` (the rules above); `what` names it in errors.
Result<Value> JsonToValue(const Json& value, const DataType& type, std::string_view what);

// Decodes standard base64 (RFC 4648, padding optional); InvalidArgument on bad input.
Result<std::string> DecodeBase64(std::string_view text);

}  // namespace omnigraph::compiler
