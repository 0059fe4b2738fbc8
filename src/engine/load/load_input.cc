#include "engine/load/load_input.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error_codes.h"
#include "common/file_util.h"
#include "engine/load/load_parser.h"

namespace omnigraph::engine {
namespace {

class StringSource : public LoadSource {
 public:
  explicit StringSource(std::string_view text) : text_(text) {}
  Result<size_t> Read(char* out, size_t size) override {
    const size_t n = std::min(size, text_.size() - pos_);
    std::memcpy(out, text_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  Status Rewind() override {
    pos_ = 0;
    return Status::Ok();
  }
  std::optional<uint64_t> size() const override { return text_.size(); }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

class FileSource : public LoadSource {
 public:
  FileSource(int fd, std::string name, std::optional<uint64_t> size) : fd_(fd), name_(std::move(name)), size_(size) {}
  ~FileSource() override { ::close(fd_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  Result<size_t> Read(char* out, size_t size) override {
    for (;;) {
      const ssize_t n = ::read(fd_, out, size);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno != EINTR) return ErrnoError("reading " + name_, errno);
    }
  }
  Status Rewind() override {
    if (::lseek(fd_, 0, SEEK_SET) != 0) {
      return PreconditionFailedError(name_ + " cannot be read a second time (a pipe or other stream)");
    }
    return Status::Ok();
  }
  std::optional<uint64_t> size() const override { return size_; }

 private:
  int fd_;
  std::string name_;
  std::optional<uint64_t> size_;
};

}  // namespace

std::unique_ptr<LoadSource> NewStringLoadSource(std::string_view text) { return std::make_unique<StringSource>(text); }

Result<std::unique_ptr<LoadSource>> OpenLoadFile(const std::string& path, std::string_view what) {
  OG_ASSIGN_OR_RETURN(InputFile file, OpenInputFile(path, what));
  const std::optional<uint64_t> size = file.size();
  std::string name = file.name();
  return std::unique_ptr<LoadSource>(std::make_unique<FileSource>(file.release(), std::move(name), size));
}

LineChunker::LineChunker(LoadSource& source, size_t chunk_bytes, size_t max_record_bytes)
    : source_(source), chunk_bytes_(std::max<size_t>(chunk_bytes, 1)), max_record_bytes_(max_record_bytes) {}

LineChunker::~LineChunker() = default;

void LineChunker::Grow(size_t capacity) {
  auto bigger = std::make_unique<char[]>(capacity + kJsonPadding);
  std::memcpy(bigger.get(), buf_.get() + begin_, end_ - begin_);
  end_ -= begin_;
  begin_ = 0;
  buf_ = std::move(bigger);
  capacity_ = capacity;
}

Status LineChunker::Fill() {
  while (end_ < capacity_ && !eof_) {
    OG_ASSIGN_OR_RETURN(size_t n, source_.Read(buf_.get() + end_, capacity_ - end_));
    if (n == 0) eof_ = true;
    end_ += n;
    bytes_read_ += n;
  }
  return Status::Ok();
}

Result<std::string_view> LineChunker::Next() {
  if (buf_ == nullptr) {
    // Allocated on first use (not up front: most loads are far smaller than a chunk).
    const size_t first =
        static_cast<size_t>(std::min<uint64_t>(chunk_bytes_, source_.size().value_or(chunk_bytes_) + 1));
    buf_ = std::make_unique<char[]>(first + kJsonPadding);
    capacity_ = first;
  }
  // The previous chunk is done with: keep the unreturned tail, at the front.
  if (begin_ > 0) {
    std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  for (;;) {
    OG_RETURN_IF_ERROR(Fill());
    if (end_ == 0) return std::string_view();
    const void* nl = ::memrchr(buf_.get(), '\n', end_);
    size_t len;
    if (nl != nullptr) {
      len = static_cast<size_t>(static_cast<const char*>(nl) - buf_.get()) + 1;
    } else if (eof_) {
      len = end_;  // the last line, without a newline
    } else {
      // One line fills the buffer: grow it, up to the per-record limit (+ "\r\n").
      const size_t limit = max_record_bytes_ + 2;
      if (capacity_ >= limit) {
        return ResourceExhaustedError("the record is longer than the per-record limit of " +
                                      std::to_string(max_record_bytes_) +
                                      " bytes (raise it with --max-record-size / LoadOptions::max_record_bytes)");
      }
      Grow(std::min(std::max(capacity_ * 2, chunk_bytes_), limit));
      continue;
    }
    begin_ = len;
    return std::string_view(buf_.get(), len);
  }
}

}  // namespace omnigraph::engine
