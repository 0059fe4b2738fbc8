// The public embedded API, continued: the schema source of a snapshot and Blob cells
// (include/omnigraph/omnigraph.h). A Blob cell holds a descriptor (format/blob_descriptor.h) naming
// a payload in one of its table's immutable blob files (docs/format/blob.md).
#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/error_codes.h"
#include "common/hash.h"
#include "compiler/catalog_builder.h"
#include "compiler/migration_planner.h"
#include "engine/database_internal.h"
#include "engine/graph/schema_store.h"
#include "engine/maintain/schema_apply.h"
#include "format/blob_descriptor.h"
#include "table/index_probe.h"

namespace omnigraph {

using database_internal::NoThrow;
using database_internal::Resolve;

namespace {

// One non-null Blob cell found at a snapshot: its table (to read the payload) and descriptor.
struct FoundBlob {
  table::TableVersion table;
  format::BlobDescriptor descriptor;
};

std::string CellName(EntityKind kind, std::string_view type, std::string_view id, std::string_view property) {
  return std::string(EntityKindName(kind)) + " " + std::string(type) + " '" + std::string(id) + "' property '" +
         std::string(property) + "'";
}

Result<FoundBlob> FindBlob(const engine::Snapshot& snap, EntityKind kind, std::string_view type, std::string_view id,
                           std::string_view property) {
  const auto it = snap.commit().tables.find(std::string(type));
  if (it == snap.commit().tables.end() || it->second.kind != kind) {
    return NotFoundError("no " + std::string(EntityKindName(kind)) + " type named '" + std::string(type) + "'");
  }
  OG_ASSIGN_OR_RETURN(table::TableVersion t, snap.Table(type));
  const table::Field* field = t.schema().FindByName(property);
  if (field == nullptr) {
    return NotFoundError(std::string(EntityKindName(kind)) + " type '" + std::string(type) + "' has no property '" +
                         std::string(property) + "'");
  }
  if (field->type.kind != TypeKind::kBlob) {
    return InvalidArgumentError(std::string(type) + "." + std::string(property) + " is a " + field->type.ToString() +
                                " property, not a Blob");
  }
  const std::vector<std::string> ids{std::string(id)};
  OG_ASSIGN_OR_RETURN(auto found, table::ProbeIds(t, ids));
  if (found.empty() || !found[0]) {
    return NotFoundError(std::string(EntityKindName(kind)) + " " + std::string(type) + " '" + std::string(id) +
                         "' does not exist");
  }
  const uint64_t address = *found[0];
  OG_ASSIGN_OR_RETURN(format::Batch row,
                      t.Take(std::span<const uint64_t>(&address, 1), std::vector<std::string>{std::string(property)}));
  const format::Column* column = row.ColumnByName(property);
  if (column == nullptr || row.num_rows() != 1) return InternalError("a row take did not return the Blob column");
  if (column->IsNull(0)) return NotFoundError(CellName(kind, type, id, property) + " is null (no Blob)");
  OG_ASSIGN_OR_RETURN(format::BlobDescriptor d, column->blob_at(0));
  return FoundBlob{std::move(t), std::move(d)};
}

void PutBigEndian(std::string* out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>((v >> shift) & 0xff));
}

// `"` + 32 hex digits + `"`: the first 16 bytes of SHA-256 over a domain tag and the payload's
// identity (absolute blob file key, offset, length). Blob files are written once under fresh ULID
// keys and never rewritten, so one identity is always the same bytes: a strong entity tag, stable
// across processes, branches and snapshots that share the cell, with no payload read.
std::string BlobEtag(const table::TableVersion& t, const format::BlobDescriptor& d) {
  std::string input = std::string("omnigraph/blob-etag/v1") + '\0';
  const std::string key = t.AbsoluteKey(d.file);
  PutBigEndian(&input, key.size());
  input += key;
  PutBigEndian(&input, d.offset);
  PutBigEndian(&input, d.length);
  const std::array<uint8_t, 32> digest = Sha256(input);
  return "\"" + HexEncode(std::string_view(reinterpret_cast<const char*>(digest.data()), 16)) + "\"";
}

// The checks a range gets before anything is read (as the Rust CLI orders them).
Status CheckRange(const BlobRange& r) {
  if (r.length && *r.length == 0) return InvalidArgumentError("Blob range length must be greater than zero");
  if (r.length && *r.length > UINT64_MAX - r.offset) {
    return InvalidArgumentError("Blob range overflows u64: offset " + std::to_string(r.offset) + ", length " +
                                std::to_string(*r.length));
  }
  return Status::Ok();
}

}  // namespace

// ---- Schema -------------------------------------------------------------------------------------

Result<std::string> Database::SchemaSource(const ReadTarget& at) {
  return NoThrow([&]() -> Result<std::string> {
    OG_ASSIGN_OR_RETURN(engine::Snapshot snap, Resolve(*impl_->graph, at));
    auto schema = engine::ReadSchema(impl_->graph->store(), snap.commit().schema_id);
    if (!schema.ok() && schema.status().category() == StatusCode::kNotFound) {
      return CorruptError("schema " + snap.commit().schema_id + " of commit " + snap.commit().id + " is missing");
    }
    if (!schema.ok()) return schema.status();
    return std::move(schema->source);
  });
}

