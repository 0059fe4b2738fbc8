// The input of a bulk load (docs/language.md, "Load data"), read front to back in chunks of whole
// lines so that a load never holds the whole file in memory: a source (a string, a file, a pipe)
// and the chunker that cuts it at line ends (a line never straddles two chunks).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "omnigraph/result.h"

namespace omnigraph::engine {

// Not thread-safe.
class LoadSource {
 public:
  virtual ~LoadSource() = default;
  // Reads up to `size` bytes into `out`; 0 only at the end of the input. Io errors.
  virtual Result<size_t> Read(char* out, size_t size) = 0;
  // Starts again from the first byte. PreconditionFailed when the input cannot be read twice
  // (a pipe).
  virtual Status Rewind() = 0;
  // The total size when known up front (a string, a regular file).
  virtual std::optional<uint64_t> size() const { return std::nullopt; }
};

// Reads `text`, which must outlive the source (it is not copied).
std::unique_ptr<LoadSource> NewStringLoadSource(std::string_view text);
// Reads the file at `path` (also "/dev/stdin" and other pipes, which cannot Rewind); `what` names
// it in messages ("data file"). OpenInputFile's errors (common/file_util.h): NotFound,
// PermissionDenied, InvalidArgument for a directory, Io.
Result<std::unique_ptr<LoadSource>> OpenLoadFile(const std::string& path, std::string_view what = "data file");

// Cuts a source into chunks of whole lines. Not thread-safe.
class LineChunker {
 public:
  // Chunks hold about `chunk_bytes`; a longer line gets a chunk of its own, up to
  // `max_record_bytes` (a line that does not fit is an error).
  LineChunker(LoadSource& source, size_t chunk_bytes, size_t max_record_bytes);
  ~LineChunker();
  LineChunker(const LineChunker&) = delete;
  LineChunker& operator=(const LineChunker&) = delete;

  // The next chunk: whole lines (the input's last line may lack its newline), empty at the end of
  // the input, followed in memory by at least 64 readable bytes (kJsonPadding); valid until the
  // next call. The source's errors, or ResourceExhausted when the first line not yet returned is
  // longer than max_record_bytes.
  Result<std::string_view> Next();
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  Status Fill();
  void Grow(size_t capacity);

  LoadSource& source_;
  size_t chunk_bytes_;
  size_t max_record_bytes_;
  std::unique_ptr<char[]> buf_;
  size_t capacity_ = 0;  // usable bytes of buf_ (it has kJsonPadding more)
  size_t begin_ = 0;     // unreturned bytes: [begin_, end_)
  size_t end_ = 0;
  bool eof_ = false;
  uint64_t bytes_read_ = 0;
};

}  // namespace omnigraph::engine
