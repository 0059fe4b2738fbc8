// Logging through spdlog, to stderr. Level from OMNIGRAPH_LOG (trace|debug|info|warn|error|off;
// default warn) so that command output on stdout stays clean. Thread-safe.
#pragma once

#include <string_view>

namespace omnigraph {

enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError, kOff };

void SetLogLevel(LogLevel level);
void Log(LogLevel level, std::string_view message);

inline void LogDebug(std::string_view m) { Log(LogLevel::kDebug, m); }
inline void LogInfo(std::string_view m) { Log(LogLevel::kInfo, m); }
inline void LogWarn(std::string_view m) { Log(LogLevel::kWarn, m); }
inline void LogError(std::string_view m) { Log(LogLevel::kError, m); }

}  // namespace omnigraph
