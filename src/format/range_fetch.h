// Private to src/format: fetching byte ranges of one fragment file. Requested ranges are sorted,
// merged when they overlap or lie less than a gap apart, and fetched by one GetRange each, in
// parallel on the I/O pool: one round trip however many ranges a read needs. Used by the
// row-granular Take (ranged_take.h) and by FragmentReader's page reads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/object_store.h"
#include "omnigraph/result.h"

namespace omnigraph::format::internal {

struct Range {
  uint64_t offset = 0;  // in the file
  uint64_t length = 0;
};

// `ranges` sorted, with overlapping ones and those less than `gap` bytes apart merged.
std::vector<Range> Coalesce(std::vector<Range> ranges, uint64_t gap);

// The bytes of one round: the requested ranges, coalesced, found again by file offset.
class Fetched {
 public:
  // Coalesces `ranges` and fetches them (in parallel on the I/O pool when there are several).
  // Errors: the store's; Corrupt naming `key` when the object is shorter than a range.
  static Result<Fetched> Fetch(io::ObjectStore& store, const std::string& key, std::vector<Range> ranges, uint64_t gap);

  // Bytes [offset, offset + length) of the file. Precondition: a range passed to Fetch covers them.
  std::string_view View(uint64_t offset, uint64_t length) const;
  // The GetRange calls Fetch made.
  size_t requests() const { return merged_.size(); }

 private:
  std::vector<Range> merged_;
  std::vector<std::string> bytes_;
};

}  // namespace omnigraph::format::internal
