#include "mirror/train/progress.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace mirror {

void ProgressMeter::add(const StepMetrics& s) {
  if (steps_ > 0) {
    // Between the last step's end and this one's end: this step, the waits for the pace, the
    // pauses, and what else the trainer did (validation, a checkpoint). The rest is that last part.
    const double wall = s.wall_seconds - wall_seconds_;
    const double idle = (s.pace_seconds - pace_seconds_) + (s.pause_seconds - pause_seconds_);
    between_seconds_ += std::max(0.0, wall - idle - s.step_seconds);
  }
  ++steps_;
  samples_ += s.samples;
  train_seconds_ += s.step_seconds;
  global_step_ = s.global_step;
  wall_seconds_ = s.wall_seconds;
  pace_seconds_ = s.pace_seconds;
  pause_seconds_ = s.pause_seconds;
  recent_.push_back({s.samples, s.step_seconds});
  recent_samples_ += static_cast<double>(s.samples);
  recent_seconds_ += s.step_seconds;
  // The oldest step goes once the others still make up kRecentSteps steps and kRecentSeconds of
  // training: steps of a fraction of a millisecond (spirals) are timed over a stretch that one
  // step the scheduler held up cannot swing 4x.
  while (recent_.size() > kRecentSteps && recent_seconds_ - recent_.front().seconds >= kRecentSeconds) {
    recent_samples_ -= static_cast<double>(recent_.front().samples);
    recent_seconds_ -= recent_.front().seconds;
    recent_.pop_front();
  }
}

double ProgressMeter::samples_per_sec() const { return recent_seconds_ > 0 ? recent_samples_ / recent_seconds_ : 0; }

double ProgressMeter::seconds_per_step() const {
  if (recent_.empty()) return 0;
  const double step = recent_seconds_ / static_cast<double>(recent_.size());
  const double between = steps_ > 1 ? between_seconds_ / static_cast<double>(steps_ - 1) : 0;
  return step + between;
}

double ProgressMeter::eta_seconds(int64_t total_steps, double pace) const {
  if (steps_ == 0) return 0;
  const int64_t left = std::max<int64_t>(0, total_steps - global_step_);
  const double per_step = std::max(seconds_per_step(), pace > 0 ? 1.0 / pace : 0.0);
  return per_step * static_cast<double>(left);
}

std::string clock_text(double seconds) {
  const int64_t s = std::llround(std::max(0.0, seconds));
  if (s >= 3600) return fmt::format("{}:{:02d}:{:02d}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02d}", s / 60, s % 60);
}

std::string duration_text(double seconds) {
  seconds = std::max(0.0, seconds);
  if (seconds < 59.95) return fmt::format("{:.1f} s", seconds);  // what rounds to under a minute
  return clock_text(seconds);
}

std::string whole_number_text(double x) {
  const int64_t n = std::llround(x);
  std::string digits = std::to_string(n < 0 ? -n : n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<size_t>(i), ",");
  return n < 0 ? "-" + digits : digits;
}

std::string progress_summary(const ProgressMeter& m, int64_t run_steps) {
  const bool resumed = run_steps > m.steps();
  std::string line = resumed ? fmt::format("{} this session (to step {})", m.steps() == 1 ? "1 step" : fmt::format("{} steps", m.steps()), run_steps)
                             : (m.steps() == 1 ? std::string("1 step") : fmt::format("{} steps", m.steps()));
  line += fmt::format(" in {} of training, {} samples/s", duration_text(m.train_seconds()),
                      whole_number_text(m.session_samples_per_sec()));
  std::string idle;
  if (m.pace_seconds() >= 0.5) idle += fmt::format(": {} waiting for the pace", duration_text(m.pace_seconds()));
  if (m.pause_seconds() >= 0.5)
    idle += fmt::format("{} {} paused", idle.empty() ? ":" : ",", duration_text(m.pause_seconds()));
  line += fmt::format(" ({} on the clock{})", duration_text(m.wall_seconds()), idle);
  return line;
}

}  // namespace mirror
