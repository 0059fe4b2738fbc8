#include "server/auth.h"

#include <openssl/crypto.h>

#include <set>
#include <utility>

#include "common/error_codes.h"
#include "common/file_util.h"
#include "common/hash.h"
#include "common/json.h"

namespace omnigraph::server {

namespace {
std::string Trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t' || v.front() == '\n' || v.front() == '\r'))
    v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\n' || v.back() == '\r'))
    v.remove_suffix(1);
  return std::string(v);
}
}  // namespace

Result<TokenTable> TokenTable::FromPairs(const std::vector<std::pair<std::string, std::string>>& pairs) {
  TokenTable t;
  std::set<std::array<uint8_t, 32>> seen;
  std::set<std::string> actors;
  for (const auto& [raw_actor, raw_token] : pairs) {
    const std::string actor = Trim(raw_actor), token = Trim(raw_token);
    if (actor.empty()) return InvalidArgumentError("a bearer token is given for a blank actor name");
    if (token.empty()) return InvalidArgumentError("bearer token for actor '" + actor + "' must not be blank");
    if (!actors.insert(actor).second) return InvalidArgumentError("duplicate bearer token actor '" + actor + "'");
    Entry e{Sha256(token), actor};
    if (!seen.insert(e.digest).second) return InvalidArgumentError("duplicate bearer token value configured");
    t.entries_.push_back(std::move(e));
  }
  return t;
}

Result<TokenTable> TokenTable::FromEnvironment(const std::function<std::optional<std::string>(const char*)>& getenv) {
  auto set = [&](const char* name) -> std::optional<std::string> {
    auto v = getenv(name);
    if (!v) return std::nullopt;
    std::string t = Trim(*v);
    return t.empty() ? std::nullopt : std::optional<std::string>(t);
  };
  if (set("OMNIGRAPH_SERVER_BEARER_TOKENS_AWS_SECRET")) {
    return UnimplementedError(
        "OMNIGRAPH_SERVER_BEARER_TOKENS_AWS_SECRET: reading tokens from AWS Secrets Manager is not implemented; "
        "use OMNIGRAPH_SERVER_BEARER_TOKENS_FILE or OMNIGRAPH_SERVER_BEARER_TOKENS_JSON");
  }
  // The single token (actor `default`) and the file (else the inline object) add up.
  std::vector<std::pair<std::string, std::string>> pairs;
  std::string source;
  if (auto one = set("OMNIGRAPH_SERVER_BEARER_TOKEN")) {
    pairs.emplace_back("default", *one);
    source = "OMNIGRAPH_SERVER_BEARER_TOKEN";
  }
  std::optional<std::string> object_text;
  std::string what;
  if (auto path = set("OMNIGRAPH_SERVER_BEARER_TOKENS_FILE")) {
    OG_ASSIGN_OR_RETURN(object_text, ReadSourceFile(*path, "bearer tokens file"));
    what = "bearer tokens file " + *path;
    source += std::string(source.empty() ? "" : " + ") + "OMNIGRAPH_SERVER_BEARER_TOKENS_FILE";
  } else if (auto inline_json = set("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON")) {
    object_text = *inline_json;
    what = "OMNIGRAPH_SERVER_BEARER_TOKENS_JSON";
    source += std::string(source.empty() ? "" : " + ") + "OMNIGRAPH_SERVER_BEARER_TOKENS_JSON";
  }
  if (object_text) {
    OG_ASSIGN_OR_RETURN(Json j, ParseJsonUnique(*object_text, what));
    if (!j.is_object()) return InvalidArgumentError(what + " must be a JSON object of actor->token");
    for (const auto& [actor, token] : j.items()) {
      if (!token.is_string()) return InvalidArgumentError(what + " must be a JSON object of actor->token");
      pairs.emplace_back(actor, token.get<std::string>());
    }
  }
  OG_ASSIGN_OR_RETURN(TokenTable t, FromPairs(pairs));
  t.source_ = source;
  return t;
}

std::optional<std::string> TokenTable::Authenticate(std::string_view token) const {
  const std::array<uint8_t, 32> digest = Sha256(token);
  const Entry* match = nullptr;
  for (const Entry& e : entries_) {  // every entry is compared: no early exit on a match
    if (CRYPTO_memcmp(e.digest.data(), digest.data(), digest.size()) == 0) match = &e;
  }
  if (match == nullptr) return std::nullopt;
  return match->actor;
}

std::optional<std::string> ParseBearer(std::string_view v) {
  constexpr std::string_view kScheme = "Bearer ";  // exactly, as the existing server compares it
  if (!v.starts_with(kScheme)) return std::nullopt;
  for (char c : v) {
    if (c < 0x20 || c > 0x7e) return std::nullopt;  // visible ASCII only
  }
  std::string_view token = v.substr(kScheme.size());
  if (token.empty()) return std::nullopt;
  return std::string(token);
}

}  // namespace omnigraph::server
