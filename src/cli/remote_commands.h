// The graph commands over HTTP (docs/cli.md, "Remote graphs"). Each returns nullopt when the flags
// address local storage (the command then runs on the embedded API as usual), else runs the
// command against the server and returns its exit code. Output: --json prints the server's
// answer (the same shapes the local commands print); text output follows the local command's
// lines where the answer carries what they show.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "cli/read_format.h"
#include "common/api_json.h"
#include "common/json.h"

namespace omnigraph::cli {

struct RemoteQueryArgs {
  std::string source, name, params, branch, snapshot, format;
  ReadRenderOptions render;
};
std::optional<int> RemoteQuery(const GraphFlags& flags, const RemoteQueryArgs& args);
// Prints a served read's answer (the ReadOutput of POST /query or of a stored read) in `format`
// (table, kv, csv, jsonl, json) as `query` prints a local result; `target` heads the text formats.
// Returns the exit code.
int PrintServedRead(OrderedJson answer, const std::string& format, const ReadTargetText& target,
                    const ReadRenderOptions& render);
std::optional<int> RemoteMutate(const GraphFlags& flags, const std::string& source, const std::string& name,
                                const std::string& params, const std::string& branch, const std::string& if_commit);
std::optional<int> RemoteLoad(const GraphFlags& flags, const std::string& data_path, const std::string& mode,
                              const std::string& branch, const std::string& from, bool ingest,
                              const std::string& local_only_flag);
std::optional<int> RemoteExport(const GraphFlags& flags, const std::string& branch,
                                const std::vector<std::string>& types, const std::string& out);
std::optional<int> RemoteSnapshot(const GraphFlags& flags, const std::string& branch);
std::optional<int> RemoteBranchCreate(const GraphFlags& flags, const std::string& name, const std::string& from);
std::optional<int> RemoteBranchList(const GraphFlags& flags);
std::optional<int> RemoteBranchDelete(const GraphFlags& flags, const std::string& name);
std::optional<int> RemoteBranchMerge(const GraphFlags& flags, const std::string& source, const std::string& target,
                                     bool delete_source);
std::optional<int> RemoteCommitList(const GraphFlags& flags, const std::string& branch);
std::optional<int> RemoteCommitShow(const GraphFlags& flags, const std::string& id);
std::optional<int> RemoteSchemaShow(const GraphFlags& flags);
// Over a server, schema apply migrates main (no other branch, no --if-commit).
std::optional<int> RemoteSchemaApply(const GraphFlags& flags, const std::string& schema_source, bool allow_data_loss,
                                     const std::string& branch, const std::string& if_commit);

// `graphs list`, `login NAME`, `logout NAME` (always remote / local to the operator's files).
void AddRemoteCommands(CLI::App& app, CommandAction* run);

}  // namespace omnigraph::cli
