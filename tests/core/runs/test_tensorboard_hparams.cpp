// A run as a session of TensorBoard's HParams dashboard (tensorboard_hparams.h): which settings it
// shows, and the session's file beside train/ and validation/. TensorBoard itself decodes the
// records and lists a sweep in tests/cli/test_tensorboard_layout.sh.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "mirror/runs/tensorboard.h"
#include "mirror/runs/tensorboard_hparams.h"
#include "mirror/train/config.h"
#include "test_helpers.h"

using namespace mirror;
namespace fs = std::filesystem;

TEST(TensorBoardHParams, ARunShowsItsKeySettingsThenWhatItsSweepVariedEachOnce) {
  TrainConfig c = config_from_preset("spirals-mlp");
  c.optimizer.learning_rate = 0.05;
  const auto settings = nlohmann::json::parse(R"({"optimizer.learning_rate": 0.05, "optimizer.momentum": 0.9,
      "deterministic": true, "model.layers": [1, 2]})");
  const std::vector<HParam> h = run_hparams(to_json(c), settings);
  std::vector<std::string> names;
  for (const auto& p : h) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"model.name", "dataset.name", "optimizer.name", "optimizer.learning_rate",
                                             "batch_size", "epochs", "devices.devices", "devices.logical", "seed",
                                             "deterministic", "model.layers", "optimizer.momentum"}));
  EXPECT_EQ(std::get<std::string>(h[0].value), c.model.name);
  EXPECT_DOUBLE_EQ(std::get<double>(h[3].value), 0.05);
  EXPECT_EQ(std::get<double>(h[4].value), static_cast<double>(c.batch_size));
  EXPECT_TRUE(std::get<bool>(h[9].value));
  EXPECT_EQ(std::get<std::string>(h[10].value), "[1,2]");  // neither number, word nor flag: its JSON
  EXPECT_EQ(run_hparams(to_json(c), nullptr).size(), 9u);
}

// The session's file sits in the run's own folder, is framed as every event file is (its records
// pass the CRC checks), holds no scalars and is not taken for a pre-0.2 scalar file; it ends
// with the run.
TEST(TensorBoardHParams, TheSessionFileSitsBesideTrainAndValidationAndHoldsNoScalars) {
  mirror::testing::TempDir dir;
  {
    TensorBoardWriter w(dir.str(), {{"optimizer.learning_rate", 0.1}, {"optimizer.name", std::string("adam")}});
    RunFinished done;
    done.status = RunStatus::kFinished;
    w.on_finished(done);
    EXPECT_EQ(tensorboard_files(dir.str()), (std::vector<std::string>{w.train_path(), w.validation_path()}));
  }
  std::vector<fs::path> own;
  for (const auto& e : fs::directory_iterator(dir.path()))
    if (e.is_regular_file()) own.push_back(e.path());
  ASSERT_EQ(own.size(), 1u);
  const std::string name = own[0].filename().string();
  EXPECT_EQ(name.rfind("events.out.tfevents.", 0), 0u);
  EXPECT_NE(name.find(".hparams.v2"), std::string::npos) << name;
  std::string warning;
  EXPECT_TRUE(read_tensorboard_scalars(own[0].string(), &warning).empty());
  EXPECT_TRUE(warning.empty()) << warning;  // every record whole, with good CRCs
  std::ifstream f(own[0], std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(bytes.find("_hparams_/session_start_info"), std::string::npos);
  EXPECT_NE(bytes.find("_hparams_/session_end_info"), std::string::npos);
  EXPECT_NE(bytes.find("optimizer.learning_rate"), std::string::npos);

  mirror::testing::TempDir plain;  // no settings, no session file
  { TensorBoardWriter w(plain.str()); }
  EXPECT_EQ(std::distance(fs::directory_iterator(plain.path()), fs::directory_iterator()), 2);
}
