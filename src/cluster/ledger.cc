#include "cluster/ledger.h"

#include <unistd.h>

#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <filesystem>

#include "common/clock.h"
#include "common/error_codes.h"
#include "common/hash.h"
#include "common/ulid.h"
#include "io/store_uri.h"

namespace omnigraph::cluster {
namespace fs = std::filesystem;

namespace {

// How many published revisions stay readable (older ones are deleted as new ones land).
constexpr uint64_t kKeptRevisions = 100;

std::string TrimCopy(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

// Strict readers over a parsed JSON object: every key must be known, every type right.
class Reader {
 public:
  Reader(std::string source) : source_(std::move(source)) {}
  Status Keys(const Json& obj, const std::string& where, std::initializer_list<const char*> known) {
    if (!obj.is_object()) return Bad(where, "must be an object");
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      bool ok = false;
      for (const char* k : known) ok = ok || it.key() == k;
      if (!ok) return Bad(where, "has an unknown key `" + it.key() + "`");
    }
    return Status::Ok();
  }
  Result<std::string> Str(const Json& obj, const char* key, const std::string& where) {
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_string()) return Bad(where + "." + key, "must be a string");
    return it->get<std::string>();
  }
  Result<std::optional<std::string>> OptStr(const Json& obj, const char* key, const std::string& where) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return std::optional<std::string>();
    if (!it->is_string()) return Bad(where + "." + key, "must be a string or null");
    return std::optional<std::string>(it->get<std::string>());
  }
  Status Bad(const std::string& where, const std::string& what) const {
    return CorruptError(source_ + ": `" + where + "` " + what);
  }

 private:
  std::string source_;
};

Json ToJson(const LockInfo& l) {
  return Json{{"version", 1}, {"lock_id", l.lock_id}, {"operation", l.operation}, {"created_at", l.created_at},
              {"pid", l.pid}, {"host", l.host}};
}

Result<LockInfo> ParseLock(std::string_view text, const std::string& source) {
  Json j = Json::parse(text, nullptr, false);
  Reader r(source);
  if (j.is_discarded()) return CorruptError(source + " is not JSON");
  OG_RETURN_IF_ERROR(r.Keys(j, "lock", {"version", "lock_id", "operation", "created_at", "pid", "host"}));
  if (!j.contains("version") || j["version"] != 1) return r.Bad("version", "must be 1");
  LockInfo l;
  OG_ASSIGN_OR_RETURN(l.lock_id, r.Str(j, "lock_id", "lock"));
  OG_ASSIGN_OR_RETURN(l.operation, r.Str(j, "operation", "lock"));
  OG_ASSIGN_OR_RETURN(l.created_at, r.Str(j, "created_at", "lock"));
  if (!j.contains("pid") || !j["pid"].is_number_unsigned()) return r.Bad("pid", "must be a non-negative integer");
  l.pid = j["pid"].get<uint32_t>();
  if (j.contains("host")) {
    OG_ASSIGN_OR_RETURN(l.host, r.Str(j, "host", "lock"));
  }
  return l;
}

Json ApprovalJson(const Approval& a) {
  auto opt = [](const std::optional<std::string>& v) { return v ? Json(*v) : Json(nullptr); };
  return Json{{"schema_version", 1},
              {"approval_id", a.approval_id},
              {"resource", a.resource},
              {"operation", a.operation},
              {"reason", a.reason},
              {"bound_config_digest", a.bound_config_digest},
              {"bound_before_digest", opt(a.bound_before_digest)},
              {"bound_after_digest", opt(a.bound_after_digest)},
              {"approved_by", a.approved_by},
              {"created_at", a.created_at},
              {"consumed_at", opt(a.consumed_at)}};
}

