#include "io/local_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>

#include "common/error_codes.h"
#include "common/failpoint.h"
#include "common/thread_pool.h"
#include "common/ulid.h"
#include "common/unique_fd.h"

namespace omnigraph::io {
namespace {

constexpr std::string_view kTempPrefix = ".og-tmp-";

std::string DirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

Status KeyNotFound(std::string_view key, const std::string& where) {
  return NotFoundError("object '" + std::string(key) + "' not found in " + where);
}

// Recursively collects regular files under `dir` (relative names prefixed by `rel`).
Status Walk(const std::string& dir, const std::string& rel, std::string_view prefix, std::vector<ObjectMeta>* out) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT || errno == ENOTDIR) return Status::Ok();
    return ErrnoError("opendir " + dir, errno);
  }
  Status status;
  while (dirent* e = ::readdir(d)) {
    std::string_view name(e->d_name);
    if (name == "." || name == ".." || name.substr(0, 4) == ".og-") continue;
    std::string key = rel.empty() ? std::string(name) : rel + "/" + std::string(name);
    // Prune: the key (or the folder) must be compatible with the prefix.
    size_t common = std::min(key.size(), prefix.size());
    if (key.compare(0, common, prefix, 0, common) != 0) continue;
    std::string path = dir + "/" + std::string(name);
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) continue;  // deleted while listing
      status = ErrnoError("stat " + path, errno);
      break;
    }
    if (S_ISDIR(st.st_mode)) {
      status = Walk(path, key, prefix, out);
      if (!status.ok()) break;
    } else if (S_ISREG(st.st_mode) && key.size() >= prefix.size()) {
      out->push_back(ObjectMeta{std::move(key), static_cast<uint64_t>(st.st_size)});
    }
  }
  ::closedir(d);
  return status;
}

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("write " + path, errno);
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace

LocalStoreOptions LocalStore::DefaultOptions() {
  LocalStoreOptions o;
  const char* env = std::getenv("OMNIGRAPH_FSYNC");
  if (env != nullptr && std::string_view(env) == "0") o.fsync = false;
  return o;
}

Result<std::unique_ptr<LocalStore>> LocalStore::Open(std::string root, LocalStoreOptions options) {
  if (root.empty() || root.front() != '/') {
    return InvalidArgumentError("LocalStore root must be an absolute path, got '" + root + "'");
  }
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  std::unique_ptr<LocalStore> store(new LocalStore(root, options));
  struct stat st;
  if (::stat(root.c_str(), &st) != 0) {
    if (errno != ENOENT) return ErrnoError("stat " + root, errno);
    if (!options.create_root) return NotFoundError("storage directory '" + root + "' does not exist");
    OG_RETURN_IF_ERROR(store->EnsureDir(root));
  } else if (!S_ISDIR(st.st_mode)) {
    return InvalidArgumentError("storage path '" + root + "' is not a directory");
  }
  if (options.writable) OG_RETURN_IF_ERROR(store->ProbeHardLinks());
  return store;
}

Status LocalStore::ProbeHardLinks() {
  OG_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(root_, "probe"));
  std::string linked = root_ + "/" + std::string(kTempPrefix) + "probe-" + NewUlidString();
  int rc = ::link(tmp.c_str(), linked.c_str());
  int err = errno;
  if (rc == 0 && !OG_FAILPOINT("io.local.link_probe").ok()) {
    ::unlink(linked.c_str());
    rc = -1;
    err = EPERM;  // as a filesystem without hard links answers
  }
  ::unlink(tmp.c_str());
  if (rc == 0) {
    ::unlink(linked.c_str());
    return Status::Ok();
  }
  if (err == EPERM || err == ENOTSUP || err == EOPNOTSUPP || err == EXDEV || err == EMLINK || err == ENOSYS) {
    return Status(ErrorCode::kStoreUnsupported,
                  "the filesystem of '" + root_ +
                      "' does not support hard links, which Omnigraph needs for atomic create "
                      "(put_if_absent); use a local filesystem such as ext4, xfs or btrfs (" +
                      std::strerror(err) + ")");
  }
  return ErrnoError("link probe in " + root_, err);
}

