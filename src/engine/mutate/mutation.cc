#include "engine/mutate/mutation.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "common/clock.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/ulid.h"
#include "compiler/query_select.h"
#include "compiler/type_checker.h"
#include "engine/graph/schema_store.h"
#include "engine/search/vector.h"
#include "engine/validate/load_checks.h"
#include "engine/validate/load_record.h"
#include "table/id_index.h"
#include "table/index_probe.h"
#include "table/table_writer.h"

namespace omnigraph::engine {
namespace {

using compiler::IrExpr;
using compiler::IrExprKind;
using compiler::IrMutation;
using compiler::MutationKind;
using compiler::Property;

std::string Quote(std::string_view s) { return Json(std::string(s)).dump(); }

// One row image of the overlay: the physical columns and one value per property.
struct Row {
  std::string id, src, dst;
  std::vector<Value> values;
  std::set<size_t> fresh_blobs;  // Blob properties holding a new payload (others: stored descriptors)
  uint64_t statement = 0;        // the last statement (1-based) that wrote it
  bool strict = false;           // a generated-id insert
};

// The query's writes to one type so far.
struct TypeState {
  std::string name;
  const compiler::NodeType* node = nullptr;
  const compiler::EdgeType* edge = nullptr;
  std::map<std::string, Row> upserts;  // id -> final image
  std::set<std::string> deleted;       // ids of snapshot rows the query deleted
  bool is_edge() const { return edge != nullptr; }
  const std::vector<Property>& props() const { return edge ? edge->properties : node->properties; }
};

struct StatementError {
  uint64_t statement;
  ErrorCode code;
  std::string message;
};

Status ErrorsToStatus(const std::vector<StatementError>& errors, bool truncated) {
  std::vector<ErrorItem> items;
  items.reserve(errors.size());
  for (const auto& e : errors) items.push_back(ErrorItem{e.code, e.message, std::nullopt, e.statement});
  const StatementError& first = errors.front();
  std::string msg = "mutation rejected, nothing was written: " +
                    (first.statement > 0 ? "statement " + std::to_string(first.statement) + ": " : "") + first.message;
  if (errors.size() > 1 || truncated) {
    msg += " (and " + std::to_string(errors.size() - 1) + (truncated ? "+" : "") + " more)";
  }
  return Status(first.code, msg).WithErrors(std::move(items), truncated);
}

Status StatementStatus(uint64_t statement, const Status& s) {
  return ErrorsToStatus({StatementError{statement, s.code(), s.message()}}, false);
}

std::optional<table::CompareOp> TableOp(compiler::CompareOp op) {
  switch (op) {
    case compiler::CompareOp::kEq: return table::CompareOp::kEq;
    case compiler::CompareOp::kNe: return table::CompareOp::kNe;
    case compiler::CompareOp::kLt: return table::CompareOp::kLt;
    case compiler::CompareOp::kLe: return table::CompareOp::kLe;
    case compiler::CompareOp::kGt: return table::CompareOp::kGt;
    case compiler::CompareOp::kGe: return table::CompareOp::kGe;
    default: return std::nullopt;
  }
}

// The row in table-schema order (Blob columns as given: payloads must be replaced first).
std::vector<Value> TableRow(const table::TableSchema& schema, const TypeState& t, const Row& r) {
  std::vector<Value> out;
  out.reserve(schema.fields.size());
  const auto& props = t.props();
  for (const auto& f : schema.fields) {
    if (f.name == kIdColumn) {
      out.push_back(Value::String(r.id));
    } else if (t.is_edge() && f.name == kSrcColumn) {
      out.push_back(Value::String(r.src));
    } else if (t.is_edge() && f.name == kDstColumn) {
      out.push_back(Value::String(r.dst));
    } else {
      size_t i = 0;
      while (i < props.size() && props[i].name != f.name) ++i;
      out.push_back(i < props.size() ? r.values[i] : Value::Null(f.type));
    }
  }
  return out;
}

// A row of a scanned batch (all columns, table-schema order) as an overlay image.
Row RowFromBatch(const table::TableSchema& schema, const TypeState& t, const format::Batch& b, size_t row) {
  Row r;
  const auto& props = t.props();
  r.values.resize(props.size());
  for (size_t i = 0; i < props.size(); ++i) r.values[i] = Value::Null(props[i].type);
  for (size_t c = 0; c < schema.fields.size(); ++c) {
    const std::string& name = schema.fields[c].name;
    if (name == kIdColumn) {
      r.id = b.GetValue(row, c).string_value();
    } else if (t.is_edge() && name == kSrcColumn) {
      r.src = b.GetValue(row, c).string_value();
    } else if (t.is_edge() && name == kDstColumn) {
      r.dst = b.GetValue(row, c).string_value();
    } else {
      for (size_t i = 0; i < props.size(); ++i) {
        if (props[i].name == name) r.values[i] = b.GetValue(row, c);
      }
    }
  }
  return r;
}

class Executor {
 public:
  Executor(const Snapshot& snap, const compiler::IrQuery& q, const compiler::ParamValues& params, int64_t now_ms,
           size_t max_errors)
      : snap_(snap), q_(q), params_(params), now_ms_(now_ms), max_errors_(max_errors) {}