Result<Approval> ParseApproval(std::string_view text, const std::string& source) {
  Json j = Json::parse(text, nullptr, false);
  Reader r(source);
  if (j.is_discarded()) return CorruptError(source + " is not JSON");
  OG_RETURN_IF_ERROR(r.Keys(
      j, "approval",
      {"schema_version", "approval_id", "resource", "operation", "reason", "bound_config_digest", "bound_before_digest",
       "bound_after_digest", "approved_by", "created_at", "consumed_at", "consumed_by_operation"}));
  if (!j.contains("schema_version") || j["schema_version"] != 1) return r.Bad("schema_version", "must be 1");
  Approval a;
  OG_ASSIGN_OR_RETURN(a.approval_id, r.Str(j, "approval_id", "approval"));
  OG_ASSIGN_OR_RETURN(a.resource, r.Str(j, "resource", "approval"));
  OG_ASSIGN_OR_RETURN(a.operation, r.Str(j, "operation", "approval"));
  OG_ASSIGN_OR_RETURN(a.reason, r.Str(j, "reason", "approval"));
  OG_ASSIGN_OR_RETURN(a.bound_config_digest, r.Str(j, "bound_config_digest", "approval"));
  OG_ASSIGN_OR_RETURN(a.bound_before_digest, r.OptStr(j, "bound_before_digest", "approval"));
  OG_ASSIGN_OR_RETURN(a.bound_after_digest, r.OptStr(j, "bound_after_digest", "approval"));
  OG_ASSIGN_OR_RETURN(a.approved_by, r.Str(j, "approved_by", "approval"));
  OG_ASSIGN_OR_RETURN(a.created_at, r.Str(j, "created_at", "approval"));
  OG_ASSIGN_OR_RETURN(a.consumed_at, r.OptStr(j, "consumed_at", "approval"));
  return a;
}

bool ValidId(std::string_view id) {
  if (id.empty() || !(std::isalpha(static_cast<unsigned char>(id[0])) || id[0] == '_')) return false;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

// A resource address whose ids follow the id rule (so no address reaches outside its folder).
bool ValidAddress(std::string_view a) {
  for (std::string_view prefix : {"graph.", "schema.", "policy.", "provider.embedding."}) {
    if (a.starts_with(prefix)) return ValidId(a.substr(prefix.size()));
  }
  if (!a.starts_with("query.")) return false;
  a.remove_prefix(6);
  const size_t dot = a.find('.');
  return dot != std::string_view::npos && ValidId(a.substr(0, dot)) && ValidId(a.substr(dot + 1));
}

std::string HostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "";
  return buf;
}

}  // namespace

// ---- Storage root -------------------------------------------------------------------------------

std::string StorageRoot::GraphUri(const std::string& graph_id) const {
  return display + "/graphs/" + graph_id + ".omni";
}

std::string StorageRoot::GraphPrefix(const std::string& graph_id) { return "graphs/" + graph_id + ".omni/"; }

Result<StorageRoot> ResolveStorageRoot(const std::string& config_dir, const std::optional<std::string>& storage) {
  StorageRoot root;
  std::error_code ec;
  if (!storage) {
    fs::path p = fs::absolute(config_dir, ec);
    if (ec) return InvalidArgumentError("cannot make '" + config_dir + "' absolute: " + ec.message());
    root.uri = io::NormalizePath(p.string());
    root.display = root.uri;
    return root;
  }
  std::string s = TrimCopy(*storage);
  if (s.empty()) return InvalidArgumentError("storage must be a non-empty URI when provided");
  if (s.starts_with("s3://")) {
    while (s.size() > 5 && s.back() == '/') s.pop_back();
    if (s.size() <= 5 || s[5] == '/') return InvalidArgumentError("storage s3:// URI must name a bucket");
    root.uri = s;
    root.display = s;
    return root;
  }
  if (s.starts_with("file://")) s = s.substr(7);
  fs::path p(s);
  if (p.is_relative()) p = fs::absolute(fs::path(config_dir), ec) / p;
  if (ec) return InvalidArgumentError("cannot make '" + config_dir + "' absolute: " + ec.message());
  root.uri = io::NormalizePath(p.string());
  while (root.uri.size() > 1 && root.uri.back() == '/') root.uri.pop_back();
  root.display = root.uri;
  return root;
}

// ---- State --------------------------------------------------------------------------------------

std::string StateKey(uint64_t revision) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s%020" PRIu64 ".json", Ledger::kStatePrefix, revision);
  return buf;
}

