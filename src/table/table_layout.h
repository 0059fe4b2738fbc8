// Object keys inside one table's prefix (docs/architecture.md,
// "Tables, fragments, manifests, versions"; docs/format/table.md "Layout"). Every key a manifest
// stores is relative to the table prefix, so a table can be addressed under any root. Only
// src/table/ knows this layout.
#pragma once

#include <string>
#include <string_view>

namespace omnigraph::table {

inline constexpr std::string_view kVersionsDir = "versions/";
inline constexpr std::string_view kDataDir = "data/";
inline constexpr std::string_view kDeletionDir = "del/";
inline constexpr std::string_view kBlobDir = "blob/";
inline constexpr std::string_view kIndexDir = "idx/";

// "versions/<version_id>".
std::string VersionKey(std::string_view version_id);
// "data/<ulid>.ogf", "del/<ulid>.del", "blob/<ulid>.blob" with a fresh ULID each call.
std::string NewDataKey();
std::string NewDeletionKey();
std::string NewBlobKey();
// "idx/<ulid>/" (a fresh segment folder; files of one segment live under it).
std::string NewIndexDir();
// "idx/<ulid>.<suffix>" with a fresh ULID: a one-object segment as a file of idx/ itself (no
// folder to create, and on local disk no folder to make durable, per write).
std::string NewIndexKey(std::string_view suffix);

// Absolute store key of a table-relative key: JoinKey(prefix, relative).
std::string AbsoluteKey(std::string_view table_prefix, std::string_view relative);

// True iff `relative` is a key this layout could have produced (one of the folders above, no
// "..", no leading '/'). Manifests naming anything else are corrupt.
bool IsValidRelativeKey(std::string_view relative);

}  // namespace omnigraph::table
