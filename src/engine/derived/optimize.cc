#include "engine/derived/optimize.h"

#include "common/error_codes.h"
#include "engine/derived/read_cache.h"

namespace omnigraph::engine {

Result<OptimizeResult> BuildDerivedObjects(const Snapshot& snap) {
  const DerivedStore& derived = snap.derived();
  if (derived.store == nullptr || !derived.writable) {
    return PermissionDeniedError("optimize needs a writable graph handle (this one is read-only)");
  }
  // A cache of its own: every structure is loaded (present) or built and written (absent).
  GraphReadCache cache;
  OptimizeResult out;
  const compiler::Catalog& catalog = snap.catalog();
  for (const auto& node : catalog.nodes()) {
    OG_ASSIGN_OR_RETURN(table::TableVersion t, snap.Table(node.name));
    const uint64_t before = cache.counts().ordinals_built;
    OG_RETURN_IF_ERROR(cache.Ordinals(t, derived).status());
    out.objects.push_back({node.name, "ordinals", cache.counts().ordinals_built > before});
  }
  for (const auto& edge : catalog.edges()) {
    OG_ASSIGN_OR_RETURN(table::TableVersion e, snap.Table(edge.name));
    OG_ASSIGN_OR_RETURN(table::TableVersion from, snap.Table(edge.from_type));
    OG_ASSIGN_OR_RETURN(table::TableVersion to, snap.Table(edge.to_type));
    const uint64_t before = cache.counts().csrs_built;
    OG_RETURN_IF_ERROR(cache.CsrFor(e, from, to, derived).status());
    out.objects.push_back({edge.name, "adjacency", cache.counts().csrs_built > before});
  }
  for (const auto& o : out.objects) (o.built ? out.built : out.present)++;
  // A failed write is the store's error as it is (a full disk is resource_limit, another OS
  // error io_error, each naming the path), not an internal one.
  OG_RETURN_IF_ERROR(cache.first_write_error());
  const GraphReadCache::Counts c = cache.counts();
  if (c.written < c.ordinals_built + c.csrs_built) {
    return InternalError("optimize: " + std::to_string(c.ordinals_built + c.csrs_built - c.written) +
                         " derived object(s) were built but could not be written (see the warnings)");
  }
  return out;
}

}  // namespace omnigraph::engine
