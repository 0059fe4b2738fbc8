#include "io/store_uri.h"

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "common/error_codes.h"
#include "common/hash.h"
#include "io/memory_store.h"
#include "io/s3/s3_store.h"

namespace omnigraph::io {
namespace {

Status BadUri(std::string_view uri, std::string_view why) {
  return Status(ErrorCode::kBadUri, "invalid storage URI '" + std::string(uri) + "': " + std::string(why));
}

std::string EnvOr(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::mutex& RegistryMu() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, std::shared_ptr<MemoryStore>>& Registry() {
  static std::map<std::string, std::shared_ptr<MemoryStore>> r;
  return r;
}

Result<std::string> AbsolutePath(std::string_view uri, std::string_view path) {
  if (path.empty()) return BadUri(uri, "empty path");
  if (path.front() == '/') return NormalizePath(path);
  char buf[4096];
  if (::getcwd(buf, sizeof(buf)) == nullptr) return ErrnoError("getcwd", errno);
  return NormalizePath(std::string(buf) + "/" + std::string(path));
}

// Decodes the percent escapes of a file:// URI's path (RFC 3986: "%20" is a space). A '%' not
// followed by two hex digits, and an escaped NUL, are bad_uri.
Result<std::string> PercentDecode(std::string_view uri, std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    const int hi = i + 1 < text.size() ? HexDigitValue(text[i + 1]) : -1;
    const int lo = i + 2 < text.size() ? HexDigitValue(text[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      return BadUri(uri, "'%' at offset " + std::to_string(i) +
                             " is not followed by two hex digits (write %25 for a literal '%')");
    }
    const char c = static_cast<char>(hi * 16 + lo);
    if (c == '\0') return BadUri(uri, "an escaped NUL (%00) cannot be part of a path");
    out.push_back(c);
    i += 2;
  }
  return out;
}

}  // namespace

std::string NormalizePath(std::string_view p) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string_view::npos) j = p.size();
    std::string_view seg = p.substr(i, j - i);
    if (seg == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!seg.empty() && seg != ".") {
      parts.push_back(seg);
    }
    i = j + 1;
  }
  std::string out;
  for (auto seg : parts) {
    out += "/";
    out += seg;
  }
  return out.empty() ? "/" : out;
}

std::string StoreUri::ToString() const {
  switch (scheme) {
    case StoreScheme::kFile: {
      // '%' is the one character that must be escaped for the URI to parse back to this path.
      std::string out = "file://";
      for (char c : path) out += c == '%' ? std::string("%25") : std::string(1, c);
      return out;
    }
    case StoreScheme::kMemory: return "memory://" + path;
    case StoreScheme::kS3: return "s3://" + bucket + (prefix.empty() ? "" : "/" + prefix);
  }
  return "";
}

Result<StoreUri> ParseStoreUri(std::string_view uri) {
  if (uri.empty()) return BadUri(uri, "empty");
  StoreUri out;
  size_t sep = uri.find("://");
  if (sep == std::string_view::npos) {
    OG_ASSIGN_OR_RETURN(out.path, AbsolutePath(uri, uri));
    return out;
  }
  std::string_view scheme = uri.substr(0, sep);
  std::string_view rest = uri.substr(sep + 3);
  if (scheme == "file") {
    OG_ASSIGN_OR_RETURN(std::string path, PercentDecode(uri, rest));
    OG_ASSIGN_OR_RETURN(out.path, AbsolutePath(uri, path));
    return out;
  }
  if (scheme == "memory") {
    if (rest.empty()) return BadUri(uri, "memory:// needs a name");
    out.scheme = StoreScheme::kMemory;
    out.path = std::string(rest);
    return out;
  }
  if (scheme == "s3") {
    out.scheme = StoreScheme::kS3;
    size_t slash = rest.find('/');
    out.bucket = std::string(rest.substr(0, slash));
    if (out.bucket.empty()) return BadUri(uri, "s3:// needs a bucket");
    if (slash != std::string_view::npos) {
      std::string_view prefix = rest.substr(slash + 1);
      while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
      out.prefix = std::string(prefix);
    }
    return out;
  }
  return BadUri(uri, "unknown scheme '" + std::string(scheme) + "' (use a path, file://, memory:// or s3://)");
}

Result<std::shared_ptr<ObjectStore>> OpenStore(const StoreUri& uri, OpenStoreOptions options) {
  switch (uri.scheme) {
    case StoreScheme::kFile: {
      LocalStoreOptions lo = LocalStore::DefaultOptions();
      lo.create_root = options.create;
      lo.writable = options.writable;
      if (options.fsync) lo.fsync = *options.fsync;
      OG_ASSIGN_OR_RETURN(std::unique_ptr<LocalStore> s, LocalStore::Open(uri.path, lo));
      return std::shared_ptr<ObjectStore>(std::move(s));
    }
    case StoreScheme::kMemory: {
      std::lock_guard lock(RegistryMu());
      auto& slot = Registry()[uri.path];
      if (!slot) slot = std::make_shared<MemoryStore>(uri.path);
      return std::shared_ptr<ObjectStore>(slot);
    }
    case StoreScheme::kS3: {
      OG_ASSIGN_OR_RETURN(s3::S3Config config, s3::S3Config::FromEnvironment());
      s3::S3StoreOptions so;
      so.writable = options.writable;
      so.unsafe_single_writer = options.unsafe_single_writer || s3::EnvTruthy(EnvOr("OMNIGRAPH_UNSAFE_SINGLE_WRITER"));
      OG_ASSIGN_OR_RETURN(std::unique_ptr<s3::S3Store> s,
                          s3::S3Store::Open(std::move(config), uri.bucket, uri.prefix, so));
      return std::shared_ptr<ObjectStore>(std::move(s));
    }
  }
  return InternalError("unknown store scheme");
}

Result<std::shared_ptr<ObjectStore>> OpenStore(std::string_view uri, OpenStoreOptions options) {
  OG_ASSIGN_OR_RETURN(StoreUri parsed, ParseStoreUri(uri));
  return OpenStore(parsed, options);
}

void ForgetMemoryStore(const std::string& name) {
  std::lock_guard lock(RegistryMu());
  Registry().erase(name);
}

}  // namespace omnigraph::io
