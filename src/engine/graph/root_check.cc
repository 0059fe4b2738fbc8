#include "engine/graph/root_check.h"

#include <map>

#include "engine/graph/commit.h"
#include "engine/graph/graph_layout.h"

namespace omnigraph::engine {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool IsOurKey(std::string_view key) {
  for (std::string_view p :
       {kRefsPrefix, kCommitsPrefix, kSchemasPrefix, kTablesPrefix, kAuditPrefix, kDerivedPrefix}) {
    if (StartsWith(key, p)) return true;
  }
  return key == kFormatStampKey;
}

// Whether commits/<id>.json is a genesis commit (what init writes before its ref).
Result<bool> IsGenesisCommit(io::ObjectStore& store, std::string_view key) {
  std::string_view name = key.substr(kCommitsPrefix.size());
  if (name.size() <= 5 || name.substr(name.size() - 5) != ".json") return Result<bool>(false);
  auto bytes = store.Get(key);
  if (!bytes.ok()) {
    if (bytes.status().category() == StatusCode::kNotFound) return Result<bool>(true);  // gone since listed
    return bytes.status();
  }
  auto c = DecodeCommit(*bytes, name.substr(0, name.size() - 5));
  return Result<bool>(c.ok() && c->operation == "init" && c->parents.empty());
}

}  // namespace

Result<RootReport> InspectRoot(io::ObjectStore& store) {
  OG_ASSIGN_OR_RETURN(auto refs, store.ListPage(kRefsPrefix, "", 1));
  if (!refs.empty()) return RootReport{RootState::kGraph, refs.front().key};
  bool any = false, stamp = false;
  std::string first_other;              // the first object that is not the stamp
  std::map<std::string, int> versions;  // table prefix -> version manifests seen
  std::string after;
  for (;;) {
    OG_ASSIGN_OR_RETURN(auto page, store.ListPage("", after, io::ObjectStore::kListPageSize));
    for (const auto& m : page) {
      const std::string& key = m.key;
      any = true;
      if (!IsOurKey(key)) return RootReport{RootState::kForeign, key};
      if (key == kFormatStampKey) {
        stamp = true;
        continue;
      }
      if (first_other.empty()) first_other = key;
      if (StartsWith(key, kRefsPrefix)) return RootReport{RootState::kGraph, key};
      if (StartsWith(key, kSchemasPrefix)) continue;
      if (StartsWith(key, kCommitsPrefix)) {
        OG_ASSIGN_OR_RETURN(bool genesis, IsGenesisCommit(store, key));
        if (!genesis) return RootReport{RootState::kDamaged, key};
        continue;
      }
      if (StartsWith(key, kTablesPrefix)) {
        // tables/<id>/versions/<version>, one per table: a table created by init, never written.
        std::string_view rest = std::string_view(key).substr(kTablesPrefix.size());
        size_t slash = rest.find('/');
        if (slash != std::string_view::npos && StartsWith(rest.substr(slash + 1), "versions/") &&
            rest.substr(slash + 1 + 9).find('/') == std::string_view::npos &&
            ++versions[std::string(rest.substr(0, slash))] == 1) {
          continue;
        }
      }
      return RootReport{RootState::kDamaged, key};  // table data, audit or derived objects
    }
    if (page.size() < io::ObjectStore::kListPageSize) break;
    after = page.back().key;
  }
  if (!any) return RootReport{RootState::kEmpty, ""};
  // Init writes the stamp first: its objects without a stamp were not left by an init.
  if (!stamp) return RootReport{RootState::kDamaged, first_other};
  return RootReport{RootState::kUnfinishedInit, ""};
}

}  // namespace omnigraph::engine
