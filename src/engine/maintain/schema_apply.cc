#include "engine/maintain/schema_apply.h"

#include <map>
#include <unordered_map>

#include "common/error_codes.h"
#include "common/ulid.h"
#include "compiler/catalog_builder.h"
#include "compiler/migration_planner.h"
#include "engine/graph/graph_layout.h"
#include "engine/graph/schema_store.h"
#include "engine/validate/load_record.h"
#include "table/table_version.h"
#include "table/table_writer.h"

namespace omnigraph::engine {
namespace {

// The error of the planner's code (OG-MF-..., OG-DS-...), with the step's reason.
Status StepError(const compiler::MigrationStep& s) {
  for (const auto& info : AllErrorCodes()) {
    if (info.name == s.code) return Status(info.code, s.entity + ": " + s.reason);
  }
  return InvalidArgumentError(s.entity + ": " + s.reason + (s.code.empty() ? "" : " (" + s.code + ")"));
}

// The table schema the new catalog gives a type (its fields' types and nullability).
Result<table::TableSchema> NewTableSchema(const compiler::Catalog& catalog, const std::string& type, bool is_edge) {
  if (is_edge) {
    const compiler::EdgeType* e = catalog.FindEdge(type);
    if (e == nullptr) return InternalError("edge type '" + type + "' is not in the new schema");
    return EdgeTableSchema(*e);
  }
  const compiler::NodeType* n = catalog.FindNode(type);
  if (n == nullptr) return InternalError("node type '" + type + "' is not in the new schema");
  return NodeTableSchema(*n);
}

// Builds the schema-apply commit against `snap`.
class Applier {
 public:
  Applier(const Snapshot& snap, const compiler::Catalog& next) : snap_(snap), next_(next) {
    refs_ = snap.commit().tables;
  }

  Status Step(const compiler::MigrationStep& s) {
    using K = compiler::MigrationStepKind;
    switch (s.kind) {
      case K::kRenameType: {
        auto it = refs_.find(s.old_name);
        if (it == refs_.end()) return InternalError("renamed type '" + s.old_name + "' has no table");
        refs_[s.type_name] = it->second;
        refs_.erase(s.old_name);
        origin_[s.type_name] = s.old_name;
        return Status::Ok();
      }
      case K::kAddType: {
        OG_ASSIGN_OR_RETURN(table::TableSchema schema, NewTableSchema(next_, s.type_name, s.is_edge));
        const std::string table_id = NewUlidString();
        OG_ASSIGN_OR_RETURN(table::TableVersion v,
                            table::TableVersion::Create(snap_.store(), TablePrefix(table_id), std::move(schema)));
        refs_[s.type_name] = TableRef{s.is_edge ? EntityKind::kEdge : EntityKind::kNode, table_id, v.version_id()};
        staged_.insert_or_assign(s.type_name, std::move(v));
        return Status::Ok();
      }
      case K::kAddProperty: {
        OG_ASSIGN_OR_RETURN(table::TableSchema schema, NewTableSchema(next_, s.type_name, s.is_edge));
        const table::Field* f = schema.FindByName(s.property);
        if (f == nullptr) return InternalError("added property '" + s.entity + "' has no column");
        OG_ASSIGN_OR_RETURN(table::TableVersion cur, Current(s.type_name));
        OG_ASSIGN_OR_RETURN(table::TableVersion v, table::AddColumn(cur, s.property, f->type));
        staged_.insert_or_assign(s.type_name, std::move(v));
        return Status::Ok();
      }
      case K::kRenameProperty: {
        OG_ASSIGN_OR_RETURN(table::TableVersion cur, Current(s.type_name));
        OG_ASSIGN_OR_RETURN(table::TableVersion v, table::RenameColumn(cur, s.old_name, s.property));
        staged_.insert_or_assign(s.type_name, std::move(v));
        return Status::Ok();
      }
      case K::kMakeNullable: {
        OG_ASSIGN_OR_RETURN(table::TableVersion cur, Current(s.type_name));
        OG_ASSIGN_OR_RETURN(table::TableVersion v, table::MakeColumnNullable(cur, s.property));
        staged_.insert_or_assign(s.type_name, std::move(v));
        return Status::Ok();
      }
      case K::kDropProperty: {  // soft or hard: the head loses it, old commits keep it until cleanup
        OG_ASSIGN_OR_RETURN(table::TableVersion cur, Current(s.type_name));
        OG_ASSIGN_OR_RETURN(table::TableVersion v, table::DropColumn(cur, s.property));
        staged_.insert_or_assign(s.type_name, std::move(v));
        return Status::Ok();
      }
      case K::kDropType:
        refs_.erase(s.type_name);
        staged_.erase(s.type_name);
        return Status::Ok();
      case K::kExtendEnum:  // enums are stored as strings: the catalog alone changes
      case K::kUpdateTypeMetadata:
      case K::kUpdatePropertyMetadata:
      case K::kDropConstraint: return Status::Ok();
      case K::kAddConstraint:
        // Every added constraint is checked against every existing row first. @key is planned only
        // for an empty type, and ids are made from the key as rows are written: the catalog alone
        // changes. @index is the catalog's (search indexes are derived from it).
        if (s.constraint.starts_with("@key(") || s.constraint.starts_with("@index(")) return Status::Ok();
        if (!s.is_edge && (s.constraint.starts_with("@range(") || s.constraint.starts_with("@check("))) {
          return CheckExistingRows(s);
        }
        if (s.constraint.starts_with("@unique(")) return AddUnique(s);
        if (s.is_edge && s.constraint.starts_with("@card(")) return CheckCardinality(s);
        return InternalError("schema apply: unknown added constraint " + s.constraint + " on '" + s.type_name + "'");
      case K::kUnsupportedChange: return StepError(s);
    }
    return InternalError("unknown migration step");
  }

