// Lessons: their files read and checked, planned as sweeps (with a dataset this machine lacks
// replaced as the lesson says), the teacher's own folder, and finding a lesson's recorded runs.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "mirror/runs/lesson.h"
#include "mirror/runs/recorded_run.h"
#include "mirror/runs/run_reader.h"
#include "mirror/strategy/link_model.h"
#include "mirror/util/error.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::error_of;
using mirror::testing::TempDir;

namespace {
nlohmann::json small_lesson() {
  return nlohmann::json::parse(R"({
    "title": "Two learning rates",
    "text": ["One paragraph."],
    "x_axis": "epoch",
    "runs": [
      {"label": "slow", "preset": "spirals-mlp", "set": {"lr": 0.001, "logical": 1, "epochs": 1, "dataset.train_size": 128, "dataset.val_size": 32}},
      {"label": "fast", "preset": "spirals-mlp", "set": {"lr": 0.1, "logical": 2, "epochs": 1, "dataset.train_size": 128, "dataset.val_size": 32}}
    ]})");
}

// Trains the plan's runs as the CLI and the window do, tagged with the lesson; returns their folders.
// `id` orders the sets (sweep ids sort by time; these two may start within one second).
std::vector<std::string> train(const Lesson& lesson, const std::string& root, const std::string& id, size_t only_first = 99) {
  Sweep sweep(plan_lesson(lesson).points, SweepOptions{root, lesson.scaling, id, lesson.name});
  std::vector<std::string> dirs;
  while (auto plan = sweep.next()) {
    if (dirs.size() == only_first) break;
    RecordedRun run(*plan, sweep.dataset_for(plan->config));
    EventSink quiet;
    TrainControl control;
    run.run(quiet, control);
    dirs.push_back(run.dir());
  }
  return dirs;
}

// Sets an environment variable for one scope.
struct ScopedEnv {
  ScopedEnv(const char* name, const std::string& value) : name_(name) { setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { unsetenv(name_); }
  const char* name_;
};
}  // namespace

