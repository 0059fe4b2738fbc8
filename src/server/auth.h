// Bearer-token authentication (docs/server.md, "Authentication"). Tokens come from the
// environment: OMNIGRAPH_SERVER_BEARER_TOKENS_AWS_SECRET (AWS Secrets Manager: `unimplemented`
// here) alone when set; else OMNIGRAPH_SERVER_BEARER_TOKEN (one token, actor "default") together
// with OMNIGRAPH_SERVER_BEARER_TOKENS_FILE (a JSON file {"actor": "token", ...}) or, when no file
// is named, OMNIGRAPH_SERVER_BEARER_TOKENS_JSON (the same object inline). Values are trimmed.
// Only SHA-256 digests of the tokens are kept; a presented token is hashed and compared with every
// digest in constant time, so neither the table nor the timing reveals a token. The actor of a
// request is the actor its token belongs to; nothing the client sends names it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/result.h"

namespace omnigraph::server {

class TokenTable {
 public:
  // Reads the sources above through `getenv` (a parameter so tests need not touch the process
  // environment). `invalid_argument` for a malformed file or object, a blank actor or token, an
  // actor named twice or one token given twice; `unimplemented` for the AWS source.
  static Result<TokenTable> FromEnvironment(const std::function<std::optional<std::string>(const char*)>& getenv);
  // actor -> token pairs (tests, --store servers embedding the server).
  static Result<TokenTable> FromPairs(const std::vector<std::pair<std::string, std::string>>& actor_tokens);

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  const std::string& source() const { return source_; }  // which variable they came from

  // The actor whose token `token` is, or nullopt. Takes the same time for every wrong token.
  std::optional<std::string> Authenticate(std::string_view token) const;

 private:
  struct Entry {
    std::array<uint8_t, 32> digest;
    std::string actor;
  };
  std::vector<Entry> entries_;
  std::string source_;
};

// The token of an `Authorization: Bearer <token>` header value, or nullopt when it is not one:
// exactly "Bearer " then the token verbatim, visible ASCII only.
std::optional<std::string> ParseBearer(std::string_view header_value);

}  // namespace omnigraph::server
