#include "engine/graph/graph_layout.h"

#include <charconv>
#include <cstdio>

#include "common/error_codes.h"
#include "common/hash.h"
#include "table/table_layout.h"

namespace omnigraph::engine {

Status ValidateBranchName(std::string_view name) {
  if (name.empty()) return InvalidArgumentError("branch name is empty");
  if (name.size() > kMaxBranchNameBytes) {
    return InvalidArgumentError("branch name is longer than " + std::to_string(kMaxBranchNameBytes) + " bytes");
  }
  // UTF-8 well-formedness (no overlongs/surrogates checks beyond structure) and no control chars.
  for (size_t i = 0; i < name.size();) {
    auto c = static_cast<unsigned char>(name[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > name.size()) {
      return InvalidArgumentError("branch name is not valid UTF-8");
    }
    for (size_t j = 1; j < len; ++j) {
      if ((static_cast<unsigned char>(name[i + j]) >> 6) != 2) {
        return InvalidArgumentError("branch name is not valid UTF-8");
      }
    }
    if (len == 1 && (c < 0x20 || c == 0x7f)) {
      return InvalidArgumentError("branch name contains a control character");
    }
    i += len;
  }
  return Status::Ok();
}

std::string BranchHex(std::string_view branch) { return HexEncode(branch); }

std::optional<std::string> BranchFromHex(std::string_view hex) {
  std::string out;
  if (!HexDecode(hex, &out)) return std::nullopt;
  return out;
}

std::string RefFolder(std::string_view branch) { return std::string(kRefsPrefix) + BranchHex(branch) + "/"; }

std::string RefEntryKey(std::string_view branch, uint64_t seq) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%020llu", static_cast<unsigned long long>(seq));
  return RefFolder(branch) + buf;
}

std::string RefHeadHintKey(std::string_view branch) { return RefFolder(branch) + "HEAD"; }

std::string RefFloorKey(std::string_view branch, uint64_t seq) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "F%020llu", static_cast<unsigned long long>(seq));
  return RefFolder(branch) + buf;
}

std::optional<uint64_t> ParseRefFloor(std::string_view key) {
  size_t slash = key.rfind('/');
  std::string_view last = slash == std::string_view::npos ? key : key.substr(slash + 1);
  if (last.size() != 21 || last[0] != 'F') return std::nullopt;
  return ParseRefSeq(last.substr(1));
}

std::optional<uint64_t> ParseRefSeq(std::string_view key) {
  size_t slash = key.rfind('/');
  std::string_view last = slash == std::string_view::npos ? key : key.substr(slash + 1);
  if (last.size() != 20) return std::nullopt;
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(last.data(), last.data() + last.size(), v);
  if (ec != std::errc() || ptr != last.data() + last.size()) return std::nullopt;
  return v;
}

std::string CommitKey(std::string_view commit_id) {
  return std::string(kCommitsPrefix) + std::string(commit_id) + ".json";
}
std::string SchemaKey(std::string_view schema_id) {
  return std::string(kSchemasPrefix) + std::string(schema_id) + ".json";
}
std::string TablePrefix(std::string_view table_id) { return std::string(kTablesPrefix) + std::string(table_id); }

bool IsDiskCacheableKey(std::string_view key) {
  if (key.starts_with(kDerivedPrefix)) return true;
  if (!key.starts_with(kTablesPrefix)) return false;
  // tables/<table id>/<folder>/...
  std::string_view rest = key.substr(kTablesPrefix.size());
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return false;
  rest = rest.substr(slash + 1);
  for (std::string_view dir : {table::kDataDir, table::kDeletionDir, table::kBlobDir, table::kIndexDir}) {
    if (rest.starts_with(dir)) return true;
  }
  return false;
}

std::string OrdinalsKey(std::string_view table_prefix, std::string_view version_id) {
  return std::string(kDerivedPrefix) + std::string(table_prefix) + "/ordinals/" + std::string(version_id) + ".ogord";
}
std::string CsrKey(std::string_view edge_table_prefix, std::string_view edge_version_id,
                   std::string_view src_version_id, std::string_view dst_version_id) {
  return std::string(kDerivedPrefix) + std::string(edge_table_prefix) + "/csr/" + std::string(edge_version_id) + "-" +
         std::string(src_version_id) + "-" + std::string(dst_version_id) + ".ogcsr";
}

}  // namespace omnigraph::engine
