// The derived-object codec of adjacency_store.h (docs/format/adjacency.md). Both objects are a
// fixed header, 8-byte aligned little-endian arrays and an xxhash64 trailer. A reader checks, in
// order: length >= header, magic, version, flags, counts against the table versions, the exact
// length the counts imply (so no allocation exceeds the object), the checksum, then every value
// that indexes memory (offsets, ordinals, hash slots) before the structure is handed out.
#include "engine/derived/adjacency_store.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>

#include "common/error_codes.h"
#include "common/hash.h"
#include "common/little_endian.h"
#include "common/thread_pool.h"

namespace omnigraph::engine {
namespace {

static_assert(std::endian::native == std::endian::little, "the derived-object codec assumes little-endian");

constexpr char kOrdinalsMagic[8] = {'O', 'G', 'A', 'D', 'J', 'O', 'R', 'D'};
constexpr char kCsrMagic[8] = {'O', 'G', 'A', 'D', 'J', 'C', 'S', 'R'};
// magic, u32 version, u32 flags, u64 rows n, u64 id bytes K, u64 slots S.
constexpr size_t kOrdinalsHeaderSize = 40;
// magic, u32 version, u32 flags, u64 sources, u64 destinations, u64 edges, u64 edge rows.
constexpr size_t kCsrHeaderSize = 48;
constexpr size_t kTrailerSize = 8;
constexpr uint32_t kSameTableFlag = 1;
// Ordinals and edge ordinals are u32 (and a hash slot holds ordinal + 1).
constexpr uint64_t kMaxCount = UINT32_MAX;

uint64_t Pad8(uint64_t n) { return (n + 7) & ~uint64_t{7}; }

// Hands an object's bytes to a sink in order, hashing them; Finish appends the checksum.
class Encoder {
 public:
  explicit Encoder(const AdjacencyCodec::Sink& sink) : sink_(sink) {}
  Status Bytes(std::string_view b) {
    if (b.empty()) return Status::Ok();
    hash_.Update(b);
    size_ += b.size();
    return sink_(b);
  }
  // The array, then zeros up to the next multiple of 8.
  template <class T>
  Status Array(std::span<const T> v) {
    OG_RETURN_IF_ERROR(Bytes(std::string_view(reinterpret_cast<const char*>(v.data()), v.size_bytes())));
    return Align();
  }
  Status Align() {
    static constexpr char kZeros[8] = {};
    return Bytes(std::string_view(kZeros, Pad8(size_) - size_));
  }
  Status Finish() {
    std::string trailer;
    AppendLe64(&trailer, hash_.Digest());
    return sink_(trailer);
  }

