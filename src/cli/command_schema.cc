// `omnigraph schema show [URI] [--json]` (hidden alias `get`): the .pg source of the schema at the
// head of main, as {"schema_source": ...} or the source and a newline (the Rust CLI's shapes).
// `schema plan` and `schema apply` take the Rust CLI's arguments but fail with `unimplemented`:
// schema evolution does not exist yet.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "common/error_codes.h"
#include "common/json.h"

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

// `schema plan` / `schema apply` with the Rust CLI's arguments ([URI], --schema PATH required,
// --json, --allow-data-loss), refused with a typed error.
void AddUnimplementedSchemaCommand(CLI::App* schema, const std::string& name, const std::string& help,
                                   CommandAction* run) {
  auto* cmd = schema->add_subcommand(name, help + " (not implemented yet)");
  auto flags = std::make_shared<GraphFlags>();
  auto path = std::make_shared<std::string>();
  auto allow_data_loss = std::make_shared<bool>(false);
  cmd->add_option("--schema", *path, "New schema file (.pg)")->required();
  cmd->add_flag("--allow-data-loss", *allow_data_loss, "Allow steps that drop populated data");
  AddGraphFlags(cmd, flags.get(), /*positional=*/true);
  // The option targets must live as long as the app: the callback keeps them.
  cmd->callback([=, keep = std::make_pair(path, allow_data_loss)] {
    *run = [=] {
      return ReportError(
          UnimplementedError("schema " + name + ": schema evolution is not implemented yet (maintenance issue)"),
          flags->json);
    };
  });
}

}  // namespace

void AddSchemaCommands(CLI::App& app, CommandAction* run) {
  auto* schema = app.add_subcommand("schema", "The graph's schema: show it (plan and apply: not implemented yet)");
  schema->require_subcommand(1);
  AddUnimplementedSchemaCommand(schema, "plan", "Plan a schema migration", run);
  AddUnimplementedSchemaCommand(schema, "apply", "Apply a schema migration", run);
  auto* show = schema->add_subcommand("show", "Print the schema source (.pg) at the head of main");
  show->alias("get");  // hidden: CLI11 lists an alias only for a nameless subcommand
  auto flags = std::make_shared<GraphFlags>();
  AddGraphFlags(show, flags.get(), /*positional=*/true);
  show->callback([=] { *run = [=] { return RunSchemaShow(*flags); }; });
}

}  // namespace omnigraph::cli
