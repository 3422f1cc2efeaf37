// The classroom what-if: `train --link` delays every all-reduce by the modelled time of a link,
// and the run says so in run.json.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "mirror/runs/predict.h"
#include "mirror/runs/recorded_run.h"
#include "mirror/runs/run_plan.h"
#include "mirror/runs/run_reader.h"
#include "mirror/strategy/link_model.h"
#include "mirror/train/config.h"
#include "mirror/util/error.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::TempDir;
using nlohmann::json;

namespace {

class Steps : public EventSink {
 public:
  void on_started(const RunStarted& e) override { started = e; }
  void on_step(const StepMetrics& e) override { steps.push_back(e); }
  RunStarted started;
  std::vector<StepMetrics> steps;
};

// The least time any replica spent in an all-reduce over the steps, ms.
double least_allreduce_ms(const std::vector<StepMetrics>& steps) {
  double least = 1e300;
  for (const StepMetrics& s : steps)
    for (const ReplicaTiming& r : s.replicas) least = std::min(least, r.allreduce_ms);
  return least;
}

}  // namespace

TEST(SimulatedLink, TheConfigRecordsTheLinkAsSimulatedAndReadsItBack) {
  TrainConfig c = mirror::testing::points_run(1, 50, 2, 200, 50);
  c.strategy.link = parse_link("latency=5us,bandwidth=1Gbit");
  c.strategy.link->simulated = true;
  const nlohmann::json j = to_json(c);
  EXPECT_EQ(j["simulated_link"]["simulated"], true);
  EXPECT_EQ(j["simulated_link"]["spec"], "latency=5us,bandwidth=125MB");
  const TrainConfig back = config_from_json(j);
  ASSERT_TRUE(back.strategy.link);
  EXPECT_TRUE(back.strategy.link->simulated);
  EXPECT_DOUBLE_EQ(back.strategy.link->latency_s, 5e-6);
  EXPECT_DOUBLE_EQ(back.strategy.link->bandwidth_bytes_per_s, 125e6);
  // A preset by name, as a hand-written config may say it.
  nlohmann::json named = j;
  named["simulated_link"] = "10gbe";
  EXPECT_DOUBLE_EQ(config_from_json(named).strategy.link->bandwidth_bytes_per_s, 1.25e9);
  // Without one: null, and none read back (a run recorded before the what-if has no key at all).
  c.strategy.link.reset();
  EXPECT_TRUE(to_json(c)["simulated_link"].is_null());
  nlohmann::json older = to_json(c);
  older.erase("simulated_link");
  EXPECT_FALSE(config_from_json(older).strategy.link);
  // A file's figures outside the sane range are refused as --link's are (they simulated nothing).
  json far = to_json(c);
  far["simulated_link"] = {{"name", "custom"}, {"latency_s", 1e12}, {"bandwidth_bytes_per_s", 1e9}};
  EXPECT_NE(mirror::testing::error_of<ConfigError>([&] { config_from_json(far).validate(); }).find("outside 0 to 10 s"),
            std::string::npos);
  far["simulated_link"] = {{"name", "custom"}, {"latency_s", 0}, {"bandwidth_bytes_per_s", 1e-300}};
  EXPECT_NE(mirror::testing::error_of<ConfigError>([&] { config_from_json(far).validate(); }).find("outside 1kbit"),
            std::string::npos);
  // A bare latency: recorded without a bandwidth, read back unlimited.
  c.strategy.link = parse_link("latency=3ms");
  c.strategy.link->simulated = true;
  const json bare = to_json(c);
  EXPECT_FALSE(bare["simulated_link"].contains("bandwidth_bytes_per_s"));
  EXPECT_EQ(bare["simulated_link"]["spec"], "latency=3ms");
  ASSERT_TRUE(config_from_json(bare).strategy.link);
  EXPECT_TRUE(config_from_json(bare).strategy.link->unlimited_bandwidth());
  EXPECT_NO_THROW(config_from_json(bare).validate());
  // This machine's own link is not a what-if.
  c.strategy.link = parse_link("loopback");
  EXPECT_NE(mirror::testing::error_of<ConfigError>([&] { c.validate(); }).find("needs no simulating"),
            std::string::npos);
}

