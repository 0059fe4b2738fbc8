#include "engine/search/vector_index.h"

#include <sys/mman.h>
#include <unistd.h>

#include <hnswlib/hnswlib.h>
#include <algorithm>
#include <cstring>
#include <exception>
#include <new>
#include <thread>

#include "common/error_codes.h"
#include "common/hash.h"
#include "common/thread_pool.h"

namespace omnigraph::engine::search {

namespace {

constexpr std::string_view kMagic = "OGVECIX1";
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8 + 4 + 4;
constexpr size_t kTrailerBytes = 8;

template <class T>
void PutLe(std::string* out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // little-endian hosts only (docs/format: every object is LE)
  out->append(b, sizeof(T));
}

template <class T>
T GetLe(std::string_view in, size_t at) {
  T v;
  std::memcpy(&v, in.data() + at, sizeof(T));
  return v;
}

// An anonymous in-memory file: hnswlib reads and writes its index through a path, which
// /proc/self/fd/<fd> gives without touching a disk.
class MemFile {
 public:
  MemFile() : fd_(memfd_create("omnigraph-hnsw", MFD_CLOEXEC)) {}
  ~MemFile() {
    if (fd_ >= 0) close(fd_);
  }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;

  Status Check() const { return fd_ < 0 ? ErrnoError("memfd_create", errno) : Status::Ok(); }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

  Status Write(std::string_view bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoError("writing the vector index to memory", errno);
      }
      done += static_cast<size_t>(n);
    }
    return Status::Ok();
  }

  Status AppendTo(std::string* out) const {
    const off_t size = lseek(fd_, 0, SEEK_END);
    if (size < 0) return ErrnoError("sizing the vector index", errno);
    const size_t base = out->size();
    out->resize(base + static_cast<size_t>(size));
    size_t done = 0;
    while (done < static_cast<size_t>(size)) {
      ssize_t n = pread(fd_, out->data() + base + done, static_cast<size_t>(size) - done, static_cast<off_t>(done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoError("reading the vector index from memory", errno);
      }
      if (n == 0) return IoError("the vector index shrank while it was read");
      done += static_cast<size_t>(n);
    }
    return Status::Ok();
  }

 private:
  int fd_;
};

uint64_t HnswMemory(const hnswlib::HierarchicalNSW<float>& h) {
  uint64_t bytes = uint64_t{h.max_elements_} * h.size_data_per_element_;
  for (size_t i = 0; i < h.cur_element_count; ++i) {
    if (h.element_levels_[i] > 0) bytes += uint64_t(h.size_links_per_element_) * h.element_levels_[i];
  }
  return bytes + 16 * uint64_t{h.max_elements_};  // level array, link list pointers, label map
}

}  // namespace

VectorIndex::VectorIndex() = default;
VectorIndex::VectorIndex(VectorIndex&&) noexcept = default;
VectorIndex& VectorIndex::operator=(VectorIndex&&) noexcept = default;
VectorIndex::~VectorIndex() = default;

Result<VectorIndex> VectorIndex::Build(uint32_t dim, std::span<const uint64_t> labels,
                                       const std::function<std::span<const float>(size_t)>& vector,
                                       const HnswParams& params) {
  if (dim == 0) return InvalidArgumentError("a vector index needs a dimension >= 1");
  VectorIndex out;
  out.dim_ = dim;
  out.rows_ = labels.size();
  out.params_ = params;
  try {
    out.space_ = std::make_unique<hnswlib::L2Space>(dim);
    out.hnsw_ = std::make_unique<hnswlib::HierarchicalNSW<float>>(out.space_.get(), std::max<size_t>(labels.size(), 1),
                                                                  params.m, params.ef_construction);
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError("not enough memory for a vector index of " + std::to_string(labels.size()) + " rows");
  } catch (const std::exception& e) {
    return InternalError(std::string("hnswlib: ") + e.what());
  }
  OG_RETURN_IF_ERROR(out.AddAll(labels, vector, params.threads));
  out.memory_bytes_ = HnswMemory(*out.hnsw_);
  return out;
}

