// Mutation queries (docs/language.md, "Mutations"): every statement of
// one query lands in ONE atomic commit through Graph::Write. Statements run in order over an
// in-memory overlay (per-type upserted rows and deleted ids over the snapshot), so later
// statements see earlier ones (an edge may name a node inserted above; an update matches rows
// inserted above). A keyed node insert is an upsert by its key-derived id (the loader's rule);
// generated-id inserts (unkeyed nodes, edges) are strict. Deleting a node deletes its incident
// edges of every edge type. The final images are validated by the loader's validator
// (load_record.h per value/record, LoadChecker in merge mode across records) before anything is
// staged; a mutation that changes nothing publishes no commit.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "compiler/params.h"
#include "compiler/query_ir.h"
#include "engine/graph/graph.h"

namespace omnigraph::engine {

struct MutationOptions {
  std::string branch = "main";
  std::optional<std::string> if_commit;   // precondition: the branch head is this commit
  std::optional<std::string> query_name;  // picks a query of a multi-query source
  std::optional<int64_t> now_ms;          // the value of now() (default: the wall clock)
  size_t max_errors = 100;
};

struct MutationResult {
  std::string query_name;
  WriteResult write;                            // write.committed false: nothing changed
  std::map<std::string, ChangeCounts> changes;  // per changed type
  uint64_t affected_nodes = 0;                  // node rows inserted + updated + deleted
  uint64_t affected_edges = 0;                  // edge rows inserted + updated + deleted
};

// Executes a type-checked mutation (`query.is_mutation`) with bound parameters. Inserts-only
// queries are constructive writes (re-prepared on the new head after a lost race); queries with
// an update or delete are strict (`read_set_conflict` on a lost race). Errors: invalid_argument
// for a read query; `key_immutable` when an update would change a @key property; the loader's
// codes for invalid values and constraint violations (`load_missing_property`, `load_enum_value`,
// `load_type_mismatch`, `load_range`, `load_check`, `load_bad_id`, `load_unique`,
// `load_dangling_edge`, `load_cardinality`, `key_conflict`), the message naming the statement
// (1-based) and details() listing every error as {"errors":[{"statement","code","message"}]};
// `precondition_failure` for a stale `if_commit`; storage errors as they are. Thread-safe (as
// Graph::Write).
Result<MutationResult> ExecuteMutation(Graph& graph, const compiler::IrQuery& query,
                                       const compiler::ParamValues& params, const MutationOptions& options = {});

// The query and parameters a mutation runs with at one snapshot. `query` must stay valid until
// the binder is called again or ExecuteMutation returns.
struct BoundMutation {
  const compiler::IrQuery* query = nullptr;
  compiler::ParamValues params;
};
using MutationBinder = std::function<Result<BoundMutation>(const Snapshot&)>;

// ExecuteMutation for a query compiled against a schema that may not be the head's: Write's
// prepare calls `bind` with the snapshot it stages against (again after a lost race), and the
// binder compiles the source anew when the snapshot's schema is not the one it compiled for.
// `kind` is MutationWriteKind of the query (statement kinds do not depend on the schema). The
// branch head is read once, inside Write.
Result<MutationResult> ExecuteBoundMutation(Graph& graph, WriteKind kind, const MutationBinder& bind,
                                            const MutationOptions& options = {});

// kConstructive for inserts-only queries, kStrict when any statement updates or deletes.
WriteKind MutationWriteKind(const compiler::IrQuery& query);

// Compiles `source` (.gq) against the schema of the branch head, picks the query (the only one,
// or options.query_name), binds `params_json` (empty = no parameters) and executes it. Compile
// errors (Q000, T-codes, with spans) and parameter errors as they are; NotFound for an unknown
// query name; invalid_argument for a read query or an ambiguous multi-query source.
Result<MutationResult> RunMutation(Graph& graph, std::string_view source, std::string_view params_json,
                                   const MutationOptions& options = {});

}  // namespace omnigraph::engine
