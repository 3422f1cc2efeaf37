#pragma once
// A run's throughput, time left and "N steps in T", from its active training time: what the
// trainer spent waiting for a demo pace or paused is left out. The window's status line and
// mirrortrain's progress lines read the same numbers from it. Light (no torch), not thread-safe:
// feed it from one thread.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

#include "mirror/train/events.h"

namespace mirror {

class ProgressMeter {
 public:
  // The next step of this session, as the trainer reports it live (wall_seconds, pace_seconds and
  // pause_seconds counted from the session's start). A resumed run's first step carries the run's
  // totals so far (global_step, samples_seen, train_seconds): only the session's own steps count.
  void add(const StepMetrics& s);
  // Forget every step (a new run).
  void reset() { *this = ProgressMeter(); }

  // This session: steps, samples, training time (the steps themselves), time waiting for the
  // pace, time paused, and time on the clock (at the last step).
  int64_t steps() const { return steps_; }
  int64_t samples() const { return samples_; }
  double train_seconds() const { return train_seconds_; }
  double pace_seconds() const { return pace_seconds_; }
  double pause_seconds() const { return pause_seconds_; }
  double wall_seconds() const { return wall_seconds_; }
  // The run's step count at the last step (a resumed run counts its earlier sessions too); 0: none.
  int64_t global_step() const { return global_step_; }

  // Samples a second of training over the recent steps: the last kRecentSteps, and more while
  // they took under kRecentSeconds of training (pace waits and pauses are not training, so neither
  // lowers it); 0 before a step.
  double samples_per_sec() const;
  // The same over the whole session.
  double session_samples_per_sec() const { return train_seconds_ > 0 ? static_cast<double>(samples_) / train_seconds_ : 0; }
  // The time one step takes, pace waits and pauses left out: the recent steps' training time plus
  // this session's time between steps that was not waiting (validation, checkpoints) per step.
  double seconds_per_step() const;
  // Seconds until the run's `total_steps` are done at `pace` steps a second (0: full speed): each
  // step left takes max(seconds_per_step(), 1 / pace). 0 when done or before a step.
  double eta_seconds(int64_t total_steps, double pace) const;

  static constexpr size_t kRecentSteps = 32;
  static constexpr double kRecentSeconds = 2.0;

 private:
  struct Recent {
    int64_t samples = 0;
    double seconds = 0;
  };
  std::deque<Recent> recent_;
  double recent_samples_ = 0, recent_seconds_ = 0;  // sums over recent_
  int64_t steps_ = 0;
  int64_t samples_ = 0;
  int64_t global_step_ = 0;
  double train_seconds_ = 0;
  double pace_seconds_ = 0, pause_seconds_ = 0, wall_seconds_ = 0;
  double between_seconds_ = 0;  // between this session's steps, neither waiting nor paused nor a step
};

// A clock reading: "0:07", "2:10", "1:02:03".
std::string clock_text(double seconds);

// How long something took: seconds with a decimal under a minute ("0.4 s", "12.0 s"), else a
// clock reading ("2:10"), so that a sub-second run does not read "0:00".
std::string duration_text(double seconds);

// What a session trained, in one line that adds up: "960 steps in 16.1 s of training, 59,597
// samples/s (2:10 on the clock: 1:53 waiting for the pace, 0.6 s paused)". A resumed session says
// so: "100 steps this session (to step 600) in …". `run_steps`: the run's step count at the end.
std::string progress_summary(const ProgressMeter& m, int64_t run_steps);

// `x` rounded to a whole number with thousands separated by commas: "59,597".
std::string whole_number_text(double x);

}  // namespace mirror
