// The XML bodies of the S3 test server (s3_server_xml.h).
#include "s3_server/s3_server_xml.h"

#include <tinyxml2.h>

#include <charconv>
#include <cstdio>
#include <ctime>

#include "io/s3/sigv4.h"

namespace omnigraph::s3server {
namespace {

constexpr std::string_view kXmlHeader = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
constexpr std::string_view kNamespace = " xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"";

// "<name>escaped text</name>".
std::string Element(std::string_view name, std::string_view text) {
  return "<" + std::string(name) + ">" + XmlEscape(text) + "</" + std::string(name) + ">";
}

// The XML declaration and the opening tag of a result element.
std::string Opening(std::string_view root) {
  return std::string(kXmlHeader) + "<" + std::string(root) + std::string(kNamespace) + ">";
}

std::string FormatUtc(int64_t ms, const char* format) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  const size_t n = std::strftime(buf, sizeof(buf), format, &tm);
  return std::string(buf, n);
}

Status Malformed(std::string_view why) {
  return S3Failure("MalformedXML",
                   "The XML you provided was not well-formed or did not validate against our published schema (" +
                       std::string(why) + ")");
}

// Parses `body` and checks the root element's name.
Result<const tinyxml2::XMLElement*> ParseRoot(tinyxml2::XMLDocument* doc, std::string_view body,
                                              std::string_view root_name) {
  if (body.empty() || doc->Parse(body.data(), body.size()) != tinyxml2::XML_SUCCESS) return Malformed("unparsable");
  const tinyxml2::XMLElement* root = doc->RootElement();
  if (root == nullptr || root_name != root->Name()) {
    return Malformed("the root element is not " + std::string(root_name));
  }
  return root;
}

std::string TextOf(const tinyxml2::XMLElement* element) {
  const char* text = element->GetText();
  return text == nullptr ? std::string() : std::string(text);
}

Result<DeleteRequest> ParseDeleteElements(const tinyxml2::XMLElement* root) {
  DeleteRequest out;
  for (const tinyxml2::XMLElement* e = root->FirstChildElement(); e != nullptr; e = e->NextSiblingElement()) {
    const std::string_view name = e->Name();
    if (name == "Quiet") {
      const std::string text = TextOf(e);
      if (text != "true" && text != "false") return Malformed("Quiet is not true or false");
      out.quiet = text == "true";
      continue;
    }
    if (name != "Object") return Malformed("unexpected element " + std::string(name));
    const tinyxml2::XMLElement* key = nullptr;
    for (const tinyxml2::XMLElement* c = e->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
      const std::string_view child = c->Name();
      if (child == "VersionId") return S3Failure("NotImplemented", "DeleteObjects with VersionId is not implemented");
      if (child != "Key" || key != nullptr) return Malformed("unexpected element " + std::string(child) + " in Object");
      key = c;
    }
    if (key == nullptr || TextOf(key).empty()) return Malformed("an Object without a Key");
    out.keys.push_back(TextOf(key));
  }
  return out;
}

Result<CompletedPart> ParsePart(const tinyxml2::XMLElement* part) {
  CompletedPart out;
  bool have_number = false;
  bool have_etag = false;
  for (const tinyxml2::XMLElement* c = part->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
    const std::string_view name = c->Name();
    if (name == "PartNumber" && !have_number) {
      const std::string text = TextOf(c);
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out.number);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return Malformed("bad PartNumber");
      have_number = true;
    } else if (name == "ETag" && !have_etag) {
      out.etag = TextOf(c);
      have_etag = true;
    } else if (!name.starts_with("Checksum")) {  // checksums are accepted and not checked
      return Malformed("unexpected element " + std::string(name) + " in Part");
    }
  }
  if (!have_number || !have_etag) return Malformed("a Part needs PartNumber and ETag");
  return out;
}

}  // namespace

std::string IsoTime(int64_t ms) {
  char millis[16];
  std::snprintf(millis, sizeof(millis), ".%03d", static_cast<int>(ms % 1000));
  return FormatUtc(ms, "%Y-%m-%dT%H:%M:%S") + millis + "Z";
}

std::string HttpTime(int64_t ms) { return FormatUtc(ms, "%a, %d %b %Y %H:%M:%S GMT"); }

std::string ErrorXml(const S3Error& error, std::string_view resource, std::string_view request_id) {
  return std::string(kXmlHeader) + "<Error>" + Element("Code", error.code) + Element("Message", error.message) +
         Element("Resource", resource) + Element("RequestId", request_id) + "</Error>";
}

