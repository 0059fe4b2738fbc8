// The names of the enums of omnigraph/records.h (the wire spellings of the JSON outputs).
#include "omnigraph/records.h"

#include <string>

#include "common/error_codes.h"

namespace omnigraph {

std::string_view EntityKindName(EntityKind kind) { return kind == EntityKind::kNode ? "node" : "edge"; }

Result<EntityKind> ParseEntityKind(std::string_view name) {
  if (name == "node") return EntityKind::kNode;
  if (name == "edge") return EntityKind::kEdge;
  return InvalidArgumentError("unknown entity kind '" + std::string(name) + "' (use node or edge)");
}

std::string_view ChangeOpName(ChangeOp op) {
  switch (op) {
    case ChangeOp::kInsert: return "insert";
    case ChangeOp::kUpdate: return "update";
    case ChangeOp::kDelete: return "delete";
  }
  return "?";
}

Result<ChangeOp> ParseChangeOp(std::string_view name) {
  if (name == "insert") return ChangeOp::kInsert;
  if (name == "update") return ChangeOp::kUpdate;
  if (name == "delete") return ChangeOp::kDelete;
  return InvalidArgumentError("unknown change op '" + std::string(name) + "' (use insert, update or delete)");
}

std::string_view MergeOutcomeName(MergeOutcome outcome) {
  switch (outcome) {
    case MergeOutcome::kAlreadyUpToDate: return "already_up_to_date";
    case MergeOutcome::kFastForward: return "fast_forward";
    case MergeOutcome::kMerged: return "merged";
    case MergeOutcome::kConflicts: return "conflicts";
  }
  return "?";
}

}  // namespace omnigraph
