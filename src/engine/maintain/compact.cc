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
    PreparedWrite w;
    w.operation = std::string(kOptimizeOperation);
    w.message = options.message;
    auto wanted = [&](const std::string& name) {
      return options.types.empty() ||
             std::find(options.types.begin(), options.types.end(), name) != options.types.end();
    };
    auto compact = [&](const std::string& name, EntityKind kind) -> Status {
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
          return Status::Ok();
        }
      }
      OG_ASSIGN_OR_RETURN(table::CompactResult r, table::Compact(t, topts));
      if (r.changed) {
        tc.changed = true;
        tc.fragments_removed = r.fragments_removed;
        tc.fragments_added = r.fragments_written;
        tc.rows_rewritten = r.rows_rewritten;
        w.tables.emplace(name, std::move(r.version));
      }
      out.tables.push_back(std::move(tc));
      return Status::Ok();
    };
    for (const auto& n : snap.catalog().nodes()) OG_RETURN_IF_ERROR(compact(n.name, EntityKind::kNode));
    for (const auto& e : snap.catalog().edges()) OG_RETURN_IF_ERROR(compact(e.name, EntityKind::kEdge));
    return w;
  };
  OG_ASSIGN_OR_RETURN(out.write, graph.Write(req));
  if (!out.write.committed) {
    for (TableCompaction& t : out.tables) {
      t.changed = false;
      t.fragments_removed = t.fragments_added = t.rows_rewritten = 0;
    }
  }
  return out;
}

}  // namespace omnigraph::engine
