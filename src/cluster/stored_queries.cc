#include "cluster/stored_queries.h"

#include <algorithm>
#include <map>

#include "common/error_codes.h"
#include "compiler/catalog_builder.h"
#include "compiler/query_parser.h"
#include "compiler/type_checker.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph::cluster {

namespace {

// The declaration `name` in `source`, or an error message.
Result<compiler::Query> Declaration(const ServingQuery& q) {
  OG_ASSIGN_OR_RETURN(compiler::QueryFile file, compiler::ParseQueryFile(q.source));
  for (auto& decl : file.queries) {
    if (decl.name == q.name) return std::move(decl);
  }
  return InvalidArgumentError("no `query " + q.name + "` declaration found in its .gq file");
}

bool Selected(const std::string& graph, const std::string& id) { return graph.empty() || graph == id; }

Status CheckGraphApplied(const ServingSnapshot& snapshot, const std::string& graph) {
  if (graph.empty()) return Status::Ok();
  return SelectServingGraph(snapshot, graph).status();
}

}  // namespace

Result<StoredQueriesReport> ValidateStoredQueries(const ServingSnapshot& snapshot, const std::string& graph) {
  OG_RETURN_IF_ERROR(CheckGraphApplied(snapshot, graph));
  StoredQueriesReport report;
  for (const auto& g : snapshot.graphs) {
    if (!Selected(graph, g.id)) continue;
    OpenOptions options;
    options.read_only = true;
    options.cache_bytes = 0;
    OG_ASSIGN_OR_RETURN(auto db, Database::Open(g.uri, options));
    OG_ASSIGN_OR_RETURN(std::string schema, db->SchemaSource());
    OG_ASSIGN_OR_RETURN(compiler::Catalog catalog, compiler::CompileSchema(schema));
    for (const auto& q : snapshot.queries) {
      if (q.graph != g.id) continue;
      ++report.total;
      auto decl = Declaration(q);
      if (!decl.ok()) {
        report.breakages.push_back({q.name, decl.status().ToString()});
        continue;
      }
      auto checked = compiler::TypeCheckQuery(catalog, *decl);
      if (!checked.ok()) report.breakages.push_back({q.name, checked.status().ToString()});
    }
  }
  return report;
}

Result<OrderedJson> ListStoredQueries(const ServingSnapshot& snapshot, const std::string& graph) {
  OG_RETURN_IF_ERROR(CheckGraphApplied(snapshot, graph));
  std::map<std::string, OrderedJson> by_name;
  for (const auto& q : snapshot.queries) {
    if (!Selected(graph, q.graph)) continue;
    auto decl = Declaration(q);
    if (!decl.ok()) return InvalidArgumentError("stored query '" + q.name + "': " + decl.status().message());
    OrderedJson e = OrderedJson::object();
    e["name"] = q.name;
    e["mcp_expose"] = false;
    e["tool_name"] = nullptr;
    e["mutation"] = decl->is_mutation();
    for (const auto& a : decl->annotations) {
      if (a.name == "description" || a.name == "instruction") e[a.name] = a.text;
    }
    OrderedJson params = OrderedJson::array();
    for (const auto& p : decl->params) {
      params.push_back({{"name", p.name}, {"type", p.type.ToString()}, {"nullable", p.nullable}});
    }
    e["params"] = std::move(params);
    by_name[q.name] = std::move(e);
  }
  OrderedJson out = OrderedJson::object();
  out["queries"] = OrderedJson::array();
  for (auto& [name, e] : by_name) out["queries"].push_back(std::move(e));
  return out;
}

Result<const ServingPolicy*> SelectPolicy(const ServingSnapshot& snapshot, const std::string& graph,
                                          bool server_action) {
  auto binding = [&](auto pred) {
    std::vector<const ServingPolicy*> out;
    for (const auto& p : snapshot.policies) {
      if (std::any_of(p.applies_to.begin(), p.applies_to.end(), pred)) out.push_back(&p);
    }
    return out;
  };
  std::vector<const ServingPolicy*> matching;
  if (server_action) {
    matching = binding([](const std::string& s) { return s == "cluster"; });
  } else if (!graph.empty()) {
    matching = binding([&](const std::string& s) { return s == "graph." + graph; });
    if (matching.empty()) matching = binding([](const std::string& s) { return s == "cluster"; });
  } else {
    matching = binding([](const std::string& s) { return s.starts_with("graph."); });
  }
  if (matching.size() == 1) return matching[0];
  std::string names;
  for (const auto* p : matching) names += (names.empty() ? "" : ", ") + p->name;
  const std::string where = "cluster '" + snapshot.root.display + "'";
  if (matching.empty()) {
    return InvalidArgumentError(graph.empty() ? where + " has no applied policy bundles"
                                              : where + " has no policy bundle bound to graph `" + graph +
                                                    "` (or to the cluster scope)");
  }
  return InvalidArgumentError(graph.empty() ? where + " has " + std::to_string(matching.size()) + " policy bundles ([" +
                                                  names + "]); pass --graph ID to select one"
                                            : "graph `" + graph + "` in " + where + " matches " +
                                                  std::to_string(matching.size()) + " policy bundles ([" + names +
                                                  "]); the cluster model expects one bundle per graph scope");
}

}  // namespace omnigraph::cluster
