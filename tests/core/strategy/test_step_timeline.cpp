// A step on one clock: the marks each replica records, and the sentence that names the replica
// the others waited for.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>

#include "mirror/data/batch.h"
#include "mirror/strategy/mirrored.h"
#include "mirror/strategy/shard_plan.h"
#include "mirror/strategy/step_timeline.h"
#include "test_fixtures.h"

using namespace mirror;

namespace {
ReplicaMarks marks(int replica, int process, int64_t shard, double started, double compute, double reduced) {
  ReplicaMarks m;
  m.replica = replica;
  m.process = process;
  m.shard_size = shard;
  m.started = started;
  m.copied = started + 0.01;
  m.forward_done = started + compute / 3;
  m.gradients_ready = started + compute;
  m.reduced = reduced;
  m.updated = reduced + 0.05;
  return m;
}
}  // namespace

TEST(StepTimeline, EveryReplicasMarksAreInOrderOnOneClockAndAgreeWithItsTiming) {
  const auto data = mirror::testing::small_text();
  const auto analysis = analyze(mirror::testing::small_text_model(), input_spec(*data));
  for (const int n : {2, 4}) {
    MirroredStrategy s(resolve_devices({"cpu", n, 0}, list_physical_devices()), analysis, OptimizerConfig{}, {}, 7);
    for (int step = 1; step <= 3; ++step) {
      const auto batch = data->slice(Split::kTrain, 0, 26);  // shards 13, 13 or 7, 7, 6, 6
      const StepResult r = s.train_step(batch);
      const StepTimeline& t = r.timeline;
      ASSERT_EQ(t.replicas.size(), static_cast<size_t>(n)) << n << " replicas, step " << step;
      EXPECT_EQ(t.global_step, step);  // one process: the step itself
      ASSERT_EQ(t.processes.size(), 1u);
      EXPECT_EQ(t.processes[0].offset_ms, 0);
      EXPECT_EQ(t.processes[0].exchange_end, 0);  // no exchange in one process
      const ShardPlan plan(26, n);
      double last_arrival = 0;
      for (const auto& m : t.replicas) last_arrival = std::max(last_arrival, m.gradients_ready);
      for (int g = 0; g < n; ++g) {
        const ReplicaMarks& m = t.replicas[static_cast<size_t>(g)];
        const ReplicaTiming& timing = r.replicas[static_cast<size_t>(g)];
        EXPECT_EQ(m.replica, g);
        EXPECT_EQ(m.process, 0);
        EXPECT_EQ(m.shard_size, plan.size(g));
        EXPECT_GE(m.started, 0);
        EXPECT_LE(m.started, m.copied);
        EXPECT_LE(m.copied, m.forward_done);
        EXPECT_LE(m.forward_done, m.gradients_ready);
        EXPECT_LE(m.gradients_ready, m.reduced);
        EXPECT_LE(m.reduced, m.updated);
        EXPECT_LE(m.updated, t.processes[0].step_end);
        // Nobody leaves the all-reduce before the last replica has entered it: one clock.
        EXPECT_GE(m.reduced, last_arrival) << "replica " << g;
        EXPECT_GT(m.forward_ms(), 0);
        EXPECT_GT(m.backward_ms(), 0);
        // The charts' durations are the marks' differences.
        EXPECT_DOUBLE_EQ(timing.compute_ms, m.compute_ms());
        EXPECT_DOUBLE_EQ(timing.allreduce_ms, m.allreduce_ms());
        EXPECT_DOUBLE_EQ(timing.update_ms, m.update_ms());
      }
      EXPECT_GE(t.end_ms(), t.processes[0].step_end);
    }
    EXPECT_TRUE(s.evaluate(data->slice(Split::kTrain, 0, 26)).timeline.empty());  // evaluations have none
  }
}

TEST(StepTimeline, TheLastToArriveIsTheLatestEntryNotTheShortestWait) {
  // Replica 0 reduces for everyone after they arrive, so it leaves last and its wait is the
  // longest; replica 1 arrives last, and waits least; replica 2 came first.
  StepTimeline t;
  t.replicas = {marks(0, 0, 8, 0.0, 1.0, 4.0), marks(1, 0, 8, 0.0, 3.0, 3.2), marks(2, 0, 8, 0.0, 0.5, 3.2)};
  EXPECT_EQ(t.last_to_arrive(), 1);
  EXPECT_EQ(t.first_to_arrive(), 2);
  EXPECT_DOUBLE_EQ(t.end_ms(), 4.05);
  EXPECT_EQ(straggler_sentence(t),
            "Replica 1 arrived last at the all-reduce, 2.5 ms after replica 2: its compute took 3.0 ms against "
            "0.50 ms. The others waited for it.");
}

TEST(StepTimeline, TheSentenceSaysWhenTheLateReplicaHadTheBiggerShard) {
  StepTimeline t;
  t.replicas = {marks(0, 0, 9, 0.0, 3.6, 3.7), marks(1, 0, 8, 0.0, 3.2, 3.7), marks(2, 0, 8, 0.1, 0.41, 3.7)};
  EXPECT_EQ(straggler_sentence(t),
            "Replica 0 arrived last at the all-reduce, 3.1 ms after replica 2: its shard was larger: 9 examples "
            "against 8 and its compute took 3.6 ms against 0.41 ms. The others waited for it.");
}

TEST(StepTimeline, TheSentenceBlamesALateStartInAnotherProcessAndItsPace) {
  // Process 0 waited 80 ms for the demo pace; process 1 did not, and started 60 ms earlier.
  StepTimeline t;
  t.replicas = {marks(0, 0, 8, 0.0, 2.0, 2.5), marks(1, 1, 8, -60.0, 2.0, 2.5)};
  t.idle = {IdleSpan{IdleKind::kPace, 0, -80.0, -0.02}};
  EXPECT_EQ(straggler_sentence(t),
            "Replica 0 arrived last at the all-reduce, 60 ms after replica 1: it started 60 ms later, in another "
            "process (rank 0), after 80 ms of pace. The others waited for it.");
  t.idle.clear();  // seen from process 1, which knows nothing of process 0's pace
  EXPECT_EQ(straggler_sentence(t),
            "Replica 0 arrived last at the all-reduce, 60 ms after replica 1: it started 60 ms later, in another "
            "process (rank 0). The others waited for it.");
}

TEST(StepTimeline, OneReplicaHasNoStraggler) {
  StepTimeline t;
  EXPECT_EQ(t.last_to_arrive(), -1);
  EXPECT_EQ(straggler_sentence(t), "");
  t.replicas = {marks(0, 0, 8, 0.0, 1.0, 1.0)};
  EXPECT_EQ(t.last_to_arrive(), 0);
  EXPECT_EQ(straggler_sentence(t), "");
  EXPECT_STREQ(idle_kind_name(IdleKind::kEvaluation), "evaluation");
}
