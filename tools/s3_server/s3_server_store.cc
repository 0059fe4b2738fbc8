// The S3 test server's on-disk bucket and object store (s3_server_store.h).
#include "s3_server/s3_server_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "common/error_codes.h"
#include "common/ulid.h"
#include "common/unique_fd.h"
#include "io/s3/sigv4.h"
#include "s3_server/s3_server_errors.h"

namespace omnigraph::s3server {
namespace {

using io::s3::HexEncode;
using io::s3::Md5Hex;

constexpr char kEtagAttr[] = "user.omnigraph.etag";
constexpr size_t kHexPerFolder = 200;  // hex digits per path component (NAME_MAX is 255)
constexpr std::string_view kObjectSuffix = ".o";
constexpr uint64_t kMinPartSize = uint64_t{5} << 20;  // 5 MiB, every part but the last
constexpr size_t kCopyChunk = size_t{1} << 20;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t MtimeMs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1'000'000;
}

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string_view Unquoted(std::string_view etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') return etag.substr(1, etag.size() - 2);
  return etag;
}

bool EtagMatches(std::string_view wanted, std::string_view etag) {
  return wanted == "*" || Unquoted(wanted) == Unquoted(etag);
}

bool HexDecode(std::string_view hex, std::string* out) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) return false;
  out->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = digit(hex[i]);
    const int lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

// S3's bucket naming rules: 3-63 of [a-z0-9.-], starting and ending with a letter or digit, no
// "..", not an IPv4 address. They also keep a bucket name a safe folder name.
bool ValidBucketName(std::string_view name) {
  if (name.size() < 3 || name.size() > 63) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (char c : name) {
    if (!alnum(c) && c != '.' && c != '-') return false;
  }
  if (!alnum(name.front()) || !alnum(name.back()) || name.find("..") != std::string_view::npos) return false;
  int dots = 0;
  bool digits_and_dots = true;
  for (char c : name) {
    dots += c == '.';
    digits_and_dots = digits_and_dots && (c == '.' || (c >= '0' && c <= '9'));
  }
  return !(digits_and_dots && dots == 3);
}

Status NoSuchBucket(const std::string& name) {
  return S3Failure("NoSuchBucket", "The specified bucket does not exist: " + name);
}
Status NoSuchKey() { return S3Failure("NoSuchKey", "The specified key does not exist."); }
Status NoSuchUpload() {
  return S3Failure("NoSuchUpload",
                   "The specified multipart upload does not exist. The upload ID may be invalid, or the upload may "
                   "have been aborted or completed.");
}
Status InvalidPart() {
  return S3Failure("InvalidPart",
                   "One or more of the specified parts could not be found. The part may not have been uploaded, or "
                   "the specified entity tag may not match the part's entity tag.");
}

// mkdir that accepts an existing folder; *created says whether it made one.
Status MakeDir(const std::string& path, bool* created = nullptr) {
  if (created != nullptr) *created = false;
  if (::mkdir(path.c_str(), 0755) == 0) {
    if (created != nullptr) *created = true;
    return Status::Ok();
  }
  if (errno == EEXIST) return Status::Ok();
  return ErrnoError("mkdir " + path, errno);
}

// mkdir -p.
Status MakeDirs(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    OG_RETURN_IF_ERROR(MakeDir(path.substr(0, slash)));
  }
  return MakeDir(path);
}

std::string DirOf(const std::string& path) { return path.substr(0, path.rfind('/')); }

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("write " + path, errno);
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Result<std::shared_ptr<ReadableFile>> OpenForRead(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("open " + path, errno);
  return std::make_shared<ReadableFile>(fd);
}

Result<std::string> ReadWholeFile(const std::string& path) {
  OG_ASSIGN_OR_RETURN(std::shared_ptr<ReadableFile> file, OpenForRead(path));
  std::string out;
  std::string chunk(kCopyChunk, '\0');
  while (true) {
    OG_ASSIGN_OR_RETURN(size_t n, file->ReadAt(chunk.data(), chunk.size(), out.size()));
    if (n == 0) return out;
    out.append(chunk.data(), n);
  }
}

