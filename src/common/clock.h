// Clocks: wall time for timestamps (µs since the Unix epoch) and a monotonic clock for durations.
// Tests can install a fake wall clock. Thread-safe.
#pragma once

#include <atomic>
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

// A fake wall clock for one test's scope (restores the real clock when it goes): it starts 1,000
// hours after the start of the previous one in this process, and never before the real time, so
// it never goes back to before ids (ULIDs carry the time) that earlier tests made. Each read adds
// `tick`. For tests only.
class ScopedTestClock {
 public:
  ScopedTestClock();
  ~ScopedTestClock();
  ScopedTestClock(const ScopedTestClock&) = delete;
  ScopedTestClock& operator=(const ScopedTestClock&) = delete;
  void Advance(int64_t us) { now_ += us; }
  void SetTick(int64_t us) { tick_ = us; }
  int64_t now() const { return now_.load(); }

 private:
  std::atomic<int64_t> now_;
  std::atomic<int64_t> tick_{0};
};

// "2026-12-02T18:21:46.123456Z".
std::string FormatMicrosIso(int64_t micros);

}  // namespace omnigraph
