#include "table/table_cache.h"

#include "table/id_index.h"

namespace omnigraph::table {

std::shared_ptr<const format::DeletionVector> TableCache::GetDeletion(const std::string& key) {
  return cache_.Get<format::DeletionVector>("d:" + key);
}
void TableCache::PutDeletion(const std::string& key, std::shared_ptr<const format::DeletionVector> dv) {
  if (dv == nullptr) return;
  const uint64_t charge = dv->memory_bytes();
  cache_.Put("d:" + key, std::move(dv), charge);
}
std::shared_ptr<const IdSegment> TableCache::GetIdSegment(const std::string& key) {
  return cache_.Get<IdSegment>("i:" + key);
}
void TableCache::PutIdSegment(const std::string& key, std::shared_ptr<const IdSegment> s) {
  if (s == nullptr) return;
  const uint64_t charge = 64 + s->bytes().size();
  cache_.Put("i:" + key, std::move(s), charge);
}

namespace {
std::string ProbeKey(const std::string& segment_key, std::string_view value) {
  std::string k = "p:" + segment_key;
  k += '\x1f';
  k.append(value);
  return k;
}
}  // namespace

std::shared_ptr<const TableCache::ProbeAnswer> TableCache::GetProbe(const std::string& segment_key,
                                                                    std::string_view value) {
  return cache_.Get<ProbeAnswer>(ProbeKey(segment_key, value));
}

void TableCache::PutProbe(const std::string& segment_key, std::string_view value, std::vector<uint64_t> addresses) {
  std::string key = ProbeKey(segment_key, value);
  const uint64_t charge = 96 + key.size() + 8 * addresses.size();
  cache_.Put(std::move(key), std::make_shared<const ProbeAnswer>(ProbeAnswer{std::move(addresses)}), charge);
}

std::shared_ptr<const format::FragmentReader> ReaderCache::Get(const std::string& key) {
  return cache_.Get<format::FragmentReader>(key);
}
void ReaderCache::Put(const std::string& key, std::shared_ptr<const format::FragmentReader> r) {
  if (r == nullptr) return;
  // The footer: about 100 bytes of page index and statistics per page, plus the schema.
  uint64_t pages = 0;
  for (const auto& c : r->metadata().columns) pages += c.pages.size();
  const uint64_t charge = 1024 + 128 * pages;
  cache_.Put(key, std::move(r), charge);
}

}  // namespace omnigraph::table
