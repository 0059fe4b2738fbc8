// Helpers shared by the graph commands: addressing (positional URI or --store), the actor
// (--as, else OMNIGRAPH_ACTOR), reading input files, and opening a graph.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "engine/graph.h"
#include "omnigraph/result.h"

namespace omnigraph::cli {

// Flags every graph command takes.
struct GraphFlags {
  std::string positional_uri;
  std::string store_uri;
  std::string actor;
  bool json = false;

  // The URI from --store or the positional argument (exactly one). InvalidArgument otherwise.
  Result<std::string> Uri() const;
  std::optional<std::string> Actor() const;
};

// Adds `--store URI`, `--as ACTOR`, `--json`, and (when `positional`) a positional `URI`.
void AddGraphFlags(CLI::App* cmd, GraphFlags* flags, bool positional);

Result<std::unique_ptr<engine::Graph>> OpenGraph(const GraphFlags& flags, bool writable);
Result<std::string> ReadFile(const std::string& path, std::string_view what);

}  // namespace omnigraph::cli
