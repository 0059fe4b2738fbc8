// The format stamp `_omnigraph.json` (docs/architecture.md, "A graph root"): written once at init
// with PutIfAbsent, read at every open to refuse graphs of a newer or unknown storage format.
// Thread-safe: stateless functions over a thread-safe store.
#pragma once

#include <cstdint>
#include <string>

#include "io/object_store.h"
#include "omnigraph/result.h"

namespace omnigraph::engine {

inline constexpr int kStorageFormatVersion = OG_STORAGE_FORMAT_VERSION;

struct FormatStamp {
  int format_version = kStorageFormatVersion;
  std::string graph_id;  // ULID, fixed at init
  int64_t created_at_us = 0;
  std::string created_by;  // "omnigraph 0.1.0"
};

std::string SerializeStamp(const FormatStamp& stamp);
// Parses and checks a stamp: `format_too_new` ("upgrade omnigraph") for a newer version,
// `format_unknown` for another format, an older version, or malformed bytes.
Result<FormatStamp> ParseStamp(std::string_view bytes);

// Reads the stamp of the graph at `store`: NotFound (naming the store) when there is none.
Result<FormatStamp> ReadStamp(io::ObjectStore& store);

}  // namespace omnigraph::engine
