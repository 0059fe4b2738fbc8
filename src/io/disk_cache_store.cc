#include "io/disk_cache_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include "common/error_codes.h"
#include "common/hash.h"
#include "common/little_endian.h"
#include "common/ulid.h"
#include "common/unique_fd.h"

namespace omnigraph::io {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[4] = {'O', 'G', 'D', 'C'};
constexpr std::string_view kTmpDir = "tmp";
// Everything the cache writes lives under this folder of the one the user names, so it never
// counts, evicts or cleans up files that are not its own (the user may name ~/.cache or /tmp).
constexpr std::string_view kCacheSubdir = "omnigraph-cache-v1";
constexpr std::string_view kWhole = "whole";

std::string Hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string RangeName(uint64_t offset, uint64_t length) {
  return std::to_string(offset) + "-" + std::to_string(length);
}

// Reads all of `fd`; nullopt on an error.
std::optional<std::string> ReadAll(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return std::nullopt;
  std::string out(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    done += static_cast<size_t>(n);
  }
  return out;
}

bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Header: magic, u32 key length, u64 xxhash64 of the bytes, the key.
std::string Header(std::string_view key, std::string_view bytes) {
  std::string h(kMagic, 4);
  AppendLe32(&h, static_cast<uint32_t>(key.size()));
  AppendLe64(&h, XxHash64(bytes));
  h.append(key);
  return h;
}

}  // namespace

Result<std::unique_ptr<DiskCacheStore>> DiskCacheStore::Open(std::shared_ptr<ObjectStore> base,
                                                             DiskCacheOptions options) {
  if (options.dir.empty()) return InvalidArgumentError("disk cache: no folder given");
  if (!options.cacheable) return InvalidArgumentError("disk cache: no cacheable-key rule given");
  if (options.max_entry_bytes == 0) options.max_entry_bytes = options.max_bytes / 8;
  std::error_code ec;
  const std::string root = (fs::path(options.dir) / kCacheSubdir).string();
  fs::create_directories(fs::path(root) / kTmpDir, ec);
  if (ec) return IoError("disk cache folder '" + options.dir + "' cannot be created: " + ec.message());
  uint64_t used = 0;
  const auto stale = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    if (it->path().parent_path() == fs::path(root) / kTmpDir) {
      // A temp file of a process that died while writing it.
      if (it->last_write_time(ec) < stale) fs::remove(it->path(), ec);
      continue;
    }
    used += it->file_size(ec);
  }
  return std::unique_ptr<DiskCacheStore>(new DiskCacheStore(std::move(base), std::move(options), root, used));
}

DiskCacheStore::DiskCacheStore(std::shared_ptr<ObjectStore> base, DiskCacheOptions options, std::string root,
                               uint64_t used)
    : base_(std::move(base)), options_(std::move(options)), root_(std::move(root)), used_(used) {}

DiskCacheStats DiskCacheStore::stats() const {
  return DiskCacheStats{hits_.load(),    misses_.load(),      bytes_served_.load(), entries_written_.load(),
                        evicted_.load(), bad_entries_.load(), errors_.load()};
}

std::string DiskCacheStore::KeyDir(std::string_view key) const {
  const std::string h = Hex64(XxHash64(key));
  return root_ + "/" + h.substr(0, 2) + "/" + h;
}

std::optional<std::string> DiskCacheStore::ReadEntry(std::string_view key, const std::string& name) {
  const std::string path = KeyDir(key) + "/" + name;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno != ENOENT) errors_.fetch_add(1);
    return std::nullopt;
  }
  std::optional<std::string> all = ReadAll(fd.get());
  auto bad = [&]() -> std::optional<std::string> {
    bad_entries_.fetch_add(1);
    ::unlink(path.c_str());
    return std::nullopt;
  };
  if (!all || all->size() < 16 || std::memcmp(all->data(), kMagic, 4) != 0) return bad();
  const uint64_t key_len = LoadLe32(*all, 4);
  const uint64_t hash = LoadLe64(*all, 8);
  if (all->size() < 16 + key_len || std::string_view(*all).substr(16, key_len) != key) return bad();
  std::string bytes = all->substr(16 + key_len);
  if (XxHash64(bytes) != hash) return bad();
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // most recently used
  return bytes;
}

