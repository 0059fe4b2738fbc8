// What a storage root holds, for `init` (may it create a graph here?) and `open` (is a missing
// `main` ref an unfinished init or a damaged graph?). docs/decisions.md "Init and damaged roots".
// Stateless; thread-safe.
#pragma once

#include <string>

#include "io/object_store.h"
#include "omnigraph/result.h"

namespace omnigraph::engine {

enum class RootState {
  kEmpty,           // nothing at all
  kUnfinishedInit,  // only what init attempts write before their commit point, and no ref
  kGraph,           // ref entries exist: a graph (maybe damaged, but init must never run over it)
  kDamaged,         // graph objects that no unfinished init leaves, but no ref
  kForeign,         // objects that are not Omnigraph's
};

struct RootReport {
  RootState state = RootState::kEmpty;
  std::string key;  // the object that decided the state (kGraph, kDamaged, kForeign)
};

// Lists the root (stopping at the first object that decides) and reads the commit objects it
// finds. An unfinished init's remains are exactly: the format stamp, schema objects, tables holding
// nothing but one version manifest each, and genesis commits (operation `init`, no parents) — and
// the stamp whenever anything else is there (init writes it first).
Result<RootReport> InspectRoot(io::ObjectStore& store);

// The advice for a root whose `main` ref log is missing or damaged (never "init again").
inline constexpr std::string_view kDamagedRefLogAdvice =
    "the graph's ref log for main is missing or damaged; run `omnigraph check` (maintenance) to "
    "inspect it; do not re-initialize";

}  // namespace omnigraph::engine
