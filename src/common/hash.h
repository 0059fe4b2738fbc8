// Hashing helpers: xxhash64 (checksums, hash tables) and SHA-256 (content addresses).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace omnigraph {

uint64_t XxHash64(std::string_view data, uint64_t seed = 0);
uint64_t XxHash64Bytes(const void* data, size_t len, uint64_t seed = 0);

// Incremental xxhash64 (for objects written in pieces): Digest() equals XxHash64 of everything
// passed to Update so far, concatenated. Not thread-safe.
class XxHash64Stream {
 public:
  explicit XxHash64Stream(uint64_t seed = 0);
  ~XxHash64Stream();
  XxHash64Stream(const XxHash64Stream&) = delete;
  XxHash64Stream& operator=(const XxHash64Stream&) = delete;
  void Update(std::string_view data);
  uint64_t Digest() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

std::array<uint8_t, 32> Sha256(std::string_view data);
// Lower-case hex of SHA-256 (64 characters).
std::string Sha256Hex(std::string_view data);

std::string HexEncode(std::string_view bytes);
// The value of one hex digit (either case), or -1.
int HexDigitValue(char c);
// Returns false on odd length or non-hex characters.
bool HexDecode(std::string_view hex, std::string* out);

}  // namespace omnigraph
