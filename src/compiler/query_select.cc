#include "compiler/query_select.h"

#include <set>

#include "common/error_codes.h"
#include "compiler/query_checker.h"
#include "compiler/type_checker.h"

namespace omnigraph::compiler {

namespace {

// The selection rules over any list of queries (parsed or checked), so both entry points say the
// same: `name_of(q)` and `is_mutation(q)` read one element.
template <typename Q, typename NameOf, typename IsMutation>
Result<const Q*> Select(const std::vector<Q>& queries, const std::optional<std::string>& name, QueryKind want,
                        NameOf name_of, IsMutation is_mutation) {
  const Q* q = nullptr;
  if (name) {
    for (const auto& c : queries) {
      if (name_of(c) == *name) q = &c;
    }
    if (q == nullptr) return NotFoundError("no query named '" + *name + "' in the source");
  } else if (queries.size() == 1) {
    q = &queries.front();
  } else {
    return InvalidArgumentError("the source has " + std::to_string(queries.size()) + " queries; name the one to run");
  }
  if (want == QueryKind::kRead && is_mutation(*q)) {
    return InvalidArgumentError("'" + name_of(*q) +
                                "' is a mutation: run it as one (`omnigraph mutate`, Database::Apply)");
  }
  if (want == QueryKind::kMutation && !is_mutation(*q)) {
    return InvalidArgumentError("'" + name_of(*q) +
                                "' is a read query: run it as one (`omnigraph query`, Database::Execute)");
  }
  return q;
}

}  // namespace

Result<const IrQuery*> SelectQuery(const std::vector<IrQuery>& queries, const std::optional<std::string>& name,
                                   QueryKind want) {
  return Select(
      queries, name, want, [](const IrQuery& q) -> const std::string& { return q.name; },
      [](const IrQuery& q) { return q.is_mutation; });
}

Result<IrQuery> CompileSelectedQuery(const Catalog& catalog, std::string_view source,
                                     const std::optional<std::string>& name, QueryKind want,
                                     const QueryParseLimits& limits) {
  OG_ASSIGN_OR_RETURN(QueryFile file, ParseQueryFile(source, limits));
  std::set<std::string> names;
  for (const Query& q : file.queries) {
    if (!names.insert(q.name).second) {
      return internal::QueryChecker::Err(ErrorCode::kTypeDuplicateDeclaration, q.name_span,
                                         "two queries are named `" + q.name + "`");
    }
  }
  OG_ASSIGN_OR_RETURN(const Query* q,
                      Select(
                          file.queries, name, want, [](const Query& c) -> const std::string& { return c.name; },
                          [](const Query& c) { return c.is_mutation(); }));
  return TypeCheckQuery(catalog, *q);
}

}  // namespace omnigraph::compiler
