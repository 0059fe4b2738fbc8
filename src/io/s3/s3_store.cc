#include "io/s3/s3_store.h"

#include <cstdint>

#include "common/error_codes.h"
#include "common/ulid.h"
#include "io/s3/s3_xml.h"

namespace omnigraph::io::s3 {
namespace {

std::string StripQuotes(std::string s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

bool Ok2xx(const HttpResponse& r) { return r.status >= 200 && r.status < 300; }

}  // namespace

S3Store::S3Store(S3Config config, std::string bucket, std::string prefix, S3StoreOptions options)
    : http_(std::move(config)), bucket_(std::move(bucket)), prefix_(std::move(prefix)), options_(options) {}

Result<std::unique_ptr<S3Store>> S3Store::Open(S3Config config, std::string bucket, std::string prefix,
                                               S3StoreOptions options) {
  if (bucket.empty()) return Status(ErrorCode::kStoreConfig, "an S3 store needs a bucket");
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  while (!prefix.empty() && prefix.front() == '/') prefix.erase(0, 1);
  std::unique_ptr<S3Store> store(new S3Store(std::move(config), std::move(bucket), std::move(prefix), options));
  if (options.writable && options.probe) {
    OG_ASSIGN_OR_RETURN(bool enforced, store->ProbeConditionalWrites());
    if (!enforced && !options.unsafe_single_writer) store->writes_refused_ = true;
  }
  return store;
}

std::string S3Store::FullKey(std::string_view key) const {
  return prefix_.empty() ? std::string(key) : prefix_ + "/" + std::string(key);
}

std::string S3Store::Describe() const { return "s3://" + bucket_ + (prefix_.empty() ? "" : "/" + prefix_); }

Status S3Store::WriteGate() const {
  if (!writes_refused_) return Status::Ok();
  return Status(ErrorCode::kStoreNoConditionalWrites,
                "the S3 endpoint " + http_.config().EffectiveEndpoint() + " ignores conditional writes (a second " +
                    "PUT with If-None-Match: * of one key succeeded), so " + Describe() +
                    " cannot be written safely: concurrent writers would overwrite each other's commits. Use a store "
                    "that honours If-None-Match, or allow exactly one writer with --unsafe-single-writer "
                    "(OMNIGRAPH_UNSAFE_SINGLE_WRITER=1)");
}

Status S3Store::ErrorFor(const HttpResponse& r, std::string_view op, std::string_view key) {
  const std::string what = std::string(op) + " of '" + std::string(key) + "'";
  const std::string detail = r.body.empty() ? "HTTP " + std::to_string(r.status)
                                            : "HTTP " + std::to_string(r.status) + " " + DescribeErrorBody(r.body);
  const std::string code = ParseErrorCode(r.body);
  switch (r.status) {
    case 404:
      if (code == "NoSuchBucket") return NotFoundError(what + ": the bucket does not exist (" + detail + ")");
      return NotFoundError(what + ": not found (" + detail + ")");
    case 401:
    case 403: return PermissionDeniedError(what + " was refused by the S3 endpoint (" + detail + ")");
    case 412: return Status(ErrorCode::kPreconditionFailed, what + ": precondition failed (" + detail + ")");
    case 416: return Status(ErrorCode::kRangeOutOfBounds, what + ": range not satisfiable (" + detail + ")");
    case 429: return Status(ErrorCode::kStoreThrottled, what + ": throttled after every retry (" + detail + ")");
    default: break;
  }
  if (r.status == 503 && code == "SlowDown") {
    return Status(ErrorCode::kStoreThrottled, what + ": throttled after every retry (" + detail + ")");
  }
  if (r.status >= 500 || (r.status == 409 && code == "ConditionalRequestConflict")) {
    return TransientError(what + " failed after " + std::to_string(r.attempts) + " attempts (" + detail + ")");
  }
  return IoError(what + " failed (" + detail + ")");
}

Result<std::string> S3Store::Get(std::string_view key) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  OG_ASSIGN_OR_RETURN(HttpResponse r, http_.Send({"GET", bucket_, FullKey(key), {}, {}, {}}));
  if (r.status != 200) return ErrorFor(r, "get", key);
  return std::move(r.body);
}

Result<std::string> S3Store::GetRange(std::string_view key, uint64_t offset, uint64_t length) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  auto out_of_bounds = [&](uint64_t size) {
    return Status(ErrorCode::kRangeOutOfBounds, "range [" + std::to_string(offset) + ", +" + std::to_string(length) +
                                                    ") is outside '" + std::string(key) + "' (" + std::to_string(size) +
                                                    " bytes)");
  };
  if (length > UINT64_MAX - offset) return out_of_bounds(UINT64_MAX);
  if (length == 0) {  // S3 has no empty range: the size decides
    OG_ASSIGN_OR_RETURN(ObjectMeta m, Head(key));
    if (offset > m.size) return out_of_bounds(m.size);
    return std::string();
  }
  const std::string range = "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1);
  OG_ASSIGN_OR_RETURN(HttpResponse r, http_.Send({"GET", bucket_, FullKey(key), {}, {{"range", range}}, {}}));
  if (r.status == 416) {
    OG_ASSIGN_OR_RETURN(ObjectMeta m, Head(key));
    return out_of_bounds(m.size);
  }
  if (r.status == 200) {  // the whole object (an endpoint that ignores Range)
    if (offset + length > r.body.size()) return out_of_bounds(r.body.size());
    return r.body.substr(offset, length);
  }
  if (r.status != 206) return ErrorFor(r, "ranged get", key);
  if (r.body.size() != length) {  // S3 clamps a range that runs past the end
    OG_ASSIGN_OR_RETURN(ObjectMeta m, Head(key));
    return out_of_bounds(m.size);
  }
  return std::move(r.body);
}

