// The S3 test server's bucket and object store: every object is a file on disk, every bucket a
// folder, with an in-memory sorted index per bucket rebuilt from disk at startup.
//
// Layout under the root:
//   <bucket>/objects/<name>   one file per object; <name> is the hex of the key split into folders
//                             of at most 200 hex digits, the last part ending in ".o" (a file name
//                             stays under NAME_MAX for keys up to S3's 1024 bytes)
//   <bucket>/tmp/             bodies being written (cleared at startup)
//   <bucket>/uploads/<id>/    multipart uploads: "key" (the object key) and one file per part
// Writes go to a temp file first (fsynced when asked), then under the bucket's mutex the
// preconditions are checked and the file is renamed into place, so a conditional write is atomic
// against every other write to the bucket and readers see the old or the new object whole.
// A multipart object's ETag survives a restart in the "user.omnigraph.etag" extended attribute
// (where the filesystem has them; otherwise it is recomputed as the MD5 of the content).
//
// Failures are S3Failure statuses (s3_server_errors.h): NoSuchBucket, NoSuchKey, ... Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/mutex.h"
#include "omnigraph/result.h"

namespace omnigraph::s3server {

struct ObjectInfo {
  uint64_t size = 0;
  std::string etag;      // with its quotes: "\"<md5 hex>\"" or "\"<hex>-<parts>\""
  int64_t mtime_ms = 0;  // Last-Modified, milliseconds since the Unix epoch
};

struct BucketSummary {
  std::string name;
  int64_t created_ms = 0;
};

// The conditional headers of a write.
struct WriteConditions {
  bool if_none_match = false;           // If-None-Match: * (the key must not exist)
  std::optional<std::string> if_match;  // If-Match: <etag> (the key must exist with this ETag)
};

// One page of ListObjectsV2. `continuation_token` is one this store returned; it wins over
// `start_after`.
struct ListQuery {
  std::string prefix;
  std::string delimiter;  // empty: no grouping
  std::string start_after;
  std::string continuation_token;
  int max_keys = 1000;
};

struct ListedObject {
  std::string key;
  ObjectInfo info;
};

struct ListPage {
  std::vector<ListedObject> contents;
  std::vector<std::string> common_prefixes;
  bool truncated = false;
  std::string next_token;  // set when truncated
};

// A file opened for reading; closes it when the last reference goes.
class ReadableFile {
 public:
  explicit ReadableFile(int fd) : fd_(fd) {}
  ~ReadableFile();
  ReadableFile(const ReadableFile&) = delete;
  ReadableFile& operator=(const ReadableFile&) = delete;
  // Reads up to `n` bytes at `offset`; the count read (0 at the end), or an Io error.
  Result<size_t> ReadAt(char* out, size_t n, uint64_t offset) const;

 private:
  int fd_;
};

// An object opened for reading: its bytes stay readable after a concurrent replace or delete.
struct OpenedObject {
  std::shared_ptr<ReadableFile> file;
  ObjectInfo info;
};

// One <Part> of CompleteMultipartUpload.
struct CompletedPart {
  int number = 0;
  std::string etag;  // quotes optional
};

class Store {
 public:
  // Opens (creating it if missing) the store under `root` and loads its buckets, objects and
  // uploads.
  static Result<std::unique_ptr<Store>> Open(const std::string& root, bool fsync);
  ~Store();

  std::vector<BucketSummary> ListBuckets() const;
  // InvalidBucketName, BucketAlreadyOwnedByYou.
  Status CreateBucket(const std::string& name);
  // NoSuchBucket.
  Status HeadBucket(const std::string& name) const;

  // Replaces (or creates) the object when `conditions` hold: PreconditionFailed, or NoSuchKey for
  // If-Match on a missing key. Returns the new object's info.
  Result<ObjectInfo> PutObject(const std::string& bucket, const std::string& key, std::string_view data,
                               const WriteConditions& conditions);
  // NoSuchKey.
  Result<ObjectInfo> HeadObject(const std::string& bucket, const std::string& key) const;
  Result<OpenedObject> OpenObject(const std::string& bucket, const std::string& key) const;
  // Ok whether or not the key existed.
  Status DeleteObject(const std::string& bucket, const std::string& key);
  // InvalidArgument for a continuation token this store did not make.
  Result<ListPage> ListObjects(const std::string& bucket, const ListQuery& query) const;

