// Checksummed JSON objects (docs/format/commits_and_refs.md): commit objects and ref entries are
// canonical JSON carrying a "checksum" member, the xxhash64 of the canonical JSON of the object
// without it. Objects written before checksums existed ("legacy", no such member) still read.
// Stateless; thread-safe.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "common/json.h"
#include "omnigraph/result.h"

namespace omnigraph::engine {

inline constexpr std::string_view kChecksumMember = "checksum";

// xxhash64 (seed 0) of `bytes` as 16 lower-case hex digits.
std::string Digest16(std::string_view bytes);

// The stored bytes of `body` (a JSON object without a "checksum" member): its canonical JSON with
// "checksum" added.
std::string SealJson(Json body);

struct UnsealedJson {
  Json body;            // without the checksum member
  bool sealed = false;  // false: a legacy object (no checksum)
};

// Parses stored bytes. A sealed object must be exactly its canonical JSON and its checksum must
// match; a legacy object is taken as it parses. Corrupt naming `what` (the object's key) otherwise.
Result<UnsealedJson> UnsealJson(std::string_view bytes, std::string_view what);

// Corrupt naming `what` unless every member of the (legacy) object `j` is one of `allowed`: a
// flipped byte in the name of the checksum member must not make a sealed object pass as legacy.
Status CheckLegacyMembers(const Json& j, std::initializer_list<std::string_view> allowed, std::string_view what);

}  // namespace omnigraph::engine
