// The persisted form of TableOrdinals and Csr (adjacency.h) as derived objects of a graph root
// (docs/format/adjacency.md; keys: graph_layout.h OrdinalsKey / CsrKey): encode, decode (every
// length and value checked before use, xxhash64 over the whole object), read and write. Loading is
// reading + verifying: the stored arrays are the in-memory ones, used in place (no copy, no
// hashing).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "engine/derived/adjacency.h"
#include "io/object_store.h"
#include "omnigraph/result.h"

namespace omnigraph::engine {

// What a CSR object must describe to be used with the given table versions: ordinals of exactly
// `num_src` / `num_dst` live rows and edge ordinals below `edge_rows` (the edge table's live rows).
struct CsrShape {
  uint64_t num_src = 0;
  uint64_t num_dst = 0;
  uint64_t edge_rows = 0;
  bool same_table = false;
};

// Stateless; thread-safe.
class AdjacencyCodec {
 public:
  static constexpr uint32_t kOrdinalsVersion = 1;
  static constexpr uint32_t kCsrVersion = 1;
  // Receives the bytes of an object in order (e.g. ObjectWriter::Append).
  using Sink = std::function<Status(std::string_view)>;

  // Streams the object to `sink` (no copy of the arrays). Returns the sink's first error.
  static Status EncodeOrdinals(const TableOrdinals& ordinals, const Sink& sink);
  // Takes the object's bytes and views the arrays in them (no copy). `corrupt` for damaged bytes, a
  // wrong length, a failed checksum or structure, or a row count other than `rows`;
  // `format_too_new` for a version above kOrdinalsVersion. Allocates nothing of a size the object
  // states.
  static Result<std::shared_ptr<const TableOrdinals>> DecodeOrdinals(std::string object, uint64_t rows);

  // Precondition: every edge ordinal of `csr` is below `edge_rows`.
  static Status EncodeCsr(const Csr& csr, uint64_t edge_rows, const Sink& sink);
  // As DecodeOrdinals; `corrupt` also when the object does not match `shape`.
  static Result<std::shared_ptr<const Csr>> DecodeCsr(std::string object, const CsrShape& shape);
};

// Reads the derived object at `key`: NotFound when absent; the store's other errors as they are;
// the decode errors above (naming the key).
Result<std::shared_ptr<const TableOrdinals>> ReadOrdinals(io::ObjectStore& store, const std::string& key,
                                                          uint64_t rows);
Result<std::shared_ptr<const Csr>> ReadCsr(io::ObjectStore& store, const std::string& key, const CsrShape& shape);

// Writes the derived object at `key` with put_if_absent semantics (streamed through
// ObjectStore::NewWriter). An object already there (a racing writer's: the same content) is
// success. `replace`: the object there was found damaged, so it is overwritten (ObjectStore::Put,
// an atomic replace; the content depends only on the key's versions, so any writer writes the
// same bytes). The store's errors as they are.
Status WriteOrdinals(io::ObjectStore& store, const std::string& key, const TableOrdinals& ordinals,
                     bool replace = false);
Status WriteCsr(io::ObjectStore& store, const std::string& key, const Csr& csr, uint64_t edge_rows,
                bool replace = false);

}  // namespace omnigraph::engine