TEST(Lesson, TheFiveBuiltInLessonsReadAndPlanAsTheirTextsSay) {
  TempDir own;
  ScopedEnv folder("MIRROR_LESSONS_DIR", own.str());
  std::vector<std::string> warnings;
  const auto all = lessons(&warnings);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0].name, "why-not-2x");
  EXPECT_EQ(all[1].name, "global-batch");
  EXPECT_EQ(all[2].name, "tutorials-bug");
  EXPECT_EQ(all[3].name, "broken-sync");
  EXPECT_EQ(all[4].name, "network-decides");
  for (const Lesson& l : all) {
    EXPECT_EQ(l.source, "built-in");
    EXPECT_FALSE(l.text.empty()) << l.name;
    const LessonPlan plan = plan_lesson(l, 0, [](const DatasetOptions&, std::string*) { return true; });
    ASSERT_EQ(plan.points.size(), l.runs.size()) << l.name;
    for (size_t i = 0; i < plan.points.size(); ++i) EXPECT_EQ(plan.points[i].label, l.runs[i].label);
  }
  // Why isn't 2x faster: the scaling page, the same config on 1, 2 and 4 logical devices, twice.
  EXPECT_TRUE(all[0].scaling);
  const auto scaling = plan_lesson(all[0]).points;
  for (size_t i = 0; i < scaling.size(); ++i) {
    EXPECT_EQ(scaling[i].config.devices.logical, (1 << (i % 3))) << i;
    EXPECT_EQ(scaling[i].config.batch_size, scaling[0].config.batch_size);
  }
  // When does the network decide: one run on 2 logical devices, the first summing in shared
  // memory, the others under a simulated link, each slower than the one before.
  const auto network = plan_lesson(all[4]).points;
  ASSERT_EQ(network.size(), 5u);
  EXPECT_FALSE(network[0].config.strategy.link.has_value());
  double previous = 0;  // the modelled all-reduce of the tutorial model's gradients, seconds
  for (size_t i = 0; i < network.size(); ++i) {
    EXPECT_EQ(network[i].config.devices.logical, 2) << i;
    EXPECT_EQ(network[i].config.batch_size, network[0].config.batch_size) << i;
    if (i == 0) continue;
    ASSERT_TRUE(network[i].config.strategy.link.has_value()) << i;
    EXPECT_TRUE(network[i].config.strategy.link->simulated) << i;
    const double t = ring_allreduce_seconds(*network[i].config.strategy.link, 2, 4.0 * 332856);
    EXPECT_GT(t, previous) << i;
    previous = t;
  }
  // Global vs per-replica batch: the first three share the global batch, the next two the
  // per-replica one, and the last scales the learning rate with the batch.
  const auto batch = plan_lesson(all[1]).points;
  ASSERT_EQ(batch.size(), 6u);
  EXPECT_EQ(batch[1].config.batch_size, batch[0].config.batch_size);
  EXPECT_EQ(batch[2].config.batch_size, batch[0].config.batch_size);
  EXPECT_EQ(batch[3].config.batch_size / batch[3].config.devices.logical, batch[0].config.batch_size);
  EXPECT_EQ(batch[4].config.batch_size / batch[4].config.devices.logical, batch[0].config.batch_size);
  EXPECT_EQ(batch[0].config.optimizer.name, "sgd");
  EXPECT_DOUBLE_EQ(batch[0].config.optimizer.momentum, 0.9);
  EXPECT_DOUBLE_EQ(batch[5].config.optimizer.learning_rate,
                   batch[4].config.optimizer.learning_rate * static_cast<double>(batch[5].config.batch_size / batch[0].config.batch_size));
  // The tutorial's bug: the two presets, nothing else apart.
  const auto bug = plan_lesson(all[2], 0, [](const DatasetOptions&, std::string*) { return true; }).points;
  EXPECT_EQ(bug[0].config.preset, "seed-reuters");
  EXPECT_EQ(bug[1].config.preset, "seed-reuters-as-published");
  EXPECT_EQ(bug[0].config.dataset.name, "reuters");
  // Broken sync: only the second run is nudged, and a check comes after the nudge.
  const auto sync = plan_lesson(all[3]).points;
  EXPECT_EQ(sync[0].config.strategy.perturb_replica_at_step, 0);
  EXPECT_GT(sync[1].config.strategy.perturb_replica_at_step, 0);
  EXPECT_GE(sync[1].config.devices.logical, 2);
  EXPECT_FALSE(all[3].runs[1].expect_failure.empty());
}

TEST(Lesson, ADatasetNotOnThisMachineIsReplacedAsTheLessonSaysAndTheNoteSaysWhy) {
  const Lesson bug = find_lesson("tutorials-bug");
  const LessonPlan missing = plan_lesson(bug, 0, [](const DatasetOptions& o, std::string* why) {
    if (o.name != "reuters") return true;
    *why = "reuters.npz is not in /nowhere";
    return false;
  });
  ASSERT_EQ(missing.points.size(), 2u);
  for (const auto& p : missing.points) EXPECT_EQ(p.config.dataset.name, "synthetic-text");
  ASSERT_EQ(missing.notes.size(), 1u);  // said once, not once per run
  EXPECT_NE(missing.notes[0].find("reuters is not on this machine (reuters.npz is not in /nowhere)"), std::string::npos)
      << missing.notes[0];
  // The cap for a rehearsal applies to every run.
  const LessonPlan capped = plan_lesson(bug, 7, [](const DatasetOptions&, std::string*) { return false; });
  for (const auto& p : capped.points) EXPECT_EQ(p.config.max_steps, 7);
}

