#include "engine/graph/sealed_json.h"

#include <algorithm>
#include <cstdio>

#include "common/error_codes.h"
#include "common/hash.h"

namespace omnigraph::engine {

std::string Digest16(std::string_view bytes) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XxHash64(bytes)));
  return std::string(hex, 16);
}

std::string SealJson(Json body) {
  std::string sum = Digest16(CanonicalJson(body));
  body[std::string(kChecksumMember)] = std::move(sum);
  return CanonicalJson(body);
}

Result<UnsealedJson> UnsealJson(std::string_view bytes, std::string_view what) {
  const std::string w(what);
  OG_ASSIGN_OR_RETURN(Json j, ParseJson(bytes, w, /*corrupt=*/true));
  if (!j.is_object()) return CorruptError(w + ": not a JSON object");
  UnsealedJson out;
  auto it = j.find(std::string(kChecksumMember));
  if (it == j.end()) {
    out.body = std::move(j);
    return out;
  }
  if (!it->is_string()) return CorruptError(w + ": checksum is not a string");
  const std::string stored = it->get<std::string>();
  // Exactly the canonical bytes: then every changed byte changes the parsed value (or breaks the
  // parse), and the checksum below catches the changed value.
  if (CanonicalJson(j) != bytes) return CorruptError(w + ": not in canonical form (damaged)");
  j.erase(it);
  if (Digest16(CanonicalJson(j)) != stored) return CorruptError(w + ": checksum mismatch (damaged)");
  out.body = std::move(j);
  out.sealed = true;
  return out;
}

Status CheckLegacyMembers(const Json& j, std::initializer_list<std::string_view> allowed, std::string_view what) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
      return CorruptError(std::string(what) + ": unexpected member '" + it.key() + "' (damaged)");
    }
  }
  return Status::Ok();
}

}  // namespace omnigraph::engine