  std::map<std::string, table::TableVersion> TakeStaged() { return std::move(staged_); }

  // Refuses an added @range/@check that existing rows of the (node) type violate, naming them.
  Status CheckExistingRows(const compiler::MigrationStep& s) {
    const compiler::NodeType* node = next_.FindNode(s.type_name);
    if (node == nullptr) return InternalError("constrained type '" + s.type_name + "' is not in the new schema");
    OG_ASSIGN_OR_RETURN(table::TableVersion t, Current(s.type_name));
    std::vector<std::string> columns{std::string(kIdColumn)};
    std::vector<int> column_of;  // per property: its column in the scan, or -1 (reads null)
    for (const auto& p : node->properties) {
      const bool present = t.schema().FindByName(p.name) != nullptr;
      column_of.push_back(present ? static_cast<int>(columns.size()) : -1);
      if (present) columns.push_back(p.name);
    }
    table::ScanOptions so;
    so.columns = columns;
    OG_ASSIGN_OR_RETURN(format::Batch rows, t.ScanAll(so));
    const RecordRules rules(next_);
    std::vector<std::string> bad;
    uint64_t violations = 0;
    Status first;
    std::vector<Value> values(node->properties.size());
    for (size_t r = 0; r < rows.num_rows(); ++r) {
      for (size_t i = 0; i < values.size(); ++i) {
        values[i] = column_of[i] < 0 ? Value::Null() : rows.GetValue(r, static_cast<size_t>(column_of[i]));
      }
      Status st = rules.Check(*node, values);
      if (st.ok()) continue;
      if (violations++ == 0) first = st;
      if (bad.size() < 20) bad.push_back(rows.GetValue(r, 0).string_value());
    }
    if (violations == 0) return Status::Ok();
    std::string ids;
    for (const auto& id : bad) ids += (ids.empty() ? "" : ", ") + id;
    return Status(first.code(), "schema apply: " + std::to_string(violations) + " existing " + s.type_name +
                                    " rows violate the added " + s.constraint + " (" + ids +
                                    (violations > bad.size() ? ", ..." : "") + "); first: " + first.message());
  }
  // Refuses an added @unique that existing rows violate (two rows with the same non-null tuple),
  // naming them; else gives the table the value index the new schema declares for the tuple.
  Status AddUnique(const compiler::MigrationStep& s) {
    const std::vector<std::vector<std::string>>* uniques = nullptr;
    if (s.is_edge) {
      if (const compiler::EdgeType* e = next_.FindEdge(s.type_name)) uniques = &e->uniques;
    } else if (const compiler::NodeType* n = next_.FindNode(s.type_name)) {
      uniques = &n->uniques;
    }
    const std::vector<std::string>* tuple = nullptr;
    for (size_t i = 0; uniques != nullptr && i < uniques->size(); ++i) {
      std::string label;
      for (const auto& c : (*uniques)[i]) label += (label.empty() ? "" : ", ") + c;
      if ("@unique(" + label + ")" == s.constraint) tuple = &(*uniques)[i];
    }
    if (tuple == nullptr) return InternalError("added " + s.constraint + " is not in the new schema of " + s.type_name);
    OG_ASSIGN_OR_RETURN(table::TableVersion t, Current(s.type_name));
    std::vector<std::string> columns{std::string(kIdColumn)};
    columns.insert(columns.end(), tuple->begin(), tuple->end());
    table::ScanOptions so;
    so.columns = columns;
    OG_ASSIGN_OR_RETURN(format::Batch rows, t.ScanAll(so));
    std::unordered_map<std::string, std::string> first_of;  // tuple -> the first row's id holding it
    std::vector<std::string> bad;
    uint64_t violations = 0;
    for (size_t r = 0; r < rows.num_rows(); ++r) {
      std::string key;
      bool has_null = false;
      for (size_t c = 1; c < columns.size(); ++c) {
        Value v = rows.GetValue(r, c);
        has_null = has_null || v.is_null();
        key += v.ToString() + '\x1f';
      }
      if (has_null) continue;  // null never collides
      const std::string id = rows.GetValue(r, 0).string_value();
      auto [it, fresh] = first_of.emplace(std::move(key), id);
      if (fresh) continue;
      if (violations++ < 20) bad.push_back(it->second + " = " + id);
    }
    if (violations > 0) {
      std::string list;
      for (const auto& b : bad) list += (list.empty() ? "" : ", ") + b;
      return Status(ErrorCode::kLoadUnique, "schema apply: " + std::to_string(violations) + " existing " + s.type_name +
                                                " rows repeat the values of another under the added " + s.constraint +
                                                " (" + list + (violations > bad.size() ? ", ..." : "") + ")");
    }
    OG_ASSIGN_OR_RETURN(table::TableSchema schema, NewTableSchema(next_, s.type_name, s.is_edge));
    for (table::FieldId id : schema.indexed_field_ids) {
      const table::Field* f = schema.FindById(id);
      if (f == nullptr || t.schema().FindByName(f->name) == nullptr) continue;
      OG_ASSIGN_OR_RETURN(t, table::AddValueIndex(t, f->name));
    }
    staged_.insert_or_assign(s.type_name, std::move(t));
    return Status::Ok();
  }