Result<ObjectMeta> S3Store::Head(std::string_view key) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  OG_ASSIGN_OR_RETURN(HttpResponse r, http_.Send({"HEAD", bucket_, FullKey(key), {}, {}, {}}));
  if (r.status != 200) return ErrorFor(r, "head", key);
  auto it = r.headers.find("content-length");
  if (it == r.headers.end())
    return CorruptError("the S3 endpoint answered HEAD of '" + std::string(key) + "' without Content-Length");
  return ObjectMeta{std::string(key), std::stoull(it->second)};
}

Result<std::vector<ObjectMeta>> S3Store::ListPage(std::string_view prefix, std::string_view start_after,
                                                  size_t max_keys) {
  const std::string root = prefix_.empty() ? "" : prefix_ + "/";
  std::vector<ObjectMeta> out;
  std::string after = start_after.empty() ? "" : root + std::string(start_after);  // a full key
  // Objects of other tools under the prefix that our key rules reject (e.g. probe leftovers) are
  // not ours and are skipped; then the page is topped up from S3, so that a short page still
  // means the end of the listing (ObjectStore::List relies on it).
  while (out.size() < max_keys) {
    std::vector<std::pair<std::string, std::string>> query = {{"list-type", "2"},
                                                              {"max-keys", std::to_string(max_keys - out.size())}};
    query.emplace_back("prefix", root + std::string(prefix));
    if (!after.empty()) query.emplace_back("start-after", after);
    OG_ASSIGN_OR_RETURN(HttpResponse r, http_.Send({"GET", bucket_, "", query, {}, {}}));
    if (r.status != 200) return ErrorFor(r, "list", prefix);
    OG_ASSIGN_OR_RETURN(ListPageResult page, ParseListObjectsV2(r.body));
    for (auto& o : page.objects) {
      if (o.key.compare(0, root.size(), root) != 0) {
        return CorruptError("the S3 endpoint listed '" + o.key + "' outside the prefix '" + root + "'");
      }
      after = o.key;
      std::string key = o.key.substr(root.size());
      if (!ValidateKey(key).ok()) continue;
      out.push_back(ObjectMeta{std::move(key), o.size});
    }
    if (!page.truncated || page.objects.empty()) break;
  }
  return out;
}

Status S3Store::Put(std::string_view key, std::string_view data) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  OG_RETURN_IF_ERROR(WriteGate());
  OG_ASSIGN_OR_RETURN(HttpResponse r, http_.Send({"PUT", bucket_, FullKey(key), {}, {}, data}));
  if (!Ok2xx(r)) return ErrorFor(r, "put", key);
  return Status::Ok();
}

