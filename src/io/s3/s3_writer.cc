// S3Store::NewWriter: an object written in pieces. Up to one part size it is buffered and created
// with one conditional PUT; past it, a multipart upload streams full parts as they fill and is
// completed with `If-None-Match: *` (so the create stays atomic and exclusive). An uncommitted or
// failed upload is aborted, so no parts are left billed.
#include "common/error_codes.h"
#include "io/s3/s3_store.h"
#include "io/s3/s3_xml.h"

namespace omnigraph::io::s3 {
namespace {

std::string StripQuotes(std::string s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

// The ETag S3 gives a multipart object: MD5 of the parts' binary MD5s, "-", the part count.
std::string MultipartEtag(const std::vector<std::pair<int, std::string>>& parts) {
  std::string raw;
  for (const auto& [n, etag] : parts) {
    const std::string hex = StripQuotes(etag);
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
      raw.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return Md5Hex(raw) + "-" + std::to_string(parts.size());
}

class S3Writer final : public ObjectWriter {
 public:
  S3Writer(S3Store* store, std::string key) : store_(store), key_(std::move(key)), full_(store->FullKey(key_)) {}
  ~S3Writer() override {
    if (!upload_id_.empty() && !completed_) Abort();
  }

  Status Append(std::string_view bytes) override {
    if (committed_) return InvalidArgumentError("ObjectWriter::Append after Commit");
    buffer_.append(bytes);
    size_ += bytes.size();
    const uint64_t part = store_->http().config().part_size;
    while (buffer_.size() >= part) {
      OG_RETURN_IF_ERROR(UploadPart(std::string_view(buffer_).substr(0, part)));
      buffer_.erase(0, part);
    }
    return Status::Ok();
  }

  Status Commit() override {
    if (committed_) return InvalidArgumentError("ObjectWriter::Commit called twice");
    committed_ = true;
    if (upload_id_.empty()) return store_->PutIfAbsent(key_, buffer_);
    if (!buffer_.empty()) OG_RETURN_IF_ERROR(UploadPart(buffer_));
    buffer_.clear();
    const std::string body = CompleteMultipartBody(parts_);
    OG_ASSIGN_OR_RETURN(
        HttpResponse r,
        store_->http().Send(
            {"POST", store_->bucket(), full_, {{"uploadId", upload_id_}}, {{"if-none-match", "*"}}, body}));
    // An ambiguous earlier attempt may have completed the upload: then the object has our ETag.
    if (r.status == 412 || (r.status == 404 && r.ambiguous)) {
      Status s = store_->ResolveLostCreate(r, full_, MultipartEtag(parts_));
      if (s.ok()) completed_ = true;
      return s;
    }
    // CompleteMultipartUpload can fail inside a 200 answer.
    if (r.status == 200 && ParseErrorCode(r.body).empty()) {
      completed_ = true;
      return Status::Ok();
    }
    if (r.status == 200) r.status = 500;
    return S3Store::ErrorFor(r, "multipart create", key_);
  }

  void SizeHint(uint64_t bytes) override {
    const uint64_t part = store_->http().config().part_size;
    if (bytes <= part && bytes > buffer_.capacity()) buffer_.reserve(bytes);
  }
  uint64_t size() const override { return size_; }

 private:
  Status UploadPart(std::string_view bytes) {
    if (upload_id_.empty()) {
      OG_RETURN_IF_ERROR(store_->WriteGate());
      OG_ASSIGN_OR_RETURN(HttpResponse r,
                          store_->http().Send({"POST", store_->bucket(), full_, {{"uploads", ""}}, {}, {}}));
      if (r.status != 200) return S3Store::ErrorFor(r, "multipart start", key_);
      OG_ASSIGN_OR_RETURN(upload_id_, ParseUploadId(r.body));
    }
    const int n = static_cast<int>(parts_.size()) + 1;
    OG_ASSIGN_OR_RETURN(HttpResponse r,
                        store_->http().Send({"PUT",
                                             store_->bucket(),
                                             full_,
                                             {{"partNumber", std::to_string(n)}, {"uploadId", upload_id_}},
                                             {},
                                             bytes}));
    if (r.status != 200) return S3Store::ErrorFor(r, "multipart part " + std::to_string(n), key_);
    auto it = r.headers.find("etag");
    if (it == r.headers.end()) return CorruptError("the S3 endpoint answered a part upload without an ETag");
    parts_.emplace_back(n, it->second);
    return Status::Ok();
  }

  void Abort() {
    auto r = store_->http().Send({"DELETE", store_->bucket(), full_, {{"uploadId", upload_id_}}, {}, {}});
    (void)r;  // best effort: a bucket lifecycle rule reclaims what an abort could not
  }

  S3Store* store_;
  std::string key_, full_;
  std::string buffer_;
  uint64_t size_ = 0;
  std::string upload_id_;
  std::vector<std::pair<int, std::string>> parts_;
  bool committed_ = false, completed_ = false;
};

}  // namespace

Result<std::unique_ptr<ObjectWriter>> S3Store::NewWriter(std::string_view key) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  OG_RETURN_IF_ERROR(WriteGate());
  return std::unique_ptr<ObjectWriter>(std::make_unique<S3Writer>(this, std::string(key)));
}

}  // namespace omnigraph::io::s3
