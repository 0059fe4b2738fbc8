// Branch refs as ref logs (docs/architecture.md, "Commits, ref logs and the write protocol";
// docs/format/commits_and_refs.md): a branch is a sequence of immutable entries
// refs/<branch-hex>/<seq>, each created with PutIfAbsent; the head is the highest sequence number.
// Creating entry N+1 is the commit point of every write. Every entry is checksummed and names the
// digest of entry N (its predecessor), so a missing or replaced entry is `corrupt`, never read past
// or written over. A HEAD hint object speeds up head reads but is never trusted alone: the entry it
// names is read, and a request for the next one confirms that nothing newer exists. Thread-safe
// (stateless apart from the store).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/object_store.h"
#include "omnigraph/result.h"

namespace omnigraph::engine {

enum class RefOp { kCreate, kAdvance, kDelete };
std::string_view RefOpName(RefOp op);

struct RefEntry {
  uint64_t seq = 0;
  RefOp op = RefOp::kAdvance;
  std::string commit_id;    // empty for kDelete
  std::string incarnation;  // id of this incarnation of the branch (set by the create entry)
  std::optional<std::string> actor;
  int64_t time_us = 0;
  // The digest of entry seq - 1's stored bytes (set by Publish); empty for entry 1 and for legacy
  // entries (written before entries were linked).
  std::string prev;
  // Not stored: the digest of this entry's stored bytes (what entry seq + 1 names), set by Parse
  // and Publish; and whether the entry was written without a checksum (legacy).
  std::string digest;
  bool legacy = false;
  bool operator==(const RefEntry&) const = default;
};

class RefLog {
 public:
  explicit RefLog(io::ObjectStore& store) : store_(&store) {}

  // The newest entry of `branch`, or nullopt if the branch never had one. A deleted branch returns
  // its delete entry. Verifies that the entry exists (not only the hint) and is linked to its
  // predecessor: `corrupt` for a gap or a broken link. Cost with a current hint: one GET, then three
  // requests in parallel (the entry, its predecessor, a HEAD of the next).
  Result<std::optional<RefEntry>> ReadHead(std::string_view branch) const;
  // Like ReadHead, but only one HEAD request when the caller already knows entry `known` and
  // nothing newer exists (warm path); a newer head is verified as ReadHead does.
  Result<std::optional<RefEntry>> ReadHeadAfter(std::string_view branch, const RefEntry& known) const;

  // The commit point: creates entry `entry->seq`, which must be `after->seq + 1` (1 and no `after`
  // for a branch that never had an entry), linked to `after` (fills entry->prev, entry->digest).
  // `read_set_conflict` (Conflict) if another writer created that entry first. Then updates the
  // HEAD hint, best effort (its failure is logged, never reported). `update_hint` = false skips the
  // hint (a branch create: readers list the folder anyway).
  Status Publish(std::string_view branch, const RefEntry* after, RefEntry* entry, bool update_hint = true) const;

  // Entry `seq` of `branch` (one GET). NotFound if it does not exist (the caller knows whether a
  // newer entry makes that a gap).
  Result<RefEntry> ReadEntry(std::string_view branch, uint64_t seq) const;
  // Every entry of the branch from its floor (entry 1 without one), oldest first; `corrupt` for a
  // gap or a broken link.
  Result<std::vector<RefEntry>> Entries(std::string_view branch) const;

  // Truncation (cleanup): a floor object refs/<hex>/F<seq> declares that entries below `seq` are
  // history; readers ignore them, deleted or not, and start the log at the highest floor. Cleanup
  // writes the floor before deleting anything below it and never sets it above the head's
  // predecessor, so a head is always read with its link. Floors only rise (the highest wins).
  Result<uint64_t> Floor(std::string_view branch) const;  // 0: never truncated
  Status WriteFloor(std::string_view branch, uint64_t seq) const;
  // Names of branches whose head entry is not a delete, sorted. `corrupt` for a gap in any log.
  Result<std::vector<std::string>> LiveBranches() const;
  // Names of every branch that ever had an entry (deleted ones too), sorted. One LIST.
  Result<std::vector<std::string>> AllBranches() const;

  static std::string Serialize(const RefEntry& e);
  // Corrupt naming `key` for damaged bytes (checksum, canonical form, structure) or a sequence
  // number that differs from the key's.
  static Result<RefEntry> Parse(std::string_view bytes, std::string_view key);
  // Corrupt unless `e` is linked to `pred` (entry e.seq - 1, nullptr when it is missing). Legacy
  // entries carry no link: only the predecessor's existence is checked.
  static Status CheckLink(std::string_view branch, const RefEntry& e, const RefEntry* pred);

 private:
  // Entry `seq` and, when seq > 1 and `pred` is null, its predecessor, read in parallel, then
  // linked. NotFound if entry `seq` is missing; `corrupt` if its predecessor is.
  Result<RefEntry> ReadLinked(std::string_view branch, uint64_t seq, const RefEntry* pred) const;
  // The highest sequence number listed in the branch's folder after `start_after`; `corrupt` unless
  // the listed numbers are exactly first..highest (a gap). nullopt if none. A whole listing (empty
  // `start_after`) starts at the folder's floor instead of `first` when there is one, ignoring the
  // entries below it, and reports the floor through `floor_out`.
  Result<std::optional<uint64_t>> NewestSeqAfter(std::string_view branch, std::string_view start_after, uint64_t first,
                                                 uint64_t* floor_out = nullptr) const;

  io::ObjectStore* store_;
};

}  // namespace omnigraph::engine