  // Returns the new upload id.
  Result<std::string> CreateUpload(const std::string& bucket, const std::string& key);
  // Stores (or replaces) part `number` of the upload; returns its quoted ETag. NoSuchUpload.
  Result<std::string> UploadPart(const std::string& bucket, const std::string& key, const std::string& upload_id,
                                 int number, std::string_view data);
  // Assembles the listed parts into the object when `conditions` hold (PreconditionFailed leaves
  // the upload in place). NoSuchUpload, InvalidPartOrder, InvalidPart, EntityTooSmall.
  Result<ObjectInfo> CompleteUpload(const std::string& bucket, const std::string& key, const std::string& upload_id,
                                    const std::vector<CompletedPart>& parts, const WriteConditions& conditions);
  // NoSuchUpload.
  Status AbortUpload(const std::string& bucket, const std::string& key, const std::string& upload_id);

 private:
  struct Part {
    uint64_t size = 0;
    std::string md5_hex;
  };
  struct Upload {
    std::string key;
    std::map<int, Part> parts;
  };
  struct Bucket {
    std::string name;
    std::string dir;
    int64_t created_ms = 0;
    Mutex mu;
    std::map<std::string, ObjectInfo> objects OG_GUARDED_BY(mu);
    std::map<std::string, Upload> uploads OG_GUARDED_BY(mu);
  };
  // The parts of an upload being completed, validated and opened under the bucket mutex.
  struct PartsToJoin {
    std::vector<std::shared_ptr<ReadableFile>> files;
    std::vector<uint64_t> sizes;
    std::string etag;
  };

  Store(std::string root, bool fsync) : root_(std::move(root)), fsync_(fsync) {}

  Result<Bucket*> FindBucket(const std::string& name) const;
  Status LoadBuckets();
  Result<std::unique_ptr<Bucket>> LoadBucket(const std::string& name);
  Status LoadObjects(Bucket* bucket);
  Status LoadUploads(Bucket* bucket);

  std::string ObjectPath(const Bucket& bucket, std::string_view key) const;
  std::string UploadDir(const Bucket& bucket, std::string_view upload_id) const;
  // Writes `data` to a new temp file of the bucket (fsynced when fsync_); returns its path.
  Result<std::string> WriteTemp(const Bucket& bucket, std::string_view data) const;
  // Renames `temp` over the object's file (creating its folders) and records `info`.
  Status InstallObject(Bucket* bucket, const std::string& key, const std::string& temp, const ObjectInfo& info)
      OG_REQUIRES(bucket->mu);
  Status CheckConditions(const Bucket& bucket, const std::string& key, const WriteConditions& conditions) const
      OG_REQUIRES(bucket.mu);
  Result<Upload*> FindUpload(Bucket* bucket, const std::string& key, const std::string& upload_id) const
      OG_REQUIRES(bucket->mu);
  Result<PartsToJoin> OpenPartsToJoin(Bucket* bucket, const std::string& key, const std::string& upload_id,
                                      const std::vector<CompletedPart>& parts) OG_EXCLUDES(bucket->mu);
  Result<std::string> JoinParts(const Bucket& bucket, const PartsToJoin& parts) const;
  // Forgets the upload and deletes its folder.
  Status RemoveUpload(Bucket* bucket, const std::string& upload_id) OG_REQUIRES(bucket->mu);
  Status SyncDir(const std::string& dir) const;

  const std::string root_;
  const bool fsync_;
  mutable Mutex mu_;
  std::map<std::string, std::unique_ptr<Bucket>> buckets_ OG_GUARDED_BY(mu_);
};

}  // namespace omnigraph::s3server
