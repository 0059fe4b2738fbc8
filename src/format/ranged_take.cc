#include "format/ranged_take.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "common/error_codes.h"
#include "common/hash.h"
#include "common/little_endian.h"
#include "common/thread_pool.h"
#include "format/byte_io.h"
#include "format/column_internal.h"
#include "format/page_checksum.h"
#include "format/page_codec.h"
#include "format/range_fetch.h"

namespace omnigraph::format::internal {

namespace {

// How a page body locates one row (docs/format/fragment.md "Row-granular reads").
enum class Layout : uint8_t { kFixed, kBitPacked, kPlainBytes, kDictionary };

std::optional<Layout> LayoutOf(Encoding e, Phys p) {
  switch (e) {
    case Encoding::kPlain:
      if (p == Phys::kList || p == Phys::kVector) return std::nullopt;
      return p == Phys::kBytes ? Layout::kPlainBytes : Layout::kFixed;
    case Encoding::kFixedSize: return p == Phys::kVector ? std::optional(Layout::kFixed) : std::nullopt;
    case Encoding::kBitPacked:
      if (p == Phys::kBytes || p == Phys::kList || p == Phys::kVector || p == Phys::kF32 || p == Phys::kF64) {
        return std::nullopt;
      }
      return Layout::kBitPacked;
    case Encoding::kDictionary: return p == Phys::kBytes ? std::optional(Layout::kDictionary) : std::nullopt;
    default: return std::nullopt;
  }
}

// One page on its way through the rounds. Body offsets are relative to the page start. Every byte
// it decodes comes from a chunk whose checksum was verified (docs/format/fragment.md "Page
// checksums"): wanted byte ranges are rounded out to whole chunks, round 1 also fetches the chunk
// checksums (checked against the footer), and a chunk is used only after it matched its entry.
class PageRead {
 public:
  PageRead(const RangedPage& req, const PageInfo& info, const Field& field)
      : req_(req),
        info_(info),
        field_(field),
        phys_(PhysOf(field.type.kind)),
        layout_(*LayoutOf(info.encoding, phys_)),
        d_(std::make_shared<ColumnData>()) {
    d_->type = field.type;
    d_->rows = req.rows.size();
  }

  bool done() const { return done_; }
  const std::vector<Range>& ranges() const { return ranges_; }

  // Whether the page takes part in the next round: neither finished nor failed, and the bytes it
  // fetches (this round's ranges as coalesced, plus earlier rounds') stay within the density
  // limit. A page over it fails, so it is read whole.
  bool Admit(const RangedTakeOptions& options) {
    if (failed_ || done_) return false;
    uint64_t bytes = fetched_;
    for (const Range& r : Coalesce(ranges_, options.coalesce_gap)) bytes += r.length;
    if (static_cast<double>(bytes) > options.max_byte_fraction * static_cast<double>(info_.raw_length)) {
      Fail();
      return false;
    }
    fetched_ = bytes;
    return true;
  }
  Column TakeColumn() const { return ColumnAccess::Make(d_); }

  // Verifies the chunks fetched this round (round 1: first the chunk checksums against the
  // footer). A mismatch fails the page, so it is read whole, which reports the corruption.
  void Accept(const Fetched& f) {
    ranges_.clear();
    if (sums_.empty()) {
      sums_ = f.View(info_.offset + info_.stored_length, info_.checksums_length);
      if (XxHash64(sums_) != info_.checksum) return Fail();
    }
    for (auto& [chunk, bytes] : chunks_) {
      if (!bytes.empty()) continue;
      std::string_view got = f.View(info_.offset + chunk * kChecksumChunkBytes, ChunkLength(chunk));
      if (!ChunkMatches(sums_, chunk, got)) return Fail();
      bytes = got;
    }
  }

  // Round 1: the flags byte, the validity bits of the rows, the encoding byte and its fixed
  // header; for fixed-width values the values, for plain strings their offsets; the chunk
  // checksums of the page.
  void PlanHead() {
    const uint64_t n = info_.row_count;
    // Every page of a version-2 file has chunk checksums; without them nothing can be verified.
    if (info_.checksums_length != 4 * ChunkCount(info_.stored_length)) return Fail();
    ranges_.push_back({info_.offset + info_.stored_length, info_.checksums_length});
    // The writer stores a validity bitmap exactly when the page has nulls; any other layout is
    // read whole.
    has_validity_ = info_.stats.null_count > 0;
    enc_at_ = 1 + (has_validity_ ? (n + 7) / 8 : 0);
    payload_ = enc_at_ + 1;
    Want(0, 1);
    if (has_validity_) {
      for (uint32_t r : req_.rows) Want(1 + r / 8, 1);
    }
    uint64_t header = layout_ == Layout::kBitPacked ? 9 : layout_ == Layout::kDictionary ? 4 : 0;
    Want(enc_at_, 1 + header);
    if (layout_ == Layout::kFixed) {
      const uint64_t w = FixedWidth(field_.type);
      if (payload_ + n * w != info_.raw_length) return Fail();
      for (uint32_t r : req_.rows) Want(payload_ + r * w, w);
    } else if (layout_ == Layout::kPlainBytes) {
      for (uint32_t r : req_.rows) Want(payload_ + 4 * (r == 0 ? 0 : r - 1), r == 0 ? 4 : 8);
      Want(payload_ + 4 * (n - 1), 4);  // the last end offset: the length of the bytes
    }
  }

