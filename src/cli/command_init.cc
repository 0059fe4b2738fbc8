// `omnigraph init --schema S.pg URI`: creates a graph (format stamp, schema, empty tables, genesis
// commit, `main`). A failed init removes the folder it created (never one that existed before);
// `memory://` graphs live only in this process, so init warns that this one is gone at exit.
#include <cstdio>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "compiler/catalog_builder.h"
#include "compiler/diagnostic.h"
#include "io/store_uri.h"

namespace omnigraph::cli {

namespace {

int ReportInitError(const Status& s, const GraphFlags& flags, const std::string& source,
                    const std::string& schema_path) {
  if (!flags.json && s.span()) {
    std::fprintf(stderr, "%s", compiler::RenderDiagnostic(s, source, schema_path).c_str());
    return ExitCodeFor(s);
  }
  return ReportError(s, flags.json);
}

}  // namespace

void AddInitCommand(CLI::App& app, CommandAction* run) {
  auto* cmd = app.add_subcommand("init", "Create a graph from a .pg schema");
  auto flags = std::make_shared<GraphFlags>();
  auto schema = std::make_shared<std::string>();
  cmd->add_option("--schema", *schema, "Schema file (.pg)")->required();
  // The Rust CLI's --force replaces an interrupted init's leftovers; ours does that without it
  // (docs/decisions.md), so the flag is accepted and changes nothing.
  auto force = std::make_shared<bool>(false);
  cmd->add_flag("--force", *force, "Accepted for the Rust CLI: an interrupted init is always finished");
  AddGraphFlags(cmd, flags.get(), /*positional=*/true);
  cmd->callback([run, flags, schema, force] {
    *run = [flags, schema]() -> int {
      auto source = ReadFile(*schema, "schema");
      if (!source.ok()) return ReportError(source.status(), flags->json);
      auto uri_text = flags->Uri();
      if (!uri_text.ok()) return ReportError(uri_text.status(), flags->json);
      auto uri = io::ParseStoreUri(*uri_text);
      if (!uri.ok()) return ReportError(uri.status(), flags->json);
      // The schema is checked before anything is created, so a bad schema leaves no folder behind.
      auto compiled = compiler::CompileSchema(*source);
      if (!compiled.ok()) return ReportInitError(compiled.status(), *flags, *source, *schema);
      OpenOptions o;
      o.actor = flags->Actor();
      o.unsafe_single_writer = Globals().unsafe_single_writer;
      // A failed init removes the folder it created (Database::Init).
      auto db = Database::Init(*uri_text, *source, o);
      if (!db.ok()) return ReportInitError(db.status(), *flags, *source, *schema);
      auto head = (*db)->Snapshot();
      if (!head.ok()) return ReportError(head.status(), flags->json);
      size_t node_types = 0, edge_types = 0;
      for (const auto& t : head->types) ++(t.is_edge ? edge_types : node_types);
      const bool in_process = uri->scheme == io::StoreScheme::kMemory;
      if (in_process) {
        std::fprintf(stderr,
                     "warning: %s is an in-process memory store: the graph lives only in this process and "
                     "is gone when this command exits (use a path to keep it)\n",
                     (*db)->uri().c_str());
      }
      if (flags->json) {
        OrderedJson j = OrderedJson::object();
        j["uri"] = (*db)->uri();
        j["branch"] = "main";
        j["commit"] = head->commit_id;
        j["schema_id"] = head->schema_id;
        j["node_types"] = node_types;
        j["edge_types"] = edge_types;
        j["persistent"] = !in_process;
        PrintJson(j);
      } else {  // the Rust CLI's line (the URI as given)
        std::printf("initialized %s\n", uri_text->c_str());
      }
      return kExitOk;
    };
  });
}

}  // namespace omnigraph::cli
