// Helpers shared by the graph commands: addressing (positional URI or --store), the actor
// (--as, else OMNIGRAPH_ACTOR), reading input files, and opening a graph.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "common/json.h"

#include "omnigraph/omnigraph.h"
#include "omnigraph/result.h"

namespace omnigraph::cli {

// Flags every graph command takes.
struct GraphFlags {
  std::string positional_uri;
  std::string store_uri;
  std::string actor;
  bool json = false;

  // The URI from --store or the positional argument (exactly one). A usage error (exit 2) otherwise.
  Result<std::string> Uri() const;
  std::optional<std::string> Actor() const;
};

// Adds `--store URI`, `--as ACTOR`, `--json`, and (when `positional`) a positional `URI`.
void AddGraphFlags(CLI::App* cmd, GraphFlags* flags, bool positional);

// Opens the graph through the public API (the CLI is a client of include/omnigraph/ only).
Result<std::unique_ptr<Database>> OpenGraph(const GraphFlags& flags, bool writable);
// The actor of a handle as JSON (null when none).
Json ActorJson(const Database& db);
// Reads a source file (schema, query, parameters) whole: ReadSourceFile (common/file_util.h), with
// its typed errors (not_found, invalid_argument for a directory, resource_limit past 64 MiB).
Result<std::string> ReadFile(const std::string& path, std::string_view what);

}  // namespace omnigraph::cli
