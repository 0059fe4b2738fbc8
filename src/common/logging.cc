#include "common/logging.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace omnigraph {
namespace {
spdlog::level::level_enum ToSpd(LogLevel l) {
  switch (l) {
    case LogLevel::kTrace: return spdlog::level::trace;
    case LogLevel::kDebug: return spdlog::level::debug;
    case LogLevel::kInfo: return spdlog::level::info;
    case LogLevel::kWarn: return spdlog::level::warn;
    case LogLevel::kError: return spdlog::level::err;
    case LogLevel::kOff: return spdlog::level::off;
  }
  return spdlog::level::warn;
}

spdlog::logger& Logger() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto l = spdlog::stderr_color_mt("omnigraph");
    l->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
    l->set_level(spdlog::level::warn);
    if (const char* env = std::getenv("OMNIGRAPH_LOG")) {
      auto lvl = spdlog::level::from_str(env);
      l->set_level(lvl);
    }
    return l;
  }();
  return *logger;
}
}  // namespace

void SetLogLevel(LogLevel level) { Logger().set_level(ToSpd(level)); }

void Log(LogLevel level, std::string_view message) { Logger().log(ToSpd(level), "{}", message); }

}  // namespace omnigraph
