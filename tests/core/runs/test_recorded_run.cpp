// RecordedRun: the one assembly of a recorded run (records, checkpoints, resume) that the CLI
// and the window share.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "mirror/data/synthetic.h"
#include "mirror/runs/checkpoint.h"
#include "mirror/runs/recorded_run.h"
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
  TrainConfig c = mirror::testing::blobs_run(/*train_size=*/600, /*val_size=*/200, /*epochs=*/3, /*batch=*/50,
                                             /*logical=*/2);
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
  bool tensorboard = false;
  for (const auto& e : fs::directory_iterator(run.dir()))
    tensorboard |= e.path().filename().string().rfind("events.out.tfevents.", 0) == 0;
  EXPECT_TRUE(tensorboard);
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
