// Private to src/format: little-endian byte writing/reading with bounds checks, and bit packing,
// used by the fragment, deletion-vector and blob file codecs (docs/format/*.md).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace omnigraph::format::internal {

static_assert(std::endian::native == std::endian::little, "the file codecs assume little-endian");

class ByteWriter {
 public:
  explicit ByteWriter(std::string* out) : out_(out) {}
  void U8(uint8_t v) { out_->push_back(static_cast<char>(v)); }
  void U16(uint16_t v) { Raw(&v, 2); }
  void U32(uint32_t v) { Raw(&v, 4); }
  void U64(uint64_t v) { Raw(&v, 8); }
  void Raw(const void* p, size_t n) { out_->append(static_cast<const char*>(p), n); }
  void Bytes(std::string_view s) { out_->append(s); }
  // u32 length + bytes.
  void Str(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    Bytes(s);
  }
  size_t size() const { return out_->size(); }

 private:
  std::string* out_;
};

// Every read returns false (and leaves the reader failed) when the input is too short.
class ByteReader {
 public:
  explicit ByteReader(std::string_view data) : data_(data) {}
  bool U8(uint8_t* v) { return Raw(v, 1); }
  bool U16(uint16_t* v) { return Raw(v, 2); }
  bool U32(uint32_t* v) { return Raw(v, 4); }
  bool U64(uint64_t* v) { return Raw(v, 8); }
  bool Raw(void* p, size_t n) {
    if (!ok_ || data_.size() - pos_ < n) return ok_ = false;
    std::memcpy(p, data_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  bool Take(size_t n, std::string_view* out) {
    if (!ok_ || data_.size() - pos_ < n) return ok_ = false;
    *out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool Str(std::string_view* out) {
    uint32_t n = 0;
    return U32(&n) && Take(n, out);
  }
  size_t remaining() const { return data_.size() - pos_; }
  size_t pos() const { return pos_; }
  bool ok() const { return ok_; }
  bool at_end() const { return ok_ && pos_ == data_.size(); }

 private:
  std::string_view data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// Bits needed for `v` (0 for 0).
inline uint8_t BitWidth(uint64_t v) { return static_cast<uint8_t>(64 - std::countl_zero(v)); }
inline uint64_t PackedBytes(uint64_t count, uint8_t width) { return (count * width + 7) / 8; }

// Appends `values` packed LSB-first with `width` bits each (width 0..64; values must fit).
void PackBits(std::span<const uint64_t> values, uint8_t width, std::string* out);
// Unpacks `count` values of `width` bits; false unless packed.size() == PackedBytes(count, width).
bool UnpackBits(std::string_view packed, uint8_t width, size_t count, uint64_t* out);

// The one value of `width` bits (1..64) that starts `shift` bits (0..7) into `s`, as PackBits
// writes it. Precondition: s.size() >= (shift + width + 7) / 8.
inline uint64_t LoadBits(std::string_view s, unsigned shift, uint8_t width) {
  uint64_t lo = 0;
  std::memcpy(&lo, s.data(), s.size() < 8 ? s.size() : 8);
  uint64_t v = lo >> shift;
  if (shift + width > 64) v |= uint64_t{static_cast<uint8_t>(s[8])} << (64 - shift);
  return width == 64 ? v : v & ((uint64_t{1} << width) - 1);
}

}  // namespace omnigraph::format::internal
