// The what-if over the runs a person chose (predict_study.cpp): which scaling and device counts a
// study implies, the fit it pools, and what its prediction must agree with: the study's own
// measurements, and a link that cannot matter to one device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "mirror/runs/predict.h"
#include "mirror/runs/run_reader.h"
#include "mirror/strategy/link_model.h"
#include "predict_fixtures.h"

using namespace mirror;
using namespace mirror::testing::predict_fixtures;

namespace {

constexpr int64_t kParameters = 250'000;  // 1 MB of float32 gradient
const LinkSpec kLink{"hand-made", 30e-6, 2e9};

// A run of `replicas` devices of their own (no shared cores) at global batch `global`: its steps
// take the study's true times, the all-reduce as the ring formula gives it over kLink, and each
// step's compute jitters by up to ±`jitter` (a real run's spread) around the truth times `slowdown`
// (cores shared by more threads than they have).
RunRecord study_run(int replicas, int64_t global, double jitter = 0.1, double slowdown = 1) {
  RunRecord r;
  r.name = "replicas-" + std::to_string(replicas);
  nlohmann::json devices = nlohmann::json::array();
  for (int i = 0; i < replicas; ++i) devices.push_back("cuda:" + std::to_string(i));
  r.run = {{"parameters", kParameters}, {"devices", devices},
           {"config", {{"batch_size", global}, {"devices", {{"logical", replicas}}}}}};
  Truth t;
  t.replicas = replicas;
  t.shard = global / replicas;
  t.per_example_ms *= slowdown;
  t.transfer_ms = 1e3 * ring_allreduce_seconds(kLink, replicas, 4.0 * kParameters);
  for (int i = 1; i <= 9; ++i) {
    Truth step = t;
    step.per_example_ms *= 1 + jitter * std::sin(1.7 * i);
    r.timelines.push_back(make_step(step, i));
  }
  return r;
}

// The samples per second each of a run's steps reached, lowest and highest.
std::pair<double, double> measured_spread(const RunRecord& r, int64_t global) {
  double lo = 1e300, hi = 0;
  for (const StepTimeline& tl : r.timelines) {
    const double rate = static_cast<double>(global) / (tl.processes.front().step_end / 1e3);
    lo = std::min(lo, rate);
    hi = std::max(hi, rate);
  }
  return {lo, hi};
}

}  // namespace

TEST(PredictStudy, OneGlobalBatchOnSeveralReplicaCountsIsStrongScalingAndElseWeak) {
  EXPECT_EQ(study_scaling({study_run(1, 32), study_run(2, 32), study_run(4, 32)}), Scaling::kStrong);
  EXPECT_EQ(study_scaling({study_run(1, 32), study_run(2, 64)}), Scaling::kWeak);  // the batch grew with the devices
  EXPECT_EQ(study_scaling({study_run(2, 32)}), Scaling::kWeak);                    // one run
  EXPECT_EQ(study_scaling({study_run(2, 32), study_run(2, 32)}), Scaling::kWeak);  // one replica count
}

TEST(PredictStudy, DeviceCountsAreTheDoublingsAndEveryCountMeasured) {
  const std::vector<int> counts = study_device_counts({study_run(3, 30), study_run(6, 30)});
  for (int n : {1, 2, 3, 4, 6, 8, 512}) EXPECT_TRUE(std::count(counts.begin(), counts.end(), n) == 1) << n;
  EXPECT_TRUE(std::is_sorted(counts.begin(), counts.end()));
}

// Compute comes from the run with the fewest replicas (one device as it ran alone), the link from
// every run's all-reduces: the hand-made link comes back.
TEST(PredictStudy, TheFitTakesComputeFromTheFewestReplicasAndTheLinkFromAll) {
  const FittedModel m = fit_study({study_run(4, 32, 0), study_run(1, 32, 0), study_run(2, 32, 0)});
  EXPECT_EQ(m.measured_replicas, 1);
  EXPECT_NEAR(m.compute_per_example_s, Truth{}.per_example_ms / 1e3, 1e-9);
  ASSERT_TRUE(m.measured_link_fitted);
  EXPECT_NEAR(m.measured_link.latency_s, kLink.latency_s, 1e-9);
  EXPECT_NEAR(m.measured_link.bandwidth_bytes_per_s / kLink.bandwidth_bytes_per_s, 1, 1e-6);
}

