#include "compiler/query_select.h"

#include "common/error_codes.h"

namespace omnigraph::compiler {

Result<const IrQuery*> SelectQuery(const std::vector<IrQuery>& queries, const std::optional<std::string>& name,
                                   QueryKind want) {
  const IrQuery* q = nullptr;
  if (name) {
    for (const auto& c : queries) {
      if (c.name == *name) q = &c;
    }
    if (q == nullptr) return NotFoundError("no query named '" + *name + "' in the source");
  } else if (queries.size() == 1) {
    q = &queries.front();
  } else {
    return InvalidArgumentError("the source has " + std::to_string(queries.size()) + " queries; name the one to run");
  }
  if (want == QueryKind::kRead && q->is_mutation) {
    return InvalidArgumentError("'" + q->name + "' is a mutation: run it as one (`omnigraph mutate`, Database::Apply)");
  }
  if (want == QueryKind::kMutation && !q->is_mutation) {
    return InvalidArgumentError("'" + q->name +
                                "' is a read query: run it as one (`omnigraph query`, Database::Execute)");
  }
  return q;
}

}  // namespace omnigraph::compiler
