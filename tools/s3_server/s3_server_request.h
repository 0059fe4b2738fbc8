// One S3 request as the test server sees it after addressing: bucket, key, decoded query, body,
// and the underlying httplib request for headers. Built by S3Server (s3_server.cc), read by the
// operations (s3_server_ops.cc).
#pragma once

#include <httplib.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace omnigraph::s3server {

struct S3Request {
  const httplib::Request* http = nullptr;
  std::string method;
  std::string raw_path;  // the request-target's path exactly as received (still percent-encoded)
  std::string bucket;    // empty: the service itself (ListBuckets)
  std::string key;       // decoded; empty: the bucket itself
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in request order
  std::string body;
  std::string request_id;

  bool HasParam(std::string_view name) const {
    for (const auto& param : query) {
      if (param.first == name) return true;
    }
    return false;
  }
  // The first value of the parameter ("" when absent).
  std::string Param(std::string_view name) const {
    for (const auto& param : query) {
      if (param.first == name) return param.second;
    }
    return std::string();
  }
  // Header lookups are case-insensitive.
  bool HasHeader(const std::string& name) const { return http->has_header(name); }
  std::string Header(const std::string& name) const { return http->get_header_value(name); }
};

}  // namespace omnigraph::s3server
