#include "io/memory_store.h"

#include <mutex>

#include "common/error_codes.h"

namespace omnigraph::io {

Result<std::shared_ptr<const std::string>> MemoryStore::Find(std::string_view key) const {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  ReaderLock lock(&mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) {
    return NotFoundError("object '" + std::string(key) + "' not found in " + Describe());
  }
  return it->second;
}

Result<std::string> MemoryStore::Get(std::string_view key) {
  OG_ASSIGN_OR_RETURN(auto obj, Find(key));
  return *obj;
}

Result<std::string> MemoryStore::GetRange(std::string_view key, uint64_t offset, uint64_t length) {
  OG_ASSIGN_OR_RETURN(auto obj, Find(key));
  if (offset > obj->size() || length > obj->size() - offset) {
    return Status(ErrorCode::kRangeOutOfBounds, "range [" + std::to_string(offset) + ", +" + std::to_string(length) +
                                                    ") is outside '" + std::string(key) + "' (" +
                                                    std::to_string(obj->size()) + " bytes)");
  }
  return obj->substr(offset, length);
}

Result<ObjectMeta> MemoryStore::Head(std::string_view key) {
  OG_ASSIGN_OR_RETURN(auto obj, Find(key));
  return ObjectMeta{std::string(key), obj->size()};
}

Result<std::vector<ObjectMeta>> MemoryStore::ListPage(std::string_view prefix, std::string_view start_after,
                                                      size_t max_keys) {
  std::vector<ObjectMeta> out;
  ReaderLock lock(&mu_);
  auto it =
      start_after.empty() || start_after < prefix ? objects_.lower_bound(prefix) : objects_.upper_bound(start_after);
  for (; it != objects_.end() && out.size() < max_keys; ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    out.push_back(ObjectMeta{it->first, it->second->size()});
  }
  return out;
}

Status MemoryStore::Put(std::string_view key, std::string_view data) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  auto obj = std::make_shared<const std::string>(data);
  WriterLock lock(&mu_);
  objects_.insert_or_assign(std::string(key), std::move(obj));
  return Status::Ok();
}

Status MemoryStore::PutIfAbsent(std::string_view key, std::string_view data) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  auto obj = std::make_shared<const std::string>(data);
  WriterLock lock(&mu_);
  auto [it, inserted] = objects_.try_emplace(std::string(key), std::move(obj));
  if (!inserted) return AlreadyExistsError("object '" + std::string(key) + "' already exists");
  return Status::Ok();
}

Status MemoryStore::Delete(std::string_view key) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  WriterLock lock(&mu_);
  auto it = objects_.find(key);
  if (it != objects_.end()) objects_.erase(it);
  return Status::Ok();
}

size_t MemoryStore::object_count() const {
  ReaderLock lock(&mu_);
  return objects_.size();
}

uint64_t MemoryStore::total_bytes() const {
  ReaderLock lock(&mu_);
  uint64_t n = 0;
  for (const auto& [k, v] : objects_) n += v->size();
  return n;
}

}  // namespace omnigraph::io
