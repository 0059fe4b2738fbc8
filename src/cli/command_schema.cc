// `omnigraph schema show [URI] [--json]` (hidden alias `get`): the .pg source of the schema at the
// head of main, as {"schema_source": ...} or the source and a newline (the Rust CLI's shapes).
// `schema plan [URI] --schema S.pg [--allow-data-loss] [--branch B] [--json]`: the migration steps
// from the head's schema (Database::PlanSchema), in the Rust CLI's envelope and human layout.
// `schema apply` (same flags, plus --if-commit): the migration as one commit (Database::ApplySchema).
#include <cstdio>
#include <memory>
#include <string>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "cli/remote_commands.h"
#include "common/api_json.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "common/output_json.h"

namespace omnigraph::cli {
namespace {

int RunSchemaShow(const GraphFlags& flags) {
  // The Rust CLI's addressing guard (planes.rs): `schema show` is a data command, so --cluster
  // does not apply.
  if (!Globals().cluster.empty()) {
    return ReportError(InvalidArgumentError("`schema show` is a data command; --cluster addresses a cluster-scoped "
                                            "command and does not apply."),
                       flags.json);
  }
  if (auto rc = RemoteSchemaShow(flags)) return *rc;
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto source = (*g)->SchemaSource(ReadTarget::Head("main"));
  if (!source.ok()) return ReportError(source.status(), flags.json);
  if (flags.json) {
    OrderedJson j = OrderedJson::object();
    j["schema_source"] = *source;
    std::printf("%s\n", j.dump(2, ' ', false, OrderedJson::error_handler_t::replace).c_str());
  } else {
    std::fwrite(source->data(), 1, source->size(), stdout);
    std::fputc('\n', stdout);
  }
  return kExitOk;
}

std::string RenderStep(const SchemaPlan::Step& s) {
  const std::string on = " on " + s.type_kind + " '" + s.type_name + "'";
  const std::string prop = "'" + s.type_name + "." + s.property + "'";
  std::string out;
  if (s.kind == "add_type") out = "add " + s.type_kind + " type '" + s.type_name + "'";
  if (s.kind == "rename_type") out = "rename " + s.type_kind + " type '" + s.old_name + "' -> '" + s.type_name + "'";
  if (s.kind == "add_property") out = "add property " + prop + on;
  if (s.kind == "rename_property") {
    out = "rename property '" + s.type_name + "." + s.old_name + "' -> " + prop + on;
  }
  if (s.kind == "extend_enum") {
    std::string added;
    for (const auto& v : s.added_values) added += (added.empty() ? "+" : ", +") + v;
    out = "extend enum " + prop + " (" + added + ")" + on;
  }
  if (s.kind == "make_nullable") out = "make property " + prop + " nullable" + on;
  if (s.kind == "update_type_metadata") out = "update metadata on " + s.type_kind + " '" + s.type_name + "'";
  if (s.kind == "update_property_metadata") {
    out = "update metadata on property " + prop + " of " + s.type_kind + " '" + s.type_name + "'";
  }
  if (s.kind == "add_constraint") out = "add constraint " + s.constraint + on;
  if (s.kind == "drop_constraint") out = "drop constraint " + s.constraint + on;
  if (s.kind == "drop_property") out = "drop property " + prop + on + " (" + s.mode + ")";
  if (s.kind == "drop_type") out = "drop " + s.type_kind + " type '" + s.type_name + "' (" + s.mode + ")";
  if (s.kind == "unsupported_change") out = "unsupported change to '" + s.entity + "'";
  if (out.empty()) out = s.kind + on;
  if (!s.code.empty()) out += " [" + s.code + "]";
  if (!s.reason.empty()) out += ": " + s.reason;
  return out;
}

int RunSchemaPlan(const GraphFlags& flags, const std::string& path, bool allow_data_loss, const std::string& branch) {
  auto source = ReadFile(path, "schema");
  if (!source.ok()) return ReportError(source.status(), flags.json);
  auto g = OpenGraph(flags, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto plan = (*g)->PlanSchema(*source, allow_data_loss, branch);
  if (!plan.ok()) return ReportError(plan.status(), flags.json);
  if (flags.json) {
    OrderedJson j;
    j["uri"] = (*g)->uri();
    j["supported"] = plan->supported;
    j["step_count"] = plan->steps.size();
    j["steps"] = SchemaPlanStepsJson(*plan);
    j["branch"] = plan->branch;
    j["from_schema_id"] = plan->from_schema_id;
    j["to_schema_id"] = plan->to_schema_id;
    PrintJson(j);
    return kExitOk;
  }
  std::printf("schema plan for %s\n", (*g)->uri().c_str());
  std::printf("supported: %s\n", plan->supported ? "yes" : "no");
  if (plan->steps.empty()) std::printf("no schema changes\n");
  for (const auto& s : plan->steps) std::printf("- %s\n", RenderStep(s).c_str());
  return kExitOk;
}

int RunSchemaApply(const GraphFlags& flags, const std::string& path, bool allow_data_loss, const std::string& branch,
                   const std::string& if_commit) {
  auto source = ReadFile(path, "schema");
  if (!source.ok()) return ReportError(source.status(), flags.json);
  if (auto rc = RemoteSchemaApply(flags, *source, allow_data_loss, branch, if_commit)) return *rc;
  EchoWriteTarget("schema apply", flags);
  auto g = OpenGraph(flags, /*writable=*/true);
  if (!g.ok()) return ReportError(g.status(), flags.json);
  auto r = (*g)->ApplySchema(*source, allow_data_loss, branch,
                             if_commit.empty() ? std::nullopt : std::optional<std::string>(if_commit));
  if (!r.ok()) return ReportError(r.status(), flags.json);
  if (flags.json) {
    PrintJson(SchemaApplyOutputJson((*g)->uri(), *r));
    return kExitOk;
  }
  std::printf("schema apply for %s\n", (*g)->uri().c_str());
  std::printf("supported: %s\n", r->plan.supported ? "yes" : "no");
  std::printf("applied: %s\n", r->applied ? "yes" : "no");
  std::printf("graph_manifest_version: %llu\n", static_cast<unsigned long long>(r->version));
  if (r->plan.steps.empty()) std::printf("no schema changes\n");
  for (const auto& s : r->plan.steps) std::printf("- %s\n", RenderStep(s).c_str());
  return kExitOk;
}

void AddSchemaApplyCommand(CLI::App* schema, CommandAction* run) {
  auto* cmd = schema->add_subcommand("apply", "Apply a schema migration in one commit");
  auto flags = std::make_shared<GraphFlags>();
  auto path = std::make_shared<std::string>();
  auto allow_data_loss = std::make_shared<bool>(false);
  auto branch = std::make_shared<std::string>("main");
  auto if_commit = std::make_shared<std::string>();
  cmd->add_option("--schema", *path, "New schema file (.pg)")->required();
  cmd->add_flag("--allow-data-loss", *allow_data_loss, "Drop populated types and properties as hard drops");
  cmd->add_option("--branch", *branch, "Branch to apply it on (default main)");
  cmd->add_option("--if-commit", *if_commit, "Apply only if the branch head is this commit");
  AddGraphFlags(cmd, flags.get(), /*positional=*/true);
  cmd->callback([=] { *run = [=] { return RunSchemaApply(*flags, *path, *allow_data_loss, *branch, *if_commit); }; });
}

void AddSchemaPlanCommand(CLI::App* schema, CommandAction* run) {
  auto* cmd = schema->add_subcommand("plan", "Plan a schema migration: the steps from the head's schema to a new one");
  auto flags = std::make_shared<GraphFlags>();
  auto path = std::make_shared<std::string>();
  auto allow_data_loss = std::make_shared<bool>(false);
  auto branch = std::make_shared<std::string>("main");
  cmd->add_option("--schema", *path, "New schema file (.pg)")->required();
  cmd->add_flag("--allow-data-loss", *allow_data_loss, "Plan drops of populated data as hard drops");
  cmd->add_option("--branch", *branch, "Branch whose head schema is the starting point (default main)");
  AddGraphFlags(cmd, flags.get(), /*positional=*/true);
  cmd->callback([=] { *run = [=] { return RunSchemaPlan(*flags, *path, *allow_data_loss, *branch); }; });
}

}  // namespace

void AddSchemaCommands(CLI::App& app, CommandAction* run) {
  auto* schema = app.add_subcommand("schema", "The graph's schema: show it, plan and apply a migration");
  schema->require_subcommand(1);
  AddSchemaPlanCommand(schema, run);
  AddSchemaApplyCommand(schema, run);
  auto* show = schema->add_subcommand("show", "Print the schema source (.pg) at the head of main");
  show->alias("get");  // hidden: CLI11 lists an alias only for a nameless subcommand
  auto flags = std::make_shared<GraphFlags>();
  AddGraphFlags(show, flags.get(), /*positional=*/true);
  show->callback([=] { *run = [=] { return RunSchemaShow(*flags); }; });
}

}  // namespace omnigraph::cli