Status VectorIndex::AddAll(std::span<const uint64_t> labels,
                           const std::function<std::span<const float>(size_t)>& vector, uint32_t threads) {
  for (size_t i = 0; i < labels.size(); ++i) {
    if (vector(i).size() != dim_) {
      return InvalidArgumentError("vector " + std::to_string(i) + " has " + std::to_string(vector(i).size()) +
                                  " values; the index is of dimension " + std::to_string(dim_));
    }
  }
  auto add = [&](size_t i) -> Status {
    try {
      hnsw_->addPoint(vector(i).data(), labels[i]);
    } catch (const std::bad_alloc&) {
      return ResourceExhaustedError("not enough memory while building a vector index");
    } catch (const std::exception& e) {
      return InternalError(std::string("hnswlib: ") + e.what());
    }
    return Status::Ok();
  };
  // Into an empty index the first row alone (it becomes the entry point), then the rest in
  // parallel: hnswlib's insertion is thread-safe.
  size_t from = 0;
  if (hnsw_->cur_element_count == 0 && !labels.empty()) OG_RETURN_IF_ERROR(add(from++));
  const size_t workers = threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  if (workers <= 1 || labels.size() - from < 1024) {
    for (size_t i = from; i < labels.size(); ++i) OG_RETURN_IF_ERROR(add(i));
  } else {
    // Chunks of rows per task, so the pool's queue stays small.
    constexpr size_t kChunk = 256;
    const size_t chunks = (labels.size() - from + kChunk - 1) / kChunk;
    OG_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor(chunks, [&](size_t c) -> Status {
      const size_t begin = from + c * kChunk;
      const size_t end = std::min(labels.size(), begin + kChunk);
      for (size_t i = begin; i < end; ++i) OG_RETURN_IF_ERROR(add(i));
      return Status::Ok();
    }));
  }
  rows_ = hnsw_->cur_element_count;
  return Status::Ok();
}

Status VectorIndex::Extend(std::span<const uint64_t> gone, std::span<const uint64_t> labels,
                           const std::function<std::span<const float>(size_t)>& vector) {
  if (!hnsw_) return InternalError("extending an empty VectorIndex");
  try {
    if (!labels.empty()) hnsw_->resizeIndex(hnsw_->cur_element_count + labels.size());
    for (uint64_t label : gone) hnsw_->markDelete(label);
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError("not enough memory to extend a vector index");
  } catch (const std::exception& e) {
    return InternalError(std::string("hnswlib: ") + e.what());
  }
  OG_RETURN_IF_ERROR(AddAll(labels, vector, params_.threads));
  memory_bytes_ = HnswMemory(*hnsw_);
  return Status::Ok();
}

Status VectorIndex::Relabel(std::span<const std::pair<uint64_t, uint64_t>> renames) {
  if (!hnsw_) return InternalError("relabelling an empty VectorIndex");
  for (const auto& [from, to] : renames) {
    auto it = hnsw_->label_lookup_.find(from);
    if (it == hnsw_->label_lookup_.end()) {
      return InvalidArgumentError("the vector index holds no label " + std::to_string(from));
    }
    const hnswlib::tableint id = it->second;
    hnsw_->label_lookup_.erase(it);
    hnsw_->setExternalLabel(id, to);
    hnsw_->label_lookup_[to] = id;
  }
  return Status::Ok();
}

std::vector<uint64_t> VectorIndex::Labels() const {
  std::vector<uint64_t> out;
  if (!hnsw_) return out;
  out.reserve(hnsw_->cur_element_count);
  for (size_t i = 0; i < hnsw_->cur_element_count; ++i) {
    if (!hnsw_->isMarkedDeleted(static_cast<hnswlib::tableint>(i))) out.push_back(hnsw_->getExternalLabel(i));
  }
  return out;
}

uint64_t VectorIndex::deleted() const { return hnsw_ ? hnsw_->num_deleted_ : 0; }

Result<std::string> VectorIndex::Encode() const {
  if (!hnsw_) return InternalError("encoding an empty VectorIndex");
  std::string out;
  out.append(kMagic);
  PutLe<uint32_t>(&out, kFormatVersion);
  PutLe<uint32_t>(&out, dim_);
  PutLe<uint64_t>(&out, rows_);
  PutLe<uint32_t>(&out, params_.m);
  PutLe<uint32_t>(&out, params_.ef_construction);
  MemFile file;
  OG_RETURN_IF_ERROR(file.Check());
  try {
    hnsw_->saveIndex(file.path());
  } catch (const std::exception& e) {
    return IoError(std::string("saving the vector index: ") + e.what());
  }
  OG_RETURN_IF_ERROR(file.AppendTo(&out));
  PutLe<uint64_t>(&out, XxHash64(out));
  return out;
}

