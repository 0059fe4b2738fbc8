# Every third-party dependency (docs/architecture.md, "Code conventions"), all from Debian packages
# installed by scripts/setup.sh. Nothing is vendored or downloaded.
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)

pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
find_package(roaring REQUIRED)
find_package(simdjson REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(CURL REQUIRED)
# Only libcurl's headers are compiled against: the library is dlopened on first use
# (src/io/http/curl_lib.h), so processes that never speak HTTP do not load its ~30 dependencies.
add_library(og_curl_headers INTERFACE)
target_include_directories(og_curl_headers INTERFACE ${CURL_INCLUDE_DIRS})
find_package(OpenSSL REQUIRED)

find_library(STEMMER_LIB stemmer REQUIRED)
find_library(TINYXML2_LIB tinyxml2 REQUIRED)
find_path(STEMMER_INCLUDE libstemmer.h REQUIRED)
find_path(HNSWLIB_INCLUDE hnswlib/hnswlib.h REQUIRED)
# Debian's cpp-httplib is a compiled library whose pkg-config file carries the feature defines
# (CPPHTTPLIB_OPENSSL_SUPPORT, ...). They change the layout of httplib's types, so every target that
# includes httplib.h must link this imported target.
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET GLOBAL cpp-httplib)
# Boost.Beast (header-only, with Boost.Asio's buffers): omnigraph-server's HTTP (src/server/http_listener.cc).
find_package(Boost 1.81 REQUIRED CONFIG COMPONENTS headers)

if(OG_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(OG_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
