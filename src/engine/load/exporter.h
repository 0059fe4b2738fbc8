// Export (docs/language.md, "Load data"; docs/decisions.md, "Bulk load"): NDJSON that
// `load --mode overwrite` into a fresh graph with the same schema reproduces exactly. Types in
// sorted order with edges before nodes (as the reference), rows by id; `data` holds `id` and every
// property (nulls included); Date as epoch days, DateTime as epoch ms, Blob as "base64:...".
// Thread-safe: reads an immutable snapshot.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/graph/snapshot.h"

namespace omnigraph::engine {

// Calls `sink` once per line (without the newline). `types` empty = every type; an unknown name is
// NotFound. InvalidArgument for a non-finite float (JSON cannot hold it). Tables are read one at a
// time, so on an error (a corrupt table) `sink` may have had the lines of earlier types already: a
// caller that must not publish a partial export stages the lines (the CLI writes them to a temp
// file first).
Status ExportNdjson(const Snapshot& snap, const std::vector<std::string>& types,
                    const std::function<Status(std::string_view line)>& sink);

}  // namespace omnigraph::engine