void DiskCacheStore::WriteEntry(std::string_view key, const std::string& name, std::string_view bytes) {
  const std::string dir = KeyDir(key);
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string tmp = root_ + "/" + std::string(kTmpDir) + "/" + NewUlidString();
  {
    UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (ec || fd.get() < 0 || !WriteAll(fd.get(), Header(key, bytes)) || !WriteAll(fd.get(), bytes)) {
      errors_.fetch_add(1);
      ::unlink(tmp.c_str());
      return;
    }
  }
  // No fsync: after a power loss an entry may be torn, and its hash then makes it a miss.
  if (::rename(tmp.c_str(), (dir + "/" + name).c_str()) != 0) {
    errors_.fetch_add(1);
    ::unlink(tmp.c_str());
    return;
  }
  entries_written_.fetch_add(1);
  const uint64_t size = 16 + key.size() + bytes.size();
  const uint64_t now_used = used_.fetch_add(size) + size;
  if (now_used > options_.max_bytes && now_used > rescan_above_.load()) Evict();
}

void DiskCacheStore::DropKey(std::string_view key) {
  const std::string dir = KeyDir(key);
  std::error_code ec;
  uint64_t freed = 0;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    freed += it->file_size(ec);
  }
  if (fs::remove_all(dir, ec) > 0 && !ec) {
    uint64_t cur = used_.load();
    while (!used_.compare_exchange_weak(cur, cur - std::min(cur, freed))) {
    }
  }
}

void DiskCacheStore::Evict() {
  MutexLock lock(&evict_mu_);
  const uint64_t used = used_.load();
  if (used <= options_.max_bytes || used <= rescan_above_.load()) return;  // another thread evicted already
  struct Entry {
    fs::file_time_type when;
    uint64_t size;
    fs::path path;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  const fs::path tmp_dir = fs::path(root_) / kTmpDir;
  for (auto it = fs::recursive_directory_iterator(root_, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::error_code fe;
    if (!it->is_regular_file(fe) || it->path().parent_path() == tmp_dir) continue;
    Entry e{it->last_write_time(fe), it->file_size(fe), it->path()};
    if (fe) continue;
    total += e.size;
    entries.push_back(std::move(e));
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.when < b.when; });
  const uint64_t target = options_.max_bytes / 10 * 8;
  for (const Entry& e : entries) {
    if (total <= target) break;
    std::error_code re;
    if (fs::remove(e.path, re)) {
      total -= e.size;
      evicted_.fetch_add(1);
      fs::remove(e.path.parent_path(), re);  // the key's folder, once its last entry is gone
    }
  }
  used_.store(total);
  // Entries that could not be deleted (another user's, in a shared folder) keep the folder over
  // its target: scan again only after another tenth of the limit has been written, not on every
  // write.
  rescan_above_.store(total > target ? total + options_.max_bytes / 10 : 0);
}

Result<std::string> DiskCacheStore::Get(std::string_view key) {
  if (!options_.cacheable(key)) return base_->Get(key);
  if (auto hit = ReadEntry(key, std::string(kWhole))) {
    hits_.fetch_add(1);
    bytes_served_.fetch_add(hit->size());
    return std::move(*hit);
  }
  misses_.fetch_add(1);
  OG_ASSIGN_OR_RETURN(std::string bytes, base_->Get(key));
  if (bytes.size() <= options_.max_entry_bytes) WriteEntry(key, std::string(kWhole), bytes);
  return bytes;
}

Result<std::string> DiskCacheStore::GetRange(std::string_view key, uint64_t offset, uint64_t length) {
  if (!options_.cacheable(key) || length > options_.max_entry_bytes) return base_->GetRange(key, offset, length);
  const std::string name = RangeName(offset, length);
  std::optional<std::string> hit = ReadEntry(key, name);
  if (!hit) {
    // A whole-object entry answers any range inside it.
    if (auto whole = ReadEntry(key, std::string(kWhole));
        whole && offset <= whole->size() && length <= whole->size() - offset) {
      hit = whole->substr(offset, length);
    }
  }
  if (hit) {
    hits_.fetch_add(1);
    bytes_served_.fetch_add(hit->size());
    return std::move(*hit);
  }
  misses_.fetch_add(1);
  OG_ASSIGN_OR_RETURN(std::string bytes, base_->GetRange(key, offset, length));
  // A short answer (the range runs past the end) is returned but not kept.
  if (bytes.size() == length) WriteEntry(key, name, bytes);
  return bytes;
}

Status DiskCacheStore::Put(std::string_view key, std::string_view data) {
  Status s = base_->Put(key, data);
  if (options_.cacheable(key)) DropKey(key);
  return s;
}

Status DiskCacheStore::Delete(std::string_view key) {
  Status s = base_->Delete(key);
  if (options_.cacheable(key)) DropKey(key);
  return s;
}

}  // namespace omnigraph::io
