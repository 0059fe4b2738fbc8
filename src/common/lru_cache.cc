#include "common/lru_cache.h"

namespace omnigraph {

std::shared_ptr<const void> ByteLruCache::GetErased(const std::string& key) {
  MutexLock l(&mu_);
  auto it = map_.find(key);
  if (it == map_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  return it->second.value;
}

void ByteLruCache::PutErased(const std::string& key, std::shared_ptr<const void> value, uint64_t charge) {
  if (value == nullptr || charge > budget_) return;
  MutexLock l(&mu_);
  if (map_.count(key)) return;
  lru_.push_front(key);
  map_.emplace(key, Entry{std::move(value), charge, lru_.begin()});
  used_ += charge;
  while (used_ > budget_ && !lru_.empty()) {
    auto victim = map_.find(lru_.back());
    used_ -= victim->second.charge;
    map_.erase(victim);
    lru_.pop_back();
    ++evictions_;
  }
}

ByteLruCache::Stats ByteLruCache::stats() const {
  MutexLock l(&mu_);
  return Stats{budget_, used_, map_.size(), hits_, misses_, evictions_};
}

void ByteLruCache::Clear() {
  MutexLock l(&mu_);
  map_.clear();
  lru_.clear();
  used_ = 0;
}

}  // namespace omnigraph
