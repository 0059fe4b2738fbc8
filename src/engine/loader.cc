#include "engine/loader.h"

#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "common/json.h"
#include "common/thread_pool.h"
#include "engine/load_checks.h"
#include "engine/load_record.h"
#include "engine/schema_store.h"
#include "format/batch.h"
#include "format/column_builder.h"
#include "table/table_writer.h"

namespace omnigraph::engine {

std::string_view LoadModeName(LoadMode mode) {
  switch (mode) {
    case LoadMode::kAppend: return "append";
    case LoadMode::kMerge: return "merge";
    case LoadMode::kOverwrite: return "overwrite";
  }
  return "?";
}

Result<LoadMode> ParseLoadMode(std::string_view name) {
  if (name == "append") return LoadMode::kAppend;
  if (name == "merge") return LoadMode::kMerge;
  if (name == "overwrite") return LoadMode::kOverwrite;
  return InvalidArgumentError("unknown load mode '" + std::string(name) +
                              "' (use append, merge or overwrite)");
}

namespace {

Status ErrorsToStatus(const std::vector<LoadError>& errors, bool truncated) {
  Json list = Json::array();
  for (const auto& e : errors) {
    list.push_back({{"line", e.line}, {"code", std::string(InfoFor(e.code).name)}, {"message", e.message}});
  }
  const LoadError& first = errors.front();
  std::string msg = "load rejected, nothing was written: " + std::to_string(errors.size()) +
                    (truncated ? "+" : "") + " error(s); first: " +
                    (first.line > 0 ? "line " + std::to_string(first.line) + ": " : "") + first.message;
  return Status(first.code, msg)
      .WithDetails(CanonicalJson(Json{{"errors", list}, {"truncated", truncated}}))
      .WithSpan(SourceSpan{"", static_cast<uint32_t>(first.line), 1, static_cast<uint32_t>(first.line), 1});
}

// Builds the rows of one type in table-schema order, writing Blob payloads first.
Result<format::Batch> BuildRows(const table::TableVersion& base, const TypeGroup& group) {
  const auto& props = group.properties();
  std::vector<size_t> blob_props;
  for (size_t i = 0; i < props.size(); ++i) {
    if (props[i].type.kind == TypeKind::kBlob) blob_props.push_back(i);
  }
  std::vector<std::string> payloads;
  // blob_slot[property][record]: the index of that value's payload (for non-null blobs).
  std::map<size_t, std::vector<uint32_t>> blob_slot;
  for (size_t i : blob_props) blob_slot[i].assign(group.records.size(), 0);
  for (size_t r = 0; r < group.records.size(); ++r) {
    for (size_t i : blob_props) {
      const Value& v = group.records[r]->values[i];
      if (v.is_null()) continue;
      blob_slot[i][r] = static_cast<uint32_t>(payloads.size());
      payloads.push_back(v.string_value());
    }
  }
  std::vector<format::BlobDescriptor> descriptors;
  if (!payloads.empty()) {
    OG_ASSIGN_OR_RETURN(descriptors, base.WriteBlobs(payloads));
  }
  // Column by column, straight from the records: no per-row Value copies.
  const table::TableSchema& schema = base.schema();
  const format::Schema fschema = schema.ToFormatSchema();
  std::vector<format::Column> columns;
  columns.reserve(schema.fields.size());
  for (size_t c = 0; c < schema.fields.size(); ++c) {
    const auto& f = schema.fields[c];
    format::ColumnBuilder b(fschema.field(c).type);
    b.Reserve(group.records.size());
    const bool is_id = f.name == kIdColumn;
    const bool is_src = group.is_edge && f.name == kSrcColumn;
    const bool is_dst = group.is_edge && f.name == kDstColumn;
    const size_t idx = (is_id || is_src || is_dst) ? props.size() : group.PropertyIndex(f.name);
    const bool blob = idx < props.size() && props[idx].type.kind == TypeKind::kBlob;
    for (size_t r = 0; r < group.records.size(); ++r) {
      const LoadRecord* rec = group.records[r];
      if (is_id) {
        b.AppendString(rec->id);
      } else if (is_src) {
        b.AppendString(rec->src);
      } else if (is_dst) {
        b.AppendString(rec->dst);
      } else if (idx == props.size() || rec->values[idx].is_null()) {
        b.AppendNull();
      } else if (blob) {
        b.AppendBlob(descriptors[blob_slot[idx][r]]);
      } else {
        Status st = b.Append(rec->values[idx]);
        if (!st.ok()) return st.WithContext("line " + std::to_string(rec->line) + ", property '" + f.name + "'");
      }
    }
    columns.push_back(b.Finish());
  }
  return format::Batch::Make(fschema, std::move(columns));
}

struct Staged {
  std::optional<table::TableVersion> version;
  ChangeCounts counts;
};

Result<Staged> StageType(const table::TableVersion& base, const TypeGroup& group, LoadMode mode,
                         uint64_t updated) {
  OG_ASSIGN_OR_RETURN(format::Batch rows, BuildRows(base, group));
  table::TableWriter writer(base);
  Staged out;
  uint64_t n = group.records.size();
  switch (mode) {
    case LoadMode::kAppend:
      OG_RETURN_IF_ERROR(writer.Append(rows));
      out.counts.inserted = n;
      break;
    case LoadMode::kMerge:
      OG_RETURN_IF_ERROR(writer.Upsert(rows));
      out.counts.updated = updated;
      out.counts.inserted = n - updated;
      break;
    case LoadMode::kOverwrite:
      writer.ReplaceAll();
      OG_RETURN_IF_ERROR(writer.Append(rows));
      out.counts.inserted = n;
      out.counts.deleted = base.row_count();
      break;
  }
  OG_ASSIGN_OR_RETURN(table::TableVersion v, writer.Commit());
  out.version = std::move(v);
  return out;
}

}  // namespace

Result<LoadResult> LoadNdjson(Graph& graph, std::string_view ndjson, const LoadOptions& options) {
  if (ndjson.size() > options.max_bytes) {
    return ResourceExhaustedError("load input is " + std::to_string(ndjson.size()) +
                                  " bytes, above the limit of " + std::to_string(options.max_bytes));
  }
  // Parse once per schema (a concurrent schema change makes a retry parse again).
  std::string parsed_schema;
  std::optional<ParsedLoad> parsed;
  LoadResult result;
  std::mutex result_mu;

  WriteRequest req;
  req.branch = options.branch;
  req.if_commit = options.if_commit;
  req.kind = options.mode == LoadMode::kOverwrite ? WriteKind::kStrict : WriteKind::kConstructive;
  req.prepare = [&](const Snapshot& snap) -> Result<PreparedWrite> {
    if (!parsed || parsed_schema != snap.commit().schema_id) {
      parsed = ParseLoad(ndjson, snap.catalog(), options.max_errors);
      parsed_schema = snap.commit().schema_id;
    }
    if (!parsed->errors.empty()) return ErrorsToStatus(parsed->errors, parsed->errors_truncated);
    auto report = [&](std::string_view phase) {
      if (options.progress) options.progress(phase, parsed->records.size(), ndjson.size());
    };
    report("parsed");
    std::vector<TypeGroup> groups = GroupByType(parsed->records);
    LoadChecker checker(snap, options.mode, options.max_errors);
    OG_ASSIGN_OR_RETURN(LoadCheckResult checked, checker.Run(groups));
    if (!checked.errors.empty()) return ErrorsToStatus(checked.errors, checked.truncated);
    report("validated");

    std::vector<Staged> staged(groups.size());
    // Every type's entry exists before the parallel stage: operator[] there would insert
    // concurrently into the map (a data race that crashed merge loads).
    for (const auto& g : groups) checked.updated.try_emplace(g.name, 0);
    OG_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor(groups.size(), [&](size_t i) -> Status {
      OG_ASSIGN_OR_RETURN(table::TableVersion base, snap.Table(groups[i].name));
      OG_ASSIGN_OR_RETURN(staged[i], StageType(base, groups[i], options.mode, checked.updated.at(groups[i].name)));
      return Status::Ok();
    }));
    report("staged");
    PreparedWrite w;
    w.operation = "load:" + std::string(LoadModeName(options.mode));
    std::lock_guard lock(result_mu);
    result.types.clear();
    result.records = parsed->records.size();
    for (size_t i = 0; i < groups.size(); ++i) {
      w.tables.emplace(groups[i].name, std::move(*staged[i].version));
      w.summary[groups[i].name] = staged[i].counts;
      LoadTypeStats& st = result.types[groups[i].name];
      st.kind = groups[i].is_edge ? EntityKind::kEdge : EntityKind::kNode;
      st.loaded = groups[i].records.size();
      st.changes = staged[i].counts;
    }
    return w;
  };
  OG_ASSIGN_OR_RETURN(result.write, graph.Write(req));
  return result;
}

}  // namespace omnigraph::engine
