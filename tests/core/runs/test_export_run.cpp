// export_run: a recorded run's trained model written as a PyTorch state dict or ONNX, with a
// sample of inputs and our outputs for checking it elsewhere.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>

#include "mirror/runs/checkpoint.h"
#include "mirror/runs/export_run.h"
#include "mirror/runs/recorded_run.h"
#include "mirror/util/error.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::TempDir;
namespace fs = std::filesystem;

namespace {
// A short recorded run of the spirals MLP on blobs: a checkpoint at its end.
std::string trained_run(const TempDir& tmp) {
  RunPlan plan;
  plan.config = mirror::testing::points_run(/*epochs=*/1, /*batch=*/20, /*logical=*/1, /*train_size=*/200, /*val_size=*/40);
  plan.dir = tmp / "run";
  RecordedRun run(plan);
  EventSink sink;
  TrainControl control;
  EXPECT_EQ(run.run(sink, control).status, RunStatus::kFinished);
  return plan.dir;
}
}  // namespace

TEST(ExportRun, PyTorchStateDictHoldsTheCheckpointsWeightsUnderTheModelsNames) {
  TempDir tmp;
  const std::string dir = trained_run(tmp);
  const ExportResult r = export_run(dir);
  ASSERT_EQ(r.files.size(), 4u);
  EXPECT_EQ(fs::path(r.files[0]).filename(), "model.pt");
  EXPECT_EQ(fs::path(r.files[1]).filename(), "model.py");
  EXPECT_EQ(fs::path(r.files[0]).parent_path(), fs::path(dir) / "export");
  EXPECT_EQ(r.global_step, 10);

  const std::string bytes = mirror::testing::read_file(r.files[0]);
  const auto state = torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end())).toGenericDict();
  const Checkpoint ckpt = read_checkpoint(r.checkpoint);
  // The dict's tensors, in the model's parameter order, are the checkpoint's flat vector.
  std::vector<torch::Tensor> parts;
  for (const std::string name : {"dense.weight", "dense.bias", "dense_1.weight", "dense_1.bias", "dense_2.weight", "dense_2.bias"}) {
    ASSERT_TRUE(state.contains(name)) << name;
    parts.push_back(state.at(name).toTensor().flatten());
  }
  EXPECT_TRUE(torch::equal(torch::cat(parts), ckpt.state.params));
  EXPECT_NE(mirror::testing::read_file(r.files[1]).find("self.dense = nn.Linear(2, "), std::string::npos);
}

TEST(ExportRun, OnnxAndTheSampleGoWhereAsked) {
  TempDir tmp;
  const std::string dir = trained_run(tmp);
  ExportOptions o;
  o.format = "onnx";
  o.out_dir = (fs::path(tmp / "out") / "deeper").string();
  o.sample_size = 5;
  const ExportResult r = export_run(dir, o);
  ASSERT_EQ(r.files.size(), 3u);
  EXPECT_EQ(r.files[0], (fs::path(o.out_dir) / "model.onnx").string());
  EXPECT_GT(fs::file_size(r.files[0]), 1000u);
  const std::string sample_out = mirror::testing::read_file(r.files[2]);
  EXPECT_NE(sample_out.find("'shape': (5, 3)"), std::string::npos);
  o.sample_size = 0;
  EXPECT_EQ(export_run(dir, o).files.size(), 1u);
}

TEST(ExportRun, SaysWhatIsMissing) {
  TempDir tmp;
  EXPECT_THROW(export_run(tmp / "nothing"), ConfigError);
  const std::string dir = trained_run(tmp);
  ExportOptions o;
  o.format = "tflite";
  EXPECT_THROW(export_run(dir, o), ConfigError);
  o.format = "pt";
  o.checkpoint = (fs::path(dir) / "no-such.pt").string();
  EXPECT_THROW(export_run(dir, o), DataError);
  for (const auto& f : fs::directory_iterator(fs::path(dir) / "checkpoints")) fs::remove(f.path());
  try {
    export_run(dir);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("no checkpoint"), std::string::npos) << e.what();
  }
}