// The names in a folder (no "." and ".."); empty when it does not exist.
Result<std::vector<std::string>> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT) return names;
    return ErrnoError("opendir " + dir, errno);
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string_view name(e->d_name);
    if (name != "." && name != "..") names.emplace_back(name);
  }
  ::closedir(d);
  return names;
}

// Deletes the files in `dir` (one level: temp and upload folders hold only files).
Status ClearDir(const std::string& dir) {
  OG_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDir(dir));
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return ErrnoError("unlink " + path, errno);
  }
  return Status::Ok();
}

// Deletes the files in `dir` and then `dir` itself.
Status RemoveFlatDir(const std::string& dir) {
  OG_RETURN_IF_ERROR(ClearDir(dir));
  if (::rmdir(dir.c_str()) != 0 && errno != ENOENT) return ErrnoError("rmdir " + dir, errno);
  return Status::Ok();
}

// The ETag a file was installed with, or the MD5 of its content.
Result<std::string> LoadEtag(const std::string& path) {
  char buf[128];
  const ssize_t n = ::getxattr(path.c_str(), kEtagAttr, buf, sizeof(buf));
  if (n >= 2 && buf[0] == '"' && buf[n - 1] == '"') return std::string(buf, static_cast<size_t>(n));
  OG_ASSIGN_OR_RETURN(std::string content, ReadWholeFile(path));
  return Quoted(Md5Hex(content));
}

// A part number as a file name ("1".."10000"), or 0.
int PartNumberOf(std::string_view name) {
  if (name.empty() || name.size() > 5 || name.front() == '0') return 0;
  int n = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + (c - '0');
  }
  return n <= 10000 ? n : 0;
}

}  // namespace

ReadableFile::~ReadableFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<size_t> ReadableFile::ReadAt(char* out, size_t n, uint64_t offset) const {
  while (true) {
    const ssize_t got = ::pread(fd_, out, n, static_cast<off_t>(offset));
    if (got >= 0) return static_cast<size_t>(got);
    if (errno != EINTR) return ErrnoError("read", errno);
  }
}

// --- opening and loading ---

Result<std::unique_ptr<Store>> Store::Open(const std::string& root, bool fsync) {
  if (root.empty()) return InvalidArgumentError("the S3 server root folder is empty");
  std::string clean = root;
  while (clean.size() > 1 && clean.back() == '/') clean.pop_back();
  OG_RETURN_IF_ERROR(MakeDirs(clean));
  struct stat st;
  if (::stat(clean.c_str(), &st) != 0) return ErrnoError("stat " + clean, errno);
  if (!S_ISDIR(st.st_mode)) return InvalidArgumentError("the S3 server root '" + clean + "' is not a folder");
  std::unique_ptr<Store> store(new Store(clean, fsync));
  OG_RETURN_IF_ERROR(store->LoadBuckets());
  return store;
}

Store::~Store() = default;

