// The object-store interface (docs/architecture.md, "The object store"): every byte Omnigraph
// persists goes through it. Keys are '/'-separated relative paths (no leading '/', no empty, '.' or
// '..' segments, no segment starting with ".og-"; at most 1,024 bytes). Objects are immutable blobs
// of bytes, except that Put atomically replaces. Implementations are thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/result.h"

namespace omnigraph::io {

struct ObjectMeta {
  std::string key;
  uint64_t size = 0;
  bool operator==(const ObjectMeta&) const = default;
};

// Writes one new object in pieces (docs/architecture.md, "The object store"; for objects too large
// to assemble in memory first): nothing is visible until Commit, which has PutIfAbsent's semantics
// (atomic create; AlreadyExists if the key exists). Destroying an uncommitted writer discards it.
// Not thread-safe; one writer per object.
class ObjectWriter {
 public:
  virtual ~ObjectWriter() = default;
  virtual Status Append(std::string_view bytes) = 0;
  // An upper bound of the final size, if the caller knows one; a buffering writer reserves it
  // (address space only) instead of growing by doubling.
  virtual void SizeHint(uint64_t /*bytes*/) {}
  virtual Status Commit() = 0;
  virtual uint64_t size() const = 0;  // bytes appended so far
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // The whole object. NotFound if absent.
  virtual Result<std::string> Get(std::string_view key) = 0;
  // Bytes [offset, offset + length). NotFound if absent; `range_out_of_bounds` (InvalidArgument)
  // if offset + length > size. A zero-length range inside the object (offset <= size) is empty.
  virtual Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) = 0;
  // Size of the object. NotFound if absent.
  virtual Result<ObjectMeta> Head(std::string_view key) = 0;
  // Every key that starts with `prefix` (plain string prefix: "a/b" matches "a/bc"; pass "a/b/" for
  // a folder) and sorts after `start_after`, in lexicographic byte order. The default pages through
  // ListPage; backends that can list in one pass override it.
  virtual Result<std::vector<ObjectMeta>> List(std::string_view prefix, std::string_view start_after = "");
  // Atomic replace: a concurrent reader sees the old object or the whole new one.
  virtual Status Put(std::string_view key, std::string_view data) = 0;
  // Put of an object the caller can lose without harm, because it is only a hint re-derivable from
  // durable objects (a branch's HEAD hint), so it must carry its own check: a store may skip making
  // it durable (LocalStore: no fsync), so after a crash it may be old, missing or damaged, and may
  // write it in place (LocalStore), so a reader racing the write may see it damaged too. Once the
  // call returns, readers see exactly `data`. The default is Put.
  virtual Status PutVolatile(std::string_view key, std::string_view data) { return Put(key, data); }
  // Atomic create: of N concurrent callers (threads or processes) exactly one succeeds; the others
  // get AlreadyExists and the object is the winner's bytes.
  virtual Status PutIfAbsent(std::string_view key, std::string_view data) = 0;
  // PutIfAbsent of bytes the caller gives away: a store that keeps them (staging) takes them
  // without a copy. The default forwards to PutIfAbsent.
  virtual Status PutIfAbsentMoved(std::string_view key, std::string data) { return PutIfAbsent(key, data); }
  // PutIfAbsent of an object nothing durable refers to yet (the objects of a commit before its ref
  // entry): the same atomic create, but a store may defer making it durable until SyncObjects
  // returns for its key (LocalStore: no fsync of the file or its folder here), so that one sync
  // round covers all the objects of a write. A process crash loses nothing either way; a power
  // loss may lose or damage an object not yet synced, which is harmless while nothing names it.
  // The default is PutIfAbsent (durable on return).
  virtual Status PutIfAbsentUnsynced(std::string_view key, std::string_view data) { return PutIfAbsent(key, data); }
  // Makes the objects at `keys` (put by PutIfAbsentUnsynced, or already durable) durable; the
  // syncs run concurrently. The default does nothing: its puts are durable on return.
  virtual Status SyncObjects(const std::vector<std::string>& keys) {
    (void)keys;
    return Status::Ok();
  }
  // A writer for a new object at `key` (InvalidArgument for a bad key). The default buffers the
  // bytes and calls PutIfAbsent on Commit, so wrappers (fault injection, staging, latency) see one
  // request; backends that can stream (LocalStore: a temp file written as bytes arrive) override it.
  virtual Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key);
  // Idempotent: deleting an absent key is ok.
  virtual Status Delete(std::string_view key) = 0;
  // Deletes every key starting with `prefix` (plain string prefix, as List). Non-empty prefix.
  virtual Status DeletePrefix(std::string_view prefix);

  // e.g. "file:///data/g.omni", "memory://t1".
  virtual std::string Describe() const = 0;
  // Whether a small ranged read costs about what a local read does (a local file, memory): the
  // engine then reads a few rows by point instead of whole objects. Stores where every request
  // is a network round trip answer false (the default).
  virtual bool cheap_ranged_reads() const { return false; }
  // True when creating an object costs far more than reading a small one (a local file system: an
  // inode, folder entries, fsyncs), so that a small write may leave its index entries to be read
  // from its fragment instead of writing segment objects (table_writer.cc). False by default
  // (remote stores: both are a round trip; memory: both are cheap).
  virtual bool prefers_fewer_objects() const { return false; }

  // One page of List: at most `max_keys` keys > start_after with the prefix, in order.
  virtual Result<std::vector<ObjectMeta>> ListPage(std::string_view prefix, std::string_view start_after,
                                                   size_t max_keys) = 0;
  static constexpr size_t kListPageSize = 1000;
};

// InvalidArgument unless `key` follows the key rules above.
Status ValidateKey(std::string_view key);
// Keys under a prefix "p/" are p/ + relative; JoinKey("a", "b") == "a/b" ("" + x == x).
std::string JoinKey(std::string_view a, std::string_view b);

}  // namespace omnigraph::io
