// `omnigraph init --schema S.pg URI`: creates a graph (format stamp, schema, empty tables, genesis
// commit, `main`). A failed init removes the folder it created (never one that existed before);
// `memory://` graphs live only in this process, so init warns that this one is gone at exit.
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "common/error_codes.h"
#include "common/json.h"
#include "compiler/catalog_builder.h"
#include "compiler/diagnostic.h"
#include "engine/graph/graph_layout.h"
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

// The outermost folder of `path` that does not exist yet (what creating `path` creates), or empty
// when `path` exists.
std::filesystem::path FirstMissing(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) || ec) return {};
  std::filesystem::path missing = path;
  for (std::filesystem::path p = path.parent_path(); !p.empty() && p != p.parent_path(); p = p.parent_path()) {
    if (std::filesystem::exists(p, ec) || ec) break;
    missing = p;
  }
  return missing;
}

}  // namespace

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
      auto uri_text = flags->Uri();
      if (!uri_text.ok()) return ReportError(uri_text.status(), flags->json);
      auto uri = io::ParseStoreUri(*uri_text);
      if (!uri.ok()) return ReportError(uri.status(), flags->json);
      // Schema errors before anything exists on disk: nothing to clean up.
      auto compiled = compiler::CompileSchema(*source);
      if (!compiled.ok()) return ReportInitError(compiled.status(), *flags, *source, *schema);
      std::filesystem::path created;  // the folder this command creates, if any
      if (uri->scheme == io::StoreScheme::kFile) created = FirstMissing(uri->path);
      io::OpenStoreOptions so;
      so.create = true;
      auto store = io::OpenStore(*uri, so);
      // Removes what this command created, on failure. Not when another process's graph may be
      // there: it lost no race (already_initialized) and it published no ref.
      auto clean_up = [&](const Status& why) {
        if (created.empty() || why.code() == ErrorCode::kAlreadyInitialized) return;
        if (store.ok()) {
          auto refs = (*store)->ListPage(engine::kRefsPrefix, "", 1);
          if (!refs.ok() || !refs->empty()) return;
        }
        std::error_code ec;
        std::filesystem::remove_all(created, ec);
      };
      if (!store.ok()) {
        clean_up(store.status());
        return ReportError(store.status(), flags->json);
      }
      engine::GraphOptions go;
      go.actor = flags->Actor();
      auto g = engine::Graph::Init(*store, *source, go);
      if (!g.ok()) {
        clean_up(g.status());
        return ReportInitError(g.status(), *flags, *source, *schema);
      }
      auto head = (*g)->Head();
      if (!head.ok()) return ReportError(head.status(), flags->json);
      const bool in_process = uri->scheme == io::StoreScheme::kMemory;
      if (in_process) {
        std::fprintf(stderr,
                     "warning: %s is an in-process memory store: the graph lives only in this process and "
                     "is gone when this command exits (use a path to keep it)\n",
                     (*store)->Describe().c_str());
      }
      if (flags->json) {
        Json j = {{"uri", (*store)->Describe()},
                  {"branch", "main"},
                  {"commit", head->commit().id},
                  {"schema_id", head->commit().schema_id},
                  {"node_types", head->catalog().nodes().size()},
                  {"edge_types", head->catalog().edges().size()},
                  {"persistent", !in_process}};
        std::printf("%s\n", CanonicalJson(j).c_str());
      } else {
        std::printf("initialized %s: %zu node type(s), %zu edge type(s), commit %s%s\n",
                    (*store)->Describe().c_str(), head->catalog().nodes().size(),
                    head->catalog().edges().size(), head->commit().id.c_str(),
                    in_process ? " (in memory: gone when this command exits)" : "");
      }
      return kExitOk;
    };
  });
}

}  // namespace omnigraph::cli