Status Store::LoadBuckets() {
  OG_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDir(root_));
  for (const std::string& name : names) {
    struct stat st;
    const std::string objects = root_ + "/" + name + "/objects";
    if (!ValidBucketName(name) || ::stat(objects.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    OG_ASSIGN_OR_RETURN(std::unique_ptr<Bucket> bucket, LoadBucket(name));
    MutexLock lock(&mu_);
    buckets_[name] = std::move(bucket);
  }
  return Status::Ok();
}

Result<std::unique_ptr<Store::Bucket>> Store::LoadBucket(const std::string& name) {
  auto bucket = std::make_unique<Bucket>();
  bucket->name = name;
  bucket->dir = root_ + "/" + name;
  struct stat st;
  if (::stat(bucket->dir.c_str(), &st) != 0) return ErrnoError("stat " + bucket->dir, errno);
  bucket->created_ms = MtimeMs(st);  // the bucket folder only changes when the bucket is made
  OG_RETURN_IF_ERROR(MakeDir(bucket->dir + "/uploads"));
  OG_RETURN_IF_ERROR(MakeDir(bucket->dir + "/tmp"));
  OG_RETURN_IF_ERROR(ClearDir(bucket->dir + "/tmp"));  // writes a crash left behind
  OG_RETURN_IF_ERROR(LoadObjects(bucket.get()));
  OG_RETURN_IF_ERROR(LoadUploads(bucket.get()));
  return bucket;
}

namespace {

struct FoundObject {
  std::string key;
  std::string path;
  struct stat st;
};

// Walks objects/ (folders of hex digits, files "<hex>.o") and collects the object files.
Status ScanObjectFiles(const std::string& dir, const std::string& hex_so_far, std::vector<FoundObject>* out) {
  OG_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDir(dir));
  for (const std::string& name : names) {
    FoundObject found;
    found.path = dir + "/" + name;
    if (::lstat(found.path.c_str(), &found.st) != 0) return ErrnoError("stat " + found.path, errno);
    if (S_ISDIR(found.st.st_mode)) {
      if (name.size() == kHexPerFolder && HexDecode(name, &found.key)) {
        OG_RETURN_IF_ERROR(ScanObjectFiles(found.path, hex_so_far + name, out));
      }
    } else if (S_ISREG(found.st.st_mode) && name.ends_with(kObjectSuffix)) {
      const std::string hex = hex_so_far + name.substr(0, name.size() - kObjectSuffix.size());
      if (HexDecode(hex, &found.key) && !found.key.empty()) out->push_back(std::move(found));
    }
  }
  return Status::Ok();
}

}  // namespace

Status Store::LoadObjects(Bucket* bucket) {
  std::vector<FoundObject> found;
  OG_RETURN_IF_ERROR(ScanObjectFiles(bucket->dir + "/objects", "", &found));
  MutexLock lock(&bucket->mu);
  for (FoundObject& f : found) {
    OG_ASSIGN_OR_RETURN(std::string etag, LoadEtag(f.path));
    bucket->objects[std::move(f.key)] = ObjectInfo{static_cast<uint64_t>(f.st.st_size), std::move(etag), MtimeMs(f.st)};
  }
  return Status::Ok();
}

Status Store::LoadUploads(Bucket* bucket) {
  const std::string uploads = bucket->dir + "/uploads";
  OG_ASSIGN_OR_RETURN(std::vector<std::string> ids, ListDir(uploads));
  MutexLock lock(&bucket->mu);
  for (const std::string& id : ids) {
    const std::string dir = uploads + "/" + id;
    Result<std::string> key = ReadWholeFile(dir + "/key");
    if (!key.ok() || key->empty()) {  // CreateUpload did not finish
      OG_RETURN_IF_ERROR(RemoveFlatDir(dir));
      continue;
    }
    Upload upload;
    upload.key = *std::move(key);
    OG_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDir(dir));
    for (const std::string& name : names) {
      const int number = PartNumberOf(name);
      if (number == 0) continue;
      OG_ASSIGN_OR_RETURN(std::string content, ReadWholeFile(dir + "/" + name));
      upload.parts[number] = Part{content.size(), Md5Hex(content)};
    }
    bucket->uploads[id] = std::move(upload);
  }
  return Status::Ok();
}

// --- helpers ---

Result<Store::Bucket*> Store::FindBucket(const std::string& name) const {
  MutexLock lock(&mu_);
  auto it = buckets_.find(name);
  if (it == buckets_.end()) return NoSuchBucket(name);
  return it->second.get();
}

std::string Store::ObjectPath(const Bucket& bucket, std::string_view key) const {
  const std::string hex = HexEncode(key);
  std::string path = bucket.dir + "/objects";
  size_t at = 0;
  for (; hex.size() - at > kHexPerFolder; at += kHexPerFolder) path += "/" + hex.substr(at, kHexPerFolder);
  return path + "/" + hex.substr(at) + std::string(kObjectSuffix);
}

std::string Store::UploadDir(const Bucket& bucket, std::string_view upload_id) const {
  return bucket.dir + "/uploads/" + std::string(upload_id);
}