  void ReadHead() {
    if (failed_) return;
    if (Body(0, 1)[0] != (has_validity_ ? 1 : 0)) return Fail();
    if (static_cast<uint8_t>(Body(enc_at_, 1)[0]) != static_cast<uint8_t>(info_.encoding)) {
      return Fail();
    }
    ReadValidity();
    if (failed_) return;
    switch (layout_) {
      case Layout::kFixed: return ReadFixed();
      case Layout::kBitPacked: {
        std::string_view h = Body(payload_, 9);
        std::memcpy(&base_, h.data(), 8);
        width_ = static_cast<uint8_t>(h[8]);
        packed_at_ = payload_ + 9;
        if (width_ > 64 || packed_at_ + PackedBytes(info_.row_count, width_) != info_.raw_length) {
          return Fail();
        }
        return WantPacked();
      }
      case Layout::kPlainBytes: return PlanBytes();
      case Layout::kDictionary: return PlanDictionary();
    }
  }

  // Round 2: bit-packed values, string bytes, or the dictionary and the indices.
  void ReadBody() {
    if (failed_) return;
    switch (layout_) {
      case Layout::kBitPacked: {
        std::vector<uint64_t> raw(req_.rows.size());
        for (size_t i = 0; i < raw.size(); ++i) raw[i] = base_ + Packed(req_.rows[i]);
        if (!StoreIntegerImages(std::move(raw), d_.get()).ok()) return Fail();
        done_ = true;
        return;
      }
      case Layout::kPlainBytes: {
        d_->offsets.assign(spans_.size() + 1, 0);
        for (size_t i = 0; i < spans_.size(); ++i) {
          auto [begin, end] = spans_[i];
          d_->bytes.append(Body(bytes_at_ + begin, end - begin));
          d_->offsets[i + 1] = d_->bytes.size();
        }
        done_ = true;
        return;
      }
      case Layout::kDictionary: return ReadDictionary();
      case Layout::kFixed: OG_UNREACHABLE();
    }
  }

 private:
  void Fail() { failed_ = true; }

  uint64_t ChunkLength(uint64_t chunk) const {
    return std::min(kChecksumChunkBytes, info_.stored_length - chunk * kChecksumChunkBytes);
  }

  // Wants page bytes [at, at + length): the chunks holding them that are not fetched yet are
  // this round's ranges.
  void Want(uint64_t at, uint64_t length) {
    if (length == 0 || failed_) return;
    if (at > info_.raw_length || length > info_.raw_length - at) return Fail();
    for (uint64_t c = at / kChecksumChunkBytes; c <= (at + length - 1) / kChecksumChunkBytes; ++c) {
      if (chunks_.emplace(c, std::string_view()).second) {
        ranges_.push_back({info_.offset + c * kChecksumChunkBytes, ChunkLength(c)});
      }
    }
  }

  // Page bytes [at, at + length) from verified chunks. Precondition: wanted in an earlier round.
  std::string_view Body(uint64_t at, uint64_t length) {
    if (length == 0) return {};  // never requested, so possibly not fetched
    const uint64_t first = at / kChecksumChunkBytes;
    const uint64_t last = (at + length - 1) / kChecksumChunkBytes;
    auto chunk = [&](uint64_t c) {
      auto it = chunks_.find(c);
      OG_CHECK(it != chunks_.end() && !it->second.empty());
      return it->second;
    };
    if (first == last) return chunk(first).substr(at - first * kChecksumChunkBytes, length);
    std::string& joined = joined_.emplace_back();  // spans chunks: copied once
    joined.reserve(length);
    for (uint64_t c = first; c <= last; ++c) joined.append(chunk(c));
    return std::string_view(joined).substr(at - first * kChecksumChunkBytes, length);
  }

