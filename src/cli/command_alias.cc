// `omnigraph alias NAME [ARGS...] [--params JSON | --params-file F] [--format F | --json]`: runs the
// stored query an alias of the operator config binds (`aliases.NAME: {server, graph?, query,
// args[], params{}, format?}`, operator_config.h) on its server: POST
// /graphs/{graph}/queries/{query} with {"params", "expect_mutation": false}, so a stored mutation
// is refused by the server. Printed as `query` prints a served read (docs/cli.md, "Aliases").
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "cli/operator_config.h"
#include "cli/read_format.h"
#include "cli/remote.h"
#include "cli/remote_commands.h"
#include "common/api_json.h"
#include "common/json.h"

namespace omnigraph::cli {
namespace {

struct AliasFlags {
  std::string name;
  std::vector<std::string> args;
  std::string params, params_file, format;
  bool json = false;
};

std::string Names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// A positional value: the JSON it spells (7, true, null, "x", [1, 2]), else the text as a string.
OrderedJson ArgValue(const std::string& text) {
  OrderedJson v = OrderedJson::parse(text, nullptr, /*allow_exceptions=*/false);
  if (v.is_discarded()) return OrderedJson(text);
  return v;
}

// The parameters of the call: the alias's `params`, then the positional values bound in order to
// its `args` names, then the keys of --params / --params-file, each overriding the ones before.
Result<OrderedJson> CallParams(const std::string& name, const OperatorAlias& alias, const AliasFlags& f) {
  if (f.args.size() > alias.args.size()) {
    return UsageError("alias '" + name + "' takes " + std::to_string(alias.args.size()) + " argument(s) [" +
                      Names(alias.args) + "], got " + std::to_string(f.args.size()));
  }
  OrderedJson params = alias.params.is_object() ? OrderedJson(alias.params) : OrderedJson::object();
  for (size_t i = 0; i < f.args.size(); ++i) params[alias.args[i]] = ArgValue(f.args[i]);
  std::string text = f.params;
  if (!f.params_file.empty()) {
    OG_ASSIGN_OR_RETURN(text, ReadFile(f.params_file, "params file"));
  }
  if (!text.empty()) {
    OrderedJson given = OrderedJson::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!given.is_object()) {
      return UsageError(f.params_file.empty() ? "--params must be a JSON object"
                                              : "--params-file '" + f.params_file + "' must hold a JSON object");
    }
    for (auto it = given.begin(); it != given.end(); ++it) params[it.key()] = it.value();
  }
  return params;
}

// The graph: the alias's, else --graph, else the default graph of a server scope (a server profile
// or defaults.server) naming the alias's server; nullopt lets ConnectServer take the server's only
// graph.
Result<std::optional<std::string>> AliasGraph(const std::string& name, const OperatorAlias& alias,
                                              const OperatorConfig& config, const GraphFlags& flags) {
  const std::string& flag = Globals().graph;
  if (alias.graph) {
    if (!flag.empty() && flag != *alias.graph) {
      return UsageError("alias '" + name + "' is bound to graph '" + *alias.graph + "'; --graph " + flag +
                        " does not apply");
    }
    return alias.graph;
  }
  if (!flag.empty()) return std::optional<std::string>(flag);
  OG_ASSIGN_OR_RETURN(OperatorSettings settings, flags.Settings(std::nullopt));
  if (settings.scope != ScopeKind::kServer || !settings.graph) return std::optional<std::string>();
  auto server = config.servers.find(alias.server);
  const bool same =
      settings.target == alias.server || (server != config.servers.end() && settings.server_url == server->second.url);
  return same ? settings.graph : std::optional<std::string>();
}

// The read target the answer names ({branch, snapshot}; a stored read without either reads main).
ReadTargetText TargetOf(const OrderedJson& answer) {
  ReadTargetText t{"main", ""};
  auto target = answer.find("target");
  if (target == answer.end() || !target->is_object()) return t;
  auto branch = target->find("branch");
  auto snapshot = target->find("snapshot");
  if (branch != target->end() && branch->is_string()) t.branch = branch->get<std::string>();
  if (snapshot != target->end() && snapshot->is_string()) t.snapshot = snapshot->get<std::string>();
  return t;
}

int RunAlias(const AliasFlags& f) {
  bool json_errors = f.json || f.format == "json";
  if (!f.params.empty() && !f.params_file.empty()) {
    return ReportError(UsageError("--params and --params-file exclude each other"), json_errors);
  }
  if (f.json && !f.format.empty()) {
    return ReportError(UsageError("--json and --format exclude each other"), json_errors);
  }
  auto config = LoadedOperatorConfig();
  if (!config.ok()) return ReportError(config.status(), json_errors);
  auto it = (*config)->aliases.find(f.name);
  if (it == (*config)->aliases.end()) {
    std::vector<std::string> names;
    for (const auto& [n, a] : (*config)->aliases) names.push_back(n);
    return ReportError(
        UsageError("unknown alias '" + f.name + "'; aliases defined in the operator config: [" + Names(names) +
                   "] (add it under aliases: in " +
                   ((*config)->path.empty() ? std::string("~/.omnigraph/config.yaml") : (*config)->path) + ")"),
        json_errors);
  }
  const OperatorAlias& alias = it->second;
  // The format: --json, --format, the alias's `format`, `defaults.output`, else table.
  const std::string format = f.json              ? "json"
                             : !f.format.empty() ? f.format
                             : alias.format      ? *alias.format
                                                 : (*config)->output.value_or("table");
  if (format != "table" && format != "json" && format != "jsonl" && format != "csv" && format != "kv") {
    return ReportError(UsageError("unknown --format '" + format + "' (table, kv, csv, jsonl, json)"), json_errors);
  }
  json_errors = json_errors || format == "json";
  const GlobalFlags& g = Globals();
  if (!g.store.empty() || !g.cluster.empty()) {
    return ReportError(UsageError("alias '" + f.name + "' runs on its server ('" + alias.server +
                                  "'); --store and --cluster do not apply"),
                       json_errors);
  }
  if (!g.server.empty() && g.server != alias.server) {
    return ReportError(UsageError("alias '" + f.name + "' is bound to server '" + alias.server + "'; --server " +
                                  g.server + " does not apply"),
                       json_errors);
  }
  ReadRenderOptions render;
  render.max_column_width = (*config)->table_max_column_width.value_or(80);
  render.cell_layout =
      (*config)->table_cell_layout.value_or("truncate") == "wrap" ? CellLayout::kWrap : CellLayout::kTruncate;
  auto params = CallParams(f.name, alias, f);
  if (!params.ok()) return ReportError(params.status(), json_errors);
  GraphFlags flags;
  flags.json = f.json;
  auto graph = AliasGraph(f.name, alias, **config, flags);
  if (!graph.ok()) return ReportError(graph.status(), json_errors);
  auto remote = ConnectServer(alias.server, *graph);
  if (!remote.ok()) return ReportError(remote.status(), json_errors);
  OrderedJson body = OrderedJson::object();
  body["params"] = std::move(*params);
  body["expect_mutation"] = false;  // an alias reads: the server refuses a stored mutation
  auto r = (*remote)->Post("/queries/" + EscapeSegment(alias.query), body);
  if (!r.ok()) return ReportError(r.status(), json_errors);
  const ReadTargetText target = TargetOf(*r);
  return PrintServedRead(std::move(*r), format, target, render);
}

}  // namespace

void AddAliasCommand(CLI::App& app, CommandAction* run) {
  auto* cmd = app.add_subcommand("alias", "Run the stored query an alias of the operator config binds");
  auto f = std::make_shared<AliasFlags>();
  cmd->add_option("name", f->name, "Alias (a name under aliases: in ~/.omnigraph/config.yaml)")->required();
  cmd->add_option("args", f->args, "Values for the alias's args, in order (each JSON, else a string)");
  cmd->add_option("--params", f->params, "Parameters as a JSON object (override the alias's and ARGS)");
  cmd->add_option("--params-file", f->params_file, "Parameters from a JSON file (as --params)");
  cmd->add_option("--format", f->format, "table | json | jsonl | csv | kv (default: the alias's format)");
  cmd->add_flag("--json", f->json, "JSON output (as --format json)");
  cmd->callback([=] { *run = [=] { return RunAlias(*f); }; });
}

}  // namespace omnigraph::cli
