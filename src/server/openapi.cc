// The OpenAPI 3.1 document, generated from the route table (routes.cc).
#include <cctype>
#include <map>

#include "common/json.h"
#include "server/routes.h"
#include "server/server.h"

namespace omnigraph::server {

namespace {

std::string_view StatusText(int s) {
  switch (s) {
    case 200: return "OK";
    case 206: return "Partial content (one byte range)";
    case 304: return "Not modified (If-None-Match matched)";
    case 400: return "Bad request (malformed body, query, parameters or names)";
    case 401: return "Missing or unknown bearer token";
    case 403: return "Denied by the graph's policy mode";
    case 404: return "Unknown graph, branch, commit, entity or stored query";
    case 405: return "Method not allowed on this path";
    case 409: return "Conflict (exists, merge conflicts, lost race, cluster-served schema)";
    case 410: return "History reclaimed by cleanup";
    case 412: return "Precondition failed (Omnigraph-If-Graph-Commit or If-Match)";
    case 413: return "Body or result over a limit (resource_limit)";
    case 415: return "Wrong Content-Type";
    case 416: return "Range not satisfiable";
    case 429: return "Too many writes in flight for this actor (Retry-After)";
    case 500: return "Internal error";
    case 503: return "Temporarily unavailable; retry";
    default: return "";
  }
}

OrderedJson ErrorSchemaRef() {
  return OrderedJson{{"application/json", {{"schema", {{"$ref", "#/components/schemas/ErrorOutput"}}}}}};
}

}  // namespace

std::string OpenApiJson(bool with_security) {
  OrderedJson paths = OrderedJson::object();
  std::map<std::string, std::vector<const Route*>> by_path;
  for (const Route& r : Routes()) {
    if (r.path == "/openapi.json") continue;
    by_path[std::string(r.path)].push_back(&r);
  }
  for (const auto& [path, routes] : by_path) {
    OrderedJson item = OrderedJson::object();
    for (const Route* r : routes) {
      OrderedJson op = OrderedJson::object();
      op["tags"] = {std::string(r->tag)};
      op["summary"] = std::string(r->summary);
      op["operationId"] = std::string(r->operation_id);
      OrderedJson params = OrderedJson::array();
      size_t pos = 0;
      while ((pos = path.find('{', pos)) != std::string::npos) {
        size_t end = path.find('}', pos);
        std::string name = path.substr(pos + 1, end - pos - 1);
        OrderedJson p = {{"name", name}, {"in", "path"}, {"required", true}, {"schema", {{"type", "string"}}}};
        if (name == "graph_id") p["description"] = "Graph id to route the request to.";
        params.push_back(std::move(p));
        pos = end;
      }
      for (auto q : r->query_params) {
        params.push_back(
            {{"name", std::string(q)}, {"in", "query"}, {"required", false}, {"schema", {{"type", "string"}}}});
      }
      if (!params.empty()) op["parameters"] = std::move(params);
      if (r->body != BodyKind::kNone) {
        const char* type = r->body == BodyKind::kNdjson ? "application/x-ndjson" : "application/json";
        op["requestBody"] = {{"required", r->body != BodyKind::kOptionalJson},
                             {"content", {{type, {{"schema", {{"type", "object"}}}}}}}};
      }
      OrderedJson responses = OrderedJson::object();
      for (int s : r->statuses) {
        OrderedJson resp = {{"description", std::string(StatusText(s))}};
        if (s >= 400) resp["content"] = ErrorSchemaRef();
        responses[std::to_string(s)] = std::move(resp);
      }
      op["responses"] = std::move(responses);
      if (!r->successor.empty()) op["deprecated"] = true;
      if (with_security && r->authenticated)
        op["security"] = OrderedJson::array({{{"bearer_token", OrderedJson::array()}}});
      std::string method(r->method);
      for (char& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      item[method] = std::move(op);
    }
    paths[path] = std::move(item);
  }
  OrderedJson doc = OrderedJson::object();
  doc["openapi"] = "3.1.0";
  doc["info"] = {{"title", "Omnigraph API"},
                 {"description", "HTTP API for the Omnigraph graph database"},
                 {"license", {{"name", "MIT"}, {"identifier", "MIT"}}},
                 {"version", OG_VERSION}};
  doc["paths"] = std::move(paths);
  OrderedJson components = OrderedJson::object();
  components["schemas"] = {
      {"ErrorOutput",
       {{"type", "object"},
        {"required", {"error"}},
        {"properties",
         {{"error", {{"type", "string"}}},
          {"code",
           {{"type", "string"},
            {"enum",
             {"unauthorized", "forbidden", "bad_request", "not_found", "method_not_allowed", "conflict",
              "too_many_requests", "internal"}}}},
          {"error_code", {{"type", "string"}, {"description", "The exact error code (docs/errors.md)"}}}}}}}};
  if (with_security) components["securitySchemes"] = {{"bearer_token", {{"type", "http"}, {"scheme", "bearer"}}}};
  doc["components"] = std::move(components);
  return doc.dump(2) + "\n";
}

}  // namespace omnigraph::server
