#include "compiler/migration_planner.h"

#include <algorithm>
#include <set>

#include "common/json.h"

namespace omnigraph::compiler {
namespace {

// A uniform view of a node or edge type.
struct TypeRef {
  const std::string* name = nullptr;
  uint32_t id = 0;
  bool is_edge = false;
  const std::vector<Property>* props = nullptr;
  const Metadata* meta = nullptr;
  const NodeType* node = nullptr;
  const EdgeType* edge = nullptr;
  uint32_t high_water = 0;  // property_id_high_water
};

TypeRef Ref(const NodeType& n) {
  return {&n.name, n.id, false, &n.properties, &n.meta, &n, nullptr, n.property_id_high_water};
}
TypeRef Ref(const EdgeType& e) {
  return {&e.name, e.id, true, &e.properties, &e.meta, nullptr, &e, e.property_id_high_water};
}

std::vector<TypeRef> AllTypes(const Catalog& c) {
  std::vector<TypeRef> out;
  for (const auto& n : c.nodes()) out.push_back(Ref(n));
  for (const auto& e : c.edges()) out.push_back(Ref(e));
  std::sort(out.begin(), out.end(), [](const TypeRef& a, const TypeRef& b) { return a.id < b.id; });
  return out;
}

const TypeRef* FindType(const std::vector<TypeRef>& types, std::string_view name) {
  for (const auto& t : types) {
    if (*t.name == name) return &t;
  }
  return nullptr;
}

const Property* FindProp(const std::vector<Property>& props, std::string_view name) {
  for (const auto& p : props) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// Matches items of `to` with items of `from` by name, then by @rename_from (when the old name is
// absent from `to`). Returns for each `to` item the matched `from` name (empty = new) and reports
// bad renames through `bad` (to-name -> reason).
template <class T, class NameOf, class MetaOf>
std::vector<std::string> Match(const std::vector<T>& from, const std::vector<T>& to, NameOf name_of, MetaOf meta_of,
                               std::map<std::string, std::string>* bad) {
  std::set<std::string> from_names, to_names;
  for (const auto& f : from) from_names.insert(name_of(f));
  for (const auto& t : to) to_names.insert(name_of(t));
  std::vector<std::string> out;
  std::set<std::string> claimed;
  for (const auto& t : to) {
    const std::string& n = name_of(t);
    const std::string& old = meta_of(t).rename_from;
    if (from_names.count(n)) {
      out.push_back(n);
    } else if (!old.empty()) {
      if (!from_names.count(old)) {
        (*bad)[n] = "@rename_from(\"" + old + "\") names something absent from the current schema";
        out.push_back("");
      } else if (to_names.count(old)) {
        (*bad)[n] = "@rename_from(\"" + old + "\") names something still present in the new schema";
        out.push_back("");
      } else if (!claimed.insert(old).second) {
        (*bad)[n] = "@rename_from(\"" + old + "\") is claimed by two renames";
        out.push_back("");
      } else {
        out.push_back(old);
      }
    } else {
      out.push_back("");
    }
    if (!out.back().empty()) claimed.insert(out.back());
  }
  return out;
}

std::string JoinNames(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

// Constraint descriptions of a type (other than @key), with property names mapped by `rename`.
std::set<std::string> Constraints(const TypeRef& t, const std::map<std::string, std::string>& rename) {
  auto m = [&](const std::string& n) {
    auto it = rename.find(n);
    return it == rename.end() ? n : it->second;
  };
  auto mapped = [&](const std::vector<std::string>& v) {
    std::vector<std::string> out;
    for (const auto& n : v) out.push_back(m(n));
    return out;
  };
  std::set<std::string> out;
  const std::vector<std::string> no_key;
  const auto& key = t.node ? t.node->key : no_key;
  for (const auto& p : *t.props) {
    if (p.index != IndexKind::kNone && std::find(key.begin(), key.end(), p.name) == key.end()) {
      out.insert("@index(" + m(p.name) + ")");
    }
  }
  const auto& uniques = t.node ? t.node->uniques : t.edge->uniques;
  for (const auto& u : uniques) out.insert("@unique(" + JoinNames(mapped(u)) + ")");
  if (t.node) {
    for (const auto& r : t.node->ranges) {
      out.insert("@range(" + m(r.property) + ", " + r.min.value_or("") + ".." + r.max.value_or("") + ")");
    }
    for (const auto& c : t.node->checks) {
      out.insert("@check(" + m(c.property) + ", " + Json(c.pattern).dump() + ")");
    }
  } else if (!t.edge->card.is_default()) {
    out.insert("@card(" + std::to_string(t.edge->card.min) + ".." +
               (t.edge->card.max ? std::to_string(*t.edge->card.max) : std::string()) + ")");
  }
  return out;
}

bool SameDocs(const Metadata& a, const Metadata& b) {
  return a.description == b.description && a.instruction == b.instruction && a.annotations == b.annotations;
}

class Planner {
 public:
  Planner(const Catalog& from, const Catalog& to, const MigrationOptions& opt)
      : opt_(opt), old_types_(AllTypes(from)), new_types_(AllTypes(to)) {}

  MigrationPlan Run() {
    std::map<std::string, std::string> bad;
    auto name_of = [](const TypeRef& t) -> const std::string& { return *t.name; };
    auto meta_of = [](const TypeRef& t) -> const Metadata& { return *t.meta; };
    std::vector<std::string> match = Match(old_types_, new_types_, name_of, meta_of, &bad);
    std::set<std::string> matched_old;
    for (size_t i = 0; i < new_types_.size(); ++i) {
      const TypeRef& nt = new_types_[i];
      if (!match[i].empty()) type_rename_[match[i]] = *nt.name;
    }
    std::vector<MigrationStep> per_type;
    for (size_t i = 0; i < new_types_.size(); ++i) {
      const TypeRef& nt = new_types_[i];
      if (bad.count(*nt.name)) {
        Unsupported("OG-MF-110", *nt.name, bad[*nt.name], *nt.name, nt.is_edge);
        continue;
      }
      if (match[i].empty()) {
        MigrationStep s = Step(MigrationStepKind::kAddType, *nt.name, nt.is_edge);
        adds_.push_back(s);
        continue;
      }
      const TypeRef& ot = *FindType(old_types_, match[i]);
      matched_old.insert(*ot.name);
      if (ot.is_edge != nt.is_edge) {
        Unsupported("OG-MF-111", *nt.name,
                    "`" + *ot.name + "` is " + (ot.is_edge ? "an edge" : "a node") + " type and cannot become " +
                        (nt.is_edge ? "an edge" : "a node") + " type",
                    *nt.name, nt.is_edge);
        continue;
      }
      if (*ot.name != *nt.name) {
        MigrationStep s = Step(MigrationStepKind::kRenameType, *nt.name, nt.is_edge);
        s.old_name = *ot.name;
        renames_.push_back(s);
      }
      DiffType(ot, nt);
    }
    // Drops: edges first, then nodes, each in old id order.
    for (bool edges : {true, false}) {
      for (const auto& ot : old_types_) {
        if (ot.is_edge != edges || matched_old.count(*ot.name)) continue;
        MigrationStep s = Step(MigrationStepKind::kDropType, *ot.name, ot.is_edge);
        s.mode = opt_.allow_data_loss ? DropMode::kHard : DropMode::kSoft;
        if (Rows(*ot.name) > 0) {
          s.code = ot.is_edge ? "OG-DS-103" : "OG-DS-102";
          s.reason = "drops populated " + std::string(ot.is_edge ? "edge" : "node") + " type `" + *ot.name + "` (" +
                     std::to_string(Rows(*ot.name)) + " rows)";
        }
        drops_.push_back(s);
      }
    }
    MigrationPlan plan;
    for (auto* list : {&renames_, &adds_, &body_, &drops_}) {
      plan.steps.insert(plan.steps.end(), list->begin(), list->end());
    }
    return plan;
  }

 private:
  uint64_t Rows(const std::string& old_type) const {
    auto it = opt_.row_counts.find(old_type);
    return it == opt_.row_counts.end() ? 0 : it->second;
  }

  static MigrationStep Step(MigrationStepKind k, const std::string& type, bool is_edge) {
    MigrationStep s;
    s.kind = k;
    s.type_name = type;
    s.is_edge = is_edge;
    s.entity = type;
    return s;
  }

  void Unsupported(const char* code, const std::string& entity, std::string reason, const std::string& type,
                   bool is_edge) {
    MigrationStep s = Step(MigrationStepKind::kUnsupportedChange, type, is_edge);
    s.code = code;
    s.entity = entity;
    s.reason = std::move(reason);
    body_.push_back(std::move(s));
  }

  void DiffType(const TypeRef& ot, const TypeRef& nt) {
    const std::string& tn = *nt.name;
    bool populated = Rows(*ot.name) > 0;
    if (nt.is_edge) {
      auto mapped = [&](const std::string& n) {
        auto it = type_rename_.find(n);
        return it == type_rename_.end() ? n : it->second;
      };
      if (mapped(ot.edge->from_type) != nt.edge->from_type || mapped(ot.edge->to_type) != nt.edge->to_type) {
        Unsupported("OG-MF-108", tn,
                    "edge endpoints change from " + ot.edge->from_type + " -> " + ot.edge->to_type + " to " +
                        nt.edge->from_type + " -> " + nt.edge->to_type,
                    tn, true);
        return;
      }
    }
    if (!SameDocs(*ot.meta, *nt.meta)) {
      body_.push_back(Step(MigrationStepKind::kUpdateTypeMetadata, tn, nt.is_edge));
    }
    std::map<std::string, std::string> bad;
    auto name_of = [](const Property& p) -> const std::string& { return p.name; };
    auto meta_of = [](const Property& p) -> const Metadata& { return p.meta; };
    std::vector<std::string> match = Match(*ot.props, *nt.props, name_of, meta_of, &bad);
    std::map<std::string, std::string> prop_rename;  // old -> new
    std::set<std::string> matched;
    std::vector<MigrationStep> drops;
    for (size_t i = 0; i < nt.props->size(); ++i) {
      const Property& np = (*nt.props)[i];
      std::string entity = tn + "." + np.name;
      if (bad.count(np.name)) {
        Unsupported("OG-MF-110", entity, bad[np.name], tn, nt.is_edge);
        continue;
      }
      if (match[i].empty()) {
        if (!np.nullable && populated) {
          Unsupported("OG-MF-103", entity,
                      "adds required property `" + np.name + "` to populated type `" + tn + "` (" +
                          std::to_string(Rows(*ot.name)) + " rows); make it nullable",
                      tn, nt.is_edge);
          continue;
        }
        MigrationStep s = Step(MigrationStepKind::kAddProperty, tn, nt.is_edge);
        s.property = np.name;
        s.entity = entity;
        body_.push_back(s);
        continue;
      }
      const Property& op = *FindProp(*ot.props, match[i]);
      matched.insert(op.name);
      prop_rename[op.name] = np.name;
      if (op.name != np.name) {
        MigrationStep s = Step(MigrationStepKind::kRenameProperty, tn, nt.is_edge);
        s.property = np.name;
        s.old_name = op.name;
        s.entity = entity;
        body_.push_back(s);
      }
      DiffProperty(op, np, tn, nt.is_edge, entity);
    }
    for (const auto& op : *ot.props) {
      if (matched.count(op.name)) continue;
      MigrationStep s = Step(MigrationStepKind::kDropProperty, tn, nt.is_edge);
      s.property = op.name;
      s.entity = tn + "." + op.name;
      s.mode = opt_.allow_data_loss ? DropMode::kHard : DropMode::kSoft;
      if (populated) {
        s.code = "OG-DS-104";
        s.reason = "drops property `" + op.name + "` of populated type `" + tn + "`";
      }
      drops.push_back(s);
    }
    // Key.
    if (!nt.is_edge) {
      std::vector<std::string> old_key;
      for (const auto& k : ot.node->key) {
        old_key.push_back(prop_rename.count(k) ? prop_rename[k] : k);
      }
      if (old_key != nt.node->key) {
        if (populated) {
          Unsupported("OG-MF-109", tn,
                      "changes the @key of populated type `" + tn + "` from (" + JoinNames(old_key) + ") to (" +
                          JoinNames(nt.node->key) + ")",
                      tn, false);
        } else {
          if (!old_key.empty())
            ConstraintStep(MigrationStepKind::kDropConstraint, nt, "@key(" + JoinNames(old_key) + ")");
          if (!nt.node->key.empty())
            ConstraintStep(MigrationStepKind::kAddConstraint, nt, "@key(" + JoinNames(nt.node->key) + ")");
        }
      }
    }
    std::set<std::string> oc = Constraints(ot, prop_rename), nc = Constraints(nt, {});
    for (const auto& c : oc) {
      if (!nc.count(c)) ConstraintStep(MigrationStepKind::kDropConstraint, nt, c);
    }
    for (const auto& c : nc) {
      if (!oc.count(c)) ConstraintStep(MigrationStepKind::kAddConstraint, nt, c);
    }
    body_.insert(body_.end(), drops.begin(), drops.end());
  }

  void ConstraintStep(MigrationStepKind k, const TypeRef& t, std::string c) {
    MigrationStep s = Step(k, *t.name, t.is_edge);
    s.constraint = std::move(c);
    body_.push_back(std::move(s));
  }

  void DiffProperty(const Property& op, const Property& np, const std::string& tn, bool is_edge,
                    const std::string& entity) {
    if (op.type != np.type || op.is_enum() != np.is_enum()) {
      Unsupported(
          "OG-MF-106", entity,
          "changes the type of `" + np.name + "` from " + PropertyTypeSource(op) + " to " + PropertyTypeSource(np), tn,
          is_edge);
      return;
    }
    if (op.is_enum()) {
      std::vector<std::string> removed, added;
      std::set_difference(op.enum_values.begin(), op.enum_values.end(), np.enum_values.begin(), np.enum_values.end(),
                          std::back_inserter(removed));
      std::set_difference(np.enum_values.begin(), np.enum_values.end(), op.enum_values.begin(), op.enum_values.end(),
                          std::back_inserter(added));
      if (!removed.empty()) {
        Unsupported("OG-MF-106", entity, "narrows enum `" + np.name + "` (removes " + JoinNames(removed) + ")", tn,
                    is_edge);
        return;
      }
      if (!added.empty()) {
        MigrationStep s = Step(MigrationStepKind::kExtendEnum, tn, is_edge);
        s.property = np.name;
        s.entity = entity;
        s.added_values = added;
        body_.push_back(s);
      }
    }
    if (op.nullable && !np.nullable) {
      Unsupported("OG-MF-106", entity, "makes nullable property `" + np.name + "` required", tn, is_edge);
      return;
    }
    if (!op.nullable && np.nullable) {
      MigrationStep s = Step(MigrationStepKind::kMakeNullable, tn, is_edge);
      s.property = np.name;
      s.entity = entity;
      body_.push_back(s);
    }
    if (op.embed && np.embed && !(*op.embed == *np.embed)) {
      Unsupported("OG-MF-107", entity,
                  "changes @embed of `" + np.name + "` (source/model " + op.embed->source + "/" + op.embed->model +
                      " -> " + np.embed->source + "/" + np.embed->model + ")",
                  tn, is_edge);
      return;
    }
    if (!SameDocs(op.meta, np.meta) || op.embed.has_value() != np.embed.has_value()) {
      MigrationStep s = Step(MigrationStepKind::kUpdatePropertyMetadata, tn, is_edge);
      s.property = np.name;
      s.entity = entity;
      body_.push_back(s);
    }
  }

  const MigrationOptions& opt_;
  std::vector<TypeRef> old_types_, new_types_;
  std::map<std::string, std::string> type_rename_;  // old -> new
  std::vector<MigrationStep> renames_, adds_, body_, drops_;
};

}  // namespace

std::string_view MigrationStepKindName(MigrationStepKind kind) {
  switch (kind) {
    case MigrationStepKind::kAddType: return "add_type";
    case MigrationStepKind::kRenameType: return "rename_type";
    case MigrationStepKind::kAddProperty: return "add_property";
    case MigrationStepKind::kRenameProperty: return "rename_property";
    case MigrationStepKind::kExtendEnum: return "extend_enum";
    case MigrationStepKind::kMakeNullable: return "make_nullable";
    case MigrationStepKind::kUpdateTypeMetadata: return "update_type_metadata";
    case MigrationStepKind::kUpdatePropertyMetadata: return "update_property_metadata";
    case MigrationStepKind::kDropConstraint: return "drop_constraint";
    case MigrationStepKind::kAddConstraint: return "add_constraint";
    case MigrationStepKind::kDropProperty: return "drop_property";
    case MigrationStepKind::kDropType: return "drop_type";
    case MigrationStepKind::kUnsupportedChange: return "unsupported_change";
  }
  return "?";
}

bool MigrationPlan::supported() const {
  return std::none_of(steps.begin(), steps.end(),
                      [](const MigrationStep& s) { return s.kind == MigrationStepKind::kUnsupportedChange; });
}

std::string MigrationPlan::ToJson() const {
  Json arr = Json::array();
  for (const auto& s : steps) {
    Json j{{"kind", MigrationStepKindName(s.kind)},
           {"type_name", s.type_name},
           {"type_kind", s.is_edge ? "edge" : "node"}};
    if (!s.property.empty()) j["property"] = s.property;
    if (!s.old_name.empty()) j["old_name"] = s.old_name;
    if (!s.constraint.empty()) j["constraint"] = s.constraint;
    if (!s.added_values.empty()) j["added_values"] = s.added_values;
    if (s.kind == MigrationStepKind::kDropType || s.kind == MigrationStepKind::kDropProperty) {
      j["mode"] = s.mode == DropMode::kHard ? "hard" : "soft";
    }
    if (!s.code.empty()) j["code"] = s.code;
    if (!s.entity.empty()) j["entity"] = s.entity;
    if (!s.reason.empty()) j["reason"] = s.reason;
    arr.push_back(std::move(j));
  }
  return CanonicalJson(Json{{"supported", supported()}, {"steps", std::move(arr)}});
}

MigrationPlan PlanMigration(const Catalog& from, const Catalog& to, const MigrationOptions& options) {
  return Planner(from, to, options).Run();
}

namespace {

template <class T>
void RebaseProperties(const std::vector<Property>& old_props, uint32_t old_high_water, T* t) {
  std::map<std::string, std::string> bad;
  auto name_of = [](const Property& p) -> const std::string& { return p.name; };
  auto meta_of = [](const Property& p) -> const Metadata& { return p.meta; };
  std::vector<std::string> match = Match(old_props, t->properties, name_of, meta_of, &bad);
  uint32_t next = old_high_water;  // never below an id the type ever had (dropped ones included)
  for (const auto& p : old_props) next = std::max(next, p.id);
  for (size_t i = 0; i < t->properties.size(); ++i) {
    const Property* op = match[i].empty() ? nullptr : FindProp(old_props, match[i]);
    t->properties[i].id = op ? op->id : ++next;
  }
  t->property_id_high_water = next;
}

}  // namespace

Catalog RebaseIds(const Catalog& from, const Catalog& to) {
  std::vector<TypeRef> old_types = AllTypes(from), new_types = AllTypes(to);
  std::map<std::string, std::string> bad;
  auto name_of = [](const TypeRef& t) -> const std::string& { return *t.name; };
  auto meta_of = [](const TypeRef& t) -> const Metadata& { return *t.meta; };
  std::vector<std::string> match = Match(old_types, new_types, name_of, meta_of, &bad);
  uint32_t next = from.type_id_high_water();  // dropped types' ids are never reused
  for (const auto& t : old_types) next = std::max(next, t.id);
  std::map<std::string, const TypeRef*> old_of;  // new name -> matched old type (same kind)
  for (size_t i = 0; i < new_types.size(); ++i) {
    const TypeRef* ot = match[i].empty() ? nullptr : FindType(old_types, match[i]);
    if (ot && ot->is_edge == new_types[i].is_edge) old_of[*new_types[i].name] = ot;
  }
  std::map<std::string, uint32_t> new_id;
  for (const auto& t : new_types) {  // id order of `to`, so fresh ids follow declaration order
    auto it = old_of.find(*t.name);
    new_id[*t.name] = it != old_of.end() ? it->second->id : ++next;
  }
  std::vector<NodeType> nodes = to.nodes();
  std::vector<EdgeType> edges = to.edges();
  for (auto& n : nodes) {
    n.id = new_id[n.name];
    auto it = old_of.find(n.name);
    RebaseProperties(it != old_of.end() ? *it->second->props : std::vector<Property>{},
                     it != old_of.end() ? it->second->high_water : 0, &n);
  }
  for (auto& e : edges) {
    e.id = new_id[e.name];
    auto it = old_of.find(e.name);
    RebaseProperties(it != old_of.end() ? *it->second->props : std::vector<Property>{},
                     it != old_of.end() ? it->second->high_water : 0, &e);
  }
  return Catalog(to.interfaces(), std::move(nodes), std::move(edges), next);
}

}  // namespace omnigraph::compiler
