#include "format/blob_file.h"

#include "common/check.h"
#include "common/error_codes.h"
#include "common/hash.h"
#include "format/byte_io.h"

namespace omnigraph::format {

namespace {
constexpr char kBlobMagic[4] = {'O', 'G', 'B', 'L'};
constexpr uint16_t kBlobVersion = 1;
constexpr uint64_t kBlobHeader = 8;    // magic, u16 version, u16 flags
constexpr uint64_t kBlobTrailer = 20;  // u64 count, u64 checksum, magic

uint64_t EntryChecksum(uint64_t length, std::string_view payload) {
  return XxHash64(payload, length);  // the length is the seed: both are covered
}

Status MapRange(Status s, const std::string& file) {
  if (!s.ok() && s.code() == ErrorCode::kRangeOutOfBounds) {
    return CorruptError("blob file " + file + ": descriptor beyond the end of the file");
  }
  return s;
}

// Checks one entry image [u64 length][payload][u64 checksum] against its descriptor.
Result<std::string> CheckEntry(std::string_view entry, const BlobDescriptor& d) {
  auto bad = [&](const std::string& what) {
    return CorruptError("blob file " + d.file + " at offset " + std::to_string(d.offset) + ": " + what);
  };
  if (entry.size() != d.length + 16) return bad("short read");
  internal::ByteReader r(entry);
  uint64_t len = 0, sum = 0;
  std::string_view payload;
  r.U64(&len);
  r.Take(d.length, &payload);
  r.U64(&sum);
  if (len != d.length) return bad("length mismatch");
  if (EntryChecksum(len, payload) != sum) return bad("checksum mismatch");
  return std::string(payload);
}

Status CheckDescriptor(const BlobDescriptor& d) {
  if (d.file.empty()) return InvalidArgumentError("blob descriptor without a file");
  if (d.offset < kBlobHeader + 8 || d.offset + d.length + 8 < d.offset) {
    return CorruptError("blob descriptor for " + d.file + " has an invalid offset");
  }
  return Status::Ok();
}
}  // namespace

BlobFileWriter::BlobFileWriter(std::string key) : key_(std::move(key)) {
  internal::ByteWriter w(&bytes_);
  w.Bytes(std::string_view(kBlobMagic, 4));
  w.U16(kBlobVersion);
  w.U16(0);
}

BlobDescriptor BlobFileWriter::Add(std::string_view payload) {
  internal::ByteWriter w(&bytes_);
  w.U64(payload.size());
  BlobDescriptor d{key_, bytes_.size(), payload.size()};
  w.Bytes(payload);
  w.U64(EntryChecksum(payload.size(), payload));
  ++count_;
  return d;
}

std::string BlobFileWriter::Finish() {
  std::string out = std::move(bytes_);
  internal::ByteWriter w(&out);
  w.U64(count_);
  w.U64(XxHash64(out));
  w.Bytes(std::string_view(kBlobMagic, 4));
  bytes_.clear();
  return out;
}

Status BlobFileWriter::WriteTo(io::ObjectStore& store) { return store.PutIfAbsent(key_, Finish()); }

Result<std::string> BlobFileReader::Read(io::ObjectStore& store, const BlobDescriptor& blob) {
  OG_RETURN_IF_ERROR(CheckDescriptor(blob));
  auto bytes = store.GetRange(blob.file, blob.offset - 8, blob.length + 16);
  if (!bytes.ok()) return MapRange(bytes.status(), blob.file);
  return CheckEntry(*bytes, blob);
}

Result<std::vector<std::string>> BlobFileReader::ReadMany(io::ObjectStore& store,
                                                          const std::vector<BlobDescriptor>& blobs) {
  std::vector<std::string> out;
  out.reserve(blobs.size());
  size_t i = 0;
  while (i < blobs.size()) {
    OG_RETURN_IF_ERROR(CheckDescriptor(blobs[i]));
    size_t j = i + 1;
    while (j < blobs.size() && blobs[j].file == blobs[i].file &&
           blobs[j].offset == blobs[j - 1].offset + blobs[j - 1].length + 16) {
      ++j;
    }
    uint64_t start = blobs[i].offset - 8;
    uint64_t end = blobs[j - 1].offset + blobs[j - 1].length + 8;
    auto bytes = store.GetRange(blobs[i].file, start, end - start);
    if (!bytes.ok()) return MapRange(bytes.status(), blobs[i].file);
    if (bytes->size() != end - start) return CorruptError("blob file " + blobs[i].file + ": short read");
    for (size_t k = i; k < j; ++k) {
      std::string_view entry = std::string_view(*bytes).substr(blobs[k].offset - 8 - start, blobs[k].length + 16);
      OG_ASSIGN_OR_RETURN(std::string payload, CheckEntry(entry, blobs[k]));
      out.push_back(std::move(payload));
    }
    i = j;
  }
  return out;
}

Status BlobFileReader::Verify(std::string_view bytes, std::string_view file) {
  auto bad = [&](const std::string& what) { return CorruptError("blob file " + std::string(file) + ": " + what); };
  if (bytes.size() < kBlobHeader + kBlobTrailer) return bad("file too short");
  if (bytes.substr(0, 4) != std::string_view(kBlobMagic, 4) ||
      bytes.substr(bytes.size() - 4) != std::string_view(kBlobMagic, 4)) {
    return bad("bad magic");
  }
  internal::ByteReader t(bytes.substr(bytes.size() - kBlobTrailer, 16));
  uint64_t count = 0, sum = 0;
  t.U64(&count);
  t.U64(&sum);
  if (XxHash64(bytes.substr(0, bytes.size() - 12)) != sum) return bad("checksum mismatch");
  internal::ByteReader r(bytes.substr(4, bytes.size() - 4 - kBlobTrailer));
  uint16_t version = 0, flags = 0;
  r.U16(&version);
  r.U16(&flags);
  if (version != kBlobVersion || flags != 0) return bad("unsupported version or flags");
  uint64_t seen = 0;
  while (r.remaining() > 0) {
    uint64_t len = 0, s = 0;
    std::string_view payload;
    if (!r.U64(&len) || len > r.remaining() || !r.Take(len, &payload) || !r.U64(&s)) {
      return bad("truncated entry " + std::to_string(seen));
    }
    if (EntryChecksum(len, payload) != s) return bad("checksum mismatch in entry " + std::to_string(seen));
    ++seen;
  }
  if (seen != count) return bad("entry count mismatch");
  return Status::Ok();
}

}  // namespace omnigraph::format
