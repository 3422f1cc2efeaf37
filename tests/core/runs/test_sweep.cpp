// Sweeps: grids expanded up front, and the Sweep that plans their runs for the CLI and the window.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "mirror/runs/run_reader.h"
#include "mirror/data/registry.h"
#include "mirror/runs/recorded_run.h"
#include "mirror/runs/sweep.h"
#include "mirror/util/error.h"
#include "mirror/util/version.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::error_of;
using mirror::testing::TempDir;

namespace {
TrainConfig tiny_config() {
  return mirror::testing::points_run(/*epochs=*/1, /*batch=*/40, /*logical=*/1, /*train_size=*/120, /*val_size=*/40);
}
}  // namespace

TEST(Sweep, PlansEachPointAsATaggedRunAndRunsThemThroughRecordedRun) {
  TempDir tmp;
  const auto points = expand_sweep(tiny_config(), {parse_sweep_axis("lr=0.01,0.1", tiny_config()), scaling_axis({1, 2})});
  ASSERT_EQ(points.size(), 4u);
  Sweep sweep(points, SweepOptions{tmp.str(), /*scaling=*/true, {}, {}});
  EXPECT_EQ(sweep.id().rfind("sw-", 0), 0u);
  std::vector<std::string> dirs;
  while (auto plan = sweep.next()) {
    EXPECT_NE(plan->dir.find("-sweep-" + std::to_string(sweep.position())), std::string::npos) << plan->dir;
    EXPECT_EQ(plan->meta.name, sweep.label(sweep.position()));
    EXPECT_EQ(plan->meta.tags, std::vector<std::string>{sweep.id()});
    EXPECT_EQ(plan->extra["sweep"]["index"], sweep.position());
    EXPECT_EQ(plan->extra["sweep"]["of"], 4);
    EXPECT_EQ(plan->extra["sweep"]["scaling"], true);
    RecordedRun run(*plan, sweep.dataset_for(plan->config));
    EventSink quiet;
    TrainControl control;
    EXPECT_EQ(run.run(quiet, control).status, RunStatus::kFinished);
    dirs.push_back(run.dir());
  }
  EXPECT_EQ(sweep.dirs(), dirs);
  EXPECT_FALSE(sweep.next());
  const RunRecord last = read_run(dirs.back());
  EXPECT_EQ(last.meta.name, "lr=0.1 logical=2");
  EXPECT_EQ(last.run["config"]["devices"]["logical"], 2);
  EXPECT_DOUBLE_EQ(last.run["config"]["optimizer"]["learning_rate"].get<double>(), 0.1);
  EXPECT_EQ(last.run["versions"]["mirror_workbench"], kVersion);  // project(VERSION), the one place it is set
  // How busy the machine was, for the scaling study to judge its numbers by.
  ASSERT_TRUE(last.run.contains("machine"));
  const nlohmann::json& machine = last.run.at("machine");
  EXPECT_GE(machine.value("cores", 0), 1);
  EXPECT_GE(machine.value("intra_op_threads", 0), 1);
  EXPECT_GE(machine.value("load_average_at_start", -1.0), 0.0);
  EXPECT_GE(machine.value("load_average_at_end", -1.0), 0.0);
  // Measured only over a second or more (this run is usually shorter): /proc/stat counts in 10 ms ticks.
  if (machine.contains("other_programs_cores")) {
    EXPECT_GE(machine.at("other_programs_cores").get<double>(), 0.0);
  }
}

TEST(Sweep, LoadsEachDatasetOnceAndTakesOneAlreadyLoaded) {
  Sweep sweep({}, SweepOptions{"/nonexistent", false, "sw-given", {}});
  EXPECT_EQ(sweep.id(), "sw-given");
  TrainConfig a = tiny_config();
  TrainConfig b = a;
  b.optimizer.learning_rate = 0.5;  // not a dataset option: the same dataset
  TrainConfig other = a;
  other.dataset.train_size = 80;
  const auto da = sweep.dataset_for(a);
  EXPECT_EQ(sweep.dataset_for(b).get(), da.get());
  EXPECT_NE(sweep.dataset_for(other).get(), da.get());
  auto given = load_dataset(a.dataset);
  TrainConfig c = a;
  c.dataset.seed = 9;
  sweep.provide_dataset(c, given);
  EXPECT_EQ(sweep.dataset_for(c).get(), given.get());
}

