// Offline lint of .gq files against a .pg schema (docs/language.md, "Error code families";
// reference `omnigraph lint --json`): per query kind, status, error, warnings (L202) and the
// operation descriptor (result columns with kinds, node/edge types read and written), plus
// cross-query findings (L201). The CLI's `omnigraph lint --schema S.pg --query Q.gq [--json]` calls
// this.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/catalog.h"
#include "compiler/query_ir.h"
#include "omnigraph/status.h"

namespace omnigraph::compiler {

// One result column of a read query. kind: string bool int bigint float date datetime blob
// vector list object.
struct ResultColumn {
  std::string name;
  std::string kind;
  std::optional<std::string> item_kind;  // lists
  std::optional<uint32_t> vector_dim;    // vectors
  bool nullable = false;
};

struct OperationDescriptor {
  std::vector<ResultColumn> result;  // empty for mutations
  std::vector<IrTypeRef> reads, writes;
};

struct LintQueryResult {
  std::string name;
  bool is_mutation = false;
  bool ok = true;
  std::vector<std::string> warnings;             // "L202: ..."
  std::string error;                             // "T12: message (at line:col)" when !ok
  std::string error_code;                        // "T12" when !ok
  Status status;                                 // the error itself (with span) when !ok
  std::optional<OperationDescriptor> operation;  // when ok
};

struct LintFinding {
  std::string severity;  // "error" | "warning" | "info"
  std::string code;      // "Q000", "L201", "S003", ...
  std::string message;
  std::string type_name, property;  // empty when not applicable
  std::vector<std::string> query_names;
  std::optional<SourceSpan> span;
  Status status;           // errors: the Status (with span) for RenderDiagnostic
  bool in_schema = false;  // the span refers to the schema source
};

struct LintReport {
  bool ok = true;  // no errors (warnings allowed): the CLI exits non-zero only when !ok
  std::string schema_path, query_path;
  size_t queries_processed = 0, errors = 0, warnings = 0, infos = 0;
  std::vector<LintQueryResult> results;
  std::vector<LintFinding> findings;  // sorted: severity, type, property, message
};

struct LintOptions {
  std::string schema_path;  // shown in the report only
  std::string query_path;
};

// Lints `query_source` against an already compiled catalog. Never fails: every problem is in the
// report. Pure; thread-safe.
LintReport LintQueries(const Catalog& catalog, std::string_view query_source,
                       const LintOptions& options = LintOptions());
// Compiles `schema_source` first; a schema error becomes one error finding with its S-code.
LintReport LintSources(std::string_view schema_source, std::string_view query_source,
                       const LintOptions& options = LintOptions());

// The result columns and read/write sets of a checked query.
OperationDescriptor DescribeOperation(const IrQuery& query);

// The parameter kind an operation descriptor and the server's stored-query catalog name a type
// by: string, bool, int (I32/U32), bigint (I64/U64), float, date, datetime, blob, vector, list.
std::string ParamKindName(TypeKind kind);

// JSON shaped like the reference's `lint --json`: {status, schema_source{kind,path},
// query_path, queries_processed, errors, warnings, infos, results[{name, kind, status,
// warnings?, error?, error_code?, operation?{result[{name,kind,item_kind?,vector_dim?,nullable}],
// reads[{kind,type_name}], writes[...]}}], findings[{severity, code, message, type_name?,
// property?, query_names?, line?, column?}]}. Pretty-printed with 2-space indent.
std::string LintReportJson(const LintReport& report);
// Human-readable report: errors rendered with the offending source line and a caret
// (diagnostic.h), warnings as one line each, then a summary line.
std::string LintReportText(const LintReport& report, std::string_view schema_source, std::string_view query_source);

}  // namespace omnigraph::compiler
