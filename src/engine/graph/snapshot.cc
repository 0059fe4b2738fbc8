#include "engine/graph/snapshot.h"

#include "common/error_codes.h"
#include "engine/graph/graph_layout.h"
#include "engine/graph/reclaim.h"

namespace omnigraph::engine {

std::shared_ptr<const table::Manifest> ManifestCache::Get(const std::string& key) {
  return cache_.Get<table::Manifest>(key);
}

void ManifestCache::Put(const std::string& key, std::shared_ptr<const table::Manifest> manifest) {
  if (manifest == nullptr) return;
  uint64_t charge = 512;
  for (const auto& f : manifest->fragments) charge += 256 + 64 * f.stats.size();
  for (const auto& i : manifest->indexes) charge += 128 + 8 * i.fragment_ids.size();
  cache_.Put(key, std::move(manifest), charge);
}

Snapshot::Snapshot(io::ObjectStore* store, std::shared_ptr<const Commit> commit,
                   std::shared_ptr<const compiler::Catalog> catalog, std::optional<RefEntry> ref, std::string branch,
                   std::shared_ptr<table::TableCache> cache, std::shared_ptr<ManifestCache> manifests,
                   DerivedStore derived)
    : store_(store),
      commit_(std::move(commit)),
      catalog_(std::move(catalog)),
      ref_(std::move(ref)),
      branch_(std::move(branch)),
      cache_(std::move(cache)),
      manifests_(manifests ? std::move(manifests) : std::make_shared<ManifestCache>()),
      derived_(derived),
      tables_(std::make_shared<Tables>()) {}

Snapshot Snapshot::Rebind(io::ObjectStore* store) const {
  return Snapshot(store, commit_, catalog_, ref_, branch_, cache_, manifests_,
                  DerivedStore{derived_.store, /*writable=*/false});
}

Snapshot Snapshot::WithCommit(io::ObjectStore* store, std::shared_ptr<const Commit> commit,
                              std::shared_ptr<const compiler::Catalog> catalog) const {
  return Snapshot(store, std::move(commit), std::move(catalog), ref_, branch_, cache_, manifests_,
                  DerivedStore{derived_.store, /*writable=*/false});
}

Result<table::TableVersion> Snapshot::Table(std::string_view type_name) const {
  auto it = commit_->tables.find(std::string(type_name));
  if (it == commit_->tables.end()) {
    return NotFoundError("type '" + std::string(type_name) + "' is not in the schema of commit " + commit_->id);
  }
  {
    MutexLock lock(&tables_->mu);
    auto open = tables_->open.find(type_name);
    if (open != tables_->open.end()) return open->second;
  }
  const std::string cache_key = it->second.table_id + "/" + it->second.version_id;
  std::optional<table::TableVersion> opened;
  if (auto m = manifests_->Get(cache_key)) {
    opened = table::TableVersion::FromManifest(*store_, TablePrefix(it->second.table_id), m, cache_);
  } else {
    auto read = table::TableVersion::Open(*store_, TablePrefix(it->second.table_id), it->second.version_id, cache_);
    if (!read.ok() && read.status().category() == StatusCode::kNotFound) {
      // Named by the commit, so never simply absent: cleanup reclaimed it, or the graph lost it.
      return MissingTableVersionError(*store_, *commit_, type_name,
                                      TablePrefix(it->second.table_id) + "/versions/" + it->second.version_id);
    }
    OG_ASSIGN_OR_RETURN(table::TableVersion fresh, std::move(read));
    manifests_->Put(cache_key, fresh.shared_manifest());
    opened = std::move(fresh);
  }
  table::TableVersion v = std::move(*opened);
  MutexLock lock(&tables_->mu);
  tables_->open.emplace(std::string(type_name), v);
  return v;
}

Result<std::map<std::string, uint64_t>> Snapshot::RowCounts() const {
  std::map<std::string, uint64_t> out;
  for (const auto& [name, ref] : commit_->tables) {
    OG_ASSIGN_OR_RETURN(table::TableVersion v, Table(name));
    out[name] = v.row_count();
  }
  return out;
}

std::set<std::string> Snapshot::TablesRead() const {
  std::set<std::string> out;
  MutexLock lock(&tables_->mu);
  for (const auto& [name, v] : tables_->open) out.insert(name);
  return out;
}

}  // namespace omnigraph::engine