Status Store::SyncDir(const std::string& dir) const {
  if (!fsync_) return Status::Ok();
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("open " + dir, errno);
  if (::fsync(fd.get()) != 0) return ErrnoError("fsync " + dir, errno);
  return Status::Ok();
}

Result<std::string> Store::WriteTemp(const Bucket& bucket, std::string_view data) const {
  const std::string path = bucket.dir + "/tmp/" + NewUlidString();
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) return ErrnoError("create " + path, errno);
  Status status = WriteAll(fd.get(), data, path);
  if (status.ok() && fsync_ && ::fsync(fd.get()) != 0) status = ErrnoError("fsync " + path, errno);
  if (!status.ok()) {
    ::unlink(path.c_str());
    return status;
  }
  return path;
}

Status Store::InstallObject(Bucket* bucket, const std::string& key, const std::string& temp, const ObjectInfo& info) {
  const std::string path = ObjectPath(*bucket, key);
  // Folders for long keys: made (and synced into their parents) under the mutex, so a delete that
  // prunes empty folders cannot race with this rename.
  const std::string objects = bucket->dir + "/objects";
  for (size_t slash = path.find('/', objects.size() + 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    bool created = false;
    const std::string dir = path.substr(0, slash);
    OG_RETURN_IF_ERROR(MakeDir(dir, &created));
    if (created) OG_RETURN_IF_ERROR(SyncDir(DirOf(dir)));
  }
  // The ETag travels with the file (best effort: not every filesystem has user attributes).
  ::setxattr(temp.c_str(), kEtagAttr, info.etag.data(), info.etag.size(), 0);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return ErrnoError("rename " + temp + " to " + path, err);
  }
  OG_RETURN_IF_ERROR(SyncDir(DirOf(path)));
  bucket->objects[key] = info;
  return Status::Ok();
}

Status Store::CheckConditions(const Bucket& bucket, const std::string& key, const WriteConditions& conditions) const {
  auto it = bucket.objects.find(key);
  if (conditions.if_none_match && it != bucket.objects.end()) {
    return S3Failure("PreconditionFailed", "At least one of the pre-conditions you specified did not hold");
  }
  if (conditions.if_match.has_value()) {
    if (it == bucket.objects.end()) return NoSuchKey();
    if (!EtagMatches(*conditions.if_match, it->second.etag)) {
      return S3Failure("PreconditionFailed", "At least one of the pre-conditions you specified did not hold");
    }
  }
  return Status::Ok();
}

// --- buckets ---

std::vector<BucketSummary> Store::ListBuckets() const {
  MutexLock lock(&mu_);
  std::vector<BucketSummary> out;
  for (const auto& [name, bucket] : buckets_) out.push_back(BucketSummary{name, bucket->created_ms});
  return out;
}

Status Store::CreateBucket(const std::string& name) {
  if (!ValidBucketName(name)) return S3Failure("InvalidBucketName", "The specified bucket is not valid: " + name);
  MutexLock lock(&mu_);
  if (buckets_.count(name)) {
    return S3Failure("BucketAlreadyOwnedByYou",
                     "Your previous request to create the named bucket succeeded and you already own it.");
  }
  auto bucket = std::make_unique<Bucket>();
  bucket->name = name;
  bucket->dir = root_ + "/" + name;
  bucket->created_ms = NowMs();
  OG_RETURN_IF_ERROR(MakeDir(bucket->dir));
  OG_RETURN_IF_ERROR(MakeDir(bucket->dir + "/tmp"));
  OG_RETURN_IF_ERROR(MakeDir(bucket->dir + "/uploads"));
  OG_RETURN_IF_ERROR(MakeDir(bucket->dir + "/objects"));  // last: it marks the folder as a bucket
  OG_RETURN_IF_ERROR(SyncDir(bucket->dir));
  OG_RETURN_IF_ERROR(SyncDir(root_));
  buckets_[name] = std::move(bucket);
  return Status::Ok();
}