TEST(Lesson, ABrokenLessonIsRefusedNamingWhatIsWrong) {
  auto broken = [](auto change) {
    nlohmann::json j = small_lesson();
    change(j);
    return error_of<ConfigError>([&] { lesson_from_json(j, "mine", "mine.json"); });
  };
  EXPECT_NE(broken([](auto& j) { j.erase("title"); }).find("lesson mine (mine.json): 'title' must be a non-empty string"),
            std::string::npos);
  EXPECT_NE(broken([](auto& j) { j["colour"] = "red"; }).find("unknown member 'colour'"), std::string::npos);
  EXPECT_NE(broken([](auto& j) { j["x_axis"] = "days"; }).find("x_axis 'days'"), std::string::npos);
  EXPECT_NE(broken([](auto& j) { j["view"] = "pie"; }).find("view 'pie'"), std::string::npos);
  EXPECT_NE(broken([](auto& j) { j["runs"] = nlohmann::json::array(); }).find("'runs' must be a list"), std::string::npos);
  EXPECT_NE(broken([](auto& j) { j["text"] = "one string"; }).find("'text' must be a list of paragraphs"), std::string::npos);
  EXPECT_NE(broken([](auto& j) { j["runs"][1]["preset"] = "gpt-5"; }).find("run 2 (fast): unknown preset"), std::string::npos);
  EXPECT_NE(broken([](auto& j) { j["runs"][0]["set"]["lr"] = "fast"; }).find("run 1 (slow): Learning rate: 'fast' is not a number"),
            std::string::npos);
  EXPECT_NE(broken([](auto& j) { j["runs"][0]["set"]["speed"] = 2; }).find("'speed' is not a setting"), std::string::npos);
  EXPECT_NE(broken([](auto& j) { j["runs"][0]["set"]["batch"] = 0; }).find("invalid batch size: 0"), std::string::npos);
  EXPECT_NE(broken([](auto& j) { j["runs"][0]["set"]["perturb_replica_at_step"] = -1; }).find("perturb_replica_at_step"),
            std::string::npos);
  EXPECT_NE(broken([](auto& j) { j["if_missing"] = {{"spirals", {{"dataset.name", 3}}}}; }).find("is not a word"),
            std::string::npos);
}

TEST(Lesson, ATeachersOwnLessonsComeFromTheLessonsFolderAndABadFileIsSkippedWithAWarning) {
  TempDir own;
  ScopedEnv folder("MIRROR_LESSONS_DIR", own.str());
  mirror::testing::write_file(own.path() / "two-rates.json", small_lesson().dump());
  mirror::testing::write_file(own.path() / "broken.json", "{\"title\": ");
  nlohmann::json replaced = small_lesson();
  replaced["title"] = "My broken sync";
  mirror::testing::write_file(own.path() / "broken-sync.json", replaced.dump());
  std::vector<std::string> warnings;
  const auto all = lessons(&warnings);
  ASSERT_EQ(all.size(), 6u);  // five built in (one replaced) and the new one
  EXPECT_EQ(all[3].title, "My broken sync");
  EXPECT_EQ(all[5].name, "two-rates");
  EXPECT_EQ(all[5].source, (own.path() / "two-rates.json").string());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("broken.json is not valid JSON"), std::string::npos) << warnings[0];
  EXPECT_EQ(find_lesson("two-rates").runs.size(), 2u);
  EXPECT_EQ(find_lesson((own.path() / "two-rates.json").string()).title, "Two learning rates");
  const std::string unknown = error_of<ConfigError>([] { find_lesson("no-such-lesson"); });
  EXPECT_NE(unknown.find("no lesson named 'no-such-lesson' (known: why-not-2x, global-batch, tutorials-bug, broken-sync, network-decides, two-rates"),
            std::string::npos) << unknown;
}

