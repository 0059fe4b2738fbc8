#include "table/table_writer.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_set>

#include "common/clock.h"
#include "common/error_codes.h"
#include "common/thread_pool.h"
#include "common/ulid.h"
#include "table/batch_util.h"
#include "table/index_probe.h"
#include "table/scanner.h"
#include "table/table_layout.h"

namespace omnigraph::table {

// --- shared helpers ---

Result<TableVersion> StageManifest(const TableVersion& base, Manifest m) {
  const Manifest& parent = base.manifest();
  m.format_version = kManifestFormatVersion;
  m.version_id = NewUlidString();
  m.parent_version_id = parent.version_id;
  m.sequence = parent.sequence + 1;
  m.created_ms = NowMicros() / 1000;
  m.row_count = 0;
  for (const FragmentMeta& f : m.fragments) m.row_count += f.live_rows();
  Status valid = ValidateManifest(m, /*corrupt=*/false);
  if (!valid.ok()) return InternalError("staged manifest is inconsistent: " + valid.message());
  OG_RETURN_IF_ERROR(base.store().PutIfAbsent(base.AbsoluteKey(VersionKey(m.version_id)), EncodeManifest(m)));
  return base.Derive(std::make_shared<const Manifest>(std::move(m)));
}

// Average in-memory bytes per row of `batch` (an over-estimate for slices of larger columns).
double RowBytes(const format::Batch& batch) {
  if (batch.num_rows() == 0) return 1;
  double bytes = 0;
  for (size_t c = 0; c < batch.num_columns(); ++c) bytes += static_cast<double>(batch.column(c).memory_bytes());
  return std::max(1.0, bytes / static_cast<double>(batch.num_rows()));
}

Result<std::vector<PlannedFragment>> PlanFragments(const TableVersion& table, const std::vector<format::Batch>& rows,
                                                   uint64_t max_rows, uint64_t max_bytes, uint32_t* next_fragment_id,
                                                   std::vector<IndexFeed>* feeds) {
  if (max_rows == 0 || max_rows > UINT32_MAX) return InvalidArgumentError("max_rows_per_fragment must be 1..2^32-1");
  if (max_bytes == 0) return InvalidArgumentError("max_bytes_per_fragment must be positive");
  const TableSchema& schema = table.schema();
  std::vector<std::pair<size_t, IndexFeed*>> indexed;  // (column, feed)
  if (feeds != nullptr) {
    const format::Schema fs = schema.ToFormatSchema();
    for (IndexFeed& feed : *feeds) {
      std::optional<size_t> col = fs.IndexOfId(feed.field);
      if (!col) return InternalError("indexed field " + std::to_string(feed.field) + " is not in the schema");
      indexed.emplace_back(*col, &feed);
    }
  }
  std::vector<PlannedFragment> out;
  std::set<std::string> blobs;
  auto start_fragment = [&]() -> Status {
    if (*next_fragment_id == UINT32_MAX) return ResourceExhaustedError("table ran out of fragment ids");
    PlannedFragment f;
    f.meta.id = (*next_fragment_id)++;
    f.meta.file_key = NewDataKey();
    out.push_back(std::move(f));
    return Status::Ok();
  };
  auto finish_fragment = [&] {
    if (out.empty()) return;
    out.back().meta.blob_keys.assign(blobs.begin(), blobs.end());
    blobs.clear();
  };
  double fragment_bytes = 0;  // estimated bytes of the open fragment
  for (const format::Batch& batch : rows) {
    const double row_bytes = RowBytes(batch);
    const auto cap = static_cast<double>(max_bytes);
    // A batch larger than the byte cap is cut into pieces of even size rather than full + rest.
    const double pieces = std::ceil(row_bytes * static_cast<double>(batch.num_rows()) / cap);
    const auto even = static_cast<uint64_t>(std::ceil(static_cast<double>(batch.num_rows()) / std::max(1.0, pieces)));
    size_t offset = 0;
    while (offset < batch.num_rows()) {
      if (out.empty() || out.back().meta.physical_rows >= max_rows || fragment_bytes + row_bytes > cap) {
        finish_fragment();
        OG_RETURN_IF_ERROR(start_fragment());
        fragment_bytes = 0;
      }
      PlannedFragment& f = out.back();
      const auto fit = std::max<uint64_t>(1, static_cast<uint64_t>((cap - fragment_bytes) / row_bytes));
      const size_t take = static_cast<size_t>(std::min<uint64_t>(
          {max_rows - f.meta.physical_rows, batch.num_rows() - offset, fit, std::max<uint64_t>(1, even)}));
      fragment_bytes += row_bytes * static_cast<double>(take);
      format::Batch slice = batch.Slice(offset, take);
      OG_ASSIGN_OR_RETURN(std::set<std::string> b, BlobFilesOf(slice));
      blobs.insert(b.begin(), b.end());
      for (auto& [col, feed] : indexed) {
        const uint64_t first = MakeRowAddress(f.meta.id, static_cast<uint32_t>(f.meta.physical_rows));
        feed->parts.push_back(IndexFeed::Part{slice.column(col), first});
      }
      f.meta.physical_rows += take;
      f.slices.push_back(std::move(slice));
      offset += take;
    }
  }
  finish_fragment();
  return out;
}

Status WritePlannedFragment(const TableVersion& table, const format::FragmentWriterOptions& options,
                            PlannedFragment* fragment) {
  format::FragmentWriter writer(table.schema().ToFormatSchema(), options);
  for (const format::Batch& b : fragment->slices) OG_RETURN_IF_ERROR(writer.Append(b));
  OG_ASSIGN_OR_RETURN(format::FragmentInfo info,
                      writer.WriteTo(table.store(), table.AbsoluteKey(fragment->meta.file_key)));
  FragmentMeta& f = fragment->meta;
  if (info.num_rows != f.physical_rows) return InternalError("fragment writer wrote an unexpected row count");
  f.file_size = info.file_size;
  f.tail_size = info.tail_size;
  for (size_t i = 0; i < info.field_ids.size() && i < info.stats.size(); ++i)
    f.stats[info.field_ids[i]] = info.stats[i];
  fragment->slices.clear();
  return Status::Ok();
}

namespace {
ThreadPool& EffectsPool() {
  static ThreadPool pool(8);
  return pool;
}
}  // namespace

Status RunEffects(const std::vector<std::function<Status()>>& tasks) {
  if (tasks.empty()) return Status::Ok();
  if (tasks.size() == 1) return tasks[0]();
  return EffectsPool().ParallelFor(tasks.size(), [&](size_t i) { return tasks[i](); });
}

// --- TableWriter ---

TableWriter::TableWriter(TableVersion base, WriteOptions options)
    : base_(std::move(base)), options_(std::move(options)) {}

Status TableWriter::Append(const format::Batch& rows) {
  OG_ASSIGN_OR_RETURN(format::Batch b, ConformInputBatch(base_.schema(), rows));
  OG_RETURN_IF_ERROR(BlobFilesOf(b));
  used_append_ = true;
  inserted_ += b.num_rows();
  if (b.num_rows() > 0) pending_.push_back(std::move(b));
  return Status::Ok();
}

Status TableWriter::DeleteRow(uint64_t addr, bool* deleted) {
  *deleted = false;
  const FragmentMeta* f = base_.manifest().FindFragment(RowAddressFragment(addr));
  const uint32_t off = RowAddressOffset(addr);
  if (f == nullptr || off >= f->physical_rows) {
    return NotFoundError("row address " + std::to_string(addr) + " is not in table version " + base_.version_id());
  }
  if (replace_all_) return Status::Ok();
  OG_ASSIGN_OR_RETURN(auto dv, base_.LoadDeletion(*f));
  if (dv->Contains(off)) return Status::Ok();
  format::DeletionVector& added = new_deletes_[f->id];
  if (added.Contains(off)) return Status::Ok();
  added.Add(off);
  ++deleted_;
  *deleted = true;
  return Status::Ok();
}

Status TableWriter::Delete(std::span<const uint64_t> addresses) {
  used_delete_ = true;
  for (uint64_t a : addresses) {
    bool d = false;
    OG_RETURN_IF_ERROR(DeleteRow(a, &d));
  }
  return Status::Ok();
}

Status TableWriter::DeleteWhere(const Predicate& filter) {
  used_delete_ = true;
  OG_ASSIGN_OR_RETURN(BoundPredicate bound, BoundPredicate::Bind(filter, base_.schema()));
  // Pending rows first (they have no addresses yet).
  std::vector<format::Batch> kept;
  for (const format::Batch& b : pending_) {
    OG_ASSIGN_OR_RETURN(std::vector<uint8_t> match, bound.Evaluate(b));
    size_t hits = 0;
    for (auto& m : match) {
      hits += m;
      m = m ? 0 : 1;
    }
    inserted_ -= hits;
    if (hits == b.num_rows()) continue;
    if (hits == 0) {
      kept.push_back(b);
      continue;
    }
    std::vector<format::Column> cols;
    for (const format::Column& c : b.columns()) cols.push_back(c.Filter(match));
    OG_ASSIGN_OR_RETURN(format::Batch f, format::Batch::Make(b.schema(), std::move(cols)));
    kept.push_back(std::move(f));
  }
  pending_ = std::move(kept);
  if (replace_all_) return Status::Ok();
  ScanOptions o;
  o.columns = std::vector<std::string>{};
  o.filter = filter;
  o.with_row_address = true;
  OG_ASSIGN_OR_RETURN(std::unique_ptr<Scanner> scanner, base_.Scan(std::move(o)));
  while (true) {
    OG_ASSIGN_OR_RETURN(std::optional<format::Batch> b, scanner->Next());
    if (!b) break;
    OG_RETURN_IF_ERROR(Delete(b->column(0).u64_values()));
  }
  return Status::Ok();
}

Status TableWriter::EnsureIdIndex() {
  if (id_index_) return Status::Ok();
  OG_ASSIGN_OR_RETURN(IdIndex idx, IdIndex::Open(base_));
  id_index_.emplace(std::move(idx));
  return Status::Ok();
}

Status TableWriter::Upsert(const format::Batch& rows) {
  const TableSchema& schema = base_.schema();
  if (schema.key_field_id == 0) return InvalidArgumentError("upsert needs a key column; the table has none");
  OG_ASSIGN_OR_RETURN(format::Batch b, ConformInputBatch(schema, rows));
  OG_RETURN_IF_ERROR(BlobFilesOf(b));
  used_upsert_ = true;
  const format::Column& kc = *b.ColumnById(schema.key_field_id);
  std::vector<std::string> keys;
  keys.reserve(kc.length());
  std::unordered_set<std::string_view> key_set;
  for (size_t i = 0; i < kc.length(); ++i) {
    keys.emplace_back(kc.string_at(i));
    if (!key_set.insert(kc.string_at(i)).second) {
      return InvalidArgumentError("upsert: key '" + keys.back() + "' appears twice in one batch");
    }
  }
  // Pending rows with these keys are replaced.
  for (format::Batch& p : pending_) {
    const format::Column& pk = *p.ColumnById(schema.key_field_id);
    std::vector<uint8_t> keep(pk.length(), 1);
    size_t dropped = 0;
    for (size_t i = 0; i < pk.length(); ++i) {
      if (key_set.count(pk.string_at(i))) {
        keep[i] = 0;
        ++dropped;
      }
    }
    if (dropped == 0) continue;
    inserted_ -= dropped;
    std::vector<format::Column> cols;
    for (const format::Column& c : p.columns()) cols.push_back(c.Filter(keep));
    OG_ASSIGN_OR_RETURN(p, format::Batch::Make(p.schema(), std::move(cols)));
  }
  if (!replace_all_) {
    if (!id_index_ && FewLookups(base_, keys.size())) {
      // A few keys against a large table: probe their buckets instead of loading the whole index.
      std::vector<Value> in;
      in.reserve(keys.size());
      for (const std::string& k : keys) in.push_back(Value::String(k));
      const std::string& key_name = schema.FindById(schema.key_field_id)->name;
      OG_ASSIGN_OR_RETURN(auto hits,
                          ProbeColumn(base_, schema.key_field_id, keys, Predicate::In(key_name, std::move(in))));
      for (const auto& [i, a] : hits) {  // every live row with the key
        bool d = false;
        OG_RETURN_IF_ERROR(DeleteRow(a, &d));
      }
    } else {
      OG_RETURN_IF_ERROR(EnsureIdIndex());
      for (const std::string& k : keys) {
        for (uint64_t a : id_index_->LookupAll(k)) {  // every live row with the key
          bool d = false;
          OG_RETURN_IF_ERROR(DeleteRow(a, &d));
        }
      }
    }
  }
  inserted_ += b.num_rows();
  if (b.num_rows() > 0) pending_.push_back(std::move(b));
  return Status::Ok();
}

void TableWriter::ReplaceAll() {
  replace_all_ = true;
  pending_.clear();
  new_deletes_.clear();
  inserted_ = 0;
  deleted_ = base_.row_count();
}

std::string TableWriter::DerivedOperation() const {
  if (!options_.operation.empty()) return options_.operation;
  if (replace_all_) return "overwrite";
  const int kinds = int{used_append_} + int{used_delete_} + int{used_upsert_};
  if (kinds > 1) return "update";
  if (used_upsert_) return "upsert";
  if (used_delete_) return "delete";
  return "append";
}

namespace {

// On a store where objects are costly to create and cheap to read (a local disk), a small write leaves its new
// fragments uncovered by index segments (lookups read the key column of an uncovered fragment instead: IdIndex::Open,
// ProbeIndex): no segment objects for a one-row commit. The write that would bring the uncovered fragments past these
// bounds writes segments that cover them too, reading their indexed columns (small by construction). On a remote store
// every write writes its segments, so that a lookup never pays a round trip per uncovered fragment.
constexpr size_t kMaxDeferredFragments = 8;
constexpr uint64_t kMaxDeferredRows = 256;

// Decides for the feeds of a write whose new fragments are `fresh` (m: the new manifest so far,
// its fragments the base's still present): either clears the feeds (deferred), or adds to each
// feed the entries of the small uncovered fragments and their ids to `*indexed_ids`. Fragments
// uncovered for another reason (large ones of a graph written before indexes, or not uncovered
// for every feed) are left as they are.
Status DeferOrCoverIndexes(const TableVersion& base, const Manifest& m, const std::vector<PlannedFragment>& fresh,
                           std::vector<IndexFeed>* feeds, std::vector<uint32_t>* indexed_ids) {
  if (feeds->empty() || fresh.empty() || !base.store().prefers_fewer_objects()) return Status::Ok();
  // The present fragments no segment of a feed's (kind, field) covers, for every feed.
  std::vector<const FragmentMeta*> uncovered;
  for (const FragmentMeta& f : m.fragments) {
    bool in_none = true;
    for (const IndexFeed& feed : *feeds) {
      for (const IndexSegmentMeta& s : m.indexes) {
        if (s.kind == feed.kind && s.field_id == feed.field &&
            std::binary_search(s.fragment_ids.begin(), s.fragment_ids.end(), f.id)) {
          in_none = false;
        }
      }
    }
    if (in_none) uncovered.push_back(&f);
  }
  uint64_t rows = 0;
  for (const FragmentMeta* f : uncovered) rows += f->physical_rows;
  if (uncovered.size() > kMaxDeferredFragments || rows > kMaxDeferredRows) return Status::Ok();  // not ours
  for (const PlannedFragment& f : fresh) rows += f.meta.physical_rows;
  if (uncovered.size() + fresh.size() <= kMaxDeferredFragments && rows <= kMaxDeferredRows) {
    feeds->clear();  // deferred: the next larger write (or compaction) covers these fragments
    return Status::Ok();
  }
  for (const FragmentMeta* f : uncovered) {
    OG_ASSIGN_OR_RETURN(auto reader, base.OpenFragment(*f));
    // A column added after the fragment was written is not in its file: null in every row, so
    // it has no entries to cover.
    std::vector<FieldId> fields;
    std::vector<size_t> feed_of;
    for (size_t i = 0; i < feeds->size(); ++i) {
      if (!reader->ColumnIndex((*feeds)[i].field)) continue;
      fields.push_back((*feeds)[i].field);
      feed_of.push_back(i);
    }
    if (!fields.empty()) {
      OG_ASSIGN_OR_RETURN(format::Batch b, reader->ReadAll(fields));
      for (size_t c = 0; c < fields.size(); ++c) {
        (*feeds)[feed_of[c]].parts.push_back(IndexFeed::Part{b.column(c), MakeRowAddress(f->id, 0)});
      }
    }
    indexed_ids->push_back(f->id);
  }
  return Status::Ok();
}

}  // namespace

Result<TableVersion> TableWriter::Commit() {
  if (committed_) return InvalidArgumentError("TableWriter::Commit called twice");
  committed_ = true;
  const Manifest& base = base_.manifest();
  Manifest m;
  m.schema = base.schema;
  m.next_fragment_id = base.next_fragment_id;
  std::vector<std::function<Status()>> effects;
  // New deletion vectors, one per touched base fragment.
  std::vector<std::pair<std::string, std::shared_ptr<const format::DeletionVector>>> new_dvs;
  std::set<uint32_t> present;
  if (!replace_all_) {
    for (const FragmentMeta& f : base.fragments) {
      auto it = new_deletes_.find(f.id);
      if (it == new_deletes_.end() || it->second.empty()) {
        m.fragments.push_back(f);
        present.insert(f.id);
        continue;
      }
      OG_ASSIGN_OR_RETURN(auto old_dv, base_.LoadDeletion(f));
      auto dv = std::make_shared<const format::DeletionVector>(old_dv->Union(it->second));
      if (dv->cardinality() >= f.physical_rows) continue;  // every row deleted: drop the fragment
      FragmentMeta nf = f;
      nf.deletion_key = NewDeletionKey();
      nf.deleted_rows = dv->cardinality();
      new_dvs.emplace_back(nf.deletion_key, dv);
      present.insert(nf.id);
      m.fragments.push_back(std::move(nf));
    }
    for (const IndexSegmentMeta& s : base.indexes) {
      IndexSegmentMeta ns = s;
      ns.fragment_ids.clear();
      for (uint32_t fid : s.fragment_ids) {
        if (present.count(fid)) ns.fragment_ids.push_back(fid);
      }
      if (!ns.fragment_ids.empty()) m.indexes.push_back(std::move(ns));
    }
  }
  for (const auto& [key, dv] : new_dvs) {
    effects.push_back([this, key = key, dv = dv]() -> Status {
      OG_RETURN_IF_ERROR(dv->Write(base_.store(), base_.AbsoluteKey(key)));
      base_.cache()->PutDeletion(key, dv);
      return Status::Ok();
    });
  }
  // New fragments and their index segments (id and value indexes).
  std::vector<IndexFeed> feeds = IndexFeeds(m.schema);
  OG_ASSIGN_OR_RETURN(std::vector<PlannedFragment> fresh,
                      PlanFragments(base_, pending_, options_.max_rows_per_fragment, options_.max_bytes_per_fragment,
                                    &m.next_fragment_id, &feeds));
  std::vector<uint32_t> fresh_ids;
  for (PlannedFragment& f : fresh) {
    fresh_ids.push_back(f.meta.id);
    effects.push_back([this, &f] { return WritePlannedFragment(base_, options_.fragment, &f); });
  }
  std::vector<MergedSegment> segments;
  std::vector<uint32_t> indexed_ids = fresh_ids;
  OG_RETURN_IF_ERROR(DeferOrCoverIndexes(base_, m, fresh, &feeds, &indexed_ids));
  AddIndexEffects(base_, &feeds, present, indexed_ids, m.indexes, &effects, &segments);
  OG_RETURN_IF_ERROR(RunEffects(effects));
  ApplyMergedSegments(std::move(segments), &m.indexes);
  for (PlannedFragment& f : fresh) m.fragments.push_back(std::move(f.meta));
  m.operation.kind = DerivedOperation();
  m.operation.rows_inserted = inserted_;
  m.operation.rows_deleted = deleted_;
  return StageManifest(base_, std::move(m));
}

// --- one-call forms ---

Result<TableVersion> AppendRows(const TableVersion& base, const format::Batch& rows, const WriteOptions& options) {
  TableWriter w(base, options);
  OG_RETURN_IF_ERROR(w.Append(rows));
  return w.Commit();
}

Result<TableVersion> DeleteRows(const TableVersion& base, std::span<const uint64_t> addresses,
                                const WriteOptions& options) {
  TableWriter w(base, options);
  OG_RETURN_IF_ERROR(w.Delete(addresses));
  return w.Commit();
}

Result<TableVersion> DeleteWhere(const TableVersion& base, const Predicate& filter, const WriteOptions& options) {
  TableWriter w(base, options);
  OG_RETURN_IF_ERROR(w.DeleteWhere(filter));
  return w.Commit();
}

Result<TableVersion> UpsertRows(const TableVersion& base, const format::Batch& rows, const WriteOptions& options) {
  TableWriter w(base, options);
  OG_RETURN_IF_ERROR(w.Upsert(rows));
  return w.Commit();
}

Result<TableVersion> Overwrite(const TableVersion& base, const format::Batch& rows, const WriteOptions& options) {
  TableWriter w(base, options);
  w.ReplaceAll();
  OG_RETURN_IF_ERROR(w.Append(rows));
  return w.Commit();
}

namespace {
Manifest MetadataCopy(const Manifest& base, std::string kind, std::string note) {
  Manifest m;
  m.schema = base.schema;
  m.fragments = base.fragments;
  m.next_fragment_id = base.next_fragment_id;
  m.indexes = base.indexes;
  m.operation.kind = std::move(kind);
  m.operation.note = std::move(note);
  return m;
}
}  // namespace

Result<TableVersion> AddColumn(const TableVersion& base, std::string name, DataType type, FieldId id) {
  OG_RETURN_IF_ERROR(format::ValidateDataType(type));
  Manifest m = MetadataCopy(base.manifest(), "add_column", name);
  if (m.schema.FindByName(name) != nullptr) return InvalidArgumentError("column '" + name + "' already exists");
  if (id == 0) id = m.schema.next_field_id;
  if (id < m.schema.next_field_id) {
    return InvalidArgumentError("field id " + std::to_string(id) +
                                " was already used in this table (ids are never reused)");
  }
  if (id >= UINT32_MAX - 1) return ResourceExhaustedError("table ran out of field ids");
  m.schema.next_field_id = id + 1;
  m.schema.fields.push_back(Field{id, std::move(name), type, /*nullable=*/true});
  OG_RETURN_IF_ERROR(m.schema.Validate(/*corrupt=*/false));
  return StageManifest(base, std::move(m));
}

Result<TableVersion> RenameColumn(const TableVersion& base, std::string_view from, std::string to) {
  Manifest m = MetadataCopy(base.manifest(), "rename_column", std::string(from) + " -> " + to);
  if (m.schema.FindByName(from) == nullptr) return InvalidArgumentError("no column '" + std::string(from) + "'");
  if (from == to) return InvalidArgumentError("column '" + to + "' already has that name");
  if (m.schema.FindByName(to) != nullptr) return InvalidArgumentError("column '" + to + "' already exists");
  for (Field& f : m.schema.fields) {
    if (f.name == from) f.name = to;
  }
  OG_RETURN_IF_ERROR(m.schema.Validate(/*corrupt=*/false));
  return StageManifest(base, std::move(m));
}

Result<TableVersion> MakeColumnNullable(const TableVersion& base, std::string_view name) {
  Manifest m = MetadataCopy(base.manifest(), "make_nullable", std::string(name));
  Field* found = nullptr;
  for (Field& f : m.schema.fields) {
    if (f.name == name) found = &f;
  }
  if (found == nullptr) return InvalidArgumentError("no column '" + std::string(name) + "'");
  if (found->id == m.schema.key_field_id) {
    return InvalidArgumentError("the key column '" + std::string(name) + "' cannot be nullable");
  }
  found->nullable = true;
  return StageManifest(base, std::move(m));
}

Result<TableVersion> AddValueIndex(const TableVersion& base, std::string_view name) {
  const Field* f = base.schema().FindByName(name);
  if (f == nullptr) return InvalidArgumentError("no column '" + std::string(name) + "'");
  if (f->type.kind != TypeKind::kString) {
    return InvalidArgumentError("column '" + std::string(name) + "' is not a String column");
  }
  const auto& indexed = base.schema().indexed_field_ids;
  if (f->id == base.schema().key_field_id || std::find(indexed.begin(), indexed.end(), f->id) != indexed.end()) {
    return base;
  }
  Manifest m = MetadataCopy(base.manifest(), "add_value_index", std::string(name));
  m.schema.indexed_field_ids.push_back(f->id);
  std::sort(m.schema.indexed_field_ids.begin(), m.schema.indexed_field_ids.end());
  return StageManifest(base, std::move(m));
}

Result<TableVersion> ReplaceIndexSegments(const TableVersion& base, IndexSegmentMeta segment) {
  if (segment.keys.empty()) return InvalidArgumentError("an index segment needs at least one object");
  for (uint32_t fid : segment.fragment_ids) {
    if (base.manifest().FindFragment(fid) == nullptr) {
      return InvalidArgumentError("index segment covers fragment " + std::to_string(fid) +
                                  ", which the version does not have");
    }
  }
  Manifest m = MetadataCopy(base.manifest(), "index", segment.kind + " " + std::to_string(segment.field_id));
  std::erase_if(m.indexes,
                [&](const IndexSegmentMeta& s) { return s.kind == segment.kind && s.field_id == segment.field_id; });
  std::sort(segment.fragment_ids.begin(), segment.fragment_ids.end());
  m.indexes.push_back(std::move(segment));
  return StageManifest(base, std::move(m));
}

Result<TableVersion> DropColumn(const TableVersion& base, std::string_view name) {
  Manifest m = MetadataCopy(base.manifest(), "drop_column", std::string(name));
  const Field* f = m.schema.FindByName(name);
  if (f == nullptr) return InvalidArgumentError("no column '" + std::string(name) + "'");
  if (f->id == m.schema.key_field_id)
    return InvalidArgumentError("the key column '" + std::string(name) + "' cannot be dropped");
  const FieldId id = f->id;
  std::erase_if(m.schema.fields, [&](const Field& x) { return x.id == id; });
  std::erase(m.schema.indexed_field_ids, id);
  for (FragmentMeta& fr : m.fragments) fr.stats.erase(id);
  std::erase_if(m.indexes, [&](const IndexSegmentMeta& s) { return s.field_id == id; });
  return StageManifest(base, std::move(m));
}

}  // namespace omnigraph::table
