#include "cli/remote_commands.h"

#include <cstdio>

#include "cli/cli_util.h"
#include "cli/remote.h"
#include "common/api_json.h"
#include "common/error_codes.h"
#include "common/file_util.h"

namespace omnigraph::cli {

namespace {

// The remote graph of the flags, or nullopt (local); an addressing error is reported as `exit`.
std::optional<std::unique_ptr<RemoteGraph>> Remote(const GraphFlags& flags, int* exit, bool need_graph = true) {
  auto r = ResolveRemote(flags, need_graph);
  if (!r.ok()) {
    *exit = ReportError(r.status(), flags.json);
    return std::unique_ptr<RemoteGraph>();
  }
  return std::move(*r);
}

// Served writes take the actor from the bearer token: --as cannot change it.
Status RejectActorFlag(std::string_view label) {
  if (Globals().actor.empty()) return Status::Ok();
  return UsageError("`--as` is not allowed on a served write (" + std::string(label) +
                    "): the server resolves the actor from the bearer token. Remove `--as`, or write directly to "
                    "storage with --store <uri>");
}

void EchoServed(std::string_view label, const RemoteGraph& g) {
  if (!Globals().quiet)
    std::fprintf(stderr, "omnigraph %s → %s (served)\n", std::string(label).c_str(), g.GraphUrl().c_str());
}

// A JSON cell back to a Value, for the text renderers: scalars as themselves, lists and objects
// as their JSON text (the renderers print that text for them anyway).
Value CellValue(const OrderedJson& v) {
  if (v.is_null()) return Value();
  if (v.is_boolean()) return Value::Bool(v.get<bool>());
  if (v.is_number_integer()) return Value::I64(v.get<int64_t>());
  if (v.is_number_unsigned()) return Value::U64(v.get<uint64_t>());
  if (v.is_number_float()) return Value::F64(v.get<double>());
  if (v.is_string()) return Value::String(v.get<std::string>());
  return Value::String(v.dump());
}

OrderedJson Params(const std::string& text, Status* error) {
  if (text.empty()) return nullptr;
  OrderedJson j = OrderedJson::parse(text, nullptr, false);
  if (!j.is_object()) *error = UsageError("--params must be a JSON object");
  return j;
}

}  // namespace

std::optional<int> RemoteQuery(const GraphFlags& flags, const RemoteQueryArgs& a) {
  int exit = 0;
  auto g = Remote(flags, &exit);
  if (!g) return std::nullopt;
  if (!*g) return exit;
  const bool json_errors = flags.json || a.format == "json";
  Status perr;
  OrderedJson body = OrderedJson::object();
  body["query"] = a.source;
  body["name"] = a.name.empty() ? OrderedJson(nullptr) : OrderedJson(a.name);
  body["params"] = Params(a.params, &perr);
  if (!perr.ok()) return ReportError(perr, json_errors);
  body["branch"] = a.snapshot.empty() ? OrderedJson(a.branch) : OrderedJson(nullptr);
  body["snapshot"] = a.snapshot.empty() ? OrderedJson(nullptr) : OrderedJson(a.snapshot);
  auto r = (*g)->Post("/query", body);
  if (!r.ok()) return ReportError(r.status(), json_errors);
  return PrintServedRead(std::move(*r), a.format, ReadTargetText{a.branch, a.snapshot}, a.render);
}

int PrintServedRead(OrderedJson answer, const std::string& format, const ReadTargetText& target,
                    const ReadRenderOptions& render) {
  if (format == "json") {
    PrintJson(answer);
    return kExitOk;
  }
  QueryRows rows;
  rows.query_name = answer.value("query_name", "");
  rows.commit_id = answer.value("graph_commit_id", "");
  if (answer.contains("columns")) rows.columns = answer["columns"].get<std::vector<std::string>>();
  for (const auto& row : answer["rows"]) {
    std::vector<Value> values;
    for (const auto& c : rows.columns) values.push_back(CellValue(row.contains(c) ? row[c] : OrderedJson(nullptr)));
    rows.rows.push_back(std::move(values));
  }
  if (format == "jsonl") {  // the server's values as they are (lists stay lists)
    std::string out = RenderRead(rows, target, "jsonl", render);
    std::fputs(out.substr(0, out.find('\n') + 1).c_str(), stdout);
    for (const auto& row : answer["rows"]) std::printf("%s\n", row.dump().c_str());
    return kExitOk;
  }
  std::fputs(RenderRead(rows, target, format, render).c_str(), stdout);
  return kExitOk;
}

std::optional<int> RemoteMutate(const GraphFlags& flags, const std::string& source, const std::string& name,
                                const std::string& params, const std::string& branch, const std::string& if_commit) {
  int exit = 0;
  auto g = Remote(flags, &exit);
  if (!g) return std::nullopt;
  if (!*g) return exit;
  if (Status s = RejectActorFlag("mutate"); !s.ok()) return ReportError(s, flags.json);
  Status perr;
  OrderedJson body = OrderedJson::object();
  body["query"] = source;
  if (!name.empty()) body["name"] = name;
  body["params"] = Params(params, &perr);
  if (!perr.ok()) return ReportError(perr, flags.json);
  body["branch"] = branch;
  auto r = if_commit.empty() ? (*g)->Post("/mutate", body)
                             : (*g)->Post("/mutate/if-graph-commit", body, {{"Omnigraph-If-Graph-Commit", if_commit}});
  if (!r.ok()) return ReportError(r.status(), flags.json);
  if (flags.json) {
    PrintJson(*r);
    return kExitOk;
  }
  std::printf("changed %s via %s: %llu nodes, %llu edges\n", branch.c_str(), r->value("query_name", "").c_str(),
              static_cast<unsigned long long>(r->value("affected_nodes", 0)),
              static_cast<unsigned long long>(r->value("affected_edges", 0)));
  if ((*r)["actor_id"].is_string()) std::printf("actor_id: %s\n", (*r)["actor_id"].get<std::string>().c_str());
  if ((*r)["commit"].is_object()) {
    const auto& c = (*r)["commit"];
    std::printf("commit: %s (version %llu)\n", c.value("graph_commit_id", "").c_str(),
                static_cast<unsigned long long>(c.value("graph_manifest_version", 0)));
  } else {
    std::printf("nothing changed: no commit\n");
  }
  return kExitOk;
}

std::optional<int> RemoteLoad(const GraphFlags& flags, const std::string& data_path, const std::string& mode,
                              const std::string& branch, const std::string& from, bool ingest,
                              const std::string& local_only_flag) {
  int exit = 0;
  auto g = Remote(flags, &exit);
  if (!g) return std::nullopt;
  if (!*g) return exit;
  if (Status s = RejectActorFlag(ingest ? "ingest" : "load"); !s.ok()) return ReportError(s, flags.json);
  if (!local_only_flag.empty()) {
    return ReportError(UsageError(local_only_flag + " applies to a graph opened directly; a served graph's load takes "
                                                    "the server's own limits and has no commit precondition"),
                       flags.json);
  }
  auto data = ReadFile(data_path, "data file");
  if (!data.ok()) return ReportError(data.status(), flags.json);
  EchoServed(ingest ? "ingest" : "load", **g);
  QueryParams q{{"branch", branch}, {"mode", mode}};
  if (!from.empty()) q.emplace_back("from", from);
  auto r = (*g)->PostRaw("/load/ndjson", q, *data, "application/x-ndjson");
  if (!r.ok()) return ReportError(r.status(), flags.json);
  if (flags.json) {
    PrintJson(*r);
    return kExitOk;
  }
  std::printf("loaded %s on branch %s with %s: %llu entities across %zu node types and %zu edge types\n",
              (*g)->GraphUrl().c_str(), branch.c_str(), mode.c_str(),
              static_cast<unsigned long long>(r->value("total_entities", 0)), (*r)["nodes"].size(),
              (*r)["edges"].size());
  if (r->value("branch_created", false)) std::printf("branch %s created from %s\n", branch.c_str(), from.c_str());
  if ((*r)["commit"].is_object()) {
    std::printf("commit %s (version %llu)\n", (*r)["commit"].value("graph_commit_id", "").c_str(),
                static_cast<unsigned long long>(r->value("version", 0)));
  } else {
    std::printf("nothing to load: no commit\n");
  }
  return kExitOk;
}

std::optional<int> RemoteExport(const GraphFlags& flags, const std::string& branch,
                                const std::vector<std::string>& types, const std::string& out) {
  int exit = 0;
  auto g = Remote(flags, &exit);
  if (!g) return std::nullopt;
  if (!*g) return exit;
  FILE* f = stdout;
  const std::string tmp = out.empty() ? "" : out + ".tmp";
  if (!out.empty()) {
    f = std::fopen(tmp.c_str(), "wb");
    if (f == nullptr) return ReportError(ErrnoError("cannot write '" + tmp + "'", errno), false);
  }
  OrderedJson body = {{"branch", branch}, {"type_names", types}};
  Status s = (*g)->PostStream("/export", body, [f](std::string_view chunk) {
    if (std::fwrite(chunk.data(), 1, chunk.size(), f) != chunk.size()) return ErrnoError("write failed", errno);
    return Status::Ok();
  });
  if (!out.empty()) {
    if (std::fclose(f) != 0 && s.ok()) s = ErrnoError("cannot write '" + tmp + "'", errno);
    if (s.ok() && std::rename(tmp.c_str(), out.c_str()) != 0) s = ErrnoError("cannot rename to '" + out + "'", errno);
    if (!s.ok()) std::remove(tmp.c_str());
  }
  return ReportError(s, false);
}

namespace {

// The answer as the server gave it (--json), or by `text`.
template <typename Text>
int PrintAnswer(const GraphFlags& flags, const OrderedJson& answer, Text text) {
  if (flags.json) {
    PrintJson(answer);
  } else {
    text(answer);
  }
  return kExitOk;
}

// A read of `path` printed as the server answers it (--json) or by `text`.
template <typename Text>
std::optional<int> RemoteRead(const GraphFlags& flags, std::string_view path, const QueryParams& q, Text text) {
  int exit = 0;
  auto g = Remote(flags, &exit);
  if (!g) return std::nullopt;
  if (!*g) return exit;
  auto r = (*g)->Get(path, q);
  if (!r.ok()) return ReportError(r.status(), flags.json);
  return PrintAnswer(flags, *r, text);
}

void PrintCommitLine(OrderedJson c) {
  std::printf(
      "%s  v%s  %s%s\n", c.value("graph_commit_id", "").c_str(),
      c["graph_manifest_version"].is_null() ? "-" : std::to_string(c.value("graph_manifest_version", 0)).c_str(),
      c.value("operation", "").c_str(),
      c["actor_id"].is_string() ? ("  by " + c["actor_id"].get<std::string>()).c_str() : "");
}

}  // namespace

std::optional<int> RemoteSnapshot(const GraphFlags& flags, const std::string& branch) {
  return RemoteRead(flags, "/snapshot", {{"branch", branch}}, [&](OrderedJson r) {
    std::printf("branch %s, version %llu, commit %s\nsnapshot %s\nschema %s\n", branch.c_str(),
                static_cast<unsigned long long>(r.value("graph_manifest_version", 0)),
                r.value("graph_commit_id", "").c_str(), r.value("snapshot_id", "").c_str(),
                r.value("schema_id", "").c_str());
    for (const auto& d : r["datasets"]) {
      std::printf("  %-24s %s %10llu\n", d.value("type_name", "").c_str(), d.value("entity_kind", "").c_str(),
                  static_cast<unsigned long long>(d.value("entity_count", 0)));
    }
  });
}

std::optional<int> RemoteBranchList(const GraphFlags& flags) {
  return RemoteRead(flags, "/branches", {}, [](OrderedJson r) {
    for (const auto& b : r["branches"]) std::printf("%s\n", b.get<std::string>().c_str());
  });
}

std::optional<int> RemoteCommitList(const GraphFlags& flags, const std::string& branch) {
  return RemoteRead(flags, "/commits", {{"branch", branch}}, [](OrderedJson r) {
    for (const auto& c : r["commits"]) PrintCommitLine(c);
  });
}

std::optional<int> RemoteCommitShow(const GraphFlags& flags, const std::string& id) {
  return RemoteRead(flags, "/commits/" + EscapeSegment(id), {}, [](OrderedJson c) {
    std::printf("commit %s\nbranch %s\noperation %s\n", c.value("graph_commit_id", "").c_str(),
                c["graph_branch"].is_string() ? c["graph_branch"].get<std::string>().c_str() : "",
                c.value("operation", "").c_str());
    if (c["actor_id"].is_string()) std::printf("actor %s\n", c["actor_id"].get<std::string>().c_str());
    for (const char* p : {"parent_commit_id", "merged_parent_commit_id"}) {
      if (c.contains(p) && c[p].is_string()) std::printf("parent %s\n", c[p].get<std::string>().c_str());
    }
    if (c.contains("schema_id") && c["schema_id"].is_string()) {
      std::printf("schema %s\n", c["schema_id"].get<std::string>().c_str());
    }
  });
}

std::optional<int> RemoteSchemaShow(const GraphFlags& flags) {
  int exit = 0;
  auto g = Remote(flags, &exit);
  if (!g) return std::nullopt;
  if (!*g) return exit;
  auto r = (*g)->Get("/schema");
  if (!r.ok()) return ReportError(r.status(), flags.json);
  if (flags.json) {
    PrintJson(*r);
  } else {
    std::fputs(r->value("schema_source", "").c_str(), stdout);
  }
  return kExitOk;
}

namespace {

template <typename Text>
std::optional<int> RemoteWrite(const GraphFlags& flags, std::string_view label,
                               const std::function<Result<OrderedJson>(RemoteGraph&)>& call, Text text) {
  int exit = 0;
  auto g = Remote(flags, &exit);
  if (!g) return std::nullopt;
  if (!*g) return exit;
  if (Status s = RejectActorFlag(label); !s.ok()) return ReportError(s, flags.json);
  EchoServed(label, **g);
  auto r = call(**g);
  if (!r.ok()) return ReportError(r.status(), flags.json);
  return PrintAnswer(flags, *r, text);
}

}  // namespace

std::optional<int> RemoteSchemaApply(const GraphFlags& flags, const std::string& schema_source, bool allow_data_loss,
                                     const std::string& branch, const std::string& if_commit) {
  if (branch != "main" || !if_commit.empty()) {
    auto remote = ResolveRemote(flags);
    if (remote.ok() && !remote->has_value()) return std::nullopt;
    return ReportError(UsageError("over a server, `schema apply` migrates main: --branch and --if-commit do not apply"),
                       flags.json);
  }
  return RemoteWrite(
      flags, "schema apply",
      [&](RemoteGraph& g) {
        return g.Post("/schema/apply",
                      OrderedJson{{"schema_source", schema_source}, {"allow_data_loss", allow_data_loss}});
      },
      [](OrderedJson r) {
        std::printf("schema apply for %s\nsupported: %s\napplied: %s\ngraph_manifest_version: %llu\n",
                    r.value("uri", "").c_str(), r.value("supported", false) ? "yes" : "no",
                    r.value("applied", false) ? "yes" : "no",
                    static_cast<unsigned long long>(r.value("graph_manifest_version", 0)));
        if (r["steps"].empty()) std::printf("no schema changes\n");
        for (const auto& s : r["steps"]) {
          std::printf("- %s %s%s\n", s.value("kind", "").c_str(), s.value("type_name", "").c_str(),
                      s.contains("property") ? ("." + s.value("property", "")).c_str() : "");
        }
      });
}

std::optional<int> RemoteBranchCreate(const GraphFlags& flags, const std::string& name, const std::string& from) {
  return RemoteWrite(
      flags, "branch create",
      [&](RemoteGraph& g) {
        return g.Post("/branches", OrderedJson{{"from", from}, {"name", name}});
      },
      [&](const OrderedJson&) { std::printf("created branch %s from %s\n", name.c_str(), from.c_str()); });
}

std::optional<int> RemoteBranchDelete(const GraphFlags& flags, const std::string& name) {
  return RemoteWrite(
      flags, "branch delete", [&](RemoteGraph& g) { return g.Delete("/branches/" + EscapeSegment(name)); },
      [&](const OrderedJson&) { std::printf("deleted branch %s\n", name.c_str()); });
}

std::optional<int> RemoteBranchMerge(const GraphFlags& flags, const std::string& source, const std::string& target,
                                     bool delete_source) {
  return RemoteWrite(
      flags, "branch merge",
      [&](RemoteGraph& g) {
        return g.Post("/branches/merge",
                      OrderedJson{{"source", source}, {"target", target}, {"delete_branch", delete_source}});
      },
      [&](OrderedJson r) {
        std::printf("merged %s into %s: %s\n", source.c_str(), target.c_str(), r.value("outcome", "").c_str());
        if (r.value("branch_deleted", false)) std::printf("deleted branch %s\n", source.c_str());
        if (r.contains("branch_delete_error") && r["branch_delete_error"].is_string()) {
          std::fprintf(stderr, "warning: merged, but could not delete branch %s: %s\n", source.c_str(),
                       r["branch_delete_error"].get<std::string>().c_str());
        }
      });
}

// ---- graphs list, login, logout -----------------------------------------------------------------

namespace {

int RunGraphsList(const GraphFlags& flags) {
  if (!Globals().graph.empty() || !Globals().store.empty() || !Globals().actor.empty()) {
    return ReportError(UsageError("`graphs list` lists a server's graphs: --graph, --store and --as do not apply"),
                       flags.json);
  }
  int exit = 0;
  auto g = Remote(flags, &exit, /*need_graph=*/false);
  if (!g) {
    return ReportError(UsageError("`graphs list` needs a server scope: pass --server <name|url> or --profile <name>, "
                                  "or set `defaults.server` in ~/.omnigraph/config.yaml"),
                       flags.json);
  }
  if (!*g) return exit;
  auto r = (*g)->Get("//graphs");
  if (!r.ok()) return ReportError(r.status(), flags.json);
  if (flags.json) {
    PrintJson(*r);
  } else {
    for (const auto& e : (*r)["graphs"])
      std::printf("%s\t%s\n", e.value("graph_id", "").c_str(), e.value("uri", "").c_str());
  }
  return kExitOk;
}

int RunLogin(const std::string& name, std::string token, bool json) {
  if (token.empty()) {
    char buf[4096];
    if (std::fgets(buf, sizeof(buf), stdin) != nullptr) token = buf;
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
  }
  if (token.empty()) {
    return ReportError(UsageError("no token provided: pass --token <TOKEN> or pipe it on stdin (echo $TOKEN | "
                                  "omnigraph login " +
                                  name + ")"),
                       json);
  }
  const std::string path = CredentialsPath();
  if (Status s = WriteCredential(path, name, token); !s.ok()) return ReportError(s, json);
  auto config = LoadedOperatorConfig();
  const bool declared = config.ok() && (*config)->servers.count(name) > 0;
  if (json) {
    PrintJson(OrderedJson{{"server", name}, {"credentials_path", path}, {"declared", declared}});
  } else {
    std::printf("stored credential for '%s' in %s\n", name.c_str(), path.c_str());
  }
  if (!declared) {
    std::fprintf(stderr,
                 "note: '%s' is not declared under servers: in the operator config; the token applies once you add "
                 "`servers:\n  %s:\n    url: <server url>` to ~/.omnigraph/config.yaml\n",
                 name.c_str(), name.c_str());
  }
  return kExitOk;
}

int RunLogout(const std::string& name, bool json) {
  const std::string path = CredentialsPath();
  if (Status s = WriteCredential(path, name, std::nullopt); !s.ok()) return ReportError(s, json);
  if (json) {
    PrintJson(OrderedJson{{"server", name}, {"credentials_path", path}});
  } else {
    std::printf("removed credential for '%s' from %s\n", name.c_str(), path.c_str());
  }
  return kExitOk;
}

}  // namespace

void AddRemoteCommands(CLI::App& app, CommandAction* run) {
  {
    auto* graphs = app.add_subcommand("graphs", "The graphs a server serves");
    graphs->require_subcommand(1);
    auto* list = graphs->add_subcommand("list", "List the graphs of --server (id and storage URI)");
    auto f = std::make_shared<GraphFlags>();
    list->add_flag("--json", f->json, "JSON output");
    list->callback([=] { *run = [=] { return RunGraphsList(*f); }; });
  }
  {
    auto* login = app.add_subcommand("login", "Store a bearer token for a named server (credentials file, mode 0600)");
    auto name = std::make_shared<std::string>();
    auto token = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    login->add_option("name", *name, "Server name (as under servers: in ~/.omnigraph/config.yaml)")->required();
    login->add_option("--token", *token, "The token (default: one line read from stdin)");
    login->add_flag("--json", *json, "JSON output");
    login->callback([=] { *run = [=] { return RunLogin(*name, *token, *json); }; });
  }
  {
    auto* logout = app.add_subcommand("logout", "Remove the stored bearer token of a named server");
    auto name = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    logout->add_option("name", *name, "Server name")->required();
    logout->add_flag("--json", *json, "JSON output");
    logout->callback([=] { *run = [=] { return RunLogout(*name, *json); }; });
  }
}

}  // namespace omnigraph::cli
