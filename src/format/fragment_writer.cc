#include "format/fragment_writer.h"

#include <algorithm>

#include "common/error_codes.h"
#include "common/hash.h"
#include "format/byte_io.h"
#include "format/column_internal.h"
#include "format/fragment_format.h"
#include "format/page_checksum.h"
#include "format/page_codec.h"

namespace omnigraph::format {

using internal::ByteWriter;
using internal::Phys;
using internal::PhysOf;

namespace {

// Raw (unencoded) bytes of row i, for page cutting.
size_t RowBytes(const Column& c, Phys p, size_t fixed, size_t i) {
  if (p == Phys::kBytes) {
    auto off = c.offsets();
    return 4 + (off[i + 1] - off[i]);
  }
  if (p == Phys::kList) {
    auto off = c.offsets();
    const Column& e = c.list_elements();
    size_t n = off[i + 1] - off[i];
    size_t w = internal::FixedWidth(e.type());
    if (w != 0) return 4 + n * w;
    auto eo = e.offsets();
    return 4 + 4 * n + (eo[off[i + 1]] - eo[off[i]]);
  }
  return fixed;
}

// Row counts of consecutive pages covering the column.
Result<std::vector<uint32_t>> CutPages(const Column& c, const FragmentWriterOptions& o) {
  std::vector<uint32_t> pages;
  Phys p = PhysOf(c.type().kind);
  size_t fixed = internal::FixedWidth(c.type());
  size_t target = std::max<size_t>(o.target_page_bytes, 1);
  uint32_t max_rows = std::clamp<uint32_t>(o.max_page_rows, 1, kMaxPageRows);
  if (fixed != 0) {
    size_t per = std::max<size_t>(1, std::min<size_t>(max_rows, (target + fixed - 1) / fixed));
    for (size_t r = 0; r < c.length(); r += per) {
      pages.push_back(static_cast<uint32_t>(std::min(per, c.length() - r)));
    }
    return pages;
  }
  size_t acc = 0;
  uint64_t elems = 0;
  uint32_t rows = 0;
  for (size_t i = 0; i < c.length(); ++i) {
    uint64_t n = p == Phys::kList ? c.offsets()[i + 1] - c.offsets()[i] : 0;
    if (n > kMaxListElementsPerPage) {
      return InvalidArgumentError("row " + std::to_string(i) + " holds a list of " + std::to_string(n) +
                                  " elements; the limit is " + std::to_string(kMaxListElementsPerPage));
    }
    if (rows > 0 && elems + n > kMaxListElementsPerPage) {
      pages.push_back(rows);
      acc = elems = rows = 0;
    }
    acc += RowBytes(c, p, fixed, i);
    elems += n;
    ++rows;
    if (acc >= target || rows == max_rows) {
      pages.push_back(rows);
      acc = elems = rows = 0;
    }
  }
  if (rows) pages.push_back(rows);
  return pages;
}

}  // namespace

FragmentWriter::FragmentWriter(Schema schema, FragmentWriterOptions options)
    : schema_(std::move(schema)), options_(std::move(options)), pending_(schema_.num_fields()) {}

Status FragmentWriter::Append(const Batch& batch) {
  if (finished_) return InvalidArgumentError("FragmentWriter::Append after Finish");
  if (!(batch.schema() == schema_)) {
    return InvalidArgumentError("batch schema " + batch.schema().ToString() + " differs from the fragment schema " +
                                schema_.ToString());
  }
  if (batch.num_rows() > kMaxFragmentRows - num_rows_) {
    return InvalidArgumentError("a fragment holds at most " + std::to_string(kMaxFragmentRows) + " rows");
  }
  if (batch.num_rows() == 0) return Status::Ok();
  for (size_t c = 0; c < batch.num_columns(); ++c) pending_[c].push_back(batch.column(c));
  num_rows_ += batch.num_rows();
  return Status::Ok();
}

// Footer bytes per page at most: 8 fixed fields (63 bytes), the stats flags and two stat values
// of at most 4 + kMaxStatBytes each (fragment_metadata.cc, Serialize).
constexpr size_t kFooterBytesPerPage = 64 + 2 * (4 + ColumnStats::kMaxStatBytes);

Result<std::string> FragmentWriter::Finish(FragmentInfo* info) {
  std::string out;
  OG_RETURN_IF_ERROR(Encode(&out, nullptr, info));
  return out;
}

Result<FragmentInfo> FragmentWriter::WriteTo(io::ObjectStore& store, std::string_view key) {
  // Streamed: pages are encoded into one reused buffer handed to the store every few MB, so a
  // large fragment never needs a file-sized allocation (whose fresh pages cost more than the
  // encoding itself) and the store can write while we encode.
  OG_ASSIGN_OR_RETURN(std::unique_ptr<io::ObjectWriter> writer, store.NewWriter(key));
  FragmentInfo info;
  std::string buf;
  OG_RETURN_IF_ERROR(Encode(&buf, writer.get(), &info));
  OG_RETURN_IF_ERROR(writer->Commit());
  return info;
}

Status FragmentWriter::Encode(std::string* buf, io::ObjectWriter* sink, FragmentInfo* info) {
  if (finished_) return InvalidArgumentError("FragmentWriter::Finish called twice");
  finished_ = true;
  const uint16_t version = options_.format_version;
  if (version < kOldestFragmentFormatVersion || version > kFragmentFormatVersion) {
    return InvalidArgumentError("cannot write fragment format version " + std::to_string(version));
  }
  constexpr size_t kFlushBytes = size_t{8} << 20;
  // Cut every column into pages first, so that an in-memory file buffer is allocated once at (an
  // upper bound of) its final size: growing it by doubling would touch and copy every byte about
  // twice more. Pages are views of the appended columns: a page does not span two of them, so the
  // rows are not copied into one column first; only runs of short columns (under kJoinRows rows,
  // which would make short pages) are joined.
  constexpr size_t kJoinRows = 4096;
  std::vector<std::vector<Column>> pages(schema_.num_fields());
  size_t bound = kHeaderSize + kTrailerSize + 16 + 12 * schema_.num_fields();
  for (size_t c = 0; c < schema_.num_fields(); ++c) {
    std::vector<Column> parts, run;
    size_t run_rows = 0;
    auto end_run = [&]() -> Status {
      if (run.empty()) return Status::Ok();
      OG_ASSIGN_OR_RETURN(Column joined, Column::Concat(run));
      parts.push_back(std::move(joined));
      run.clear();
      run_rows = 0;
      return Status::Ok();
    };
    for (Column& part : pending_[c]) {
      if (part.length() >= kJoinRows) {
        OG_RETURN_IF_ERROR(end_run());
        parts.push_back(std::move(part));
        continue;
      }
      run_rows += part.length();
      run.push_back(std::move(part));
      if (run_rows >= kJoinRows) OG_RETURN_IF_ERROR(end_run());
    }
    OG_RETURN_IF_ERROR(end_run());
    pending_[c].clear();
    for (const Column& part : parts) {
      OG_ASSIGN_OR_RETURN(std::vector<uint32_t> cuts, CutPages(part, options_));
      uint64_t first = 0;
      for (uint32_t rows : cuts) {
        pages[c].push_back(part.Slice(first, rows));
        first += rows;
      }
    }
    bound += 24 + schema_.field(c).name.size() + kFooterBytesPerPage * pages[c].size();
    for (const Column& page : pages[c]) {
      const size_t body = internal::EncodedBodyBound(page);
      bound += body + internal::ChunkChecksumsLength(body, version);
    }
  }
  std::string& out = *buf;
  out.clear();
  out.reserve(sink == nullptr ? bound : 2 * kFlushBytes);
  // (Not when compressing: the bound is of the raw pages and could be many times the file.)
  if (sink != nullptr && options_.compression == Compression::kNone) sink->SizeHint(bound);
  uint64_t emitted = 0;  // bytes already handed to the sink (file offset of out[0])
  auto flush = [&](bool last) -> Status {
    if (sink == nullptr || (!last && out.size() < kFlushBytes)) return Status::Ok();
    OG_RETURN_IF_ERROR(sink->Append(out));
    emitted += out.size();
    out.clear();
    return Status::Ok();
  };
  ByteWriter w(&out);
  w.Bytes(std::string_view(kFragmentMagic, 4));
  w.U16(version);
  w.U16(0);
  w.U64(0);
  FragmentMetadata meta;
  meta.schema = schema_;
  meta.num_rows = num_rows_;
  meta.columns.resize(schema_.num_fields());
  internal::EncodeOptions eopt{options_.allow_encodings, options_.force_encoding, version};
  const bool compress = options_.compression != Compression::kNone;
  std::string raw, packed, sums;
  for (size_t c = 0; c < schema_.num_fields(); ++c) {
    ColumnChunkInfo& chunk = meta.columns[c];
    chunk.pages.reserve(pages[c].size());
    uint64_t first = 0;
    for (const Column& slice : pages[c]) {
      const auto rows = static_cast<uint32_t>(slice.length());
      PageInfo p;
      const size_t at = out.size();
      p.offset = emitted + at;
      if (!compress) {
        // Encoded straight into the output buffer: no intermediate page copy.
        p.encoding = internal::EncodeColumnBody(slice, eopt, &out);
        p.raw_length = out.size() - at;
        p.stored_length = p.raw_length;
      } else {
        raw.clear();
        p.encoding = internal::EncodeColumnBody(slice, eopt, &raw);
        p.raw_length = raw.size();
        std::string_view stored = raw;
        if (internal::CompressPage(options_.compression, options_.zstd_level, raw, &packed)) {
          p.compression = options_.compression;
          stored = packed;
        }
        p.stored_length = stored.size();
        out.append(stored);
      }
      if (version >= internal::kFirstChunkedVersion) {
        // The chunk checksums follow the page; the footer's checksum covers them.
        sums.clear();
        p.checksum = internal::AppendChunkChecksums(std::string_view(out).substr(at), &sums);
        p.checksums_length = sums.size();
        out.append(sums);
      } else {
        p.checksum = XxHash64(std::string_view(out).substr(at));
      }
      p.first_row = first;
      p.row_count = rows;
      p.stats = ComputeColumnStats(slice);
      chunk.stats.Merge(p.stats);
      chunk.pages.push_back(std::move(p));
      first += rows;
      OG_RETURN_IF_ERROR(flush(false));
    }
  }
  std::string footer = meta.Serialize();
  uint64_t footer_len = footer.size();
  out.append(footer);
  std::string covered = std::move(footer);
  std::string tail_fields;
  ByteWriter tw(&tail_fields);
  tw.U64(footer_len);
  tw.U16(version);
  tw.U16(0);
  tw.Bytes(std::string_view(kFragmentMagic, 4));
  covered.append(tail_fields);
  uint64_t checksum = XxHash64(covered);
  w.U64(footer_len);
  w.U64(checksum);
  w.Bytes(std::string_view(tail_fields).substr(8));
  const uint64_t file_size = emitted + out.size();
  OG_RETURN_IF_ERROR(flush(true));
  if (info != nullptr) {
    info->num_rows = num_rows_;
    info->file_size = file_size;
    info->tail_size = footer_len + kTrailerSize;
    info->field_ids = schema_.field_ids();
    info->stats.clear();
    for (const auto& chunk : meta.columns) info->stats.push_back(chunk.stats);
  }
  return Status::Ok();
}

Result<FragmentInfo> WriteFragment(io::ObjectStore& store, std::string_view key, const Batch& batch,
                                   const FragmentWriterOptions& options) {
  FragmentWriter w(batch.schema(), options);
  OG_RETURN_IF_ERROR(w.Append(batch));
  return w.WriteTo(store, key);
}

}  // namespace omnigraph::format
