#include "format/range_fetch.h"

#include <algorithm>

#include "common/check.h"
#include "common/error_codes.h"
#include "common/thread_pool.h"
#include "format/ranged_take.h"

namespace omnigraph::format::internal {

std::vector<Range> Coalesce(std::vector<Range> ranges, uint64_t gap) {
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.offset < b.offset; });
  std::vector<Range> merged;
  for (const Range& r : ranges) {
    if (!merged.empty()) {
      Range& last = merged.back();
      uint64_t end = last.offset + last.length;
      if (r.offset <= end || r.offset - end < gap) {
        last.length = std::max(end, r.offset + r.length) - last.offset;
        continue;
      }
    }
    merged.push_back(r);
  }
  return merged;
}

Result<Fetched> Fetched::Fetch(io::ObjectStore& store, const std::string& key, std::vector<Range> ranges,
                               uint64_t gap) {
  Fetched f;
  f.merged_ = Coalesce(std::move(ranges), gap);
  f.bytes_.resize(f.merged_.size());
  auto get = [&](size_t i) -> Status {
    const Range& r = f.merged_[i];
    auto bytes = store.GetRange(key, r.offset, r.length);
    if (!bytes.ok()) return MapRangeError(bytes.status(), key);
    if (bytes->size() != r.length) return CorruptError("fragment " + key + ": short page read");
    f.bytes_[i] = std::move(*bytes);
    return Status::Ok();
  };
  if (f.merged_.size() == 1) {
    OG_RETURN_IF_ERROR(get(0));
  } else if (f.merged_.size() > 1) {
    OG_RETURN_IF_ERROR(ThreadPool::Io().ParallelFor(f.merged_.size(), get));
  }
  return f;
}

std::string_view Fetched::View(uint64_t offset, uint64_t length) const {
  auto it =
      std::upper_bound(merged_.begin(), merged_.end(), offset, [](uint64_t o, const Range& r) { return o < r.offset; });
  OG_CHECK(it != merged_.begin());
  size_t i = static_cast<size_t>(it - merged_.begin()) - 1;
  OG_CHECK(offset + length <= merged_[i].offset + merged_[i].length);
  return std::string_view(bytes_[i]).substr(offset - merged_[i].offset, length);
}

}  // namespace omnigraph::format::internal