TEST(Sweep, AxesParseWithShortNamesAndCheckTheirValues) {
  const SweepAxis lr = parse_sweep_axis("lr=0.01, 0.1,1e-3");
  EXPECT_EQ(lr.key, "optimizer.learning_rate");
  ASSERT_EQ(lr.values.size(), 3u);
  EXPECT_DOUBLE_EQ(lr.values[2].get<double>(), 1e-3);
  EXPECT_EQ(parse_sweep_axis("optimizer=adam,sgd").values[1], "sgd");
  EXPECT_EQ(parse_sweep_axis("devices.logical=1,2").name, "devices.logical");
  // Values separated by spaces, as a person types them, or by commas and spaces.
  EXPECT_EQ(parse_sweep_axis("lr=0.01 0.1").values.size(), 2u);
  EXPECT_EQ(parse_sweep_axis("batch= 16,  32 ,64").values, (std::vector<nlohmann::json>{16, 32, 64}));
  EXPECT_NE(error_of<ConfigError>([] { parse_sweep_axis("lr"); }).find("for example lr=0.01,0.1"), std::string::npos);
  EXPECT_NE(error_of<ConfigError>([] { parse_sweep_axis("learning_rate=0.1"); }).find("unknown setting"), std::string::npos);
  EXPECT_NE(error_of<ConfigError>([] { parse_sweep_axis("model=1"); }).find("unknown setting"), std::string::npos);
  EXPECT_NE(error_of<ConfigError>([] { parse_sweep_axis("batch=32.5"); }).find("whole number"), std::string::npos);
  // Errors name the setting as a person calls it, not as the config spells it.
  EXPECT_EQ(error_of<ConfigError>([] { parse_sweep_axis("lr=fast"); }), "Learning rate: 'fast' is not a number");
  EXPECT_EQ(error_of<ConfigError>([] { parse_sweep_axis("logical=1 two"); }), "Logical devices: 'two' is not a whole number");
  EXPECT_NE(error_of<ConfigError>([] { parse_sweep_axis("lr=,"); }).find("no values"), std::string::npos);
  // Keys are those of the base config: Adam's betas exist only for Adam-family optimizers.
  TrainConfig adam;
  adam.optimizer.name = "adam";
  TrainConfig sgd;
  sgd.optimizer.name = "sgd";
  EXPECT_EQ(parse_sweep_axis("optimizer.beta1=0.8,0.9", adam).values.size(), 2u);
  EXPECT_NE(error_of<ConfigError>([&] { parse_sweep_axis("optimizer.beta1=0.8", sgd); }).find("unknown setting"),
            std::string::npos);
}

TEST(Sweep, GridExpandsFirstAxisSlowestAndRejectsAnImpossibleCombinationUpFront) {
  TrainConfig base = config_from_preset("spirals-mlp");
  const auto points = expand_sweep(base, {parse_sweep_axis("lr=0.01,0.1"), parse_sweep_axis("batch=16,32,64")});
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0].label, "lr=0.01 batch=16");
  EXPECT_EQ(points[5].label, "lr=0.1 batch=64");
  EXPECT_DOUBLE_EQ(points[4].config.optimizer.learning_rate, 0.1);
  EXPECT_EQ(points[4].config.batch_size, 32);
  // Everything else is the base config's.
  EXPECT_EQ(points[4].config.model.layers.size(), base.model.layers.size());
  EXPECT_EQ(points[4].config.dataset.name, base.dataset.name);
  EXPECT_EQ(points[4].config.seed, base.seed);
  const auto scaling = expand_sweep(base, {scaling_axis({1, 2, 4})});
  ASSERT_EQ(scaling.size(), 3u);
  EXPECT_EQ(scaling[2].config.devices.logical, 4);
  EXPECT_EQ(scaling[2].label, "logical=4");
  const std::string err = error_of<ConfigError>([&] { expand_sweep(base, {parse_sweep_axis("lr=0.1,-1")}); });
  EXPECT_NE(err.find("run 2 of 2 (lr=-1) cannot train"), std::string::npos) << err;
  EXPECT_NE(error_of<ConfigError>([&] { expand_sweep(base, {}); }), "");
}

TEST(Sweep, TriesRepeatTheWholeGridInterleaved) {
  TrainConfig base = config_from_preset("spirals-mlp");
  const auto points = expand_sweep(base, {scaling_axis({1, 2, 4})}, 3);
  ASSERT_EQ(points.size(), 9u);
  std::vector<int> order;
  for (const auto& p : points) order.push_back(p.config.devices.logical);
  // 1, 2, 4, 1, 2, 4, ...: a machine that grows busy halfway slows every point, not only the last.
  EXPECT_EQ(order, (std::vector<int>{1, 2, 4, 1, 2, 4, 1, 2, 4}));
  EXPECT_EQ(points[0].label, "logical=1 try 1/3");
  EXPECT_EQ(points[8].label, "logical=4 try 3/3");
  EXPECT_EQ(expand_sweep(base, {scaling_axis({1, 2})}, 1)[1].label, "logical=2");
  EXPECT_NE(error_of<ConfigError>([&] { expand_sweep(base, {scaling_axis({1})}, 0); }).find("1 to 100"), std::string::npos);
}

