// The what-if: a model fitted to hand-made step timelines, and its prediction for more devices.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "mirror/runs/predict.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "mirror/train/events_json.h"
#include "mirror/strategy/step_timeline.h"
#include "mirror/util/error.h"
#include "predict_fixtures.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::error_of;

using namespace mirror::testing::predict_fixtures;

TEST(Predict, FitRecoversComputeUpdateTransferAndOverheadFromTimelines) {
  Truth t;
  std::vector<StepTimeline> tls = steps(t);
  // A slow first step does not move the medians.
  for (ReplicaMarks& m : tls[0].replicas) m.updated += 50;
  const FittedModel m = fit_model(tls, 4.0e6);
  EXPECT_NEAR(m.compute_per_example_s, 0.5e-3, 1e-9);
  EXPECT_NEAR(m.update_s, 0.3e-3, 1e-9);
  EXPECT_EQ(m.allreduce_points.size(), 1u);
  EXPECT_NEAR(m.allreduce_points[0].seconds, 1.5e-3, 1e-9);  // not the others' wait for replica 0
  // Overhead: the straggler's late start and copy, and the tail: 0.7 + 0.2 + 0.4 ms.
  EXPECT_NEAR(m.overhead_s, 1.3e-3, 1e-9);
  EXPECT_EQ(m.per_replica_batch, 8);
  EXPECT_EQ(m.global_batch, 32);
  EXPECT_EQ(m.measured_replicas, 4);
  EXPECT_EQ(m.steps_used, 5);
  // One replica count: α is 0 without a fallback, β explains the whole transfer.
  ASSERT_TRUE(m.measured_link_fitted);
  EXPECT_NEAR(ring_allreduce_seconds(m.measured_link, 4, 4.0e6), 1.5e-3, 1e-9);
  EXPECT_FALSE(m.notes.empty());
}

TEST(Predict, FitRecoversAlphaAndBetaFromSeveralReplicaCounts) {
  const LinkSpec truth = parse_link("latency=20us,bandwidth=2GB");
  std::vector<AllReducePoint> points;
  for (int n : {2, 3, 4, 8}) points.push_back({n, 4e6, ring_allreduce_seconds(truth, n, 4e6)});
  std::string note;
  auto fitted = fit_link(points, std::nullopt, &note);
  ASSERT_TRUE(fitted);
  EXPECT_NEAR(fitted->latency_s, 20e-6, 1e-9);
  EXPECT_NEAR(fitted->bandwidth_bytes_per_s, 2e9, 1e3);
  EXPECT_NE(note.find("4 measured points"), std::string::npos) << note;
  // Pooled over timelines of different replica counts, fit_model finds the same link.
  std::vector<StepTimeline> tls;
  for (int n : {2, 4, 8}) {
    Truth t;
    t.replicas = n;
    t.transfer_ms = ring_allreduce_seconds(truth, n, 4e6) * 1e3;
    for (const StepTimeline& s : steps(t, 3)) tls.push_back(s);
  }
  const FittedModel m = fit_model(tls, 4e6);
  EXPECT_NEAR(m.measured_link.latency_s, 20e-6, 1e-9);
  EXPECT_NEAR(m.measured_link.bandwidth_bytes_per_s, 2e9, 1e3);
}

TEST(Predict, OneReplicaMeasuresNoLinkSoPredictingNeedsOneNamed) {
  Truth t;
  t.replicas = 1;
  const FittedModel m = fit_model(steps(t), 4e6);
  EXPECT_FALSE(m.measured_link_fitted);
  PredictOptions o;
  EXPECT_NE(error_of<ConfigError>([&] { predict(m, o); }).find("name one with --link"), std::string::npos);
  o.link = parse_link("10gbe");
  const Prediction p = predict(m, o);
  ASSERT_EQ(p.points.size(), 10u);
  EXPECT_EQ(p.points.front().devices, 1);
  EXPECT_EQ(p.points.back().devices, 512);
  EXPECT_EQ(p.points.front().comm_s, 0);  // the ring at one device
  EXPECT_DOUBLE_EQ(p.points.front().speedup, 1);
  // A run's loopback preset means the measured link, which a one-replica run does not have.
  o.link = parse_link("loopback");
  EXPECT_THROW(predict(m, o), ConfigError);
}

