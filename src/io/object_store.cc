#include "io/object_store.h"

#include "common/error_codes.h"

namespace omnigraph::io {

Result<std::vector<ObjectMeta>> ObjectStore::List(std::string_view prefix, std::string_view start_after) {
  std::vector<ObjectMeta> out;
  std::string cursor(start_after);
  for (;;) {
    OG_ASSIGN_OR_RETURN(std::vector<ObjectMeta> page, ListPage(prefix, cursor, kListPageSize));
    if (page.empty()) break;
    cursor = page.back().key;
    bool last = page.size() < kListPageSize;
    for (auto& m : page) out.push_back(std::move(m));
    if (last) break;
  }
  return out;
}

namespace {
class BufferedWriter final : public ObjectWriter {
 public:
  BufferedWriter(ObjectStore* store, std::string key) : store_(store), key_(std::move(key)) {}
  Status Append(std::string_view bytes) override {
    if (committed_) return InvalidArgumentError("ObjectWriter::Append after Commit");
    data_.append(bytes);
    return Status::Ok();
  }
  Status Commit() override {
    if (committed_) return InvalidArgumentError("ObjectWriter::Commit called twice");
    committed_ = true;
    return store_->PutIfAbsentMoved(key_, std::move(data_));
  }
  void SizeHint(uint64_t bytes) override {
    if (!committed_ && bytes > data_.capacity() && bytes < (uint64_t{1} << 40)) data_.reserve(bytes);
  }
  uint64_t size() const override { return data_.size(); }

 private:
  ObjectStore* store_;
  std::string key_;
  std::string data_;
  bool committed_ = false;
};
}  // namespace

Result<std::unique_ptr<ObjectWriter>> ObjectStore::NewWriter(std::string_view key) {
  OG_RETURN_IF_ERROR(ValidateKey(key));
  return std::unique_ptr<ObjectWriter>(std::make_unique<BufferedWriter>(this, std::string(key)));
}

Status ObjectStore::DeletePrefix(std::string_view prefix) {
  if (prefix.empty()) return InvalidArgumentError("DeletePrefix needs a non-empty prefix");
  OG_ASSIGN_OR_RETURN(std::vector<ObjectMeta> all, List(prefix));
  for (const auto& m : all) OG_RETURN_IF_ERROR(Delete(m.key));
  return Status::Ok();
}

Status ValidateKey(std::string_view key) {
  auto bad = [&](std::string_view why) {
    return InvalidArgumentError("invalid object key '" + std::string(key.substr(0, 200)) + "': " + std::string(why));
  };
  if (key.empty()) return bad("empty");
  if (key.size() > 1024) return bad("longer than 1024 bytes");
  if (key.front() == '/') return bad("starts with '/'");
  size_t start = 0;
  while (start <= key.size()) {
    size_t end = key.find('/', start);
    if (end == std::string_view::npos) end = key.size();
    std::string_view seg = key.substr(start, end - start);
    if (seg.empty()) return bad("has an empty segment");
    if (seg == "." || seg == "..") return bad("has a '.' or '..' segment");
    if (seg.substr(0, 4) == ".og-") return bad("has a segment starting with '.og-' (reserved)");
    start = end + 1;
  }
  for (char c : key) {
    if (c == '\0') return bad("contains a NUL byte");
  }
  return Status::Ok();
}

std::string JoinKey(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  std::string out(a);
  if (out.back() != '/') out.push_back('/');
  out.append(b);
  return out;
}

}  // namespace omnigraph::io