TEST(Sweep, WithSettingsChangesSettingsByTheirSweepNamesAndChecksThem) {
  const TrainConfig base = tiny_config();  // adam
  // The optimizer is switched first, so SGD's momentum exists to be set, whatever the order.
  const TrainConfig sgd = with_settings(base, {{"momentum", 0.9}, {"optimizer", "sgd"}, {"lr", 0.2}, {"logical", 2}});
  EXPECT_EQ(sgd.optimizer.name, "sgd");
  EXPECT_DOUBLE_EQ(sgd.optimizer.momentum, 0.9);
  EXPECT_DOUBLE_EQ(sgd.optimizer.learning_rate, 0.2);
  EXPECT_EQ(sgd.devices.logical, 2);
  EXPECT_EQ(with_settings(base, {{"dataset.name", "spirals"}}).dataset.name, "spirals");
  EXPECT_EQ(with_settings(base, {{"perturb_replica_at_step", 5}}).strategy.perturb_replica_at_step, 5);
  EXPECT_NE(error_of<ConfigError>([&] { with_settings(base, {{"momentum", 0.9}}); }).find("'momentum' is not a setting"),
            std::string::npos);  // Adam has no momentum
  EXPECT_NE(error_of<ConfigError>([&] { with_settings(base, {{"epochs", 1.5}}); }).find("Epochs: '1.5' is not a whole number"),
            std::string::npos);
  EXPECT_NE(error_of<ConfigError>([&] { with_settings(base, {{"optimizer", 3}}); }).find("Optimizer: '3' is not a word"),
            std::string::npos);
  EXPECT_NE(error_of<ConfigError>([&] { with_settings(base, {{"lr", -1.0}}); }).find("invalid learning rate"),
            std::string::npos);
  EXPECT_NE(error_of<ConfigError>([&] { with_settings(base, nlohmann::json::array()); }).find("must be an object"),
            std::string::npos);
  // A name holding a JSON pointer's own characters is an unknown setting, not a parser's error
  // escaping (fuzz_config and fuzz_lesson found nlohmann's pointer parser throwing its own exception for
  // '~' not followed by 0 or 1; a '/' reached another setting).
  for (const char* name : {"optimizer.~", "dataset.na~me", "dataset/name", "~1", "batch_size~0"}) {
    EXPECT_NE(error_of<ConfigError>([&] { with_settings(base, {{name, 1}}); }).find("unknown setting"), std::string::npos)
        << name;
    EXPECT_NE(error_of<ConfigError>([&] { parse_sweep_axis(std::string(name) + "=1"); }).find("unknown setting"),
              std::string::npos)
        << name;
  }
}

// The scaling study as the window planned it (the current config on 1, 2 and 4 logical devices,
// one epoch each, three tries interleaved) and as `sweep --scaling` did, now one planner.
TEST(ScalingStudy, TheDefaultStudyIsOneEpochOnOneTwoAndFourDevicesThreeTriesInterleaved) {
  TrainConfig base = tiny_config();
  base.epochs = 5;
  const auto points = scaling_study_points(base);
  ASSERT_EQ(points.size(), 9u);
  const int expected_logical[] = {1, 2, 4, 1, 2, 4, 1, 2, 4};
  for (size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].config.devices.logical, expected_logical[i]) << i;
    EXPECT_EQ(points[i].config.epochs, 1) << i;
  }
  EXPECT_EQ(points[0].label, "logical=1 try 1/3");
  EXPECT_EQ(points[8].label, "logical=4 try 3/3");
  EXPECT_EQ(ScalingStudyOptions{}.tries, kScalingTries);
}

TEST(ScalingStudy, ChosenEpochsOrAStepLimitKeepTheRunsLengthAndOtherAxesVarySlower) {
  TrainConfig base = tiny_config();
  base.epochs = 3;
  ScalingStudyOptions chosen;
  chosen.epochs_chosen = true;
  chosen.tries = 1;
  chosen.logical_devices = {1, 2};
  chosen.other_axes = {parse_sweep_axis("lr=0.01,0.1", base)};
  const auto points = scaling_study_points(base, chosen);
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].label, "lr=0.01 logical=1");
  EXPECT_EQ(points[1].label, "lr=0.01 logical=2");
  EXPECT_EQ(points[2].label, "lr=0.1 logical=1");
  for (const auto& p : points) EXPECT_EQ(p.config.epochs, 3);

  base.max_steps = 7;  // the step limit says how long: the epochs stay as they are
  ScalingStudyOptions limited;
  limited.tries = 0;   // as the CLI passes --tries when not given: the study's default
  const auto capped = scaling_study_points(base, limited);
  ASSERT_EQ(capped.size(), 9u);
  EXPECT_EQ(capped[0].config.epochs, 3);
  EXPECT_EQ(capped[0].config.max_steps, 7);
}