std::string ListBucketsXml(const std::vector<BucketSummary>& buckets) {
  std::string out = Opening("ListAllMyBucketsResult");
  out += "<Owner>" + Element("ID", "omnigraph") + Element("DisplayName", "omnigraph") + "</Owner><Buckets>";
  for (const BucketSummary& b : buckets) {
    out += "<Bucket>" + Element("Name", b.name) + Element("CreationDate", IsoTime(b.created_ms)) + "</Bucket>";
  }
  return out + "</Buckets></ListAllMyBucketsResult>";
}

std::string ListObjectsV2Xml(const ListObjectsEcho& echo, const ListPage& page) {
  auto encoded = [&](std::string_view s) {
    return echo.url_encoding ? io::s3::UriEncode(s, /*encode_slash=*/false) : std::string(s);
  };
  std::string out = Opening("ListBucketResult");
  out += Element("Name", echo.bucket) + Element("Prefix", encoded(echo.prefix));
  if (!echo.delimiter.empty()) out += Element("Delimiter", encoded(echo.delimiter));
  if (!echo.start_after.empty()) out += Element("StartAfter", encoded(echo.start_after));
  if (!echo.continuation_token.empty()) out += Element("ContinuationToken", echo.continuation_token);
  if (echo.url_encoding) out += Element("EncodingType", "url");
  out += Element("KeyCount", std::to_string(page.contents.size() + page.common_prefixes.size()));
  out += Element("MaxKeys", std::to_string(echo.max_keys));
  out += Element("IsTruncated", page.truncated ? "true" : "false");
  if (page.truncated) out += Element("NextContinuationToken", page.next_token);
  for (const ListedObject& o : page.contents) {
    out += "<Contents>" + Element("Key", encoded(o.key)) + Element("LastModified", IsoTime(o.info.mtime_ms)) +
           Element("ETag", o.info.etag) + Element("Size", std::to_string(o.info.size)) +
           Element("StorageClass", "STANDARD") + "</Contents>";
  }
  for (const std::string& p : page.common_prefixes) {
    out += "<CommonPrefixes>" + Element("Prefix", encoded(p)) + "</CommonPrefixes>";
  }
  return out + "</ListBucketResult>";
}

std::string InitiateMultipartUploadXml(std::string_view bucket, std::string_view key, std::string_view upload_id) {
  return Opening("InitiateMultipartUploadResult") + Element("Bucket", bucket) + Element("Key", key) +
         Element("UploadId", upload_id) + "</InitiateMultipartUploadResult>";
}

std::string CompleteMultipartUploadXml(std::string_view location, std::string_view bucket, std::string_view key,
                                       std::string_view etag) {
  return Opening("CompleteMultipartUploadResult") + Element("Location", location) + Element("Bucket", bucket) +
         Element("Key", key) + Element("ETag", etag) + "</CompleteMultipartUploadResult>";
}

std::string DeleteResultXml(const std::vector<DeleteOutcome>& outcomes, bool quiet) {
  std::string out = Opening("DeleteResult");
  for (const DeleteOutcome& o : outcomes) {
    if (o.error.has_value()) {
      out += "<Error>" + Element("Key", o.key) + Element("Code", o.error->code) + Element("Message", o.error->message) +
             "</Error>";
    } else if (!quiet) {
      out += "<Deleted>" + Element("Key", o.key) + "</Deleted>";
    }
  }
  return out + "</DeleteResult>";
}

Result<DeleteRequest> ParseDeleteXml(std::string_view body) {
  tinyxml2::XMLDocument doc;
  OG_ASSIGN_OR_RETURN(const tinyxml2::XMLElement* root, ParseRoot(&doc, body, "Delete"));
  return ParseDeleteElements(root);
}

Result<std::vector<CompletedPart>> ParseCompleteXml(std::string_view body) {
  tinyxml2::XMLDocument doc;
  OG_ASSIGN_OR_RETURN(const tinyxml2::XMLElement* root, ParseRoot(&doc, body, "CompleteMultipartUpload"));
  std::vector<CompletedPart> parts;
  for (const tinyxml2::XMLElement* e = root->FirstChildElement(); e != nullptr; e = e->NextSiblingElement()) {
    if (std::string_view(e->Name()) != "Part") return Malformed("unexpected element " + std::string(e->Name()));
    OG_ASSIGN_OR_RETURN(CompletedPart part, ParsePart(e));
    parts.push_back(std::move(part));
  }
  if (parts.empty()) return Malformed("no Part");
  return parts;
}

}  // namespace omnigraph::s3server