TEST(Predict, WeakScalingKeepsThePerReplicaBatchAndSumsTheSteps) {
  const FittedModel m = fit_model(steps(Truth{}), 4e6);
  PredictOptions o;
  o.link = parse_link("latency=10us,bandwidth=1GB");
  o.devices = {1, 2, 64};
  const Prediction p = predict(m, o);
  const PredictedPoint& at64 = p.points[2];
  EXPECT_EQ(at64.per_replica_batch, 8);
  EXPECT_EQ(at64.global_batch, 512);
  EXPECT_NEAR(at64.compute_s, 4e-3, 1e-9);
  EXPECT_NEAR(at64.comm_s, ring_allreduce_seconds(*o.link, 64, 4e6), 1e-12);
  EXPECT_NEAR(at64.step_s, at64.overhead_s + at64.compute_s + at64.comm_s + at64.update_s, 1e-12);
  EXPECT_NEAR(at64.samples_per_s, 512 / at64.step_s, 1e-6);
  EXPECT_NEAR(at64.efficiency, at64.speedup / 64, 1e-12);
  EXPECT_GT(at64.speedup, 20);
  EXPECT_LT(at64.speedup, 64);
}

TEST(Predict, StrongScalingSpeedUpSaturatesAndTurnsCommunicationBound) {
  Truth t;
  t.shard = 64;  // global batch 256
  const FittedModel m = fit_model(steps(t), 4e6);
  PredictOptions o;
  o.link = parse_link("latency=10us,bandwidth=10GB");
  o.scaling = Scaling::kStrong;
  const Prediction p = predict(m, o);
  // The bound: overhead, update and communication do not shrink with more devices.
  const PredictedPoint& one = p.points.front();
  const double bound = one.step_s / (one.overhead_s + one.update_s);
  double previous = 0;
  for (const PredictedPoint& q : p.points) {
    EXPECT_EQ(q.global_batch, 256);
    EXPECT_LT(q.speedup, bound);
    if (q.devices >= 256) {
      EXPECT_LT(q.speedup, previous * 1.05) << q.devices;  // flat or falling
    }
    previous = q.speedup;
  }
  EXPECT_LT(p.points.back().efficiency, 0.1);
  ASSERT_GT(p.communication_bound_from, 1);
  for (const PredictedPoint& q : p.points)
    EXPECT_EQ(q.communication_bound(), q.devices >= p.communication_bound_from) << q.devices;
  EXPECT_NE(p.bound_sentence().find(fmt::format("Communication-bound from {} devices", p.communication_bound_from)),
            std::string::npos)
      << p.bound_sentence();
}

TEST(Predict, AFastLinkUnderWeakScalingStaysComputeBound) {
  const FittedModel m = fit_model(steps(Truth{}), 4e6);
  PredictOptions o;
  o.link = parse_link("nvlink4");
  const Prediction p = predict(m, o);
  EXPECT_EQ(p.communication_bound_from, 0);
  EXPECT_EQ(p.bound_sentence().rfind("Compute-bound up to 512 devices", 0), 0u) << p.bound_sentence();
}

