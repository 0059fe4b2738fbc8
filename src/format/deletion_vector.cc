#include "format/deletion_vector.h"

#include <roaring/roaring.h>

#include "common/check.h"
#include "common/error_codes.h"
#include "common/hash.h"
#include "format/byte_io.h"

namespace omnigraph::format {

namespace {
constexpr char kDvMagic[4] = {'O', 'G', 'D', 'V'};
constexpr uint16_t kDvVersion = 1;
constexpr size_t kDvHeader = 20;  // magic, u16 version, u16 flags, u64 cardinality, u32 length
constexpr size_t kDvOverhead = kDvHeader + 8;

roaring_bitmap_t* NewBitmap() {
  roaring_bitmap_t* b = roaring_bitmap_create();
  OG_CHECK(b != nullptr);
  return b;
}
}  // namespace

void DeletionVector::Deleter::operator()(roaring_bitmap_s* b) const { roaring_bitmap_free(b); }

DeletionVector::DeletionVector() : bitmap_(NewBitmap()) {}
DeletionVector::~DeletionVector() = default;
DeletionVector::DeletionVector(const DeletionVector& other) : bitmap_(roaring_bitmap_copy(other.bitmap_.get())) {
  OG_CHECK(bitmap_ != nullptr);
}
DeletionVector& DeletionVector::operator=(const DeletionVector& other) {
  if (this != &other) {
    bitmap_.reset(roaring_bitmap_copy(other.bitmap_.get()));
    OG_CHECK(bitmap_ != nullptr);
  }
  return *this;
}
// A moved-from vector is empty (not null), so every method stays usable.
DeletionVector::DeletionVector(DeletionVector&& other) noexcept : bitmap_(std::move(other.bitmap_)) {
  other.bitmap_.reset(NewBitmap());
}
DeletionVector& DeletionVector::operator=(DeletionVector&& other) noexcept {
  if (this != &other) {
    bitmap_ = std::move(other.bitmap_);
    other.bitmap_.reset(NewBitmap());
  }
  return *this;
}

DeletionVector DeletionVector::FromRows(std::span<const uint32_t> rows) {
  DeletionVector dv;
  if (!rows.empty()) roaring_bitmap_add_many(dv.bitmap_.get(), rows.size(), rows.data());
  return dv;
}

uint64_t DeletionVector::memory_bytes() const { return 64 + roaring_bitmap_portable_size_in_bytes(bitmap_.get()); }

void DeletionVector::Add(uint32_t row) { roaring_bitmap_add(bitmap_.get(), row); }
void DeletionVector::AddRange(uint32_t begin, uint32_t end) {
  if (begin < end) roaring_bitmap_add_range(bitmap_.get(), begin, end);
}
void DeletionVector::Remove(uint32_t row) { roaring_bitmap_remove(bitmap_.get(), row); }
bool DeletionVector::Contains(uint32_t row) const { return roaring_bitmap_contains(bitmap_.get(), row); }
uint64_t DeletionVector::cardinality() const { return roaring_bitmap_get_cardinality(bitmap_.get()); }

std::vector<uint32_t> DeletionVector::ToVector() const {
  std::vector<uint32_t> out(cardinality());
  if (!out.empty()) roaring_bitmap_to_uint32_array(bitmap_.get(), out.data());
  return out;
}

uint64_t DeletionVector::CountInRange(uint64_t begin, uint64_t end) const {
  if (begin >= end) return 0;
  return roaring_bitmap_range_cardinality(bitmap_.get(), begin, end);
}

DeletionVector DeletionVector::Union(const DeletionVector& other) const {
  return DeletionVector(roaring_bitmap_or(bitmap_.get(), other.bitmap_.get()));
}
DeletionVector DeletionVector::Intersect(const DeletionVector& other) const {
  return DeletionVector(roaring_bitmap_and(bitmap_.get(), other.bitmap_.get()));
}
DeletionVector DeletionVector::Difference(const DeletionVector& other) const {
  return DeletionVector(roaring_bitmap_andnot(bitmap_.get(), other.bitmap_.get()));
}
bool DeletionVector::operator==(const DeletionVector& other) const {
  return roaring_bitmap_equals(bitmap_.get(), other.bitmap_.get());
}

std::string DeletionVector::Serialize() const {
  roaring_bitmap_t* b = roaring_bitmap_copy(bitmap_.get());
  OG_CHECK(b != nullptr);
  roaring_bitmap_run_optimize(b);
  size_t len = roaring_bitmap_portable_size_in_bytes(b);
  std::string out;
  internal::ByteWriter w(&out);
  w.Bytes(std::string_view(kDvMagic, 4));
  w.U16(kDvVersion);
  w.U16(0);
  w.U64(roaring_bitmap_get_cardinality(b));
  w.U32(static_cast<uint32_t>(len));
  size_t at = out.size();
  out.resize(at + len);
  size_t written = roaring_bitmap_portable_serialize(b, out.data() + at);
  roaring_bitmap_free(b);
  OG_CHECK(written == len);
  w.U64(XxHash64(out));
  return out;
}

Result<DeletionVector> DeletionVector::Deserialize(std::string_view bytes, std::string_view file) {
  auto bad = [&](const std::string& what) {
    return CorruptError("deletion vector " + std::string(file) + ": " + what);
  };
  if (bytes.size() < kDvOverhead) return bad("file too short");
  if (bytes.substr(0, 4) != std::string_view(kDvMagic, 4)) return bad("bad magic");
  internal::ByteReader tail(bytes.substr(bytes.size() - 8));
  uint64_t checksum = 0;
  tail.U64(&checksum);
  if (XxHash64(bytes.substr(0, bytes.size() - 8)) != checksum) return bad("checksum mismatch");
  internal::ByteReader r(bytes.substr(4, kDvHeader - 4));
  uint16_t version = 0, flags = 0;
  uint64_t card = 0;
  uint32_t len = 0;
  r.U16(&version);
  r.U16(&flags);
  r.U64(&card);
  r.U32(&len);
  if (version != kDvVersion) {
    return Status(ErrorCode::kFormatTooNew,
                  "deletion vector " + std::string(file) + " has format version " + std::to_string(version));
  }
  if (flags != 0) return bad("unknown flags");
  if (len != bytes.size() - kDvOverhead) return bad("payload length mismatch");
  const char* payload = bytes.data() + kDvHeader;
  if (roaring_bitmap_portable_deserialize_size(payload, len) != len) return bad("bad bitmap");
  roaring_bitmap_t* b = roaring_bitmap_portable_deserialize_safe(payload, len);
  if (b == nullptr) return bad("bad bitmap");
  DeletionVector dv(b);
  if (dv.cardinality() != card) return bad("cardinality mismatch");
  return dv;
}

Status DeletionVector::Write(io::ObjectStore& store, std::string_view key) const {
  return store.PutIfAbsent(key, Serialize());
}

Result<DeletionVector> DeletionVector::Read(io::ObjectStore& store, std::string_view key) {
  OG_ASSIGN_OR_RETURN(std::string bytes, store.Get(key));
  return Deserialize(bytes, key);
}

}  // namespace omnigraph::format
