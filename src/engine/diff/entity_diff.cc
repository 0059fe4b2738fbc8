#include "engine/diff/entity_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "common/error_codes.h"
#include "engine/graph/schema_carry.h"
#include "engine/graph/schema_store.h"
#include "io/staging_store.h"
#include "table/table_diff.h"

namespace omnigraph::engine {

bool ChangeFilter::Matches(EntityKind k, const std::string& type) const {
  if (!kinds.empty() && kinds.count(k) == 0) return false;
  return types.empty() || types.count(type) > 0;
}

bool ChangeFilter::Matches(const EntityChange& c) const {
  return Matches(c.kind, c.type_name) && (ops.empty() || ops.count(c.op) > 0);
}

Json ChangeFilter::ToJson() const {
  Json j = Json::object();
  if (kinds.size() == 1) j["kind"] = std::string(EntityKindName(*kinds.begin()));
  if (!types.empty()) j["types"] = Json(std::vector<std::string>(types.begin(), types.end()));
  if (ops.size() == 1) {
    j["op"] = std::string(ChangeOpName(*ops.begin()));
  } else if (ops.size() == 2) {  // three = every op = no filter
    Json names = Json::array();
    for (ChangeOp op : ops) names.push_back(std::string(ChangeOpName(op)));
    j["ops"] = std::move(names);
  }
  return j;
}

namespace {

struct TypeColumns {
  EntityKind kind = EntityKind::kNode;
  const std::vector<compiler::Property>* props = nullptr;
  std::vector<std::string> columns;  // id, [src, dst,] properties
};

Result<TypeColumns> ColumnsOf(const compiler::Catalog& catalog, const std::string& type) {
  TypeColumns out;
  out.columns.push_back(std::string(kIdColumn));
  if (const auto* n = catalog.FindNode(type)) {
    out.props = &n->properties;
  } else if (const auto* e = catalog.FindEdge(type)) {
    out.kind = EntityKind::kEdge;
    out.props = &e->properties;
    out.columns.push_back(std::string(kSrcColumn));
    out.columns.push_back(std::string(kDstColumn));
  } else {
    return NotFoundError("type '" + type + "' is not in the schema");
  }
  for (const auto& p : *out.props) out.columns.push_back(p.name);
  return out;
}

// id -> image of the rows at `addresses`.
Result<std::map<std::string, EntityImage>> ReadImages(const table::TableVersion& t, const TypeColumns& cols,
                                                      const std::vector<uint64_t>& addresses) {
  std::map<std::string, EntityImage> out;
  if (addresses.empty()) return out;
  OG_ASSIGN_OR_RETURN(format::Batch b, t.Take(addresses, cols.columns));
  const size_t first_prop = cols.kind == EntityKind::kEdge ? 3 : 1;
  for (size_t r = 0; r < b.num_rows(); ++r) {
    EntityImage img;
    if (cols.kind == EntityKind::kEdge) {
      img.src = b.GetValue(r, 1).string_value();
      img.dst = b.GetValue(r, 2).string_value();
    }
    for (size_t c = first_prop; c < cols.columns.size(); ++c) img.properties.push_back(b.GetValue(r, c));
    out[b.GetValue(r, 0).string_value()] = std::move(img);
  }
  return out;
}

// Addresses of every live row (for diffs between unrelated tables).
Result<std::vector<uint64_t>> AllAddresses(const table::TableVersion& t) {
  table::ScanOptions opts;
  opts.columns = std::vector<std::string>{};
  opts.with_row_address = true;
  OG_ASSIGN_OR_RETURN(format::Batch b, t.ScanAll(opts));
  std::vector<uint64_t> out;
  out.reserve(b.num_rows());
  for (size_t r = 0; r < b.num_rows(); ++r) out.push_back(b.GetValue(r, 0).uint_value());
  return out;
}

}  // namespace

Result<std::map<std::string, EntityChange>> DiffType(const Snapshot& from, const Snapshot& to,
                                                     const std::string& type_name) {
  auto a = from.commit().tables.find(type_name);
  auto b = to.commit().tables.find(type_name);
  if (b == to.commit().tables.end()) return NotFoundError("type '" + type_name + "' is not in the later snapshot");
  const bool added = a == from.commit().tables.end();  // a type added since `from`: it had no rows
  std::map<std::string, EntityChange> out;
  if (!added && a->second == b->second) return out;
  OG_ASSIGN_OR_RETURN(TypeColumns cols, ColumnsOf(to.catalog(), type_name));
  OG_ASSIGN_OR_RETURN(table::TableVersion tb, to.Table(type_name));
  std::optional<table::TableVersion> ta;
  if (!added) {
    OG_ASSIGN_OR_RETURN(ta, from.Table(type_name));
  }
  std::vector<uint64_t> deleted, inserted;
  if (added) {
    OG_ASSIGN_OR_RETURN(inserted, AllAddresses(tb));
  } else if (a->second.table_id == b->second.table_id) {
    OG_ASSIGN_OR_RETURN(table::TableDiff d, table::DiffVersions(*ta, tb));
    deleted = std::move(d.deleted);
    inserted = std::move(d.inserted);
  } else {
    OG_ASSIGN_OR_RETURN(deleted, AllAddresses(*ta));
    OG_ASSIGN_OR_RETURN(inserted, AllAddresses(tb));
  }
  std::map<std::string, EntityImage> before;
  if (ta) {
    OG_ASSIGN_OR_RETURN(before, ReadImages(*ta, cols, deleted));
  }
  OG_ASSIGN_OR_RETURN(auto after, ReadImages(tb, cols, inserted));
  auto add = [&](const std::string& id, ChangeOp op) -> EntityChange& {
    EntityChange& c = out[id];
    c.kind = cols.kind;
    c.type_name = type_name;
    c.type_id = b->second.table_id;
    c.id = id;
    c.op = op;
    return c;
  };
  for (auto& [id, img] : before) {
    auto it = after.find(id);
    if (it == after.end()) {
      add(id, ChangeOp::kDelete).before = std::move(img);
    } else if (!(it->second == img)) {  // same image = a physical rewrite (compaction): no change
      EntityChange& c = add(id, ChangeOp::kUpdate);
      c.before = std::move(img);
      c.after = std::move(it->second);
    }
  }
  for (auto& [id, img] : after) {
    if (before.count(id) == 0) add(id, ChangeOp::kInsert).after = std::move(img);
  }
  return out;
}

Result<std::vector<EntityChange>> DiffSnapshots(const Snapshot& from_in, const Snapshot& to, const ChangeFilter& filter,
                                                Lineage lineage) {
  Snapshot from = from_in;
  // Read-only scratch for the carried metadata: it is dropped with this call, never flushed.
  std::optional<io::StagingStore> scratch;
  if (from.commit().schema_id != to.commit().schema_id) {
    if (lineage != Lineage::kFromIsAncestor) {
      return Status(ErrorCode::kSchemaBoundary,
                    "commits " + from.commit().id + " and " + to.commit().id +
                        " have different schemas and the first is not an ancestor of the second; a diff across a "
                        "schema change runs only forward along history (older commit first)");
    }
    scratch.emplace(from.store());
    OG_ASSIGN_OR_RETURN(from, CarryToSchema(from, to, &*scratch, AddedTypes::kOmit));
  }
  std::vector<std::pair<int, std::string>> types;  // (0 = node, 1 = edge, name)
  for (const auto& n : to.catalog().nodes()) types.emplace_back(0, n.name);
  for (const auto& e : to.catalog().edges()) types.emplace_back(1, e.name);
  std::sort(types.begin(), types.end());
  std::vector<EntityChange> out;
  for (const auto& [k, name] : types) {
    if (!filter.Matches(k == 0 ? EntityKind::kNode : EntityKind::kEdge, name)) continue;
    OG_ASSIGN_OR_RETURN(auto changes, DiffType(from, to, name));
    for (auto& [id, c] : changes) {
      if (filter.Matches(c)) out.push_back(std::move(c));
    }
  }
  return out;
}

omnigraph::EntityChange ToPublicChange(const compiler::Catalog& catalog, const EntityChange& c) {
  const std::vector<compiler::Property>* props = nullptr;
  if (c.kind == EntityKind::kNode) {
    if (const auto* n = catalog.FindNode(c.type_name)) props = &n->properties;
  } else if (const auto* e = catalog.FindEdge(c.type_name)) {
    props = &e->properties;
  }
  auto image = [&](const EntityImage& img) {
    omnigraph::EntityImage out;
    for (size_t i = 0; props && i < props->size() && i < img.properties.size(); ++i) {
      out.properties.emplace_back((*props)[i].name, img.properties[i]);
    }
    out.from = img.src;
    out.to = img.dst;
    return out;
  };
  omnigraph::EntityChange out;
  out.kind = c.kind;
  out.type_name = c.type_name;
  out.type_id = c.type_id;
  out.id = c.id;
  out.op = c.op;
  if (c.before) out.before = image(*c.before);
  if (c.after) out.after = image(*c.after);
  return out;
}

Json ChangeToJson(const compiler::Catalog& catalog, const EntityChange& c) {
  return omnigraph::ChangeToJson(ToPublicChange(catalog, c));
}

}  // namespace omnigraph::engine
