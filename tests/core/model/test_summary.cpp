// Keras-style model summaries.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "mirror/data/registry.h"
#include "mirror/model/builder.h"
#include "mirror/model/presets.h"
#include "mirror/model/summary.h"
#include "mirror/train/trainer.h"
#include "mirror/util/error.h"
#include "model_inputs.h"

using namespace mirror;
using mirror::testing::image_input;
using mirror::testing::text_input;

TEST(Model, SeedReutersSummaryOnSyntheticTextMatchesTheTutorial) {
  DatasetOptions o;
  o.name = "synthetic-text";
  const auto data = load_dataset(o);
  const auto a = analyze(find_preset("seed-reuters").model, input_spec(*data));
  ASSERT_TRUE(a.ok()) << a.describe_errors();
  EXPECT_EQ(a.total_params, 332856);
  const std::vector<int64_t> expected_params = {216874, 2304, 0, 6176, 0, 0, 107502};
  const std::vector<std::vector<int64_t>> expected_shapes = {{300, 7}, {296, 64}, {148, 64}, {146, 32},
                                                             {73, 32}, {2336},    {46}};
  ASSERT_EQ(a.layers.size(), expected_params.size());
  for (size_t i = 0; i < a.layers.size(); ++i) {
    EXPECT_EQ(a.layers[i].params, expected_params[i]) << a.layers[i].name;
    EXPECT_EQ(a.layers[i].output_shape, expected_shapes[i]) << a.layers[i].name;
  }
  const std::string table = format_summary("sequential", a);
  EXPECT_NE(table.find("Total params: 332,856"), std::string::npos) << table;
  EXPECT_NE(table.find("Trainable params: 332,856"), std::string::npos);
  EXPECT_NE(table.find("Non-trainable params: 0"), std::string::npos);
  EXPECT_NE(table.find(" conv1d_1 (Conv1D)"), std::string::npos);
  EXPECT_NE(table.find("(None, 146, 32)"), std::string::npos);
}
