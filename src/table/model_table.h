// Test-only: a deliberately simple in-memory model of a versioned table (a vector of live rows of
// Values) and an independent predicate evaluator over Values, for the differential tests in
// table_property_test.cc. Not part of omnigraph_table. Not thread-safe.
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "omnigraph/value.h"
#include "table/predicate.h"

namespace omnigraph::table::testing {

using Row = std::vector<Value>;

inline bool RowLess(const Row& a, const Row& b) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    auto c = a[i].Compare(b[i]);
    if (c != 0) return c < 0;
  }
  return a.size() < b.size();
}

inline std::vector<Row> Sorted(std::vector<Row> rows) {
  std::sort(rows.begin(), rows.end(), RowLess);
  return rows;
}

// Three-valued evaluation of `p` on one row (columns by name). nullopt = UNKNOWN.
inline std::optional<bool> ModelEval(const Predicate& p, const std::vector<std::string>& names, const Row& row) {
  using K = Predicate::Kind;
  auto col = [&]() -> const Value& {
    size_t i = std::find(names.begin(), names.end(), p.column()) - names.begin();
    return row.at(i);
  };
  switch (p.kind()) {
    case K::kTrue: return true;
    case K::kAnd: {
      std::optional<bool> r = true;
      for (const auto& c : p.children()) {
        auto v = ModelEval(c, names, row);
        if (v == false) return false;
        if (!v) r = std::nullopt;
      }
      return r;
    }
    case K::kOr: {
      std::optional<bool> r = false;
      for (const auto& c : p.children()) {
        auto v = ModelEval(c, names, row);
        if (v == true) return true;
        if (!v) r = std::nullopt;
      }
      return r;
    }
    case K::kNot: {
      auto v = ModelEval(p.children()[0], names, row);
      if (!v) return std::nullopt;
      return !*v;
    }
    case K::kCompare: {
      const Value& v = col();
      const Value& lit = p.values()[0];
      if (v.is_null() || lit.is_null()) return std::nullopt;
      auto c = v.Compare(lit);
      switch (p.op()) {
        case CompareOp::kEq: return c == 0;
        case CompareOp::kNe: return c != 0;
        case CompareOp::kLt: return c < 0;
        case CompareOp::kLe: return c <= 0;
        case CompareOp::kGt: return c > 0;
        case CompareOp::kGe: return c >= 0;
      }
      return std::nullopt;
    }
    case K::kIn: {
      const Value& v = col();
      if (v.is_null()) return std::nullopt;
      for (const Value& x : p.values()) {
        if (!x.is_null() && v.Compare(x) == 0) return true;
      }
      return false;
    }
    case K::kIsNull: return col().is_null();
    case K::kIsNotNull: return !col().is_null();
    case K::kStartsWith:
    case K::kContains: {
      const Value& v = col();
      if (v.is_null()) return std::nullopt;
      const std::string& s = v.string_value();
      const std::string& x = p.values()[0].string_value();
      return p.kind() == K::kStartsWith ? s.rfind(x, 0) == 0 : s.find(x) != std::string::npos;
    }
    case K::kListContains: {
      const Value& v = col();
      const Value& x = p.values()[0];
      if (v.is_null() || x.is_null()) return std::nullopt;
      std::optional<bool> r = false;
      for (const Value& e : v.list_value()) {
        if (e.is_null()) {
          r = std::nullopt;
        } else if (e.Compare(x) == 0) {
          return true;
        }
      }
      return r;
    }
  }
  return std::nullopt;
}

// The model: live rows in no particular order; `key` is the key column position.
struct ModelTable {
  std::vector<std::string> names;
  size_t key = 0;
  std::vector<Row> rows;

  void Append(const std::vector<Row>& r) { rows.insert(rows.end(), r.begin(), r.end()); }
  void DeleteWhere(const Predicate& p) {
    std::erase_if(rows, [&](const Row& r) { return ModelEval(p, names, r) == true; });
  }
  void DeleteIf(const std::function<bool(const Row&)>& f) { std::erase_if(rows, f); }
  void Upsert(const std::vector<Row>& r) {
    for (const Row& n : r) {
      std::erase_if(rows, [&](const Row& x) { return x[key].Compare(n[key]) == 0; });
    }
    Append(r);
  }
  void Overwrite(const std::vector<Row>& r) { rows = r; }
  std::vector<Row> Select(const Predicate& p) const {
    std::vector<Row> out;
    for (const Row& r : rows) {
      if (ModelEval(p, names, r) == true) out.push_back(r);
    }
    return out;
  }
};

}  // namespace omnigraph::table::testing
