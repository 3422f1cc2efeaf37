// RecordedRun: the one assembly of a recorded run (records, checkpoints, resume) that the CLI
// and the window share.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/resource.h>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <functional>
#include <fstream>

#include "mirror/data/synthetic.h"
#include "mirror/runs/checkpoint.h"
#include "mirror/runs/recorded_run.h"
#include "mirror/runs/tensorboard.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "mirror/util/error.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::TempDir;
namespace fs = std::filesystem;

namespace {
// 3 epochs of 12 steps on 2 replicas, deterministic (resumed runs compare bit for bit).
TrainConfig blobs_config() {
  TrainConfig c = mirror::testing::points_run(/*epochs=*/3, /*batch=*/50, /*logical=*/2, /*train_size=*/600,
                                               /*val_size=*/200);
  c.strategy.deterministic = true;
  return c;
}

// Hears the run's end and looks at run.json at that moment.
class EndWatcher : public EventSink {
 public:
  explicit EndWatcher(std::string dir, int64_t stop_after = 0, TrainControl* control = nullptr)
      : dir_(std::move(dir)), stop_after_(stop_after), control_(control) {}
  void on_step(const StepMetrics& e) override {
    ++steps;
    if (control_ && e.global_step == stop_after_) control_->stop = true;
  }
  void on_finished(const RunFinished&) override { status_at_end = RunWriter::read_run_json(dir_).value("status", ""); }
  std::string status_at_end;
  int64_t steps = 0;

 private:
  std::string dir_;
  int64_t stop_after_;
  TrainControl* control_;
};
}  // namespace

TEST(RecordedRun, RecordsEverythingAndTheObserverHearsTheEndLast) {
  TempDir tmp;
  RunPlan plan;
  plan.config = blobs_config();
  plan.config.checkpoints.every_steps = 5;
  plan.dir = tmp / "run";
  plan.meta = RunMeta{"lr=0.01", {"sw-test"}, {}};
  plan.extra = {{"sweep", {{"id", "sw-test"}, {"index", 1}}}};
  RecordedRun run(plan);
  EXPECT_EQ(run.dir(), plan.dir);
  EXPECT_TRUE(run.warnings().empty());
  EndWatcher watcher(run.dir());
  TrainControl control;
  const RunFinished fin = run.run(watcher, control);
  ASSERT_EQ(fin.status, RunStatus::kFinished) << fin.message;
  EXPECT_EQ(watcher.status_at_end, "finished");  // the records held the end before the observer heard it
  const RunRecord r = read_run(run.dir());
  EXPECT_EQ(r.status, "finished");
  EXPECT_EQ(r.steps.size(), 36u);
  EXPECT_EQ(r.meta.name, "lr=0.01");
  EXPECT_EQ(r.meta.tags, std::vector<std::string>{"sw-test"});
  EXPECT_EQ(r.run["sweep"]["id"], "sw-test");
  EXPECT_EQ(r.run["config"]["checkpoint_every_steps"], 5);
  // The data's class names, so that the run's Learned tab names its classes whatever is loaded later.
  EXPECT_EQ(r.class_names(), (std::vector<std::string>{"class 0", "class 1", "class 2"}));
  // TensorBoard in Keras' layout: one file in train/, one in validation/.
  const auto events = tensorboard_files(run.dir());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(fs::path(events[0]).parent_path().filename(), "train");
  EXPECT_EQ(fs::path(events[1]).parent_path().filename(), "validation");
  // Every 5 steps and at each epoch end (12, 24, 36), pruned to the newest three.
  const auto kept = list_checkpoints(run.dir() + "/checkpoints");
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(fs::path(kept[0]).filename(), "ckpt-30.pt");
  EXPECT_EQ(fs::path(kept[2]).filename(), "ckpt-36.pt");
  EXPECT_TRUE(fs::exists(run.dir() + "/checkpoints/best.pt"));
}