 private:
  const AdjacencyCodec::Sink& sink_;
  XxHash64Stream hash_;
  uint64_t size_ = 0;
};

// Advances `at` past an array of `count` elements of `size` bytes (and its padding).
uint64_t Skip(uint64_t at, uint64_t count, uint64_t size) { return Pad8(at + count * size); }

// Takes the object's bytes into `owner` and returns them 8-byte aligned in memory (heap allocations
// are; otherwise they are copied once to an aligned position).
std::string_view Adopt(std::string bytes, std::string* owner) {
  const size_t n = bytes.size();
  *owner = std::move(bytes);
  if (reinterpret_cast<uintptr_t>(owner->data()) % 8 == 0) return *owner;
  std::string copy(n + 8, '\0');
  const size_t shift = (8 - reinterpret_cast<uintptr_t>(copy.data()) % 8) % 8;
  std::memcpy(copy.data() + shift, owner->data(), n);
  *owner = std::move(copy);  // a heap buffer (n > 15): moving keeps its address
  return std::string_view(owner->data() + shift, n);
}

// The `count` elements at byte `at` of `b` in place. Preconditions: `b` is 8-byte aligned (Adopt),
// `at` a multiple of 8, and the range lies inside `b` (the caller checked the object's length
// against its counts). The bytes were only ever written as char, which may alias any type.
template <class T>
std::span<const T> View(std::string_view b, uint64_t at, uint64_t count) {
  return std::span<const T>(reinterpret_cast<const T*>(b.data() + at), count);
}

// Length, magic and version, shared by both objects.
Status CheckEnvelope(std::string_view bytes, const char (&magic)[8], size_t header_size, uint32_t max_version,
                     std::string_view what) {
  if (bytes.size() < header_size + kTrailerSize) {
    return CorruptError(std::string(what) + " object is truncated (" + std::to_string(bytes.size()) + " bytes)");
  }
  if (std::memcmp(bytes.data(), magic, 8) != 0) {
    return CorruptError(std::string(what) + " object has a bad magic");
  }
  const uint32_t version = LoadLe32(bytes, 8);
  if (version == 0) return CorruptError(std::string(what) + " object has version 0");
  if (version > max_version) {
    return Status(ErrorCode::kFormatTooNew,
                  std::string(what) + " object has format version " + std::to_string(version) + "; upgrade omnigraph");
  }
  return Status::Ok();
}

Status CheckLength(std::string_view bytes, uint64_t expected, std::string_view what) {
  if (bytes.size() == expected) return Status::Ok();
  return CorruptError(std::string(what) + " object is " + std::to_string(bytes.size()) + " bytes; its header implies " +
                      std::to_string(expected));
}

Status CheckSum(std::string_view bytes, std::string_view what) {
  const size_t body = bytes.size() - kTrailerSize;
  if (XxHash64(bytes.substr(0, body)) == LoadLe64(bytes, body)) return Status::Ok();
  return CorruptError(std::string(what) + " object checksum mismatch");
}

// Offsets of `count` lists over `total` entries: 0 first, non-decreasing, `total` last.
bool ValidOffsets(std::span<const uint64_t> off, uint64_t total) {
  if (off.empty() || off.front() != 0 || off.back() != total) return false;
  bool decreasing = false;
  for (size_t i = 1; i < off.size(); ++i) decreasing |= off[i] < off[i - 1];
  return !decreasing;
}

// Adjacency lists over valid offsets: neighbours below `num_nodes`, edges below `edge_rows`, each
// list ordered by (neighbour, edge). One branch-free pass over the entries (this runs over every
// entry of a load): a descent between consecutive entries is allowed only where a list starts.
bool ValidLists(std::span<const uint64_t> off, std::span<const uint32_t> nodes, std::span<const uint32_t> edges,
                uint64_t num_nodes, uint64_t edge_rows) {
  const size_t m = nodes.size();
  if (m == 0) return true;
  const uint32_t* nd = nodes.data();
  const uint32_t* ed = edges.data();
  uint32_t max_node = nd[0], max_edge = ed[0];
  uint64_t descents = 0, prev = uint64_t{nd[0]} << 32 | ed[0];
  for (size_t p = 1; p < m; ++p) {
    max_node = std::max(max_node, nd[p]);
    max_edge = std::max(max_edge, ed[p]);
    const uint64_t key = uint64_t{nd[p]} << 32 | ed[p];
    descents += key < prev;
    prev = key;
  }
  if (max_node >= num_nodes || max_edge >= edge_rows) return false;
  uint64_t at_starts = 0;
  for (size_t k = 0; k + 1 < off.size(); ++k) {
    const uint64_t a = off[k];
    if (a > 0 && a < off[k + 1]) {  // each non-empty list's first entry
      at_starts += (uint64_t{nd[a]} << 32 | ed[a]) < (uint64_t{nd[a - 1]} << 32 | ed[a - 1]);
    }
  }
  return descents == at_starts;
}

}  // namespace

Status AdjacencyCodec::EncodeOrdinals(const TableOrdinals& o, const Sink& sink) {
  if (o.appended()) return InternalError("an appended overlay of ordinals (TableOrdinals::Extend) is not persisted");
  const uint64_t n = o.addresses_.size();
  std::string header(kOrdinalsMagic, 8);
  AppendLe32(&header, kOrdinalsVersion);
  AppendLe32(&header, 0);
  AppendLe64(&header, n);
  AppendLe64(&header, o.id_bytes_.size());
  AppendLe64(&header, o.slots_.size());
  Encoder e(sink);
  OG_RETURN_IF_ERROR(e.Bytes(header));
  OG_RETURN_IF_ERROR(e.Array(std::span<const uint64_t>(o.id_offsets_)));
  OG_RETURN_IF_ERROR(e.Array(std::span<const uint64_t>(o.addresses_)));
  OG_RETURN_IF_ERROR(e.Array(std::span<const uint32_t>(o.by_address_)));
  OG_RETURN_IF_ERROR(e.Array(std::span<const uint64_t>(o.slots_)));
  OG_RETURN_IF_ERROR(e.Bytes(o.id_bytes_));
  OG_RETURN_IF_ERROR(e.Align());
  return e.Finish();
}

Result<std::shared_ptr<const TableOrdinals>> AdjacencyCodec::DecodeOrdinals(std::string object, uint64_t rows) {
  constexpr std::string_view kWhat = "ordinals";
  std::string_view bytes = object;
  OG_RETURN_IF_ERROR(CheckEnvelope(bytes, kOrdinalsMagic, kOrdinalsHeaderSize, kOrdinalsVersion, kWhat));
  if (LoadLe32(bytes, 12) != 0) return CorruptError("ordinals object has unknown flags");
  const uint64_t n = LoadLe64(bytes, 16), id_bytes = LoadLe64(bytes, 24), slots = LoadLe64(bytes, 32);
  if (n != rows) {
    return CorruptError("ordinals object holds " + std::to_string(n) + " rows; the table version has " +
                        std::to_string(rows));
  }
  if (n > kMaxCount || slots != TableOrdinals::SlotCount(n) || id_bytes > bytes.size()) {
    return CorruptError("ordinals object has inconsistent counts");
  }
  // n < 2^32, slots < 2^34 and id_bytes <= the object's size: no overflow.
  const uint64_t offsets_at = kOrdinalsHeaderSize, addresses_at = Skip(offsets_at, n + 1, 8);
  const uint64_t by_address_at = Skip(addresses_at, n, 8), slots_at = Skip(by_address_at, n, 4);
  const uint64_t ids_at = Skip(slots_at, slots, 8);
  OG_RETURN_IF_ERROR(CheckLength(bytes, Skip(ids_at, id_bytes, 1) + kTrailerSize, kWhat));

  auto o = std::make_shared<TableOrdinals>();
  bytes = Adopt(std::move(object), &o->loaded_);
  o->id_offsets_ = View<uint64_t>(bytes, offsets_at, n + 1);
  o->addresses_ = View<uint64_t>(bytes, addresses_at, n);
  o->by_address_ = View<uint32_t>(bytes, by_address_at, n);
  o->slots_ = View<uint64_t>(bytes, slots_at, slots);
  o->id_bytes_ = bytes.substr(ids_at, id_bytes);
  // The checksum and the structure, in parallel; the checksum's error first.
  Status s = ThreadPool::Default().ParallelFor(3, [&](size_t task) -> Status {
    if (task == 0) return CheckSum(bytes, kWhat);
    if (task == 1) {
      if (!ValidOffsets(o->id_offsets_, id_bytes)) {
        return CorruptError("ordinals object has bad id offsets");
      }
      // Strictly increasing addresses over n ordinals < n: a permutation sorted by address.
      const uint32_t* order = o->by_address_.data();
      const uint64_t* address = o->addresses_.data();
      uint32_t max_ordinal = 0;
      for (uint64_t i = 0; i < n; ++i) max_ordinal = std::max(max_ordinal, order[i]);
      if (n > 0 && max_ordinal >= n) {
        return CorruptError("ordinals object's address order names no row");
      }
      bool unsorted = false;
      for (uint64_t i = 1; i < n; ++i) unsorted |= address[order[i]] <= address[order[i - 1]];
      if (unsorted) return CorruptError("ordinals object's address order is not sorted");
      return Status::Ok();
    }
    uint64_t used = 0, bad = 0;
    for (uint64_t v : o->slots_) {
      const uint64_t ord1 = v & 0xffffffffu;
      used += v != 0;
      bad += v != 0 && (ord1 == 0 || ord1 > n);
    }
    if (bad != 0) return CorruptError("ordinals object has a hash slot out of range");
    // At most n used slots of 2n or more: every probe ends at an empty slot.
    if (used > n) return CorruptError("ordinals object has more hash slots than rows");
    return Status::Ok();
  });
  OG_RETURN_IF_ERROR(s);
  return std::shared_ptr<const TableOrdinals>(std::move(o));
}

Status AdjacencyCodec::EncodeCsr(const Csr& c, uint64_t edge_rows, const Sink& sink) {
  if (c.overlaid()) return InternalError("an overlay CSR (Csr::Extend) is not persisted; flatten it first");
  if (c.extra_src_ != 0 || c.extra_dst_ != 0) {
    return InternalError("a CSR extended by node inserts (Csr::ExtendNodes) is not persisted; materialize it first");
  }
  std::string header(kCsrMagic, 8);
  AppendLe32(&header, kCsrVersion);
  AppendLe32(&header, c.same_table_ ? kSameTableFlag : 0);
  AppendLe64(&header, c.num_src());
  AppendLe64(&header, c.num_dst());
  AppendLe64(&header, c.num_edges());
  AppendLe64(&header, edge_rows);
  Encoder e(sink);
  OG_RETURN_IF_ERROR(e.Bytes(header));
  OG_RETURN_IF_ERROR(e.Array(std::span<const uint64_t>(c.out_offsets_)));
  OG_RETURN_IF_ERROR(e.Array(std::span<const uint64_t>(c.in_offsets_)));
  for (const auto* v : {&c.out_nodes_, &c.out_edges_, &c.in_nodes_, &c.in_edges_}) {
    OG_RETURN_IF_ERROR(e.Array(std::span<const uint32_t>(*v)));
  }
  if (c.same_table_) OG_RETURN_IF_ERROR(e.Array(std::span<const uint64_t>(c.self_loop_)));
  return e.Finish();
}

Result<std::shared_ptr<const Csr>> AdjacencyCodec::DecodeCsr(std::string object, const CsrShape& shape) {
  constexpr std::string_view kWhat = "csr";
  std::string_view bytes = object;
  OG_RETURN_IF_ERROR(CheckEnvelope(bytes, kCsrMagic, kCsrHeaderSize, kCsrVersion, kWhat));
  const uint32_t flags = LoadLe32(bytes, 12);
  if ((flags & ~kSameTableFlag) != 0) return CorruptError("csr object has unknown flags");
  const bool same = (flags & kSameTableFlag) != 0;
  const uint64_t ns = LoadLe64(bytes, 16), nd = LoadLe64(bytes, 24), m = LoadLe64(bytes, 32),
                 rows = LoadLe64(bytes, 40);
  if (ns != shape.num_src || nd != shape.num_dst || rows != shape.edge_rows || same != shape.same_table) {
    return CorruptError("csr object does not match its table versions (" + std::to_string(ns) + " x " +
                        std::to_string(nd) + " nodes, " + std::to_string(rows) + " edge rows)");
  }
  if (ns > kMaxCount || nd > kMaxCount || rows > kMaxCount || m > rows || (same && ns != nd)) {
    return CorruptError("csr object has inconsistent counts");
  }
  const uint64_t words = same ? (ns + 63) / 64 : 0;
  // Every count < 2^32: no overflow.
  const uint64_t out_at = kCsrHeaderSize, in_at = Skip(out_at, ns + 1, 8), lists_at = Skip(in_at, nd + 1, 8);
  const uint64_t list_bytes = Skip(0, m, 4), loops_at = lists_at + 4 * list_bytes;
  OG_RETURN_IF_ERROR(CheckLength(bytes, Skip(loops_at, words, 8) + kTrailerSize, kWhat));

  auto c = std::make_shared<Csr>();
  c->same_table_ = same;
  c->edge_rows_ = rows;
  bytes = Adopt(std::move(object), &c->loaded_);
  c->out_offsets_ = View<uint64_t>(bytes, out_at, ns + 1);
  c->in_offsets_ = View<uint64_t>(bytes, in_at, nd + 1);
  c->out_nodes_ = View<uint32_t>(bytes, lists_at, m);
  c->out_edges_ = View<uint32_t>(bytes, lists_at + list_bytes, m);
  c->in_nodes_ = View<uint32_t>(bytes, lists_at + 2 * list_bytes, m);
  c->in_edges_ = View<uint32_t>(bytes, lists_at + 3 * list_bytes, m);
  c->self_loop_ = View<uint64_t>(bytes, loops_at, words);
  // The checksum and each direction's structure, in parallel; the checksum's error first.
  Status s = ThreadPool::Default().ParallelFor(3, [&](size_t task) -> Status {
    if (task == 0) return CheckSum(bytes, kWhat);
    const bool out = task == 1;
    const auto offsets = out ? c->out_offsets_ : c->in_offsets_;
    if (!ValidOffsets(offsets, m)) return CorruptError("csr object has bad list offsets");
    if (!ValidLists(offsets, out ? c->out_nodes_ : c->in_nodes_, out ? c->out_edges_ : c->in_edges_, out ? nd : ns,
                    rows)) {
      return CorruptError("csr object has an out-of-range or unordered adjacency list");
    }
    if (out && ns % 64 != 0 && words > 0 && (c->self_loop_.back() >> (ns % 64)) != 0) {
      return CorruptError("csr object has self-loop bits past its last node");
    }
    return Status::Ok();
  });
  OG_RETURN_IF_ERROR(s);
  return std::shared_ptr<const Csr>(std::move(c));
}

namespace {

Status WriteObject(io::ObjectStore& store, const std::string& key, bool replace,
                   const std::function<Status(const AdjacencyCodec::Sink&)>& encode) {
  if (replace) {  // rare (a damaged object): encoded whole, then one atomic replace
    std::string bytes;
    OG_RETURN_IF_ERROR(encode([&](std::string_view b) {
      bytes.append(b);
      return Status::Ok();
    }));
    return store.Put(key, bytes);
  }
  OG_ASSIGN_OR_RETURN(std::unique_ptr<io::ObjectWriter> w, store.NewWriter(key));
  OG_RETURN_IF_ERROR(encode([&](std::string_view b) { return w->Append(b); }));
  Status s = w->Commit();
  if (s.category() == StatusCode::kAlreadyExists) return Status::Ok();  // a racing writer: same bytes
  return s;
}

}  // namespace

Result<std::shared_ptr<const TableOrdinals>> ReadOrdinals(io::ObjectStore& store, const std::string& key,
                                                          uint64_t rows) {
  OG_ASSIGN_OR_RETURN(std::string bytes, store.Get(key));
  auto o = AdjacencyCodec::DecodeOrdinals(std::move(bytes), rows);
  if (!o.ok()) return o.status().WithContext(key);
  return o;
}

Result<std::shared_ptr<const Csr>> ReadCsr(io::ObjectStore& store, const std::string& key, const CsrShape& shape) {
  OG_ASSIGN_OR_RETURN(std::string bytes, store.Get(key));
  auto c = AdjacencyCodec::DecodeCsr(std::move(bytes), shape);
  if (!c.ok()) return c.status().WithContext(key);
  return c;
}

Status WriteOrdinals(io::ObjectStore& store, const std::string& key, const TableOrdinals& ordinals, bool replace) {
  return WriteObject(store, key, replace,
                     [&](const AdjacencyCodec::Sink& sink) { return AdjacencyCodec::EncodeOrdinals(ordinals, sink); });
}

Status WriteCsr(io::ObjectStore& store, const std::string& key, const Csr& csr, uint64_t edge_rows, bool replace) {
  return WriteObject(store, key, replace,
                     [&](const AdjacencyCodec::Sink& sink) { return AdjacencyCodec::EncodeCsr(csr, edge_rows, sink); });
}

}  // namespace omnigraph::engine
