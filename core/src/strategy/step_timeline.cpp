// A step on one clock: who reached the all-reduce last, and why, in words from the same numbers.
#include "mirror/strategy/step_timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace mirror {

const char* idle_kind_name(IdleKind kind) {
  switch (kind) {
    case IdleKind::kPace:
      return "pace";
    case IdleKind::kPause:
      return "pause";
    case IdleKind::kEvaluation:
      return "evaluation";
  }
  return "idle";
}

int StepTimeline::last_to_arrive() const {
  int last = -1;
  for (size_t i = 0; i < replicas.size(); ++i)
    if (last < 0 || replicas[i].gradients_ready > replicas[static_cast<size_t>(last)].gradients_ready)
      last = static_cast<int>(i);
  return last;
}

int StepTimeline::first_to_arrive() const {
  int first = -1;
  for (size_t i = 0; i < replicas.size(); ++i)
    if (first < 0 || replicas[i].gradients_ready < replicas[static_cast<size_t>(first)].gradients_ready)
      first = static_cast<int>(i);
  return first;
}

double StepTimeline::end_ms() const {
  double end = 0;
  for (const auto& r : replicas) end = std::max({end, r.updated, r.reduced, r.gradients_ready});
  for (const auto& p : processes) end = std::max({end, p.step_end, p.exchange_end});
  return end;
}

namespace {
// "0.41 ms", "3.6 ms", "12 ms": as many digits as a person reads.
std::string ms_text(double ms) {
  const double a = std::abs(ms);
  if (a >= 10) return fmt::format("{:.0f} ms", ms);
  if (a >= 1) return fmt::format("{:.1f} ms", ms);
  return fmt::format("{:.2f} ms", ms);
}

// The idle span of `process` that ends last before `at` (on the step's clock), or null.
const IdleSpan* idle_before(const StepTimeline& t, int process, double at) {
  const IdleSpan* found = nullptr;
  for (const auto& s : t.idle)
    if (s.process == process && s.end <= at + 1e-9 && s.end > s.begin && (!found || s.end > found->end)) found = &s;
  return found;
}
}  // namespace

std::string straggler_sentence(const StepTimeline& t) {
  if (t.replicas.size() < 2) return {};
  const ReplicaMarks& last = t.replicas[static_cast<size_t>(t.last_to_arrive())];
  const ReplicaMarks& first = t.replicas[static_cast<size_t>(t.first_to_arrive())];
  const double gap = last.gradients_ready - first.gradients_ready;
  std::string s = fmt::format("Replica {} arrived last at the all-reduce, {} after replica {}", last.replica,
                              ms_text(gap), first.replica);
  // Its arrival = its start + its compute: say which part made it late.
  const double late_start = last.started - first.started;
  const double longer_compute = last.compute_ms() - first.compute_ms();
  const bool other_process = last.process != first.process;
  std::vector<std::string> why;
  if (gap <= 0) {
    why.push_back("they arrived together");
  } else if (late_start >= longer_compute) {
    std::string w = fmt::format("it started {} later", ms_text(late_start));
    if (other_process) w += fmt::format(", in another process (rank {})", last.process);
    const IdleSpan* idle = idle_before(t, last.process, last.started);
    const IdleSpan* theirs = idle_before(t, first.process, first.started);
    if (idle && other_process && (!theirs || theirs->end < idle->end))
      w += fmt::format(", after {} of {}", ms_text(idle->end - idle->begin), idle_kind_name(idle->kind));
    why.push_back(std::move(w));
  } else {
    if (last.shard_size > first.shard_size)
      why.push_back(fmt::format("its shard was larger: {} examples against {}", last.shard_size, first.shard_size));
    why.push_back(fmt::format("its compute took {} against {}", ms_text(last.compute_ms()), ms_text(first.compute_ms())));
    if (other_process) why.push_back(fmt::format("it runs in another process (rank {})", last.process));
  }
  s += ": ";
  for (size_t i = 0; i < why.size(); ++i) s += (i == 0 ? "" : i + 1 == why.size() ? " and " : ", ") + why[i];
  s += gap > 0 ? ". The others waited for it." : ".";
  return s;
}

}  // namespace mirror
