#include "table/table_layout.h"

#include "common/ulid.h"
#include "io/object_store.h"

namespace omnigraph::table {

std::string VersionKey(std::string_view version_id) { return std::string(kVersionsDir) + std::string(version_id); }
std::string NewDataKey() { return std::string(kDataDir) + NewUlidString() + ".ogf"; }
std::string NewDeletionKey() { return std::string(kDeletionDir) + NewUlidString() + ".del"; }
std::string NewBlobKey() { return std::string(kBlobDir) + NewUlidString() + ".blob"; }
std::string NewIndexDir() { return std::string(kIndexDir) + NewUlidString() + "/"; }
std::string NewIndexKey(std::string_view suffix) {
  return std::string(kIndexDir) + NewUlidString() + "." + std::string(suffix);
}

std::string AbsoluteKey(std::string_view table_prefix, std::string_view relative) {
  return io::JoinKey(table_prefix, relative);
}

bool IsValidRelativeKey(std::string_view relative) {
  if (relative.empty() || relative.size() > 512 || relative.front() == '/') return false;
  bool known = false;
  for (std::string_view dir : {kVersionsDir, kDataDir, kDeletionDir, kBlobDir, kIndexDir}) {
    if (relative.substr(0, dir.size()) == dir && relative.size() > dir.size()) known = true;
  }
  if (!known) return false;
  size_t start = 0;
  while (start <= relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string_view::npos) end = relative.size();
    std::string_view seg = relative.substr(start, end - start);
    if (seg.empty() || seg == "." || seg == "..") return false;
    start = end + 1;
  }
  for (char c : relative) {
    if (static_cast<unsigned char>(c) < 0x20) return false;
  }
  return true;
}

}  // namespace omnigraph::table
