// Validation of a merged result (merge_internal.h). Only entities changed on either side since the
// merge base can break a constraint that held on both sides, so only those are looked at, and the
// merged tables are read only where the change can matter: rows are found by the values the change
// touched (ids of deleted nodes on an edge's endpoints, sources of changed edges, unique values of
// changed entities) through the hash indexes on id, src, dst and @unique columns (ranged reads of
// the buckets those values hash to), or, for tables without them, by scans filtered on those
// values so that statistics prune what cannot match.
// Run also when entities conflict: then on the candidate where each conflicting entity keeps the
// target's version.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>

#include "common/error_codes.h"
#include "common/json.h"
#include "engine/graph/schema_store.h"
#include "engine/merge/merge_internal.h"
#include "table/index_probe.h"
#include "table/predicate.h"
#include "table/scanner.h"

namespace omnigraph::engine::merge_internal {
namespace {

std::string Quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

bool Ordered(TypeKind k) { return k == TypeKind::kBool || IsNumericOrTemporalKind(k); }

double Numeric(const Value& v) {
  switch (v.kind()) {
    case TypeKind::kBool: return v.bool_value() ? 1 : 0;
    case TypeKind::kU32:
    case TypeKind::kU64: return static_cast<double>(v.uint_value());
    case TypeKind::kF32:
    case TypeKind::kF64: return v.float_value();
    default: return static_cast<double>(v.int_value());
  }
}

// How far apart two sorted values are, comparable across pairs of one column: for strings, a
// shorter common prefix is a larger gap (then the difference of the first differing bytes).
double Gap(const Value& a, const Value& b) {
  if (a.kind() != TypeKind::kString) {
    const double d = Numeric(b) - Numeric(a);
    return std::isnan(d) ? 0 : d;
  }
  const std::string& x = a.string_value();
  const std::string& y = b.string_value();
  size_t p = 0;
  while (p < x.size() && p < y.size() && x[p] == y[p]) ++p;
  const int bx = p < x.size() ? static_cast<unsigned char>(x[p]) : 0;
  const int by = p < y.size() ? static_cast<unsigned char>(y[p]) : 0;
  return static_cast<double>(4096 - std::min<size_t>(p, 4095)) * 512 + (by - bx);
}

}  // namespace

table::Predicate AnyOf(const table::TableVersion& t, const std::string& column, std::vector<Value> values) {
  const table::Field* f = t.schema().FindByName(column);
  if (f == nullptr || (f->type.kind != TypeKind::kString && !Ordered(f->type.kind))) return table::Predicate();
  values.erase(std::remove_if(values.begin(), values.end(), [](const Value& v) { return v.is_null(); }), values.end());
  std::sort(values.begin(), values.end(), [](const Value& a, const Value& b) { return a.Compare(b) < 0; });
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (values.size() <= kMaxInValues) return table::Predicate::In(column, std::move(values));
  // Cut at the kMaxRanges - 1 largest gaps, so that clusters of values (ids of one region, values
  // of one batch) become narrow ranges that page statistics can prune.
  std::vector<std::pair<double, size_t>> gaps;  // (gap, index of the value after it)
  for (size_t i = 1; i < values.size(); ++i) gaps.emplace_back(Gap(values[i - 1], values[i]), i);
  const size_t cuts = std::min(gaps.size(), kMaxRanges - 1);
  std::partial_sort(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(cuts), gaps.end(),
                    [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < cuts; ++i) starts.push_back(gaps[i].second);
  std::sort(starts.begin(), starts.end());
  starts.push_back(values.size());
  std::vector<table::Predicate> ranges;
  for (size_t i = 0; i + 1 < starts.size(); ++i) {
    const Value& lo = values[starts[i]];
    const Value& hi = values[starts[i + 1] - 1];
    ranges.push_back(lo == hi
                         ? table::Predicate::Eq(column, lo)
                         : table::Predicate::And({table::Predicate::Ge(column, lo), table::Predicate::Le(column, hi)}));
  }
  return table::Predicate::Or(std::move(ranges));
}

namespace {

using StringSet = std::set<std::string, std::less<>>;

// Calls `fn` on every batch of a streaming scan of `t`.
Status ForEachBatch(const table::TableVersion& t, table::ScanOptions opts,
                    const std::function<Status(const format::Batch&)>& fn) {
  OG_ASSIGN_OR_RETURN(std::unique_ptr<table::Scanner> scanner, t.Scan(std::move(opts)));
  while (true) {
    OG_ASSIGN_OR_RETURN(std::optional<format::Batch> b, scanner->Next());
    if (!b) return Status::Ok();
    OG_RETURN_IF_ERROR(fn(*b));
  }
}

// The live rows of `t` whose String `column` holds one of `wanted`, as (value, row address):
// through the column's hash index where it has one (reading only the buckets of the wanted
// values), else by a scan of that column alone, of the pages whose statistics may hold a value.
Result<std::vector<std::pair<std::string, uint64_t>>> MatchingRows(const table::TableVersion& t,
                                                                   const std::string& column, const StringSet& wanted) {
  std::vector<std::pair<std::string, uint64_t>> out;
  if (wanted.empty()) return out;
  const table::Field* f = t.schema().FindByName(column);
  if (f == nullptr) return InternalError("merge check: table has no column '" + column + "'");
  std::vector<std::string> values(wanted.begin(), wanted.end());
  std::vector<Value> filter_values;
  filter_values.reserve(values.size());
  for (const auto& v : values) filter_values.push_back(Value::String(v));
  OG_ASSIGN_OR_RETURN(auto hits, table::ProbeColumn(t, f->id, values, AnyOf(t, column, std::move(filter_values))));
  out.reserve(hits.size());
  for (const auto& [i, address] : hits) out.emplace_back(values[i], address);
  return out;
}

StringSet ToStringSet(const std::set<std::string>& ids) { return StringSet(ids.begin(), ids.end()); }

}  // namespace

Result<std::vector<std::pair<std::string, uint64_t>>> FindIds(const table::TableVersion& t,
                                                              const std::set<std::string>& ids) {
  return MatchingRows(t, std::string(kIdColumn), ToStringSet(ids));
}

namespace {

// Of `ids`, those with a live row in `t`.
Result<std::set<std::string>> Present(const table::TableVersion& t, const std::set<std::string>& ids) {
  OG_ASSIGN_OR_RETURN(auto found, FindIds(t, ids));
  std::set<std::string> out;
  for (auto& [id, a] : found) out.insert(std::move(id));
  return out;
}

// The value of `column` in an image (properties in catalog order; edge endpoints).
Value ImageValue(const EntityImage& img, const std::vector<compiler::Property>& props, const std::string& column) {
  if (column == kSrcColumn) return Value::String(img.src);
  if (column == kDstColumn) return Value::String(img.dst);
  for (size_t i = 0; i < props.size() && i < img.properties.size(); ++i) {
    if (props[i].name == column) return img.properties[i];
  }
  return Value::Null();
}

// Ids changed (inserted or updated) on either side.
std::set<std::string> Touched(const MergedType& t) {
  std::set<std::string> out;
  for (const auto* side : {t.source, t.target}) {
    for (const auto& [id, c] : *side) {
      if (c.op != ChangeOp::kDelete) out.insert(id);
    }
  }
  return out;
}

// Edges of the merged result with an endpoint whose node was deleted on a side (and is really gone
// from the merged result). Incident edges are found by scanning only the src / dst column for the
// deleted ids, then reading the matching rows.
Status CheckOrphans(const compiler::Catalog& catalog, const std::map<std::string, MergedType>& types,
                    std::vector<MergeConflict>* out) {
  std::map<std::string, std::set<std::string>> deleted;  // node type -> ids deleted on a side
  std::map<std::string, std::string> side_of;            // "type/id" -> "source" | "target"
  for (const auto& [name, t] : types) {
    if (t.kind != EntityKind::kNode) continue;
    for (const auto& [side, changes] : {std::pair{"source", t.source}, std::pair{"target", t.target}}) {
      for (const auto& [id, c] : *changes) {
        if (c.op != ChangeOp::kDelete) continue;
        deleted[name].insert(id);
        side_of[name + "/" + id] = side;
      }
    }
  }
  // A node deleted on one side and updated on the other is a delete_vs_update conflict and keeps
  // the target's version in the merged candidate: only nodes really gone can orphan an edge.
  for (auto it = deleted.begin(); it != deleted.end();) {
    OG_ASSIGN_OR_RETURN(std::set<std::string> present, Present(*types.at(it->first).table, it->second));
    for (const auto& id : present) it->second.erase(id);
    it = it->second.empty() ? deleted.erase(it) : std::next(it);
  }
  if (deleted.empty()) return Status::Ok();
  for (const auto& e : catalog.edges()) {
    auto from = deleted.find(e.from_type);
    auto to = deleted.find(e.to_type);
    if (from == deleted.end() && to == deleted.end()) continue;
    const table::TableVersion& edges = *types.at(e.name).table;
    std::vector<uint64_t> addresses;
    for (const auto& [column, ids] : {std::pair{kSrcColumn, from}, std::pair{kDstColumn, to}}) {
      if (ids == deleted.end()) continue;
      OG_ASSIGN_OR_RETURN(auto rows, MatchingRows(edges, std::string(column), ToStringSet(ids->second)));
      for (const auto& [v, a] : rows) addresses.push_back(a);
    }
    if (addresses.empty()) continue;
    std::sort(addresses.begin(), addresses.end());
    addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
    OG_ASSIGN_OR_RETURN(format::Batch b,
                        edges.Take(addresses, std::vector<std::string>{std::string(kIdColumn), std::string(kSrcColumn),
                                                                       std::string(kDstColumn)}));
    for (size_t r = 0; r < b.num_rows(); ++r) {
      std::string src = b.GetValue(r, 1).string_value(), dst = b.GetValue(r, 2).string_value();
      bool src_gone = from != deleted.end() && from->second.count(src);
      const std::string& node_type = src_gone ? e.from_type : e.to_type;
      const std::string& node = src_gone ? src : dst;
      out->push_back(MergeConflict{EntityKind::kEdge,
                                   e.name,
                                   b.GetValue(r, 0).string_value(),
                                   kOrphanEdge,
                                   "references " + node_type + " " + Quoted(node) + ", which was deleted on the " +
                                       side_of[node_type + "/" + node] + " branch",
                                   {}});
    }
  }
  return Status::Ok();
}

// Exact membership of one unique column's values: Strings by bytes, others by Value::Compare.
struct WantedValues {
  StringSet strings;
  std::vector<Value> others;  // sorted
  bool Contains(const format::Column& c, size_t r) const {
    if (c.type().kind == TypeKind::kString) return strings.find(c.string_at(r)) != strings.end();
    Value v = c.GetValue(r);
    return std::binary_search(others.begin(), others.end(), v,
                              [](const Value& a, const Value& b) { return a.Compare(b) < 0; });
  }
};

Status CheckUniques(const MergedType& t, const std::vector<compiler::Property>& props,
                    const std::vector<std::vector<std::string>>& uniques, std::vector<MergeConflict>* out) {
  if (uniques.empty()) return Status::Ok();
  std::set<std::string> touched = Touched(t);
  if (touched.empty()) return Status::Ok();
  for (const auto& tuple : uniques) {
    // Only a tuple held by a changed entity can newly collide. Each property of a changed
    // entity's merged version comes from its after image on one side (property-level merge), so
    // the rows sharing its tuple are among those whose every tuple column holds a value of a
    // changed entity's after image: scan only those columns and pages, group exactly, then read
    // the ids of the rows that share a tuple.
    std::vector<table::Predicate> filters;
    std::vector<WantedValues> wanted(tuple.size());
    for (size_t i = 0; i < tuple.size(); ++i) {
      std::vector<Value> values;
      for (const auto* side : {t.source, t.target}) {
        for (const auto& [id, c] : *side) {
          if (!c.after) continue;
          Value v = ImageValue(*c.after, props, tuple[i]);
          if (v.is_null()) continue;
          if (v.kind() == TypeKind::kString)
            wanted[i].strings.insert(v.string_value());
          else
            wanted[i].others.push_back(v);
          values.push_back(std::move(v));
        }
      }
      std::sort(wanted[i].others.begin(), wanted[i].others.end(),
                [](const Value& a, const Value& b) { return a.Compare(b) < 0; });
      filters.push_back(AnyOf(*t.table, tuple[i], std::move(values)));
    }
    std::map<std::string, std::vector<uint64_t>> by_value;
    auto group = [&](const format::Batch& b, std::span<const uint64_t> addresses) {
      for (size_t r = 0; r < b.num_rows(); ++r) {
        bool match = true;
        for (size_t c = 0; c < tuple.size() && match; ++c) {
          match = !b.column(c).IsNull(r) && wanted[c].Contains(b.column(c), r);
        }
        if (!match) continue;
        Json key = Json::array();
        for (size_t c = 0; c < tuple.size(); ++c) key.push_back(ValueToJson(b.GetValue(r, c)));
        by_value[key.dump()].push_back(addresses[r]);
      }
    };
    // With a hash index on a String column of the tuple, the candidates are the rows holding one
    // of its wanted values (read by index, then their tuple columns by row); else a filtered scan.
    std::optional<size_t> indexed;
    for (size_t i = 0; i < tuple.size() && !indexed; ++i) {
      const table::Field* f = t.table->schema().FindByName(tuple[i]);
      if (f != nullptr && f->type.kind == TypeKind::kString && table::HasHashIndex(*t.table, f->id)) indexed = i;
    }
    if (indexed) {
      OG_ASSIGN_OR_RETURN(auto rows, MatchingRows(*t.table, tuple[*indexed], wanted[*indexed].strings));
      std::vector<uint64_t> addresses;
      for (const auto& [v, a] : rows) addresses.push_back(a);
      std::sort(addresses.begin(), addresses.end());
      addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
      if (!addresses.empty()) {
        OG_ASSIGN_OR_RETURN(format::Batch b, t.table->Take(addresses, tuple));
        group(b, addresses);
      }
    } else {
      table::ScanOptions opts;
      opts.columns = tuple;
      opts.with_row_address = true;
      opts.filter = filters.size() == 1 ? std::move(filters.front()) : table::Predicate::And(std::move(filters));
      OG_RETURN_IF_ERROR(ForEachBatch(*t.table, std::move(opts), [&](const format::Batch& b) {
        group(b, b.column(tuple.size()).u64_values());
        return Status::Ok();
      }));
    }
    std::vector<uint64_t> shared;
    for (const auto& [key, addresses] : by_value) {
      if (addresses.size() > 1) shared.insert(shared.end(), addresses.begin(), addresses.end());
    }
    if (shared.empty()) continue;
    std::sort(shared.begin(), shared.end());
    OG_ASSIGN_OR_RETURN(format::Batch ids, t.table->Take(shared, std::vector<std::string>{std::string(kIdColumn)}));
    std::map<uint64_t, std::string> id_at;
    for (size_t r = 0; r < ids.num_rows(); ++r) id_at[shared[r]] = ids.GetValue(r, 0).string_value();
    std::string names;
    for (const auto& p : tuple) names += (names.empty() ? "" : ", ") + p;
    for (const auto& [key, addresses] : by_value) {
      if (addresses.size() < 2) continue;
      for (uint64_t a : addresses) {
        const std::string& id = id_at.at(a);
        if (!touched.count(id)) continue;
        out->push_back(MergeConflict{t.kind,
                                     t.name,
                                     id,
                                     kUniqueViolation,
                                     "@unique(" + names + ") value " + key + " is held by " +
                                         std::to_string(addresses.size()) + " entities after the merge",
                                     {}});
      }
    }
  }
  return Status::Ok();
}

// Sources of changed edges whose merged edge count leaves the @card bounds; counted on the src
// column only, for those sources.
Status CheckCardinality(const compiler::EdgeType& e, const std::map<std::string, MergedType>& types,
                        std::vector<MergeConflict>* out) {
  if (e.card.is_default()) return Status::Ok();
  const MergedType& t = types.at(e.name);
  std::set<std::string> sources;
  for (const auto* side : {t.source, t.target}) {
    for (const auto& [id, c] : *side) {
      if (c.before) sources.insert(c.before->src);
      if (c.after) sources.insert(c.after->src);
    }
  }
  if (sources.empty()) return Status::Ok();
  OG_ASSIGN_OR_RETURN(auto rows, MatchingRows(*t.table, std::string(kSrcColumn), ToStringSet(sources)));
  std::map<std::string, uint64_t> counts;
  for (const auto& [src, a] : rows) counts[src]++;
  OG_ASSIGN_OR_RETURN(std::set<std::string> present, Present(*types.at(e.from_type).table, sources));
  for (const auto& src : sources) {
    if (!present.count(src)) continue;  // the node is gone: its edges are checked as orphans
    uint64_t n = counts[src];
    if (n < e.card.min || (e.card.max && n > *e.card.max)) {
      out->push_back(MergeConflict{EntityKind::kNode,
                                   e.from_type,
                                   src,
                                   kCardinalityViolation,
                                   "would have " + std::to_string(n) + " " + e.name +
                                       " edge(s) after the merge; @card allows " + std::to_string(e.card.min) + ".." +
                                       (e.card.max ? std::to_string(*e.card.max) : ""),
                                   {}});
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckMerged(const compiler::Catalog& catalog, const std::map<std::string, MergedType>& types,
                   std::vector<MergeConflict>* conflicts) {
  OG_RETURN_IF_ERROR(CheckOrphans(catalog, types, conflicts));
  for (const auto& n : catalog.nodes()) {
    OG_RETURN_IF_ERROR(CheckUniques(types.at(n.name), n.properties, n.uniques, conflicts));
  }
  for (const auto& e : catalog.edges()) {
    OG_RETURN_IF_ERROR(CheckUniques(types.at(e.name), e.properties, e.uniques, conflicts));
    OG_RETURN_IF_ERROR(CheckCardinality(e, types, conflicts));
  }
  // Value constraints (@range, @check, enums, nullability) hold per property, and every merged
  // property value comes unchanged from one side, where it was validated: with one schema on both
  // sides (a schema boundary is refused above) a merge cannot produce value_constraint_violation.
  return Status::Ok();
}

}  // namespace omnigraph::engine::merge_internal