  // The bytes holding packed value `r` (bit-packed values and dictionary indices).
  void WantPacked() {
    if (width_ == 0) return;
    for (uint32_t r : req_.rows) {
      uint64_t bit = uint64_t{r} * width_;
      Want(packed_at_ + bit / 8, ((bit & 7) + width_ + 7) / 8);
    }
  }
  uint64_t Packed(uint32_t r) {
    if (width_ == 0) return 0;
    uint64_t bit = uint64_t{r} * width_;
    std::string_view s = Body(packed_at_ + bit / 8, ((bit & 7) + width_ + 7) / 8);
    return LoadBits(s, static_cast<unsigned>(bit & 7), width_);
  }

  bool IsNull(size_t i) const { return !d_->validity.empty() && !GetBit(d_->validity.data(), i); }

  void ReadValidity() {
    if (!has_validity_) return;
    const size_t k = req_.rows.size();
    std::vector<uint8_t> bits((k + 7) / 8, 0);
    bool any_null = false;
    for (size_t i = 0; i < k; ++i) {
      uint32_t r = req_.rows[i];
      if ((static_cast<uint8_t>(Body(1 + r / 8, 1)[0]) >> (r & 7)) & 1) {
        SetBit(bits.data(), i);
      } else {
        any_null = true;
      }
    }
    if (any_null && !field_.nullable) return Fail();
    if (any_null) d_->validity = std::move(bits);
  }

  void ReadFixed() {
    const size_t w = FixedWidth(field_.type);
    std::string values;
    values.reserve(req_.rows.size() * w);
    for (uint32_t r : req_.rows) values.append(Body(payload_ + uint64_t{r} * w, w));
    if (phys_ == Phys::kF32 || phys_ == Phys::kF64 || phys_ == Phys::kVector) {
      StoreFloats(values, d_.get());
    } else {
      std::vector<uint64_t> raw(req_.rows.size());
      for (size_t i = 0; i < raw.size(); ++i) {
        raw[i] = PlainIntegerImage(values.data() + i * w, w, phys_ == Phys::kI32);
      }
      if (!StoreIntegerImages(std::move(raw), d_.get()).ok()) return Fail();
    }
    done_ = true;
  }

  // Plain strings (version 2): row r's bytes are [end[r-1], end[r]) of the bytes after the
  // rows x u32 end offsets; the last end offset is the length of those bytes.
  void PlanBytes() {
    const uint64_t n = info_.row_count;
    const uint64_t last = LoadLe32(Body(payload_ + 4 * (n - 1), 4), 0);
    bytes_at_ = payload_ + 4 * n;
    if (bytes_at_ + last != info_.raw_length) return Fail();
    spans_.reserve(req_.rows.size());
    for (size_t i = 0; i < req_.rows.size(); ++i) {
      uint32_t r = req_.rows[i];
      uint32_t begin = r == 0 ? 0 : LoadLe32(Body(payload_ + 4 * uint64_t{r - 1}, 4), 0);
      uint32_t end = LoadLe32(Body(payload_ + 4 * uint64_t{r}, 4), 0);
      if (begin > end || end > last || (IsNull(i) && begin != end)) return Fail();
      spans_.emplace_back(begin, end);
      Want(bytes_at_ + begin, end - begin);
    }
  }

  // Dictionary strings: u32 count, count x u32 length, the entries, u8 width, the packed indices.
  // The width is taken to be the writer's (the fewest bits for count - 1), which places every part;
  // round 2 checks it and the entry lengths against the page.
  void PlanDictionary() {
    const uint64_t n = info_.row_count;
    dict_count_ = LoadLe32(Body(payload_, 4), 0);
    if (dict_count_ == 0) return Fail();
    width_ = BitWidth(dict_count_ - 1);
    dict_at_ = payload_ + 4;
    uint64_t fixed = dict_at_ + 4 * uint64_t{dict_count_} + 1 + PackedBytes(n, width_);
    if (fixed > info_.raw_length) return Fail();
    dict_bytes_ = info_.raw_length - fixed;
    dict_len_ = 4 * uint64_t{dict_count_} + dict_bytes_ + 1;  // lengths, entries, width
    Want(dict_at_, dict_len_);
    packed_at_ = dict_at_ + dict_len_;
    WantPacked();
  }