TEST(RecordedRun, ARefusedConfigWritesNothingAndAnUnrecordedRunWritesNothingEither) {
  TempDir tmp;
  RunPlan plan;
  plan.config = blobs_config();
  plan.config.batch_size = 1;  // smaller than the two replicas
  plan.dir = tmp / "refused";
  EXPECT_THROW(RecordedRun{plan}, ConfigError);
  EXPECT_FALSE(fs::exists(plan.dir));
  plan.config = blobs_config();
  plan.config.max_steps = 3;
  plan.dir.clear();
  RecordedRun quiet(plan);
  TrainControl control;
  class Count : public EventSink {
   public:
    int64_t steps = 0;
    void on_step(const StepMetrics&) override { ++steps; }
  } count;
  EXPECT_EQ(quiet.run(count, control).status, RunStatus::kFinished);
  EXPECT_EQ(count.steps, 3);
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(RecordedRun, AStoppedRunResumedEndsWithTheUninterruptedNumbers) {
  TempDir tmp;
  auto plan_in = [&](const std::string& name) {
    RunPlan plan;
    plan.config = blobs_config();
    plan.dir = tmp / name;
    return plan;
  };
  RecordedRun whole(plan_in("whole"));
  EndWatcher quiet(whole.dir());
  TrainControl c1;
  const RunFinished uninterrupted = whole.run(quiet, c1);
  ASSERT_EQ(uninterrupted.status, RunStatus::kFinished) << uninterrupted.message;

  const RunPlan plan = plan_in("stopped");
  {
    RecordedRun first(plan);
    TrainControl control;
    EndWatcher stopper(first.dir(), /*stop_after=*/17, &control);
    const RunFinished fin = first.run(stopper, control);
    ASSERT_EQ(fin.status, RunStatus::kStopped);
    EXPECT_EQ(stopper.status_at_end, "stopped");
  }
  const auto resumed = RecordedRun::resume(plan.dir);
  EXPECT_EQ(resumed->resumed_from_step(), 17);
  EXPECT_NE(resumed->resumed_from_checkpoint().find("ckpt-17.pt"), std::string::npos);
  EndWatcher watcher(plan.dir);
  TrainControl control;
  const RunFinished fin = resumed->run(watcher, control);
  ASSERT_EQ(fin.status, RunStatus::kFinished) << fin.message;
  EXPECT_EQ(watcher.steps, 36 - 17);
  EXPECT_EQ(fin.param_l2_norm, uninterrupted.param_l2_norm);  // bit for bit
  const RunRecord r = read_run(plan.dir);
  EXPECT_EQ(r.status, "finished");
  EXPECT_EQ(r.steps.size(), 36u);  // each step once
  // Continuing the finished run to a later epoch trains one more epoch of 12 steps.
  ResumeOptions more;
  more.epochs = 4;
  const auto continued = RecordedRun::resume(plan.dir, more);
  EXPECT_EQ(continued->config().epochs, 4);
  EndWatcher after(plan.dir);
  EXPECT_EQ(continued->run(after, control).steps, 48);
  EXPECT_EQ(after.steps, 12);
}

TEST(RecordedRun, ResumingWhatCannotBeResumedSaysWhy) {
  TempDir tmp;
  EXPECT_NE(mirror::testing::error_of<ConfigError>([&] { RecordedRun::resume(tmp / "nothing"); }).find("no run.json"),
            std::string::npos);
}

namespace {
// A stopped run with checkpoints every 5 steps: ckpt-10, ckpt-15 and ckpt-17 are kept.
std::string stopped_at_17(const TempDir& tmp, const std::string& name) {
  RunPlan plan;
  plan.config = blobs_config();
  plan.config.checkpoints.every_steps = 5;
  plan.dir = tmp / name;
  RecordedRun first(plan);
  TrainControl control;
  EndWatcher stopper(first.dir(), /*stop_after=*/17, &control);
  EXPECT_EQ(first.run(stopper, control).status, RunStatus::kStopped);
  return plan.dir;
}
}  // namespace

TEST(RecordedRun, ADamagedNewestCheckpointIsPassedOverAndTheRunEndsTheSame) {
  TempDir tmp;
  RunPlan plan;
  plan.config = blobs_config();
  plan.dir = tmp / "whole";
  RecordedRun whole(plan);
  EndWatcher quiet(whole.dir());
  TrainControl c1;
  const RunFinished uninterrupted = whole.run(quiet, c1);

  const std::string dir = stopped_at_17(tmp, "damaged");
  const fs::path newest = fs::path(dir) / "checkpoints" / "ckpt-17.pt";
  ASSERT_TRUE(fs::exists(newest));
  fs::resize_file(newest, fs::file_size(newest) / 2);  // a write cut short
  const auto resumed = RecordedRun::resume(dir);
  EXPECT_EQ(resumed->resumed_from_step(), 15);
  ASSERT_EQ(resumed->warnings().size(), 1u);
  const std::string& warning = resumed->warnings()[0];
  EXPECT_NE(warning.find("passed over a damaged checkpoint: " + newest.string()), std::string::npos) << warning;
  EXPECT_NE(warning.find("resuming from " + (fs::path(dir) / "checkpoints" / "ckpt-15.pt").string()), std::string::npos)
      << warning;
  // Set aside, never again taken for the newest; nothing deleted.
  EXPECT_FALSE(fs::exists(newest));
  EXPECT_TRUE(fs::exists(newest.string() + ".unreadable"));
  EndWatcher watcher(dir);
  TrainControl control;
  const RunFinished fin = resumed->run(watcher, control);
  ASSERT_EQ(fin.status, RunStatus::kFinished) << fin.message;
  EXPECT_EQ(watcher.steps, 36 - 15);
  EXPECT_EQ(fin.param_l2_norm, uninterrupted.param_l2_norm);  // bit for bit
  EXPECT_EQ(read_run(dir).steps.size(), 36u);                 // steps 16 and 17 once each

  // When no checkpoint can be read, resuming says so and names the newest.
  const std::string hopeless = stopped_at_17(tmp, "hopeless");
  for (const auto& f : list_checkpoints((fs::path(hopeless) / "checkpoints").string())) fs::resize_file(f, 100);
  const std::string error = mirror::testing::error_of<DataError>([&] { RecordedRun::resume(hopeless); });
  EXPECT_NE(error.find("none of its 3 checkpoints can be read"), std::string::npos) << error;
  EXPECT_NE(error.find("ckpt-17.pt"), std::string::npos) << error;
}

TEST(RecordedRun, ACheckpointWithImpossibleValuesIsRefusedNamingTheField) {
  TempDir tmp;
  const std::string dir = stopped_at_17(tmp, "run");
  const Checkpoint good = read_checkpoint((fs::path(dir) / "checkpoints" / "ckpt-17.pt").string());
  const std::vector<std::pair<std::string, std::function<void(Checkpoint&)>>> damages = {
      {"position_global_step", [](Checkpoint& c) { c.position.global_step = -3; }},
      {"position_epoch", [](Checkpoint& c) { c.position.epoch = 0; }},
      {"position_step_in_epoch", [](Checkpoint& c) { c.position.step_in_epoch = c.position.global_step + 1; }},
      {"position_epoch_loss_sum", [](Checkpoint& c) { c.position.epoch_sums.loss_sum = std::nan(""); }},
      {"position_train_seconds", [](Checkpoint& c) { c.position.train_seconds = -1; }},
      {"position_best_val_accuracy", [](Checkpoint& c) { c.position.best_val_accuracy = 7; }},
      {"params", [](Checkpoint& c) { c.state.params = c.state.params.reshape({1, -1}); }},
      {"params", [](Checkpoint& c) { c.state.params = c.state.params.to(torch::kFloat64); }},
      {"replicas", [](Checkpoint& c) { c.state.dropout_rng.clear(); }},
      {"dropout_rng_1", [](Checkpoint& c) { c.state.dropout_rng[1] = torch::zeros({3}, torch::kFloat32); }},
      {"slot_0", [](Checkpoint& c) {
         const auto ints = torch::zeros({2}, torch::kInt64);
         if (c.state.optimizer_slots.empty()) c.state.optimizer_slots.emplace_back("m", ints);
         else c.state.optimizer_slots[0].second = ints;
       }},
      {"best_params", [](Checkpoint& c) { c.best_params = torch::zeros({3}); }},
  };
  for (const auto& [field, damage] : damages) {
    Checkpoint c = good;
    damage(c);
    const std::string path = tmp / "damaged.pt";
    write_checkpoint(path, c);
    const std::string error = mirror::testing::error_of<DataError>([&] { read_checkpoint(path); });
    EXPECT_NE(error.find("damaged.pt: not a valid checkpoint: '" + field + "'"), std::string::npos)
        << field << ": " << error;
  }
  // The undamaged one writes and reads back whole.
  write_checkpoint(tmp / "good.pt", good);
  const Checkpoint back = read_checkpoint(tmp / "good.pt");
  EXPECT_TRUE(torch::equal(back.state.params, good.state.params));
  EXPECT_EQ(back.position.global_step, 17);
}

TEST(RecordedRun, ACheckpointTheDiskRefusesIsARunErrorNotACrash) {
  // A file-size limit refuses the write as a full disk would. LibTorch's own file writer threw
  // from its destructor then, and the process aborted ("unexpected pos 64 vs 0").
  TempDir tmp;
  const std::string dir = stopped_at_17(tmp, "run");
  const Checkpoint good = read_checkpoint((fs::path(dir) / "checkpoints" / "ckpt-17.pt").string());
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit old_limit{};
  getrlimit(RLIMIT_FSIZE, &old_limit);
  rlimit small = old_limit;
  small.rlim_cur = 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string error = mirror::testing::error_of<RunError>([&] { write_checkpoint(tmp / "big.pt", good); });
  setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(error.find("cannot write checkpoint " + (tmp / "big.pt") + ": File too large"), std::string::npos) << error;
  EXPECT_NE(error.find("the checkpoints before it are kept"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(tmp / "big.pt"));
  for (const auto& f : fs::directory_iterator(tmp.path())) EXPECT_EQ(f.path().string().find(".tmp."), std::string::npos);
  write_checkpoint(tmp / "big.pt", good);  // with room again it writes
  EXPECT_EQ(read_checkpoint(tmp / "big.pt").position.global_step, good.position.global_step);
}

TEST(RecordedRun, AFullDiskFailsTheRunNamingTheFileAndKeepsTheRecordReadable) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full (a device that is always full) on this system";
  TempDir tmp;
  RunPlan plan;
  plan.config = blobs_config();
  plan.dir = tmp / "full";
  fs::create_directories(plan.dir);
  fs::create_symlink("/dev/full", fs::path(plan.dir) / "metrics.jsonl");  // every write: ENOSPC
  RecordedRun run(plan);
  EndWatcher watcher(run.dir());
  TrainControl control;
  const RunFinished fin = run.run(watcher, control);
  EXPECT_EQ(fin.status, RunStatus::kFailed);
  EXPECT_NE(fin.message.find("cannot write " + (fs::path(plan.dir) / "metrics.jsonl").string() +
                             ": No space left on device"), std::string::npos) << fin.message;
  EXPECT_NE(fin.message.find("make room, then resume the run"), std::string::npos) << fin.message;
  EXPECT_LE(fin.steps, 12);  // it stopped at the first flush it could not make (the first epoch's end)
  // run.json (written whole, elsewhere on the disk) says how the run ended.
  const auto recorded = RunWriter::read_run_json(plan.dir);
  EXPECT_EQ(recorded.value("status", ""), "failed");
  EXPECT_NE(recorded.value("message", "").find("No space left on device"), std::string::npos);
}
