// Deletion vectors (docs/architecture.md, "Tables, fragments, manifests, versions"): the set of
// deleted row offsets of one fragment, a CRoaring bitmap, stored in its own immutable file with
// magic, version and an xxhash64 checksum (docs/format/deletion_vector.md). A delete writes a new
// vector; files are never modified.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/object_store.h"
#include "omnigraph/result.h"

struct roaring_bitmap_s;  // CRoaring's roaring_bitmap_t

namespace omnigraph::format {

// A set of uint32 row offsets. Value type (copies copy the bitmap); thread-compatible: const
// methods may run concurrently.
class DeletionVector {
 public:
  DeletionVector();
  ~DeletionVector();
  DeletionVector(const DeletionVector& other);
  DeletionVector& operator=(const DeletionVector& other);
  DeletionVector(DeletionVector&& other) noexcept;
  DeletionVector& operator=(DeletionVector&& other) noexcept;
  static DeletionVector FromRows(std::span<const uint32_t> rows);

  void Add(uint32_t row);
  void AddRange(uint32_t begin, uint32_t end);  // [begin, end)
  void Remove(uint32_t row);
  bool Contains(uint32_t row) const;
  uint64_t cardinality() const;
  // An estimate of the memory held (its portable serialized size).
  uint64_t memory_bytes() const;
  bool empty() const { return cardinality() == 0; }
  // Ascending.
  std::vector<uint32_t> ToVector() const;
  // Number of deleted rows in [begin, end).
  uint64_t CountInRange(uint64_t begin, uint64_t end) const;

  DeletionVector Union(const DeletionVector& other) const;
  DeletionVector Intersect(const DeletionVector& other) const;
  // Rows in this and not in `other` (for structural diffs).
  DeletionVector Difference(const DeletionVector& other) const;
  bool operator==(const DeletionVector& other) const;

  // The file bytes (docs/format/deletion_vector.md).
  std::string Serialize() const;
  // Corrupt naming `file` on a bad magic/version/length/checksum or an invalid bitmap.
  static Result<DeletionVector> Deserialize(std::string_view bytes, std::string_view file);

  // Store round trip: Write uses PutIfAbsent (AlreadyExists if the key is taken); Read is one Get.
  Status Write(io::ObjectStore& store, std::string_view key) const;
  static Result<DeletionVector> Read(io::ObjectStore& store, std::string_view key);

 private:
  explicit DeletionVector(roaring_bitmap_s* bitmap) : bitmap_(bitmap) {}
  struct Deleter {
    void operator()(roaring_bitmap_s* b) const;
  };
  std::unique_ptr<roaring_bitmap_s, Deleter> bitmap_;
};

}  // namespace omnigraph::format
