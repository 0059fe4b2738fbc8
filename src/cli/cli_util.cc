#include "cli/cli_util.h"

#include <cstdio>

#include "common/error_codes.h"
#include "common/json.h"

namespace omnigraph::cli {

int ExitCodeFor(const Status& status) {
  if (status.ok()) return kExitOk;
  if (status.category() == StatusCode::kPreconditionFailed) return kExitPrecondition;
  return kExitError;
}

int ReportError(const Status& status, bool json) {
  if (status.ok()) return kExitOk;
  if (json) {
    Json j = {{"ok", false},
              {"error", {{"code", std::string(status.code_string())},
                         {"category", std::string(StatusCodeName(status.category()))},
                         {"message", status.message()}}}};
    if (status.span()) {
      j["error"]["span"] = {{"file", status.span()->file},
                            {"line", status.span()->line},
                            {"column", status.span()->column}};
    }
    if (!status.details().empty()) {  // structured data of the error, e.g. merge_conflicts
      auto d = ParseJson(status.details(), "error details");
      if (d.ok() && d->is_object()) {
        for (auto it = d->begin(); it != d->end(); ++it) j[it.key()] = it.value();
      }
    }
    std::printf("%s\n", CanonicalJson(j).c_str());
  } else {
    std::fprintf(stderr, "error[%.*s]: %s\n", static_cast<int>(status.code_string().size()),
                 status.code_string().data(), status.message().c_str());
    if (status.span()) {
      std::fprintf(stderr, "  --> %s%s%u:%u\n", status.span()->file.c_str(),
                   status.span()->file.empty() ? "" : ":", status.span()->line,
                   status.span()->column);
    }
  }
  return ExitCodeFor(status);
}

}  // namespace omnigraph::cli
