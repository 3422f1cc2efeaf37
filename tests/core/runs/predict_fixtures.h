#pragma once
// Hand-made step timelines for the what-if's tests (test_predict.cpp, test_predict_study.cpp):
// replicas that copy, compute, wait for the last, reduce and update, in known milliseconds.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "mirror/strategy/step_timeline.h"

namespace mirror::testing::predict_fixtures {

// What the hand-made steps are built from, in milliseconds.
struct Truth {
  int replicas = 4;
  int64_t shard = 8;
  double copy_ms = 0.2;
  double per_example_ms = 0.5;
  double transfer_ms = 1.5;  // the last replica's time inside the all-reduce
  double update_ms = 0.3;
  double tail_ms = 0.4;      // after the last update: results read back
  double late_ms = 0.7;      // replica 0 starts this late (a straggler): the others wait
};

inline StepTimeline make_step(const Truth& t, int64_t step) {
  StepTimeline tl;
  tl.global_step = step;
  for (int r = 0; r < t.replicas; ++r) {
    ReplicaMarks m;
    m.replica = r;
    m.shard_size = t.shard;
    m.started = r == 0 ? t.late_ms : 0.05 * r;
    m.copied = m.started + t.copy_ms;
    m.forward_done = m.copied + t.per_example_ms * t.shard / 3;
    m.gradients_ready = m.copied + t.per_example_ms * t.shard;
    tl.replicas.push_back(m);
  }
  double last = 0;
  for (const ReplicaMarks& m : tl.replicas) last = std::max(last, m.gradients_ready);
  for (ReplicaMarks& m : tl.replicas) {
    m.reduced = last + t.transfer_ms;  // everyone leaves together
    m.updated = m.reduced + t.update_ms;
  }
  ProcessSpans p;
  p.step_end = tl.replicas[0].updated + t.tail_ms;
  tl.processes.push_back(p);
  return tl;
}

inline std::vector<StepTimeline> steps(const Truth& t, int count = 5) {
  std::vector<StepTimeline> out;
  for (int i = 1; i <= count; ++i) out.push_back(make_step(t, i));
  return out;
}

}  // namespace mirror::testing::predict_fixtures
