#include "common/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "common/error_codes.h"

namespace omnigraph {

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), name_(std::move(other.name_)), size_(other.size_) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    name_ = std::move(other.name_);
    size_ = other.size_;
  }
  return *this;
}

int InputFile::release() { return std::exchange(fd_, -1); }

Result<InputFile> OpenInputFile(const std::string& path, std::string_view what) {
  std::string name = std::string(what) + " '" + path + "'";
  if (path.empty()) return InvalidArgumentError("no " + std::string(what) + " given (empty path)");
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    if (errno == EISDIR) return InvalidArgumentError("cannot read " + name + ": it is a directory");
    return ErrnoError("cannot read " + name, errno);
  }
  InputFile file(fd, std::move(name), std::nullopt);
  struct stat st;
  if (::fstat(fd, &st) != 0) return ErrnoError("cannot read " + file.name(), errno);
  if (S_ISDIR(st.st_mode)) {
    return InvalidArgumentError("cannot read " + file.name() + ": it is a directory");
  }
  std::optional<uint64_t> size;
  if (S_ISREG(st.st_mode)) size = static_cast<uint64_t>(st.st_size);
  return InputFile(file.release(), file.name(), size);
}

Result<std::string> ReadSourceFile(const std::string& path, std::string_view what, uint64_t max_bytes) {
  OG_ASSIGN_OR_RETURN(InputFile file, OpenInputFile(path, what));
  auto too_large = [&] {
    return ResourceExhaustedError(file.name() + " is larger than the limit of " + std::to_string(max_bytes) + " bytes");
  };
  if (file.size() && *file.size() > max_bytes) return too_large();
  // One read into a buffer of the file's size when it has one; streams are read in pieces.
  std::string out;
  out.reserve(static_cast<size_t>(file.size().value_or(0)));
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(file.fd(), chunk, sizeof(chunk));
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EISDIR) return InvalidArgumentError("cannot read " + file.name() + ": it is a directory");
      return ErrnoError("error reading " + file.name(), errno);
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) return too_large();
    out.append(chunk, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace omnigraph