// Predicted at a device count the study measured, over the link it measured, the rate lies
// inside the spread of that run's own steps.
TEST(PredictStudy, ThePredictionAtAMeasuredCountLiesInsideItsMeasuredSpread) {
  const std::vector<RunRecord> study = {study_run(1, 32), study_run(2, 32), study_run(4, 32)};
  PredictOptions o;
  o.scaling = study_scaling(study);
  o.devices = {1, 2, 4};
  const Prediction p = predict(fit_study(study), o);
  ASSERT_EQ(p.points.size(), 3u);
  for (size_t i = 0; i < study.size(); ++i) {
    const auto [lo, hi] = measured_spread(study[i], 32);
    EXPECT_GE(p.points[i].samples_per_s, lo) << p.points[i].devices << " devices";
    EXPECT_LE(p.points[i].samples_per_s, hi) << p.points[i].devices << " devices";
  }
}

// A study on this machine's CPU (2 cores, 1 thread a replica): the 1-replica run names its device
// "cpu:0", the others "cpu:0/logical:k"; 2 replicas compute each example 1.3 times slower than 1
// (two threads on 2 cores, yet slower: hyper-threads, memory), 4 twice slower again (4 threads on
// 2 cores). Over the machine's own link the prediction shares the cores, lies inside every
// measured spread, and beyond the study scales its largest count by the cores' load. (It took the
// 1-replica run's "cpu:0" for a device of its own and predicted separate devices, and then the
// 1-replica compute for all: the lesson's what-if lay far above its measured boxes.)
TEST(PredictStudy, AStudyOnTheCpuIsPredictedAsItsCoresWereShared) {
  std::vector<RunRecord> study;
  for (int n : {1, 2, 4}) {
    RunRecord r = study_run(n, 32, 0.1, n == 1 ? 1.0 : n == 2 ? 1.3 : 2.6);
    nlohmann::json devices = nlohmann::json::array();
    for (int i = 0; i < n; ++i) devices.push_back(n == 1 ? std::string("cpu:0") : "cpu:0/logical:" + std::to_string(i));
    r.run["devices"] = devices;
    r.run["machine"] = {{"cores", 2}, {"intra_op_threads", 1}};
    study.push_back(r);
  }
  const FittedModel m = fit_study(study);
  EXPECT_TRUE(m.logical_cpu);
  PredictOptions o;
  o.scaling = study_scaling(study);
  o.devices = {1, 2, 4, 8};
  const Prediction p = predict(m, o);
  EXPECT_TRUE(p.shares_cores);
  ASSERT_EQ(p.points.size(), 4u);
  EXPECT_NEAR(p.points[3].compute_s / p.points[2].compute_s, 2.0 * 2 / 4, 1e-9);  // load 4 against 2, half the shard
  for (size_t i = 0; i < study.size(); ++i) {
    const auto [lo, hi] = measured_spread(study[i], 32);
    EXPECT_GE(p.points[i].samples_per_s, lo) << p.points[i].devices << " devices";
    EXPECT_LE(p.points[i].samples_per_s, hi) << p.points[i].devices << " devices";
  }
}

// One device exchanges nothing, so the link it would use cannot change its figure: not the
// measured one, not 10 GbE, not InfiniBand. (Over a named link the devices are machines of their
// own; measured on logical CPU devices sharing the cores, the one device had been taken as slowed
// by the sharing, and `predict --link 10gbe` changed the 1-device rate.)
TEST(PredictStudy, OneDeviceIsTheSameOverEveryLink) {
  RunRecord shared = study_run(4, 32, 0);
  shared.run["devices"] = {"cpu:0/logical:0", "cpu:0/logical:1", "cpu:0/logical:2", "cpu:0/logical:3"};
  shared.run["machine"] = {{"cores", 2}, {"intra_op_threads", 1}};  // 4 threads on 2 cores: load 2
  for (const RunRecord& run : {study_run(2, 32, 0), shared}) {
    const FittedModel m = fit_study({run});
    PredictOptions o;
    o.devices = {1, 2};
    const double own = predict(m, o).points[0].samples_per_s;
    for (const char* link : {"10gbe", "ib-ndr400", "latency=1ms,bandwidth=1Gbit"}) {
      o.link = parse_link(link);
      EXPECT_NEAR(predict(m, o).points[0].samples_per_s / own, 1, 1e-12) << run.name << " over " << link;
    }
  }
}
