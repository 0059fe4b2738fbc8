// Blob files (docs/architecture.md, "Tables, fragments, manifests, versions"): large binary
// payloads of Blob columns, stored outside fragments and read back by range. Each payload is
// followed by its xxhash64, so a single ranged read both fetches and verifies it
// (docs/format/blob.md). Columns hold BlobDescriptors.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/blob_descriptor.h"
#include "io/object_store.h"
#include "omnigraph/result.h"

namespace omnigraph::format {

// Accumulates payloads in memory and writes one blob file. Not thread-safe.
class BlobFileWriter {
 public:
  // `key`: the object key the file will be stored at (recorded in every descriptor).
  explicit BlobFileWriter(std::string key);

  const std::string& key() const { return key_; }
  size_t num_blobs() const { return count_; }
  uint64_t size() const { return bytes_.size(); }

  // Appends a payload (may be empty); returns its descriptor.
  BlobDescriptor Add(std::string_view payload);
  // The complete file bytes; the writer is left empty-finished (further Adds are a bug).
  std::string Finish();
  // Finish + PutIfAbsent(key). AlreadyExists if the key is taken.
  Status WriteTo(io::ObjectStore& store);

 private:
  std::string key_;
  std::string bytes_;
  uint64_t count_ = 0;
};

// Stateless readers. Thread-safe.
class BlobFileReader {
 public:
  // One GetRange of length + 8 bytes. Corrupt naming the file and offset if the checksum does
  // not match; InvalidArgument for an empty file name; NotFound if the file is absent.
  static Result<std::string> Read(io::ObjectStore& store, const BlobDescriptor& blob);
  // Reads several; descriptors of the same file that are adjacent are fetched with one request.
  static Result<std::vector<std::string>> ReadMany(io::ObjectStore& store, const std::vector<BlobDescriptor>& blobs);
  // Validates a whole blob file (magic, trailer, every payload checksum); Corrupt on the first error.
  static Status Verify(std::string_view bytes, std::string_view file);
};

}  // namespace omnigraph::format