Result<SchemaPlan> Database::PlanSchema(std::string_view schema_source, bool allow_data_loss, std::string_view branch) {
  return NoThrow([&]() -> Result<SchemaPlan> {
    OG_ASSIGN_OR_RETURN(engine::Snapshot snap, impl_->graph->Head(branch));
    OG_ASSIGN_OR_RETURN(compiler::Catalog proposed, compiler::CompileSchema(schema_source));
    compiler::MigrationOptions mo;
    mo.allow_data_loss = allow_data_loss;
    OG_ASSIGN_OR_RETURN(mo.row_counts, snap.RowCounts());
    const compiler::Catalog& current = snap.catalog();
    compiler::MigrationPlan plan = compiler::PlanMigration(current, proposed, mo);
    SchemaPlan out;
    out.branch = std::string(branch);
    out.from_schema_id = snap.commit().schema_id;
    out.to_schema_id = compiler::RebaseIds(current, proposed).SchemaId();
    out.supported = plan.supported();
    for (const auto& s : plan.steps) {
      SchemaPlan::Step step;
      step.kind = std::string(compiler::MigrationStepKindName(s.kind));
      step.type_kind = s.is_edge ? "edge" : "node";
      step.type_name = s.type_name;
      step.property = s.property;
      step.old_name = s.old_name;
      step.constraint = s.constraint;
      step.added_values = s.added_values;
      if (s.kind == compiler::MigrationStepKind::kDropType || s.kind == compiler::MigrationStepKind::kDropProperty) {
        step.mode = s.mode == compiler::DropMode::kHard ? "hard" : "soft";
      }
      step.code = s.code;
      step.entity = s.entity;
      step.reason = s.reason;
      out.steps.push_back(std::move(step));
    }
    return out;
  });
}

Result<Database::SchemaApplyResult> Database::ApplySchema(std::string_view schema_source, bool allow_data_loss,
                                                          std::string_view branch,
                                                          std::optional<std::string> if_commit) {
  return NoThrow([&]() -> Result<SchemaApplyResult> {
    if (impl_->options.read_only) return PermissionDeniedError("the database was opened read-only");
    OG_RETURN_IF_ERROR(database_internal::AuthorizeWrite(*impl_, "schema_apply", std::nullopt, std::string(branch)));
    SchemaApplyResult out;
    OG_ASSIGN_OR_RETURN(out.plan, PlanSchema(schema_source, allow_data_loss, branch));
    engine::SchemaApplyOptions o;
    o.branch = std::string(branch);
    o.allow_data_loss = allow_data_loss;
    o.if_commit = std::move(if_commit);
    OG_ASSIGN_OR_RETURN(engine::SchemaApplyResult r, engine::ApplySchema(*impl_->graph, schema_source, o));
    out.applied = r.write.committed;
    out.commit_id = r.write.commit.id;
    out.version = r.write.seq;
    return out;
  });
}

// ---- Blobs --------------------------------------------------------------------------------------

Result<BlobInfo> Database::StatBlob(const ReadTarget& at, EntityKind kind, std::string_view type, std::string_view id,
                                    std::string_view property) {
  return NoThrow([&]() -> Result<BlobInfo> {
    OG_ASSIGN_OR_RETURN(engine::Snapshot snap, Resolve(*impl_->graph, at));
    OG_ASSIGN_OR_RETURN(FoundBlob blob, FindBlob(snap, kind, type, id, property));
    BlobInfo info;
    info.kind = BlobKind::kManaged;
    info.size = blob.descriptor.length;
    info.etag = BlobEtag(blob.table, blob.descriptor);
    info.snapshot_id = engine::Graph::SnapshotId(snap);
    info.commit_id = snap.commit().id;
    return info;
  });
}

Result<std::string> Database::ReadBlob(const ReadTarget& at, EntityKind kind, std::string_view type,
                                       std::string_view id, std::string_view property, std::optional<BlobRange> range) {
  return NoThrow([&]() -> Result<std::string> {
    if (range) OG_RETURN_IF_ERROR(CheckRange(*range));
    OG_ASSIGN_OR_RETURN(engine::Snapshot snap, Resolve(*impl_->graph, at));
    OG_ASSIGN_OR_RETURN(FoundBlob blob, FindBlob(snap, kind, type, id, property));
    const uint64_t size = blob.descriptor.length;
    uint64_t start = 0, end = size;
    if (range) {
      // Any range must start inside the Blob (so no range of an empty Blob is satisfiable); its end
      // is clamped to the Blob's.
      if (range->offset >= size) {
        return Status(ErrorCode::kRangeOutOfBounds, "Blob range is not satisfiable: offset " +
                                                        std::to_string(range->offset) + ", Blob size " +
                                                        std::to_string(size));
      }
      start = range->offset;
      if (range->length) end = std::min(size, start + *range->length);
    }
    // The payload is read and its checksum verified whole (one ranged read of the blob file), so
    // a range is cut from the verified bytes.
    OG_ASSIGN_OR_RETURN(std::string payload, blob.table.ReadBlob(blob.descriptor));
    if (payload.size() != size) return CorruptError("Blob payload length differs from its descriptor");
    if (end < size) payload.resize(end);
    if (start > 0) payload.erase(0, start);
    return payload;
  });
}

}  // namespace omnigraph
