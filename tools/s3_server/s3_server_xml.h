// The XML of the S3 test server: response bodies (errors, ListAllMyBucketsResult,
// ListBucketResult v2, multipart results, DeleteResult) and the request bodies it parses
// (Delete, CompleteMultipartUpload; with tinyxml2). Parse failures are S3Failure statuses
// (MalformedXML). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/s3/s3_xml.h"
#include "omnigraph/result.h"
#include "s3_server/s3_server_errors.h"
#include "s3_server/s3_server_store.h"

namespace omnigraph::s3server {

using io::s3::XmlEscape;  // shared with the client (io/s3/s3_xml.h)
// "2009-10-12T17:50:30.000Z" (ListObjectsV2, ListBuckets).
std::string IsoTime(int64_t ms);
// "Mon, 12 Oct 2009 17:50:30 GMT" (Last-Modified).
std::string HttpTime(int64_t ms);

std::string ErrorXml(const S3Error& error, std::string_view resource, std::string_view request_id);
std::string ListBucketsXml(const std::vector<BucketSummary>& buckets);

// What a ListObjectsV2 response echoes from its request.
struct ListObjectsEcho {
  std::string bucket;
  std::string prefix;
  std::string delimiter;
  std::string start_after;         // empty: not given
  std::string continuation_token;  // empty: not given
  int max_keys = 1000;
  bool url_encoding = false;  // encoding-type=url: keys and prefixes are URI-encoded
};
std::string ListObjectsV2Xml(const ListObjectsEcho& echo, const ListPage& page);

std::string InitiateMultipartUploadXml(std::string_view bucket, std::string_view key, std::string_view upload_id);
std::string CompleteMultipartUploadXml(std::string_view location, std::string_view bucket, std::string_view key,
                                       std::string_view etag);

// One key of DeleteObjects and what became of it.
struct DeleteOutcome {
  std::string key;
  std::optional<S3Error> error;  // nullopt: deleted
};
// Quiet: only the failures are listed.
std::string DeleteResultXml(const std::vector<DeleteOutcome>& outcomes, bool quiet);

struct DeleteRequest {
  std::vector<std::string> keys;
  bool quiet = false;
};
// <Delete><Object><Key>k</Key></Object>...<Quiet>true</Quiet></Delete>. MalformedXML, and
// NotImplemented for <VersionId>.
Result<DeleteRequest> ParseDeleteXml(std::string_view body);

// <CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"..."</ETag></Part>...
// MalformedXML.
Result<std::vector<CompletedPart>> ParseCompleteXml(std::string_view body);

}  // namespace omnigraph::s3server