  Result<PreparedWrite> Run(std::map<std::string, ChangeCounts>* changes);

 private:
  Result<Value> Eval(const IrExpr& e) const;
  Result<TypeState*> State(const std::string& type);
  Result<std::string> EndpointId(const IrExpr& e, const std::string& node_type) const;
  Status Insert(const IrMutation& m, uint64_t n);
  Status Update(const IrMutation& m, uint64_t n);
  Status Delete(const IrMutation& m, uint64_t n);
  Status DeleteRows(TypeState& t, const std::vector<Row>& rows);
  // The current rows (snapshot overlaid with this query's writes) of `t` matching `filter`.
  Result<std::vector<Row>> Match(TypeState& t, const table::Predicate& filter);
  Result<std::optional<table::Predicate>> WherePredicate(const IrMutation& m) const;
  Status Validate();
  Status CheckDeleteCardinality(std::vector<StatementError>* errors);
  Result<std::optional<table::TableVersion>> Stage(TypeState& t, ChangeCounts* counts);

  const Snapshot& snap_;
  const compiler::IrQuery& q_;
  const compiler::ParamValues& params_;
  int64_t now_ms_;
  size_t max_errors_;
  std::map<std::string, TypeState> types_;
  // Edge types whose rows a delete removed: source ids that lost edges (for @card minimums).
  std::map<std::string, std::map<std::string, uint64_t>> lost_edges_;  // edge type -> src -> statement
};

Result<Value> Executor::Eval(const IrExpr& e) const {
  switch (e.kind) {
    case IrExprKind::kLiteral: return e.literal;
    case IrExprKind::kNow: return Value::DateTime(now_ms_);
    case IrExprKind::kParam: {
      auto it = params_.find(e.param);
      if (it == params_.end()) return InvalidArgumentError("parameter $" + e.param + " is not bound");
      return it->second;
    }
    default: return InvalidArgumentError("a mutation value must be a literal, a parameter or now()");
  }
}

Result<TypeState*> Executor::State(const std::string& type) {
  auto it = types_.find(type);
  if (it != types_.end()) return &it->second;
  TypeState t;
  t.name = type;
  t.node = snap_.catalog().FindNode(type);
  if (t.node == nullptr) t.edge = snap_.catalog().FindEdge(type);
  if (t.node == nullptr && t.edge == nullptr) {
    return NotFoundError("type " + type + " is not in the schema of the branch head (did the schema change?)");
  }
  return &types_.emplace(type, std::move(t)).first->second;
}

// A String endpoint is a node id (for keyed nodes also the key value); other values are key
// values of the endpoint type, turned into ids by the key rule.
Result<std::string> Executor::EndpointId(const IrExpr& e, const std::string& node_type) const {
  OG_ASSIGN_OR_RETURN(Value v, Eval(e));
  if (v.is_null()) return Status(ErrorCode::kLoadBadId, "an edge endpoint of type " + node_type + " is null");
  if (v.kind() == TypeKind::kString) return v.string_value();
  const compiler::NodeType* end = snap_.catalog().FindNode(node_type);
  if (end == nullptr || end->key.size() != 1) {
    return Status(ErrorCode::kLoadBadId, "an edge endpoint of type " + node_type + " must be a String id");
  }
  OG_ASSIGN_OR_RETURN(Value key, ConformValue(v, *end->FindProperty(end->key[0])));
  auto id = DeriveKeyId({key});
  if (!id.ok()) return Status(ErrorCode::kLoadBadId, "cannot derive the endpoint id: " + id.status().message());
  return *id;
}

Status Executor::Insert(const IrMutation& m, uint64_t n) {
  OG_ASSIGN_OR_RETURN(TypeState * t, State(m.type_name));
  const auto& props = t->props();
  Row r;
  r.statement = n;
  r.values.resize(props.size());
  std::vector<bool> set(props.size(), false);
  for (const auto& a : m.assignments) {
    size_t i = 0;
    while (i < props.size() && props[i].name != a.property) ++i;
    if (i == props.size()) return NotFoundError(m.type_name + " has no property " + a.property);
    OG_ASSIGN_OR_RETURN(Value v, Eval(a.value));
    OG_ASSIGN_OR_RETURN(r.values[i], ConformValue(v, props[i]));
    if (props[i].type.kind == TypeKind::kBlob && !r.values[i].is_null()) r.fresh_blobs.insert(i);
    set[i] = true;
  }
  for (size_t i = 0; i < props.size(); ++i) {
    if (set[i]) continue;
    // An @embed property left out is computed from its source, when the insert gives one
    // (docs/search.md, "Embedding"): the provider the environment names embeds the text.
    if (props[i].embed) {
      size_t src = 0;
      while (src < props.size() && props[src].name != props[i].embed->source) ++src;
      const bool has_source =
          src < props.size() && set[src] && !r.values[src].is_null() && r.values[src].kind() == TypeKind::kString;
      if (has_source) {
        OG_ASSIGN_OR_RETURN(std::vector<float> v,
                            search::EmbedDocument(r.values[src].string_value(), props[i].type.dimension,
                                                  props[i].embed->model, m.type_name + "." + props[i].name));
        r.values[i] = Value::Vector(std::move(v));
        continue;
      }
      if (!props[i].nullable) {
        return Status(ErrorCode::kLoadMissingProperty, "non-nullable property " + Quote(props[i].name) +
                                                           " is missing, and so is its @embed source " +
                                                           Quote(props[i].embed->source));
      }
    }
    if (!props[i].nullable) {
      return Status(ErrorCode::kLoadMissingProperty, "non-nullable property " + Quote(props[i].name) + " is missing");
    }
    r.values[i] = Value::Null(props[i].type);
  }
  if (t->is_edge()) {
    if (!m.from || !m.to) return InvalidArgumentError("an edge insert needs from and to");
    OG_ASSIGN_OR_RETURN(r.src, EndpointId(*m.from, t->edge->from_type));
    OG_ASSIGN_OR_RETURN(r.dst, EndpointId(*m.to, t->edge->to_type));
    r.id = NewUlidString();
    r.strict = true;
  } else if (t->node->has_key()) {
    std::vector<Value> key;
    for (const auto& k : t->node->key) {
      for (size_t i = 0; i < props.size(); ++i) {
        if (props[i].name == k) key.push_back(r.values[i]);
      }
    }
    auto id = DeriveKeyId(key);
    if (!id.ok()) return Status(ErrorCode::kLoadBadId, "cannot derive the key id: " + id.status().message());
    r.id = *id;  // an upsert: replaces the row with this id (in the snapshot or earlier in the query)
  } else {
    r.id = NewUlidString();
    r.strict = true;
  }
  t->deleted.erase(r.id);
  t->upserts[r.id] = std::move(r);
  return Status::Ok();
}

Result<std::optional<table::Predicate>> Executor::WherePredicate(const IrMutation& m) const {
  if (!m.where_value) return InvalidArgumentError("update/delete without where");
  OG_ASSIGN_OR_RETURN(Value v, Eval(*m.where_value));
  if (v.is_null()) return std::optional<table::Predicate>();  // NULL never satisfies a comparison
  const std::string& col = m.where_property;
  if (m.where_op == compiler::CompareOp::kStartsWith)
    return std::optional(table::Predicate::StartsWith(col, v.string_value()));
  if (m.where_op == compiler::CompareOp::kContains) {
    const Property* p = nullptr;
    if (const auto* n = snap_.catalog().FindNode(m.type_name)) p = n->FindProperty(col);
    if (const auto* e = snap_.catalog().FindEdge(m.type_name)) p = e->FindProperty(col);
    if (p != nullptr && p->type.kind == TypeKind::kList) return std::optional(table::Predicate::ListContains(col, v));
    return std::optional(table::Predicate::Contains(col, v.string_value()));
  }
  auto op = TableOp(m.where_op);
  if (!op) return InvalidArgumentError("unsupported where operator");
  return std::optional(table::Predicate::Compare(col, *op, v));
}

// `filter` as a predicate on the id column when it is `key = v` or `key IN (...)` for the one
// @key property of t's node type: the ids those key values derive (DeriveKeyId). nullopt for any
// other filter, or a value that does not conform to the key's type (the scan then decides).
std::optional<table::Predicate> KeyAsId(const TypeState& t, const table::Predicate& filter) {
  using Kind = table::Predicate::Kind;
  if (t.node == nullptr || t.node->key.size() != 1 || filter.column() != t.node->key[0]) return std::nullopt;
  const bool eq = filter.kind() == Kind::kCompare && filter.op() == table::CompareOp::kEq;
  if (!eq && filter.kind() != Kind::kIn) return std::nullopt;
  const Property* key = t.node->FindProperty(t.node->key[0]);
  if (key == nullptr) return std::nullopt;
  std::vector<Value> ids;
  for (const Value& v : filter.values()) {
    if (v.is_null()) continue;  // matches nothing
    Result<Value> conformed = ConformValue(v, *key);
    if (!conformed.ok()) return std::nullopt;
    Result<std::string> id = DeriveKeyId({*conformed});
    if (!id.ok()) return std::nullopt;
    ids.push_back(Value::String(std::move(id).value()));
  }
  return table::Predicate::In(std::string(kIdColumn), std::move(ids));
}

Result<std::vector<Row>> Executor::Match(TypeState& t, const table::Predicate& filter) {
  OG_ASSIGN_OR_RETURN(table::TableVersion base, snap_.Table(t.name));
  const table::TableSchema& schema = base.schema();
  std::vector<Row> out;
  if (base.row_count() > 0) {
    // `where id = $x` and the cascade's src/dst IN (ids): the rows through the hash indexes, not
    // a scan of the table.
    OG_ASSIGN_OR_RETURN(std::optional<std::vector<uint64_t>> probed, table::ProbeMatch(base, filter));
    // `where key = $x` on a node with one @key: the id the key derives (every keyed row's id is
    // derived from its key, and an update cannot change a key), then the filter itself again.
    bool recheck = false;
    if (!probed) {
      if (std::optional<table::Predicate> by_id = KeyAsId(t, filter)) {
        OG_ASSIGN_OR_RETURN(probed, table::ProbeMatch(base, *by_id));
        recheck = probed.has_value();
      }
    }
    format::Batch b;
    if (probed) {
      OG_ASSIGN_OR_RETURN(b, base.Take(*probed));
      if (recheck) {
        OG_ASSIGN_OR_RETURN(table::BoundPredicate bound, table::BoundPredicate::Bind(filter, schema));
        OG_ASSIGN_OR_RETURN(std::vector<uint8_t> keep, bound.Evaluate(b));
        std::vector<uint64_t> rows;
        for (size_t i = 0; i < keep.size(); ++i) {
          if (keep[i]) rows.push_back(i);
        }
        if (rows.size() != b.num_rows()) b = b.Take(rows);
      }
    } else {
      table::ScanOptions o;
      o.filter = filter;
      OG_ASSIGN_OR_RETURN(b, base.ScanAll(o));
    }
    for (size_t i = 0; i < b.num_rows(); ++i) {
      Row r = RowFromBatch(schema, t, b, i);
      if (t.upserts.count(r.id) || t.deleted.count(r.id)) continue;  // superseded by this query
      out.push_back(std::move(r));
    }
  }
  if (!t.upserts.empty()) {
    std::vector<std::vector<Value>> rows;
    std::vector<const Row*> images;
    for (const auto& [id, r] : t.upserts) {
      rows.push_back(TableRow(schema, t, r));
      images.push_back(&r);
    }
    OG_ASSIGN_OR_RETURN(format::Batch b, format::Batch::FromRows(schema.ToFormatSchema(), rows));
    OG_ASSIGN_OR_RETURN(table::BoundPredicate bound, table::BoundPredicate::Bind(filter, schema));
    OG_ASSIGN_OR_RETURN(std::vector<uint8_t> keep, bound.Evaluate(b));
    for (size_t i = 0; i < keep.size(); ++i) {
      if (keep[i]) out.push_back(*images[i]);
    }
  }
  return out;
}

Status Executor::Update(const IrMutation& m, uint64_t n) {
  OG_ASSIGN_OR_RETURN(TypeState * t, State(m.type_name));
  OG_ASSIGN_OR_RETURN(std::optional<table::Predicate> filter, WherePredicate(m));
  if (!filter) return Status::Ok();
  OG_ASSIGN_OR_RETURN(std::vector<Row> rows, Match(*t, *filter));
  if (rows.empty()) return Status::Ok();
  const auto& props = t->props();
  // Converted once: the same values go into every matching row.
  std::vector<std::pair<size_t, Value>> sets;
  for (const auto& a : m.assignments) {
    size_t i = 0;
    while (i < props.size() && props[i].name != a.property) ++i;
    if (i == props.size()) return NotFoundError(m.type_name + " has no property " + a.property);
    OG_ASSIGN_OR_RETURN(Value v, Eval(a.value));
    OG_ASSIGN_OR_RETURN(Value conformed, ConformValue(v, props[i]));
    sets.emplace_back(i, std::move(conformed));
  }
  const std::vector<std::string> no_key;
  const std::vector<std::string>& key = t->node ? t->node->key : no_key;
  for (Row& r : rows) {
    for (const auto& [i, v] : sets) {
      bool is_key = std::find(key.begin(), key.end(), props[i].name) != key.end();
      if (is_key && !(r.values[i] == v)) {
        return Status(ErrorCode::kKeyImmutable, m.type_name + " " + Quote(r.id) + ": @key property '" + props[i].name +
                                                    "' cannot change (from " + r.values[i].ToString() + " to " +
                                                    v.ToString() + "); delete the node and insert a new one");
      }
      r.values[i] = v;
      if (props[i].type.kind == TypeKind::kBlob) {
        if (v.is_null())
          r.fresh_blobs.erase(i);
        else
          r.fresh_blobs.insert(i);
      }
    }
    r.statement = n;
    t->upserts[r.id] = std::move(r);
  }
  return Status::Ok();
}

Status Executor::DeleteRows(TypeState& t, const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    t.upserts.erase(r.id);
    t.deleted.insert(r.id);  // ids absent from the snapshot are ignored when staging
  }
  return Status::Ok();
}

Status Executor::Delete(const IrMutation& m, uint64_t n) {
  OG_ASSIGN_OR_RETURN(TypeState * t, State(m.type_name));
  OG_ASSIGN_OR_RETURN(std::optional<table::Predicate> filter, WherePredicate(m));
  if (!filter) return Status::Ok();
  OG_ASSIGN_OR_RETURN(std::vector<Row> rows, Match(*t, *filter));
  if (rows.empty()) return Status::Ok();
  OG_RETURN_IF_ERROR(DeleteRows(*t, rows));
  if (t->is_edge()) {
    for (const Row& r : rows) lost_edges_[t->name].emplace(r.src, n);
    return Status::Ok();
  }
  // Cascade: the incident edges of every edge type touching this node type.
  std::vector<Value> ids;
  for (const Row& r : rows) ids.push_back(Value::String(r.id));
  for (const auto& e : snap_.catalog().edges()) {
    std::vector<table::Predicate> sides;
    if (e.from_type == t->name) sides.push_back(table::Predicate::In(std::string(kSrcColumn), ids));
    if (e.to_type == t->name) sides.push_back(table::Predicate::In(std::string(kDstColumn), ids));
    if (sides.empty()) continue;
    OG_ASSIGN_OR_RETURN(TypeState * et, State(e.name));
    table::Predicate filter_edges = sides.size() == 1 ? sides[0] : table::Predicate::Or(std::move(sides));
    OG_ASSIGN_OR_RETURN(std::vector<Row> edges, Match(*et, filter_edges));
    OG_RETURN_IF_ERROR(DeleteRows(*et, edges));
    for (const Row& r : edges) lost_edges_[e.name].emplace(r.src, n);
  }
  return Status::Ok();
}

// @card minimums of sources that lost edges (and still exist). Maximums cannot be exceeded by a
// delete; inserts are checked by the LoadChecker.
Status Executor::CheckDeleteCardinality(std::vector<StatementError>* errors) {
  for (const auto& [edge_name, sources] : lost_edges_) {
    const compiler::EdgeType* e = snap_.catalog().FindEdge(edge_name);
    if (e == nullptr || e->card.min == 0) continue;
    auto from = types_.find(e->from_type);
    std::vector<Value> live;
    for (const auto& [src, n] : sources) {
      if (from != types_.end() && from->second.deleted.count(src)) continue;  // the source is gone too
      live.push_back(Value::String(src));
    }
    if (live.empty()) continue;
    OG_ASSIGN_OR_RETURN(TypeState * t, State(edge_name));
    OG_ASSIGN_OR_RETURN(std::vector<Row> remaining, Match(*t, table::Predicate::In(std::string(kSrcColumn), live)));
    std::map<std::string, uint64_t> count;
    for (const Row& r : remaining) ++count[r.src];
    for (const Value& v : live) {
      uint64_t c = count[v.string_value()];
      if (c < e->card.min && errors->size() < max_errors_) {
        errors->push_back({sources.at(v.string_value()), ErrorCode::kLoadCardinality,
                           edge_name + " source " + Quote(v.string_value()) + " would have " + std::to_string(c) +
                               " edge(s); @card allows " + std::to_string(e->card.min) + ".." +
                               (e->card.max ? std::to_string(*e->card.max) : "")});
      }
    }
  }
  return Status::Ok();
}

Status Executor::Validate() {
  RecordRules rules(snap_.catalog());
  std::vector<StatementError> errors;
  std::vector<LoadRecord> records;
  for (auto& [name, t] : types_) {
    for (auto& [id, r] : t.upserts) {
      LoadRecord rec;
      rec.line = r.statement;
      rec.is_edge = t.is_edge();
      rec.node = t.node;
      rec.edge = t.edge;
      rec.id = r.id;
      rec.id_given = !r.strict;
      rec.strict = r.strict;
      rec.src = r.src;
      rec.dst = r.dst;
      rec.values = r.values;
      Status s = rules.Check(rec);
      if (!s.ok() && errors.size() < max_errors_) errors.push_back({r.statement, s.code(), s.message()});
      records.push_back(std::move(rec));
    }
  }
  bool truncated = false;
  if (errors.empty() && !records.empty()) {
    LoadChecker checker(snap_, LoadMode::kMerge, max_errors_);
    OG_ASSIGN_OR_RETURN(LoadCheckResult checked, checker.Run(GroupByType(records)));
    for (const auto& e : checked.errors) errors.push_back({e.line, e.code, e.message});
    truncated = checked.truncated;
  }
  if (errors.empty()) OG_RETURN_IF_ERROR(CheckDeleteCardinality(&errors));
  if (errors.empty()) return Status::Ok();
  std::stable_sort(errors.begin(), errors.end(),
                   [](const StatementError& a, const StatementError& b) { return a.statement < b.statement; });
  return ErrorsToStatus(errors, truncated);
}

// Stages the type's changes: upserts that differ from the snapshot image, and deletes of
// snapshot rows. nullopt when nothing changes.
Result<std::optional<table::TableVersion>> Executor::Stage(TypeState& t, ChangeCounts* counts) {
  if (t.upserts.empty() && t.deleted.empty()) return std::optional<table::TableVersion>();
  OG_ASSIGN_OR_RETURN(table::TableVersion base, snap_.Table(t.name));
  const table::TableSchema& schema = base.schema();
  // Live rows by id: few ids against a large table are probed (their buckets only); otherwise
  // the whole id index is opened once.
  std::optional<table::IdIndex> index;
  std::vector<std::string> deleted_ids(t.deleted.begin(), t.deleted.end());
  const bool probe = table::FewLookups(base, t.upserts.size() + deleted_ids.size());
  if (base.row_count() > 0 && !probe) {
    OG_ASSIGN_OR_RETURN(table::IdIndex opened, table::IdIndex::Open(base));
    index = std::move(opened);
  }
  auto lookup = [&](std::span<const std::string> keys) -> Result<std::vector<std::optional<uint64_t>>> {
    if (base.row_count() == 0) return std::vector<std::optional<uint64_t>>(keys.size());
    if (index) return index->LookupMany(keys);
    return table::ProbeIds(base, keys);
  };
  // Upserts: drop the ones equal to their snapshot image.
  std::vector<const Row*> writes;
  std::vector<std::string> ids;
  for (const auto& [id, r] : t.upserts) ids.push_back(id);
  OG_ASSIGN_OR_RETURN(std::vector<std::optional<uint64_t>> found, lookup(ids));
  std::vector<uint64_t> existing;
  std::vector<size_t> existing_at;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (found[i]) {
      existing.push_back(*found[i]);
      existing_at.push_back(i);
    }
  }
  std::set<std::string> unchanged;
  if (!existing.empty()) {
    OG_ASSIGN_OR_RETURN(format::Batch old, base.Take(existing));
    for (size_t k = 0; k < existing.size(); ++k) {
      const Row& now = t.upserts.at(ids[existing_at[k]]);
      Row before = RowFromBatch(schema, t, old, k);
      if (now.fresh_blobs.empty() && before.values == now.values && before.src == now.src && before.dst == now.dst) {
        unchanged.insert(now.id);
      }
    }
  }
  counts->updated = existing.size() - unchanged.size();
  counts->inserted = ids.size() - existing.size();
  for (const auto& [id, r] : t.upserts) {
    if (!unchanged.count(id)) writes.push_back(&r);
  }
  // Deletes: snapshot rows only.
  std::vector<uint64_t> delete_addresses;
  if (!deleted_ids.empty()) {
    OG_ASSIGN_OR_RETURN(auto del, lookup(deleted_ids));
    for (const auto& a : del) {
      if (a) delete_addresses.push_back(*a);
    }
  }
  counts->deleted = delete_addresses.size();
  if (writes.empty() && delete_addresses.empty()) return std::optional<table::TableVersion>();
  table::TableWriter writer(base);
  if (!delete_addresses.empty()) OG_RETURN_IF_ERROR(writer.Delete(delete_addresses));
  if (!writes.empty()) {
    std::vector<std::string> payloads;
    for (const Row* r : writes) {
      for (size_t i : r->fresh_blobs) payloads.push_back(r->values[i].string_value());
    }
    std::vector<format::BlobDescriptor> descriptors;
    if (!payloads.empty()) {
      OG_ASSIGN_OR_RETURN(descriptors, base.WriteBlobs(payloads));
    }
    size_t next_blob = 0;
    std::vector<std::vector<Value>> rows;
    for (const Row* r : writes) {
      Row image = *r;
      for (size_t i : r->fresh_blobs) image.values[i] = Value::Blob(descriptors[next_blob++].Encode());
      rows.push_back(TableRow(schema, t, image));
    }
    OG_ASSIGN_OR_RETURN(format::Batch batch, format::Batch::FromRows(schema.ToFormatSchema(), rows));
    OG_RETURN_IF_ERROR(writer.Upsert(batch));
  }
  OG_ASSIGN_OR_RETURN(table::TableVersion v, writer.Commit());
  return std::optional(std::move(v));
}

