// The mirrored step across worker processes, with the processes played by threads of this test:
// their WorkerGroup meets in memory instead of over c10d, so what is tested is the strategy's
// side (shards, the record that travels with the gradients, stops), not the transport (the CLI
// tests run real processes over Gloo).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "mirror/data/batch.h"
#include "mirror/strategy/barrier.h"
#include "mirror/strategy/communicator.h"
#include "mirror/strategy/mirrored.h"
#include "mirror/strategy/workers.h"
#include "test_fixtures.h"
#include "trajectory.h"

using namespace mirror;

namespace threaded_workers {

// What the "processes" of one test share: the cross-process communicator and the allgather slots.
struct Meeting {
  explicit Meeting(int world)
      : comm(make_communicator("shared-memory", CommunicatorSpec{world, 1 << 20, {}})), barrier(world),
        slots(static_cast<size_t>(world)) {}
  std::shared_ptr<Communicator> comm;
  AbortableBarrier barrier;
  std::vector<std::vector<double>> slots;
};

class ThreadWorkerGroup : public WorkerGroup {
 public:
  ThreadWorkerGroup(std::shared_ptr<Meeting> meeting, int rank, int world) : meeting_(std::move(meeting)) {
    env_.rank = rank;
    env_.world_size = world;
    env_.local_rank = rank;
    env_.local_world_size = world;
    env_.launcher = "test threads";
    hosts_.assign(static_cast<size_t>(world), "localhost");
  }
  const WorkerEnv& env() const override { return env_; }
  const std::vector<std::string>& hosts() const override { return hosts_; }
  std::shared_ptr<Communicator> communicator() override { return meeting_->comm; }
  std::vector<std::vector<double>> allgather(const std::vector<double>& mine) override {
    meeting_->slots[static_cast<size_t>(env_.rank)] = mine;
    meeting_->barrier.arrive_and_wait();
    auto all = meeting_->slots;
    meeting_->barrier.arrive_and_wait();  // nobody writes the next round's slot before all have read
    return all;
  }
  void check_same(const std::string&, const std::string&) override {}
  void barrier() override { meeting_->barrier.arrive_and_wait(); }

