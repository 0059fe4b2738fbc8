// Private to src/format: the shared buffers behind a Column and helpers to build Columns from
// them directly (decoders, builder). Not for use outside this folder.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "format/column.h"

namespace omnigraph::format {

namespace internal {

// Physical representation class of a TypeKind.
enum class Phys : uint8_t { kBool, kI32, kI64, kU32, kU64, kF32, kF64, kVector, kBytes, kList };
Phys PhysOf(TypeKind kind);
// Bytes per row of fixed-width physical classes (vectors: 4 * dimension); 0 for kBytes/kList.
size_t FixedWidth(const DataType& type);

inline bool GetBit(const uint8_t* bits, size_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void SetBit(uint8_t* bits, size_t i) { bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7)); }
inline void ClearBit(uint8_t* bits, size_t i) { bits[i >> 3] &= static_cast<uint8_t>(~(1u << (i & 7))); }
// Number of set bits among bits [begin, end).
size_t CountSetBits(const uint8_t* bits, size_t begin, size_t end);

// Exactly the buffers of the column's physical class are used.
struct ColumnData {
  DataType type;
  size_t rows = 0;
  std::vector<uint8_t> validity;  // bit i = row i valid; empty = all valid
  std::vector<uint8_t> bools;
  std::vector<int32_t> i32;
  std::vector<int64_t> i64;
  std::vector<uint32_t> u32;
  std::vector<uint64_t> u64;
  std::vector<float> f32;  // F32 and Vector
  std::vector<double> f64;
  std::vector<uint64_t> offsets;  // kBytes / kList: rows + 1 entries, offsets[0] == 0
  std::string bytes;              // kBytes
  std::optional<Column> child;    // kList elements
};

}  // namespace internal

struct ColumnAccess {
  // Precondition: `data` is internally consistent (sizes match rows).
  static Column Make(std::shared_ptr<const internal::ColumnData> data) {
    size_t rows = data->rows;
    return Column(std::move(data), 0, rows);
  }
  static const internal::ColumnData& Data(const Column& c) { return *c.data_; }
  static size_t Offset(const Column& c) { return c.offset_; }
};

}  // namespace omnigraph::format
