// RunRecord's typed reads of run.json: the fields the window and the CLI show, read in one
// place, with a default for a field that is missing or damaged.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <limits>

#include "mirror/runs/run_reader.h"

using namespace mirror;

namespace {
StepMetrics step_of(int epoch) {
  StepMetrics s;
  s.epoch = epoch;
  return s;
}
}  // namespace

TEST(RunRecord, ReadsTheFieldsTheViewsShowFromRunJson) {
  RunRecord r;
  r.run = nlohmann::json::parse(R"({
    "status": "failed", "message": "replicas out of sync after step 30", "started_at": "2026-11-30T13:45:01Z",
    "steps_per_epoch": 12, "config": {"epochs": 4}, "sweep": {"id": "sw-1", "scaling": true},
    "workers": {"world_size": 3}, "class_names": ["T-shirt/top", "Trouser"]})");
  EXPECT_EQ(r.message(), "replicas out of sync after step 30");
  EXPECT_EQ(r.started_at(), "2026-11-30T13:45:01Z");
  EXPECT_EQ(r.steps_per_epoch(), 12);
  EXPECT_EQ(r.planned_epochs(), 4);
  EXPECT_TRUE(r.in_scaling_study());
  EXPECT_EQ(r.processes(), 3);
  EXPECT_EQ(recorded_processes(r.run), 3);
  EXPECT_EQ(r.class_names(), (std::vector<std::string>{"T-shirt/top", "Trouser"}));
}

TEST(RunRecord, MissingOrDamagedFieldsReadAsTheirDefaults) {
  RunRecord r;
  r.run = nlohmann::json::parse(R"({"message": 7, "started_at": null, "steps_per_epoch": "many",
    "config": [4], "sweep": {"scaling": "yes"}, "workers": {"world_size": -2}})");
  EXPECT_EQ(r.message(), "");
  EXPECT_EQ(r.started_at(), "");
  EXPECT_EQ(r.steps_per_epoch(), 0);  // and no steps to count
  EXPECT_EQ(r.planned_epochs(), 0);
  EXPECT_FALSE(r.in_scaling_study());
  EXPECT_EQ(r.processes(), 1);
  EXPECT_TRUE(r.class_names().empty());  // recorded before class names were noted
  r.run["class_names"] = nlohmann::json::parse(R"(["cat", 3, null])");
  EXPECT_EQ(r.class_names(), (std::vector<std::string>{"cat", "", ""}));
  EXPECT_EQ(recorded_processes(nlohmann::json::parse(R"({"workers": {"world_size": 1e30}})")), 1);
  EXPECT_EQ(recorded_processes(nlohmann::json::parse(R"({"workers": {"world_size": 9000000000}})")),
            std::numeric_limits<int>::max());
  EXPECT_EQ(recorded_processes(nlohmann::json::array()), 1);
  RunRecord unreadable;  // as the runs browser keeps one it could not read
  EXPECT_EQ(unreadable.processes(), 1);
  EXPECT_FALSE(unreadable.in_scaling_study());
}

TEST(RunRecord, AnOlderRunsStepsPerEpochIsItsLongestEpoch) {
  RunRecord r;
  r.run = nlohmann::json::object();  // recorded before run.json noted steps_per_epoch
  for (int i = 0; i < 5; ++i) r.steps.push_back(step_of(1));
  for (int i = 0; i < 2; ++i) r.steps.push_back(step_of(2));  // a second epoch cut short
  EXPECT_EQ(r.steps_per_epoch(), 5);
  // Epochs that ended count before one still under way (which may hold a resumed run's steps
  // twice): the first ended after 3 steps; the second has more but has not ended.
  RunRecord resumed;
  resumed.run = nlohmann::json::object();
  for (int i = 0; i < 3; ++i) resumed.steps.push_back(step_of(1));
  for (int i = 0; i < 4; ++i) resumed.steps.push_back(step_of(2));
  EpochMetrics first;
  first.epoch = 1;
  resumed.epochs.push_back(first);
  EXPECT_EQ(resumed.steps_per_epoch(), 3);
}
