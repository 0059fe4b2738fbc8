// Graph commits (docs/architecture.md, "Commits, ref logs and the write protocol"): an immutable
// object naming, for every node and edge type, the table and table version visible in the commit,
// plus schema id, parents, branch, actor, timestamp, operation and per-type change counts. A commit
// *is* a graph snapshot.
// Commit is a value (thread-compatible); the functions are stateless and thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "io/object_store.h"
#include "omnigraph/records.h"
#include "omnigraph/result.h"

namespace omnigraph::engine {

// One enum and one set of counts for the whole project (omnigraph/records.h).
using omnigraph::ChangeCounts;
using omnigraph::EntityKind;
using omnigraph::EntityKindName;

struct TableRef {
  EntityKind kind = EntityKind::kNode;
  std::string table_id;    // ULID; survives renames
  std::string version_id;  // the table version visible in this commit
  bool operator==(const TableRef&) const = default;
};

struct Commit {
  static constexpr int kFormatVersion = 1;

  std::string id;                    // ULID
  std::vector<std::string> parents;  // none for genesis; two for a merge (first = target)
  std::string branch;                // the branch it was authored on
  std::optional<std::string> actor;
  int64_t timestamp_us = 0;
  std::string operation;  // "init", "load:append", "mutation", "merge", ...
  std::string schema_id;
  std::map<std::string, TableRef> tables;       // by type name
  std::map<std::string, ChangeCounts> summary;  // by type name; types without changes omitted
  std::string message;

  Json ToJson() const;
  static Result<Commit> FromJson(const Json& j);  // Corrupt on malformed input
  bool operator==(const Commit&) const = default;
};

// The operation of a compaction commit (engine/maintain): the same entities under new row
// addresses. Such a commit has no entity changes; the change listing and the feed skip its diff.
inline constexpr std::string_view kOptimizeOperation = "optimize";
inline bool IsPhysicalOnly(const Commit& commit) { return commit.operation == kOptimizeOperation; }

// The commit as the public API hands it out; `version` is the ref entry that moved a branch to it.
CommitInfo ToCommitInfo(const Commit& commit, std::optional<uint64_t> version = std::nullopt);

// The stored bytes of a commit object (docs/format/commits_and_refs.md): canonical JSON with a
// checksum (sealed_json.h).
std::string EncodeCommit(const Commit& commit);
// Corrupt (naming the key) for damaged bytes — a checksum mismatch, non-canonical bytes of a
// checksummed object, a malformed object — or a stored id that differs from `commit_id`. A legacy
// object (written before checksums) is read as before.
Result<Commit> DecodeCommit(std::string_view bytes, std::string_view commit_id);

// Writes the commit object with PutIfAbsent (commit ids are unique; an existing one is an error).
Status WriteCommit(io::ObjectStore& store, const Commit& commit);
// NotFound if absent (the caller knows whether something named it: then it is corrupt); otherwise
// as DecodeCommit.
Result<Commit> ReadCommit(io::ObjectStore& store, std::string_view commit_id);

}  // namespace omnigraph::engine