Result<PreparedWrite> Executor::Run(std::map<std::string, ChangeCounts>* changes) {
  uint64_t n = 0;
  for (const IrMutation& m : q_.mutations) {
    ++n;
    Status s;
    switch (m.kind) {
      case MutationKind::kInsert: s = Insert(m, n); break;
      case MutationKind::kUpdate: s = Update(m, n); break;
      case MutationKind::kDelete: s = Delete(m, n); break;
    }
    if (!s.ok()) {
      // Value and constraint errors name their statement; storage errors pass through as they are.
      bool user = s.category() == StatusCode::kInvalidArgument && s.code() != ErrorCode::kInvalidArgument;
      return user ? StatementStatus(n, s) : s;
    }
  }
  OG_RETURN_IF_ERROR(Validate());
  PreparedWrite w;
  w.operation = "mutate:" + q_.name;
  changes->clear();
  for (auto& [name, t] : types_) {
    ChangeCounts counts;
    OG_ASSIGN_OR_RETURN(std::optional<table::TableVersion> v, Stage(t, &counts));
    if (!v) continue;
    w.tables.emplace(name, std::move(*v));
    w.summary[name] = counts;
    (*changes)[name] = counts;
  }
  return w;
}

}  // namespace

WriteKind MutationWriteKind(const compiler::IrQuery& query) {
  for (const auto& m : query.mutations) {
    if (m.kind != MutationKind::kInsert) return WriteKind::kStrict;
  }
  return WriteKind::kConstructive;
}