  void ReadDictionary() {
    std::string_view dict = Body(dict_at_, dict_len_);
    if (static_cast<uint8_t>(dict.back()) != width_) return Fail();
    const uint64_t count = dict_count_;
    std::vector<uint64_t> starts(count + 1, 0);
    for (uint64_t e = 0; e < count; ++e) starts[e + 1] = starts[e] + LoadLe32(dict.substr(4 * e, 4), 0);
    if (starts[count] != dict_bytes_) return Fail();
    std::string_view entries = dict.substr(4 * count, dict_bytes_);
    d_->offsets.assign(req_.rows.size() + 1, 0);
    for (size_t i = 0; i < req_.rows.size(); ++i) {
      uint64_t idx = Packed(req_.rows[i]);
      if (IsNull(i) ? idx != 0 : idx >= count) return Fail();
      if (!IsNull(i)) d_->bytes.append(entries.substr(starts[idx], starts[idx + 1] - starts[idx]));
      d_->offsets[i + 1] = d_->bytes.size();
    }
    done_ = true;
  }

  const RangedPage& req_;
  const PageInfo& info_;
  const Field& field_;
  const Phys phys_;
  const Layout layout_;
  std::shared_ptr<ColumnData> d_;  // the requested rows, being built
  bool failed_ = false;
  bool done_ = false;
  uint64_t fetched_ = 0;       // bytes fetched in earlier rounds, for the density check
  std::vector<Range> ranges_;  // this round's ranges
  // The page's chunk checksums (verified against the footer) and its wanted chunks: index ->
  // verified bytes (empty until fetched and verified). Views into the rounds' Fetched bytes.
  std::string_view sums_;
  std::map<uint64_t, std::string_view> chunks_;
  std::deque<std::string> joined_;  // byte ranges that span chunks, copied together
  bool has_validity_ = false;
  uint64_t enc_at_ = 0;   // the encoding byte
  uint64_t payload_ = 0;  // what follows it
  // Bit-packed values and dictionary indices.
  uint64_t base_ = 0;
  uint8_t width_ = 0;
  uint64_t packed_at_ = 0;
  // Plain strings: where their bytes start, and each requested row's [begin, end) in them.
  uint64_t bytes_at_ = 0;
  std::vector<std::pair<uint32_t, uint32_t>> spans_;
  // Dictionary: entry count, where the lengths start, entry bytes, lengths + entries + width.
  uint32_t dict_count_ = 0;
  uint64_t dict_at_ = 0;
  uint64_t dict_bytes_ = 0;
  uint64_t dict_len_ = 0;
};

}  // namespace

Status MapRangeError(Status s, std::string_view key) {
  if (!s.ok() && s.code() == ErrorCode::kRangeOutOfBounds) {
    return CorruptError("fragment " + std::string(key) + " is shorter than expected: " + s.message());
  }
  return s;
}

bool WantRanged(const PageInfo& page, const DataType& type, uint16_t version, size_t rows,
                const RangedTakeOptions& options) {
  if (!options.enabled || page.compression != Compression::kNone || page.stored_length != page.raw_length ||
      page.stored_length < options.min_page_bytes ||
      static_cast<double>(rows) > options.max_row_fraction * page.row_count) {
    return false;
  }
  // Version-1 pages have no chunk checksums, so a partial read could not be verified.
  return version >= kFirstChunkedVersion && LayoutOf(page.encoding, PhysOf(type.kind)).has_value();
}

Result<std::vector<std::optional<Column>>> ReadRanged(io::ObjectStore& store, const std::string& key,
                                                      const FragmentMetadata& meta, std::span<const RangedPage> pages,
                                                      const RangedTakeOptions& options) {
  std::vector<PageRead> reads;
  reads.reserve(pages.size());
  for (const RangedPage& rp : pages) {
    reads.emplace_back(rp, meta.columns[rp.col].pages[rp.page], meta.schema.field(rp.col));
    reads.back().PlanHead();
  }
  // The bytes of both rounds stay alive: pages use chunks fetched in round 1 again in round 2.
  Fetched rounds[2];
  for (int round = 0; round < 2; ++round) {
    std::vector<size_t> active;
    std::vector<Range> ranges;
    for (size_t i = 0; i < reads.size(); ++i) {
      if (!reads[i].Admit(options)) continue;
      active.push_back(i);
      ranges.insert(ranges.end(), reads[i].ranges().begin(), reads[i].ranges().end());
    }
    if (active.empty()) break;
    OG_ASSIGN_OR_RETURN(rounds[round], Fetched::Fetch(store, key, std::move(ranges), options.coalesce_gap));
    for (size_t i : active) {
      reads[i].Accept(rounds[round]);
      if (round == 0) {
        reads[i].ReadHead();
      } else {
        reads[i].ReadBody();
      }
    }
  }
  std::vector<std::optional<Column>> out(reads.size());
  for (size_t i = 0; i < reads.size(); ++i) {
    if (reads[i].done()) out[i] = reads[i].TakeColumn();
  }
  return out;
}

}  // namespace omnigraph::format::internal
