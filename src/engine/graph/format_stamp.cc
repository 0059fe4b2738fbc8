#include "engine/graph/format_stamp.h"

#include "common/error_codes.h"
#include "common/json.h"
#include "engine/graph/graph_layout.h"

namespace omnigraph::engine {

std::string SerializeStamp(const FormatStamp& s) {
  Json j = {{"format", "omnigraph"},
            {"format_version", s.format_version},
            {"graph_id", s.graph_id},
            {"created_at_us", s.created_at_us},
            {"created_by", s.created_by}};
  return CanonicalJson(j);
}

Result<FormatStamp> ParseStamp(std::string_view bytes) {
  auto unknown = [](std::string why) {
    return Status(ErrorCode::kFormatUnknown, "not an Omnigraph graph of a known format: " + why);
  };
  auto j = ParseJson(bytes, std::string(kFormatStampKey));
  if (!j.ok() || !j->is_object()) return unknown("_omnigraph.json is not a JSON object");
  // (Compared as a std::string: json == const char* trips a GCC 12 -Warray-bounds false positive.)
  if (!j->contains("format") || !(*j)["format"].is_string() ||
      (*j)["format"].get_ref<const std::string&>() != "omnigraph") {
    return unknown("_omnigraph.json does not say \"format\": \"omnigraph\"");
  }
  if (!j->contains("format_version") || !(*j)["format_version"].is_number_integer()) {
    return unknown("_omnigraph.json has no integer format_version");
  }
  FormatStamp s;
  s.format_version = (*j)["format_version"].get<int>();
  if (s.format_version > kStorageFormatVersion) {
    return Status(ErrorCode::kFormatTooNew, "the graph uses storage format " + std::to_string(s.format_version) +
                                                ", newer than this omnigraph supports (" +
                                                std::to_string(kStorageFormatVersion) + "); upgrade omnigraph");
  }
  if (s.format_version < kStorageFormatVersion) {
    return unknown("storage format " + std::to_string(s.format_version) + " is older than any this omnigraph reads");
  }
  s.graph_id = j->value("graph_id", std::string());
  s.created_at_us = j->value("created_at_us", int64_t{0});
  s.created_by = j->value("created_by", std::string());
  return s;
}

Result<FormatStamp> ReadStamp(io::ObjectStore& store) {
  auto bytes = store.Get(kFormatStampKey);
  if (!bytes.ok()) {
    if (bytes.status().category() == StatusCode::kNotFound) {
      return NotFoundError("no Omnigraph graph at " + store.Describe() + " (no " + std::string(kFormatStampKey) +
                           "); create one with `omnigraph init`");
    }
    return bytes.status();
  }
  return ParseStamp(*bytes);
}

}  // namespace omnigraph::engine
