// The change routes: one commit's changes (paged), the change feed, the baseline handshake.
#include <algorithm>

#include "common/error_codes.h"
#include "common/output_json.h"
#include "server/handler_util.h"

namespace omnigraph::server {

namespace {

// The query of a change route: only `allowed` keys; branch/cursor/start/page_token/limit at most
// once; kind/type/op repeatable.
Status CheckChangeQuery(const HttpRequest& req, const std::vector<std::string_view>& allowed) {
  for (const auto& [k, v] : req.query) {
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
      return InvalidArgumentError("unknown query parameter '" + k + "'");
    }
    if ((k == "branch" || k == "cursor" || k == "start" || k == "page_token" || k == "limit") &&
        req.query.count(k) > 1) {
      return InvalidArgumentError("query parameter '" + k + "' may appear at most once");
    }
  }
  return Status::Ok();
}

Result<ChangeFilter> FilterOf(const std::vector<std::string>& kinds, const std::vector<std::string>& types,
                              const std::vector<std::string>& ops) {
  ChangeFilter f;
  for (const auto& k : kinds) {
    auto kind = ParseEntityKind(k);
    if (!kind.ok()) return InvalidArgumentError("unknown kind '" + k + "' (expected node | edge)");
    f.kinds.push_back(*kind);
  }
  f.types = types;
  for (const auto& o : ops) {
    auto op = ParseChangeOp(o);
    if (!op.ok()) return InvalidArgumentError("unknown op '" + o + "' (expected insert | update | delete)");
    f.ops.push_back(*op);
  }
  return f;
}

Result<size_t> LimitOf(const HttpRequest& req) {
  auto v = req.Query("limit");
  if (!v) return kDefaultChangesPerPage;
  size_t n = 0;
  if (v->empty() || v->size() > 9 || v->find_first_not_of("0123456789") != std::string::npos) {
    return InvalidArgumentError("limit must be a non-negative integer");
  }
  n = std::stoul(*v);
  if (n == 0) return InvalidArgumentError("change page limit must be greater than zero");
  if (n > kMaxChangesPerPage) {
    return InvalidArgumentError("limit must be at most " + std::to_string(kMaxChangesPerPage));
  }
  return n;
}

Result<std::string> TrimmedBranch(std::optional<std::string> b) {
  if (!b) return std::string("main");
  std::string s = *b;
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  if (s.empty()) return InvalidArgumentError("branch name cannot be empty");
  return s;
}

OrderedJson BlockJson(const ChangeBlock& b) {
  OrderedJson j = OrderedJson::object();
  j["cause"] = ChangeCauseOutputJson(b.commit);
  OrderedJson changes = OrderedJson::array();
  for (const auto& c : b.changes) changes.push_back(EntityChangeOutputJson(c));
  j["changes"] = std::move(changes);
  return j;
}

}  // namespace

Result<HttpResponse> HandleCommitChanges(RouteContext& ctx) {
  const HttpRequest& req = ctx.request();
  OG_RETURN_IF_ERROR(CheckChangeQuery(req, {"page_token", "limit", "kind", "type", "op"}));
  OG_ASSIGN_OR_RETURN(size_t limit, LimitOf(req));
  OG_ASSIGN_OR_RETURN(ChangeFilter filter, FilterOf(req.QueryAll("kind"), req.QueryAll("type"), req.QueryAll("op")));
  const std::string id = req.params.at("commit_id");
  auto commit = ctx.db().GetCommit(id);
  if (!commit.ok()) {
    if (commit.status().category() == StatusCode::kNotFound) return NotFoundError("commit '" + id + "' not found");
    return commit.status();
  }
  // Read on the branch that authored it; a denial looks like an unknown commit.
  Status may = ctx.Authorize(policy::PolicyAction::kRead, commit->branch.empty() ? "main" : commit->branch);
  if (!may.ok()) {
    return may.code() == ErrorCode::kPolicyDenied ? NotFoundError("commit '" + id + "' not found") : may;
  }
  CommitChangesPageRequest request;
  request.filter = std::move(filter);
  request.max_changes = limit;
  request.page_token = req.Query("page_token");
  OG_ASSIGN_OR_RETURN(CommitChangesPage page, ctx.db().PageCommitChanges(id, request));
  OrderedJson j = BlockJson(page.block);
  if (page.next_page_token) j["next_page_token"] = *page.next_page_token;
  return JsonResponse(j);
}

