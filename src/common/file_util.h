// Reading the files a user names as input (schemas, queries, parameters, load data): one place
// that turns every way of naming the wrong thing (missing, a directory, unreadable, too large)
// into a typed error instead of an abort or an empty read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "omnigraph/result.h"

namespace omnigraph {

// The default size limit of ReadSourceFile: a schema, query or parameter file is text a person
// wrote; anything larger is a mistake (or an attack), not a source.
constexpr uint64_t kMaxSourceFileBytes = uint64_t{64} << 20;  // 64 MiB

// An input file opened for reading. Owns `fd` (closed by the destructor). Not thread-safe.
class InputFile {
 public:
  InputFile(int fd, std::string name, std::optional<uint64_t> size) : fd_(fd), name_(std::move(name)), size_(size) {}
  ~InputFile();
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  int fd() const { return fd_; }
  // Gives up ownership of the descriptor (the caller closes it).
  int release();
  // "<what> '<path>'", for messages.
  const std::string& name() const { return name_; }
  // The size of a regular file; nullopt for a pipe, terminal or other stream.
  const std::optional<uint64_t>& size() const { return size_; }

 private:
  int fd_;
  std::string name_;
  std::optional<uint64_t> size_;
};

// Opens `path` for reading; `what` names it in messages ("schema file", "data file"). Pipes and
// other streams (/dev/stdin) are accepted. Errors: NotFound (no such file), PermissionDenied,
// InvalidArgument "... is a directory", Io (others); every message names the path.
Result<InputFile> OpenInputFile(const std::string& path, std::string_view what);

// Reads the whole file at `path` (a regular file or a stream) into memory. OpenInputFile's errors,
// ResourceExhausted when it holds more than `max_bytes`, Io on a read error. Thread-safe.
Result<std::string> ReadSourceFile(const std::string& path, std::string_view what,
                                   uint64_t max_bytes = kMaxSourceFileBytes);

}  // namespace omnigraph