TEST(Lesson, ItsRecordedRunsAreTheNewestCompleteSetLabelledAsTheLessonIsNow) {
  TempDir root;
  Lesson lesson = lesson_from_json(small_lesson(), "two-rates", "test");
  EXPECT_TRUE(recorded_lesson_runs(root.str(), lesson).empty());
  const auto first = train(lesson, root.str(), "sw-20261201-100000");
  ASSERT_EQ(first.size(), 2u);
  const RunRecord r = read_run(first[1]);
  EXPECT_EQ(r.status, "finished");
  EXPECT_EQ(r.run["sweep"]["lesson"], "two-rates");
  EXPECT_EQ(r.meta.name, "fast");
  EXPECT_EQ(recorded_lesson_runs(root.str(), lesson), first);
  // A later set that stopped halfway does not hide the complete one.
  const auto half = train(lesson, root.str(), "sw-20261201-100001", 1);
  ASSERT_EQ(half.size(), 1u);
  EXPECT_EQ(recorded_lesson_runs(root.str(), lesson), first);
  // A lesson edited since (a run renamed) does not show runs of its old form.
  lesson.runs[1].label = "faster";
  EXPECT_TRUE(recorded_lesson_runs(root.str(), lesson).empty());
  // Another lesson's runs are not this one's.
  Lesson other = lesson_from_json(small_lesson(), "other", "test");
  EXPECT_TRUE(recorded_lesson_runs(root.str(), other).empty());
}

// The words and verdicts the CLI's summary and the window's Lesson dock showed, each in its own
// copy, now one judgement in core.
TEST(LessonRunOutcome, AFailureTheLessonMeansIsAsMeantAndSaysSo) {
  const LessonRun nudged{"nudged", "spirals-mlp", nlohmann::json::object(), "out of sync"};
  const std::string message = "replicas out of sync after step 30: replica 1 differs";
  const LessonRunOutcome o = judge_lesson_run(nudged, "failed", message);
  EXPECT_TRUE(o.as_meant);
  EXPECT_TRUE(o.meant_failure);
  EXPECT_EQ(o.words, "failed, as the lesson means it to: " + message);
  // As a run that has just ended says it, and as its run.json says it afterwards: one verdict.
  const LessonRunOutcome live = judge_lesson_run(nudged, RunStatus::kFailed, message);
  EXPECT_EQ(live.words, o.words);
  EXPECT_TRUE(live.as_meant);
}

TEST(LessonRunOutcome, ARunMeantToFailThatDidNotIsNotAsMeantAndNamesTheExpectedFailure) {
  const LessonRun nudged{"nudged", "spirals-mlp", nlohmann::json::object(), "out of sync"};
  const LessonRunOutcome finished = judge_lesson_run(nudged, RunStatus::kFinished, "");
  EXPECT_FALSE(finished.as_meant);
  EXPECT_FALSE(finished.meant_failure);
  EXPECT_EQ(finished.words, "finished, but the lesson expected it to fail with \"out of sync\"");
  const LessonRunOutcome other = judge_lesson_run(nudged, "failed", "out of memory");
  EXPECT_FALSE(other.as_meant);
  EXPECT_FALSE(other.meant_failure);
  EXPECT_EQ(other.words, "failed: out of memory (the lesson expected it to fail with \"out of sync\")");
}

TEST(LessonRunOutcome, AnOrdinaryRunIsAsMeantOnlyWhenItFinishes) {
  const LessonRun plain{"in sync", "spirals-mlp", nlohmann::json::object(), ""};
  const LessonRunOutcome finished = judge_lesson_run(plain, RunStatus::kFinished, "");
  EXPECT_TRUE(finished.as_meant);
  EXPECT_EQ(finished.words, "finished");
  const LessonRunOutcome failed = judge_lesson_run(plain, RunStatus::kFailed, "boom");
  EXPECT_FALSE(failed.as_meant);
  EXPECT_FALSE(failed.meant_failure);
  EXPECT_EQ(failed.words, "failed: boom");
  // A run that did not end by itself is not what the lesson meant, whatever it expected.
  const LessonRun nudged{"nudged", "spirals-mlp", nlohmann::json::object(), "out of sync"};
  for (const std::string status : {"stopped", "interrupted", "running", "stalled", "unreadable"})
    for (const LessonRun* run : {&plain, &nudged}) {
      const LessonRunOutcome o = judge_lesson_run(*run, status, "stopped at epoch 1, step 3");
      EXPECT_FALSE(o.as_meant) << status;
      EXPECT_EQ(o.words, status);
    }
  EXPECT_EQ(judge_lesson_run(plain, RunStatus::kStopped, "stopped").words, "stopped");
}
