#pragma once
// How busy the machine was while a run measured its speed: the load average and the CPU time
// that programs other than this one took. A scaling study reads these to tell a measurement on
// a quiet machine from one that shared its cores with something else.

#include <optional>

namespace mirror {

// The 1-minute load average from /proc/loadavg; nullopt where there is none.
std::optional<double> load_average();

// CPU time used since construction by every program on the machine and by this process, read
// from /proc/stat and getrusage. Counts this process's threads as its own, other processes
// (a compiler, a browser, another training run) as others.
class CpuUseMeter {
 public:
  CpuUseMeter();
  // Cores' worth of CPU that other programs kept busy since construction (0.5: half a core on
  // average); nullopt where /proc/stat cannot be read or less than a second has passed.
  std::optional<double> other_programs_cores() const;

 private:
  double wall_ = 0;        // seconds, steady clock
  double machine_busy_ = -1;  // seconds of CPU the whole machine spent busy; < 0: unknown
  double own_ = 0;         // seconds of CPU this process used
};

}  // namespace mirror