std::string SerializeState(const ClusterState& s) {
  Json resources = Json::object();
  for (const auto& [address, r] : s.resources) {
    Json x = {{"digest", r.digest}};
    if (!r.applies_to.empty()) x["applies_to"] = r.applies_to;
    if (r.embedding_provider) x["embedding_provider"] = *r.embedding_provider;
    if (r.embedding_profile) x["embedding_profile"] = Json::parse(*r.embedding_profile, nullptr, false);
    resources[address] = std::move(x);
  }
  Json statuses = Json::object();
  for (const auto& [address, st] : s.statuses) {
    Json x = {{"status", st.status}};
    if (!st.conditions.empty()) x["conditions"] = st.conditions;
    if (st.message) x["message"] = *st.message;
    statuses[address] = std::move(x);
  }
  Json approvals = Json::object();
  for (const auto& [id, a] : s.approval_records) {
    approvals[id] = {{"consumed_at", a.consumed_at}, {"consumed_by_operation", a.consumed_by_operation}};
  }
  Json observations = Json::object();
  for (const auto& [address, o] : s.observations) observations[address] = o;
  Json j = {{"version", 1},
            {"state_revision", s.revision},
            {"applied_revision",
             {{"config_digest", s.config_digest ? Json(*s.config_digest) : Json(nullptr)}, {"resources", resources}}},
            {"resource_statuses", statuses},
            {"approval_records", approvals},
            {"observations", observations}};
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Result<ClusterState> ParseState(std::string_view text, std::string_view source) {
  const std::string src(source);
  Json j = Json::parse(text, nullptr, false);
  Reader r(src);
  if (j.is_discarded()) return CorruptError(src + " is not JSON");
  OG_RETURN_IF_ERROR(r.Keys(
      j, "state",
      {"version", "state_revision", "applied_revision", "resource_statuses", "approval_records", "observations"}));
  if (!j.contains("version") || j["version"] != 1) return r.Bad("version", "must be 1 (unsupported_state_version)");
  ClusterState s;
  if (!j.contains("state_revision") || !j["state_revision"].is_number_unsigned()) {
    return r.Bad("state_revision", "must be a non-negative integer");
  }
  s.revision = j["state_revision"].get<uint64_t>();
  const Json& applied = j.value("applied_revision", Json::object());
  OG_RETURN_IF_ERROR(r.Keys(applied, "applied_revision", {"config_digest", "resources"}));
  OG_ASSIGN_OR_RETURN(s.config_digest, r.OptStr(applied, "config_digest", "applied_revision"));
  const Json& resources = applied.value("resources", Json::object());
  if (!resources.is_object()) return r.Bad("applied_revision.resources", "must be an object");
  for (auto it = resources.begin(); it != resources.end(); ++it) {
    const std::string where = "applied_revision.resources." + it.key();
    OG_RETURN_IF_ERROR(r.Keys(*it, where, {"digest", "applies_to", "embedding_provider", "embedding_profile"}));
    StateResource res;
    OG_ASSIGN_OR_RETURN(res.digest, r.Str(*it, "digest", where));
    if (it->contains("applies_to")) {
      const Json& a = (*it)["applies_to"];
      if (!a.is_array()) return r.Bad(where + ".applies_to", "must be an array of strings");
      for (const Json& x : a) {
        if (!x.is_string()) return r.Bad(where + ".applies_to", "must be an array of strings");
        res.applies_to.push_back(x.get<std::string>());
      }
    }
    OG_ASSIGN_OR_RETURN(res.embedding_provider, r.OptStr(*it, "embedding_provider", where));
    if (it->contains("embedding_profile")) {
      if (!(*it)["embedding_profile"].is_object()) return r.Bad(where + ".embedding_profile", "must be an object");
      res.embedding_profile = (*it)["embedding_profile"].dump();
    }
    if (!ValidAddress(it.key()))
      return r.Bad(where,
                   "is not a resource address (graph.<id>, schema.<id>, query.<id>.<name>, policy.<name>, "
                   "provider.embedding.<name>)");
    s.resources[it.key()] = std::move(res);
  }
  const Json& statuses = j.value("resource_statuses", Json::object());
  if (!statuses.is_object()) return r.Bad("resource_statuses", "must be an object");
  for (auto it = statuses.begin(); it != statuses.end(); ++it) {
    const std::string where = "resource_statuses." + it.key();
    OG_RETURN_IF_ERROR(r.Keys(*it, where, {"status", "conditions", "message"}));
    ResourceStatus st;
    OG_ASSIGN_OR_RETURN(st.status, r.Str(*it, "status", where));
    if (it->contains("conditions")) {
      const Json& c = (*it)["conditions"];
      if (!c.is_array()) return r.Bad(where + ".conditions", "must be an array of strings");
      for (const Json& x : c) {
        if (!x.is_string()) return r.Bad(where + ".conditions", "must be an array of strings");
        st.conditions.push_back(x.get<std::string>());
      }
    }
    OG_ASSIGN_OR_RETURN(st.message, r.OptStr(*it, "message", where));
    s.statuses[it.key()] = std::move(st);
  }
  const Json& approvals = j.value("approval_records", Json::object());
  if (!approvals.is_object()) return r.Bad("approval_records", "must be an object");
  for (auto it = approvals.begin(); it != approvals.end(); ++it) {
    const std::string where = "approval_records." + it.key();
    OG_RETURN_IF_ERROR(r.Keys(*it, where, {"consumed_at", "consumed_by_operation"}));
    ApprovalRecord a;
    OG_ASSIGN_OR_RETURN(a.consumed_at, r.Str(*it, "consumed_at", where));
    OG_ASSIGN_OR_RETURN(a.consumed_by_operation, r.Str(*it, "consumed_by_operation", where));
    s.approval_records[it.key()] = std::move(a);
  }
  const Json& observations = j.value("observations", Json::object());
  if (!observations.is_object()) return r.Bad("observations", "must be an object");
  for (auto it = observations.begin(); it != observations.end(); ++it) {
    if (!it->is_object()) return r.Bad("observations." + it.key(), "must be an object");
    s.observations[it.key()] = *it;
  }
  return s;
}

std::string StateCas(std::string_view bytes) { return "sha256:" + Sha256Hex(bytes); }

// ---- Lock ---------------------------------------------------------------------------------------

std::optional<int64_t> LockInfo::AgeSeconds() const {
  // created_at is FormatMicrosIso: "YYYY-MM-DDTHH:MM:SS.ffffffZ".
  int y, mo, d, h, mi, s;
  if (std::sscanf(created_at.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) != 6) return std::nullopt;
  // Days from civil (Howard Hinnant's algorithm).
  y -= mo <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const int64_t days = int64_t{era} * 146097 + doe - 719468;
  const int64_t then = days * 86400 + h * 3600 + mi * 60 + s;
  const int64_t age = NowMicros() / 1000000 - then;
  return age < 0 ? 0 : age;
}

std::string LockInfo::Summary() const {
  std::string out = "id=" + lock_id + ", operation=" + operation + ", pid=" + std::to_string(pid);
  if (!host.empty()) out += ", host=" + host;
  out += ", created_at=" + created_at;
  if (auto age = AgeSeconds()) out += ", age_seconds=" + std::to_string(*age);
  return out;
}

Result<Ledger> Ledger::Open(const StorageRoot& root, bool create) {
  io::OpenStoreOptions options;
  options.create = create;
  options.writable = create;
  OG_ASSIGN_OR_RETURN(auto store, io::OpenStore(root.uri, options));
  return Ledger(root, std::move(store));
}

std::string Ledger::StatePath() const { return root_.display + "/__cluster/state"; }
std::string Ledger::LockPath() const { return root_.display + "/" + kLockKey; }

Result<Ledger::StateRead> Ledger::ReadState() {
  OG_ASSIGN_OR_RETURN(auto keys, store_->List(kStatePrefix));
  StateRead out;
  for (auto it = keys.rbegin(); it != keys.rend(); ++it) {
    const std::string name = it->key.substr(std::string(kStatePrefix).size());
    if (name.size() != 25 || !name.ends_with(".json") || name.find_first_not_of("0123456789") != 20) {
      continue;  // not a revision object
    }
    OG_ASSIGN_OR_RETURN(std::string bytes, store_->Get(it->key));
    OG_ASSIGN_OR_RETURN(ClusterState state, ParseState(bytes, root_.display + "/" + it->key));
    if (StateKey(state.revision) != it->key) {
      return CorruptError(root_.display + "/" + it->key + " holds state_revision " + std::to_string(state.revision));
    }
    out.cas = StateCas(bytes);
    out.state = std::move(state);
    return out;
  }
  return out;
}

Result<std::string> Ledger::PublishState(const ClusterState& next) {
  const std::string bytes = SerializeState(next);
  Status st = store_->PutIfAbsent(StateKey(next.revision), bytes);
  if (!st.ok()) return st;
  if (next.revision > kKeptRevisions) (void)store_->Delete(StateKey(next.revision - kKeptRevisions));
  return StateCas(bytes);
}

Result<LockInfo> Ledger::AcquireLock(const std::string& operation) {
  LockInfo l;
  l.lock_id = NewUlidString();
  l.operation = operation;
  l.created_at = FormatMicrosIso(NowMicros());
  l.pid = static_cast<uint32_t>(getpid());
  l.host = HostName();
  Status st = store_->PutIfAbsent(kLockKey, ToJson(l).dump(2, ' ', false, Json::error_handler_t::replace));
  if (st.ok()) return l;
  if (st.category() != StatusCode::kAlreadyExists) return st;
  auto held = ReadLock();
  if (held.ok() && held->has_value()) {
    return AlreadyExistsError("cluster state lock already exists (" + (*held)->Summary() +
                              "); run `omnigraph cluster force-unlock " + (*held)->lock_id +
                              "` only after confirming no cluster operation is active");
  }
  return AlreadyExistsError(
      "cluster state lock already exists; remove it only after confirming no cluster operation is active");
}

void Ledger::ReleaseLock(const std::string& lock_id) {
  auto held = ReadLock();
  if (held.ok() && held->has_value() && (*held)->lock_id == lock_id) (void)store_->Delete(kLockKey);
}

Result<std::optional<LockInfo>> Ledger::ReadLock() {
  auto bytes = store_->Get(kLockKey);
  if (!bytes.ok()) {
    if (bytes.status().category() == StatusCode::kNotFound) return std::optional<LockInfo>();
    return bytes.status();
  }
  OG_ASSIGN_OR_RETURN(LockInfo l, ParseLock(*bytes, LockPath()));
  return std::optional<LockInfo>(std::move(l));
}

// ---- Catalog and approvals ----------------------------------------------------------------------

std::string Ledger::PayloadKey(const std::string& address, const std::string& digest) {
  if (address.starts_with("query.")) {
    const std::string rest = address.substr(6);
    const size_t dot = rest.find('.');
    if (dot == std::string::npos) return "";
    return "__cluster/resources/query/" + rest.substr(0, dot) + "/" + rest.substr(dot + 1) + "/" + digest + ".gq";
  }
  if (address.starts_with("policy.")) return "__cluster/resources/policy/" + address.substr(7) + "/" + digest + ".yaml";
  return "";
}

Result<std::vector<Approval>> Ledger::ListApprovals(std::vector<std::string>* bad) {
  OG_ASSIGN_OR_RETURN(auto keys, store_->List(kApprovalsPrefix));
  std::vector<Approval> out;
  for (const auto& k : keys) {
    if (!k.key.ends_with(".json")) continue;
    auto bytes = store_->Get(k.key);
    if (!bytes.ok()) {
      bad->push_back(root_.display + "/" + k.key + ": " + bytes.status().message());
      continue;
    }
    auto a = ParseApproval(*bytes, root_.display + "/" + k.key);
    if (!a.ok()) {
      bad->push_back(a.status().message());
      continue;
    }
    out.push_back(std::move(*a));
  }
  return out;
}

Status Ledger::WriteApproval(const Approval& a) {
  return store_->PutIfAbsent(std::string(kApprovalsPrefix) + a.approval_id + ".json",
                             ApprovalJson(a).dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
}

Status Ledger::MarkApprovalConsumed(const Approval& approval, const std::string& consumed_at) {
  Approval a = approval;
  a.consumed_at = consumed_at;
  return store_->Put(std::string(kApprovalsPrefix) + a.approval_id + ".json",
                     ApprovalJson(a).dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
}

}  // namespace omnigraph::cluster
