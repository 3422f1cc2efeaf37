// A run folder taken away while the run trains: the writers stop and say so, and never make the
// folder again (its steps would go to a file nobody can read, its checkpoints to an empty twin).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>

#include "mirror/runs/checkpoint.h"
#include "mirror/runs/run_writer.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::error_of;
using mirror::testing::remove_tree;
using mirror::testing::TempDir;

namespace fs = std::filesystem;

namespace {
EpochMetrics epoch(int n) {
  EpochMetrics e;
  e.epoch = n;
  e.global_step = 10 * n;
  return e;
}
}  // namespace

TEST(RunFolder, ADeletedRunFolderStopsTheWriterAndIsNotMadeAgain) {
  TempDir tmp;
  const std::string dir = tmp / "run";
  RunWriter w(dir, nlohmann::json::object());
  w.on_epoch(epoch(1));  // flushed: the folder is there
  remove_tree(dir);
  const std::string why = error_of<RunError>([&] { w.on_epoch(epoch(2)); });
  EXPECT_NE(why.find("run folder " + dir + " was deleted, moved or replaced"), std::string::npos) << why;
  RunFinished fin;
  fin.status = RunStatus::kFailed;
  w.on_finished(fin);  // records nothing, throws nothing
  EXPECT_FALSE(fs::exists(dir));
}

TEST(RunFolder, AFolderReplacedByAnotherOfTheSameNameIsNoticed) {
  TempDir tmp;
  const std::string dir = tmp / "run";
  RunWriter w(dir, nlohmann::json::object());
  fs::rename(dir, tmp / "moved");
  fs::create_directories(dir);
  EXPECT_NE(error_of<RunError>([&] { w.on_epoch(epoch(1)); }).find("If you moved it, move it back"), std::string::npos);
}

TEST(RunFolder, ADeletedMetricsFileIsNoticed) {
  TempDir tmp;
  const std::string dir = tmp / "run";
  RunWriter w(dir, nlohmann::json::object());
  fs::remove(fs::path(dir) / "metrics.jsonl");
  EXPECT_NE(error_of<RunError>([&] { w.on_epoch(epoch(1)); }).find("metrics.jsonl was deleted or replaced"),
            std::string::npos);
}

TEST(RunFolder, ACheckpointDoesNotBringBackADeletedRunFolder) {
  TempDir tmp;
  const std::string dir = tmp / "run";
  fs::create_directories(dir);
  CheckpointFolder folder((fs::path(dir) / "checkpoints").string(), 2);
  remove_tree(dir);
  Checkpoint c;
  c.state.params = torch::zeros({3});
  EXPECT_NE(error_of<RunError>([&] { folder.save(c, false); }).find("the run folder " + dir + " was deleted or moved"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir));
}