  // Refuses an added @card(min..max) that an existing source node's edge count violates, naming
  // the sources. As in loads and mutations, a node without edges of the type is not counted.
  Status CheckCardinality(const compiler::MigrationStep& s) {
    const compiler::EdgeType* e = next_.FindEdge(s.type_name);
    if (e == nullptr) return InternalError("constrained type '" + s.type_name + "' is not in the new schema");
    OG_ASSIGN_OR_RETURN(table::TableVersion t, Current(s.type_name));
    table::ScanOptions so;
    so.columns = std::vector<std::string>{std::string(kSrcColumn)};
    OG_ASSIGN_OR_RETURN(format::Batch rows, t.ScanAll(so));
    std::map<std::string, uint64_t> count;
    for (size_t r = 0; r < rows.num_rows(); ++r) ++count[rows.GetValue(r, 0).string_value()];
    std::vector<std::string> bad;
    uint64_t violations = 0;
    for (const auto& [src, n] : count) {
      if (n >= e->card.min && (!e->card.max || n <= *e->card.max)) continue;
      if (violations++ < 20) bad.push_back(src + " (" + std::to_string(n) + ")");
    }
    if (violations == 0) return Status::Ok();
    std::string list;
    for (const auto& b : bad) list += (list.empty() ? "" : ", ") + b;
    return Status(ErrorCode::kLoadCardinality, "schema apply: " + std::to_string(violations) + " existing " +
                                                   e->from_type + " sources have a number of " + s.type_name +
                                                   " edges outside the added " + s.constraint + " (" + list +
                                                   (violations > bad.size() ? ", ..." : "") + ")");
  }

  const std::map<std::string, TableRef>& refs() const { return refs_; }

 private:
  // The latest version of the table of (new) type `name`: staged by an earlier step, or the head's
  // (under its old name after a rename).
  Result<table::TableVersion> Current(const std::string& name) {
    auto staged = staged_.find(name);
    if (staged != staged_.end()) return staged->second;
    auto renamed = origin_.find(name);
    return snap_.Table(renamed != origin_.end() ? renamed->second : name);
  }

  const Snapshot& snap_;
  const compiler::Catalog& next_;
  std::map<std::string, TableRef> refs_;
  std::map<std::string, std::string> origin_;  // new type name -> name at the head
  std::map<std::string, table::TableVersion> staged_;
};

}  // namespace

Result<SchemaApplyResult> ApplySchema(Graph& graph, std::string_view schema_source, const SchemaApplyOptions& options) {
  OG_ASSIGN_OR_RETURN(compiler::Catalog proposed, compiler::CompileSchema(schema_source));
  SchemaApplyResult out;
  WriteRequest req;
  req.branch = options.branch;
  req.kind = WriteKind::kStrict;
  req.if_commit = options.if_commit;
  const std::string source(schema_source);
  req.prepare = [&](const Snapshot& snap) -> Result<PreparedWrite> {
    const compiler::Catalog& current = snap.catalog();
    compiler::MigrationOptions mo;
    mo.allow_data_loss = options.allow_data_loss;
    OG_ASSIGN_OR_RETURN(mo.row_counts, snap.RowCounts());
    compiler::MigrationPlan plan = compiler::PlanMigration(current, proposed, mo);
    for (const auto& s : plan.steps) {
      if (s.kind == compiler::MigrationStepKind::kUnsupportedChange) return StepError(s);
    }
    compiler::Catalog next = compiler::RebaseIds(current, proposed);
    out.steps = plan.steps.size();
    out.schema_id = next.SchemaId();
    PreparedWrite w;
    if (out.schema_id == snap.commit().schema_id) return w;  // already this schema: no commit
    Applier applier(snap, next);
    for (const auto& s : plan.steps) OG_RETURN_IF_ERROR(applier.Step(s));
    OG_ASSIGN_OR_RETURN(std::string id, WriteSchema(snap.store(), next, source));
    if (id != out.schema_id) return InternalError("schema id changed while it was written");
    w.tables = applier.TakeStaged();
    w.schema_id = id;
    w.table_refs = applier.refs();
    w.operation = "schema_apply";
    w.message = std::to_string(plan.steps.size()) + " migration steps";
    return w;
  };
  OG_ASSIGN_OR_RETURN(out.write, graph.Write(req));
  return out;
}

}  // namespace omnigraph::engine