TEST(Predict, DeviceCountsParseListsRangesAndDoublingsWithClearErrors) {
  EXPECT_EQ(parse_device_counts("1,2,4,8"), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(parse_device_counts("8,1, 2,2"), (std::vector<int>{1, 2, 8}));
  EXPECT_EQ(parse_device_counts("1-4"), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(parse_device_counts("1..512"), default_device_counts());
  EXPECT_EQ(default_device_counts().size(), 10u);
  EXPECT_NE(error_of<ConfigError>([] { parse_device_counts("1,two"); }).find("'two' is not a whole number"),
            std::string::npos);
  EXPECT_NE(error_of<ConfigError>([] { parse_device_counts("0,1"); }).find("outside 1 to"), std::string::npos);
  EXPECT_NE(error_of<ConfigError>([] { parse_device_counts("1,,2"); }).find("empty item"), std::string::npos);
  EXPECT_NE(error_of<ConfigError>([] { parse_device_counts("8-2"); }).find("backwards"), std::string::npos);
  EXPECT_NE(error_of<ConfigError>([] { parse_scaling("sideways"); }).find("weak"), std::string::npos);
}

TEST(Predict, NothingToFitIsADataError) {
  EXPECT_NE(error_of<DataError>([] { fit_model(std::vector<StepTimeline>{}, 4e6); }).find("no"), std::string::npos);
  EXPECT_THROW(fit_model(steps(Truth{}), 0), DataError);
}

TEST(Predict, ARunRecordGivesFourBytesOfGradientPerParameterAndSaysWhenItHasNoTimeline) {
  RunRecord run;
  run.name = "r";
  run.run = {{"parameters", 1000}};
  EXPECT_NE(error_of<DataError>([&] { fit_model(run); }).find("recorded no step timeline"), std::string::npos);
  run.timelines = steps(Truth{});
  EXPECT_DOUBLE_EQ(fit_model(run).gradient_bytes, 4000);
  run.run = nlohmann::json::object();
  EXPECT_NE(error_of<DataError>([&] { fit_model(run); }).find("no parameter count"), std::string::npos);
  // Pooled runs must train one model.
  RunRecord other = run;
  run.run = {{"parameters", 1000}};
  other.run = {{"parameters", 2000}};
  EXPECT_NE(error_of<DataError>([&] { fit_model(std::vector<RunRecord>{run, other}); }).find("different sizes"),
            std::string::npos);
}

// A probe gave `predict` a timeline.jsonl with rows of 1e308 and got a 300-digit step time and a
// "512x speed-up". A line that is JSON but no clock's reading is refused by the what-if, naming
// the line; a last line cut short by a kill is still only skipped.
TEST(Predict, ATimelineLineNoClockGivesIsRefusedNamingItsLine) {
  for (const double absurd : {1e308, -1e308, 7.01 * 24 * 3600 * 1e3}) {
    mirror::testing::TempDir dir;
    std::ofstream(dir / "run.json") << R"({"status": "finished", "parameters": 1000, "config": {"seed": 1}})";
    const std::vector<StepTimeline> good = steps(Truth{});
    std::ofstream out(dir / kTimelineFile);
    for (size_t i = 0; i < good.size(); ++i) {
      nlohmann::json line = to_json(good[i]);
      if (i == 2) line["replicas"][0][8] = absurd;  // the third line: replica 0's "updated"
      out << line.dump() << '\n';
    }
    out << R"({"step": 99, "replicas": [[0, 0, 8, 0.1)";  // cut by a kill
    out.close();
    const RunRecord run = read_run(dir.path().string());
    EXPECT_NE(run.timeline_problem.find("timeline.jsonl line 3: timeline: replicas[0] holds"), std::string::npos)
        << run.timeline_problem;
    EXPECT_NE(run.timeline_problem.find("more than a week from its step's start"), std::string::npos);
    EXPECT_EQ(run.timelines.size(), good.size() - 1);
    const std::string e = error_of<DataError>([&] { fit_model(run); });
    EXPECT_NE(e.find("timeline.jsonl line 3"), std::string::npos) << e;
    EXPECT_NE(error_of<DataError>([&] { fit_model(std::vector<RunRecord>{run}); }).find("line 3"), std::string::npos);
  }
  // Without the absurd line, the cut one alone is a warning and the run fits.
  mirror::testing::TempDir dir;
  std::ofstream(dir / "run.json") << R"({"status": "finished", "parameters": 1000, "config": {"seed": 1}})";
  {
    std::ofstream out(dir / kTimelineFile);
    for (const auto& t : steps(Truth{})) out << to_json(t).dump() << '\n';
    out << R"({"step": 99, "rep)";
  }
  const RunRecord run = read_run(dir.path().string());
  EXPECT_EQ(run.timeline_problem, "");
  EXPECT_NO_THROW(fit_model(run));
}

// One process reduces in its own memory: the link fitted to its all-reduces is "shared memory";
// several processes on this machine meet over its network: "loopback".
TEST(Predict, TheLinkOfOneProcessIsSharedMemoryAndOfSeveralLoopback) {
  const FittedModel one = fit_model(steps(Truth{}), 4e6);
  ASSERT_TRUE(one.measured_link_fitted);
  EXPECT_EQ(one.measured_link.name, "shared memory");
  EXPECT_EQ(one.measured_link.describe().rfind("shared memory: ", 0), 0u) << one.measured_link.describe();
  std::vector<StepTimeline> two = steps(Truth{});
  for (StepTimeline& t : two) t.processes.push_back(t.processes.front());
  EXPECT_EQ(fit_model(two, 4e6).measured_link.name, "loopback");
}

// Logical CPU devices share the machine's cores: predicting more of them on this machine slows
// each example's compute by how many times over the replicas ask for the cores; separate devices
// (another link named) or a prediction told not to share keep the measured compute.
TEST(Predict, LogicalCpuDevicesShareTheCores) {
  Truth t;
  t.replicas = 2;
  RunRecord run;
  run.name = "two logical";
  run.run = {{"parameters", 1000},
             {"devices", {"cpu:0/logical:0", "cpu:0/logical:1"}},
             {"machine", {{"cores", 4}, {"intra_op_threads", 2}}}};
  run.timelines = steps(t);
  const FittedModel m = fit_model(run);
  EXPECT_TRUE(m.logical_cpu);
  EXPECT_EQ(m.usable_cores, 4);
  EXPECT_EQ(m.intra_op_threads, 2);
  EXPECT_EQ(m.measured_replicas, 2);
  EXPECT_DOUBLE_EQ(core_load(2, 2, 4), 1);   // 4 threads on 4 cores
  EXPECT_DOUBLE_EQ(core_load(8, 2, 4), 4);   // 16 threads on 4 cores
  EXPECT_DOUBLE_EQ(core_load(8, 0, 4), 1);   // unknown
  PredictOptions o;  // this machine's own link
  o.devices = {1, 2, 4, 8};
  const Prediction here = predict(m, o);
  EXPECT_TRUE(here.shares_cores);
  const double measured = m.compute_per_example_s * static_cast<double>(m.per_replica_batch);
  const std::vector<double> share = {1, 1, 2, 4};  // 2, 4, 8 and 16 threads on 4 cores, against 4 measured
  for (size_t i = 0; i < here.points.size(); ++i) {
    EXPECT_DOUBLE_EQ(here.points[i].core_share, share[i]) << here.points[i].devices << " devices";
    EXPECT_NEAR(here.points[i].compute_s, measured * share[i], 1e-12) << here.points[i].devices << " devices";
  }
  // Sharing cores, 8 devices are slower per step than 8 separate ones would be.
  o.share_cores = false;
  const Prediction apart = predict(m, o);
  EXPECT_FALSE(apart.shares_cores);
  EXPECT_NEAR(apart.points.back().compute_s, measured, 1e-12);
  EXPECT_LT(here.points.back().samples_per_s, apart.points.back().samples_per_s);
  // Over a named link the devices are separate machines or GPUs: nothing shared.
  o.share_cores.reset();
  o.link = parse_link("10gbe");
  EXPECT_FALSE(predict(m, o).shares_cores);
  // GPU replicas, or a record without the machine: nothing shared either.
  run.run["devices"] = {"cuda:0", "cuda:1"};
  EXPECT_FALSE(fit_model(run).logical_cpu);
  o.link.reset();
  EXPECT_FALSE(predict(fit_model(run), o).shares_cores);
}

// A run whose processes exchanged fewer bytes than its gradients (the embedding's rows) or hid part
// of the exchange under backward (--overlap) says so, and the fit takes what crossed.
TEST(Predict, ARunThatExchangedRowsOrOverlappedBackwardSaysSo) {
  RunRecord run;
  run.name = "r";
  run.run = {{"parameters", 1000}};
  run.timelines = steps(Truth{});
  auto has = [](const FittedModel& m, const char* text) {
    for (const auto& n : m.notes)
      if (n.find(text) != std::string::npos) return true;
    return false;
  };
  EXPECT_FALSE(has(fit_model(run), "--sparse-exchange"));
  EXPECT_FALSE(has(fit_model(run), "--overlap"));
  for (int64_t bytes : {1500, 1400, 9000}) run.steps.push_back(StepMetrics{}), run.steps.back().exchange_bytes = bytes;
  EXPECT_TRUE(has(fit_model(run), "exchanged 2 kB a step, not the gradients' 4 kB")) << fit_model(run).notes.size();
  EXPECT_DOUBLE_EQ(fit_model(run).exchanged_bytes, 1500);
  for (auto& s : run.steps) s.exchange_bytes = 4000;  // the whole gradient crossed: nothing to say
  EXPECT_FALSE(has(fit_model(run), "--sparse-exchange"));
  EXPECT_EQ(fit_model(run).exchanged_bytes, 0);
  run.timelines.back().processes.front().overlap_begin = 1.0;  // one step in five: not the run's way
  run.timelines.back().processes.front().overlap_end = 2.0;
  EXPECT_FALSE(has(fit_model(run), "--overlap"));
  for (auto& t : run.timelines) t.processes.front().overlap_begin = 1.0, t.processes.front().overlap_end = 2.0;
  EXPECT_TRUE(has(fit_model(run), "--overlap"));
}

// Buckets during backward (--overlap): the link's time is the transfer after backward plus the
// part of the buckets' before it ended. On the run's own link the buckets take their measured span
// and the step waits as it did; on another link that link's time for their bytes, but never less
// than their span here (backward shares the cores with them), hidden for at most backward's time
// after the first bucket; the rest of the exchange follows them.
TEST(Predict, BucketsDuringBackwardTakeTheLinksTimeAndTheHostsAndHideAtMostBackward) {
  Truth truth;
  truth.replicas = 2;
  truth.late_ms = 0;
  std::vector<StepTimeline> timelines = steps(truth);
  const double begin_after_forward = 0.2, end_after_ready = 0.5;
  for (StepTimeline& t : timelines) {
    t.replicas[1].process = 1;
    const ProcessSpans first = t.processes.front();
    t.processes.clear();
    for (int p = 0; p < 2; ++p) {
      ProcessSpans s = first;
      s.process = p;
      s.overlap_begin = t.replicas[static_cast<size_t>(p)].forward_done + begin_after_forward;
      s.overlap_end = t.replicas[static_cast<size_t>(p)].gradients_ready + end_after_ready;
      t.processes.push_back(s);
    }
  }
  // The last replica to arrive (replica 1, process 1): backward ran 2/3 of its compute.
  const ReplicaMarks& last = timelines[0].replicas[1];
  const double window_ms = last.gradients_ready - (last.forward_done + begin_after_forward);
  const double span_ms = window_ms + end_after_ready;
  const double link_ms = truth.transfer_ms + window_ms;  // the buckets ran to the end of backward
  RunRecord run;
  run.name = "r";
  run.run = {{"parameters", 1e6}};  // 4 MB of gradients, 3 MB of them in the buckets
  run.timelines = timelines;
  for (size_t k = 0; k < timelines.size(); ++k) {
    run.steps.emplace_back();
    run.steps.back().exchange_bytes = 4'000'000;
    run.steps.back().overlap_bytes = 3'000'000;
  }
  const FittedModel m = fit_model(run);
  ASSERT_EQ(m.allreduce_points.size(), 1u);
  EXPECT_NEAR(m.allreduce_points[0].seconds, link_ms / 1e3, 1e-9);
  EXPECT_DOUBLE_EQ(m.overlap_bytes, 3e6);
  EXPECT_NEAR(m.overlap_seconds_per_byte * 3e6 * 1e3, span_ms, 1e-9);
  EXPECT_NEAR(m.overlap_window_per_example_s, window_ms / 1e3 / truth.shard, 1e-12);

  PredictOptions own;
  own.devices = {2};
  own.scaling = Scaling::kWeak;
  own.share_cores = false;
  const PredictedPoint at2 = predict(m, own).points.back();
  EXPECT_NEAR(at2.comm_s * 1e3, truth.transfer_ms, 1e-6);  // the wait measured
  EXPECT_NEAR(at2.hidden_s * 1e3, window_ms, 1e-6);
  // Another link ten times slower than this one: the buckets take its time for their 3 MB;
  // backward hides its time after the first bucket; the last 1 MB follows.
  PredictOptions slow = own;
  slow.link = m.measured_link;
  slow.link->from_run = false;
  slow.link->bandwidth_bytes_per_s /= 10;
  const PredictedPoint at2_slow = predict(m, slow).points.back();
  EXPECT_NEAR(at2_slow.hidden_s * 1e3, window_ms, 1e-6);
  EXPECT_NEAR(at2_slow.comm_s * 1e3, 10 * link_ms * 0.75 - window_ms + 10 * link_ms * 0.25, 1e-6);
  // At 4 replicas each sends 1.5 times its ring share at 2.
  slow.devices = {4};
  const PredictedPoint at4_slow = predict(m, slow).points.back();
  EXPECT_NEAR((at4_slow.comm_s + at4_slow.hidden_s) * 1e3, 1.5 * 10 * link_ms, 1e-6);
  // A link twice as fast as this one does not move the buckets faster than this host did.
  PredictOptions fast = own;
  fast.link = m.measured_link;
  fast.link->from_run = false;
  fast.link->bandwidth_bytes_per_s *= 2;
  ASSERT_LT(link_ms * 0.75 / 2, span_ms);
  const PredictedPoint at2_fast = predict(m, fast).points.back();
  EXPECT_NEAR(at2_fast.comm_s * 1e3, span_ms - window_ms + link_ms * 0.25 / 2, 1e-6);

  // A run that did not record the buckets' bytes: their share of the link's time stands for them.
  const FittedModel unknown = fit_model(timelines, 4e6);
  EXPECT_NEAR(unknown.overlap_bytes, 4e6 * span_ms / link_ms, 1e-3);
  EXPECT_NEAR(unknown.overlap_seconds_per_byte * unknown.overlap_bytes * 1e3, span_ms, 1e-9);
  EXPECT_NEAR(predict(unknown, own).points.back().comm_s * 1e3, truth.transfer_ms, 1e-6);
  // Without the overlap recorded, nothing is hidden.
  const FittedModel plain = fit_model(steps(truth), 4e6);
  EXPECT_EQ(plain.overlap_bytes, 0);
  EXPECT_EQ(predict(plain, own).points.back().hidden_s, 0);
}
