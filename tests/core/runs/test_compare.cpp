// Comparing runs: the differing-settings table and the scaling study's numbers.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mirror/runs/compare.h"
#include "mirror/runs/run_reader.h"
#include "mirror/strategy/link_model.h"

using namespace mirror;

namespace {
// A run's record of the machine it measured on, as RunWriter writes it.
void record_machine(RunRecord& r, int threads, double load_at_start, double load_at_end, double others,
                    const std::string& started_at) {
  r.run["machine"] = {{"cores", 2}, {"intra_op_threads", threads}, {"load_average_at_start", load_at_start},
                      {"load_average_at_end", load_at_end}, {"other_programs_cores", others}};
  r.run["started_at"] = started_at;
}

RunRecord scaling_run(const std::string& name, int replicas, double step_seconds, double compute_ms,
                      double allreduce_ms) {
  RunRecord r;
  r.name = name;
  r.run = {{"devices", nlohmann::json::array()}};
  for (int i = 0; i < replicas; ++i) r.run["devices"].push_back("cpu:0/logical:" + std::to_string(i));
  for (int s = 1; s <= 10; ++s) {
    StepMetrics p;
    p.global_step = s;
    p.samples = 64;
    // The first steps are slow (warm-up) and must not count.
    p.step_seconds = s <= 5 ? 10 * step_seconds : step_seconds;
    p.compute_ms = compute_ms;
    p.allreduce_ms = allreduce_ms;
    r.steps.push_back(p);
  }
  return r;
}
}  // namespace

TEST(Compare, TableHasTheDifferingSettingsAndResults) {
  RunRecord a, b;
  a.name = "a";
  b.name = "b";
  b.meta.name = "bigger lr";
  a.status = b.status = "finished";
  a.run = nlohmann::json::parse(R"({"config": {"preset": "p", "batch_size": 32, "optimizer": {"learning_rate": 0.01}}})");
  b.run = nlohmann::json::parse(R"({"config": {"preset": "p", "batch_size": 32, "optimizer": {"learning_rate": 0.1}}})");
  EpochMetrics e;
  e.loss = 0.5;
  e.has_validation = true;
  e.val_loss = 0.625;
  a.epochs = {e};
  a.best_val_accuracy = 0.8125;
  a.duration_seconds = 12.34;
  const ComparisonTable t = comparison_table({a, b});
  EXPECT_EQ(t.differing, std::vector<std::string>{"optimizer.learning_rate"});
  EXPECT_EQ(t.header, (std::vector<std::string>{"run", "optimizer.learning_rate", "status", "final_loss", "final_val_loss",
                                                "best_val_accuracy", "seconds"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"a", "0.01", "finished", "0.5000", "0.6250", "0.8125", "12.3"}));
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"bigger lr", "0.1", "finished", "-", "-", "-", "0.0"}));
  EXPECT_EQ(run_model_label(a), "p");
}

TEST(Compare, ASimulatedLinkIsOneReadableColumn) {
  RunRecord a, b, c;
  a.name = "a";
  b.name = "b";
  c.name = "c";
  a.status = b.status = c.status = "finished";
  // As config.cpp records --link: the spec, the preset's name and figures, "simulated".
  a.run = nlohmann::json::parse(R"({"config": {"batch_size": 32, "simulated_link": {"spec": "latency=50us,bandwidth=200Mbit",
      "name": "custom", "latency_s": 5e-05, "bandwidth_bytes_per_s": 25000000.0, "simulated": true}}})");
  b.run = nlohmann::json::parse(R"({"config": {"batch_size": 32, "simulated_link": {"spec": "10gbe", "name": "10gbe",
      "latency_s": 5e-06, "bandwidth_bytes_per_s": 1.25e9, "simulated": true}}})");
  c.run = nlohmann::json::parse(R"({"config": {"batch_size": 32, "simulated_link": null}})");
  const ComparisonTable t = comparison_table({a, b, c});
  EXPECT_EQ(t.differing, std::vector<std::string>{"simulated_link"});  // not six columns of its figures
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0][1], parse_link("latency=50us,bandwidth=200Mbit").describe());
  EXPECT_EQ(t.rows[0][1], "custom: 50us latency, 25MB/s") << t.rows[0][1];
  EXPECT_EQ(t.rows[1][1].rfind("10gbe: ", 0), 0u) << t.rows[1][1];
  EXPECT_EQ(t.rows[2][1], "none");
}