Result<MutationResult> ExecuteBoundMutation(Graph& graph, WriteKind kind, const MutationBinder& bind,
                                            const MutationOptions& options) {
  int64_t now_ms = options.now_ms ? *options.now_ms : NowMicros() / 1000;
  MutationResult result;
  WriteRequest req;
  req.branch = options.branch;
  req.if_commit = options.if_commit;
  req.kind = kind;
  req.prepare = [&](const Snapshot& snap) -> Result<PreparedWrite> {
    OG_ASSIGN_OR_RETURN(BoundMutation bound, bind(snap));
    if (!bound.query->is_mutation) {
      return InvalidArgumentError("'" + bound.query->name + "' is a read query: run it with `omnigraph query`");
    }
    result.query_name = bound.query->name;
    Executor exec(snap, *bound.query, bound.params, now_ms, options.max_errors);
    return exec.Run(&result.changes);
  };
  OG_ASSIGN_OR_RETURN(result.write, graph.Write(req));
  if (!result.write.committed) result.changes.clear();
  for (const auto& [name, c] : result.changes) {
    auto it = result.write.commit.tables.find(name);
    bool edge = it != result.write.commit.tables.end() && it->second.kind == EntityKind::kEdge;
    (edge ? result.affected_edges : result.affected_nodes) += c.inserted + c.updated + c.deleted;
  }
  return result;
}

