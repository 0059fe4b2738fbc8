#include "common/output_json.h"

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

Json CauseJson(const CommitInfo& c) {
  Json j = {{"graph_commit_id", c.id},
            {"authored_branch", c.branch},
            {"authored_at", c.timestamp_us},
            {"operation", c.operation}};
  if (!c.parents.empty()) j["parent_commit_id"] = c.parents[0];
  if (c.parents.size() > 1) j["merged_parent_commit_id"] = c.parents[1];
  if (c.actor) j["actor_id"] = *c.actor;
  return j;
}

Json CommitOutputJson(const CommitInfo& c) {
  return Json{{"graph_commit_id", c.id},
              {"graph_branch", c.branch},
              {"graph_manifest_version", c.version ? Json(*c.version) : Json(nullptr)},
              {"parent_commit_id", c.parents.empty() ? Json(nullptr) : Json(c.parents[0])},
              {"merged_parent_commit_id", c.parents.size() > 1 ? Json(c.parents[1]) : Json(nullptr)},
              {"actor_id", c.actor ? Json(*c.actor) : Json(nullptr)},
              {"created_at", c.timestamp_us},
              {"operation", c.operation},
              {"schema_id", c.schema_id}};
}

Json CommitObjectJson(const CommitInfo& c) {
  Json tables = Json::object();
  for (const auto& [name, t] : c.tables) {
    tables[name] = {
        {"kind", std::string(EntityKindName(t.kind))}, {"table_id", t.table_id}, {"version", t.table_version}};
  }
  Json summary = Json::object();
  for (const auto& [name, n] : c.summary) {
    summary[name] = {{"inserted", n.inserted}, {"updated", n.updated}, {"deleted", n.deleted}};
  }
  return Json{{"format_version", 1},
              {"id", c.id},
              {"parents", c.parents},
              {"branch", c.branch},
              {"actor", c.actor ? Json(*c.actor) : Json(nullptr)},
              {"timestamp_us", c.timestamp_us},
              {"operation", c.operation},
              {"schema_id", c.schema_id},
              {"tables", tables},
              {"summary", summary},
              {"message", c.message}};
}

Json MergeConflictJson(const MergeConflict& c) {
  Json j = {{"entity_kind", std::string(EntityKindName(c.entity_kind))},
            {"type_name", c.type_name},
            {"entity_id", c.entity_id},
            {"kind", c.kind},
            {"message", c.message}};
  return j;
}

}  // namespace omnigraph