TEST(Compare, ScalingRowsMeasureTheSteadyStateAgainstTheFewestReplicas) {
  // 1 replica: 64 samples per 10 ms; 2 logical: per 8 ms; 4 logical: per 16 ms, mostly all-reduce.
  const auto rows = scaling_rows({scaling_run("four", 4, 0.016, 4, 10), scaling_run("one", 1, 0.010, 9, 0),
                                  scaling_run("two", 2, 0.008, 7, 0.5)});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].run, "one");
  EXPECT_EQ(rows[2].replicas, 4);
  EXPECT_EQ(rows[0].steps, 5);
  EXPECT_NEAR(rows[0].samples_per_sec, 6400, 1e-6);
  EXPECT_NEAR(rows[1].speedup, 1.25, 1e-9);
  EXPECT_NEAR(rows[2].speedup, 0.625, 1e-9);
  EXPECT_EQ(rows[2].physical_devices, 1);
  EXPECT_DOUBLE_EQ(rows[2].ideal_speedup, 1.0);  // logical devices of one CPU
  EXPECT_NEAR(rows[2].efficiency, 0.625, 1e-9);
  EXPECT_NEAR(rows[2].step_ms, 16, 1e-9);
  EXPECT_NEAR(rows[2].other_ms, 2, 1e-9);
  const ScalingStudy study = scaling_study({scaling_run("four", 4, 0.016, 4, 10), scaling_run("one", 1, 0.010, 9, 0),
                                           scaling_run("two", 2, 0.008, 7, 0.5)});
  ASSERT_EQ(study.points.size(), 3u);
  EXPECT_TRUE(study.measured_once);
  const std::string why = study.reading;
  EXPECT_EQ(why.rfind("Each device count was measured once", 0), 0u) << why;
  EXPECT_NE(why.find("0.62x"), std::string::npos) << why;
  EXPECT_NE(why.find("Synchronisation"), std::string::npos) << why;
  EXPECT_TRUE(explain_scaling({study.points[0]}).empty());
  EXPECT_EQ(study.load, "The runs recorded no load average (they were recorded by an older version).");
  // Two physical devices: perfect scaling doubles.
  RunRecord gpus = scaling_run("gpus", 2, 0.005, 4, 1);
  gpus.run["devices"] = {"cuda:0", "cuda:1"};
  RunRecord gpu = scaling_run("gpu", 1, 0.010, 9, 0);
  gpu.run["devices"] = {"cuda:0"};
  const auto g = scaling_rows({gpu, gpus});
  EXPECT_DOUBLE_EQ(g[1].ideal_speedup, 2.0);
  EXPECT_NEAR(g[1].efficiency, 1.0, 1e-9);
}

namespace {
// Three tries each of 1 and 2 replicas on a 2-core machine, interleaved in time; `slow` scales the
// step time of each try of 2 replicas.
std::vector<RunRecord> tried_study(const std::vector<double>& slow, double others = 0.01, double first_load = 0.3) {
  std::vector<RunRecord> runs;
  for (int t = 0; t < 3; ++t) {
    RunRecord one = scaling_run("one", 1, 0.010, 9, 0);
    record_machine(one, 2, t == 0 ? first_load : 2.1, 2.2, others, "2026-12-01T10:0" + std::to_string(2 * t) + ":00Z");
    RunRecord two = scaling_run("two", 2, 0.008 * slow[static_cast<size_t>(t)], 7, 0.5);
    record_machine(two, 1, 2.2, 2.4, others, "2026-12-01T10:0" + std::to_string(2 * t + 1) + ":00Z");
    runs.push_back(two);  // out of time order: the first run is found by its start time
    runs.push_back(one);
  }
  return runs;
}
}  // namespace

