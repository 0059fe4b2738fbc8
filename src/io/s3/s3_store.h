// The S3 backend (docs/architecture.md, "The object store"): `s3://bucket/prefix` on any
// S3-compatible endpoint. Atomic create is PUT with `If-None-Match: *` (412 = another writer won),
// atomic replace is a plain PUT (S3 objects are replaced whole), lists are ListObjectsV2,
// DeletePrefix batches DeleteObjects, writers past `S3Config::part_size` stream a multipart upload
// completed with `If-None-Match: *`. A store that ignores conditional writes is detected at a
// writable open (`ProbeConditionalWrites`) and refused for writing unless the caller allows a
// single unsafe writer. Thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/object_store.h"
#include "io/s3/s3_http.h"

namespace omnigraph::io::s3 {

struct S3StoreOptions {
  bool writable = true;
  // Probe conditional writes at open (writable only) and refuse writes when they are ignored.
  bool probe = true;
  // Allow writes on a store that ignores conditional writes (one writer only; documented as unsafe).
  bool unsafe_single_writer = false;
};

class S3Store final : public ObjectStore {
 public:
  // Opens s3://bucket/prefix. `store_config` for a bad configuration; with options.writable and
  // options.probe, `store_no_conditional_writes` when the endpoint ignores If-None-Match (unless
  // unsafe_single_writer), and the probe's own errors (auth, missing bucket) as they are.
  static Result<std::unique_ptr<S3Store>> Open(S3Config config, std::string bucket, std::string prefix,
                                               S3StoreOptions options = {});

  Result<std::string> Get(std::string_view key) override;
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) override;
  Result<ObjectMeta> Head(std::string_view key) override;
  Status Put(std::string_view key, std::string_view data) override;
  Status PutIfAbsent(std::string_view key, std::string_view data) override;
  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key) override;
  Status Delete(std::string_view key) override;
  Status DeletePrefix(std::string_view prefix) override;
  std::string Describe() const override;
  Result<std::vector<ObjectMeta>> ListPage(std::string_view prefix, std::string_view start_after,
                                           size_t max_keys) override;

  // Creates a conditional probe object twice under the prefix (then deletes it): true when the
  // second create was refused, as it must be.
  Result<bool> ProbeConditionalWrites();

  const HttpStats& stats() const { return http_.stats(); }

  // Implementation detail of the multipart writer (s3_writer.cc).
  HttpClient& http() { return http_; }
  const std::string& bucket() const { return bucket_; }
  std::string FullKey(std::string_view key) const;
  Status WriteGate() const;
  // Maps a non-2xx response of an operation on `key` to a typed error.
  static Status ErrorFor(const HttpResponse& r, std::string_view op, std::string_view key);
  // The PutIfAbsent outcome when `r` is 412: AlreadyExists, unless an ambiguous earlier attempt
  // wrote these very bytes (then ok).
  Status ResolveLostCreate(const HttpResponse& r, std::string_view full_key, std::string_view data_md5_hex);

 private:
  S3Store(S3Config config, std::string bucket, std::string prefix, S3StoreOptions options);

  HttpClient http_;
  std::string bucket_, prefix_;  // prefix without leading/trailing '/'
  S3StoreOptions options_;
  bool writes_refused_ = false;  // the probe failed and no unsafe writer was allowed
};

}  // namespace omnigraph::io::s3
