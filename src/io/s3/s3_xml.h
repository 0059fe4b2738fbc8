// The XML bodies of the S3 API the backend reads and writes (tinyxml2): errors, ListObjectsV2,
// DeleteObjects, multipart uploads. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "omnigraph/result.h"

namespace omnigraph::io::s3 {

// The <Code> of an <Error> body; "" when the body is not one.
std::string ParseErrorCode(std::string_view body);
// "<Code>: <Message>" of an <Error> body, or a prefix of the body.
std::string DescribeErrorBody(std::string_view body);

struct ListedObject {
  std::string key;
  uint64_t size = 0;
};
struct ListPageResult {
  std::vector<ListedObject> objects;
  bool truncated = false;
  std::string next_continuation_token;
};
// A ListBucketResult (ListObjectsV2). `corrupt` if the body is not one.
Result<ListPageResult> ParseListObjectsV2(std::string_view body);

// The body of a DeleteObjects request (quiet mode) for at most 1000 keys.
std::string DeleteObjectsBody(const std::vector<std::string>& keys);
// The keys a DeleteResult reports as failed, with their codes ("key: code message").
Result<std::vector<std::string>> ParseDeleteErrors(std::string_view body);

// The UploadId of an InitiateMultipartUploadResult.
Result<std::string> ParseUploadId(std::string_view body);
// The body of CompleteMultipartUpload: (part number, ETag) in order.
std::string CompleteMultipartBody(const std::vector<std::pair<int, std::string>>& parts);

// Escapes & < > " ' for XML text.
std::string XmlEscape(std::string_view text);

}  // namespace omnigraph::io::s3
