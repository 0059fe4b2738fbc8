// Internal to src/server: small helpers the handlers share (typed fields of a JSON body, read
// targets, the Omnigraph-If-Graph-Commit header).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/json.h"
#include "omnigraph/omnigraph.h"
#include "server/routes.h"

namespace omnigraph::server {

// `field` of `body` (or its alias): absent or null -> nullopt; not a string -> invalid_argument.
Result<std::optional<std::string>> OptionalString(const Json& body, std::string_view field,
                                                  std::string_view alias = {});
// The same, required.
Result<std::string> RequiredString(const Json& body, std::string_view field, std::string_view alias = {});
Result<bool> OptionalBool(const Json& body, std::string_view field, bool default_value);
// `params` as the JSON object text the engine takes ("" when absent or null).
Result<std::string> ParamsText(const Json& body);
// Rejects `branch` together with `snapshot`.
Status CheckBranchXorSnapshot(const std::optional<std::string>& branch, const std::optional<std::string>& snapshot);
// What a read with `branch` / `snapshot` reads.
ReadTarget ReadTargetOf(const std::optional<std::string>& branch, const std::optional<std::string>& snapshot);

// The commit id of Omnigraph-If-Graph-Commit on a conditional route (sent exactly once, one raw
// id); `invalid_argument` otherwise.
Result<std::string> ExpectedHead(const HttpRequest& req);
// On an ordinary route the header is refused, naming the conditional route.
Status RejectExpectedHead(const HttpRequest& req, std::string_view conditional_route);

// The branch a snapshot or commit id belongs to, for the policy: a snapshot id names its branch; a
// commit id, the branch that authored the commit.
Result<std::string> SnapshotBranch(Database& db, const ReadTarget& at);

// A read query (/query, /read, a stored read): authorizes, runs, answers ReadOutput.
struct ReadCall {
  std::string source;
  std::optional<std::string> name;
  std::string params;
  std::optional<std::string> branch, snapshot;
  bool reject_mutation = true;  // /query and stored reads; the deprecated /read does not check
  bool with_commit = true;      // ReadOutput has graph_commit_id; LegacyReadOutput not
};
Result<HttpResponse> RunRead(RouteContext& ctx, const ReadCall& call);

// A mutation (/mutate, /change, a stored mutation): authorizes, admits, runs, answers ChangeOutput.
struct MutationCall {
  std::string source;
  std::optional<std::string> name;
  std::string params;
  std::string branch = "main";
  std::optional<std::string> if_commit;
};
Result<HttpResponse> RunMutation(RouteContext& ctx, const MutationCall& call);

}  // namespace omnigraph::server
