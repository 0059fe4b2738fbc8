// GET/HEAD /blob: one Blob cell, with entity tags, conditional requests and one byte range.
#include "common/error_codes.h"
#include "server/errors.h"
#include "server/handler_util.h"

namespace omnigraph::server {

namespace {

// The tags of an If-Match / If-None-Match list ("*" is kept as is).
std::vector<std::string> TagList(const std::string& v) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < v.size()) {
    size_t comma = v.find(',', i);
    std::string t = v.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
    while (!t.empty() && t.front() == ' ') t.erase(t.begin());
    while (!t.empty() && t.back() == ' ') t.pop_back();
    if (!t.empty()) out.push_back(t);
    if (comma == std::string::npos) break;
    i = comma + 1;
  }
  return out;
}

bool StrongMatch(const std::vector<std::string>& tags, const std::string& etag) {
  for (const auto& t : tags) {
    if (t == "*" || t == etag) return true;
  }
  return false;
}

bool WeakMatch(const std::vector<std::string>& tags, const std::string& etag) {
  for (auto t : tags) {
    if (t == "*") return true;
    if (t.starts_with("W/")) t = t.substr(2);
    if (t == etag) return true;
  }
  return false;
}

struct ByteRange {
  uint64_t start = 0, end = 0;  // [start, end]
};

// One `bytes=` range against `size`: nullopt when absent, malformed or multiple (then the whole
// body is sent); `unsatisfiable` set when it cannot be served.
std::optional<ByteRange> ParseRange(const std::string& v, uint64_t size, bool* unsatisfiable) {
  *unsatisfiable = false;
  if (!v.starts_with("bytes=")) return std::nullopt;
  std::string spec = v.substr(6);
  if (spec.find(',') != std::string::npos) return std::nullopt;
  size_t dash = spec.find('-');
  if (dash == std::string::npos) return std::nullopt;
  std::string a = spec.substr(0, dash), b = spec.substr(dash + 1);
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 19 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  ByteRange r;
  if (a.empty()) {  // suffix: the last b bytes
    if (!digits(b)) return std::nullopt;
    uint64_t n = std::stoull(b);
    if (n == 0 || size == 0) {
      *unsatisfiable = true;
      return ByteRange{size, size};  // an empty suffix: [size, size)
    }
    r.start = n >= size ? 0 : size - n;
    r.end = size - 1;
    return r;
  }
  if (!digits(a) || (!b.empty() && !digits(b))) return std::nullopt;
  r.start = std::stoull(a);
  r.end = b.empty() ? (size == 0 ? 0 : size - 1) : std::stoull(b);
  if (!b.empty() && r.end < r.start) return std::nullopt;
  if (r.start >= size) {
    *unsatisfiable = true;
    r.end = b.empty() ? r.start : r.end + 1;  // as a half-open [start, end)
    return r;
  }
  if (r.end >= size) r.end = size - 1;
  return r;
}

}  // namespace

Result<HttpResponse> HandleGetBlob(RouteContext& ctx) {
  const HttpRequest& req = ctx.request();
  const bool head = req.method == "HEAD";
  auto required = [&](const char* name) -> Result<std::string> {
    auto v = req.Query(name);
    if (!v || v->empty()) {
      return InvalidArgumentError(std::string("invalid Blob selector query parameters: missing field `") + name + "`");
    }
    return *v;
  };
  OG_ASSIGN_OR_RETURN(std::string entity, required("entity"));
  OG_ASSIGN_OR_RETURN(std::string type, required("type"));
  OG_ASSIGN_OR_RETURN(std::string id, required("id"));
  OG_ASSIGN_OR_RETURN(std::string property, required("property"));
  auto kind = ParseEntityKind(entity);
  if (!kind.ok()) return InvalidArgumentError("invalid Blob selector query parameters: entity must be node or edge");
  const auto branch = req.Query("branch"), snapshot = req.Query("snapshot");
  OG_RETURN_IF_ERROR(CheckBranchXorSnapshot(branch, snapshot));
  const ReadTarget at = ReadTargetOf(branch, snapshot);
  std::optional<std::string> policy_branch = branch.value_or("main");
  if (snapshot) {
    policy_branch.reset();
    if (ctx.graph().policy && ctx.actor()) {
      OG_ASSIGN_OR_RETURN(policy_branch, SnapshotBranch(ctx.db(), at));
    }
  }
  OG_RETURN_IF_ERROR(ctx.Authorize(policy::PolicyAction::kRead, policy_branch));
  OG_ASSIGN_OR_RETURN(BlobInfo info, ctx.db().StatBlob(at, *kind, type, id, property));
  // Pin what StatBlob saw: the payload is read at its commit.
  const ReadTarget pinned = ReadTarget::Commit(info.commit_id);
  auto common = [&](HttpResponse& r) {
    r.SetHeader("ETag", info.etag);
    r.SetHeader("Accept-Ranges", "bytes");
    r.SetHeader("Omnigraph-Snapshot-Id", info.snapshot_id);
  };
  if (auto im = req.Header("If-Match"); im && !StrongMatch(TagList(*im), info.etag)) {
    HttpResponse r = ErrorResponse(
        412, Status(ErrorCode::kPreconditionFailed, "If-Match did not match the selected managed Blob representation"));
    OrderedJson body = OrderedJson::parse(r.body);
    body["code"] = "conflict";  // as the existing server: a Blob If-Match failure carries a code
    r.body = body.dump();
    common(r);
    return r;
  }
  if (auto inm = req.Header("If-None-Match"); inm && WeakMatch(TagList(*inm), info.etag)) {
    HttpResponse r;
    r.status = 304;
    r.content_type = "application/octet-stream";
    common(r);
    return r;
  }
  HttpResponse r;
  r.content_type = "application/octet-stream";
  common(r);
  if (head) {
    r.head_content_length = info.size;
    return r;
  }
  std::optional<ByteRange> range;
  if (auto rv = req.Header("Range")) {
    bool range_applies = true;
    if (auto ir = req.Header("If-Range"); ir && *ir != info.etag) range_applies = false;
    bool unsatisfiable = false;
    if (range_applies) range = ParseRange(*rv, info.size, &unsatisfiable);
    if (range_applies && unsatisfiable) {
      const uint64_t start = range ? range->start : 0, end = range ? range->end : 0;
      OrderedJson detail = {{"start", start}, {"end", end}, {"length", info.size}};
      HttpResponse e =
          ErrorResponse(416, Status(ErrorCode::kRangeOutOfBounds,
                                    "blob range [" + std::to_string(start) + ", " + std::to_string(end) +
                                        ") is not satisfiable for a value of length " + std::to_string(info.size))
                                 .WithDetails(OrderedJson{{"blob_range", detail}}.dump()));
      e.SetHeader("Content-Range", "bytes */" + std::to_string(info.size));
      return e;
    }
  }
  if (range) {
    OG_ASSIGN_OR_RETURN(r.body, ctx.db().ReadBlob(pinned, *kind, type, id, property,
                                                  BlobRange{range->start, range->end - range->start + 1}));
    r.status = 206;
    r.SetHeader("Content-Range", "bytes " + std::to_string(range->start) + "-" + std::to_string(range->end) + "/" +
                                     std::to_string(info.size));
    return r;
  }
  if (info.size > 0) {
    OG_ASSIGN_OR_RETURN(r.body, ctx.db().ReadBlob(pinned, *kind, type, id, property));
  }
  return r;
}

}  // namespace omnigraph::server
