// Scan predicates (docs/architecture.md, "Tables, fragments, manifests, versions";
// docs/format/table.md "Scans"): a small expression tree over columns and literal Values —
// comparisons, IN, IS [NOT] NULL, starts_with / contains on strings, contains on lists, AND / OR /
// NOT — with SQL three-valued logic (a row is kept only when the predicate is TRUE). Values compare
// as Value::Compare does (numbers across kinds, NaN above every number). Immutable value type; safe
// to share across threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "format/batch.h"
#include "format/fragment_metadata.h"
#include "omnigraph/result.h"
#include "omnigraph/value.h"
#include "table/manifest.h"

namespace omnigraph::table {

enum class CompareOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

class Predicate {
 public:
  enum class Kind : uint8_t {
    kTrue,
    kAnd,
    kOr,
    kNot,
    kCompare,
    kIn,
    kIsNull,
    kIsNotNull,
    kStartsWith,
    kContains,
    kListContains,
  };

  // TRUE for every row (the default: no filter).
  Predicate();
  static Predicate Compare(std::string column, CompareOp op, Value literal);
  static Predicate Eq(std::string column, Value v) { return Compare(std::move(column), CompareOp::kEq, std::move(v)); }
  static Predicate Ne(std::string column, Value v) { return Compare(std::move(column), CompareOp::kNe, std::move(v)); }
  static Predicate Lt(std::string column, Value v) { return Compare(std::move(column), CompareOp::kLt, std::move(v)); }
  static Predicate Le(std::string column, Value v) { return Compare(std::move(column), CompareOp::kLe, std::move(v)); }
  static Predicate Gt(std::string column, Value v) { return Compare(std::move(column), CompareOp::kGt, std::move(v)); }
  static Predicate Ge(std::string column, Value v) { return Compare(std::move(column), CompareOp::kGe, std::move(v)); }
  static Predicate In(std::string column, std::vector<Value> values);
  static Predicate IsNull(std::string column);
  static Predicate IsNotNull(std::string column);
  static Predicate StartsWith(std::string column, std::string prefix);
  static Predicate Contains(std::string column, std::string substring);  // String columns
  static Predicate ListContains(std::string column, Value element);      // List columns
  static Predicate And(std::vector<Predicate> children);
  static Predicate Or(std::vector<Predicate> children);
  static Predicate Not(Predicate child);

  Kind kind() const;
  bool is_true() const { return kind() == Kind::kTrue; }
  const std::string& column() const;
  CompareOp op() const;
  const std::vector<Value>& values() const;  // the literal(s); [0] for single-literal kinds
  const std::vector<Predicate>& children() const;
  // Names of every column referenced (with repeats removed, in first-use order).
  std::vector<std::string> Columns() const;
  std::string ToString() const;

 private:
  struct Node;
  explicit Predicate(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  std::shared_ptr<const Node> node_;
};

// A predicate resolved against a table schema: column names replaced by field ids and literal
// kinds checked. Immutable value type.
class BoundPredicate {
 public:
  // InvalidArgument for an unknown column, an operator the column type does not support
  // (ordering on Vector/List/Blob, starts_with on a non-String, list contains on a non-List) or a
  // literal of an incomparable kind.
  static Result<BoundPredicate> Bind(const Predicate& p, const TableSchema& schema);

  const Predicate& predicate() const { return predicate_; }
  // Field ids referenced, ascending, unique.
  const std::vector<FieldId>& field_ids() const { return field_ids_; }

  // Per-row result over `batch` (which holds every referenced field by id): 1 where the predicate
  // is TRUE, 0 where FALSE or UNKNOWN. InvalidArgument if a referenced column is missing.
  Result<std::vector<uint8_t>> Evaluate(const format::Batch& batch) const;

  // False only if no row summarized by the statistics can satisfy the predicate. `stats(id)`
  // returns the statistics of a column over the row range, or nullptr when unknown.
  bool MayMatch(const std::function<const format::ColumnStats*(FieldId)>& stats) const;

 private:
  Predicate predicate_;
  std::vector<FieldId> field_ids_;
  std::shared_ptr<const TableSchema> schema_;
};

}  // namespace omnigraph::table
