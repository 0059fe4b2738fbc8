// `omnigraph init --schema S.pg URI`: creates a graph (format stamp, schema, empty tables, genesis
// commit, `main`).
#include <cstdio>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "common/json.h"
#include "compiler/diagnostic.h"
#include "io/store_uri.h"

namespace omnigraph::cli {

void AddInitCommand(CLI::App& app, CommandAction* run) {
  auto* cmd = app.add_subcommand("init", "Create a graph from a .pg schema");
  auto flags = std::make_shared<GraphFlags>();
  auto schema = std::make_shared<std::string>();
  cmd->add_option("--schema", *schema, "Schema file (.pg)")->required();
  AddGraphFlags(cmd, flags.get(), /*positional=*/true);
  cmd->callback([run, flags, schema] {
    *run = [flags, schema]() -> int {
      auto source = ReadFile(*schema, "schema");
      if (!source.ok()) return ReportError(source.status(), flags->json);
      auto uri = flags->Uri();
      if (!uri.ok()) return ReportError(uri.status(), flags->json);
      io::OpenStoreOptions so;
      so.create = true;
      auto store = io::OpenStore(*uri, so);
      if (!store.ok()) return ReportError(store.status(), flags->json);
      engine::GraphOptions go;
      go.actor = flags->Actor();
      auto g = engine::Graph::Init(*store, *source, go);
      if (!g.ok()) {
        if (!flags->json && g.status().span()) {
          std::fprintf(stderr, "%s", compiler::RenderDiagnostic(g.status(), *source, *schema).c_str());
          return ExitCodeFor(g.status());
        }
        return ReportError(g.status(), flags->json);
      }
      auto head = (*g)->Head();
      if (!head.ok()) return ReportError(head.status(), flags->json);
      if (flags->json) {
        Json j = {{"uri", (*store)->Describe()},
                  {"branch", "main"},
                  {"commit", head->commit().id},
                  {"schema_id", head->commit().schema_id},
                  {"node_types", head->catalog().nodes().size()},
                  {"edge_types", head->catalog().edges().size()}};
        std::printf("%s\n", CanonicalJson(j).c_str());
      } else {
        std::printf("initialized %s: %zu node type(s), %zu edge type(s), commit %s\n",
                    (*store)->Describe().c_str(), head->catalog().nodes().size(),
                    head->catalog().edges().size(), head->commit().id.c_str());
      }
      return kExitOk;
    };
  });
}

}  // namespace omnigraph::cli
