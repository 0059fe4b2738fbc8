#include "io/s3/s3_xml.h"

#include <tinyxml2.h>

#include <charconv>

#include "common/error_codes.h"

namespace omnigraph::io::s3 {
namespace {

std::string TextOf(const tinyxml2::XMLElement* parent, const char* name) {
  const tinyxml2::XMLElement* e = parent == nullptr ? nullptr : parent->FirstChildElement(name);
  const char* t = e == nullptr ? nullptr : e->GetText();
  return t == nullptr ? "" : t;
}

bool Parse(tinyxml2::XMLDocument* doc, std::string_view body) {
  return doc->Parse(body.data(), body.size()) == tinyxml2::XML_SUCCESS;
}

Status Malformed(std::string_view what, std::string_view body) {
  return CorruptError("the S3 endpoint answered a malformed " + std::string(what) +
                      " body: " + std::string(body.substr(0, 200)));
}

}  // namespace

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string ParseErrorCode(std::string_view body) {
  tinyxml2::XMLDocument doc;
  if (body.empty() || !Parse(&doc, body)) return "";
  const tinyxml2::XMLElement* root = doc.RootElement();
  if (root == nullptr || std::string_view(root->Name()) != "Error") return "";
  return TextOf(root, "Code");
}

std::string DescribeErrorBody(std::string_view body) {
  tinyxml2::XMLDocument doc;
  if (!body.empty() && Parse(&doc, body)) {
    const tinyxml2::XMLElement* root = doc.RootElement();
    if (root != nullptr && std::string_view(root->Name()) == "Error") {
      return TextOf(root, "Code") + ": " + TextOf(root, "Message");
    }
  }
  return std::string(body.substr(0, 200));
}

Result<ListPageResult> ParseListObjectsV2(std::string_view body) {
  tinyxml2::XMLDocument doc;
  if (!Parse(&doc, body)) return Malformed("ListObjectsV2", body);
  const tinyxml2::XMLElement* root = doc.RootElement();
  if (root == nullptr || std::string_view(root->Name()) != "ListBucketResult") return Malformed("ListObjectsV2", body);
  ListPageResult out;
  out.truncated = TextOf(root, "IsTruncated") == "true";
  out.next_continuation_token = TextOf(root, "NextContinuationToken");
  for (const tinyxml2::XMLElement* c = root->FirstChildElement("Contents"); c != nullptr;
       c = c->NextSiblingElement("Contents")) {
    ListedObject o;
    o.key = TextOf(c, "Key");
    const std::string size = TextOf(c, "Size");
    auto [p, ec] = std::from_chars(size.data(), size.data() + size.size(), o.size);
    if (o.key.empty() || ec != std::errc() || p != size.data() + size.size()) return Malformed("ListObjectsV2", body);
    out.objects.push_back(std::move(o));
  }
  return out;
}

std::string DeleteObjectsBody(const std::vector<std::string>& keys) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete><Quiet>true</Quiet>";
  for (const auto& k : keys) out += "<Object><Key>" + XmlEscape(k) + "</Key></Object>";
  return out + "</Delete>";
}

Result<std::vector<std::string>> ParseDeleteErrors(std::string_view body) {
  tinyxml2::XMLDocument doc;
  if (!Parse(&doc, body)) return Malformed("DeleteObjects", body);
  const tinyxml2::XMLElement* root = doc.RootElement();
  if (root == nullptr || std::string_view(root->Name()) != "DeleteResult") return Malformed("DeleteObjects", body);
  std::vector<std::string> out;
  for (const tinyxml2::XMLElement* e = root->FirstChildElement("Error"); e != nullptr;
       e = e->NextSiblingElement("Error")) {
    out.push_back(TextOf(e, "Key") + ": " + TextOf(e, "Code") + " " + TextOf(e, "Message"));
  }
  return out;
}

Result<std::string> ParseUploadId(std::string_view body) {
  tinyxml2::XMLDocument doc;
  if (!Parse(&doc, body)) return Malformed("CreateMultipartUpload", body);
  const std::string id = TextOf(doc.RootElement(), "UploadId");
  if (id.empty()) return Malformed("CreateMultipartUpload", body);
  return id;
}

std::string CompleteMultipartBody(const std::vector<std::pair<int, std::string>>& parts) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><CompleteMultipartUpload>";
  for (const auto& [n, etag] : parts) {
    out += "<Part><PartNumber>" + std::to_string(n) + "</PartNumber><ETag>" + XmlEscape(etag) + "</ETag></Part>";
  }
  return out + "</CompleteMultipartUpload>";
}

}  // namespace omnigraph::io::s3
