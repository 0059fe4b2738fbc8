#include "cli/operator_config.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <functional>
#include <set>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "common/error_codes.h"
#include "common/file_util.h"
#include "common/utf8.h"
#include "common/yaml_text.h"

namespace omnigraph::cli {
namespace {

// $HOME, else the password database's entry (as Rust's env::home_dir).
std::string HomeDir() {
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') return h;
  const struct passwd* pw = getpwuid(getuid());
  return pw != nullptr && pw->pw_dir != nullptr ? pw->pw_dir : "";
}

std::string ExpandTilde(const std::string& raw) {
  if (raw != "~" && raw.rfind("~/", 0) != 0) return raw;
  std::string home = HomeDir();
  return home.empty() ? raw : home + raw.substr(1);
}

std::string Join(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

// A plain scalar as JSON the way YAML's core schema reads it; quoted scalars stay strings.
Json ScalarJson(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() != "?") return s;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  const char* end = s.data() + s.size();
  int64_t i = 0;
  double d = 0;
  if (auto r = std::from_chars(s.data(), end, i); r.ec == std::errc() && r.ptr == end) return i;
  auto r = std::from_chars(s.data(), end, d);
  return r.ec == std::errc() && r.ptr == end && s.find_first_of("0123456789") != std::string::npos ? Json(d) : Json(s);
}

Json ToJson(const YAML::Node& n) {
  if (n.IsScalar()) return ScalarJson(n);
  if (!n.IsSequence() && !n.IsMap()) return nullptr;
  Json j = n.IsSequence() ? Json::array() : Json::object();
  for (const auto& e : n) {
    if (n.IsSequence())
      j.push_back(ToJson(e));
    else
      j[e.first.Scalar()] = ToJson(e.second);
  }
  return j;
}

// Called for each entry of a mapping; returns false for an unknown key (a warning).
using EntryFn = std::function<Result<bool>(const std::string& key, const YAML::Node& value)>;

class Parser {
 public:
  Parser(std::string_view path, OperatorConfig* out) : path_(path), out_(out) {}

  Status Error(const YAML::Node& at, std::string_view key, std::string_view problem) const {
    return ErrorAt(at.Mark(), "`" + std::string(key) + "` " + std::string(problem));
  }
  Status ErrorAt(const YAML::Mark& m, const std::string& message) const {
    SourceSpan span;
    span.file = path_;
    if (!m.is_null()) {
      span.line = static_cast<uint32_t>(m.line + 1);
      span.column = static_cast<uint32_t>(m.column + 1);
    }
    return InvalidArgumentError("operator config '" + path_ + "': " + message).WithSpan(span);
  }

  // Walks mapping `node` named `where` (a null node is empty): rejects other types and repeated or
  // non-scalar keys; keys `fn` does not know become warnings.
  Status Walk(const YAML::Node& node, const std::string& where, const EntryFn& fn) {
    if (node.IsNull()) return Status::Ok();
    if (!node.IsMap() && where.empty()) return ErrorAt(node.Mark(), "the top level must be a mapping");
    if (!node.IsMap()) return Error(node, where, "must be a mapping");
    std::set<std::string> seen;
    const std::string prefix = where.empty() ? "" : where + ".";
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) {
        return ErrorAt(kv.first.Mark(), "a key " + (where.empty() ? "" : "under `" + where + "` ") + "is not a string");
      }
      const std::string& key = kv.first.Scalar();
      if (!seen.insert(key).second) return Error(kv.first, prefix + key, "is given twice");
      OG_ASSIGN_OR_RETURN(bool known, fn(key, kv.second));
      if (!known) {
        out_->warnings.push_back("unknown key `" + prefix + key + "` (newer CLI feature or typo); ignored in " +
                                 "operator config '" + path_ + "' (line " + std::to_string(kv.first.Mark().line + 1) +
                                 ")");
      }
    }
    return Status::Ok();
  }

