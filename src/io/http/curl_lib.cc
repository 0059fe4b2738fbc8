#include "io/http/curl_lib.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "common/error_codes.h"

namespace omnigraph::io {
namespace {

struct Loaded {
  CurlLib lib{};
  Status status;
};

template <typename F>
bool Resolve(void* handle, const char* name, F* out, std::string* missing) {
  *out = reinterpret_cast<F>(dlsym(handle, name));
  if (*out == nullptr && missing->empty()) *missing = name;
  return *out != nullptr;
}

Loaded Load() {
  Loaded l;
  // RTLD_LOCAL: libcurl's own dependencies (OpenSSL among them) stay out of the global symbol scope.
  void* handle = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    l.status = IoError(std::string("libcurl.so.4 could not be loaded (S3 and embedding requests need Debian's "
                                   "libcurl4 package): ") +
                       (why != nullptr ? why : "unknown error"));
    return l;
  }
  std::string missing;
  CurlLib& c = l.lib;
  Resolve(handle, "curl_easy_init", &c.easy_init, &missing);
  Resolve(handle, "curl_easy_setopt", &c.easy_setopt, &missing);
  Resolve(handle, "curl_easy_perform", &c.easy_perform, &missing);
  Resolve(handle, "curl_easy_getinfo", &c.easy_getinfo, &missing);
  Resolve(handle, "curl_easy_cleanup", &c.easy_cleanup, &missing);
  Resolve(handle, "curl_easy_reset", &c.easy_reset, &missing);
  Resolve(handle, "curl_easy_strerror", &c.easy_strerror, &missing);
  Resolve(handle, "curl_slist_append", &c.slist_append, &missing);
  Resolve(handle, "curl_slist_free_all", &c.slist_free_all, &missing);
  CURLcode (*global_init)(long) = nullptr;
  Resolve(handle, "curl_global_init", &global_init, &missing);
  if (!missing.empty()) {
    l.status = IoError("libcurl.so.4 has no " + missing + "");
    return l;
  }
  const CURLcode rc = global_init(CURL_GLOBAL_DEFAULT);
  if (rc != CURLE_OK) l.status = IoError("curl_global_init failed with code " + std::to_string(static_cast<int>(rc)));
  return l;
}

}  // namespace

Result<const CurlLib*> Curl() {
  static const Loaded* loaded = new Loaded(Load());  // never freed: handles may outlive static destructors
  OG_RETURN_IF_ERROR(loaded->status);
  return &loaded->lib;
}

}  // namespace omnigraph::io