Status LocalStore::EnsureDir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) == 0) {
    if (options_.fsync && dir != root_) return SyncDir(DirOf(dir));
    return Status::Ok();
  }
  if (errno == EEXIST) return Status::Ok();
  if (errno != ENOENT) return ErrnoError("mkdir " + dir, errno);
  std::string parent = DirOf(dir);
  if (parent == dir || parent.empty()) return ErrnoError("mkdir " + dir, ENOENT);
  OG_RETURN_IF_ERROR(EnsureDir(parent));
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return ErrnoError("mkdir " + dir, errno);
  if (options_.fsync) return SyncDir(parent);
  return Status::Ok();
}

Status LocalStore::SyncDir(const std::string& dir) {
  if (!options_.fsync) return Status::Ok();
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("open directory " + dir, errno);
  if (::fsync(fd.get()) != 0) return ErrnoError("fsync directory " + dir, errno);
  return Status::Ok();
}

Result<std::pair<std::string, int>> LocalStore::CreateTemp(const std::string& dir) {
  // The pid makes temp names unique across processes even if id generators were to collide.
  std::string path = dir + "/" + std::string(kTempPrefix) + std::to_string(::getpid()) + "-" + NewUlidString();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("create " + path, errno);
  return std::make_pair(std::move(path), fd);
}

Result<std::string> LocalStore::WriteTemp(const std::string& dir, std::string_view data, bool sync) {
  OG_ASSIGN_OR_RETURN(auto created, CreateTemp(dir));
  std::string path = std::move(created.first);
  UniqueFd fd(created.second);
  Status s = WriteAll(fd.get(), data, path);
  if (s.ok() && sync && options_.fsync && ::fsync(fd.get()) != 0) s = ErrnoError("fsync " + path, errno);
  if (s.ok()) s = OG_FAILPOINT("io.local.after_temp_write");
  if (!s.ok()) {
    ::unlink(path.c_str());
    return s;
  }
  return path;
}

Result<std::string> LocalStore::Get(std::string_view key) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  std::string path = PathOf(key);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return KeyNotFound(key, Describe());
    return ErrnoError("open " + path, errno);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoError("stat " + path, errno);
  if (!S_ISREG(st.st_mode)) return KeyNotFound(key, Describe());
  std::string out(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::pread(fd.get(), out.data() + done, out.size() - done, static_cast<off_t>(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("read " + path, errno);
    }
    if (n == 0) return IoError("short read of " + path);  // objects are never truncated in place
    done += static_cast<size_t>(n);
  }
  return out;
}

Result<std::string> LocalStore::GetRange(std::string_view key, uint64_t offset, uint64_t length) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  std::string path = PathOf(key);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return KeyNotFound(key, Describe());
    return ErrnoError("open " + path, errno);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoError("stat " + path, errno);
  uint64_t size = static_cast<uint64_t>(st.st_size);
  if (offset > size || length > size - offset) {
    return Status(ErrorCode::kRangeOutOfBounds, "range [" + std::to_string(offset) + ", +" + std::to_string(length) +
                                                    ") is outside '" + std::string(key) + "' (" + std::to_string(size) +
                                                    " bytes)");
  }
  std::string out(static_cast<size_t>(length), '\0');
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::pread(fd.get(), out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("read " + path, errno);
    }
    if (n == 0) return IoError("short read of " + path);
    done += static_cast<size_t>(n);
  }
  return out;
}

Result<ObjectMeta> LocalStore::Head(std::string_view key) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  std::string path = PathOf(key);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return KeyNotFound(key, Describe());
    return ErrnoError("stat " + path, errno);
  }
  if (!S_ISREG(st.st_mode)) return KeyNotFound(key, Describe());
  return ObjectMeta{std::string(key), static_cast<uint64_t>(st.st_size)};
}

