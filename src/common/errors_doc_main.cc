// Prints docs/errors.md from error_codes.def: `og_errors_doc > docs/errors.md`.
#include <cstdio>
#include <string>

#include "common/error_codes.h"

int main() {
  using namespace omnigraph;
  std::printf("# Error codes\n\n");
  std::printf("Generated from `src/common/error_codes.def` by `og_errors_doc`; do not edit by hand.\n");
  std::printf("Codes are stable: tools match on them, and a retired code is never reused.\n\n");
  std::printf("| code | category | HTTP | meaning |\n| --- | --- | --- | --- |\n");
  for (const ErrorCodeInfo& info : AllErrorCodes()) {
    std::string meaning(info.meaning);
    std::printf("| `%.*s` | %.*s | %d | %s |\n", static_cast<int>(info.name.size()), info.name.data(),
                static_cast<int>(StatusCodeName(info.category).size()), StatusCodeName(info.category).data(),
                info.http_status, meaning.c_str());
  }
  return 0;
}
