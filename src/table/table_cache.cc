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
