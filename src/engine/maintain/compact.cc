#include "engine/maintain/compact.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace omnigraph::engine {

namespace {

uint32_t TierOf(uint64_t live_rows, uint32_t fanout) {
  uint32_t tier = 0;
  for (uint64_t n = std::max<uint64_t>(live_rows, 1); n >= fanout; n /= fanout) ++tier;
  return tier;
}

}  // namespace

std::vector<uint32_t> DueFragments(const table::Manifest& manifest, const AutoCompactPolicy& policy) {
  if (policy.fanout < 2) return {};
  std::map<uint32_t, std::vector<uint32_t>> tiers;  // tier -> fragment ids, in manifest order
  for (const table::FragmentMeta& f : manifest.fragments) {
    if (f.live_rows() < policy.small_rows) tiers[TierOf(f.live_rows(), policy.fanout)].push_back(f.id);
  }
  std::vector<uint32_t> out;
  for (const auto& [tier, ids] : tiers) {
    out.insert(out.end(), ids.begin(), ids.end());
    if (ids.size() >= policy.fanout) {
      std::sort(out.begin(), out.end());
      return out;
    }
  }
  return {};
}

Result<GraphCompaction> CompactGraph(Graph& graph, const CompactGraphOptions& options) {
  GraphCompaction out;
  WriteRequest req;
  req.branch = options.branch;
  // Explicit: a lost race re-compacts on the new head. Automatic: it names the head it follows,
  // so a moved head fails the precondition and the caller skips it.
  req.kind = options.if_commit ? WriteKind::kStrict : WriteKind::kConstructive;
  req.if_commit = options.if_commit;
  req.prepare = [&](const Snapshot& snap) -> Result<PreparedWrite> {
    out.tables.clear();
    out.indexes.clear();
    PreparedWrite w;
    w.operation = std::string(kOptimizeOperation);
    w.message = options.message;
    auto wanted = [&](const std::string& name) {
      return options.types.empty() ||
             std::find(options.types.begin(), options.types.end(), name) != options.types.end();
    };
    // The search index segments of the table's new version (or of the head's, when not compacted).
    auto index = [&](const std::string& name, const std::vector<compiler::Property>& props,
                     const table::TableVersion& t, const table::CompactResult* compacted) -> Status {
      if (!options.search_indexes) return Status::Ok();
      auto it = w.tables.find(name);
      const table::TableVersion& current = it != w.tables.end() ? it->second : t;
      Rewrites rewrites;
      if (compacted != nullptr) {
        rewrites.before = &t.manifest();
        rewrites.moved = compacted->moved;
      }
      OG_ASSIGN_OR_RETURN(std::optional<table::TableVersion> next,
                          IndexTable(current, name, props, search::HnswParams{}, &out.indexes,
                                     compacted != nullptr ? &rewrites : nullptr));
      if (next) w.tables.insert_or_assign(name, std::move(*next));
      return Status::Ok();
    };
    auto compact = [&](const std::string& name, EntityKind kind,
                       const std::vector<compiler::Property>& props) -> Status {
      if (!wanted(name)) return Status::Ok();
      OG_ASSIGN_OR_RETURN(table::TableVersion t, snap.Table(name));
      TableCompaction tc;
      tc.type_name = name;
      tc.kind = kind;
      tc.fragments_before = t.manifest().fragments.size();
      table::CompactOptions topts = options.table;
      if (options.automatic) {
        topts.only_fragments = DueFragments(t.manifest(), *options.automatic);
        if (topts.only_fragments.empty()) {
          out.tables.push_back(std::move(tc));
          return index(name, props, t, nullptr);
        }
      }
      OG_ASSIGN_OR_RETURN(table::CompactResult r, table::Compact(t, topts));
      const bool rewrote = r.changed;
      if (r.changed) {
        tc.changed = true;
        tc.fragments_removed = r.fragments_removed;
        tc.fragments_added = r.fragments_written;
        tc.rows_rewritten = r.rows_rewritten;
        w.tables.emplace(name, std::move(r.version));
      }
      out.tables.push_back(std::move(tc));
      return index(name, props, t, rewrote ? &r : nullptr);
    };
    for (const auto& n : snap.catalog().nodes()) OG_RETURN_IF_ERROR(compact(n.name, EntityKind::kNode, n.properties));
    for (const auto& e : snap.catalog().edges()) OG_RETURN_IF_ERROR(compact(e.name, EntityKind::kEdge, e.properties));
    return w;
  };
  OG_ASSIGN_OR_RETURN(out.write, graph.Write(req));
  if (!out.write.committed) {
    for (TableCompaction& t : out.tables) {
      t.changed = false;
      t.fragments_removed = t.fragments_added = t.rows_rewritten = 0;
    }
    for (SearchIndexStatus& x : out.indexes) x.built = false;
  }
  return out;
}

}  // namespace omnigraph::engine