  Status Str(const YAML::Node& v, const std::string& key, std::optional<std::string>* out) const {
    if (v.IsNull()) return Status::Ok();
    if (!v.IsScalar()) return Error(v, key, "must be a string");
    *out = v.Scalar();
    return Status::Ok();
  }
  Status Required(const YAML::Node& v, const std::string& key, std::string* out) const {
    std::optional<std::string> s;
    OG_RETURN_IF_ERROR(Str(v, key, &s));
    if (!s) return Error(v, key, "is missing");
    *out = std::move(*s);
    return Status::Ok();
  }
  template <size_t N>
  Status OneOf(const YAML::Node& v, const std::string& key, const std::string_view (&allowed)[N],
               std::optional<std::string>* out) const {
    OG_RETURN_IF_ERROR(Str(v, key, out));
    if (!*out || std::find(allowed, allowed + N, *out) != allowed + N) return Status::Ok();
    std::string list;
    for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    return Error(v, key, "must be one of " + list + ", got '" + **out + "'");
  }
  Status Uint(const YAML::Node& v, const std::string& key, std::optional<uint64_t>* out) const {
    if (v.IsNull()) return Status::Ok();
    const std::string& s = v.Scalar();  // empty for a non-scalar
    uint64_t n = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), n);
    if (!v.IsScalar() || v.Tag() != "?" || r.ec != std::errc() || r.ptr != s.data() + s.size()) {
      return Error(v, key, "must be a non-negative integer" + (v.IsScalar() ? ", got '" + s + "'" : std::string()));
    }
    *out = n;
    return Status::Ok();
  }

  // Each entry of the mapping `node` (named `where`) parsed by `fn` under its name.
  template <class T>
  Status Named(const YAML::Node& node, const std::string& where, std::map<std::string, T>* out,
               const std::function<Status(const std::string& prefix, const YAML::Node&, T*)>& fn) {
    return Walk(node, where, [&](const std::string& name, const YAML::Node& v) -> Result<bool> {
      T item;
      OG_RETURN_IF_ERROR(fn(where + "." + name, v, &item));
      (*out)[name] = std::move(item);
      return true;
    });
  }

  Status Root(const YAML::Node& root) {
    return Walk(root, "", [&](const std::string& k, const YAML::Node& v) -> Result<bool> {
      if (k == "operator") {
        OG_RETURN_IF_ERROR(One(v, k, {{"actor", [&](auto& key, auto& x) { return Str(x, key, &out_->actor); }}}));
      } else if (k == "defaults") {
        OG_RETURN_IF_ERROR(Defaults(v));
      } else if (k == "servers") {
        OG_RETURN_IF_ERROR(Named<OperatorServer>(v, k, &out_->servers, [&](auto& p, auto& n, auto* s) {
          return One(n, p, {{"url", [&](auto& key, auto& x) { return Required(x, key, &s->url); }}});
        }));
      } else if (k == "clusters") {
        OG_RETURN_IF_ERROR(Named<OperatorCluster>(v, k, &out_->clusters, [&](auto& p, auto& n, auto* c) {
          return One(n, p, {{"root", [&](auto& key, auto& x) { return Required(x, key, &c->root); }}});
        }));
      } else if (k == "profiles") {
        OG_RETURN_IF_ERROR(Named<OperatorProfile>(v, k, &out_->profiles, [&](auto& p, auto& n, auto* pr) {
          return One(n, p,
                     {{"server", [&](auto& key, auto& x) { return Str(x, key, &pr->server); }},
                      {"cluster", [&](auto& key, auto& x) { return Str(x, key, &pr->cluster); }},
                      {"store", [&](auto& key, auto& x) { return Str(x, key, &pr->store); }},
                      {"default_graph", [&](auto& key, auto& x) { return Str(x, key, &pr->default_graph); }}});
        }));
      } else if (k == "aliases") {
        OG_RETURN_IF_ERROR(
            Named<OperatorAlias>(v, k, &out_->aliases, [&](auto& p, auto& n, auto* a) { return Alias(p, n, a); }));
      } else {
        return false;
      }
      return true;
    });
  }

 private:
  using FieldFn = std::function<Status(const std::string& key, const YAML::Node& value)>;

  // A mapping of known fields (null: empty). A field's handler also runs with a null node when the
  // field is absent, so a required one reports "is missing" (at the mapping).
  Status One(const YAML::Node& node, const std::string& where, const std::map<std::string, FieldFn>& fields) {
    std::set<std::string> given;
    OG_RETURN_IF_ERROR(Walk(node, where, [&](const std::string& k, const YAML::Node& v) -> Result<bool> {
      auto it = fields.find(k);
      if (it == fields.end()) return false;
      given.insert(k);
      OG_RETURN_IF_ERROR(it->second(where + "." + k, v));
      return true;
    }));
    for (const auto& [k, fn] : fields) {
      if (given.count(k) == 0) {
        YAML::Node absent(YAML::NodeType::Null);
        Status s = fn(where + "." + k, absent);
        if (!s.ok()) return ErrorAt(node.Mark(), "`" + where + "." + k + "` is missing");
      }
    }
    return Status::Ok();
  }

  Status Defaults(const YAML::Node& v) {
    OperatorConfig* c = out_;
    OG_RETURN_IF_ERROR(
        One(v, "defaults",
            {{"output", [&](auto& key, auto& x) { return OneOf(x, key, kOutputFormats, &c->output); }},
             {"table_max_column_width", [&](auto& key, auto& x) { return Uint(x, key, &c->table_max_column_width); }},
             {"table_cell_layout",
              [&](auto& key, auto& x) { return OneOf(x, key, kTableCellLayouts, &c->table_cell_layout); }},
             {"server", [&](auto& key, auto& x) { return Str(x, key, &c->default_server); }},
             {"store", [&](auto& key, auto& x) { return Str(x, key, &c->default_store); }},
             {"default_graph", [&](auto& key, auto& x) { return Str(x, key, &c->default_graph); }}}));
    if (c->default_server && c->default_store) {
      return Error(v, "defaults",
                   "sets both `server` and `store`: a default scope binds one entity; keep one (use a profile "
                   "for the other)");
    }
    if (c->default_store && c->default_graph) {
      return Error(v, "defaults",
                   "sets both `store` and `default_graph`: a store is already a single graph; drop "
                   "`default_graph` (it applies to a server or cluster scope)");
    }
    return Status::Ok();
  }

  Status Alias(const std::string& where, const YAML::Node& n, OperatorAlias* a) {
    return One(n, where,
               {{"server", [&](auto& key, auto& x) { return Required(x, key, &a->server); }},
                {"query", [&](auto& key, auto& x) { return Required(x, key, &a->query); }},
                {"graph", [&](auto& key, auto& x) { return Str(x, key, &a->graph); }},
                {"format", [&](auto& key, auto& x) { return OneOf(x, key, kOutputFormats, &a->format); }},
                {"args",
                 [&](auto& key, auto& x) -> Status {
                   if (x.IsNull()) return Status::Ok();
                   if (!x.IsSequence()) return Error(x, key, "must be a list of strings");
                   for (const auto& e : x) {
                     if (!e.IsScalar()) return Error(e, key, "must be a list of strings");
                     a->args.push_back(e.Scalar());
                   }
                   return Status::Ok();
                 }},
                {"params", [&](auto& key, auto& x) -> Status {
                   if (x.IsNull()) return Status::Ok();
                   if (!x.IsMap()) return Error(x, key, "must be a mapping");
                   for (const auto& kv : x) {
                     if (!kv.first.IsScalar()) return Error(kv.first, key, "has a key that is not a string");
                   }
                   a->params = ToJson(x);
                   return Status::Ok();
                 }}});
  }

  std::string path_;
  OperatorConfig* out_;
};

}  // namespace

