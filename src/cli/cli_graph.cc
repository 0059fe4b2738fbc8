#include "cli/cli_graph.h"

#include <cstdlib>

#include "cli/cli_util.h"
#include "common/error_codes.h"
#include "common/file_util.h"

namespace omnigraph::cli {

Result<std::string> GraphFlags::Uri() const {
  if (!store_uri.empty() && !positional_uri.empty() && store_uri != positional_uri) {
    return UsageError("give the graph either as --store or as the positional URI, not both");
  }
  if (!store_uri.empty()) return store_uri;
  if (!positional_uri.empty()) return positional_uri;
  return UsageError("no graph given: pass --store URI (or the URI as an argument)");
}

std::optional<std::string> GraphFlags::Actor() const {
  if (!actor.empty()) return actor;
  if (const char* env = std::getenv("OMNIGRAPH_ACTOR"); env != nullptr && *env != '\0') return std::string(env);
  return std::nullopt;
}

void AddGraphFlags(CLI::App* cmd, GraphFlags* flags, bool positional) {
  if (positional) cmd->add_option("uri", flags->positional_uri, "Graph URI (path, file://, memory://)");
  cmd->add_option("--store", flags->store_uri, "Graph URI (path, file://, memory://)");
  cmd->add_option("--as", flags->actor, "Actor recorded on commits (default: $OMNIGRAPH_ACTOR)");
  cmd->add_flag("--json", flags->json, "Print JSON");
}

Result<std::unique_ptr<Database>> OpenGraph(const GraphFlags& flags, bool writable) {
  OG_ASSIGN_OR_RETURN(std::string uri, flags.Uri());
  OpenOptions o;
  o.actor = flags.Actor();
  o.read_only = !writable;
  return Database::Open(uri, o);
}

Json ActorJson(const Database& db) { return db.actor() ? Json(*db.actor()) : Json(nullptr); }

Result<std::string> ReadFile(const std::string& path, std::string_view what) { return ReadSourceFile(path, what); }

}  // namespace omnigraph::cli
