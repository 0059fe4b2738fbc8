// ULIDs: 128-bit ids, 48-bit millisecond timestamp + 80 random bits, rendered as 26 Crockford
// base32 characters that sort in creation order. Monotonic within a process: ids made in the same
// millisecond increment the random part, so every id is strictly greater than the previous one.
// Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "omnigraph/result.h"

namespace omnigraph {

class Ulid {
 public:
  Ulid() = default;
  // A new id, strictly greater than every id generated before in this process.
  static Ulid Generate();
  // Fills `out` with new ids, in increasing order, each strictly greater than every id generated
  // before in this process: the same as that many Generate() calls, under one lock (bulk loads).
  static void GenerateMany(std::span<Ulid> out);
  // Parses 26 Crockford base32 characters (case-insensitive); InvalidArgument otherwise.
  static Result<Ulid> Parse(std::string_view text);

  std::string ToString() const;
  // Writes the 26 characters of ToString() to out[0..25] (no allocation).
  void ToChars(char* out) const;
  uint64_t timestamp_ms() const;
  const std::array<uint8_t, 16>& bytes() const { return bytes_; }

  auto operator<=>(const Ulid&) const = default;

 private:
  std::array<uint8_t, 16> bytes_{};
};

// Shorthand: Ulid::Generate().ToString().
std::string NewUlidString();

}  // namespace omnigraph
