#include "engine/graph/commit.h"

#include "common/error_codes.h"
#include "engine/graph/graph_layout.h"
#include "engine/graph/sealed_json.h"

namespace omnigraph::engine {
namespace {

Status Bad(std::string_view what) { return CorruptError("commit object: " + std::string(what)); }

Result<EntityKind> ParseKind(const std::string& s) {
  if (s == "node") return EntityKind::kNode;
  if (s == "edge") return EntityKind::kEdge;
  return Bad("unknown entity kind '" + s + "'");
}

}  // namespace

Json Commit::ToJson() const {
  Json tables_json = Json::object();
  for (const auto& [name, t] : tables) {
    tables_json[name] = {
        {"kind", std::string(EntityKindName(t.kind))}, {"table_id", t.table_id}, {"version", t.version_id}};
  }
  Json summary_json = Json::object();
  for (const auto& [name, c] : summary) {
    summary_json[name] = {{"inserted", c.inserted}, {"updated", c.updated}, {"deleted", c.deleted}};
  }
  Json j = {{"format_version", kFormatVersion},
            {"id", id},
            {"parents", parents},
            {"branch", branch},
            {"actor", actor ? Json(*actor) : Json(nullptr)},
            {"timestamp_us", timestamp_us},
            {"operation", operation},
            {"schema_id", schema_id},
            {"tables", tables_json},
            {"summary", summary_json},
            {"message", message}};
  return j;
}

Result<Commit> Commit::FromJson(const Json& j) {
  if (!j.is_object()) return Bad("not a JSON object");
  Commit c;
  try {
    if (j.at("format_version").get<int>() != kFormatVersion) {
      return Bad("unsupported commit format version " + j.at("format_version").dump());
    }
    c.id = j.at("id").get<std::string>();
    c.parents = j.at("parents").get<std::vector<std::string>>();
    c.branch = j.at("branch").get<std::string>();
    if (!j.at("actor").is_null()) c.actor = j.at("actor").get<std::string>();
    c.timestamp_us = j.at("timestamp_us").get<int64_t>();
    c.operation = j.at("operation").get<std::string>();
    c.schema_id = j.at("schema_id").get<std::string>();
    c.message = j.value("message", std::string());
    for (const auto& [name, t] : j.at("tables").items()) {
      OG_ASSIGN_OR_RETURN(EntityKind kind, ParseKind(t.at("kind").get<std::string>()));
      c.tables[name] = TableRef{kind, t.at("table_id").get<std::string>(), t.at("version").get<std::string>()};
    }
    for (const auto& [name, s] : j.at("summary").items()) {
      c.summary[name] = ChangeCounts{s.at("inserted").get<uint64_t>(), s.at("updated").get<uint64_t>(),
                                     s.at("deleted").get<uint64_t>()};
    }
  } catch (const Json::exception&) {
    return Bad("a member is missing or has the wrong JSON type");
  }
  return c;
}

CommitInfo ToCommitInfo(const Commit& c, std::optional<uint64_t> version) {
  CommitInfo i;
  i.id = c.id;
  i.parents = c.parents;
  i.branch = c.branch;
  i.actor = c.actor;
  i.timestamp_us = c.timestamp_us;
  i.operation = c.operation;
  i.schema_id = c.schema_id;
  i.message = c.message;
  i.version = version;
  for (const auto& [name, t] : c.tables) i.tables[name] = CommitInfo::Table{t.kind, t.table_id, t.version_id};
  i.summary = c.summary;
  return i;
}

std::string EncodeCommit(const Commit& commit) { return SealJson(commit.ToJson()); }

Result<Commit> DecodeCommit(std::string_view bytes, std::string_view commit_id) {
  const std::string key = CommitKey(commit_id);
  OG_ASSIGN_OR_RETURN(UnsealedJson u, UnsealJson(bytes, "commit object " + key));
  if (!u.sealed) {
    OG_RETURN_IF_ERROR(CheckLegacyMembers(u.body,
                                          {"format_version", "id", "parents", "branch", "actor", "timestamp_us",
                                           "operation", "schema_id", "tables", "summary", "message"},
                                          "commit object " + key));
  }
  auto c = Commit::FromJson(u.body);
  if (!c.ok()) return CorruptError(key + ": " + c.status().message());
  if (c->id != commit_id) return Bad(key + ": id '" + c->id + "' stored under the key of another commit");
  return c;
}

Status WriteCommit(io::ObjectStore& store, const Commit& commit) {
  return store.PutIfAbsent(CommitKey(commit.id), EncodeCommit(commit));
}

Result<Commit> ReadCommit(io::ObjectStore& store, std::string_view commit_id) {
  auto bytes = store.Get(CommitKey(commit_id));
  if (!bytes.ok()) {
    if (bytes.status().category() == StatusCode::kNotFound) {
      return NotFoundError("commit '" + std::string(commit_id) + "' not found");
    }
    return bytes.status();
  }
  return DecodeCommit(*bytes, commit_id);
}

}  // namespace omnigraph::engine
