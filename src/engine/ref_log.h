// Branch refs as ref logs (ARCHITECTURE.md §4): a branch is a sequence of immutable entries
// refs/<branch-hex>/<seq>, each created with PutIfAbsent; the head is the highest sequence number.
// Creating entry N+1 is the commit point of every write. A HEAD hint object speeds up head reads
// but is never trusted alone: a LIST after the hint confirms that nothing newer exists.
// Thread-safe (stateless apart from the store).
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
  bool operator==(const RefEntry&) const = default;
};

class RefLog {
 public:
  explicit RefLog(io::ObjectStore& store) : store_(&store) {}

  // The newest entry of `branch`, or nullopt if the branch never had one. A deleted branch returns
  // its delete entry. Cost with a current hint: one GET + one LIST.
  Result<std::optional<RefEntry>> ReadHead(std::string_view branch) const;
  // Like ReadHead, but only one LIST when the caller already knows entry `known` (warm path).
  Result<std::optional<RefEntry>> ReadHeadAfter(std::string_view branch, const RefEntry& known) const;

  // The commit point: creates entry `entry.seq` (which must be previous head + 1, or 1 for a new
  // branch). `read_set_conflict` (Conflict) if another writer created that entry first. Then
  // updates the HEAD hint, best effort (its failure is logged, never reported).
  // `update_hint` = false skips the hint (a branch create: readers list the folder anyway).
  Status Publish(std::string_view branch, const RefEntry& entry, bool update_hint = true) const;

  // Every entry of the branch, oldest first.
  Result<std::vector<RefEntry>> Entries(std::string_view branch) const;
  // Names of branches whose head entry is not a delete, sorted.
  Result<std::vector<std::string>> LiveBranches() const;

  static std::string Serialize(const RefEntry& e);
  static Result<RefEntry> Parse(std::string_view bytes, std::string_view key);

 private:
  Result<RefEntry> ReadEntry(std::string_view key) const;
  // Highest-seq entry among keys listed in `folder` after `start_after`; nullopt if none.
  Result<std::optional<uint64_t>> NewestSeqAfter(std::string_view branch,
                                                 std::string_view start_after) const;

  io::ObjectStore* store_;
};

}  // namespace omnigraph::engine
