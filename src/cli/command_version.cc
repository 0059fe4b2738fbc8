// `omnigraph version [--json]`: the release and the storage format version.
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
        Json j = {{"version", OG_VERSION}, {"storage_format_version", OG_STORAGE_FORMAT_VERSION}};
        std::printf("%s\n", CanonicalJson(j).c_str());
      } else {
        std::printf("omnigraph %s (storage format %d)\n", OG_VERSION, OG_STORAGE_FORMAT_VERSION);
      }
      return kExitOk;
    };
  });
}

}  // namespace omnigraph::cli
