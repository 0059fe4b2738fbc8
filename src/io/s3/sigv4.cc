#include "io/s3/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/md5.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "common/error_codes.h"
#include "common/hash.h"

namespace omnigraph::io::s3 {
namespace {

std::string Digest(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, md, nullptr);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Trims the value and collapses inner runs of spaces to one (the canonical header value).
std::string CanonicalValue(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

std::string Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

std::string HexEncode(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string Sha256Hex(std::string_view data) { return HexEncode(Digest(EVP_sha256(), data)); }

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string Md5Hex(std::string_view data) { return HexEncode(Digest(EVP_md5(), data)); }

std::string Md5Base64(std::string_view data) {
  const std::string raw = Digest(EVP_md5(), data);
  unsigned char out[64];
  const int n = EVP_EncodeBlock(out, reinterpret_cast<const unsigned char*>(raw.data()), static_cast<int>(raw.size()));
  return std::string(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
}

std::string UriEncode(std::string_view text, bool encode_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                            c == '_' || c == '.' || c == '~';
    if (unreserved || (c == '/' && !encode_slash)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

Result<std::string> UriDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    const int hi = i + 1 < text.size() ? HexDigitValue(text[i + 1]) : -1;
    const int lo = i + 2 < text.size() ? HexDigitValue(text[i + 2]) : -1;
    if (hi < 0 || lo < 0) return InvalidArgumentError("malformed percent escape in '" + std::string(text) + "'");
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::string AmzDate(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

std::string CanonicalRequest(const SignableRequest& r, std::string* signed_headers) {
  std::vector<std::pair<std::string, std::string>> query;
  query.reserve(r.query.size());
  for (const auto& [k, v] : r.query) query.emplace_back(UriEncode(k, true), UriEncode(v, true));
  std::sort(query.begin(), query.end());
  std::map<std::string, std::string> headers;  // sorted by lower-case name
  for (const auto& [k, v] : r.headers) {
    std::string& slot = headers[Lower(k)];
    slot += (slot.empty() ? "" : ",") + CanonicalValue(v);
  }
  std::string out = r.method + "\n" + (r.encoded_path.empty() ? "/" : r.encoded_path) + "\n";
  for (size_t i = 0; i < query.size(); ++i) out += (i ? "&" : "") + query[i].first + "=" + query[i].second;
  out += "\n";
  std::string names;
  for (const auto& [k, v] : headers) {
    out += k + ":" + v + "\n";
    names += (names.empty() ? "" : ";") + k;
  }
  out += "\n" + names + "\n" + r.payload_hash;
  if (signed_headers != nullptr) *signed_headers = names;
  return out;
}

std::string StringToSign(std::string_view amz_date, const SigningScope& scope, std::string_view canonical_request) {
  return "AWS4-HMAC-SHA256\n" + std::string(amz_date) + "\n" + scope.ToString() + "\n" + Sha256Hex(canonical_request);
}

std::string SigningKey(std::string_view secret_access_key, const SigningScope& scope) {
  std::string k = HmacSha256("AWS4" + std::string(secret_access_key), scope.date);
  k = HmacSha256(k, scope.region);
  k = HmacSha256(k, scope.service);
  return HmacSha256(k, "aws4_request");
}

std::string Sign(const Credentials& credentials, const SigningScope& scope, std::string_view amz_date,
                 const SignableRequest& request) {
  const std::string canonical = CanonicalRequest(request, nullptr);
  return HexEncode(
      HmacSha256(SigningKey(credentials.secret_access_key, scope), StringToSign(amz_date, scope, canonical)));
}

std::string AuthorizationHeader(const Credentials& credentials, const SigningScope& scope, std::string_view amz_date,
                                const SignableRequest& request) {
  std::string names;
  const std::string canonical = CanonicalRequest(request, &names);
  const std::string signature =
      HexEncode(HmacSha256(SigningKey(credentials.secret_access_key, scope), StringToSign(amz_date, scope, canonical)));
  return "AWS4-HMAC-SHA256 Credential=" + credentials.access_key_id + "/" + scope.ToString() +
         ", SignedHeaders=" + names + ", Signature=" + signature;
}

Result<ParsedAuthorization> ParseAuthorization(std::string_view header) {
  auto bad = [&](std::string_view why) {
    return InvalidArgumentError("malformed Authorization header (" + std::string(why) + ")");
  };
  constexpr std::string_view kAlgo = "AWS4-HMAC-SHA256 ";
  if (header.substr(0, kAlgo.size()) != kAlgo) return bad("not AWS4-HMAC-SHA256");
  header.remove_prefix(kAlgo.size());
  std::map<std::string, std::string> parts;
  size_t i = 0;
  while (i <= header.size()) {
    size_t j = header.find(',', i);
    if (j == std::string_view::npos) j = header.size();
    const std::string part = Trim(header.substr(i, j - i));
    const size_t eq = part.find('=');
    if (eq == std::string::npos) return bad("a part without '='");
    parts[part.substr(0, eq)] = part.substr(eq + 1);
    i = j + 1;
  }
  if (!parts.count("Credential") || !parts.count("SignedHeaders") || !parts.count("Signature")) {
    return bad("Credential, SignedHeaders and Signature are required");
  }
  ParsedAuthorization out;
  // Credential=<key>/<date>/<region>/<service>/aws4_request (the key itself has no '/').
  std::vector<std::string> cred;
  const std::string& c = parts["Credential"];
  for (size_t a = 0, b; a <= c.size(); a = b + 1) {
    b = c.find('/', a);
    if (b == std::string::npos) b = c.size();
    cred.push_back(c.substr(a, b - a));
  }
  if (cred.size() != 5 || cred[4] != "aws4_request" || cred[0].empty()) return bad("bad Credential scope");
  out.access_key_id = cred[0];
  out.scope = SigningScope{cred[1], cred[2], cred[3]};
  const std::string& names = parts["SignedHeaders"];
  for (size_t a = 0, b; a <= names.size(); a = b + 1) {
    b = names.find(';', a);
    if (b == std::string::npos) b = names.size();
    if (b == a) return bad("empty name in SignedHeaders");
    out.signed_headers.push_back(Lower(names.substr(a, b - a)));
  }
  out.signature = parts["Signature"];
  if (out.signature.size() != 64) return bad("the signature is not 64 hex digits");
  return out;
}

}  // namespace omnigraph::io::s3