Status Store::HeadBucket(const std::string& name) const { return FindBucket(name).status(); }

// --- objects ---

Result<ObjectInfo> Store::PutObject(const std::string& bucket_name, const std::string& key, std::string_view data,
                                    const WriteConditions& conditions) {
  OG_ASSIGN_OR_RETURN(Bucket * bucket, FindBucket(bucket_name));
  const std::string etag = Quoted(Md5Hex(data));
  OG_ASSIGN_OR_RETURN(const std::string temp, WriteTemp(*bucket, data));
  MutexLock lock(&bucket->mu);
  if (Status s = CheckConditions(*bucket, key, conditions); !s.ok()) {
    ::unlink(temp.c_str());
    return s;
  }
  const ObjectInfo info{data.size(), etag, NowMs()};
  OG_RETURN_IF_ERROR(InstallObject(bucket, key, temp, info));
  return info;
}

Result<ObjectInfo> Store::HeadObject(const std::string& bucket_name, const std::string& key) const {
  OG_ASSIGN_OR_RETURN(Bucket * bucket, FindBucket(bucket_name));
  MutexLock lock(&bucket->mu);
  auto it = bucket->objects.find(key);
  if (it == bucket->objects.end()) return NoSuchKey();
  return it->second;
}

Result<OpenedObject> Store::OpenObject(const std::string& bucket_name, const std::string& key) const {
  OG_ASSIGN_OR_RETURN(Bucket * bucket, FindBucket(bucket_name));
  // Opened under the mutex, so the file and the info are the same version of the object.
  MutexLock lock(&bucket->mu);
  auto it = bucket->objects.find(key);
  if (it == bucket->objects.end()) return NoSuchKey();
  OG_ASSIGN_OR_RETURN(std::shared_ptr<ReadableFile> file, OpenForRead(ObjectPath(*bucket, key)));
  return OpenedObject{std::move(file), it->second};
}

Status Store::DeleteObject(const std::string& bucket_name, const std::string& key) {
  OG_ASSIGN_OR_RETURN(Bucket * bucket, FindBucket(bucket_name));
  MutexLock lock(&bucket->mu);
  auto it = bucket->objects.find(key);
  if (it == bucket->objects.end()) return Status::Ok();
  const std::string path = ObjectPath(*bucket, key);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return ErrnoError("unlink " + path, errno);
  bucket->objects.erase(it);
  // Prune the folders of a long key that are now empty (rmdir fails on the first non-empty one).
  const std::string objects = bucket->dir + "/objects";
  std::string dir = DirOf(path);
  while (dir.size() > objects.size() && ::rmdir(dir.c_str()) == 0) dir = DirOf(dir);
  return SyncDir(dir);
}

Result<ListPage> Store::ListObjects(const std::string& bucket_name, const ListQuery& query) const {
  OG_ASSIGN_OR_RETURN(Bucket * bucket, FindBucket(bucket_name));
  // The token is the hex of 'K' + the last key returned, or 'P' + the last common prefix.
  std::string resume;
  if (!query.continuation_token.empty() &&
      (!HexDecode(query.continuation_token, &resume) || resume.empty() || (resume[0] != 'K' && resume[0] != 'P'))) {
    return S3Failure("InvalidArgument", "The continuation token provided is incorrect");
  }
  ListPage page;
  if (query.max_keys <= 0) return page;
  MutexLock lock(&bucket->mu);
  const auto& objects = bucket->objects;
  auto it = objects.begin();
  if (!resume.empty()) {
    const std::string after = resume.substr(1);
    it = resume[0] == 'K' ? objects.upper_bound(after) : objects.lower_bound(after);
    if (resume[0] == 'P') {
      while (it != objects.end() && it->first.starts_with(after)) ++it;
    }
  } else if (!query.start_after.empty()) {
    it = objects.upper_bound(query.start_after);
  }
  if (it != objects.end() && it->first < query.prefix) it = objects.lower_bound(query.prefix);
  std::string last;
  int count = 0;
  while (it != objects.end() && it->first.starts_with(query.prefix)) {
    if (count == query.max_keys) {
      page.truncated = true;
      break;
    }
    ++count;
    const std::string& key = it->first;
    const size_t cut = query.delimiter.empty() ? std::string::npos : key.find(query.delimiter, query.prefix.size());
    if (cut != std::string::npos) {
      std::string common = key.substr(0, cut + query.delimiter.size());
      while (it != objects.end() && it->first.starts_with(common)) ++it;
      last = "P" + common;
      page.common_prefixes.push_back(std::move(common));
      continue;
    }
    page.contents.push_back(ListedObject{key, it->second});
    last = "K" + key;
    ++it;
  }
  if (page.truncated) page.next_token = HexEncode(last);
  return page;
}