Status S3Store::ResolveLostCreate(const HttpResponse& r, std::string_view full_key, std::string_view data_md5_hex) {
  if (r.ambiguous) {
    // An earlier attempt may have landed before its connection failed: then the object is ours.
    OG_ASSIGN_OR_RETURN(HttpResponse h, http_.Send({"HEAD", bucket_, std::string(full_key), {}, {}, {}}));
    auto it = h.headers.find("etag");
    if (h.status == 200 && it != h.headers.end() && StripQuotes(it->second) == data_md5_hex) return Status::Ok();
  }
  return AlreadyExistsError("object '" + std::string(full_key) + "' already exists (If-None-Match: * lost)");
}

Status S3Store::PutIfAbsent(std::string_view key, std::string_view data) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  OG_RETURN_IF_ERROR(WriteGate());
  const std::string full = FullKey(key);
  OG_ASSIGN_OR_RETURN(HttpResponse r, http_.Send({"PUT", bucket_, full, {}, {{"if-none-match", "*"}}, data}));
  if (r.status == 412) return ResolveLostCreate(r, full, Md5Hex(data));
  if (!Ok2xx(r)) return ErrorFor(r, "create", key);
  return Status::Ok();
}

Status S3Store::Delete(std::string_view key) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  OG_RETURN_IF_ERROR(WriteGate());
  OG_ASSIGN_OR_RETURN(HttpResponse r, http_.Send({"DELETE", bucket_, FullKey(key), {}, {}, {}}));
  if (!Ok2xx(r) && r.status != 404) return ErrorFor(r, "delete", key);
  return Status::Ok();
}

Status S3Store::DeletePrefix(std::string_view prefix) {
  if (prefix.empty()) return InvalidArgumentError("DeletePrefix needs a non-empty prefix");
  OG_RETURN_IF_ERROR(WriteGate());
  for (;;) {
    OG_ASSIGN_OR_RETURN(std::vector<ObjectMeta> page, ListPage(prefix, "", kListPageSize));
    if (page.empty()) return Status::Ok();
    std::vector<std::string> keys;
    keys.reserve(page.size());
    for (const auto& m : page) keys.push_back(FullKey(m.key));
    const std::string body = DeleteObjectsBody(keys);
    OG_ASSIGN_OR_RETURN(HttpResponse r,
                        http_.Send({"POST", bucket_, "", {{"delete", ""}}, {{"content-md5", Md5Base64(body)}}, body}));
    if (!Ok2xx(r)) return ErrorFor(r, "delete of the keys under", prefix);
    OG_ASSIGN_OR_RETURN(std::vector<std::string> errors, ParseDeleteErrors(r.body));
    if (!errors.empty()) {
      return IoError("deleting under '" + std::string(prefix) + "': " + std::to_string(errors.size()) +
                     " keys were not deleted, e.g. " + errors.front());
    }
  }
}

Result<bool> S3Store::ProbeConditionalWrites() {
  const std::string key = FullKey(".og-probe/" + Ulid::Generate().ToString());
  const std::string body = "omnigraph conditional-write probe";
  OG_ASSIGN_OR_RETURN(HttpResponse first, http_.Send({"PUT", bucket_, key, {}, {{"if-none-match", "*"}}, body}));
  // A 412 here is our own create when an earlier attempt's answer was lost (the key is new).
  if (first.status == 412) {
    OG_RETURN_IF_ERROR(ResolveLostCreate(first, key, Md5Hex(body)));
  } else if (!Ok2xx(first)) {
    return ErrorFor(first, "the conditional-write probe (create)", key);
  }
  OG_ASSIGN_OR_RETURN(HttpResponse second, http_.Send({"PUT", bucket_, key, {}, {{"if-none-match", "*"}}, body}));
  const bool enforced = second.status == 412;
  if (!enforced && !Ok2xx(second) && second.status != 501 && second.status != 400) {
    return ErrorFor(second, "the conditional-write probe (second create)", key);
  }
  OG_ASSIGN_OR_RETURN(HttpResponse del, http_.Send({"DELETE", bucket_, key, {}, {}, {}}));
  if (!Ok2xx(del) && del.status != 404) return ErrorFor(del, "the conditional-write probe (delete)", key);
  return enforced;
}

}  // namespace omnigraph::io::s3
