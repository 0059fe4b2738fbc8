#include "engine/load/loader.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "common/json.h"
#include "common/thread_pool.h"
#include "engine/graph/schema_store.h"
#include "engine/load/load_parser.h"
#include "engine/validate/load_checks.h"
#include "format/batch.h"
#include "format/column_builder.h"
#include "table/id_index.h"
#include "table/index_probe.h"
#include "table/table_writer.h"

namespace omnigraph::engine {

namespace {

Status ErrorsToStatus(const std::vector<LoadError>& errors, bool truncated) {
  std::vector<ErrorItem> items;
  items.reserve(errors.size());
  for (const auto& e : errors) items.push_back(ErrorItem{e.code, e.message, e.line, std::nullopt});
  const LoadError& first = errors.front();
  std::string msg = "load rejected, nothing was written: " + std::to_string(errors.size()) + (truncated ? "+" : "") +
                    " error(s); first: " + (first.line > 0 ? "line " + std::to_string(first.line) + ": " : "") +
                    first.message;
  return Status(first.code, msg)
      .WithErrors(std::move(items), truncated)
      .WithSpan(SourceSpan{"", static_cast<uint32_t>(first.line), 1, static_cast<uint32_t>(first.line), 1});
}

// The rows of one type in table-schema order, a batch per segment: the segments' columns as they
// are (shared, not copied), except Blob payloads, which are written first (one blob file per type)
// and replaced by their descriptors.
Result<std::vector<format::Batch>> BuildRows(const table::TableVersion& base, const TypeGroup& group) {
  const auto& props = group.properties();
  std::vector<size_t> blob_props;
  for (size_t i = 0; i < props.size(); ++i) {
    if (props[i].type.kind == TypeKind::kBlob) blob_props.push_back(i);
  }
  // Payloads in (segment, blob property, row) order; blob_start[s][k]: the first of segment s's
  // payloads of blob property k.
  std::vector<std::string> payloads;
  std::vector<std::vector<size_t>> blob_start(group.segments.size());
  for (size_t s = 0; s < group.segments.size(); ++s) {
    for (size_t idx : blob_props) {
      blob_start[s].push_back(payloads.size());
      const format::Column& raw = group.segments[s].values[idx];
      for (size_t r = 0; r < raw.length(); ++r) {
        if (raw.IsValid(r)) payloads.emplace_back(raw.string_at(r));
      }
    }
  }
  std::vector<format::BlobDescriptor> descriptors;
  if (!payloads.empty()) {
    OG_ASSIGN_OR_RETURN(descriptors, base.WriteBlobs(payloads));
  }
  payloads.clear();
  const table::TableSchema& schema = base.schema();
  const format::Schema fschema = schema.ToFormatSchema();
  std::vector<format::Batch> out;
  out.reserve(group.segments.size());
  for (size_t s = 0; s < group.segments.size(); ++s) {
    const TypeSegment& seg = group.segments[s];
    std::vector<format::Column> columns;
    columns.reserve(schema.fields.size());
    for (size_t c = 0; c < schema.fields.size(); ++c) {
      const auto& f = schema.fields[c];
      const DataType& type = fschema.field(c).type;
      const format::Column* source = nullptr;
      const size_t idx = group.PropertyIndex(f.name);
      if (f.name == kIdColumn) {
        source = &seg.ids;
      } else if (group.is_edge && f.name == kSrcColumn) {
        source = &seg.srcs;
      } else if (group.is_edge && f.name == kDstColumn) {
        source = &seg.dsts;
      } else if (idx < seg.values.size()) {
        source = &seg.values[idx];
      }
      if (source == nullptr) {
        columns.push_back(format::Column::Nulls(type, seg.size()));
      } else if (type.kind == TypeKind::kBlob) {  // a Blob property (ids and endpoints are Strings)
        size_t next =
            blob_start[s]
                      [static_cast<size_t>(std::find(blob_props.begin(), blob_props.end(), idx) - blob_props.begin())];
        format::ColumnBuilder b(type);
        b.Reserve(seg.size());
        for (size_t r = 0; r < seg.size(); ++r) {
          if (source->IsValid(r))
            b.AppendBlob(descriptors[next++]);
          else
            b.AppendNull();
        }
        columns.push_back(b.Finish());
      } else if (source->type() == type) {
        columns.push_back(*source);
      } else {  // not expected (a property's column has its type): convert cell by cell
        format::ColumnBuilder b(type);
        b.Reserve(seg.size());
        for (size_t r = 0; r < seg.size(); ++r) {
          Status st = b.Append(source->GetValue(r));
          if (!st.ok()) return st.WithContext("line " + std::to_string(seg.lines[r]) + ", property '" + f.name + "'");
        }
        columns.push_back(b.Finish());
      }
    }
    OG_ASSIGN_OR_RETURN(format::Batch batch, format::Batch::Make(fschema, std::move(columns)));
    out.push_back(std::move(batch));
  }
  return out;
}

// Reads and parses the whole input, a chunk at a time, within the memory ceiling.
Result<ParsedLoad> ParseInput(LoadSource& source, std::shared_ptr<const compiler::Catalog> catalog,
                              const LoadOptions& options, uint64_t* input_bytes) {
  // At least one error is kept: a rejected load must say why.
  LoadParser parser(std::move(catalog), std::max<size_t>(options.max_errors, 1), options.max_record_bytes);
  LineChunker chunker(source, options.chunk_bytes, options.max_record_bytes);
  uint64_t next_line = 1;  // numbered across chunks
  while (!parser.done()) {
    Result<std::string_view> chunk = chunker.Next();
    if (!chunk.ok()) {
      if (chunk.status().category() != StatusCode::kResourceExhausted) return chunk.status();
      parser.AddError({next_line, chunk.status().code(), chunk.status().message()});
      break;
    }
    if (chunk->empty()) break;
    next_line += parser.Parse(*chunk, next_line);
    *input_bytes = chunker.bytes_read();
    if (parser.memory_bytes() > options.max_memory_bytes) {
      return ResourceExhaustedError("load: the parsed records reached " + std::to_string(parser.memory_bytes()) +
                                    " bytes by line " + std::to_string(next_line - 1) + ", above the memory limit of " +
                                    std::to_string(options.max_memory_bytes) +
                                    " bytes; nothing was written. Raise the limit (omnigraph load --max-memory SIZE, "
                                    "LoadOptions::max_memory_bytes) or split the input into several loads");
    }
    if (options.progress) options.progress("parsing", parser.records(), chunker.bytes_read());
  }
  *input_bytes = chunker.bytes_read();
  return parser.Finish();
}

// Bytes that staging adds to the parsed records (which it keeps: the rows and the index feeds
// view them), at most: per hash-index entry, while its segment is built, for an id index its
// sort buffers and segment entry (88 bytes) and a copy of the key; for a value index its entry
// arrays, group table and segment (104 bytes when every value is distinct, far less when values
// repeat) and two copies of the key (the group table's and the segment's); the blob payloads
// again (copied into the type's blob file). (Merge mode also joins the rows: the caller adds
// them.) At 11M records (1M nodes, 10M edges, 1M distinct src and dst values) this plus the
// parsed records is 4.9 GB against a measured 2.2 GB peak RSS: the value-index term assumes
// every value distinct, so that no input gets past the check and then runs out of memory.
Result<uint64_t> StagingBytes(const Snapshot& snap, const std::vector<TypeGroup>& groups) {
  uint64_t bytes = 0;
  for (const TypeGroup& g : groups) {
    OG_ASSIGN_OR_RETURN(table::TableVersion t, snap.Table(g.name));
    const table::TableSchema& schema = t.schema();
    std::vector<table::FieldId> indexed = schema.indexed_field_ids;
    if (schema.key_field_id != 0) indexed.push_back(schema.key_field_id);
    // The parsed column holding a table column's values (nullptr: none, e.g. a dropped property).
    auto column_of = [&](const TypeSegment& s, const std::string& name) -> const format::Column* {
      if (name == kIdColumn) return &s.ids;
      if (g.is_edge && name == kSrcColumn) return &s.srcs;
      if (g.is_edge && name == kDstColumn) return &s.dsts;
      const size_t idx = g.PropertyIndex(name);
      return idx < s.values.size() ? &s.values[idx] : nullptr;
    };
    for (const TypeSegment& s : g.segments) {
      for (table::FieldId id : indexed) {
        const table::Field* f = schema.FindById(id);
        const format::Column* c = f == nullptr ? nullptr : column_of(s, f->name);
        const bool value_index = id != schema.key_field_id;
        const uint64_t key_bytes = c == nullptr ? 0 : c->memory_bytes();
        bytes += value_index ? s.size() * 104 + 2 * key_bytes : s.size() * 88 + key_bytes;
      }
      for (size_t p = 0; p < g.properties().size() && p < s.values.size(); ++p) {
        if (g.properties()[p].type.kind == TypeKind::kBlob) bytes += s.values[p].memory_bytes();
      }
    }
  }
  return bytes;
}

struct Staged {
  std::optional<table::TableVersion> version;
  ChangeCounts counts;
};

// The rows of a merge that change the table: those whose id is new, and those whose stored row
// differs in some column. A row equal to the stored one is not an update (it is left out, so a
// merge of unchanged rows publishes nothing). Blob values are fresh descriptors, so a row with a
// Blob value always counts as changed. Compared a slice of stored rows at a time.
Result<format::Batch> ChangedRows(const table::TableVersion& base, const format::Batch& all, ChangeCounts* counts) {
  counts->inserted = all.num_rows();
  if (base.row_count() == 0 || all.num_rows() == 0) return all;
  const format::Column* id_column = all.ColumnByName(kIdColumn);
  if (id_column == nullptr) return InternalError("merge rows have no id column");
  std::vector<std::string> ids;
  ids.reserve(all.num_rows());
  for (size_t r = 0; r < all.num_rows(); ++r) ids.emplace_back(id_column->string_at(r));
  std::vector<std::optional<uint64_t>> found;
  if (table::FewLookups(base, ids.size())) {
    OG_ASSIGN_OR_RETURN(found, table::ProbeIds(base, ids));
  } else {
    OG_ASSIGN_OR_RETURN(table::IdIndex idx, table::IdIndex::Open(base));
    found = idx.LookupMany(ids);
  }
  ids.clear();
  std::vector<uint64_t> keep;  // rows of `all`
  std::vector<uint64_t> addresses, rows;
  auto compare = [&]() -> Status {
    if (addresses.empty()) return Status::Ok();
    OG_ASSIGN_OR_RETURN(format::Batch old, base.Take(addresses));
    std::vector<const format::Column*> stored;
    for (size_t c = 0; c < all.num_columns(); ++c) stored.push_back(old.ColumnByName(all.schema().field(c).name));
    for (size_t k = 0; k < rows.size(); ++k) {
      bool same = true;
      for (size_t c = 0; c < all.num_columns() && same; ++c) {
        same = stored[c] != nullptr && stored[c]->GetValue(k) == all.column(c).GetValue(rows[k]);
      }
      if (!same) {
        keep.push_back(rows[k]);
        counts->updated++;
      }
    }
    addresses.clear();
    rows.clear();
    return Status::Ok();
  };
  for (size_t r = 0; r < found.size(); ++r) {
    if (!found[r]) {
      keep.push_back(r);
      continue;
    }
    counts->inserted--;
    addresses.push_back(*found[r]);
    rows.push_back(r);
    if (addresses.size() == 65536) OG_RETURN_IF_ERROR(compare());
  }
  OG_RETURN_IF_ERROR(compare());
  if (keep.size() == all.num_rows()) return all;
  std::sort(keep.begin(), keep.end());
  return all.Take(keep);
}

// nullopt version: nothing to write for this type.
Result<Staged> StageType(const table::TableVersion& base, const TypeGroup& group, LoadMode mode) {
  OG_ASSIGN_OR_RETURN(std::vector<format::Batch> rows, BuildRows(base, group));
  table::TableWriter writer(base);
  Staged out;
  uint64_t n = group.size();
  switch (mode) {
    case LoadMode::kAppend:
      for (const auto& batch : rows) OG_RETURN_IF_ERROR(writer.Append(batch));
      out.counts.inserted = n;
      break;
    case LoadMode::kMerge: {
      // One upsert: each call scans the rows pending before it.
      OG_ASSIGN_OR_RETURN(format::Batch all, format::Batch::Concat(rows));
      rows.clear();
      OG_ASSIGN_OR_RETURN(format::Batch changed, ChangedRows(base, all, &out.counts));
      if (changed.num_rows() == 0) return out;
      OG_RETURN_IF_ERROR(writer.Upsert(changed));
      break;
    }
    case LoadMode::kOverwrite:
      writer.ReplaceAll();
      for (const auto& batch : rows) OG_RETURN_IF_ERROR(writer.Append(batch));
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
  std::unique_ptr<LoadSource> source = NewStringLoadSource(ndjson);
  return LoadNdjson(graph, *source, options);
}

Result<LoadResult> LoadNdjson(Graph& graph, LoadSource& source, const LoadOptions& options) {
  // Parse once per schema (a concurrent schema change makes a retry read and parse again).
  std::string parsed_schema;
  std::optional<ParsedLoad> parsed;
  uint64_t input_bytes = 0;
  LoadResult result;
  std::mutex result_mu;

  WriteRequest req;
  req.branch = options.branch;
  req.if_commit = options.if_commit;
  req.create_branch_from = options.create_branch_from;
  req.kind = options.mode == LoadMode::kOverwrite ? WriteKind::kStrict : WriteKind::kConstructive;
  req.prepare = [&](const Snapshot& snap) -> Result<PreparedWrite> {
    if (!parsed || parsed_schema != snap.commit().schema_id) {
      if (parsed) {
        parsed.reset();
        Status rewound = source.Rewind();
        if (!rewound.ok()) return rewound.WithContext("the schema changed during the load; load again");
      }
      OG_ASSIGN_OR_RETURN(parsed, ParseInput(source, snap.shared_catalog(), options, &input_bytes));
      parsed_schema = snap.commit().schema_id;
    }
    if (!parsed->errors.empty()) return ErrorsToStatus(parsed->errors, parsed->errors_truncated);
    auto report = [&](std::string_view phase) {
      if (options.progress) options.progress(phase, parsed->records, input_bytes);
    };
    report("parsed");
    const std::vector<TypeGroup>& groups = parsed->groups;
    LoadChecker checker(snap, options.mode, std::max<size_t>(options.max_errors, 1));
    OG_ASSIGN_OR_RETURN(LoadCheckResult checked, checker.Run(groups));
    if (!checked.errors.empty()) return ErrorsToStatus(checked.errors, checked.truncated);
    report("validated");
    OG_ASSIGN_OR_RETURN(uint64_t staging, StagingBytes(snap, groups));
    if (options.mode == LoadMode::kMerge) staging += parsed->memory_bytes;  // the upsert's joined rows
    if (parsed->memory_bytes + staging > options.max_memory_bytes) {
      return ResourceExhaustedError(
          "load: staging " + std::to_string(parsed->records) + " records needs about " +
          std::to_string(parsed->memory_bytes + staging) + " bytes (" + std::to_string(parsed->memory_bytes) +
          " of parsed records and " + std::to_string(staging) +
          " for building the tables' indexes), above the memory limit of " + std::to_string(options.max_memory_bytes) +
          " bytes; nothing was written. Raise the limit (omnigraph load --max-memory SIZE, "
          "LoadOptions::max_memory_bytes) or split the input into several loads");
    }

    report("staging");
    std::vector<Staged> staged(groups.size());
    OG_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor(groups.size(), [&](size_t i) -> Status {
      OG_ASSIGN_OR_RETURN(table::TableVersion base, snap.Table(groups[i].name));
      OG_ASSIGN_OR_RETURN(staged[i], StageType(base, groups[i], options.mode));
      return Status::Ok();
    }));
    report("staged");
    PreparedWrite w;
    w.operation = "load:" + std::string(LoadModeName(options.mode));
    std::lock_guard lock(result_mu);
    result.types.clear();
    result.records = parsed->records;
    for (size_t i = 0; i < groups.size(); ++i) {
      if (staged[i].version) {
        w.tables.emplace(groups[i].name, std::move(*staged[i].version));
        w.summary[groups[i].name] = staged[i].counts;
      }
      LoadTypeStats& st = result.types[groups[i].name];
      st.kind = groups[i].is_edge ? EntityKind::kEdge : EntityKind::kNode;
      st.loaded = groups[i].size();
      st.changes = staged[i].counts;
    }
    return w;
  };
  OG_ASSIGN_OR_RETURN(result.write, graph.Write(req));
  return result;
}

}  // namespace omnigraph::engine
