// LocalStore: objects as files under a root directory (docs/architecture.md, "The object store").
// Put writes a temp file in the target's directory, fsyncs it, renames it over the target and
// fsyncs the directory; PutIfAbsent links the temp file to the target (link fails if the target
// exists: exactly one winner across threads and processes). Temp names start with ".og-" and are
// invisible to List. Thread-safe; safe across processes.
#pragma once

#include <string>

#include "io/object_store.h"

namespace omnigraph::io {

struct LocalStoreOptions {
  bool create_root = false;  // mkdir -p the root if missing
  bool writable = true;      // probe hard-link support at open (refuse without it)
  // fsync files and directories (durability). Default: on, unless OMNIGRAPH_FSYNC=0.
  bool fsync = true;
};

class LocalStore : public ObjectStore {
 public:
  // Opens `root` (an absolute path). NotFound if it is missing and !create_root;
  // `store_unsupported` if writable and the filesystem has no hard links.
  static Result<std::unique_ptr<LocalStore>> Open(std::string root, LocalStoreOptions options = {});
  // The default options with fsync from the OMNIGRAPH_FSYNC environment variable.
  static LocalStoreOptions DefaultOptions();

  Result<std::string> Get(std::string_view key) override;
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) override;
  Result<ObjectMeta> Head(std::string_view key) override;
  Result<std::vector<ObjectMeta>> List(std::string_view prefix, std::string_view start_after = "") override;
  Result<std::vector<ObjectMeta>> ListPage(std::string_view prefix, std::string_view start_after,
                                           size_t max_keys) override;
  Status Put(std::string_view key, std::string_view data) override;
  Status PutVolatile(std::string_view key, std::string_view data) override;
  Status PutIfAbsent(std::string_view key, std::string_view data) override;
  // The temp file is neither fsynced nor is its folder after the link; SyncObjects fsyncs the
  // files and their folders (each once) in parallel.
  Status PutIfAbsentUnsynced(std::string_view key, std::string_view data) override;
  Status SyncObjects(const std::vector<std::string>& keys) override;
  // Streams into a temp file beside the target; Commit fsyncs it and links it into place.
  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key) override;
  Status Delete(std::string_view key) override;
  std::string Describe() const override { return "file://" + root_; }
  bool cheap_ranged_reads() const override { return true; }
  bool prefers_fewer_objects() const override { return true; }

  const std::string& root() const { return root_; }

 private:
  LocalStore(std::string root, LocalStoreOptions options) : root_(std::move(root)), options_(options) {}
  std::string PathOf(std::string_view key) const { return root_ + "/" + std::string(key); }
  // Writes `data` to a fresh temp file in `dir` (fsynced); returns its path.
  Result<std::string> WriteTemp(const std::string& dir, std::string_view data, bool sync = true);
  Status Replace(std::string_view key, std::string_view data, bool sync);
  // Creates a fresh temp file in `dir`; returns its path and open descriptor.
  Result<std::pair<std::string, int>> CreateTemp(const std::string& dir);
  // Links a finished temp file to `key`'s path (AlreadyExists if taken), removes the temp name
  // and syncs the directory: PutIfAbsent's commit step.
  Status LinkTemp(std::string_view key, const std::string& tmp, const std::string& dir, bool sync = true);
  Status SyncDir(const std::string& dir);
  friend class LocalObjectWriter;
  Status EnsureDir(const std::string& dir);
  Status ProbeHardLinks();

  std::string root_;
  LocalStoreOptions options_;
};

}  // namespace omnigraph::io
