#include "table/scanner.h"

#include <algorithm>
#include <set>

#include "common/error_codes.h"
#include "table/batch_util.h"

namespace omnigraph::table {
namespace {

format::Schema OutputSchema(const std::vector<Field>& projection, bool with_row_address) {
  std::vector<Field> fields = projection;
  if (with_row_address) {
    fields.push_back(
        Field{kRowAddressFieldId, std::string(kRowAddressColumn), DataType::Scalar(TypeKind::kU64), false});
  }
  return SchemaOf(fields);
}

// Statistics saying "every row is null", for fields a fragment does not store.
format::ColumnStats AllNull(uint64_t rows) {
  format::ColumnStats s;
  s.row_count = rows;
  s.null_count = rows;
  return s;
}

}  // namespace

Scanner::Scanner(TableVersion version, ScanOptions options, BoundPredicate filter, std::vector<Field> projection)
    : version_(std::move(version)),
      options_(std::move(options)),
      filter_(std::move(filter)),
      projection_(std::move(projection)),
      output_schema_(OutputSchema(projection_, options_.with_row_address)) {
  std::set<FieldId> ids(filter_.field_ids().begin(), filter_.field_ids().end());
  for (const Field& p : projection_) ids.insert(p.id);
  for (FieldId id : ids) needed_.push_back(*version_.schema().FindById(id));
}

Result<bool> Scanner::StartNextFragment() {
  const Manifest& m = version_.manifest();
  const bool prune = options_.use_statistics && !filter_.predicate().is_true();
  while (next_fragment_ < m.fragments.size()) {
    const FragmentMeta& f = m.fragments[next_fragment_++];
    if (options_.fragment_ids &&
        !std::binary_search(options_.fragment_ids->begin(), options_.fragment_ids->end(), f.id)) {
      continue;
    }
    ++metrics_.fragments;
    if (f.live_rows() == 0) continue;
    if (prune) {
      format::ColumnStats absent = AllNull(f.physical_rows);
      bool may = filter_.MayMatch([&](FieldId id) -> const format::ColumnStats* {
        auto it = f.stats.find(id);
        return it == f.stats.end() ? &absent : &it->second;
      });
      if (!may) {
        ++metrics_.fragments_pruned;
        continue;
      }
    }
    OG_ASSIGN_OR_RETURN(reader_, version_.OpenFragment(f));
    OG_ASSIGN_OR_RETURN(deletion_, version_.LoadDeletion(f));
    fragment_ = &f;

    // Fields to read: projection plus filter columns, those the file has.
    read_ids_.clear();
    for (const Field& f : needed_) {
      if (reader_->ColumnIndex(f.id)) read_ids_.push_back(f.id);
    }

    // Candidate row ranges: cut at every page boundary of the filter columns, keep those whose
    // page statistics may match.
    std::vector<Range> ranges;
    const uint64_t rows = f.physical_rows;
    if (prune) {
      const format::FragmentMetadata& meta = reader_->metadata();
      std::set<uint64_t> cuts = {0, rows};
      std::vector<std::pair<FieldId, size_t>> cols;  // filter field -> column position
      for (FieldId id : filter_.field_ids()) {
        if (auto c = reader_->ColumnIndex(id)) {
          cols.emplace_back(id, *c);
          for (const format::PageInfo& p : meta.columns[*c].pages) cuts.insert(p.first_row);
        }
      }
      std::vector<uint64_t> points(cuts.begin(), cuts.end());
      for (size_t i = 0; i + 1 < points.size(); ++i) {
        const uint64_t b = points[i], e = points[i + 1];
        format::ColumnStats absent = AllNull(e - b);
        bool may = filter_.MayMatch([&](FieldId id) -> const format::ColumnStats* {
          for (const auto& [fid, c] : cols) {
            if (fid == id) return &meta.columns[c].pages[meta.PageForRow(c, b)].stats;
          }
          return &absent;
        });
        if (!may || deletion_->CountInRange(b, e) == e - b) {
          ++metrics_.ranges_pruned;
          continue;
        }
        if (!ranges.empty() && ranges.back().end == b) {
          ranges.back().end = e;
        } else {
          ranges.push_back({b, e});
        }
      }
    } else {
      ranges.push_back({0, rows});
    }
    for (const Range& r : ranges) {
      for (uint64_t b = r.begin; b < r.end; b += options_.batch_rows) {
        ranges_.push_back({b, std::min<uint64_t>(r.end, b + options_.batch_rows)});
      }
    }
    if (!ranges_.empty()) return true;
  }
  return false;
}

Result<std::optional<format::Batch>> Scanner::ReadRange(Range r) {
  const size_t n = static_cast<size_t>(r.end - r.begin);
  ++metrics_.ranges_read;
  metrics_.rows_read += n;
  format::Batch file_batch = format::Batch::NoColumns(n);
  if (!read_ids_.empty()) {
    OG_ASSIGN_OR_RETURN(file_batch, reader_->Read(read_ids_, r.begin, r.end));
  }
  // Table-schema view of the fields we need (filter + projection), by id.
  OG_ASSIGN_OR_RETURN(format::Batch data, FromFileBatch(file_batch, needed_, n, reader_->key()));

  std::vector<uint8_t> keep(n, 1);
  if (!deletion_->empty()) {
    for (size_t i = 0; i < n; ++i) keep[i] = deletion_->Contains(static_cast<uint32_t>(r.begin + i)) ? 0 : 1;
  }
  if (!filter_.predicate().is_true()) {
    OG_ASSIGN_OR_RETURN(std::vector<uint8_t> match, filter_.Evaluate(data));
    for (size_t i = 0; i < n; ++i) keep[i] &= match[i];
  }
  size_t kept = 0;
  for (uint8_t k : keep) kept += k;
  if (kept == 0) return std::optional<format::Batch>();
  const bool all = kept == n;

  std::vector<format::Column> cols;
  cols.reserve(output_schema_.num_fields());
  for (const Field& p : projection_) {
    const format::Column* c = data.ColumnById(p.id);
    cols.push_back(all ? *c : c->Filter(keep));
  }
  if (options_.with_row_address) {
    std::vector<uint64_t> addrs;
    addrs.reserve(kept);
    for (size_t i = 0; i < n; ++i) {
      if (keep[i]) addrs.push_back(MakeRowAddress(fragment_->id, static_cast<uint32_t>(r.begin + i)));
    }
    cols.push_back(format::Column::FromU64(std::move(addrs)));
  }
  if (cols.empty()) return std::optional<format::Batch>(format::Batch::NoColumns(kept));
  OG_ASSIGN_OR_RETURN(format::Batch out, format::Batch::Make(output_schema_, std::move(cols)));
  return std::optional<format::Batch>(std::move(out));
}

Result<std::optional<format::Batch>> Scanner::Next() {
  while (!done_) {
    if (ranges_.empty()) {
      auto more = StartNextFragment();
      if (!more.ok()) {
        done_ = true;
        return more.status();
      }
      if (!*more) {
        done_ = true;
        break;
      }
    }
    Range r = ranges_.front();
    ranges_.pop_front();
    auto b = ReadRange(r);
    if (!b.ok()) {
      done_ = true;
      return b.status();
    }
    if (b->has_value()) return b;
  }
  return std::optional<format::Batch>();
}

}  // namespace omnigraph::table
