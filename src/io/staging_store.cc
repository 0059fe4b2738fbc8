#include "io/staging_store.h"

#include <algorithm>

#include "common/error_codes.h"

namespace omnigraph::io {

std::shared_ptr<const std::string> StagingStore::Find(std::string_view key) const {
  MutexLock lock(&mu_);
  auto it = pending_.find(key);
  return it == pending_.end() ? nullptr : it->second.data;
}

Result<std::string> StagingStore::Get(std::string_view key) {
  if (auto d = Find(key)) return *d;
  return base_->Get(key);
}

Result<std::string> StagingStore::GetRange(std::string_view key, uint64_t offset, uint64_t length) {
  if (auto d = Find(key)) {
    if (offset > d->size() || length > d->size() - offset) {
      return Status(ErrorCode::kRangeOutOfBounds, "range outside staged object '" + std::string(key) + "'");
    }
    return d->substr(offset, length);
  }
  return base_->GetRange(key, offset, length);
}

Result<ObjectMeta> StagingStore::Head(std::string_view key) {
  if (auto d = Find(key)) return ObjectMeta{std::string(key), d->size()};
  return base_->Head(key);
}

Result<std::vector<ObjectMeta>> StagingStore::List(std::string_view prefix, std::string_view start_after) {
  OG_ASSIGN_OR_RETURN(std::vector<ObjectMeta> out, base_->List(prefix, start_after));
  {
    MutexLock lock(&mu_);
    for (const auto& [k, p] : pending_) {
      if (k.compare(0, prefix.size(), prefix) == 0 && k > start_after) out.push_back({k, p.data->size()});
    }
  }
  std::sort(out.begin(), out.end(), [](const ObjectMeta& a, const ObjectMeta& b) { return a.key < b.key; });
  out.erase(
      std::unique(out.begin(), out.end(), [](const ObjectMeta& a, const ObjectMeta& b) { return a.key == b.key; }),
      out.end());
  return out;
}

Result<std::vector<ObjectMeta>> StagingStore::ListPage(std::string_view prefix, std::string_view start_after,
                                                       size_t max_keys) {
  OG_ASSIGN_OR_RETURN(std::vector<ObjectMeta> all, List(prefix, start_after));
  if (all.size() > max_keys) all.resize(max_keys);
  return all;
}

Status StagingStore::Put(std::string_view key, std::string_view data) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  MutexLock lock(&mu_);
  auto& p = pending_[std::string(key)];
  if (p.data) pending_bytes_ -= p.data->size();
  p.data = std::make_shared<const std::string>(data);
  p.if_absent = false;
  pending_bytes_ += data.size();
  if (pending_bytes_ > threshold_) return FlushLocked();
  return Status::Ok();
}

Status StagingStore::PutIfAbsent(std::string_view key, std::string_view data) {
  return PutIfAbsentMoved(key, std::string(data));
}

Status StagingStore::PutIfAbsentMoved(std::string_view key, std::string data) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  MutexLock lock(&mu_);
  if (pending_.count(key) || flushed_sizes_.count(key)) {
    return AlreadyExistsError("object '" + std::string(key) + "' already exists");
  }
  pending_bytes_ += data.capacity();  // what the buffer holds (a writer may have reserved more)
  pending_[std::string(key)] = Pending{std::make_shared<const std::string>(std::move(data)), true};
  if (pending_bytes_ > threshold_) return FlushLocked();
  return Status::Ok();
}

Status StagingStore::Delete(std::string_view key) {
  return InternalError("StagingStore does not delete ('" + std::string(key) + "')");
}

Status StagingStore::FlushLocked() {
  std::vector<std::pair<std::string, Pending>> batch(pending_.begin(), pending_.end());
  pending_.clear();
  pending_bytes_ = 0;
  for (const auto& [k, p] : batch) flushed_sizes_[k] = p.data->size();
  mu_.Unlock();  // reads of flushed objects now go to the base
  // One round of creates, then one round that makes them all durable (SyncObjects): on a local
  // disk the fsyncs of every object and folder run at once instead of one after another per
  // object.
  Status s = ThreadPool::Io().ParallelFor(batch.size(), [&](size_t i) -> Status {
    const auto& [key, p] = batch[i];
    if (!p.if_absent) return base_->Put(key, *p.data);
    Status put = base_->PutIfAbsentUnsynced(key, *p.data);
    if (put.category() != StatusCode::kAlreadyExists) return put;
    OG_ASSIGN_OR_RETURN(std::string existing, base_->Get(key));
    return existing == *p.data ? Status::Ok() : put;
  });
  if (s.ok()) {
    std::vector<std::string> created;
    for (const auto& [key, p] : batch) {
      if (p.if_absent) created.push_back(key);
    }
    s = base_->SyncObjects(created);
  }
  mu_.Lock();
  return s;
}

Status StagingStore::Flush() {
  MutexLock lock(&mu_);
  return FlushLocked();
}

size_t StagingStore::buffered_objects() const {
  MutexLock lock(&mu_);
  return pending_.size();
}

}  // namespace omnigraph::io
