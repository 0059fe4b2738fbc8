// AWS Signature Version 4 (docs/architecture.md, "The object store"): the request signer the S3
// backend uses and the verifier the test server (tools/s3_server) uses, one implementation for
// both sides so a signature either side makes the other checks. Header-based signing only (no
// presigned URLs, no chunked payload signing). Pure functions on OpenSSL; thread-safe.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "omnigraph/result.h"

namespace omnigraph::io::s3 {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty unless temporary credentials (sent as x-amz-security-token)
};

// "YYYYMMDD", region, service: the credential scope's varying parts.
struct SigningScope {
  std::string date;
  std::string region;
  std::string service = "s3";
  std::string ToString() const { return date + "/" + region + "/" + service + "/aws4_request"; }
};

// What a signature covers.
struct SignableRequest {
  std::string method;  // "GET", "PUT", ...
  // The path as sent on the wire, already URI-encoded once (RFC 3986; '/' kept): "/bucket/a%20b".
  std::string encoded_path;
  // Query parameters, decoded. A parameter without a value ("?uploads") has an empty value.
  std::vector<std::pair<std::string, std::string>> query;
  // Headers to sign (any case; names are lower-cased, values trimmed, inner runs of spaces
  // collapsed, repeated names joined with ','). Must include host and x-amz-date.
  std::vector<std::pair<std::string, std::string>> headers;
  // Lower-case hex SHA-256 of the body, or "UNSIGNED-PAYLOAD".
  std::string payload_hash;
};

// Lower-case hex of `bytes`.
std::string HexEncode(std::string_view bytes);
// SHA-256 of `data`, lower-case hex.
std::string Sha256Hex(std::string_view data);
// HMAC-SHA256 of `data` under `key`, raw 32 bytes.
std::string HmacSha256(std::string_view key, std::string_view data);
// MD5 of `data`: lower-case hex (ETags), and base64 (Content-MD5).
std::string Md5Hex(std::string_view data);
std::string Md5Base64(std::string_view data);
// RFC 3986 percent-encoding as SigV4 wants it: unreserved characters (A-Z a-z 0-9 - _ . ~) as
// they are, everything else %XX with upper-case hex; '/' kept unless `encode_slash`.
std::string UriEncode(std::string_view text, bool encode_slash);
// Decodes %XX escapes ('+' is not a space). InvalidArgument on a malformed escape.
Result<std::string> UriDecode(std::string_view text);
// "YYYYMMDDTHHMMSSZ" for a UTC time.
std::string AmzDate(std::time_t t);

// The canonical request; `signed_headers` receives the ';'-joined sorted lower-case names.
std::string CanonicalRequest(const SignableRequest& request, std::string* signed_headers);
// "AWS4-HMAC-SHA256\n<amz_date>\n<scope>\n<hex sha256 of the canonical request>".
std::string StringToSign(std::string_view amz_date, const SigningScope& scope, std::string_view canonical_request);
// HMAC chain "AWS4"+secret -> date -> region -> service -> "aws4_request" (raw bytes).
std::string SigningKey(std::string_view secret_access_key, const SigningScope& scope);
// The signature (lower-case hex) of `request` made at `amz_date`.
std::string Sign(const Credentials& credentials, const SigningScope& scope, std::string_view amz_date,
                 const SignableRequest& request);
// The Authorization header value: "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...".
std::string AuthorizationHeader(const Credentials& credentials, const SigningScope& scope, std::string_view amz_date,
                                const SignableRequest& request);

// An Authorization header taken apart (the verifier's side).
struct ParsedAuthorization {
  std::string access_key_id;
  SigningScope scope;
  std::vector<std::string> signed_headers;  // lower-case, in the header's order
  std::string signature;
};
// InvalidArgument when the header is not a well-formed AWS4-HMAC-SHA256 authorization.
Result<ParsedAuthorization> ParseAuthorization(std::string_view header);

}  // namespace omnigraph::io::s3
