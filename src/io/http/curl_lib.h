// libcurl, loaded on first use instead of at process start.
//
// libcurl brings about thirty shared libraries with it (TLS, Kerberos, LDAP, SSH, IDN, ...). Linked
// normally, every process pays for loading and relocating all of them — about half the start-up
// time of `omnigraph` — even though only S3 stores and embedding requests ever speak HTTP through
// it. So nothing links libcurl: the first caller of `Curl()` dlopens `libcurl.so.4` (the soname
// Debian's libcurl4 package installs) and resolves the few entry points we use. The header still
// comes from libcurl's -dev package, so types and constants are checked at compile time.
#pragma once

#include <curl/curl.h>

#include "omnigraph/result.h"

namespace omnigraph::io {

// The libcurl entry points we call, resolved once per process. Member names avoid libcurl's own
// names, which its header may define as type-checking macros.
struct CurlLib {
  CURL* (*easy_init)();
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  void (*easy_cleanup)(CURL*);
  void (*easy_reset)(CURL*);
  const char* (*easy_strerror)(CURLcode);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
};

// The loaded library (curl_global_init done), or `unavailable` naming what could not be loaded.
// Thread-safe; the library stays loaded for the life of the process.
[[nodiscard]] Result<const CurlLib*> Curl();

}  // namespace omnigraph::io
