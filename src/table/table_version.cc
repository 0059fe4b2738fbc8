#include "table/table_version.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/clock.h"
#include "common/error_codes.h"
#include "common/ulid.h"
#include "format/blob_file.h"
#include "table/batch_util.h"
#include "table/scanner.h"
#include "table/table_layout.h"

namespace omnigraph::table {

Result<std::vector<Field>> ResolveColumns(const TableSchema& schema,
                                          const std::optional<std::vector<std::string>>& columns) {
  if (!columns) return schema.fields;
  std::vector<Field> out;
  std::set<std::string> seen;
  for (const std::string& name : *columns) {
    const Field* f = schema.FindByName(name);
    if (f == nullptr) return InvalidArgumentError("unknown column '" + name + "'");
    if (!seen.insert(name).second) return InvalidArgumentError("column '" + name + "' requested twice");
    out.push_back(*f);
  }
  return out;
}

Result<TableVersion> TableVersion::Create(io::ObjectStore& store, std::string prefix, TableSchema schema) {
  OG_RETURN_IF_ERROR(io::ValidateKey(prefix));
  OG_RETURN_IF_ERROR(schema.Validate(/*corrupt=*/false));
  auto m = std::make_shared<Manifest>();
  m->version_id = NewUlidString();
  m->sequence = 1;
  m->created_ms = NowMicros() / 1000;
  m->operation.kind = "create";
  m->schema = std::move(schema);
  OG_RETURN_IF_ERROR(ValidateManifest(*m, /*corrupt=*/false));
  OG_RETURN_IF_ERROR(store.PutIfAbsent(table::AbsoluteKey(prefix, VersionKey(m->version_id)), EncodeManifest(*m)));
  return TableVersion(&store, std::move(prefix), std::move(m), std::make_shared<TableCache>());
}

Result<TableVersion> TableVersion::Open(io::ObjectStore& store, std::string prefix, std::string_view version_id,
                                        std::shared_ptr<TableCache> cache) {
  OG_RETURN_IF_ERROR(io::ValidateKey(prefix));
  auto ulid = Ulid::Parse(version_id);
  if (!ulid.ok()) return InvalidArgumentError("table version id '" + std::string(version_id) + "' is not a ULID");
  const std::string key = table::AbsoluteKey(prefix, VersionKey(version_id));
  OG_ASSIGN_OR_RETURN(std::string bytes, store.Get(key));
  OG_ASSIGN_OR_RETURN(Manifest m, DecodeManifest(bytes, key));
  if (m.version_id != version_id) return CorruptError(key + ": manifest names version " + m.version_id);
  if (cache == nullptr) cache = std::make_shared<TableCache>();
  return TableVersion(&store, std::move(prefix), std::make_shared<const Manifest>(std::move(m)), std::move(cache));
}

TableVersion TableVersion::FromManifest(io::ObjectStore& store, std::string prefix,
                                        std::shared_ptr<const Manifest> manifest, std::shared_ptr<TableCache> cache) {
  if (cache == nullptr) cache = std::make_shared<TableCache>();
  return TableVersion(&store, std::move(prefix), std::move(manifest), std::move(cache));
}

TableVersion TableVersion::Derive(std::shared_ptr<const Manifest> manifest) const {
  TableVersion v = *this;
  v.manifest_ = std::move(manifest);
  return v;
}

std::string TableVersion::AbsoluteKey(std::string_view relative) const { return table::AbsoluteKey(prefix_, relative); }

Result<std::shared_ptr<const format::FragmentReader>> TableVersion::OpenFragment(const FragmentMeta& f) const {
  if (auto r = readers_->Get(f.file_key)) return r;
  format::FragmentOpenOptions opts;
  opts.file_size = f.file_size;
  if (f.tail_size > 0) opts.tail_size_hint = f.tail_size;
  OG_ASSIGN_OR_RETURN(std::unique_ptr<format::FragmentReader> reader,
                      format::FragmentReader::Open(*store_, AbsoluteKey(f.file_key), opts));
  if (reader->num_rows() != f.physical_rows) {
    return CorruptError(AbsoluteKey(f.file_key) + ": holds " + std::to_string(reader->num_rows()) +
                        " rows, the manifest says " + std::to_string(f.physical_rows));
  }
  std::shared_ptr<const format::FragmentReader> shared(std::move(reader));
  readers_->Put(f.file_key, shared);
  return shared;
}

Result<std::shared_ptr<const format::DeletionVector>> TableVersion::LoadDeletion(const FragmentMeta& f) const {
  if (f.deletion_key.empty()) {
    static const std::shared_ptr<const format::DeletionVector> kEmpty =
        std::make_shared<const format::DeletionVector>();
    return kEmpty;
  }
  if (auto d = cache_->GetDeletion(f.deletion_key)) return d;
  const std::string key = AbsoluteKey(f.deletion_key);
  OG_ASSIGN_OR_RETURN(format::DeletionVector dv, format::DeletionVector::Read(*store_, key));
  if (dv.cardinality() != f.deleted_rows) {
    return CorruptError(key + ": holds " + std::to_string(dv.cardinality()) + " deleted rows, the manifest says " +
                        std::to_string(f.deleted_rows));
  }
  auto shared = std::make_shared<const format::DeletionVector>(std::move(dv));
  cache_->PutDeletion(f.deletion_key, shared);
  return shared;
}

Result<std::unique_ptr<Scanner>> TableVersion::Scan(ScanOptions options) const {
  if (options.batch_rows == 0) return InvalidArgumentError("scan: batch_rows must be >= 1");
  OG_ASSIGN_OR_RETURN(std::vector<Field> projection, ResolveColumns(schema(), options.columns));
  OG_ASSIGN_OR_RETURN(BoundPredicate filter, BoundPredicate::Bind(options.filter, schema()));
  if (options.fragment_ids) {
    std::sort(options.fragment_ids->begin(), options.fragment_ids->end());
    for (uint32_t id : *options.fragment_ids) {
      if (manifest_->FindFragment(id) == nullptr) {
        return InvalidArgumentError("scan: fragment " + std::to_string(id) + " is not in version " + version_id());
      }
    }
  }
  return std::make_unique<Scanner>(*this, std::move(options), std::move(filter), std::move(projection));
}

Result<format::Batch> TableVersion::ScanAll(ScanOptions options) const {
  OG_ASSIGN_OR_RETURN(std::unique_ptr<Scanner> scanner, Scan(std::move(options)));
  std::vector<format::Batch> batches;
  size_t rows = 0;
  while (true) {
    OG_ASSIGN_OR_RETURN(std::optional<format::Batch> b, scanner->Next());
    if (!b) break;
    rows += b->num_rows();
    batches.push_back(std::move(*b));
  }
  if (batches.empty()) return format::Batch::Empty(scanner->output_schema());
  if (batches.size() == 1) return std::move(batches[0]);
  if (scanner->output_schema().num_fields() == 0) return format::Batch::NoColumns(rows);
  return format::Batch::Concat(batches);
}

Result<uint64_t> TableVersion::CountRows(const Predicate& filter) const {
  ScanOptions o;
  o.columns = std::vector<std::string>{};
  o.filter = filter;
  OG_ASSIGN_OR_RETURN(std::unique_ptr<Scanner> scanner, Scan(std::move(o)));
  uint64_t n = 0;
  while (true) {
    OG_ASSIGN_OR_RETURN(std::optional<format::Batch> b, scanner->Next());
    if (!b) return n;
    n += b->num_rows();
  }
}

Result<format::Batch> TableVersion::Take(std::span<const uint64_t> addresses,
                                         const std::optional<std::vector<std::string>>& columns) const {
  OG_ASSIGN_OR_RETURN(std::vector<Field> fields, ResolveColumns(schema(), columns));
  const format::Schema out_schema = SchemaOf(fields);
  if (addresses.empty()) return format::Batch::Empty(out_schema);
  // Group by fragment, remembering each address's output position.
  std::map<uint32_t, std::vector<size_t>> by_fragment;
  for (size_t i = 0; i < addresses.size(); ++i) by_fragment[RowAddressFragment(addresses[i])].push_back(i);
  std::vector<format::Batch> parts;
  std::vector<uint64_t> order(addresses.size());  // output position -> row in the concatenation
  uint64_t base = 0;
  for (const auto& [fid, positions] : by_fragment) {
    const FragmentMeta* f = manifest_->FindFragment(fid);
    if (f == nullptr)
      return NotFoundError("row address " + std::to_string(addresses[positions[0]]) + ": fragment " +
                           std::to_string(fid) + " is not in this version");
    OG_ASSIGN_OR_RETURN(auto dv, LoadDeletion(*f));
    std::vector<uint64_t> rows;
    rows.reserve(positions.size());
    for (size_t p : positions) {
      uint32_t off = RowAddressOffset(addresses[p]);
      if (off >= f->physical_rows || dv->Contains(off)) {
        return NotFoundError("row address " + std::to_string(addresses[p]) + " is not a live row");
      }
      rows.push_back(off);
    }
    OG_ASSIGN_OR_RETURN(auto reader, OpenFragment(*f));
    std::vector<FieldId> ids;
    for (const Field& fl : fields) {
      if (reader->ColumnIndex(fl.id)) ids.push_back(fl.id);
    }
    format::Batch file_batch = format::Batch::NoColumns(rows.size());
    if (!ids.empty()) {
      OG_ASSIGN_OR_RETURN(file_batch, reader->Take(ids, rows));
    }
    OG_ASSIGN_OR_RETURN(format::Batch part, FromFileBatch(file_batch, fields, rows.size(), reader->key()));
    for (size_t k = 0; k < positions.size(); ++k) order[positions[k]] = base + k;
    base += rows.size();
    parts.push_back(std::move(part));
  }
  if (fields.empty()) return format::Batch::NoColumns(addresses.size());
  format::Batch all = parts[0];
  if (parts.size() > 1) {
    OG_ASSIGN_OR_RETURN(all, format::Batch::Concat(parts));
  }
  return all.Take(order);
}

Result<std::vector<format::BlobDescriptor>> TableVersion::WriteBlobs(std::span<const std::string> payloads) const {
  const std::string rel = NewBlobKey();
  format::BlobFileWriter writer(rel);
  std::vector<format::BlobDescriptor> out;
  out.reserve(payloads.size());
  for (const std::string& p : payloads) out.push_back(writer.Add(p));
  std::string bytes = writer.Finish();
  OG_RETURN_IF_ERROR(store_->PutIfAbsent(AbsoluteKey(rel), bytes));
  return out;
}

Result<std::string> TableVersion::ReadBlob(const format::BlobDescriptor& blob) const {
  if (blob.file.substr(0, kBlobDir.size()) != kBlobDir || !IsValidRelativeKey(blob.file)) {
    return InvalidArgumentError("blob descriptor names '" + blob.file + "', not a blob file of this table");
  }
  format::BlobDescriptor abs = blob;
  abs.file = AbsoluteKey(blob.file);
  return format::BlobFileReader::Read(*store_, abs);
}

uint64_t TableVersion::DataBytes() const {
  uint64_t n = 0;
  for (const FragmentMeta& f : manifest_->fragments) n += f.file_size;
  return n;
}

std::vector<std::string> TableVersion::ReferencedKeys() const {
  std::set<std::string> keys;
  keys.insert(AbsoluteKey(VersionKey(manifest_->version_id)));
  for (const FragmentMeta& f : manifest_->fragments) {
    keys.insert(AbsoluteKey(f.file_key));
    if (!f.deletion_key.empty()) keys.insert(AbsoluteKey(f.deletion_key));
    for (const std::string& b : f.blob_keys) keys.insert(AbsoluteKey(b));
  }
  for (const IndexSegmentMeta& s : manifest_->indexes) {
    for (const std::string& k : s.keys) keys.insert(AbsoluteKey(k));
  }
  return {keys.begin(), keys.end()};
}

}  // namespace omnigraph::table