// --- multipart uploads ---

Result<Store::Upload*> Store::FindUpload(Bucket* bucket, const std::string& key, const std::string& upload_id) const {
  auto it = bucket->uploads.find(upload_id);
  if (it == bucket->uploads.end() || it->second.key != key) return NoSuchUpload();
  return &it->second;
}

Result<std::string> Store::CreateUpload(const std::string& bucket_name, const std::string& key) {
  OG_ASSIGN_OR_RETURN(Bucket * bucket, FindBucket(bucket_name));
  const std::string id = NewUlidString();
  const std::string dir = UploadDir(*bucket, id);
  MutexLock lock(&bucket->mu);
  OG_RETURN_IF_ERROR(MakeDir(dir));
  OG_ASSIGN_OR_RETURN(const std::string temp, WriteTemp(*bucket, key));
  if (::rename(temp.c_str(), (dir + "/key").c_str()) != 0) return ErrnoError("rename " + temp, errno);
  OG_RETURN_IF_ERROR(SyncDir(dir));
  OG_RETURN_IF_ERROR(SyncDir(DirOf(dir)));
  bucket->uploads[id] = Upload{key, {}};
  return id;
}

Result<std::string> Store::UploadPart(const std::string& bucket_name, const std::string& key,
                                      const std::string& upload_id, int number, std::string_view data) {
  OG_ASSIGN_OR_RETURN(Bucket * bucket, FindBucket(bucket_name));
  const std::string md5 = Md5Hex(data);
  OG_ASSIGN_OR_RETURN(const std::string temp, WriteTemp(*bucket, data));
  MutexLock lock(&bucket->mu);
  Result<Upload*> upload = FindUpload(bucket, key, upload_id);
  if (!upload.ok()) {
    ::unlink(temp.c_str());
    return upload.status();
  }
  const std::string dir = UploadDir(*bucket, upload_id);
  const std::string path = dir + "/" + std::to_string(number);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return ErrnoError("rename " + temp + " to " + path, err);
  }
  OG_RETURN_IF_ERROR(SyncDir(dir));
  (*upload)->parts[number] = Part{data.size(), md5};
  return Quoted(md5);
}

Result<Store::PartsToJoin> Store::OpenPartsToJoin(Bucket* bucket, const std::string& key, const std::string& upload_id,
                                                  const std::vector<CompletedPart>& parts) {
  MutexLock lock(&bucket->mu);
  OG_ASSIGN_OR_RETURN(Upload * upload, FindUpload(bucket, key, upload_id));
  PartsToJoin out;
  std::string raw_md5s;
  for (size_t i = 0; i < parts.size(); ++i) {
    auto it = upload->parts.find(parts[i].number);
    if (it == upload->parts.end() || !EtagMatches(parts[i].etag, it->second.md5_hex) || parts[i].etag == "*") {
      return InvalidPart();
    }
    if (i + 1 < parts.size() && it->second.size < kMinPartSize) {
      return S3Failure("EntityTooSmall", "Your proposed upload is smaller than the minimum allowed size (part " +
                                             std::to_string(parts[i].number) + " is " +
                                             std::to_string(it->second.size) +
                                             " bytes; every part but the last must be at least 5 MiB)");
    }
    std::string raw;
    if (!HexDecode(it->second.md5_hex, &raw)) return InternalError("bad part digest " + it->second.md5_hex);
    raw_md5s += raw;
    OG_ASSIGN_OR_RETURN(std::shared_ptr<ReadableFile> file,
                        OpenForRead(UploadDir(*bucket, upload_id) + "/" + std::to_string(parts[i].number)));
    out.files.push_back(std::move(file));
    out.sizes.push_back(it->second.size);
  }
  out.etag = Quoted(Md5Hex(raw_md5s) + "-" + std::to_string(parts.size()));
  return out;
}