 private:
  std::shared_ptr<Meeting> meeting_;
  WorkerEnv env_;
  std::vector<std::string> hosts_;
};

// What one "process" saw of a short run.
struct ProcessRun {
  std::vector<StepResult> steps;
  torch::Tensor params;
};

// `processes` threads of `replicas` CPU replicas each train `steps` steps at global batch `batch`
// (the same batches as train_trajectory); process `stopper` asks to stop at step `stop_at`
// (counting from 0; -1: never). Process `late` sleeps `late_ms` before each step.
// `sparse_exchange`: the embedding's rows cross as rows (MirroredOptions::sparse_exchange); step
// `big_step` takes a batch 4 times larger; `overlap`: MirroredOptions::backward_overlap.
std::vector<ProcessRun> run_processes(int processes, int replicas, const OptimizerConfig& opt, int steps,
                                      int64_t batch, int stopper = -1, int stop_at = -1, int late = -1,
                                      int late_ms = 0, bool sparse_exchange = true, int big_step = -1,
                                      bool overlap = true) {
  const auto data = mirror::testing::small_text();
  const auto analysis = analyze(mirror::testing::small_text_model(), input_spec(*data));
  auto meeting = std::make_shared<Meeting>(processes);
  std::vector<ProcessRun> runs(static_cast<size_t>(processes));
  std::vector<std::string> errors(static_cast<size_t>(processes));
  std::vector<std::thread> threads;
  for (int p = 0; p < processes; ++p) {
    threads.emplace_back([&, p] {
      try {
        MirroredOptions mo;
        mo.sync_check_every = 5;
        mo.sparse_exchange = sparse_exchange;
        mo.backward_overlap = overlap;
        MirroredStrategy s(resolve_devices({"cpu", replicas, 0}, list_physical_devices()), analysis, opt, mo,
                           /*seed=*/7, std::make_shared<ThreadWorkerGroup>(meeting, p, processes));
        auto& run = runs[static_cast<size_t>(p)];
        for (int step = 0; step < steps; ++step) {
          std::vector<int64_t> idx;
          const int64_t size = step == big_step ? 4 * batch : batch;
          for (int64_t i = 0; i < size; ++i) idx.push_back((step * batch + i * 7) % data->size(Split::kTrain));
          if (p == late) std::this_thread::sleep_for(std::chrono::milliseconds(late_ms));
          run.steps.push_back(s.train_step(data->gather(Split::kTrain, idx), p == stopper && step == stop_at));
        }
        s.check_sync();
        run.params = s.replica_parameters(0).clone();
      } catch (const std::exception& e) {
        errors[static_cast<size_t>(p)] = e.what();
        meeting->barrier.abort(e.what());
        meeting->comm->abort(e.what());
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int p = 0; p < processes; ++p) EXPECT_EQ(errors[static_cast<size_t>(p)], "") << "process " << p;
  return runs;
}

}  // namespace threaded_workers

using threaded_workers::run_processes;

TEST(MirroredProcesses, ProcessesTimesReplicasFollowOneReplica) {
  // Global batch 26: 2 x 1 (13, 13), 2 x 2 (7, 7, 6, 6), 3 x 1 (9, 9, 8).
  for (const char* optimizer : {"sgd", "nadam"}) {
    OptimizerConfig opt;
    opt.name = optimizer;
    opt.learning_rate = 0.05;
    if (opt.name == "sgd") opt.momentum = 0.9;
    MirroredOptions mo;
    mo.sync_check_every = 5;
    const auto devices = resolve_devices({"cpu", 1, 0}, list_physical_devices());
    const auto one = mirror::testing::train_trajectory(devices, opt, mo, 20, 26);
    for (const auto& [processes, replicas] : {std::pair{2, 1}, {2, 2}, {3, 1}}) {
      const auto runs = run_processes(processes, replicas, opt, 20, 26);
      for (int p = 0; p < processes; ++p) {
        const auto& run = runs[static_cast<size_t>(p)];
        ASSERT_EQ(run.steps.size(), one.losses.size());
        for (size_t s = 0; s < one.losses.size(); ++s) {
          // Every process reads the whole global batch's sums from the record.
          EXPECT_EQ(run.steps[s].sums.samples, 26);
          EXPECT_NEAR(run.steps[s].sums.loss(), one.losses[s], 1e-5 * std::abs(one.losses[s]))
              << optimizer << ", " << processes << " x " << replicas << ", process " << p << ", step " << s;
        }
        EXPECT_LT(mirror::testing::relative(run.params, one.params), 1e-5)
            << optimizer << ", " << processes << " x " << replicas << ", process " << p;
      }
    }
    EXPECT_LT(one.losses.back(), one.losses.front()) << optimizer;  // it learned: equal is not trivial
  }
}

TEST(MirroredProcesses, EveryProcessSeesEveryReplicasShardAndTimes) {
  OptimizerConfig opt;
  opt.name = "sgd";
  opt.learning_rate = 0.05;
  const auto runs = run_processes(2, 2, opt, 3, 26);  // shards 7, 7, 6, 6
  for (int p = 0; p < 2; ++p) {
    const auto& steps = runs[static_cast<size_t>(p)].steps;
    for (size_t s = 0; s < steps.size(); ++s) {
      const auto& timings = steps[s].replicas;
      ASSERT_EQ(timings.size(), 4u) << "process " << p;
      for (int g = 0; g < 4; ++g) {
        const auto& t = timings[static_cast<size_t>(g)];
        EXPECT_EQ(t.replica, g);
        EXPECT_EQ(t.shard_size, g < 2 ? 7 : 6);
        const bool mine = g / 2 == p;
        // Its own replicas' times are this step's; the other process's arrive a step later.
        if (mine || s > 0)
          EXPECT_GT(t.compute_ms, 0) << "process " << p << ", step " << s << ", replica " << g;
        else
          EXPECT_EQ(t.compute_ms, 0) << "process " << p << ", replica " << g << ": no earlier step to report";
      }
    }
    // Replica 2's times as process 1 measured them in step 0 reach process 0 with step 1.
    if (p == 0) {
      const auto& theirs = runs[1].steps[0].replicas[2];
      const auto& relayed = steps[1].replicas[2];
      EXPECT_NEAR(relayed.compute_ms, theirs.compute_ms, 1e-3);
      EXPECT_NEAR(relayed.allreduce_ms, theirs.allreduce_ms, 1e-3);
      EXPECT_NEAR(relayed.update_ms, theirs.update_ms, 1e-3);
    }
  }
  EXPECT_EQ(runs[0].steps[1].sums.correct, runs[1].steps[1].sums.correct);
}

TEST(MirroredProcesses, AStopAskedOfOneProcessReachesAllWithThatStep) {
  OptimizerConfig opt;
  opt.name = "sgd";
  opt.learning_rate = 0.05;
  const auto runs = run_processes(3, 1, opt, 5, 26, /*stopper=*/2, /*stop_at=*/3);
  for (int p = 0; p < 3; ++p)
    for (size_t s = 0; s < 5; ++s)
      EXPECT_EQ(runs[static_cast<size_t>(p)].steps[s].stop_asked, s == 3) << "process " << p << ", step " << s;
}

TEST(MirroredProcesses, OneProcessHandsItsStopBack) {
  const auto data = mirror::testing::small_text();
  const auto analysis = analyze(mirror::testing::small_text_model(), input_spec(*data));
  MirroredStrategy s(resolve_devices({"cpu", 2, 0}, list_physical_devices()), analysis, OptimizerConfig{}, {}, 7);
  const auto batch = data->slice(Split::kTrain, 0, 8);
  EXPECT_FALSE(s.train_step(batch).stop_asked);
  EXPECT_TRUE(s.train_step(batch, /*stop_asked=*/true).stop_asked);
}

TEST(MirroredProcesses, TheStepBeforeArrivesAlignedOnEveryProcesssClock) {
  // 2 processes x 2 replicas; process 1 starts each step 150 ms after process 0, so process 0's
  // replicas wait for it in the exchange. Every process reports, with step N, the timeline of
  // step N - 1: all four replicas placed on its own clock by the moments each process left the
  // exchange.
  OptimizerConfig opt;
  opt.name = "sgd";
  opt.learning_rate = 0.05;
  constexpr double kLateMs = 150;
  const auto runs = run_processes(2, 2, opt, 4, 26, -1, -1, /*late=*/1, static_cast<int>(kLateMs));
  for (int p = 0; p < 2; ++p) {
    const auto& steps = runs[static_cast<size_t>(p)].steps;
    EXPECT_TRUE(steps[0].timeline.empty()) << "process " << p << ": no earlier step to report";
    for (size_t s = 1; s < steps.size(); ++s) {
      const StepTimeline& t = steps[s].timeline;
      const std::string where = "process " + std::to_string(p) + ", step " + std::to_string(s);
      EXPECT_EQ(t.global_step, static_cast<int64_t>(s)) << where;  // the step before, counted from 1
      ASSERT_EQ(t.replicas.size(), 4u) << where;
      ASSERT_EQ(t.processes.size(), 2u) << where;
      EXPECT_EQ(t.processes[static_cast<size_t>(p)].offset_ms, 0) << where;
      // Process 1 began its step about 150 ms after process 0 (at least that: it slept first).
      const double offset_1_on_0 = t.processes[1].offset_ms - t.processes[0].offset_ms;
      EXPECT_GE(offset_1_on_0, kLateMs * 0.9) << where;
      // Aligned, the processes left the exchange together, and nobody left before everyone entered.
      EXPECT_NEAR(t.processes[0].exchange_end, t.processes[1].exchange_end, 1e-3) << where;
      double last_entry = -1e9;
      for (const auto& m : t.replicas) last_entry = std::max(last_entry, m.gradients_ready);
      for (const auto& ps : t.processes) {
        EXPECT_LE(ps.exchange_begin, ps.exchange_end) << where;
        EXPECT_LE(last_entry, ps.exchange_end + 1.0) << where;  // within 1 ms: the processes' clocks
      }
      for (int g = 0; g < 4; ++g) {
        const ReplicaMarks& m = t.replicas[static_cast<size_t>(g)];
        EXPECT_EQ(m.replica, g) << where;
        EXPECT_EQ(m.process, g / 2) << where;
        EXPECT_EQ(m.shard_size, g < 2 ? 7 : 6) << where;
        EXPECT_LE(m.started, m.copied) << where;
        EXPECT_LE(m.copied, m.forward_done) << where;
        EXPECT_LE(m.forward_done, m.gradients_ready) << where;
        EXPECT_LE(m.gradients_ready, m.reduced) << where;
        EXPECT_LE(m.reduced, m.updated) << where;
        // A replica leaves the all-reduce after its process left the exchange.
        EXPECT_GE(m.reduced + 1e-3, t.processes[static_cast<size_t>(g / 2)].exchange_end) << where << ", replica " << g;
        // Its process's first replica entered the exchange after every local replica was ready.
        EXPECT_LE(m.gradients_ready, t.processes[static_cast<size_t>(g / 2)].exchange_begin + 1e-3) << where;
      }
      // The late process's replicas started later on this clock; one of them arrived last, and
      // the sentence says why from the same numbers.
      EXPECT_GE(t.replicas[2].started - t.replicas[0].started, kLateMs * 0.9) << where;
      EXPECT_EQ(t.replicas[static_cast<size_t>(t.last_to_arrive())].process, 1) << where;
      EXPECT_NE(straggler_sentence(t).find("in another process (rank 1)"), std::string::npos)
          << where << ": " << straggler_sentence(t);
      // The same step as the other process saw it: the same gaps between replicas.
      const StepTimeline& other = runs[static_cast<size_t>(1 - p)].steps[s].timeline;
      ASSERT_EQ(other.replicas.size(), 4u);
      EXPECT_NEAR(t.replicas[3].gradients_ready - t.replicas[0].gradients_ready,
                  other.replicas[3].gradients_ready - other.replicas[0].gradients_ready, 0.01) << where;
      // Its own replicas are exactly what it measured then (kept from that step).
      const auto& mine = steps[s - 1].replicas[static_cast<size_t>(2 * p)];
      EXPECT_DOUBLE_EQ(t.replicas[static_cast<size_t>(2 * p)].compute_ms(), mine.compute_ms) << where;
    }
  }
}

// The embedding's gradient crossing as the rows a step touched sums to what the whole table
// gives: bit for bit between 2 processes (a + b either way), within float summation order among
// 3; and it crosses in fewer bytes, which every step records. Two sequences per process touch a
// sixth of the 300 rows. The first step crosses whole (the slots' size is not known yet); step
// 5's batch, 4 times larger, outgrows the slots, so its rows cross again in a second all-reduce;
// the steps after it cross no more than whole while the slots, sized for that batch, shrink back.
TEST(MirroredProcesses, RowsOnlyExchangeSumsAsTheDenseOneInFewerBytes) {
  OptimizerConfig opt;
  opt.name = "adam";
  opt.learning_rate = 0.01;
  constexpr int kBig = 5;
  for (const auto& [processes, replicas] : {std::pair{2, 1}, {2, 2}, {3, 1}}) {
    const int64_t batch = 2 * processes;
    // Without the overlap, so that the step's one exchange carries every gradient.
    const auto sparse = run_processes(processes, replicas, opt, 12, batch, -1, -1, -1, 0, true, kBig, false);
    const auto dense = run_processes(processes, replicas, opt, 12, batch, -1, -1, -1, 0, false, kBig, false);
    for (int p = 0; p < processes; ++p) {
      const std::string where = fmt::format("{} x {}, process {}", processes, replicas, p);
      const auto& s = sparse[static_cast<size_t>(p)];
      const auto& d = dense[static_cast<size_t>(p)];
      if (processes == 2)
        EXPECT_TRUE(torch::equal(s.params, d.params)) << where;
      else
        EXPECT_LT(mirror::testing::relative(s.params, d.params), 1e-6) << where;
      ASSERT_EQ(s.steps.size(), d.steps.size());
      for (size_t k = 0; k < s.steps.size(); ++k) {
        const int64_t whole = d.steps[k].exchange_bytes, lengths = 8 * processes;
        EXPECT_GT(whole, 0);
        if (k == 0)
          EXPECT_EQ(s.steps[k].exchange_bytes, whole + lengths) << where;
        else if (k == kBig)
          EXPECT_GT(s.steps[k].exchange_bytes, s.steps[k - 1].exchange_bytes + lengths) << where;
        else if (k > kBig)
          EXPECT_LE(s.steps[k].exchange_bytes, whole + lengths) << where;
        else
          EXPECT_LT(s.steps[k].exchange_bytes, whole * 3 / 4) << where << ", step " << k;
      }
    }
  }
}

TEST(MirroredProcesses, BucketsOverlappedWithBackwardSumAsTheStepsExchange) {
  OptimizerConfig opt;
  opt.name = "adam";
  opt.learning_rate = 0.01;
  for (const int processes : {2, 3}) {
    const int64_t batch = 4 * processes;
    const auto on = run_processes(processes, 1, opt, 8, batch, -1, -1, -1, 0, true, -1, true);
    const auto off = run_processes(processes, 1, opt, 8, batch, -1, -1, -1, 0, true, -1, false);
    for (int p = 0; p < processes; ++p) {
      const std::string where = fmt::format("{} processes, process {}", processes, p);
      const auto& a = on[static_cast<size_t>(p)];
      const auto& b = off[static_cast<size_t>(p)];
      if (processes == 2)
        EXPECT_TRUE(torch::equal(a.params, b.params)) << where;
      else
        EXPECT_LT(mirror::testing::relative(a.params, b.params), 1e-6) << where;
      ASSERT_EQ(a.steps.size(), b.steps.size());
      for (size_t k = 0; k < a.steps.size(); ++k) {
        const std::string at = fmt::format("{}, step {}", where, k);
        EXPECT_EQ(a.steps[k].sums.loss(), b.steps[k].sums.loss()) << at;
        // The same floats cross, some in the buckets instead of the step's exchange.
        EXPECT_EQ(a.steps[k].exchange_bytes, b.steps[k].exchange_bytes) << at;
        // The buckets carry the layers after the embedding; its rows and the record cross after backward.
        EXPECT_GT(a.steps[k].overlap_bytes, 0) << at;
        EXPECT_LT(a.steps[k].overlap_bytes, a.steps[k].exchange_bytes) << at;
        EXPECT_EQ(b.steps[k].overlap_bytes, 0) << at;
        if (k == 0) continue;  // a timeline describes the step before
        // The buckets' all-reduce began after forward and before backward ended, on every process.
        for (int q = 0; q < processes; ++q) {
          const auto& span = a.steps[k].timeline.processes.at(static_cast<size_t>(q));
          const auto& marks = a.steps[k].timeline.replicas.at(static_cast<size_t>(q));
          EXPECT_GT(span.overlap_end, 0) << at << ", seen of process " << q;
          EXPECT_GE(span.overlap_begin + 1e-3, marks.forward_done) << at << ", process " << q;
          EXPECT_LT(span.overlap_begin, marks.gradients_ready) << at << ", process " << q;
          EXPECT_LE(span.overlap_begin, span.overlap_end) << at << ", process " << q;
          EXPECT_EQ(b.steps[k].timeline.processes.at(static_cast<size_t>(q)).overlap_end, 0) << at;
        }
      }
    }
  }
}
