#include "table/table_cache.h"

namespace omnigraph::table {

namespace {
template <class Map>
typename Map::mapped_type Find(const Map& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : it->second;
}
}  // namespace

std::shared_ptr<const format::DeletionVector> TableCache::GetDeletion(
    const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  return Find(deletions_, key);
}
void TableCache::PutDeletion(const std::string& key,
                             std::shared_ptr<const format::DeletionVector> dv) {
  std::lock_guard<std::mutex> lock(mu_);
  MakeRoomLocked();
  deletions_[key] = std::move(dv);
}
std::shared_ptr<const IdSegment> TableCache::GetIdSegment(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  return Find(id_segments_, key);
}
void TableCache::PutIdSegment(const std::string& key, std::shared_ptr<const IdSegment> s) {
  std::lock_guard<std::mutex> lock(mu_);
  MakeRoomLocked();
  id_segments_[key] = std::move(s);
}
size_t TableCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return deletions_.size() + id_segments_.size();
}
void TableCache::MakeRoomLocked() {
  if (deletions_.size() + id_segments_.size() < max_entries_) return;
  deletions_.clear();
  id_segments_.clear();
}

std::shared_ptr<const format::FragmentReader> ReaderCache::Get(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  return Find(readers_, key);
}
void ReaderCache::Put(const std::string& key, std::shared_ptr<const format::FragmentReader> r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (readers_.size() >= max_entries_) readers_.clear();
  readers_[key] = std::move(r);
}

}  // namespace omnigraph::table
