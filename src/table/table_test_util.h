// Test-only helpers shared by the table layer's tests: schemas, batches from rows, scans to
// sorted rows. Not part of omnigraph_table.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "common/hash.h"
#include "format/batch.h"
#include "table/model_table.h"
#include "table/table_version.h"

namespace omnigraph::table::testing {

#define OG_ASSERT_OK(expr)                                                        \
  do {                                                                            \
    auto&& og_s_ = (expr);                                                        \
    ASSERT_TRUE(og_s_.ok()) << ::omnigraph::internal::ToStatus(og_s_).ToString(); \
  } while (0)

#define OG_ASSERT_OK_AND_ASSIGN(lhs, expr) OG_ASSERT_OK_AND_ASSIGN_IMPL_(OG_STATUS_CONCAT_(og_t_, __LINE__), lhs, expr)
#define OG_ASSERT_OK_AND_ASSIGN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  ASSERT_TRUE(tmp.ok()) << tmp.status().ToString();   \
  lhs = std::move(tmp).value()

// A version-1 segment, encoded here from docs/format/table.md independently of the reader:
// entries sorted by key bytes then address, varint key length, key, varint fragment, varint offset.
inline std::string EncodeV1(std::vector<std::pair<std::string, uint64_t>> entries, uint32_t version = 1) {
  std::sort(entries.begin(), entries.end());
  auto varint = [](std::string& out, uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  };
  auto u64 = [](std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); };
  auto u32 = [](std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  std::string body;
  for (const auto& [k, a] : entries) {
    varint(body, k.size());
    body += k;
    varint(body, RowAddressFragment(a));
    varint(body, RowAddressOffset(a));
  }
  std::string out = "OGIDXSG1";
  u32(out, version);
  u32(out, 0);
  u64(out, entries.size());
  u64(out, body.size());
  out += body;
  u64(out, XxHash64(out));
  return out;
}

inline Field F(std::string name, DataType t, bool nullable = true) { return Field{0, std::move(name), t, nullable}; }

// A batch whose schema is `schema`'s fields (ids and names) holding `rows`.
inline format::Batch BatchOf(const TableSchema& schema, const std::vector<Row>& rows) {
  auto b = format::Batch::FromRows(schema.ToFormatSchema(), rows);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? std::move(b).value() : format::Batch();
}

// Every live row of `v` (all columns), sorted.
inline std::vector<Row> AllRows(const TableVersion& v) {
  auto b = v.ScanAll({});
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  if (!b.ok()) return {};
  return Sorted(b->ToRows());
}

inline std::string RowsToString(const std::vector<Row>& rows) {
  std::string s;
  for (const Row& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) s += (i ? "\t" : "") + r[i].ToString();
    s += "\n";
  }
  return s;
}

inline bool SameRows(const std::vector<Row>& a, const std::vector<Row>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].size() != b[i].size()) return false;
    for (size_t j = 0; j < a[i].size(); ++j) {
      if (a[i][j].Compare(b[i][j]) != 0) return false;
    }
  }
  return true;
}

}  // namespace omnigraph::table::testing
