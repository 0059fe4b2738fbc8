// `omnigraph version [--json]`: the release and the storage format version (`-v` prints the first line).
#include <cstdio>

#include "cli/cli_util.h"
#include "common/json.h"

namespace omnigraph::cli {

void AddVersionCommand(CLI::App& app, CommandAction* run) {
  auto* cmd = app.add_subcommand("version", "Print the release and the storage format version");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->callback([run, json] {
    *run = [json] {
      if (*json) {
        OrderedJson j = OrderedJson::object();
        j["version"] = OG_VERSION;
        j["storage_format_version"] = OG_STORAGE_FORMAT_VERSION;
        PrintJson(j);
      } else {  // two lines, as the Rust CLI (whose second is its internal schema version)
        std::printf("omnigraph %s\nstorage-format %d\n", OG_VERSION, OG_STORAGE_FORMAT_VERSION);
      }
      return kExitOk;
    };
  });
}

}  // namespace omnigraph::cli