Result<std::vector<ObjectMeta>> LocalStore::List(std::string_view prefix, std::string_view start_after) {
  std::vector<ObjectMeta> all;
  OG_RETURN_IF_ERROR(Walk(root_, "", prefix, &all));
  std::sort(all.begin(), all.end(), [](const ObjectMeta& a, const ObjectMeta& b) { return a.key < b.key; });
  if (!start_after.empty()) {
    auto it = std::upper_bound(all.begin(), all.end(), start_after,
                               [](std::string_view v, const ObjectMeta& m) { return v < m.key; });
    all.erase(all.begin(), it);
  }
  return all;
}

Result<std::vector<ObjectMeta>> LocalStore::ListPage(std::string_view prefix, std::string_view start_after,
                                                     size_t max_keys) {
  OG_ASSIGN_OR_RETURN(std::vector<ObjectMeta> all, List(prefix, start_after));
  if (all.size() > max_keys) all.resize(max_keys);
  return all;
}

Status LocalStore::Put(std::string_view key, std::string_view data) { return Replace(key, data, true); }

// In place (no temp file, no rename over the old object: on ext4 a rename that replaces a file
// starts writeback of the new one, the costliest step of a small commit), without fsync: a crash,
// or a reader racing the write, may see it damaged.
Status LocalStore::PutVolatile(std::string_view key, std::string_view data) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  const std::string path = PathOf(key);
  OG_RETURN_IF_ERROR(EnsureDir(DirOf(path)));
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (fd.get() < 0) {
    if (errno == EISDIR) return InvalidArgumentError("key '" + std::string(key) + "' names a folder");
    return ErrnoError("open " + path, errno);
  }
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::pwrite(fd.get(), data.data() + done, data.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoError("write " + path, n < 0 ? errno : EIO);
    done += static_cast<size_t>(n);
  }
  // Shorter than before: cut the old tail (never to zero, which ext4 would treat like a replace).
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return ErrnoError("stat " + path, errno);
  if (static_cast<uint64_t>(st.st_size) > data.size() && ::ftruncate(fd.get(), static_cast<off_t>(data.size())) != 0)
    return ErrnoError("truncate " + path, errno);
  return Status::Ok();
}

Status LocalStore::Replace(std::string_view key, std::string_view data, bool sync) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  std::string path = PathOf(key);
  std::string dir = DirOf(path);
  OG_RETURN_IF_ERROR(EnsureDir(dir));
  OG_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(dir, data, sync));
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    if (err == EISDIR) return InvalidArgumentError("key '" + std::string(key) + "' names a folder");
    return ErrnoError("rename to " + path, err);
  }
  OG_RETURN_IF_ERROR(OG_FAILPOINT("io.local.before_dir_sync"));
  return sync ? SyncDir(dir) : Status::Ok();
}

Status LocalStore::PutIfAbsent(std::string_view key, std::string_view data) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  std::string dir = DirOf(PathOf(key));
  OG_RETURN_IF_ERROR(EnsureDir(dir));
  OG_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(dir, data));
  return LinkTemp(key, tmp, dir);
}

Status LocalStore::PutIfAbsentUnsynced(std::string_view key, std::string_view data) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  std::string dir = DirOf(PathOf(key));
  OG_RETURN_IF_ERROR(EnsureDir(dir));  // a new folder is still made durable in its parent
  OG_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(dir, data, /*sync=*/false));
  return LinkTemp(key, tmp, dir, /*sync=*/false);
}

