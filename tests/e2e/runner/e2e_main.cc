// og_e2e: runs end-to-end test files. Usage:
//   og_e2e [--config memory|local|restart-each|fault-sweep|s3|s3-faults|s3-crash-sweep] [--rewrite] FILE.test...
// Exit 0 when every record of every file passed. Prints "N passed, M failed" at the end.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "common/logging.h"
#include "e2e_runner.h"

int main(int argc, char** argv) {
  using namespace omnigraph::e2e;
  omnigraph::SetLogLevel(omnigraph::LogLevel::kError);  // fault sweeps log expected warnings
  std::string config_name = "memory";
  bool rewrite = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--config" && i + 1 < argc)
      config_name = argv[++i];
    else if (a == "--rewrite")
      rewrite = true;
    else
      files.push_back(a);
  }
  auto config = ParseConfig(config_name);
  if (!config.ok() || files.empty()) {
    std::fprintf(stderr,
                 "usage: og_e2e [--config memory|local|restart-each|fault-sweep|s3|s3-faults|s3-crash-sweep] "
                 "[--rewrite] FILE...\n");
    return 2;
  }
  int passed = 0, failed = 0;
  for (const auto& path : files) {
    auto file = ParseTestFile(path);
    if (!file.ok()) {
      std::fprintf(stderr, "%s\n", file.status().ToString().c_str());
      ++failed;
      continue;
    }
    Runner runner(*config, rewrite);
    RunReport report = runner.Run(*file);
    for (const auto& m : report.messages) std::fprintf(stderr, "%s: %s\n", path.c_str(), m.c_str());
    if (rewrite) {
      std::ofstream(path) << RenderTestFile(*file);
    }
    std::printf("%s [%s]: %d records, %d fault runs, %s\n", path.c_str(), config_name.c_str(), report.records,
                report.fault_runs, report.failures == 0 ? "ok" : "FAILED");
    (report.failures == 0 ? passed : failed)++;
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
