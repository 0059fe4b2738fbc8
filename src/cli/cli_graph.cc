#include "cli/cli_graph.h"

#include <cstdlib>
#include <fstream>

#include "common/error_codes.h"
#include "io/store_uri.h"

namespace omnigraph::cli {

Result<std::string> GraphFlags::Uri() const {
  if (!store_uri.empty() && !positional_uri.empty() && store_uri != positional_uri) {
    return InvalidArgumentError("give the graph either as --store or as the positional URI, not both");
  }
  if (!store_uri.empty()) return store_uri;
  if (!positional_uri.empty()) return positional_uri;
  return InvalidArgumentError("no graph given: pass --store URI (or the URI as an argument)");
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

Result<std::unique_ptr<engine::Graph>> OpenGraph(const GraphFlags& flags, bool writable) {
  OG_ASSIGN_OR_RETURN(std::string uri, flags.Uri());
  io::OpenStoreOptions so;
  so.writable = writable;
  OG_ASSIGN_OR_RETURN(auto store, io::OpenStore(uri, so));
  engine::GraphOptions go;
  go.actor = flags.Actor();
  go.read_only = !writable;
  return engine::Graph::Open(std::move(store), go);
}

Result<std::string> ReadFile(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("cannot read " + std::string(what) + " '" + path + "'");
  // One read into a buffer of the file's size when it has one (a regular file); streams (pipes,
  // /dev/stdin) are read in pieces.
  std::string out;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size > 0 && in) {
    out.resize(static_cast<size_t>(size));
    in.read(out.data(), size);
    out.resize(static_cast<size_t>(in.gcount()));
  }
  in.clear();
  char chunk[65536];
  while (in.read(chunk, sizeof(chunk)) || in.gcount() > 0) out.append(chunk, static_cast<size_t>(in.gcount()));
  if (in.bad()) return IoError("error reading " + std::string(what) + " '" + path + "'");
  return out;
}

}  // namespace omnigraph::cli