Status LocalStore::SyncObjects(const std::vector<std::string>& keys) {
  if (!options_.fsync || keys.empty()) return Status::Ok();
  std::vector<std::string> paths;  // the files, then their folders (each once)
  std::set<std::string> dirs;
  for (const std::string& key : keys) {
    OG_RETURN_IF_ERROR(ValidateKey(key));
    paths.push_back(PathOf(key));
    dirs.insert(DirOf(paths.back()));
  }
  const size_t files = paths.size();
  paths.insert(paths.end(), dirs.begin(), dirs.end());
  auto sync = [&](size_t i) -> Status {
    if (i >= files) return SyncDir(paths[i]);
    UniqueFd fd(::open(paths[i].c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) return ErrnoError("open " + paths[i], errno);
    if (::fsync(fd.get()) != 0) return ErrnoError("fsync " + paths[i], errno);
    return Status::Ok();
  };
  if (paths.size() == 1) return sync(0);
  return ThreadPool::Io().ParallelFor(paths.size(), sync);
}

// A temp file filled as bytes arrive; Commit = fsync + PutIfAbsent's link step. An uncommitted or
// failed writer removes its temp file, so nothing is ever visible but whole objects.
class LocalObjectWriter final : public ObjectWriter {
 public:
  LocalObjectWriter(LocalStore* store, std::string key, std::string dir, std::string tmp, int fd)
      : store_(store), key_(std::move(key)), dir_(std::move(dir)), tmp_(std::move(tmp)), fd_(fd) {}
  ~LocalObjectWriter() override { Discard(); }
  Status Append(std::string_view bytes) override {
    if (fd_ < 0) return InvalidArgumentError("ObjectWriter::Append after Commit or failure");
    Status s = WriteAll(fd_, bytes, tmp_);
    if (!s.ok()) Discard();
    size_ += bytes.size();
    return s;
  }
  Status Commit() override {
    if (fd_ < 0) return InvalidArgumentError("ObjectWriter::Commit after Commit or failure");
    Status s = Status::Ok();
    if (store_->options_.fsync && ::fsync(fd_) != 0) s = ErrnoError("fsync " + tmp_, errno);
    if (s.ok()) s = OG_FAILPOINT("io.local.after_temp_write");
    ::close(fd_);
    fd_ = -1;
    if (!s.ok()) {
      ::unlink(tmp_.c_str());
      return s;
    }
    return store_->LinkTemp(key_, tmp_, dir_);  // removes the temp name in every case
  }
  uint64_t size() const override { return size_; }

 private:
  void Discard() {
    if (fd_ < 0) return;
    ::close(fd_);
    fd_ = -1;
    ::unlink(tmp_.c_str());
  }
  LocalStore* store_;
  std::string key_, dir_, tmp_;
  int fd_;
  uint64_t size_ = 0;
};

Result<std::unique_ptr<ObjectWriter>> LocalStore::NewWriter(std::string_view key) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  std::string dir = DirOf(PathOf(key));
  OG_RETURN_IF_ERROR(EnsureDir(dir));
  OG_ASSIGN_OR_RETURN(auto created, CreateTemp(dir));
  return std::unique_ptr<ObjectWriter>(
      std::make_unique<LocalObjectWriter>(this, std::string(key), dir, std::move(created.first), created.second));
}

Status LocalStore::LinkTemp(std::string_view key, const std::string& tmp, const std::string& dir, bool sync) {
  std::string path = PathOf(key);
  int rc = ::link(tmp.c_str(), path.c_str());
  int err = errno;
  ::unlink(tmp.c_str());
  if (rc != 0) {
    if (err == EEXIST) return AlreadyExistsError("object '" + std::string(key) + "' already exists");
    return ErrnoError("link to " + path, err);
  }
  OG_RETURN_IF_ERROR(OG_FAILPOINT("io.local.before_dir_sync"));
  return sync ? SyncDir(dir) : Status::Ok();
}

Status LocalStore::Delete(std::string_view key) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  std::string path = PathOf(key);
  if (::unlink(path.c_str()) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return Status::Ok();
    if (errno == EISDIR || errno == EPERM) {
      struct stat st;
      if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return Status::Ok();  // a folder: no object
    }
    return ErrnoError("unlink " + path, errno);
  }
  return SyncDir(DirOf(path));
}

}  // namespace omnigraph::io
