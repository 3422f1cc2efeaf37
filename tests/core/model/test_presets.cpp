// The built-in presets: resources/presets/*.json, embedded at build time.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "mirror/data/registry.h"
#include "mirror/model/builder.h"
#include "mirror/model/presets.h"
#include "mirror/model/summary.h"
#include "mirror/train/trainer.h"
#include "mirror/util/error.h"
#include "model_inputs.h"
#include "test_paths.h"

using namespace mirror;
using mirror::testing::image_input;
using mirror::testing::text_input;

TEST(Model, UnknownPresetListsTheKnownOnes) {
  try {
    find_preset("resnet-9000");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("seed-reuters"), std::string::npos);
  }
}

TEST(Model, AsPublishedPresetKeepsTheTutorialsSoftmax) {
  EXPECT_EQ(find_preset("seed-reuters-as-published").model.layers.back().activation, Activation::kSoftmax);
  EXPECT_EQ(find_preset("seed-reuters").model.layers.back().activation, Activation::kLinear);
  EXPECT_EQ(find_preset("reuters-mlp").num_words, 10000);
}

TEST(Presets, EveryFileInResourcesPresetsIsABuiltInPresetAndLoadsAsAModelFile) {
  // A preset file added to resources/presets/ but not listed in core/CMakeLists.txt would not
  // ship: the files and the built-in list must match, name for name.
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(mirror::testing::source_dir() + "/resources/presets")) {
    if (e.path().extension() != ".json") continue;
    files.push_back(e.path().stem().string());
    // The same file is a --model-file: its model loads and equals the preset's.
    const ModelSpec m = load_model_file(e.path().string());
    EXPECT_EQ(to_json(m), to_json(find_preset(e.path().stem().string()).model)) << e.path();
  }
  std::vector<std::string> built_in;
  for (const auto& p : presets()) built_in.push_back(p.name);
  std::sort(files.begin(), files.end());
  std::sort(built_in.begin(), built_in.end());
  EXPECT_EQ(files, built_in);
}

TEST(Presets, AMalformedPresetNamesItsSourceAndTheProblem) {
  nlohmann::json j = nlohmann::json::parse(R"({"preset": "mine", "layers": [{"type": "Dense", "units": "classes"}]})");
  try {
    preset_from_json(j, "mine.json");
    FAIL() << "a preset without a dataset must be refused";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("preset mine.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("dataset"), std::string::npos) << e.what();
  }
  j["dataset"] = "spirals";
  j["optimizer"] = "adam";
  j["epochs"] = 4;
  const Preset p = preset_from_json(j, "mine.json");
  EXPECT_EQ(p.name, "mine");
  EXPECT_EQ(p.epochs, 4);
  EXPECT_EQ(p.batch_size, 32);  // the default when the file does not say
  EXPECT_TRUE(p.lr_schedule.empty());
  // A preset may carry a schedule and callbacks, spelt as on the command line.
  j["lr_schedule"] = "cosine:decay_steps=500,alpha=0.1";
  j["warmup_steps"] = 50;
  j["early_stopping"] = "val_loss:patience=3";
  const Preset q = preset_from_json(j, "mine.json");
  EXPECT_EQ(q.lr_schedule, "cosine:decay_steps=500,alpha=0.1");
  EXPECT_EQ(q.warmup_steps, 50);
  EXPECT_EQ(q.early_stopping, "val_loss:patience=3");
}
