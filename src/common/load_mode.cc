#include "omnigraph/load_mode.h"

#include <string>

#include "common/error_codes.h"

namespace omnigraph {

std::string_view LoadModeName(LoadMode mode) {
  switch (mode) {
    case LoadMode::kAppend: return "append";
    case LoadMode::kMerge: return "merge";
    case LoadMode::kOverwrite: return "overwrite";
  }
  return "?";
}

Result<LoadMode> ParseLoadMode(std::string_view name) {
  if (name == "append") return LoadMode::kAppend;
  if (name == "merge") return LoadMode::kMerge;
  if (name == "overwrite") return LoadMode::kOverwrite;
  return InvalidArgumentError("unknown load mode '" + std::string(name) + "' (use append, merge or overwrite)");
}

}  // namespace omnigraph
