// Storage URIs (docs/architecture.md, "The object store"): bare paths and file:// (made absolute,
// dot segments resolved), memory://name (one shared in-process MemoryStore per name),
// s3://bucket/prefix (io/s3/s3_store.h, configured from the AWS_* environment).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "io/local_store.h"
#include "io/object_store.h"

namespace omnigraph::io {

enum class StoreScheme { kFile, kMemory, kS3 };

struct StoreUri {
  StoreScheme scheme = StoreScheme::kFile;
  std::string path;    // kFile: absolute, normalized; kMemory: the name
  std::string bucket;  // kS3
  std::string prefix;  // kS3: without leading/trailing '/'
  // Canonical form: "file:///abs/path" ('%' escaped as %25, so it parses back), "memory://name",
  // "s3://bucket/prefix".
  std::string ToString() const;
};

// A file:// path is percent-decoded ("file:///my%20graph" is "/my graph"); a bare path is taken
// as it is. `bad_uri` (InvalidArgument) for an empty string, an unknown scheme, an empty memory
// name or bucket, a file path that normalizes to nothing, or a malformed escape ('%' without two
// hex digits, or %00).
Result<StoreUri> ParseStoreUri(std::string_view uri);

// Lexically normalizes an absolute path: collapses '//', '.', and '..' (never above '/').
std::string NormalizePath(std::string_view absolute_path);

struct OpenStoreOptions {
  bool create = false;        // create the root folder (file) if missing
  bool writable = true;       // checks write-time guarantees (hard links on local disk)
  std::optional<bool> fsync;  // default: LocalStore::DefaultOptions() (OMNIGRAPH_FSYNC)
  // s3://: allow writes on an endpoint that ignores conditional writes (also
  // OMNIGRAPH_UNSAFE_SINGLE_WRITER=1). Safe only with exactly one writer process.
  bool unsafe_single_writer = false;
};

Result<std::shared_ptr<ObjectStore>> OpenStore(const StoreUri& uri, OpenStoreOptions options = {});
Result<std::shared_ptr<ObjectStore>> OpenStore(std::string_view uri, OpenStoreOptions options = {});

// Drops a named memory store (tests).
void ForgetMemoryStore(const std::string& name);

}  // namespace omnigraph::io
