#include "common/output_json.h"

#include "common/error_codes.h"

#include <charconv>
#include <cmath>
#include <string>

namespace omnigraph {

Json F32Json(float f) {
  char buf[32];
  const auto printed = std::to_chars(buf, buf + sizeof(buf), f);
  double d = 0;
  std::from_chars(buf, printed.ptr, d);
  return Json(d);
}

Json ValueToJson(const Value& v) {
  if (v.is_null()) return nullptr;
  switch (v.kind()) {
    case TypeKind::kBool: return v.bool_value();
    case TypeKind::kI32: return v.int_value();
    case TypeKind::kI64:
      // Beyond ±2^53 a JSON number loses precision in most readers: a string (no abs: INT64_MIN).
      if (v.int_value() > (int64_t{1} << 53) || v.int_value() < -(int64_t{1} << 53)) {
        return std::to_string(v.int_value());
      }
      return v.int_value();
    case TypeKind::kU32: return v.uint_value();
    case TypeKind::kU64:
      if (v.uint_value() > (uint64_t{1} << 53)) return std::to_string(v.uint_value());
      return v.uint_value();
    case TypeKind::kF32:
    case TypeKind::kF64:
      if (std::isnan(v.float_value())) return "NaN";
      if (std::isinf(v.float_value())) return v.float_value() > 0 ? "Infinity" : "-Infinity";
      return v.kind() == TypeKind::kF32 ? F32Json(static_cast<float>(v.float_value())) : Json(v.float_value());
    case TypeKind::kDate: return FormatIsoDate(static_cast<int32_t>(v.int_value()));
    case TypeKind::kDateTime: return FormatIsoDateTimeMillis(v.int_value());
    case TypeKind::kString: return v.string_value();
    case TypeKind::kBlob: return "<blob>";
    case TypeKind::kVector: {
      Json a = Json::array();
      for (float f : v.vector_value()) a.push_back(std::isfinite(f) ? F32Json(f) : Json(nullptr));
      return a;
    }
    case TypeKind::kList: {
      Json a = Json::array();
      for (const auto& x : v.list_value()) a.push_back(ValueToJson(x));
      return a;
    }
  }
  return nullptr;
}

Json ChangeToJson(const EntityChange& c) {
  auto image = [&](const EntityImage& img) {
    Json p = Json::object();
    for (const auto& [name, value] : img.properties) p[name] = ValueToJson(value);
    Json j = {{"properties", p}};
    if (c.kind == EntityKind::kEdge) j["endpoints"] = {{"from", img.from}, {"to", img.to}};
    return j;
  };
  Json j = {{"kind", std::string(EntityKindName(c.kind))},
            {"type", {{"id", c.type_id}, {"name", c.type_name}}},
            {"id", c.id},
            {"op", std::string(ChangeOpName(c.op))}};
  if (c.before) j["before"] = image(*c.before);
  if (c.after) j["after"] = image(*c.after);
  return j;
}

OrderedJson EntityChangeOutputJson(const EntityChange& c) {
  auto image = [&](const EntityImage& img) {
    OrderedJson properties = OrderedJson::object();
    for (const auto& [name, value] : img.properties) properties[name] = OrderedJson(ValueToJson(value));
    OrderedJson j = OrderedJson::object();
    j["properties"] = std::move(properties);
    if (c.kind == EntityKind::kEdge) j["endpoints"] = OrderedJson{{"from", img.from}, {"to", img.to}};
    return j;
  };
  OrderedJson j = OrderedJson::object();
  j["kind"] = std::string(EntityKindName(c.kind));
  j["type"] = OrderedJson{{"id", c.type_id}, {"name", c.type_name}};
  j["id"] = c.id;
  j["op"] = std::string(ChangeOpName(c.op));
  if (c.before) j["before"] = image(*c.before);
  if (c.after) j["after"] = image(*c.after);
  return j;
}

OrderedJson ChangeCauseOutputJson(const CommitInfo& c) {
  OrderedJson j = OrderedJson::object();
  j["graph_commit_id"] = c.id;
  if (!c.parents.empty()) j["parent_commit_id"] = c.parents[0];
  if (c.parents.size() > 1) j["merged_parent_commit_id"] = c.parents[1];
  j["authored_branch"] = c.branch;
  if (c.actor) j["actor_id"] = *c.actor;
  j["authored_at"] = c.timestamp_us;
  return j;
}

OrderedJson CommitOutputJson(const CommitInfo& c) {
  OrderedJson j = OrderedJson::object();
  j["graph_commit_id"] = c.id;
  j["graph_branch"] = c.branch;
  j["graph_manifest_version"] = c.version ? OrderedJson(*c.version) : OrderedJson(nullptr);
  j["parent_commit_id"] = c.parents.empty() ? OrderedJson(nullptr) : OrderedJson(c.parents[0]);
  j["merged_parent_commit_id"] = c.parents.size() > 1 ? OrderedJson(c.parents[1]) : OrderedJson(nullptr);
  j["actor_id"] = c.actor ? OrderedJson(*c.actor) : OrderedJson(nullptr);
  j["created_at"] = c.timestamp_us;
  j["operation"] = c.operation;
  j["schema_id"] = c.schema_id;
  return j;
}

Json MergeConflictJson(const MergeConflict& c) {
  Json j = {{"entity_kind", std::string(EntityKindName(c.entity_kind))},
            {"type_name", c.type_name},
            {"entity_id", c.entity_id},
            {"kind", c.kind},
            {"message", c.message}};
  return j;
}

OrderedJson SchemaPlanStepsJson(const SchemaPlan& plan) {
  OrderedJson steps = OrderedJson::array();
  for (const auto& s : plan.steps) {
    OrderedJson j;
    j["kind"] = s.kind;
    j["type_kind"] = s.type_kind;
    j["type_name"] = s.type_name;
    auto opt = [&](const char* k, const std::string& v) {
      if (!v.empty()) j[k] = v;
    };
    opt("property", s.property);
    opt("old_name", s.old_name);
    opt("constraint", s.constraint);
    if (!s.added_values.empty()) j["added_values"] = s.added_values;
    opt("mode", s.mode);
    opt("code", s.code);
    opt("entity", s.entity);
    opt("reason", s.reason);
    steps.push_back(std::move(j));
  }
  return steps;
}

Status MergeConflictStatus(const std::string& source, const std::string& target,
                           const std::vector<MergeConflict>& conflicts) {
  const MergeConflict& first = conflicts.front();
  Json list = Json::array();
  for (const auto& c : conflicts) list.push_back(MergeConflictJson(c));
  return Status(ErrorCode::kMergeConflict, "merge of '" + source + "' into '" + target + "' has " +
                                               std::to_string(conflicts.size()) +
                                               " conflict(s), nothing was published; first: " + first.kind + " on " +
                                               first.type_name + " '" + first.entity_id + "': " + first.message)
      .WithDetails(CanonicalJson(Json{{"merge_conflicts", list}}));
}

}  // namespace omnigraph
