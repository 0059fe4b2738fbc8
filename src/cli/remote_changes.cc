// The change commands over HTTP (docs/cli.md, "Remote graphs"): `commit changes` on GET
// /commits/{id}/changes (its pages followed unless --page-token asks for one), `changes poll` on
// GET /changes, `changes baseline` on POST /changes/baseline (its NDJSON stream installed as the
// local command installs its file). The server answers the local output shapes (cause and change
// JSON of common/output_json.h), printed by change_listing.h, so the output is the local one.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "cli/change_listing.h"
#include "cli/cli_util.h"
#include "cli/remote.h"
#include "common/error_codes.h"
#include "common/json.h"

namespace omnigraph::cli {
namespace {

// The remote graph of the flags, or nullopt (local); an addressing error is reported as `exit`.
std::optional<std::unique_ptr<RemoteGraph>> Remote(const GraphFlags& flags, int* exit) {
  auto r = ResolveRemote(flags);
  if (!r.ok()) {
    *exit = ReportError(r.status(), flags.json);
    return std::unique_ptr<RemoteGraph>();
  }
  return std::move(*r);
}

// kind, type and op query parameters, one per value.
void AddFilterParams(const ChangeFilterFlags& ff, QueryParams* q) {
  for (const auto& k : ff.kinds) q->emplace_back("kind", k);
  for (const auto& t : ff.types) q->emplace_back("type", t);
  for (const auto& o : ff.ops) q->emplace_back("op", o);
}

Status Malformed(std::string_view command) {
  return InternalError("the server's answer to `" + std::string(command) + "` is malformed");
}

// {cause: {...}, changes: [...]}, as the server answers a commit's changes and each poll block.
bool IsBlock(const OrderedJson& b) {
  return b.is_object() && b.contains("cause") && b["cause"].is_object() && b.contains("changes") &&
         b["changes"].is_array();
}

std::string CommitIdOf(const OrderedJson& block) {
  const OrderedJson& cause = block["cause"];
  auto it = cause.find("graph_commit_id");
  return it != cause.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The next_page_token of a page: absent (or null) on the last one.
Result<std::optional<std::string>> NextPageToken(const OrderedJson& page, std::string_view command) {
  auto it = page.find("next_page_token");
  if (it == page.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return Malformed(command);
  return std::optional<std::string>(it->get<std::string>());
}

Status RepeatedToken(std::string_view command) {
  return InternalError("the server's answer to `" + std::string(command) +
                       "` names the page it answers as the next one; stopped instead of asking for it again");
}

ChangeAt JsonChanges(const OrderedJson& changes) {
  return [&changes](size_t i) { return changes[i]; };
}

// Reads the server's baseline stream: every line but the last goes to `write` (each once the next
// one has arrived); the last must be {"baseline": {snapshot_commit_id, resume_cursor}}, the
// handshake. A stream that ends without it (cut mid-way, or a failure after the answer began) is
// `io_error`, and nothing is installed.
Result<ChangeBaseline> StreamBaseline(RemoteGraph& g, const OrderedJson& body, const BaselineLineSink& write) {
  std::string partial;              // the bytes after the last newline
  std::optional<std::string> held;  // the last complete line, not yet written
  auto sink = [&](std::string_view chunk) -> Status {
    const size_t scanned = partial.size();  // holds no newline
    partial.append(chunk.data(), chunk.size());
    size_t start = 0;
    for (size_t nl = partial.find('\n', scanned); nl != std::string::npos; nl = partial.find('\n', start)) {
      if (held) OG_RETURN_IF_ERROR(write(*held));
      held = partial.substr(start, nl - start);
      start = nl + 1;
    }
    partial.erase(0, start);
    return Status::Ok();
  };
  OG_RETURN_IF_ERROR(g.PostStream("/changes/baseline", body, sink));
  const Status early(ErrorCode::kIo,
                     "the server's baseline stream ended early (no final baseline line): no snapshot installed, no "
                     "resume cursor");
  if (!partial.empty() || !held) return early;
  const OrderedJson last = OrderedJson::parse(*held, nullptr, /*allow_exceptions=*/false);
  if (!last.is_object() || last.size() != 1 || !last.contains("baseline")) return early;
  const OrderedJson& b = last["baseline"];
  if (!b.is_object() || !b.contains("snapshot_commit_id") || !b["snapshot_commit_id"].is_string() ||
      !b.contains("resume_cursor") || !b["resume_cursor"].is_string()) {
    return Malformed("changes baseline");
  }
  ChangeBaseline out;
  out.snapshot_commit_id = b["snapshot_commit_id"].get<std::string>();
  out.resume_cursor = b["resume_cursor"].get<std::string>();
  return out;
}

}  // namespace

std::optional<int> RemoteCommitChanges(const GraphFlags& flags, const std::string& id, const ChangeFilterFlags& ff,
                                       size_t limit, const std::optional<std::string>& page_token) {
  int exit = 0;
  auto g = Remote(flags, &exit);
  if (!g) return std::nullopt;
  if (!*g) return exit;
  constexpr std::string_view kCommand = "commit changes";
  const std::string path = "/commits/" + EscapeSegment(id) + "/changes";
  QueryParams base{{"limit", std::to_string(limit)}};
  AddFilterParams(ff, &base);
  // An empty --page-token names the first page: no page_token parameter.
  std::optional<std::string> token;
  if (page_token && !page_token->empty()) token = *page_token;
  OrderedJson cause;
  OrderedJson changes = OrderedJson::array();
  std::optional<std::string> next;
  for (;;) {
    QueryParams q = base;
    if (token) q.emplace_back("page_token", *token);
    auto page = (*g)->Get(path, q);
    if (!page.ok()) return ReportError(page.status(), flags.json);
    if (!IsBlock(*page)) return ReportError(Malformed(kCommand), flags.json);
    auto n = NextPageToken(*page, kCommand);
    if (!n.ok()) return ReportError(n.status(), flags.json);
    if (cause.is_null()) cause = std::move((*page)["cause"]);  // the same commit on every page
    for (auto& c : (*page)["changes"]) changes.push_back(std::move(c));
    next = std::move(*n);
    if (page_token || !next) break;  // the one page asked for, or the last one
    if (token && *next == *token) return ReportError(RepeatedToken(kCommand), flags.json);
    token = next;
  }
  PrintCommitChanges(flags.json, cause, changes.size(), JsonChanges(changes), next);
  return kExitOk;
}

std::optional<int> RemoteChangesPoll(const GraphFlags& flags, const RemotePollArgs& a, const ChangeFilterFlags& ff) {
  int exit = 0;
  auto g = Remote(flags, &exit);
  if (!g) return std::nullopt;
  if (!*g) return exit;
  constexpr std::string_view kCommand = "changes poll";
  QueryParams base{{"branch", a.branch}, {"limit", std::to_string(a.limit)}};
  AddFilterParams(ff, &base);
  QueryParams q = base;
  if (!a.cursor.empty()) {
    q.emplace_back("cursor", a.cursor);
  } else {
    q.emplace_back("start", a.start);
  }
  // Each poll of this server ends at a block boundary, without a next_page_token. A server that
  // returns one is followed (page_token instead of cursor and start) to its last page, whose
  // cursor is the one to print; a block cut at a page end goes on at the start of the next page.
  OrderedJson blocks = OrderedJson::array();
  std::string cursor;
  bool caught_up = false;
  std::optional<std::string> token;
  for (;;) {
    auto answer = (*g)->Get("/changes", q);
    if (!answer.ok()) return ReportError(answer.status(), flags.json);
    OrderedJson& page = *answer;
    if (!page.is_object() || !page.contains("blocks") || !page["blocks"].is_array() || !page.contains("cursor") ||
        !page["cursor"].is_string() || !page.contains("caught_up") || !page["caught_up"].is_boolean()) {
      return ReportError(Malformed(kCommand), flags.json);
    }
    auto next = NextPageToken(page, kCommand);
    if (!next.ok()) return ReportError(next.status(), flags.json);
    bool continues = token.has_value();  // this page goes on from the page before
    for (auto& b : page["blocks"]) {
      if (!IsBlock(b)) return ReportError(Malformed(kCommand), flags.json);
      if (continues && !blocks.empty() && CommitIdOf(blocks.back()) == CommitIdOf(b)) {
        for (auto& c : b["changes"]) blocks.back()["changes"].push_back(std::move(c));
      } else {
        blocks.push_back(std::move(b));
      }
      continues = false;
    }
    cursor = page["cursor"].get<std::string>();
    caught_up = page["caught_up"].get<bool>();
    if (!*next) break;
    if (token && **next == *token) return ReportError(RepeatedToken(kCommand), flags.json);
    token = *next;
    q = base;
    q.emplace_back("page_token", *token);
  }
  FeedPrinter out(flags.json);
  for (const auto& b : blocks) out.Block(b["cause"], b["changes"].size(), JsonChanges(b["changes"]));
  out.Finish(cursor, caught_up);
  return kExitOk;
}

std::optional<int> RemoteChangesBaseline(const GraphFlags& flags, const std::string& branch,
                                         const ChangeFilterFlags& ff, const std::string& out) {
  int exit = 0;
  auto g = Remote(flags, &exit);
  if (!g) return std::nullopt;
  if (!*g) return exit;
  OrderedJson body = OrderedJson::object();
  body["branch"] = branch;
  if (!ff.kinds.empty()) body["kind"] = ff.kinds;
  if (!ff.types.empty()) body["type"] = ff.types;
  if (!ff.ops.empty()) body["op"] = ff.ops;
  RemoteGraph& remote = **g;
  // The server streams the lines CaptureChangeBaseline gives the local command, so the file is
  // the same; it is installed the same way (lock, temp file, fsync, rename).
  auto baseline = InstallBaseline(out, [&](const BaselineLineSink& write) -> Result<ChangeBaseline> {
    return StreamBaseline(remote, body, write);
  });
  if (!baseline.ok()) return ReportError(baseline.status(), flags.json);
  PrintBaseline(flags.json, out, *baseline);
  return kExitOk;
}

}  // namespace omnigraph::cli
