#include "engine/graph/schema_carry.h"

#include <set>

#include "common/error_codes.h"
#include "engine/graph/schema_store.h"
#include "table/table_writer.h"

namespace omnigraph::engine {
namespace {

// A type of either kind, as the carry needs it.
struct TypeView {
  uint32_t id = 0;
  std::string name;
  bool is_edge = false;
  const std::vector<compiler::Property>* props = nullptr;
  const compiler::NodeType* node = nullptr;
  const compiler::EdgeType* edge = nullptr;
};

std::vector<TypeView> TypesOf(const compiler::Catalog& c) {
  std::vector<TypeView> out;
  for (const auto& n : c.nodes()) out.push_back({n.id, n.name, false, &n.properties, &n, nullptr});
  for (const auto& e : c.edges()) out.push_back({e.id, e.name, true, &e.properties, nullptr, &e});
  return out;
}

const TypeView* ById(const std::vector<TypeView>& types, uint32_t id) {
  for (const auto& t : types) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

const compiler::Property* PropById(const std::vector<compiler::Property>& props, uint32_t id) {
  for (const auto& p : props) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

// The property ids of a node type's @key, in key order.
std::vector<uint32_t> KeyIds(const compiler::NodeType& n) {
  std::vector<uint32_t> out;
  for (const auto& k : n.key) {
    const compiler::Property* p = n.FindProperty(k);
    out.push_back(p == nullptr ? 0 : p->id);
  }
  return out;
}

Status Boundary(const std::string& type, const std::string& why) {
  return Status(ErrorCode::kSchemaBoundary, "type '" + type + "' cannot be carried into the newer schema: " + why);
}

// `t` (a table of `old`) reshaped into the columns of `now`; metadata only.
Result<table::TableVersion> Reshape(table::TableVersion t, const TypeView& old, const TypeView& now) {
  OG_ASSIGN_OR_RETURN(table::TableSchema target, now.is_edge ? EdgeTableSchema(*now.edge) : NodeTableSchema(*now.node));
  // Drops first (their names may be taken by renames), then renames through temporary names when a
  // target name is still taken (a swap), then additions and widened nullability.
  for (const auto& op : *old.props) {
    if (PropById(*now.props, op.id) == nullptr) {
      OG_ASSIGN_OR_RETURN(t, table::DropColumn(t, op.name));
    }
  }
  std::vector<std::pair<std::string, std::string>> renames;  // old name -> new name
  for (const auto& np : *now.props) {
    const compiler::Property* op = PropById(*old.props, np.id);
    if (op == nullptr) continue;
    if (!(op->type == np.type)) {
      return Boundary(now.name, "property '" + np.name + "' changed type");
    }
    if (op->nullable && !np.nullable) {
      return Boundary(now.name, "property '" + np.name + "' became required");
    }
    if (op->name != np.name) renames.emplace_back(op->name, np.name);
  }
  bool taken = false;
  for (const auto& [from, to] : renames) taken = taken || t.schema().FindByName(to) != nullptr;
  if (taken) {
    for (auto& [from, to] : renames) {
      std::string temp = "__og_carry_" + from;
      OG_ASSIGN_OR_RETURN(t, table::RenameColumn(t, from, temp));
      from = std::move(temp);
    }
  }
  for (const auto& [from, to] : renames) {
    OG_ASSIGN_OR_RETURN(t, table::RenameColumn(t, from, to));
  }
  for (const auto& np : *now.props) {
    const compiler::Property* op = PropById(*old.props, np.id);
    const table::Field* f = target.FindByName(np.name);
    if (f == nullptr) return InternalError("property '" + np.name + "' has no column in the new table schema");
    if (op == nullptr) {
      OG_ASSIGN_OR_RETURN(t, table::AddColumn(t, np.name, f->type));
    } else if (!op->nullable && np.nullable) {
      OG_ASSIGN_OR_RETURN(t, table::MakeColumnNullable(t, np.name));
    }
  }
  return t;
}

// Whether `old` needs any column change to be read as `now`.
bool ColumnsChange(const TypeView& old, const TypeView& now) {
  if (old.props->size() != now.props->size()) return true;
  for (const auto& np : *now.props) {
    const compiler::Property* op = PropById(*old.props, np.id);
    if (op == nullptr || op->name != np.name || op->nullable != np.nullable || !(op->type == np.type)) return true;
  }
  return false;
}

}  // namespace

Result<Snapshot> CarryToSchema(const Snapshot& from, const Snapshot& to, io::ObjectStore* store, AddedTypes added) {
  const std::vector<TypeView> old_types = TypesOf(from.catalog());
  const std::vector<TypeView> new_types = TypesOf(to.catalog());
  const Snapshot source = from.Rebind(store);
  auto commit = std::make_shared<Commit>(from.commit());
  commit->schema_id = to.commit().schema_id;
  commit->tables.clear();
  for (const TypeView& now : new_types) {
    const TableRef& to_ref = to.commit().tables.at(now.name);
    const TypeView* old = ById(old_types, now.id);
    if (old == nullptr) {  // added since: no data in `from`
      if (added == AddedTypes::kTakeTarget) commit->tables[now.name] = to_ref;
      continue;
    }
    if (old->is_edge != now.is_edge) return Boundary(now.name, "it changed kind");
    const TableRef& from_ref = from.commit().tables.at(old->name);
    OG_ASSIGN_OR_RETURN(table::TableVersion t, source.Table(old->name));
    if (now.is_edge) {
      auto id_of = [](const compiler::Catalog& c, const std::string& node) {
        const compiler::NodeType* n = c.FindNode(node);
        return n == nullptr ? 0 : n->id;
      };
      if (id_of(from.catalog(), old->edge->from_type) != id_of(to.catalog(), now.edge->from_type) ||
          id_of(from.catalog(), old->edge->to_type) != id_of(to.catalog(), now.edge->to_type)) {
        return Boundary(now.name, "its endpoints changed");
      }
    } else if (KeyIds(*old->node) != KeyIds(*now.node) && t.row_count() > 0) {
      // Ids are made from the key: rows of the old key have no identity under the new one.
      return Boundary(now.name, "its @key changed and it holds " + std::to_string(t.row_count()) + " rows");
    }
    if (!ColumnsChange(*old, now)) {
      commit->tables[now.name] = from_ref;
      continue;
    }
    OG_ASSIGN_OR_RETURN(table::TableVersion carried, Reshape(std::move(t), *old, now));
    commit->tables[now.name] = TableRef{from_ref.kind, from_ref.table_id, carried.version_id()};
  }
  return from.WithCommit(store, std::move(commit), to.shared_catalog());
}

}  // namespace omnigraph::engine
