#include "io/counting_store.h"

namespace omnigraph::io {

std::string_view StoreOpName(StoreOp op) {
  static constexpr std::string_view kNames[] = {"get", "get_range", "head", "list", "put", "put_if_absent", "delete"};
  return kNames[static_cast<size_t>(op)];
}

uint64_t StoreCounts::total() const {
  uint64_t n = 0;
  for (uint64_t r : requests) n += r;
  return n;
}
uint64_t StoreCounts::reads() const {
  return of(StoreOp::kGet) + of(StoreOp::kGetRange) + of(StoreOp::kHead) + of(StoreOp::kList);
}
uint64_t StoreCounts::writes() const { return of(StoreOp::kPut) + of(StoreOp::kPutIfAbsent) + of(StoreOp::kDelete); }
std::string StoreCounts::ToString() const {
  std::string out;
  for (size_t i = 0; i < kStoreOpCount; ++i) {
    if (!out.empty()) out += " ";
    out += std::string(StoreOpName(static_cast<StoreOp>(i))) + "=" + std::to_string(requests[i]);
  }
  return out + " (bytes read " + std::to_string(bytes_read) + ", written " + std::to_string(bytes_written) + ")";
}
StoreCounts StoreCounts::operator-(const StoreCounts& e) const {
  StoreCounts d;
  for (size_t i = 0; i < kStoreOpCount; ++i) d.requests[i] = requests[i] - e.requests[i];
  d.bytes_read = bytes_read - e.bytes_read;
  d.bytes_written = bytes_written - e.bytes_written;
  return d;
}

StoreCounts CountingStore::counts() const {
  StoreCounts c;
  for (size_t i = 0; i < kStoreOpCount; ++i) c.requests[i] = requests_[i].load();
  c.bytes_read = bytes_read_.load();
  c.bytes_written = bytes_written_.load();
  return c;
}

void CountingStore::Reset() {
  for (auto& r : requests_) r.store(0);
  bytes_read_.store(0);
  bytes_written_.store(0);
  MutexLock lock(&trace_mu_);
  trace_.clear();
}

void CountingStore::set_trace(bool on) { tracing_.store(on); }

std::vector<std::string> CountingStore::trace() const {
  MutexLock lock(&trace_mu_);
  return trace_;
}

void CountingStore::Count(StoreOp op, std::string_view key, std::string_view detail) {
  requests_[static_cast<size_t>(op)].fetch_add(1, std::memory_order_relaxed);
  if (!tracing_.load(std::memory_order_relaxed)) return;
  std::string line = std::string(StoreOpName(op)) + " " + std::string(key);
  if (!detail.empty()) line += " " + std::string(detail);
  MutexLock lock(&trace_mu_);
  trace_.push_back(std::move(line));
}

Result<std::string> CountingStore::Get(std::string_view key) {
  Count(StoreOp::kGet, key);
  auto r = base_->Get(key);
  if (r.ok()) bytes_read_.fetch_add(r->size());
  return r;
}

Result<std::string> CountingStore::GetRange(std::string_view key, uint64_t offset, uint64_t length) {
  Count(StoreOp::kGetRange, key,
        tracing_.load(std::memory_order_relaxed) ? "@" + std::to_string(offset) + "+" + std::to_string(length) : "");
  auto r = base_->GetRange(key, offset, length);
  if (r.ok()) bytes_read_.fetch_add(r->size());
  return r;
}

Result<ObjectMeta> CountingStore::Head(std::string_view key) {
  Count(StoreOp::kHead, key);
  return base_->Head(key);
}

Result<std::vector<ObjectMeta>> CountingStore::List(std::string_view prefix, std::string_view start_after) {
  // Page through ourselves so that every page is one counted request, as on S3.
  return ObjectStore::List(prefix, start_after);
}

Result<std::vector<ObjectMeta>> CountingStore::ListPage(std::string_view prefix, std::string_view start_after,
                                                        size_t max_keys) {
  Count(StoreOp::kList, prefix, start_after.empty() ? "" : "after " + std::string(start_after));
  return base_->ListPage(prefix, start_after, max_keys);
}

Status CountingStore::Put(std::string_view key, std::string_view data) {
  Count(StoreOp::kPut, key);
  bytes_written_.fetch_add(data.size());
  return base_->Put(key, data);
}

Status CountingStore::PutVolatile(std::string_view key, std::string_view data) {
  Count(StoreOp::kPut, key);
  bytes_written_.fetch_add(data.size());
  return base_->PutVolatile(key, data);
}

class CountingWriter final : public ObjectWriter {
 public:
  CountingWriter(CountingStore* store, std::string key, std::unique_ptr<ObjectWriter> base)
      : store_(store), key_(std::move(key)), base_(std::move(base)) {}
  Status Append(std::string_view bytes) override { return base_->Append(bytes); }
  Status Commit() override {
    store_->Count(StoreOp::kPutIfAbsent, key_);
    store_->bytes_written_.fetch_add(base_->size());
    return base_->Commit();
  }
  uint64_t size() const override { return base_->size(); }

 private:
  CountingStore* store_;
  std::string key_;
  std::unique_ptr<ObjectWriter> base_;
};

Result<std::unique_ptr<ObjectWriter>> CountingStore::NewWriter(std::string_view key) {
  OG_ASSIGN_OR_RETURN(std::unique_ptr<ObjectWriter> w, base_->NewWriter(key));
  return std::unique_ptr<ObjectWriter>(std::make_unique<CountingWriter>(this, std::string(key), std::move(w)));
}

Status CountingStore::PutIfAbsent(std::string_view key, std::string_view data) {
  Count(StoreOp::kPutIfAbsent, key);
  bytes_written_.fetch_add(data.size());
  return base_->PutIfAbsent(key, data);
}

Status CountingStore::PutIfAbsentUnsynced(std::string_view key, std::string_view data) {
  Count(StoreOp::kPutIfAbsent, key);
  bytes_written_.fetch_add(data.size());
  return base_->PutIfAbsentUnsynced(key, data);
}

Status CountingStore::Delete(std::string_view key) {
  Count(StoreOp::kDelete, key);
  return base_->Delete(key);
}

}  // namespace omnigraph::io