Result<std::string> Store::JoinParts(const Bucket& bucket, const PartsToJoin& parts) const {
  const std::string path = bucket.dir + "/tmp/" + NewUlidString();
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) return ErrnoError("create " + path, errno);
  Status status;
  std::string chunk(kCopyChunk, '\0');
  for (size_t i = 0; i < parts.files.size() && status.ok(); ++i) {
    uint64_t done = 0;
    while (status.ok() && done < parts.sizes[i]) {
      Result<size_t> n = parts.files[i]->ReadAt(chunk.data(), chunk.size(), done);
      if (!n.ok()) {
        status = n.status();
      } else if (*n == 0) {
        status = InternalError("a part file is shorter than recorded");
      } else {
        status = WriteAll(fd.get(), std::string_view(chunk.data(), *n), path);
        done += *n;
      }
    }
  }
  if (status.ok() && fsync_ && ::fsync(fd.get()) != 0) status = ErrnoError("fsync " + path, errno);
  if (!status.ok()) {
    ::unlink(path.c_str());
    return status;
  }
  return path;
}

Result<ObjectInfo> Store::CompleteUpload(const std::string& bucket_name, const std::string& key,
                                         const std::string& upload_id, const std::vector<CompletedPart>& parts,
                                         const WriteConditions& conditions) {
  OG_ASSIGN_OR_RETURN(Bucket * bucket, FindBucket(bucket_name));
  if (parts.empty()) return S3Failure("MalformedXML", "The XML you provided did not list any part");
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].number <= parts[i - 1].number) {
      return S3Failure("InvalidPartOrder",
                       "The list of parts was not in ascending order. Parts must be ordered by part number.");
    }
  }
  // Validate and open the parts under the mutex, copy them outside it (the open files keep the
  // validated bytes even if a part is replaced meanwhile), then install under the mutex.
  OG_ASSIGN_OR_RETURN(const PartsToJoin joined, OpenPartsToJoin(bucket, key, upload_id, parts));
  OG_ASSIGN_OR_RETURN(const std::string temp, JoinParts(*bucket, joined));
  uint64_t size = 0;
  for (uint64_t s : joined.sizes) size += s;
  MutexLock lock(&bucket->mu);
  Status status = FindUpload(bucket, key, upload_id).status();  // completed or aborted meanwhile?
  if (status.ok()) status = CheckConditions(*bucket, key, conditions);
  if (!status.ok()) {
    ::unlink(temp.c_str());
    return status;
  }
  const ObjectInfo info{size, joined.etag, NowMs()};
  OG_RETURN_IF_ERROR(InstallObject(bucket, key, temp, info));
  RemoveUpload(bucket, upload_id).IgnoreError();  // the object is in place; leftovers are harmless
  return info;
}

Status Store::RemoveUpload(Bucket* bucket, const std::string& upload_id) {
  bucket->uploads.erase(upload_id);
  OG_RETURN_IF_ERROR(RemoveFlatDir(UploadDir(*bucket, upload_id)));
  return SyncDir(bucket->dir + "/uploads");
}

Status Store::AbortUpload(const std::string& bucket_name, const std::string& key, const std::string& upload_id) {
  OG_ASSIGN_OR_RETURN(Bucket * bucket, FindBucket(bucket_name));
  MutexLock lock(&bucket->mu);
  OG_RETURN_IF_ERROR(FindUpload(bucket, key, upload_id).status());
  return RemoveUpload(bucket, upload_id);
}

}  // namespace omnigraph::s3server