std::string OperatorConfigPath() {
  if (const char* h = std::getenv("OMNIGRAPH_HOME"); h != nullptr && *h != '\0') {
    return Join(ExpandTilde(h), "config.yaml");
  }
  std::string home = HomeDir();
  return home.empty() ? "" : Join(Join(home, ".omnigraph"), "config.yaml");
}

Result<OperatorConfig> ParseOperatorConfig(std::string_view yaml_text, std::string_view path_for_messages) {
  OperatorConfig config;
  config.path = std::string(path_for_messages);
  Parser parser(path_for_messages, &config);
  // yaml-cpp's handling of invalid bytes is its own (a fuzzed input made it loop): refuse them.
  if (size_t bad = FirstInvalidUtf8(yaml_text); bad != std::string_view::npos) {
    return parser.ErrorAt(YAML::Mark::null_mark(),
                          "is not UTF-8 text (invalid byte at offset " + std::to_string(bad) + ")");
  }
  // One document (yaml-cpp's LoadAll loops on some inputs; common/yaml_text.h).
  if (size_t line = SecondYamlDocumentLine(yaml_text); line != 0) {
    YAML::Mark at = YAML::Mark::null_mark();
    at.line = static_cast<int>(line) - 1;
    at.column = 0;
    return parser.ErrorAt(at, "holds more than one YAML document");
  }
  try {
    if (ContentAfterFirstYamlDocument(yaml_text))
      return parser.ErrorAt(
          YAML::Mark::null_mark(),
          "has content after the end of its first YAML node (a flow collection closed before the end of the file?)");
    YAML::Node doc = YAML::Load(std::string(yaml_text));
    if (!doc.IsNull()) OG_RETURN_IF_ERROR(parser.Root(doc));
  } catch (const YAML::Exception& e) {
    return parser.ErrorAt(e.mark, "could not parse: " + e.msg);
  }
  return config;
}

Result<OperatorConfig> LoadOperatorConfig(const std::string& path) {
  if (path.empty()) return OperatorConfig{};
  Result<std::string> text = ReadSourceFile(path, "operator config");
  if (!text.ok()) {
    if (text.status().code() == ErrorCode::kNotFound) {
      OperatorConfig empty;
      empty.path = path;
      return empty;
    }
    return text.status();
  }
  return ParseOperatorConfig(*text, path);
}

}  // namespace omnigraph::cli