TEST(Compare, ScalingStudyTakesMediansOfTriesAndSaysTheSpreadAndLoad) {
  // Tries of 2 replicas at 8, 8.4 and 7.6 ms a step against 1 replica at 10 ms.
  const ScalingStudy s = scaling_study(tried_study({1.0, 1.05, 0.95}));
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(s.runs.size(), 6u);
  const ScalingPoint& two = s.points[1];
  EXPECT_EQ(two.tries, 3);
  EXPECT_NEAR(two.samples_per_sec, 8000, 1e-6);                  // the median: 64 samples per 8 ms
  EXPECT_NEAR(two.samples_per_sec_low, 64 / 0.0084, 1e-6);
  EXPECT_NEAR(two.samples_per_sec_high, 64 / 0.0076, 1e-6);
  EXPECT_NEAR(two.speedup, 1.25, 1e-9);
  EXPECT_NEAR(two.speedup_low, 64 / 0.0084 / 6400, 1e-9);
  EXPECT_NEAR(two.spread, (64 / 0.0076 - 64 / 0.0084) / 8000, 1e-9);
  EXPECT_FALSE(s.measured_once);
  EXPECT_FALSE(s.noisy);
  EXPECT_FALSE(s.busy);
  EXPECT_EQ(s.cores, 2);
  EXPECT_DOUBLE_EQ(s.first_load, 0.3);   // the earliest run's start, whatever the order given
  EXPECT_DOUBLE_EQ(s.highest_load, 2.4);
  EXPECT_EQ(s.baseline,
            "Baseline: 1 replica with 2 threads on 2 cores, median of 3 tries. Against it: 2 replicas with 1 thread "
            "each (2 in all).");
  EXPECT_EQ(s.load,
            "Load average (1 minute): 0.30 when the first run started, at most 2.40 during the study, on 2 cores. "
            "Other programs used at most 0.01 cores during a run.");
  EXPECT_EQ(s.reading.rfind("Medians of the tries, which agreed within 10%. From 1 replica to 2 replicas", 0), 0u)
      << s.reading;
}

TEST(Compare, ScalingStudyDoesNotExplainNoisyOrBusyMeasurements) {
  // The tries of 2 replicas disagree by far more than 20%.
  const ScalingStudy noisy = scaling_study(tried_study({1.0, 1.6, 0.7}));
  EXPECT_TRUE(noisy.noisy);
  EXPECT_FALSE(noisy.busy);
  EXPECT_EQ(noisy.reading.rfind("The tries disagree: with 2 replicas they ranged from 5000 to 11429 samples/s", 0), 0u)
      << noisy.reading;
  EXPECT_EQ(noisy.reading.find("From 1 replica"), std::string::npos) << noisy.reading;
  // What can still be said: the ranges of 1 replica (6400 every try) and 2 overlap.
  EXPECT_NE(noisy.reading.find("What the tries do show: 2 replicas cannot be told apart from 1 replica (the tries "
                               "overlap: 5000-11429 against 6400-6400 samples/s)."),
            std::string::npos)
      << noisy.reading;
  // Tries that disagree among themselves but all beat the baseline still show that much.
  const ScalingStudy faster = scaling_study(tried_study({0.5, 0.8, 0.4}));
  EXPECT_TRUE(faster.noisy);
  EXPECT_NE(faster.reading.find("2 replicas were faster than 1 replica in every try"), std::string::npos) << faster.reading;
  // Another program took most of a core during a baseline run.
  const ScalingStudy shared = scaling_study(tried_study({1.0, 1.0, 1.0}, /*others=*/0.8));
  EXPECT_TRUE(shared.busy);
  EXPECT_EQ(shared.reading.rfind("The machine was busy: other programs used up to 0.80 of its 2 cores", 0), 0u)
      << shared.reading;
  EXPECT_EQ(shared.reading.find("From 1 replica"), std::string::npos);
  // A load average above the cores before the first run may be the run that just ended (the
  // window's own): it counts only where other programs' CPU was not measured.
  EXPECT_FALSE(scaling_study(tried_study({1.0, 1.0, 1.0}, 0.01, /*first_load=*/3.5)).busy);
  const ScalingStudy loaded = scaling_study(tried_study({1.0, 1.0, 1.0}, /*others=*/-1, /*first_load=*/3.5));
  EXPECT_TRUE(loaded.busy);
  EXPECT_NE(loaded.reading.find("load average was 3.50 on 2 cores before the first run"), std::string::npos)
      << loaded.reading;
}

TEST(Compare, RunsOfDifferentSettingsAreNotOneScalingStudy) {
  std::vector<RunRecord> runs = tried_study({1.0, 1.0, 1.0});
  for (size_t i = 0; i < runs.size(); ++i)
    runs[i].run["config"] = {{"optimizer", {{"learning_rate", i % 2 == 0 ? 0.1 : 0.01}}},
                             {"devices", {{"logical", runs[i].run["devices"].size()}}}};
  const ScalingStudy s = scaling_study(runs);
  EXPECT_TRUE(s.mixed);
  EXPECT_TRUE(s.points.empty());
  EXPECT_EQ(s.reading.rfind("These runs differ in more than their devices (optimizer.learning_rate)", 0), 0u) << s.reading;
  const auto groups = scaling_groups(runs);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].size(), 3u);
  EXPECT_FALSE(scaling_study(groups[0]).mixed);
}
