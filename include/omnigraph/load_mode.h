// How a load or a mutation treats records whose id already exists (docs/language.md, "Load data"):
// append refuses them, merge replaces them (upsert by id), overwrite replaces the whole contents of
// each type the input names. One enum for the whole project: the public API, the loader and the
// checks shared by load and mutation all use it.
#pragma once

#include <string_view>

#include "omnigraph/result.h"

namespace omnigraph {

enum class LoadMode { kAppend, kMerge, kOverwrite };

// "append", "merge", "overwrite".
std::string_view LoadModeName(LoadMode mode);
// The inverse of LoadModeName; `invalid_argument` naming the three spellings otherwise.
Result<LoadMode> ParseLoadMode(std::string_view name);

}  // namespace omnigraph
