#include "mirror/util/machine_load.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

namespace mirror {

namespace {
constexpr double kShortest = 1.0;  // seconds measured, at least

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Seconds of CPU every core together spent outside idle and I/O wait; < 0 when unreadable.
double machine_busy_seconds() {
  std::ifstream in("/proc/stat");
  std::string label;
  if (!(in >> label) || label != "cpu") return -1;
  // user nice system idle iowait irq softirq steal (guest time is already inside user)
  double field[8] = {};
  for (double& f : field)
    if (!(in >> f)) return -1;
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  if (ticks <= 0) return -1;
  const double busy = field[0] + field[1] + field[2] + field[5] + field[6] + field[7];
  return busy / ticks;
}

double own_cpu_seconds() {
  rusage use{};
  if (::getrusage(RUSAGE_SELF, &use) != 0) return 0;
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return seconds(use.ru_utime) + seconds(use.ru_stime);
}
}  // namespace

std::optional<double> load_average() {
  std::ifstream in("/proc/loadavg");
  double one = 0;
  if (!(in >> one) || one < 0) return std::nullopt;
  return one;
}

CpuUseMeter::CpuUseMeter()
    : wall_(steady_seconds()), machine_busy_(machine_busy_seconds()), own_(own_cpu_seconds()) {}

std::optional<double> CpuUseMeter::other_programs_cores() const {
  const double busy = machine_busy_seconds();
  const double wall = steady_seconds() - wall_;
  // /proc/stat counts in clock ticks (10 ms): over a short run one tick more or less would read as
  // a busy machine.
  if (machine_busy_ < 0 || busy < 0 || wall < kShortest) return std::nullopt;
  // Both counters tick at their own pace (the kernel's accounting is per tick): never below zero.
  const double others = (busy - machine_busy_) - (own_cpu_seconds() - own_);
  return std::max(0.0, others / wall);
}

}  // namespace mirror
