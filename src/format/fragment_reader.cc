#include "format/fragment_reader.h"

#include <algorithm>
#include <functional>

#include "common/error_codes.h"
#include "common/hash.h"
#include "format/byte_io.h"
#include "format/column_builder.h"
#include "format/fragment_format.h"
#include "format/page_checksum.h"
#include "format/page_codec.h"
#include "format/range_fetch.h"
#include "format/ranged_take.h"

namespace omnigraph::format {

using internal::MapRangeError;

Result<std::unique_ptr<FragmentReader>> FragmentReader::Open(io::ObjectStore& store, std::string key,
                                                             const FragmentOpenOptions& options) {
  auto bad = [&](const std::string& what) { return CorruptError("fragment " + key + ": " + what); };
  uint64_t size = 0;
  if (options.file_size) {
    size = *options.file_size;
  } else {
    OG_ASSIGN_OR_RETURN(io::ObjectMeta meta, store.Head(key));
    size = meta.size;
  }
  if (size < kHeaderSize + kTrailerSize) {
    return bad(std::to_string(size) + " bytes is too small for a fragment file");
  }
  uint64_t tail_len = std::min(size, std::max(options.tail_size_hint, kTrailerSize));
  auto tail_r = store.GetRange(key, size - tail_len, tail_len);
  if (!tail_r.ok()) return MapRangeError(tail_r.status(), key);
  std::string tail = std::move(*tail_r);
  if (tail.size() != tail_len) return bad("short read of the footer");
  std::string_view trailer = std::string_view(tail).substr(tail_len - kTrailerSize);
  internal::ByteReader tr(trailer);
  uint64_t footer_len = 0, checksum = 0;
  uint16_t version = 0, flags = 0;
  std::string_view magic;
  tr.U64(&footer_len);
  tr.U64(&checksum);
  tr.U16(&version);
  tr.U16(&flags);
  tr.Take(4, &magic);
  if (magic != std::string_view(kFragmentMagic, 4)) return bad("bad trailer magic");
  if (footer_len > size - kHeaderSize - kTrailerSize) return bad("footer length out of range");
  uint64_t need = footer_len + kTrailerSize;
  if (need > tail_len) {
    auto more = store.GetRange(key, size - need, need - tail_len);
    if (!more.ok()) return MapRangeError(more.status(), key);
    if (more->size() != need - tail_len) return bad("short read of the footer");
    tail = std::move(*more) + tail;
    tail_len = need;
  }
  std::string covered = tail.substr(tail_len - need, footer_len);
  std::string_view tl = std::string_view(tail).substr(tail_len - kTrailerSize);
  covered.append(tl.substr(0, 8));
  covered.append(tl.substr(16, 8));
  if (XxHash64(covered) != checksum) return bad("footer checksum mismatch");
  if (version > kFragmentFormatVersion) {
    return Status(ErrorCode::kFormatTooNew, "fragment " + key + " has format version " + std::to_string(version) +
                                                "; this build reads " + std::to_string(kOldestFragmentFormatVersion) +
                                                ".." + std::to_string(kFragmentFormatVersion));
  }
  if (version < kOldestFragmentFormatVersion) {
    return bad("unknown format version " + std::to_string(version));
  }
  if (flags != 0) return bad("unknown trailer flags");
  covered.resize(footer_len);
  OG_ASSIGN_OR_RETURN(FragmentMetadata meta, FragmentMetadata::Parse(covered, size - need, version, key));
  return std::unique_ptr<FragmentReader>(
      new FragmentReader(store, std::move(key), size, version, std::move(meta), options));
}

FragmentReader::FragmentReader(io::ObjectStore& store, std::string key, uint64_t file_size, uint16_t version,
                               FragmentMetadata metadata, const FragmentOpenOptions& options)
    : store_(store),
      key_(std::move(key)),
      file_size_(file_size),
      version_(version),
      metadata_(std::move(metadata)),
      ranged_take_(options.ranged_take),
      page_coalesce_gap_(options.page_coalesce_gap),
      last_page_(metadata_.columns.size()) {}

Result<Column> FragmentReader::DecodePage(size_t col, size_t page, std::string_view bytes) const {
  const Field& f = metadata_.schema.field(col);
  const PageInfo& p = metadata_.columns[col].pages[page];
  auto ctx = [&](const Status& s) {
    return CorruptError("fragment " + key_ + " column '" + f.name + "' (field " + std::to_string(f.id) + ") page " +
                        std::to_string(page) + ": " + s.message());
  };
  if (bytes.size() != p.stored_length + p.checksums_length) return ctx(CorruptError("short page"));
  std::string_view stored = bytes.substr(0, p.stored_length);
  Status checked = internal::VerifyPageChecksums(stored, bytes.substr(p.stored_length), p.checksum, version_);
  if (!checked.ok()) return ctx(checked);
  std::string decompressed;
  std::string_view body = stored;  // uncompressed pages are decoded in place
  if (p.compression != Compression::kNone) {
    auto raw = internal::DecompressPage(p.compression, stored, p.raw_length);
    if (!raw.ok()) return ctx(raw.status());
    decompressed = std::move(*raw);
    body = decompressed;
  } else if (stored.size() != p.raw_length) {
    return ctx(CorruptError("uncompressed page length mismatch"));
  }
  auto c = internal::DecodeColumnBody(body, f.type, p.row_count, version_);
  if (!c.ok()) return ctx(c.status());
  if (c->null_count() != p.stats.null_count) return ctx(CorruptError("null count mismatch"));
  if (!f.nullable && c->has_nulls()) return ctx(CorruptError("nulls in a non-nullable column"));
  return c;
}

Result<std::vector<std::vector<Column>>> FragmentReader::LoadColumnPages(std::span<const ColumnPages> wanted) const {
  std::vector<std::vector<Column>> out(wanted.size());
  // (wanted index, position in its pages) of every page not in the last-page cache.
  std::vector<std::pair<size_t, size_t>> missing;
  {
    MutexLock lock(&cache_mu_);
    for (size_t w = 0; w < wanted.size(); ++w) {
      out[w].resize(wanted[w].pages.size());
      const CachedPage& cached = last_page_[wanted[w].col];
      for (size_t i = 0; i < wanted[w].pages.size(); ++i) {
        if (wanted[w].pages[i] == cached.page) {
          out[w][i] = cached.column;
        } else {
          missing.emplace_back(w, i);
        }
      }
    }
  }
  if (missing.empty()) return out;
  auto info = [&](const std::pair<size_t, size_t>& m) -> const PageInfo& {
    const ColumnPages& cp = wanted[m.first];
    return metadata_.columns[cp.col].pages[cp.pages[m.second]];
  };
  // One round: every missing page's bytes (and chunk checksums), coalesced, in parallel.
  std::vector<internal::Range> ranges;
  ranges.reserve(missing.size());
  for (const auto& m : missing) ranges.push_back({info(m).offset, info(m).file_end() - info(m).offset});
  OG_ASSIGN_OR_RETURN(internal::Fetched fetched,
                      internal::Fetched::Fetch(store_, key_, std::move(ranges), page_coalesce_gap_));
  for (const auto& m : missing) {
    const PageInfo& p = info(m);
    OG_ASSIGN_OR_RETURN(out[m.first][m.second], DecodePage(wanted[m.first].col, wanted[m.first].pages[m.second],
                                                           fetched.View(p.offset, p.file_end() - p.offset)));
  }
  MutexLock lock(&cache_mu_);
  for (size_t w = 0; w < wanted.size(); ++w) {
    if (wanted[w].pages.empty()) continue;
    last_page_[wanted[w].col] = CachedPage{wanted[w].pages.back(), out[w].back()};
  }
  return out;
}

Result<std::vector<Column>> FragmentReader::LoadPages(size_t col, const std::vector<size_t>& pages) const {
  ColumnPages one{col, pages};
  OG_ASSIGN_OR_RETURN(std::vector<std::vector<Column>> got, LoadColumnPages(std::span<const ColumnPages>(&one, 1)));
  return std::move(got.front());
}

Result<Column> FragmentReader::ReadPages(size_t col, size_t first_page, size_t end_page) const {
  if (col >= metadata_.columns.size()) return InvalidArgumentError("column index out of range");
  const ColumnChunkInfo& chunk = metadata_.columns[col];
  if (first_page >= end_page || end_page > chunk.pages.size()) {
    return InvalidArgumentError("page span [" + std::to_string(first_page) + ", " + std::to_string(end_page) +
                                ") is empty or out of range");
  }
  std::vector<size_t> pages;
  for (size_t p = first_page; p < end_page; ++p) pages.push_back(p);
  OG_ASSIGN_OR_RETURN(std::vector<Column> cols, LoadPages(col, pages));
  return Column::Concat(cols);
}

Result<Batch> FragmentReader::Read(std::span<const FieldId> ids, uint64_t begin_row, uint64_t end_row) const {
  if (begin_row > end_row || end_row > num_rows()) {
    return InvalidArgumentError("row range [" + std::to_string(begin_row) + ", " + std::to_string(end_row) +
                                ") is outside fragment " + key_ + " of " + std::to_string(num_rows()) + " rows");
  }
  OG_ASSIGN_OR_RETURN(Schema out_schema, metadata_.schema.Select(ids));
  if (ids.empty()) return Batch::NoColumns(end_row - begin_row);
  std::vector<Column> cols;
  cols.reserve(ids.size());
  if (begin_row == end_row) {
    for (FieldId id : ids) cols.emplace_back(metadata_.schema.field(*ColumnIndex(id)).type);
    return Batch::Make(std::move(out_schema), std::move(cols));
  }
  // The pages of every column overlapping the rows, fetched in one round.
  std::vector<ColumnPages> wanted;
  wanted.reserve(ids.size());
  for (FieldId id : ids) {
    ColumnPages cp{*ColumnIndex(id), {}};
    size_t first = metadata_.PageForRow(cp.col, begin_row);
    size_t last = metadata_.PageForRow(cp.col, end_row - 1);
    for (size_t p = first; p <= last; ++p) cp.pages.push_back(p);
    wanted.push_back(std::move(cp));
  }
  OG_ASSIGN_OR_RETURN(std::vector<std::vector<Column>> pages, LoadColumnPages(wanted));
  for (size_t i = 0; i < wanted.size(); ++i) {
    OG_ASSIGN_OR_RETURN(Column col, Column::Concat(pages[i]));
    uint64_t base = metadata_.columns[wanted[i].col].pages[wanted[i].pages.front()].first_row;
    cols.push_back(col.Slice(begin_row - base, end_row - begin_row));
  }
  return Batch::Make(std::move(out_schema), std::move(cols));
}

Result<Batch> FragmentReader::ReadAll(std::span<const FieldId> ids) const { return Read(ids, 0, num_rows()); }

bool FragmentReader::IsCached(size_t col, size_t page) const {
  MutexLock lock(&cache_mu_);
  return last_page_[col].page == page;
}

// The pages of one column holding rows of a Take, ascending; ranged_at[k] indexes the ranged
// read of pages[k] (SIZE_MAX: the page is read whole).
struct FragmentReader::TakePlan {
  size_t col = 0;
  std::vector<size_t> pages;
  std::vector<size_t> ranged_at;
};

FragmentReader::TakePlan FragmentReader::PlanTake(size_t col, std::span<const uint64_t> sorted,
                                                  std::vector<internal::RangedPage>* ranged) const {
  TakePlan plan;
  plan.col = col;
  const ColumnChunkInfo& chunk = metadata_.columns[col];
  const DataType& type = metadata_.schema.field(col).type;
  for (size_t i = 0; i < sorted.size();) {
    size_t page = metadata_.PageForRow(col, sorted[i]);
    const PageInfo& p = chunk.pages[page];
    size_t j = i;
    while (j < sorted.size() && sorted[j] < p.end_row()) ++j;
    plan.pages.push_back(page);
    plan.ranged_at.push_back(SIZE_MAX);
    if (internal::WantRanged(p, type, version_, j - i, ranged_take_) && !IsCached(col, page)) {
      internal::RangedPage rp{col, page, {}};
      for (size_t k = i; k < j; ++k) {
        rp.rows.push_back(static_cast<uint32_t>(sorted[k] - p.first_row));
      }
      plan.ranged_at.back() = ranged->size();
      ranged->push_back(std::move(rp));
    }
    i = j;
  }
  return plan;
}

bool FragmentReader::IsRanged(const TakePlan& plan, size_t k, std::span<const std::optional<Column>> partial) {
  return plan.ranged_at[k] != SIZE_MAX && partial[plan.ranged_at[k]].has_value();
}

Result<Column> FragmentReader::AssembleTake(const TakePlan& plan, std::span<const uint64_t> rows,
                                            std::span<const internal::RangedPage> ranged,
                                            std::span<const std::optional<Column>> partial, const ColumnPages& whole,
                                            std::span<const Column> decoded) const {
  auto is_ranged = [&](size_t k) { return IsRanged(plan, k, partial); };
  const ColumnChunkInfo& chunk = metadata_.columns[plan.col];
  auto starts_after = [&](uint64_t row, size_t page) { return row < chunk.pages[page].first_row; };
  ColumnBuilder b(metadata_.schema.field(plan.col).type);
  b.Reserve(rows.size());
  for (uint64_t r : rows) {
    auto it = std::upper_bound(plan.pages.begin(), plan.pages.end(), r, starts_after);
    const size_t k = static_cast<size_t>(it - plan.pages.begin()) - 1;
    const uint64_t in_page = r - chunk.pages[plan.pages[k]].first_row;
    if (is_ranged(k)) {
      const std::vector<uint32_t>& got = ranged[plan.ranged_at[k]].rows;
      auto at = std::lower_bound(got.begin(), got.end(), in_page) - got.begin();
      OG_RETURN_IF_ERROR(b.AppendColumn(*partial[plan.ranged_at[k]], static_cast<size_t>(at), 1));
    } else {
      auto w = std::lower_bound(whole.pages.begin(), whole.pages.end(), plan.pages[k]) - whole.pages.begin();
      OG_RETURN_IF_ERROR(b.AppendColumn(decoded[static_cast<size_t>(w)], in_page, 1));
    }
  }
  return b.Finish();
}

Result<Batch> FragmentReader::Take(std::span<const FieldId> ids, std::span<const uint64_t> rows) const {
  for (uint64_t r : rows) {
    if (r >= num_rows()) {
      return InvalidArgumentError("row " + std::to_string(r) + " is outside fragment " + key_ + " of " +
                                  std::to_string(num_rows()) + " rows");
    }
  }
  OG_ASSIGN_OR_RETURN(Schema out_schema, metadata_.schema.Select(ids));
  std::vector<uint64_t> sorted(rows.begin(), rows.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  // Sparse rows of large pages are read row-granularly (the ranged reads of all columns share
  // their rounds), the other pages whole.
  std::vector<TakePlan> plans;
  std::vector<internal::RangedPage> ranged;
  for (FieldId id : ids) plans.push_back(PlanTake(*ColumnIndex(id), sorted, &ranged));
  OG_ASSIGN_OR_RETURN(std::vector<std::optional<Column>> partial,
                      internal::ReadRanged(store_, key_, metadata_, ranged, ranged_take_));
  // Pages not read row-granularly (or whose ranged read fell back) are read whole, those of all
  // columns in one round.
  std::vector<ColumnPages> whole;
  whole.reserve(plans.size());
  for (const TakePlan& plan : plans) {
    ColumnPages cp{plan.col, {}};
    for (size_t k = 0; k < plan.pages.size(); ++k) {
      if (!IsRanged(plan, k, partial)) cp.pages.push_back(plan.pages[k]);
    }
    whole.push_back(std::move(cp));
  }
  OG_ASSIGN_OR_RETURN(std::vector<std::vector<Column>> decoded, LoadColumnPages(whole));
  std::vector<Column> cols;
  for (size_t i = 0; i < plans.size(); ++i) {
    OG_ASSIGN_OR_RETURN(Column c, AssembleTake(plans[i], rows, ranged, partial, whole[i], decoded[i]));
    cols.push_back(std::move(c));
  }
  if (cols.empty()) return Batch::NoColumns(rows.size());
  return Batch::Make(std::move(out_schema), std::move(cols));
}

Status FragmentReader::Verify() const {
  OG_ASSIGN_OR_RETURN(std::string bytes, store_.Get(key_));
  if (bytes.size() != file_size_) return CorruptError("fragment " + key_ + " changed size");
  std::string header;
  internal::ByteWriter hw(&header);
  hw.Bytes(std::string_view(kFragmentMagic, 4));
  hw.U16(version_);
  hw.U16(0);
  hw.U64(0);
  if (std::string_view(bytes).substr(0, kHeaderSize) != header) {
    return CorruptError("fragment " + key_ + ": bad header");
  }
  for (size_t c = 0; c < metadata_.columns.size(); ++c) {
    const auto& pages = metadata_.columns[c].pages;
    for (size_t p = 0; p < pages.size(); ++p) {
      OG_RETURN_IF_ERROR(
          DecodePage(c, p, std::string_view(bytes).substr(pages[p].offset, pages[p].file_end() - pages[p].offset))
              .status());
    }
  }
  return Status::Ok();
}

}  // namespace omnigraph::format
