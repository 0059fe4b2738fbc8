// Writes one immutable fragment file (.ogf, docs/format/fragment.md): rows appended as Batches are
// cut into pages per column, each page encoded (plain / dictionary / bit-packed / RLE / fixed-size),
// optionally compressed, checksummed, and described in a footer with statistics.
// docs/architecture.md, "Tables, fragments, manifests, versions". The caller chooses the (ULID)
// key; objects are created with PutIfAbsent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/batch.h"
#include "format/fragment_metadata.h"
#include "format/schema.h"
#include "io/object_store.h"
#include "omnigraph/result.h"

namespace omnigraph::format {

struct FragmentWriterOptions {
  // A page is cut when its raw (unencoded) size reaches target_page_bytes or it holds
  // max_page_rows rows (clamped to 1..2^20), whichever comes first (a single huge value still
  // makes a page of 1 row). A page holds at most 2^26 list elements; a longer single list is an
  // InvalidArgument from Finish.
  size_t target_page_bytes = size_t{1} << 20;
  uint32_t max_page_rows = 65536;
  // Applied per page; a page whose compressed form is not smaller is stored uncompressed.
  Compression compression = Compression::kNone;
  int zstd_level = 3;
  // When false, every page uses kPlain (kFixedSize for vectors, kList for lists): for tests and
  // for measuring encodings.
  bool allow_encodings = true;
  // Test hook: forces this top-level encoding wherever it applies to the column's type (dictionary:
  // String/Blob; bit-packed, RLE: integers, Date, DateTime, Bool); elsewhere the normal choice.
  std::optional<Encoding> force_encoding;
  // Test hook: the format version to write (kOldestFragmentFormatVersion..kFragmentFormatVersion),
  // so tests can check that readers keep reading older files. InvalidArgument otherwise.
  uint16_t format_version = kFragmentFormatVersion;
};

// What the table layer records in its manifest about a written fragment.
struct FragmentInfo {
  uint64_t num_rows = 0;
  uint64_t file_size = 0;
  // Footer + trailer bytes: pass as FragmentOpenOptions::tail_size_hint for a single-read open.
  uint64_t tail_size = 0;
  std::vector<FieldId> field_ids;  // schema order
  std::vector<ColumnStats> stats;  // parallel to field_ids
};

// Not thread-safe. Memory: holds the appended rows until Finish / WriteTo; WriteTo streams the
// encoded file to the store instead of building it in memory.
class FragmentWriter {
 public:
  // Precondition: schema fields are valid (Schema::Make succeeded).
  explicit FragmentWriter(Schema schema, FragmentWriterOptions options = {});

  const Schema& schema() const { return schema_; }
  uint64_t num_rows() const { return num_rows_; }

  // Appends all rows of `batch`. InvalidArgument if the batch's schema differs from the writer's
  // (same field ids, names, types and nullability, same order), or more than 2^32-1 rows in total.
  Status Append(const Batch& batch);

  // Encodes the whole file. The writer may not be used afterwards (FailedPrecondition-like
  // InvalidArgument on reuse). `info` (optional) receives the manifest summary.
  Result<std::string> Finish(FragmentInfo* info = nullptr);

  // Encodes the file straight into a new object (ObjectStore::NewWriter: nothing is visible until
  // the whole file is written; put-if-absent). AlreadyExists (from the store) if the key is taken.
  Result<FragmentInfo> WriteTo(io::ObjectStore& store, std::string_view key);

 private:
  // Encodes the file front to back into `*buf`; with a sink, hands buf's bytes to it every few MB
  // (between pages) and at the end, so buf stays small.
  Status Encode(std::string* buf, io::ObjectWriter* sink, FragmentInfo* info);

  Schema schema_;
  FragmentWriterOptions options_;
  std::vector<std::vector<Column>> pending_;  // per field: appended column pieces
  uint64_t num_rows_ = 0;
  bool finished_ = false;
};

// One-call helper: writes `batch` as a fragment at `key`.
Result<FragmentInfo> WriteFragment(io::ObjectStore& store, std::string_view key, const Batch& batch,
                                   const FragmentWriterOptions& options = {});

}  // namespace omnigraph::format