Result<HttpResponse> HandlePollChanges(RouteContext& ctx) {
  const HttpRequest& req = ctx.request();
  OG_RETURN_IF_ERROR(CheckChangeQuery(req, {"branch", "cursor", "start", "page_token", "limit", "kind", "type", "op"}));
  OG_ASSIGN_OR_RETURN(size_t limit, LimitOf(req));
  OG_ASSIGN_OR_RETURN(ChangeFilter filter, FilterOf(req.QueryAll("kind"), req.QueryAll("type"), req.QueryAll("op")));
  OG_ASSIGN_OR_RETURN(std::string branch, TrimmedBranch(req.Query("branch")));
  OG_RETURN_IF_ERROR(ctx.Authorize(policy::PolicyAction::kRead, branch));
  const auto cursor = req.Query("cursor"), start = req.Query("start"), page_token = req.Query("page_token");
  if ((cursor ? 1 : 0) + (start ? 1 : 0) + (page_token ? 1 : 0) > 1) {
    return InvalidArgumentError("cursor, start, and page_token are mutually exclusive");
  }
  if (page_token) {
    return UnimplementedError(
        "page_token on /changes: this server ends every poll at a block boundary and never returns one; resume "
        "with the cursor");
  }
  if (start && *start != "now" && *start != "beginning" && !start->starts_with("after:")) {
    return InvalidArgumentError("start must be now | beginning | after:<commit_id>");
  }
  ChangePollRequest request;
  request.branch = branch;
  request.filter = std::move(filter);
  request.max_commits = 1;  // one block per poll: the cursor after it is where to stop
  if (cursor)
    request.cursor = *cursor;
  else
    request.start = start.value_or("now");
  OrderedJson blocks = OrderedJson::array();
  size_t spent = 0;
  // Bounded per request: at most `limit` changes, and at most this many commits looked at (a filter
  // can leave every block empty), then the cursor says where to go on.
  constexpr int kMaxPollsPerRequest = 100;
  for (int polls = 1;; ++polls) {
    OG_ASSIGN_OR_RETURN(ChangePage page, ctx.db().PollChanges(request));
    for (const ChangeBlock& b : page.blocks) {
      blocks.push_back(BlockJson(b));
      spent += b.changes.size();
    }
    // A commit the filters leave no block for is not the end of the feed: only the engine's
    // caught_up is. A poll that did not move the cursor ends the request (no progress to make).
    const bool stuck = page.blocks.empty() && request.cursor && page.cursor == *request.cursor;
    if (page.caught_up || stuck || spent >= limit || polls >= kMaxPollsPerRequest) {
      OrderedJson j = OrderedJson::object();
      j["blocks"] = std::move(blocks);
      j["cursor"] = page.cursor;
      j["caught_up"] = page.caught_up;
      return JsonResponse(j);
    }
    request.cursor = page.cursor;
  }
}

Result<HttpResponse> HandleChangeBaseline(RouteContext& ctx) {
  OG_ASSIGN_OR_RETURN(Json body, ctx.JsonBody(/*empty_ok=*/true));
  OG_ASSIGN_OR_RETURN(auto branch_opt, OptionalString(body, "branch"));
  OG_ASSIGN_OR_RETURN(std::string branch, TrimmedBranch(branch_opt));
  auto list = [&](const char* field) -> Result<std::vector<std::string>> {
    std::vector<std::string> out;
    auto it = body.find(field);
    if (it == body.end() || it->is_null()) return out;
    if (!it->is_array()) return InvalidArgumentError(std::string("`") + field + "` must be a list of strings");
    for (const auto& v : *it) {
      if (!v.is_string()) return InvalidArgumentError(std::string("`") + field + "` must be a list of strings");
      out.push_back(v.get<std::string>());
    }
    return out;
  };
  OG_ASSIGN_OR_RETURN(auto kinds, list("kind"));
  OG_ASSIGN_OR_RETURN(auto types, list("type"));
  OG_ASSIGN_OR_RETURN(auto ops, list("op"));
  OG_ASSIGN_OR_RETURN(ChangeFilter filter, FilterOf(kinds, types, ops));
  OG_RETURN_IF_ERROR(ctx.Authorize(policy::PolicyAction::kExport, branch));
  // What can fail before the first byte is checked first (the branch, the type names), so a 200
  // means the stream starts; the handshake then reads one head for both the lines and the cursor,
  // streamed as they come, the cursor last. A failure after the 200 cuts the stream (no final
  // line: the client knows it has no cursor).
  OG_ASSIGN_OR_RETURN(SnapshotInfo snap, ctx.db().Snapshot(ReadTarget::Head(branch)));
  for (const auto& t : filter.types) {
    bool known = false;
    for (const auto& ti : snap.types) known = known || ti.name == t;
    if (!known) return NotFoundError("unknown type '" + t + "' in the baseline filter");
  }
  Database* db = &ctx.db();
  HttpResponse r;
  r.content_type = "application/x-ndjson; charset=utf-8";
  r.stream = [db, branch, filter](const ChunkSink& sink) -> Status {
    std::string buffer;
    auto flush = [&]() -> Status {
      if (!buffer.empty() && !sink(buffer)) return Status(ErrorCode::kIo, "the client went away");
      buffer.clear();
      return Status::Ok();
    };
    OG_ASSIGN_OR_RETURN(ChangeBaseline baseline,
                        db->CaptureChangeBaseline(branch, filter, [&](std::string_view line) -> Status {
                          buffer.append(line);
                          buffer.push_back('\n');
                          return buffer.size() >= (size_t{1} << 16) ? flush() : Status::Ok();
                        }));
    OrderedJson last = {
        {"baseline", {{"snapshot_commit_id", baseline.snapshot_commit_id}, {"resume_cursor", baseline.resume_cursor}}}};
    buffer += last.dump() + "\n";
    return flush();
  };
  return r;
}

}  // namespace omnigraph::server
