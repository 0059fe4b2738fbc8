// Query lint and operation descriptors; see lint.h.
#include "compiler/lint.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "common/error_codes.h"
#include "common/json.h"
#include "compiler/catalog_builder.h"
#include "compiler/diagnostic.h"
#include "compiler/query_parser.h"
#include "compiler/type_checker.h"

namespace omnigraph::compiler {
namespace {

constexpr std::string_view kL202Message = "mutation declares no params; hardcoded mutations are easy to miss";

}  // namespace

std::string ParamKindName(TypeKind k) {
  switch (k) {
    case TypeKind::kString: return "string";
    case TypeKind::kBool: return "bool";
    case TypeKind::kI32:
    case TypeKind::kU32: return "int";
    case TypeKind::kI64:
    case TypeKind::kU64: return "bigint";
    case TypeKind::kF32:
    case TypeKind::kF64: return "float";
    case TypeKind::kDate: return "date";
    case TypeKind::kDateTime: return "datetime";
    case TypeKind::kBlob: return "blob";
    case TypeKind::kVector: return "vector";
    case TypeKind::kList: return "list";
  }
  return "string";
}

namespace {

std::string ErrorText(const Status& st) {
  std::string out = std::string(st.code_string()) + ": " + st.message();
  if (st.span()) {
    out += " (at " + std::to_string(st.span()->line) + ":" + std::to_string(st.span()->column) + ")";
  }
  return out;
}

int SeverityRank(const std::string& s) { return s == "error" ? 0 : s == "warning" ? 1 : 2; }

void Count(LintReport* r) {
  r->errors = r->warnings = r->infos = 0;
  for (const LintQueryResult& q : r->results) {
    if (!q.ok) ++r->errors;
    r->warnings += q.warnings.size();
  }
  for (const LintFinding& f : r->findings) {
    if (f.severity == "error") ++r->errors;
    if (f.severity == "warning") ++r->warnings;
    if (f.severity == "info") ++r->infos;
  }
  r->ok = r->errors == 0;
}

Json TypeRefsJson(const std::vector<IrTypeRef>& refs) {
  Json out = Json::array();
  for (const IrTypeRef& r : refs) {
    out.push_back({{"kind", r.kind == VarKind::kNode ? "node" : "edge"}, {"type_name", r.type_name}});
  }
  return out;
}

}  // namespace

OperationDescriptor DescribeOperation(const IrQuery& query) {
  OperationDescriptor d;
  d.reads = query.reads;
  d.writes = query.writes;
  for (const IrProjection& p : query.projections) {
    ResultColumn c;
    c.name = p.name;
    const IrType& t = p.expr.type;
    c.nullable = t.nullable;
    if (t.kind != IrType::Kind::kValue) {
      c.kind = "object";
    } else {
      c.kind = ParamKindName(t.data.kind);
      if (t.data.kind == TypeKind::kList) c.item_kind = ParamKindName(t.data.element);
      if (t.data.kind == TypeKind::kVector) c.vector_dim = t.data.dimension;
    }
    d.result.push_back(std::move(c));
  }
  return d;
}

LintReport LintQueries(const Catalog& catalog, std::string_view query_source, const LintOptions& options) {
  LintReport report;
  report.schema_path = options.schema_path;
  report.query_path = options.query_path;
  Result<QueryFile> file = ParseQueryFile(query_source);
  if (!file.ok()) {
    LintFinding f;
    f.severity = "error";
    f.code = std::string(file.status().code_string());
    f.message = file.status().message();
    f.span = file.status().span();
    f.status = file.status();
    report.findings.push_back(std::move(f));
    Count(&report);
    return report;
  }
  report.queries_processed = file->queries.size();
  // Per type: the queries that update it and the properties they set (L201).
  std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>> updates;
  std::set<std::string> names;
  for (const Query& q : file->queries) {
    LintQueryResult r;
    r.name = q.name;
    r.is_mutation = q.is_mutation();
    if (q.is_mutation() && q.params.empty()) {
      r.warnings.push_back("L202: " + std::string(kL202Message));
    }
    Result<IrQuery> ir =
        names.insert(q.name).second
            ? TypeCheckQuery(catalog, q)
            : Result<IrQuery>(Status(ErrorCode::kTypeDuplicateDeclaration, "two queries are named `" + q.name + "`")
                                  .WithSpan(q.name_span));
    if (!ir.ok()) {
      r.ok = false;
      r.status = ir.status();
      r.error = ErrorText(ir.status());
      r.error_code = std::string(ir.status().code_string());
    } else {
      r.operation = DescribeOperation(*ir);
      for (const Mutation& m : q.mutations) {
        if (m.kind != MutationKind::kUpdate) continue;
        auto& entry = updates[m.type_name];
        entry.first.insert(q.name);
        for (const PropertyValue& a : m.assignments) entry.second.insert(a.property);
      }
    }
    report.results.push_back(std::move(r));
  }
  for (const auto& [type_name, cover] : updates) {
    const NodeType* node = catalog.FindNode(type_name);
    if (node == nullptr) continue;
    for (const Property& p : node->properties) {
      if (!p.nullable || cover.second.count(p.name)) continue;
      if (std::find(node->key.begin(), node->key.end(), p.name) != node->key.end()) continue;
      bool embed_target = p.embed.has_value();
      if (embed_target) continue;
      LintFinding f;
      f.severity = "warning";
      f.code = "L201";
      f.message = type_name + "." + p.name + " exists in schema but no update query sets it";
      f.type_name = type_name;
      f.property = p.name;
      f.query_names.assign(cover.first.begin(), cover.first.end());
      report.findings.push_back(std::move(f));
    }
  }
  std::sort(report.findings.begin(), report.findings.end(), [](const LintFinding& a, const LintFinding& b) {
    return std::make_tuple(SeverityRank(a.severity), a.type_name, a.property, a.message) <
           std::make_tuple(SeverityRank(b.severity), b.type_name, b.property, b.message);
  });
  Count(&report);
  return report;
}

LintReport LintSources(std::string_view schema_source, std::string_view query_source, const LintOptions& options) {
  Result<Catalog> catalog = CompileSchema(schema_source);
  if (!catalog.ok()) {
    LintReport report;
    report.schema_path = options.schema_path;
    report.query_path = options.query_path;
    LintFinding f;
    f.severity = "error";
    f.code = std::string(catalog.status().code_string());
    f.message = "schema: " + catalog.status().message();
    f.span = catalog.status().span();
    f.status = catalog.status();
    f.in_schema = true;
    report.findings.push_back(std::move(f));
    Count(&report);
    return report;
  }
  return LintQueries(*catalog, query_source, options);
}

std::string LintReportJson(const LintReport& report) {
  Json j;
  j["status"] = report.ok ? "ok" : "error";
  j["schema_source"] = {{"kind", "file"}};
  if (!report.schema_path.empty()) j["schema_source"]["path"] = report.schema_path;
  j["query_path"] = report.query_path;
  j["queries_processed"] = report.queries_processed;
  j["errors"] = report.errors;
  j["warnings"] = report.warnings;
  j["infos"] = report.infos;
  j["results"] = Json::array();
  for (const LintQueryResult& r : report.results) {
    Json q = {{"name", r.name}, {"kind", r.is_mutation ? "mutation" : "read"}, {"status", r.ok ? "ok" : "error"}};
    if (!r.warnings.empty()) q["warnings"] = r.warnings;
    if (!r.ok) {
      q["error"] = r.error;
      q["error_code"] = r.error_code;
    }
    if (r.operation) {
      Json result = Json::array();
      for (const ResultColumn& c : r.operation->result) {
        Json col = {{"name", c.name}, {"kind", c.kind}, {"nullable", c.nullable}};
        if (c.item_kind) col["item_kind"] = *c.item_kind;
        if (c.vector_dim) col["vector_dim"] = *c.vector_dim;
        result.push_back(std::move(col));
      }
      q["operation"] = {{"result", std::move(result)},
                        {"reads", TypeRefsJson(r.operation->reads)},
                        {"writes", TypeRefsJson(r.operation->writes)}};
    }
    j["results"].push_back(std::move(q));
  }
  j["findings"] = Json::array();
  for (const LintFinding& f : report.findings) {
    Json o = {{"severity", f.severity}, {"code", f.code}, {"message", f.message}};
    if (!f.type_name.empty()) o["type_name"] = f.type_name;
    if (!f.property.empty()) o["property"] = f.property;
    if (!f.query_names.empty()) o["query_names"] = f.query_names;
    if (f.span) {
      o["line"] = f.span->line;
      o["column"] = f.span->column;
    }
    j["findings"].push_back(std::move(o));
  }
  return j.dump(2);
}

std::string LintReportText(const LintReport& report, std::string_view schema_source, std::string_view query_source) {
  std::string out;
  for (const LintFinding& f : report.findings) {
    if (!f.status.ok()) {
      out += RenderDiagnostic(f.status, f.in_schema ? schema_source : query_source,
                              f.in_schema ? report.schema_path : report.query_path);
      if (!out.empty() && out.back() != '\n') out += "\n";
    } else {
      out += f.severity + "[" + f.code + "]: " + f.message + "\n";
    }
  }
  for (const LintQueryResult& r : report.results) {
    for (const std::string& w : r.warnings) out += "warning: query `" + r.name + "`: " + w + "\n";
    if (!r.ok) {
      out += RenderDiagnostic(r.status, query_source, report.query_path);
      if (!out.empty() && out.back() != '\n') out += "\n";
    }
  }
  out += std::to_string(report.queries_processed) + " queries checked: " + std::to_string(report.errors) + " errors, " +
         std::to_string(report.warnings) + " warnings\n";
  return out;
}

}  // namespace omnigraph::compiler
