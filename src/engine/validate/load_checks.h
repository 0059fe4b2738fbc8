// Cross-record and against-the-snapshot checks of a bulk load (docs/language.md, "Load data"):
// duplicate ids in one load, key conflicts (append), @unique, referential integrity of edges (incl.
// edges left dangling by an overwrite), and @card. Pure reads of the snapshot; writes nothing.
// Thread-safe: pure reads of an immutable snapshot.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/graph/snapshot.h"
#include "engine/validate/load_group.h"
#include "engine/validate/load_record.h"
#include "omnigraph/load_mode.h"

namespace omnigraph::engine {

struct LoadCheckResult {
  std::vector<LoadError> errors;
  bool truncated = false;
  std::map<std::string, uint64_t> updated;  // merge: records replacing an existing id, per type
};

class LoadChecker {
 public:
  LoadChecker(const Snapshot& snap, LoadMode mode, size_t max_errors)
      : snap_(snap), mode_(mode), max_errors_(max_errors) {}

  // Errors are data (in the result); a Status only for failures reading the snapshot.
  Result<LoadCheckResult> Run(const std::vector<TypeGroup>& groups);

 private:
  void Add(uint64_t line, ErrorCode code, std::string message);
  bool Full() const { return out_.errors.size() >= max_errors_; }
  bool Overwritten(const std::string& type) const;
  Status CheckIds(const std::vector<TypeGroup>& groups);
  Status CheckEndpoints(const std::vector<TypeGroup>& groups);
  Status CheckRetainedEdges(const std::vector<TypeGroup>& groups);
  Status CheckUniques(const TypeGroup& group);
  Status CheckCardinality(const TypeGroup& group);

  const Snapshot& snap_;
  LoadMode mode_;
  size_t max_errors_;
  LoadCheckResult out_;
  std::map<std::string, const TypeGroup*> by_name_;
  std::map<std::string, std::set<std::string>> replaced_ids_;  // merge: existing ids replaced
};

}  // namespace omnigraph::engine
