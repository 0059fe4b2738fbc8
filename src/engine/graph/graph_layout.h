// Object keys of a graph root (docs/architecture.md, "A graph root"). The only place that spells
// them; everything else asks here.
// Thread-safe: constants and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "omnigraph/status.h"

namespace omnigraph::engine {

inline constexpr std::string_view kFormatStampKey = "_omnigraph.json";
inline constexpr std::string_view kRefsPrefix = "refs/";
inline constexpr std::string_view kCommitsPrefix = "commits/";
inline constexpr std::string_view kSchemasPrefix = "schemas/";
inline constexpr std::string_view kTablesPrefix = "tables/";
inline constexpr std::string_view kAuditPrefix = "audit/";
// Derived objects (docs/format/adjacency.md): read-side structures computed from immutable table
// versions, keyed by those versions, so never stale; a missing one is rebuilt from the tables.
inline constexpr std::string_view kDerivedPrefix = "derived/";
inline constexpr std::string_view kMainBranch = "main";
inline constexpr size_t kMaxBranchNameBytes = 200;

// InvalidArgument unless `name` is 1..200 bytes of valid UTF-8 without control characters.
Status ValidateBranchName(std::string_view name);

std::string BranchHex(std::string_view branch);
// Inverse of BranchHex; nullopt for malformed hex.
std::optional<std::string> BranchFromHex(std::string_view hex);

std::string RefFolder(std::string_view branch);                  // refs/<hex>/
std::string RefEntryKey(std::string_view branch, uint64_t seq);  // refs/<hex>/<seq:020d>
std::string RefHeadHintKey(std::string_view branch);             // refs/<hex>/HEAD
// refs/<hex>/F<seq:020d>: a cleanup truncated the log below entry `seq` (docs/format/commits_and_refs.md,
// "Truncation"). Readers take the highest floor of a folder and ignore every entry below it.
std::string RefFloorKey(std::string_view branch, uint64_t seq);
// The sequence number of a floor key's last segment; nullopt for anything else.
std::optional<uint64_t> ParseRefFloor(std::string_view key);
// Parses the sequence number of a ref entry key's last segment; nullopt for HEAD or junk.
std::optional<uint64_t> ParseRefSeq(std::string_view key);

std::string CommitKey(std::string_view commit_id);   // commits/<id>.json
std::string SchemaKey(std::string_view schema_id);   // schemas/<sha256>.json
std::string TablePrefix(std::string_view table_id);  // tables/<table_id>

// derived/<table prefix>/ordinals/<version_id>.ogord: the row ordinals of one table version.
std::string OrdinalsKey(std::string_view table_prefix, std::string_view version_id);
// derived/<edge table prefix>/csr/<edge version>-<src version>-<dst version>.ogcsr: the CSR
// adjacency of one edge table version over the ordinals of exactly those endpoint versions.
std::string CsrKey(std::string_view edge_table_prefix, std::string_view edge_version_id,
                   std::string_view src_version_id, std::string_view dst_version_id);

// Whether `key` may be kept in a local disk cache (io/disk_cache_store.h): the bytes never change
// once written and the object is reached only through an object read from the store (a table
// manifest names fragment files, deletion vectors, blobs and index segments; derived objects are
// keyed by table versions). Refs, commits, schemas, manifests and the format stamp are not.
bool IsDiskCacheableKey(std::string_view key);

}  // namespace omnigraph::engine
