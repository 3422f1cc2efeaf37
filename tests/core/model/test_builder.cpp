// Building LibTorch modules from layer specs: parameters, shapes, Keras initialisers.
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

TEST(Model, BuiltModulesHaveTheAnalysedParametersAndOutputShape) {
  for (const auto& [preset, input] : {std::pair{"seed-reuters", text_input()}, std::pair{"fashion-cnn", image_input()},
                                     std::pair{"spirals-mlp", InputSpec{{2}, false, 0, 3}}}) {
    const auto a = analyze(find_preset(preset).model, input);
    ASSERT_TRUE(a.ok()) << preset << ": " << a.describe_errors();
    auto model = build_model(a);
    int64_t count = 0;
    for (const auto& p : model->parameters()) count += p.numel();
    EXPECT_EQ(count, a.total_params) << preset;
    std::vector<int64_t> shape = {3};
    shape.insert(shape.end(), input.shape.begin(), input.shape.end());
    auto x = input.tokens ? torch::randint(1, input.vocab_size, shape, torch::kInt64) : torch::rand(shape);
    auto y = model->forward(x);
    EXPECT_EQ(y.sizes(), (std::vector<int64_t>{3, input.num_classes})) << preset;
  }
}

TEST(Model, KerasInitialisersFollowKerasDefaults) {
  ModelSpec spec = find_preset("seed-reuters").model;
  ASSERT_EQ(spec.initializer, "keras");
  const auto a = analyze(spec, text_input());
  torch::manual_seed(3);
  auto model = build_model(a);
  for (const auto& p : model->named_parameters()) {
    const auto& t = p.value();
    if (p.key().find("embedding") != std::string::npos) {
      EXPECT_LE(t.abs().max().item<float>(), 0.05f);
      EXPECT_GT(t.abs().max().item<float>(), 0.049f);  // uniform over the whole range
    } else if (p.key().find("bias") != std::string::npos) {
      EXPECT_EQ(t.abs().max().item<float>(), 0.0f) << p.key();
    } else if (p.key().find("conv1d_1.weight") != std::string::npos) {
      // Glorot: limit sqrt(6 / (fan_in + fan_out)), fans = kernel * channels: 3 * 64 and 3 * 32.
      const double limit = std::sqrt(6.0 / (3 * 64 + 3 * 32));
      EXPECT_LE(t.abs().max().item<double>(), limit);
      EXPECT_GT(t.abs().max().item<double>(), 0.95 * limit);
    }
  }
}

TEST(Model, CategoryEncodingMakesABagOfWords) {
  const auto j = nlohmann::json::parse(R"({"layers": [{"type": "CategoryEncoding", "num_tokens": 6},
      {"type": "Dense", "units": "classes"}]})");
  const auto a = analyze(model_from_json(j), InputSpec{{4}, true, 6, 2});
  ASSERT_TRUE(a.ok()) << a.describe_errors();
  EXPECT_EQ(a.layers[0].output_shape, std::vector<int64_t>{6});
  auto model = build_model(a);
  auto bag = model[0]->as<torch::nn::Functional>();
  ASSERT_NE(bag, nullptr);
  auto out = (*bag)(torch::tensor({{0, 3, 3, 5}, {1, 1, 1, 1}}, torch::kInt64));
  EXPECT_TRUE(torch::equal(out, torch::tensor({{1.f, 0.f, 0.f, 1.f, 0.f, 1.f}, {0.f, 1.f, 0.f, 0.f, 0.f, 0.f}})));
  EXPECT_NE(analyze(model_from_json(j), InputSpec{{4}, true, 60, 2}).layers[0].error.find("--num-words 6"), std::string::npos);
}
