#include "common/clock.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <mutex>

namespace omnigraph {
namespace {
std::mutex& ClockMu() {
  static std::mutex mu;
  return mu;
}
std::function<int64_t()>& ClockOverride() {
  static std::function<int64_t()> f;
  return f;
}
}  // namespace

int64_t NowMicros() {
  {
    std::lock_guard<std::mutex> lock(ClockMu());
    if (ClockOverride()) return ClockOverride()();
  }
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

int64_t MonotonicNanos() {
  using namespace std::chrono;
  return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
}

void SetClockForTesting(std::function<int64_t()> now_micros) {
  std::lock_guard<std::mutex> lock(ClockMu());
  ClockOverride() = std::move(now_micros);
}

ScopedTestClock::ScopedTestClock() {
  static std::atomic<int64_t> next{0};
  const int64_t step = int64_t{1000} * 3600 * 1000000;
  const int64_t start = std::max(NowMicros(), next.load()) + step;
  next = start + step;
  now_ = start;
  SetClockForTesting([this] { return now_.fetch_add(tick_.load()) + tick_.load(); });
}

ScopedTestClock::~ScopedTestClock() { SetClockForTesting(nullptr); }

std::string FormatMicrosIso(int64_t micros) {
  int64_t secs = micros / 1000000;
  int64_t frac = micros % 1000000;
  if (frac < 0) {
    frac += 1000000;
    secs -= 1;
  }
  std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(frac));
  return buf;
}

}  // namespace omnigraph
