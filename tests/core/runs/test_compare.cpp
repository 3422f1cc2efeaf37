// Comparing runs: the differing-settings table and the scaling study's numbers.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mirror/runs/compare.h"
#include "mirror/runs/run_reader.h"

using namespace mirror;

namespace {
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
  const std::string why = explain_scaling(rows);
  EXPECT_NE(why.find("0.62x"), std::string::npos) << why;
  EXPECT_NE(why.find("Synchronisation"), std::string::npos) << why;
  EXPECT_TRUE(explain_scaling({rows[0]}).empty());
  // Two physical devices: perfect scaling doubles.
  RunRecord gpus = scaling_run("gpus", 2, 0.005, 4, 1);
  gpus.run["devices"] = {"cuda:0", "cuda:1"};
  RunRecord gpu = scaling_run("gpu", 1, 0.010, 9, 0);
  gpu.run["devices"] = {"cuda:0"};
  const auto g = scaling_rows({gpu, gpus});
  EXPECT_DOUBLE_EQ(g[1].ideal_speedup, 2.0);
  EXPECT_NEAR(g[1].efficiency, 1.0, 1e-9);
}