Result<VectorIndex> VectorIndex::Decode(std::string_view object, uint32_t dim, std::string_view key) {
  const std::string where(key);
  if (object.size() < kHeaderBytes + kTrailerBytes || object.substr(0, kMagic.size()) != kMagic) {
    return CorruptError(where + ": not a vector index object");
  }
  const uint32_t version = GetLe<uint32_t>(object, 8);
  if (version > kFormatVersion) {
    return Status(ErrorCode::kFormatTooNew, where + ": vector index format " + std::to_string(version) +
                                                " is newer than this build reads (" + std::to_string(kFormatVersion) +
                                                ")");
  }
  const std::string_view body = object.substr(0, object.size() - kTrailerBytes);
  if (XxHash64(body) != GetLe<uint64_t>(object, body.size())) {
    return CorruptError(where + ": vector index checksum mismatch");
  }
  VectorIndex out;
  out.dim_ = GetLe<uint32_t>(object, 12);
  out.rows_ = GetLe<uint64_t>(object, 16);
  out.params_.m = GetLe<uint32_t>(object, 24);
  out.params_.ef_construction = GetLe<uint32_t>(object, 28);
  if (version < 1 || out.dim_ != dim) {
    return CorruptError(where + ": vector index of dimension " + std::to_string(out.dim_) + " for a Vector(" +
                        std::to_string(dim) + ") column");
  }
  // hnswlib's own header, checked against ours before hnswlib sizes anything by it.
  const std::string_view hnsw = body.substr(kHeaderBytes);
  constexpr size_t kHnswHeader = 6 * 8 + 4 + 4 + 3 * 8 + 8 + 8;
  if (hnsw.size() < kHnswHeader) return CorruptError(where + ": vector index too short");
  const auto max_elements = GetLe<uint64_t>(hnsw, 8);
  const auto count = GetLe<uint64_t>(hnsw, 16);
  const auto per_element = GetLe<uint64_t>(hnsw, 24);
  const auto max_m = GetLe<uint64_t>(hnsw, 56);
  const auto max_m0 = GetLe<uint64_t>(hnsw, 64);
  const uint64_t want_per_element = max_m0 * 4 + 4 + uint64_t{dim} * 4 + 8;
  if (GetLe<uint64_t>(hnsw, 0) != 0 || count != out.rows_ || max_elements != std::max<uint64_t>(out.rows_, 1) ||
      max_m != out.params_.m || max_m0 != 2 * uint64_t{out.params_.m} || out.params_.m == 0 || out.params_.m > 1024 ||
      per_element != want_per_element || (hnsw.size() - kHnswHeader) / per_element < count) {
    return CorruptError(where + ": the vector index's structure disagrees with its header");
  }
  MemFile file;
  OG_RETURN_IF_ERROR(file.Check());
  OG_RETURN_IF_ERROR(file.Write(hnsw));
  try {
    out.space_ = std::make_unique<hnswlib::L2Space>(dim);
    out.hnsw_ = std::make_unique<hnswlib::HierarchicalNSW<float>>(out.space_.get(), file.path());
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError(where + ": not enough memory to load the vector index");
  } catch (const std::exception& e) {
    return CorruptError(where + ": " + e.what());
  }
  if (out.hnsw_->cur_element_count != out.rows_ || out.hnsw_->data_size_ != size_t{dim} * sizeof(float)) {
    return CorruptError(where + ": the vector index's rows or dimension disagree with its header");
  }
  // hnswlib 0.6.2's loading constructor leaves its deleted count uninitialized (and then adds the
  // marked elements to it): count them here.
  size_t marked = 0;
  for (size_t i = 0; i < out.hnsw_->cur_element_count; ++i) {
    marked += out.hnsw_->isMarkedDeleted(static_cast<hnswlib::tableint>(i)) ? 1 : 0;
  }
  out.hnsw_->num_deleted_ = marked;
  out.memory_bytes_ = HnswMemory(*out.hnsw_);
  return out;
}

std::vector<std::pair<float, uint64_t>> VectorIndex::Search(std::span<const float> query, size_t k, size_t ef) const {
  std::vector<std::pair<float, uint64_t>> out;
  if (!hnsw_ || rows_ == 0 || k == 0 || query.size() != dim_) return out;
  k = std::min<uint64_t>(k, rows_);
  // searchKnn's candidate list is max(its ef, k): asking for max(k, ef) and keeping k sets it.
  auto heap = hnsw_->searchKnn(query.data(), std::max(k, ef));
  out.resize(heap.size());
  for (size_t i = heap.size(); i-- > 0;) {
    out[i] = {heap.top().first, heap.top().second};
    heap.pop();
  }
  if (out.size() > k) out.resize(k);
  return out;
}

}  // namespace omnigraph::engine::search
