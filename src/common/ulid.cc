#include "common/ulid.h"

#include <pthread.h>
#include <unistd.h>

#include <mutex>
#include <new>
#include <random>

#include "common/clock.h"
#include "common/error_codes.h"

namespace omnigraph {
namespace {
__extension__ typedef unsigned __int128 U128;
constexpr char kAlphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

int DecodeChar(char c) {
  if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  if (c == 'I' || c == 'L') return 1;
  if (c == 'O') return 0;
  for (int i = 0; i < 32; ++i) {
    if (kAlphabet[i] == c) return i;
  }
  return -1;
}

struct Generator {
  std::mutex mu;
  uint64_t last_ms = 0;
  std::array<uint8_t, 10> last_rand{};
  std::mt19937_64 rng{std::random_device{}()};
};
Generator& Gen();
// A forked child must not continue the parent's sequence (both would produce the same ids).
void ReseedInChild() {
  Generator& g = Gen();
  new (&g.mu) std::mutex();  // the parent's lock state is meaningless in the child
  g.last_ms = 0;
  g.rng.seed(std::random_device{}() ^ static_cast<uint64_t>(::getpid()));
}
Generator& Gen() {
  static Generator* g = [] {
    auto* gen = new Generator();
    ::pthread_atfork(nullptr, nullptr, &ReseedInChild);
    return gen;
  }();
  return *g;
}

// The next id of `g`, at the clock reading `ms`. Requires g.mu.
std::array<uint8_t, 16> NextLocked(Generator& g, uint64_t ms) {
  if (ms <= g.last_ms) {
    // Same (or earlier: clock stepped back) millisecond: increment the random part.
    ms = g.last_ms;
    int i = 9;
    while (i >= 0 && ++g.last_rand[i] == 0) --i;
    if (i < 0) ++ms;  // 80-bit overflow: borrow the next millisecond
  } else {
    for (int i = 0; i < 10; i += 8) {
      uint64_t r = g.rng();
      for (int j = 0; j < 8 && i + j < 10; ++j) g.last_rand[i + j] = static_cast<uint8_t>(r >> (8 * j));
    }
    g.last_rand[0] &= 0x7f;  // leave headroom for increments
  }
  g.last_ms = ms;
  std::array<uint8_t, 16> bytes;
  for (int i = 0; i < 6; ++i) bytes[i] = static_cast<uint8_t>(ms >> (8 * (5 - i)));
  for (int i = 0; i < 10; ++i) bytes[6 + i] = g.last_rand[i];
  return bytes;
}
}  // namespace

Ulid Ulid::Generate() {
  Generator& g = Gen();
  std::lock_guard<std::mutex> lock(g.mu);
  Ulid u;
  u.bytes_ = NextLocked(g, static_cast<uint64_t>(NowMicros() / 1000));
  return u;
}

void Ulid::GenerateMany(std::span<Ulid> out) {
  if (out.empty()) return;
  Generator& g = Gen();
  std::lock_guard<std::mutex> lock(g.mu);
  const auto ms = static_cast<uint64_t>(NowMicros() / 1000);
  for (Ulid& u : out) u.bytes_ = NextLocked(g, ms);
}

std::string Ulid::ToString() const {
  std::string out(26, '0');
  ToChars(out.data());
  return out;
}

void Ulid::ToChars(char* out) const {
  // 128 bits -> 26 chars of 5 bits; the first char carries the top 3 bits (130 bits total).
  // On two 64-bit halves (a bulk load formats millions): chars 14..25 are lo's low 60 bits,
  // char 13 is lo's top 4 bits plus hi's lowest bit, chars 0..12 are hi's upper 63 bits.
  uint64_t hi = 0, lo = 0;
  for (int i = 0; i < 8; ++i) hi = (hi << 8) | bytes_[i];
  for (int i = 8; i < 16; ++i) lo = (lo << 8) | bytes_[i];
  for (int i = 25; i >= 14; --i, lo >>= 5) out[i] = kAlphabet[lo & 31];
  out[13] = kAlphabet[(lo & 15) | ((hi & 1) << 4)];
  hi >>= 1;
  for (int i = 12; i >= 0; --i, hi >>= 5) out[i] = kAlphabet[hi & 31];
}

Result<Ulid> Ulid::Parse(std::string_view text) {
  if (text.size() != 26) {
    return InvalidArgumentError("ULID must have 26 characters, got " + std::to_string(text.size()));
  }
  U128 v = 0;
  for (size_t i = 0; i < 26; ++i) {
    int d = DecodeChar(text[i]);
    if (d < 0 || (i == 0 && d > 7)) {
      return InvalidArgumentError("invalid ULID character at position " + std::to_string(i + 1));
    }
    v = (v << 5) | static_cast<unsigned>(d);
  }
  Ulid u;
  for (int i = 15; i >= 0; --i) {
    u.bytes_[i] = static_cast<uint8_t>(v & 0xff);
    v >>= 8;
  }
  return u;
}

uint64_t Ulid::timestamp_ms() const {
  uint64_t ms = 0;
  for (int i = 0; i < 6; ++i) ms = (ms << 8) | bytes_[i];
  return ms;
}

std::string NewUlidString() { return Ulid::Generate().ToString(); }

}  // namespace omnigraph
