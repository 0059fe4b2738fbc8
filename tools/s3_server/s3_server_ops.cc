// The S3 operations of the test server (s3_server_ops.h): request → operation → Store call →
// response. Strict like AWS S3 where it matters to a client: conditional writes, ranges, digests,
// part sizes, error codes.
#include "s3_server/s3_server_ops.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string_view>

#include "common/base64.h"
#include "io/s3/sigv4.h"
#include "s3_server/s3_server_errors.h"
#include "s3_server/s3_server_xml.h"

namespace omnigraph::s3server {
namespace {

constexpr char kXmlType[] = "application/xml";
constexpr char kObjectType[] = "binary/octet-stream";   // what S3 answers for an object stored without a type
constexpr uint64_t kMaxObjectSize = uint64_t{5} << 30;  // 5 GiB: PutObject and UploadPart
constexpr size_t kMaxDeleteKeys = 1000;
constexpr uint64_t kMaxListKeys = 1000;
constexpr uint64_t kMaxPartNumber = 10000;
constexpr size_t kMaxKeyBytes = 1024;
constexpr size_t kReadChunk = size_t{256} << 10;

// The query parameters S3 treats as subresources (they name an operation or a sub-object).
constexpr std::string_view kSubresources[] = {
    "accelerate",   "acl",
    "analytics",    "attributes",
    "cors",         "delete",
    "encryption",   "intelligent-tiering",
    "inventory",    "legal-hold",
    "lifecycle",    "list-type",
    "location",     "logging",
    "metrics",      "notification",
    "object-lock",  "ownershipControls",
    "partNumber",   "policy",
    "policyStatus", "publicAccessBlock",
    "replication",  "requestPayment",
    "restore",      "retention",
    "select",       "tagging",
    "torrent",      "uploadId",
    "uploads",      "versionId",
    "versioning",   "versions",
    "website",
};

struct ByteRange {
  uint64_t first = 0;
  uint64_t last = 0;  // inclusive
};

Status NotImplemented(const S3Request& r, std::string_view what) {
  return S3Failure("NotImplemented", "A header or query you provided implies functionality that is not implemented: " +
                                         std::string(what) + " (" + r.method + " " + r.raw_path + ")");
}

// The first subresource in the query that is not in `allowed` ("" when none).
std::string OtherSubresource(const S3Request& r, std::initializer_list<std::string_view> allowed) {
  for (const auto& param : r.query) {
    const std::string_view name = param.first;
    const bool subresource =
        std::find(std::begin(kSubresources), std::end(kSubresources), name) != std::end(kSubresources);
    if (subresource && std::find(allowed.begin(), allowed.end(), name) == allowed.end()) return param.first;
  }
  return std::string();
}

Status SubresourceNotImplemented(const S3Request& r, const std::string& subresource) {
  return NotImplemented(r, "the '" + subresource + "' subresource");
}

bool ParseUint(std::string_view text, uint64_t* out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

void SetXml(httplib::Response* res, int status, const std::string& xml) {
  res->status = status;
  res->set_content(xml, kXmlType);
}

// Content-MD5 (base64 of the body's MD5): InvalidDigest when it is not one, BadDigest when it
// differs; when absent, InvalidRequest if `required`.
Status CheckContentMd5(const S3Request& r, bool required) {
  if (!r.HasHeader("Content-MD5")) {
    if (!required) return Status::Ok();
    return S3Failure("InvalidRequest", "Missing required header for this request: Content-MD5");
  }
  std::string raw;
  if (!Base64Decode(Trim(r.Header("Content-MD5")), &raw) || raw.size() != 16) {
    return S3Failure("InvalidDigest", "The Content-MD5 you specified is not valid.");
  }
  if (io::s3::HexEncode(raw) != io::s3::Md5Hex(r.body)) {
    return S3Failure("BadDigest", "The Content-MD5 you specified did not match what we received.");
  }
  return Status::Ok();
}

// CRC-32 (IEEE 802.3, as zlib), for x-amz-checksum-crc32; bitwise, the bodies checked are small.
uint32_t Crc32(std::string_view data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (const char c : data) {
    crc ^= static_cast<unsigned char>(c);
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

// The integrity header DeleteObjects requires, as S3: Content-MD5, or a flexible checksum (what
// the AWS SDKs send since 2025: x-amz-checksum-crc32 with x-amz-sdk-checksum-algorithm: CRC32).
// CRC32 and SHA256 are checked (BadDigest when they differ); other algorithms are NotImplemented.
Status CheckDeleteDigest(const S3Request& r) {
  if (r.HasHeader("Content-MD5")) return CheckContentMd5(r, /*required=*/true);
  const bool crc32 = r.HasHeader("x-amz-checksum-crc32");
  const bool sha256 = r.HasHeader("x-amz-checksum-sha256");
  if (!crc32 && !sha256) {
    for (const char* other : {"x-amz-checksum-crc32c", "x-amz-checksum-crc64nvme", "x-amz-checksum-sha1"}) {
      if (r.HasHeader(other)) return NotImplemented(r, std::string(other) + " (use Content-MD5, CRC32 or SHA256)");
    }
    return S3Failure("InvalidRequest", "Missing required header for this request: Content-MD5");
  }
  const std::string name = crc32 ? "x-amz-checksum-crc32" : "x-amz-checksum-sha256";
  std::string raw;
  if (!Base64Decode(Trim(r.Header(name)), &raw) || raw.size() != (crc32 ? 4u : 32u)) {
    return S3Failure("InvalidRequest", "Value for " + name + " header is invalid.");
  }
  bool match = false;
  if (crc32) {
    const uint32_t crc = Crc32(r.body);
    const unsigned char want[4] = {static_cast<unsigned char>(crc >> 24), static_cast<unsigned char>(crc >> 16),
                                   static_cast<unsigned char>(crc >> 8), static_cast<unsigned char>(crc)};
    match = std::equal(raw.begin(), raw.end(), std::begin(want), std::end(want),
                       [](char a, unsigned char b) { return static_cast<unsigned char>(a) == b; });
  } else {
    match = io::s3::HexEncode(raw) == io::s3::Sha256Hex(r.body);
  }
  if (!match) {
    return S3Failure("BadDigest", std::string("The ") + (crc32 ? "CRC32" : "SHA256") +
                                      " you specified did not match the calculated checksum.");
  }
  return Status::Ok();
}

// The checks of a body that becomes an object or a part.
Status CheckUploadBody(const S3Request& r) {
  if (!r.HasHeader("Content-Length")) {
    return S3Failure("MissingContentLength", "You must provide the Content-Length HTTP header.");
  }
  if (r.body.size() > kMaxObjectSize) {
    return S3Failure("EntityTooLarge", "Your proposed upload exceeds the maximum allowed size (5 GiB)");
  }
  return CheckContentMd5(r, /*required=*/false);
}

// If-None-Match (only "*", as S3) and If-Match of a write.
Result<WriteConditions> ParseConditions(const S3Request& r) {
  WriteConditions conditions;
  if (r.HasHeader("If-None-Match")) {
    if (Trim(r.Header("If-None-Match")) != "*") return NotImplemented(r, "If-None-Match with a value other than *");
    conditions.if_none_match = true;
  }
  if (r.HasHeader("If-Match")) conditions.if_match = Trim(r.Header("If-Match"));
  return conditions;
}

// The one byte range of a Range header, as S3 reads it: nullopt (the whole object) when there is
// none, it is not a single "bytes=" range, it is unparsable, or the object is empty; InvalidRange
// (with Content-Range: bytes */size) when it starts at or past the end.
Result<std::optional<ByteRange>> ParseRange(const S3Request& r, uint64_t size, httplib::Response* res) {
  constexpr std::string_view kUnit = "bytes=";
  if (!r.HasHeader("Range") || size == 0) return std::optional<ByteRange>();
  const std::string header = r.Header("Range");
  std::string_view spec(header);
  if (!spec.starts_with(kUnit)) return std::optional<ByteRange>();
  spec.remove_prefix(kUnit.size());
  const size_t dash = spec.find('-');
  if (dash == std::string_view::npos || spec.find(',') != std::string_view::npos) return std::optional<ByteRange>();
  const std::string_view first_text = spec.substr(0, dash);
  const std::string_view last_text = spec.substr(dash + 1);
  ByteRange range;
  auto unsatisfiable = [&]() -> Status {
    res->set_header("Content-Range", "bytes */" + std::to_string(size));
    return S3Failure("InvalidRange", "The requested range is not satisfiable");
  };
  if (first_text.empty()) {  // "bytes=-N": the last N bytes
    uint64_t n = 0;
    if (!ParseUint(last_text, &n)) return std::optional<ByteRange>();
    if (n == 0) return unsatisfiable();
    range.first = n >= size ? 0 : size - n;
    range.last = size - 1;
    return std::optional<ByteRange>(range);
  }
  if (!ParseUint(first_text, &range.first)) return std::optional<ByteRange>();
  range.last = size - 1;
  if (!last_text.empty()) {
    if (!ParseUint(last_text, &range.last) || range.last < range.first) return std::optional<ByteRange>();
  }
  if (range.first >= size) return unsatisfiable();
  range.last = std::min(range.last, size - 1);
  return std::optional<ByteRange>(range);
}

void SetObjectHeaders(const ObjectInfo& info, httplib::Response* res) {
  res->set_header("ETag", info.etag);
  res->set_header("Last-Modified", HttpTime(info.mtime_ms));
  res->set_header("Accept-Ranges", "bytes");
}

// Streams `length` bytes of `file` from `first` (httplib asks for the body piece by piece).
void SetBodyFromFile(std::shared_ptr<ReadableFile> file, uint64_t first, uint64_t length, httplib::Response* res) {
  res->set_content_provider(static_cast<size_t>(length), kObjectType,
                            [file = std::move(file), first](size_t offset, size_t want, httplib::DataSink& sink) {
                              std::string buf(std::min(want, kReadChunk), '\0');
                              Result<size_t> n = file->ReadAt(buf.data(), buf.size(), first + offset);
                              if (!n.ok() || *n == 0) return false;  // a failed read aborts the connection mid-body
                              return sink.write(buf.data(), *n);
                            });
}

}  // namespace

Status Operations::Run(const S3Request& r, httplib::Response* res) {
  if (r.bucket.empty()) {
    if (r.method == "GET" && OtherSubresource(r, {}).empty()) return ListBuckets(res);
    return NotImplemented(r, "this request on the service");
  }
  if (r.key.empty()) return RunBucket(r, res);
  if (r.key.size() > kMaxKeyBytes) return S3Failure("KeyTooLongError", "Your key is too long");
  return RunObject(r, res);
}

Status Operations::RunBucket(const S3Request& r, httplib::Response* res) {
  if (r.method == "GET") {
    if (std::string sub = OtherSubresource(r, {"list-type"}); !sub.empty()) return SubresourceNotImplemented(r, sub);
    if (r.Param("list-type") != "2") return NotImplemented(r, "ListObjects version 1 (use list-type=2)");
    return ListObjectsV2(r, res);
  }
  if (r.method == "POST") {
    if (std::string sub = OtherSubresource(r, {"delete"}); !sub.empty()) return SubresourceNotImplemented(r, sub);
    if (!r.HasParam("delete")) return NotImplemented(r, "POST on a bucket without ?delete");
    return DeleteObjects(r, res);
  }
  if (std::string sub = OtherSubresource(r, {}); !sub.empty()) return SubresourceNotImplemented(r, sub);
  if (r.method == "PUT") return CreateBucket(r, res);
  if (r.method == "HEAD") return HeadBucket(r, res);
  if (r.method == "DELETE") return NotImplemented(r, "DeleteBucket");
  return NotImplemented(r, "the method " + r.method);
}

Status Operations::RunObject(const S3Request& r, httplib::Response* res) {
  if (r.method == "PUT") {
    if (std::string sub = OtherSubresource(r, {"partNumber", "uploadId"}); !sub.empty()) {
      return SubresourceNotImplemented(r, sub);
    }
    if (r.HasHeader("x-amz-copy-source")) return NotImplemented(r, "CopyObject / UploadPartCopy");
    if (r.HasParam("partNumber") || r.HasParam("uploadId")) return UploadPart(r, res);
    return PutObject(r, res);
  }
  if (r.method == "GET" || r.method == "HEAD") {
    if (std::string sub = OtherSubresource(r, {}); !sub.empty()) return SubresourceNotImplemented(r, sub);
    return GetObject(r, res);
  }
  if (r.method == "DELETE") {
    if (std::string sub = OtherSubresource(r, {"uploadId"}); !sub.empty()) return SubresourceNotImplemented(r, sub);
    return r.HasParam("uploadId") ? AbortMultipartUpload(r, res) : DeleteObject(r, res);
  }
  if (r.method == "POST") {
    if (std::string sub = OtherSubresource(r, {"uploads", "uploadId"}); !sub.empty()) {
      return SubresourceNotImplemented(r, sub);
    }
    if (r.HasParam("uploads")) return CreateMultipartUpload(r, res);
    if (r.HasParam("uploadId")) return CompleteMultipartUpload(r, res);
    return NotImplemented(r, "POST on an object without ?uploads or ?uploadId");
  }
  return NotImplemented(r, "the method " + r.method);
}

// --- buckets ---

Status Operations::ListBuckets(httplib::Response* res) {
  SetXml(res, 200, ListBucketsXml(store_->ListBuckets()));
  return Status::Ok();
}

Status Operations::CreateBucket(const S3Request& r, httplib::Response* res) {
  OG_RETURN_IF_ERROR(store_->CreateBucket(r.bucket));  // a CreateBucketConfiguration body is ignored
  res->status = 200;
  res->set_header("Location", "/" + r.bucket);
  return Status::Ok();
}

Status Operations::HeadBucket(const S3Request& r, httplib::Response* res) {
  OG_RETURN_IF_ERROR(store_->HeadBucket(r.bucket));
  res->status = 200;
  res->set_header("x-amz-bucket-region", "us-east-1");
  return Status::Ok();
}

Status Operations::ListObjectsV2(const S3Request& r, httplib::Response* res) {
  ListQuery query;
  query.prefix = r.Param("prefix");
  query.delimiter = r.Param("delimiter");
  query.start_after = r.Param("start-after");
  query.continuation_token = r.Param("continuation-token");
  if (r.HasParam("max-keys")) {
    uint64_t max_keys = 0;
    if (!ParseUint(r.Param("max-keys"), &max_keys)) {
      return S3Failure("InvalidArgument", "Provided max-keys not an integer or within integer range");
    }
    query.max_keys = static_cast<int>(std::min<uint64_t>(max_keys, kMaxListKeys));
  }
  const std::string encoding = r.Param("encoding-type");
  if (r.HasParam("encoding-type") && encoding != "url") {
    return S3Failure("InvalidArgument", "Invalid Encoding Method specified in Request");
  }
  OG_ASSIGN_OR_RETURN(const ListPage page, store_->ListObjects(r.bucket, query));
  ListObjectsEcho echo;
  echo.bucket = r.bucket;
  echo.prefix = query.prefix;
  echo.delimiter = query.delimiter;
  echo.start_after = query.start_after;
  echo.continuation_token = query.continuation_token;
  echo.max_keys = query.max_keys;
  echo.url_encoding = encoding == "url";
  SetXml(res, 200, ListObjectsV2Xml(echo, page));
  return Status::Ok();
}

Status Operations::DeleteObjects(const S3Request& r, httplib::Response* res) {
  OG_RETURN_IF_ERROR(store_->HeadBucket(r.bucket));
  OG_RETURN_IF_ERROR(CheckDeleteDigest(r));
  OG_ASSIGN_OR_RETURN(const DeleteRequest request, ParseDeleteXml(r.body));
  if (request.keys.size() > kMaxDeleteKeys) {
    return S3Failure("MalformedXML", "The XML you provided lists more than 1000 keys");
  }
  std::vector<DeleteOutcome> outcomes;
  for (const std::string& key : request.keys) {
    DeleteOutcome outcome{key, std::nullopt};
    if (Status s = store_->DeleteObject(r.bucket, key); !s.ok()) outcome.error = ToS3Error(s);
    outcomes.push_back(std::move(outcome));
  }
  SetXml(res, 200, DeleteResultXml(outcomes, request.quiet));
  return Status::Ok();
}

// --- objects ---

Status Operations::PutObject(const S3Request& r, httplib::Response* res) {
  OG_RETURN_IF_ERROR(CheckUploadBody(r));
  OG_ASSIGN_OR_RETURN(const WriteConditions conditions, ParseConditions(r));
  OG_ASSIGN_OR_RETURN(const ObjectInfo info, store_->PutObject(r.bucket, r.key, r.body, conditions));
  res->status = 200;
  res->set_header("ETag", info.etag);
  return Status::Ok();
}

Status Operations::GetObject(const S3Request& r, httplib::Response* res) {
  const bool head = r.method == "HEAD";
  OpenedObject object;
  if (head) {
    OG_ASSIGN_OR_RETURN(object.info, store_->HeadObject(r.bucket, r.key));
  } else {
    OG_ASSIGN_OR_RETURN(object, store_->OpenObject(r.bucket, r.key));
  }
  const uint64_t size = object.info.size;
  OG_ASSIGN_OR_RETURN(const std::optional<ByteRange> range, ParseRange(r, size, res));
  const uint64_t first = range.has_value() ? range->first : 0;
  const uint64_t length = range.has_value() ? range->last - range->first + 1 : size;
  res->status = range.has_value() ? 206 : 200;
  SetObjectHeaders(object.info, res);
  if (range.has_value()) {
    res->set_header("Content-Range", "bytes " + std::to_string(range->first) + "-" + std::to_string(range->last) + "/" +
                                         std::to_string(size));
  }
  if (head) {
    // No body: httplib keeps a Content-Length we set when the body is empty.
    res->set_header("Content-Length", std::to_string(length));
    res->set_header("Content-Type", kObjectType);
  } else if (length == 0) {
    res->set_content("", kObjectType);  // httplib adds Content-Length: 0
  } else {
    SetBodyFromFile(object.file, first, length, res);
  }
  return Status::Ok();
}

Status Operations::DeleteObject(const S3Request& r, httplib::Response* res) {
  OG_RETURN_IF_ERROR(store_->DeleteObject(r.bucket, r.key));
  res->status = 204;
  return Status::Ok();
}

// --- multipart uploads ---

Status Operations::CreateMultipartUpload(const S3Request& r, httplib::Response* res) {
  OG_ASSIGN_OR_RETURN(const std::string upload_id, store_->CreateUpload(r.bucket, r.key));
  SetXml(res, 200, InitiateMultipartUploadXml(r.bucket, r.key, upload_id));
  return Status::Ok();
}

Status Operations::UploadPart(const S3Request& r, httplib::Response* res) {
  uint64_t number = 0;
  if (!r.HasParam("uploadId") || !r.HasParam("partNumber")) {
    return S3Failure("InvalidRequest", "UploadPart needs both partNumber and uploadId");
  }
  if (!ParseUint(r.Param("partNumber"), &number) || number < 1 || number > kMaxPartNumber) {
    return S3Failure("InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive");
  }
  OG_RETURN_IF_ERROR(CheckUploadBody(r));
  OG_ASSIGN_OR_RETURN(const std::string etag,
                      store_->UploadPart(r.bucket, r.key, r.Param("uploadId"), static_cast<int>(number), r.body));
  res->status = 200;
  res->set_header("ETag", etag);
  return Status::Ok();
}

Status Operations::CompleteMultipartUpload(const S3Request& r, httplib::Response* res) {
  OG_ASSIGN_OR_RETURN(const std::vector<CompletedPart> parts, ParseCompleteXml(r.body));
  OG_ASSIGN_OR_RETURN(const WriteConditions conditions, ParseConditions(r));
  OG_ASSIGN_OR_RETURN(const ObjectInfo info,
                      store_->CompleteUpload(r.bucket, r.key, r.Param("uploadId"), parts, conditions));
  const std::string location = "http://" + r.Header("Host") + r.raw_path;
  SetXml(res, 200, CompleteMultipartUploadXml(location, r.bucket, r.key, info.etag));
  return Status::Ok();
}

Status Operations::AbortMultipartUpload(const S3Request& r, httplib::Response* res) {
  OG_RETURN_IF_ERROR(store_->AbortUpload(r.bucket, r.key, r.Param("uploadId")));
  res->status = 204;
  return Status::Ok();
}

}  // namespace omnigraph::s3server
