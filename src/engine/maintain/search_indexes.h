// The search half of `omnigraph optimize`: index segments of a branch head's tables, for every
// `@index` property of every node and edge type: an ANN segment (engine/search/vector_index.h)
// for a Vector(N), an inverted text index (engine/search/text_index.h) for a non-enum String. A
// property whose table already has one segment of its kind covering every fragment is left as it
// is; otherwise one segment over every live row replaces its older ones (rows of fragments a
// segment does not cover, e.g. written since, are searched without it by queries, so coverage
// never changes an answer). Every rebuilt table is published in ONE commit with operation
// "optimize" (an entity-free commit, like compaction's). Thread-safe (one write through
// Graph::Write).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "compiler/catalog.h"
#include "engine/graph/graph.h"
#include "engine/search/text_index.h"
#include "engine/search/vector_index.h"
#include "omnigraph/result.h"
#include "table/manifest.h"
#include "table/table_version.h"

namespace omnigraph::engine {

struct SearchIndexStatus {
  std::string type_name;
  std::string property;
  std::string kind;     // "vector" or "text"
  bool built = false;   // false: a segment already covered every fragment
  uint64_t rows = 0;    // rows indexed (text: every row; vector: non-null values)
  uint64_t bytes = 0;   // the object's size
  bool folded = false;  // an older segment was carried forward rather than rebuilt
};

struct SearchIndexBuild {
  std::vector<SearchIndexStatus> indexes;  // node types, then edge types, in catalog order
  WriteResult write;                       // write.committed false: nothing was built
};

// The ANN segment of Vector column `column` over every live row of `version`, written as one
// object (idx/<ulid>/vector.hnsw, one PutIfAbsent); returns its manifest entry (covering every
// fragment of `version`; `*bytes`, when given, gets the object's size). When the column already
// has a segment and at most a quarter of what it indexes would be dead, that segment is folded
// forward (`*folded`): its labels that are no longer live rows are marked deleted and the rows of
// fragments it did not cover are added, instead of a new build. InvalidArgument for a column that
// is not a Vector.
// What a compaction in the same write did to the table: the version before it (whose segments
// it dropped when it rewrote every fragment they covered) and its moved rows (CompactResult::
// moved). A segment's rows the compaction moved are relabelled, not re-added.
struct Rewrites {
  const table::Manifest* before = nullptr;
  std::span<const std::pair<uint64_t, uint64_t>> moved;
};
Result<table::IndexSegmentMeta> WriteVectorSegment(const table::TableVersion& version, const std::string& column,
                                                   const search::HnswParams& params = {}, uint64_t* bytes = nullptr,
                                                   bool* folded = nullptr, const Rewrites* rewrites = nullptr);

// The text segment of String column `column` over every live row of `version` (idx/<ulid>/text.idx),
// as WriteVectorSegment.
// (Carried forward from an older segment the same way, no text analyzed again for its rows.)
Result<table::IndexSegmentMeta> WriteTextSegment(const table::TableVersion& version, const std::string& column,
                                                 uint64_t* bytes = nullptr, bool* folded = nullptr,
                                                 const Rewrites* rewrites = nullptr);

// The index segments `props` (type `type`'s properties) call for on `version`, as the ones
// BuildSearchIndexes writes: the new version with every missing or stale segment replaced, or
// nullopt when every one already covers the table. Appends a status per indexed property.
Result<std::optional<table::TableVersion>> IndexTable(const table::TableVersion& version, const std::string& type,
                                                      const std::vector<compiler::Property>& props,
                                                      const search::HnswParams& params,
                                                      std::vector<SearchIndexStatus>* statuses,
                                                      const Rewrites* rewrites = nullptr);

// All of them in one commit (Database::Optimize instead does it in compaction's commit,
// CompactGraphOptions::search_indexes). Errors: those of Graph::Write (NotFound for a missing branch, permission_denied
// on a read-only graph), of the tables' reads and of the objects' writes.
Result<SearchIndexBuild> BuildSearchIndexes(Graph& graph, const std::string& branch,
                                            const search::HnswParams& params = {});

}  // namespace omnigraph::engine
