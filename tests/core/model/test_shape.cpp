// Shape analysis: every layer checked, errors on the offending layer.
#include <gtest/gtest.h>
#include <limits>
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

TEST(Model, ShapeErrorsAreReportedOnTheOffendingLayer) {
  ModelSpec spec = find_preset("seed-reuters").model;
  spec.layers[3].kernel = {200};  // Conv1D(32, 200) on a length-148 input
  const auto a = analyze(spec, text_input());
  EXPECT_FALSE(a.ok());
  EXPECT_TRUE(a.layers[0].error.empty());
  EXPECT_NE(a.layers[3].error.find("kernel 200 is larger than the input's size 148"), std::string::npos)
      << a.layers[3].error;
  EXPECT_NE(a.describe_errors().find("layer 4 conv1d_1 (Conv1D)"), std::string::npos) << a.describe_errors();
  EXPECT_NE(format_summary("m", a).find("^ kernel 200"), std::string::npos);
  EXPECT_THROW(build_model(a), ConfigError);
}

// A parameter count past int64 (found by fuzzing model files) is the layer's error, not an overflow.
TEST(Model, ParameterCountsThatOverflowAreTheLayersError) {
  ModelSpec spec;
  spec.layers.resize(2);
  spec.layers[0].kind = LayerKind::kDense;
  spec.layers[0].units = int64_t{1} << 40;
  spec.layers[1].kind = LayerKind::kDense;
  spec.layers[1].units = int64_t{1} << 40;  // 2^80 weights
  const auto a = analyze(spec, image_input());
  EXPECT_FALSE(a.ok());
  EXPECT_TRUE(a.layers[0].error.find("does not fit") == std::string::npos) << a.layers[0].error;
  EXPECT_NE(a.layers[1].error.find("parameter count does not fit a 64-bit integer"), std::string::npos) << a.layers[1].error;
  EXPECT_GT(a.total_params, 0);
}

TEST(Model, OutputThatIsNotOneLogitPerClassIsAnError) {
  ModelSpec spec = find_preset("seed-reuters").model;
  spec.layers.back().units = 10;
  const auto a = analyze(spec, text_input());
  EXPECT_FALSE(a.ok());
  EXPECT_NE(a.error.find("46 classes"), std::string::npos) << a.error;
  spec.layers.erase(spec.layers.begin() + 5);  // no Flatten: Dense on (73, 32)
  spec.layers.back().units = kFromDataset;
  EXPECT_NE(analyze(spec, text_input()).error.find("(None, 73, 46)"), std::string::npos);
}

TEST(Model, EmbeddingRulesAreChecked) {
  ModelSpec spec = find_preset("seed-reuters").model;
  spec.layers[0].input_dim = 1000;  // smaller than the vocabulary
  EXPECT_NE(analyze(spec, text_input()).layers[0].error.find("smaller than the dataset's vocabulary"),
            std::string::npos);
  EXPECT_NE(analyze(find_preset("seed-reuters").model, image_input()).layers[0].error.find("first layer"),
            std::string::npos);
  EXPECT_NE(analyze(find_preset("spirals-mlp").model, text_input()).layers[0].error.find("start with an Embedding"),
            std::string::npos);
}

// Sizes a model file may hold, up to 2^63 - 1, never overflow the shape arithmetic (UBSan checks
// it in scripts/sanitize.sh): a "same" pool wider than its input is the layer's error, and the
// output length of a "same" window is the ceiling of the input over the stride.
TEST(Model, HugeWindowsAndStridesAreTheLayersErrorNotAnOverflow) {
  const int64_t huge = std::numeric_limits<int64_t>::max();
  const auto model = [](const nlohmann::json& pool) {
    return model_from_json({{"layers",
                             {{{"type", "Embedding"}, {"input_dim", "vocab"}, {"output_dim", 4}}, pool,
                              {{"type", "Flatten"}}, {{"type", "Dense"}, {"units", "classes"}}}}});
  };
  const auto a = analyze(model({{"type", "MaxPooling1D"}, {"pool_size", huge}, {"padding", "same"}}), text_input());
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.layers[1].error.find("pool 9223372036854775807 is larger than the input's size 300"), std::string::npos)
      << a.layers[1].error;
  const auto b = analyze(model({{"type", "MaxPooling1D"}, {"pool_size", 7}, {"padding", "same"}}), text_input());
  ASSERT_TRUE(b.ok()) << b.describe_errors();
  EXPECT_EQ(b.layers[1].output_shape, (std::vector<int64_t>{43, 4}));  // ceil(300 / 7)
  const auto c = analyze(model({{"type", "MaxPooling1D"}, {"pool_size", 3}, {"strides", huge}}), text_input());
  ASSERT_TRUE(c.ok()) << c.describe_errors();
  EXPECT_EQ(c.layers[1].output_shape, (std::vector<int64_t>{1, 4}));
}