Result<MutationResult> ExecuteMutation(Graph& graph, const compiler::IrQuery& query,
                                       const compiler::ParamValues& params, const MutationOptions& options) {
  if (!query.is_mutation) {
    return InvalidArgumentError("'" + query.name + "' is a read query: run it with `omnigraph query`");
  }
  return ExecuteBoundMutation(
      graph, MutationWriteKind(query),
      [&](const Snapshot&) -> Result<BoundMutation> {
        return BoundMutation{&query, params};
      },
      options);
}

Result<MutationResult> RunMutation(Graph& graph, std::string_view source, std::string_view params_json,
                                   const MutationOptions& options) {
  // Compiled against the schema this handle last saw on the branch (no request), or, when none is
  // cached or the source does not compile against it, against the head read now; Write's prepare
  // compiles again if the head it stages against has another schema.
  struct Compiled {
    std::string schema_id;
    compiler::IrQuery query;
    compiler::ParamValues params;
  };
  auto compile = [&](const std::string& schema_id, const compiler::Catalog& catalog) -> Result<Compiled> {
    OG_ASSIGN_OR_RETURN(compiler::IrQuery q, compiler::CompileSelectedQuery(catalog, source, options.query_name,
                                                                            compiler::QueryKind::kMutation));
    OG_ASSIGN_OR_RETURN(compiler::ParamValues bound, compiler::BindParamsJson(q.params, params_json));
    return Compiled{schema_id, std::move(q), std::move(bound)};
  };
  std::optional<Compiled> compiled;
  if (auto known = graph.LastKnownSchema(options.branch)) {
    auto c = compile(known->schema_id, *known->catalog);
    if (c.ok()) compiled = std::move(*c);
  }
  if (!compiled) {
    OG_ASSIGN_OR_RETURN(Snapshot head, graph.Head(options.branch));
    OG_ASSIGN_OR_RETURN(compiled, compile(head.commit().schema_id, head.catalog()));
  }
  if (!compiled->query.is_mutation) {
    return InvalidArgumentError("'" + compiled->query.name + "' is a read query: run it with `omnigraph query`");
  }
  const WriteKind kind = MutationWriteKind(compiled->query);
  return ExecuteBoundMutation(
      graph, kind,
      [&](const Snapshot& snap) -> Result<BoundMutation> {
        if (snap.commit().schema_id != compiled->schema_id) {
          OG_ASSIGN_OR_RETURN(compiled, compile(snap.commit().schema_id, snap.catalog()));
        }
        return BoundMutation{&compiled->query, compiled->params};
      },
      options);
}

}  // namespace omnigraph::engine
