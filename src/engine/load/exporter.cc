#include "engine/load/exporter.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/base64.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/output_json.h"
#include "engine/graph/schema_store.h"
#include "format/blob_descriptor.h"

namespace omnigraph::engine {
namespace {

Result<Json> ToJson(const Value& v, const table::TableVersion& t) {
  if (v.is_null()) return Json(nullptr);
  switch (v.kind()) {
    case TypeKind::kString: return Json(v.string_value());
    case TypeKind::kBool: return Json(v.bool_value());
    case TypeKind::kI32:
    case TypeKind::kI64:
    case TypeKind::kDate:
    case TypeKind::kDateTime: return Json(v.int_value());
    case TypeKind::kU32:
    case TypeKind::kU64: return Json(v.uint_value());
    case TypeKind::kF32:
    case TypeKind::kF64:
      if (!std::isfinite(v.float_value())) {
        return InvalidArgumentError("cannot export a non-finite float (" + v.ToString() + ") as JSON");
      }
      return v.kind() == TypeKind::kF32 ? F32Json(static_cast<float>(v.float_value())) : Json(v.float_value());
    case TypeKind::kVector: {
      Json arr = Json::array();
      for (float f : v.vector_value()) arr.push_back(F32Json(f));
      return arr;
    }
    case TypeKind::kList: {
      Json arr = Json::array();
      for (const Value& item : v.list_value()) {
        OG_ASSIGN_OR_RETURN(Json j, ToJson(item, t));
        arr.push_back(std::move(j));
      }
      return arr;
    }
    case TypeKind::kBlob: {
      OG_ASSIGN_OR_RETURN(format::BlobDescriptor d, format::BlobDescriptor::Decode(v.string_value()));
      OG_ASSIGN_OR_RETURN(std::string payload, t.ReadBlob(d));
      return Json("base64:" + Base64Encode(payload));
    }
  }
  return InternalError("unknown value kind");
}

}  // namespace

Status ExportNdjson(const Snapshot& snap, const std::vector<std::string>& types,
                    const std::function<Status(std::string_view line)>& sink) {
  // (kind rank, name): edges first, then nodes, each alphabetical.
  std::vector<std::pair<int, std::string>> order;
  for (const auto& [name, ref] : snap.commit().tables) {
    if (!types.empty() && std::find(types.begin(), types.end(), name) == types.end()) continue;
    order.emplace_back(ref.kind == EntityKind::kEdge ? 0 : 1, name);
  }
  for (const auto& t : types) {
    if (!snap.commit().tables.count(t)) {
      return NotFoundError("export: no node or edge type named '" + t + "'");
    }
  }
  std::sort(order.begin(), order.end());
  for (const auto& [rank, name] : order) {
    bool is_edge = rank == 0;
    OG_ASSIGN_OR_RETURN(table::TableVersion t, snap.Table(name));
    OG_ASSIGN_OR_RETURN(format::Batch rows, t.ScanAll(table::ScanOptions{}));
    const auto& fields = t.schema().fields;
    size_t id_col = fields.size();
    for (size_t c = 0; c < fields.size(); ++c) {
      if (fields[c].name == kIdColumn) id_col = c;
    }
    if (id_col == fields.size()) return CorruptError("table of " + name + " has no id column");
    std::vector<size_t> perm(rows.num_rows());
    std::iota(perm.begin(), perm.end(), 0);
    std::vector<std::string> ids(rows.num_rows());
    for (size_t r = 0; r < rows.num_rows(); ++r) ids[r] = rows.GetValue(r, id_col).string_value();
    std::sort(perm.begin(), perm.end(), [&](size_t a, size_t b) { return ids[a] < ids[b]; });
    for (size_t r : perm) {
      // The Rust implementation's line: {"type": T, "data": {...}} or {"edge": E, "from", "to",
      // "data"}, `id` first in data, then the properties in schema order.
      OrderedJson line = OrderedJson::object();
      line[is_edge ? "edge" : "type"] = name;
      OrderedJson data = OrderedJson::object();
      data["id"] = ids[r];
      for (size_t c = 0; c < fields.size(); ++c) {
        if (c == id_col) continue;
        Value v = rows.GetValue(r, c);
        if (is_edge && (fields[c].name == kSrcColumn || fields[c].name == kDstColumn)) {
          line[fields[c].name == kSrcColumn ? "from" : "to"] = v.string_value();
          continue;
        }
        OG_ASSIGN_OR_RETURN(Json j, ToJson(v, t));
        data[fields[c].name] = OrderedJson(std::move(j));
      }
      line["data"] = std::move(data);
      OG_RETURN_IF_ERROR(sink(line.dump(-1, ' ', /*ensure_ascii=*/false, OrderedJson::error_handler_t::replace)));
    }
  }
  return Status::Ok();
}

}  // namespace omnigraph::engine
