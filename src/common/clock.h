// Clocks: wall time for timestamps (µs since the Unix epoch) and a monotonic clock for durations.
// Tests can install a fake wall clock. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace omnigraph {

// Microseconds since 1970-01-01T00:00:00Z.
int64_t NowMicros();
// Monotonic nanoseconds (arbitrary origin), for measuring durations.
int64_t MonotonicNanos();

// Installs a wall-clock override (nullptr restores the real clock). For tests only.
void SetClockForTesting(std::function<int64_t()> now_micros);

// "2026-12-02T18:21:46.123456Z".
std::string FormatMicrosIso(int64_t micros);

}  // namespace omnigraph