TEST(SimulatedLink, ASlowLinkDelaysEveryAllReduceByAtLeastItsModelledTimeAndRunJsonSaysSimulated) {
  TempDir tmp;
  RunPlan plan;
  plan.config = mirror::testing::points_run(1, 50, 2, 400, 100);
  plan.config.max_steps = 4;
  // Two replicas over a ring: 2(n-1) = 2 latencies and 2(n-1)/n = 1 buffer's transfer.
  plan.config.strategy.link = parse_link("latency=10ms,bandwidth=1GB");
  plan.config.strategy.link->simulated = true;
  plan.dir = tmp / "slow";
  RecordedRun run(plan);
  Steps steps;
  TrainControl control;
  const RunFinished fin = run.run(steps, control);
  ASSERT_EQ(fin.status, RunStatus::kFinished) << fin.message;
  ASSERT_EQ(steps.steps.size(), 4u);

  const RunRecord r = read_run(run.dir());
  const double gradient_bytes = 4.0 * r.run.at("parameters").get<double>();
  const double modelled_ms = 1e3 * ring_allreduce_seconds(*plan.config.strategy.link, 2, gradient_bytes);
  EXPECT_GT(modelled_ms, 20.0);
  // Every replica waits at least the modelled time in every all-reduce (a sleep never ends early;
  // no upper bound: a busy machine may add any amount).
  EXPECT_GE(least_allreduce_ms(steps.steps), 0.99 * modelled_ms);
  // Recorded as simulated, and said where the all-reduce is described.
  EXPECT_EQ(r.run["config"]["simulated_link"]["simulated"], true);
  EXPECT_EQ(r.run["config"]["simulated_link"]["spec"], "latency=10ms,bandwidth=1GB");
  EXPECT_NE(steps.started.communicator_reason.find("simulated link"), std::string::npos)
      << steps.started.communicator_reason;
  // Every step's timeline says so too, with the modelled time, live and in timeline.jsonl.
  ASSERT_EQ(r.timelines.size(), 4u);
  for (const auto& t : r.timelines) {
    EXPECT_TRUE(t.simulated_link) << "step " << t.global_step;
    EXPECT_NEAR(t.simulated_allreduce_ms, modelled_ms, 1e-3);
  }
  for (const auto& s : steps.steps) EXPECT_TRUE(s.timeline.simulated_link) << "step " << s.global_step;
}

// `--link latency=10ms`: unlimited bandwidth, so each all-reduce of 2 replicas waits its 2
// latencies and no more is modelled; the run records and describes it so.
TEST(SimulatedLink, ABareLatencyDelaysByTheLatencyAlone) {
  TempDir tmp;
  RunPlan plan;
  plan.config = mirror::testing::points_run(1, 50, 2, 400, 100);
  plan.config.max_steps = 3;
  plan.config.strategy.link = parse_link("latency=10ms");
  plan.config.strategy.link->simulated = true;
  plan.dir = tmp / "bare";
  RecordedRun run(plan);
  Steps steps;
  TrainControl control;
  const RunFinished fin = run.run(steps, control);
  ASSERT_EQ(fin.status, RunStatus::kFinished) << fin.message;
  EXPECT_GE(least_allreduce_ms(steps.steps), 0.99 * 20.0);
  const RunRecord r = read_run(run.dir());
  EXPECT_EQ(r.run["config"]["simulated_link"]["spec"], "latency=10ms");
  ASSERT_EQ(r.timelines.size(), 3u);
  for (const auto& t : r.timelines) EXPECT_NEAR(t.simulated_allreduce_ms, 20.0, 1e-9);
}
