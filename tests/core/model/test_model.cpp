#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "mirror/data/registry.h"
#include "mirror/model/builder.h"
#include "mirror/model/presets.h"
#include "mirror/model/summary.h"
#include "mirror/train/trainer.h"
#include "mirror/util/error.h"

using namespace mirror;

namespace {
InputSpec text_input() { return InputSpec{{300}, true, 30982, 46}; }
InputSpec image_input() { return InputSpec{{28, 28, 1}, false, 0, 10}; }

std::string config_error(const nlohmann::json& j) {
  try {
    model_from_json(j);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

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

TEST(Model, JsonRoundTripKeepsEveryPreset) {
  for (const auto& p : presets()) {
    const auto j = to_json(p.model);
    const auto back = model_from_json(nlohmann::json::parse(j.dump()));
    EXPECT_EQ(to_json(back), j) << p.name;
  }
  const auto j = nlohmann::json::parse(R"({"layers": [{"type": "Embedding", "input_dim": "vocab", "output_dim": 4},
      {"type": "MaxPool1D", "pool_size": 3}, {"type": "GlobalMaxPool1D"}, {"type": "Dense", "units": "classes"}]})");
  const auto spec = model_from_json(j);
  EXPECT_EQ(spec.layers[1].kind, LayerKind::kMaxPool1D);
  EXPECT_EQ(spec.layers[1].pool, std::vector<int64_t>{3});
  const auto a = analyze(spec, text_input());
  ASSERT_TRUE(a.ok()) << a.describe_errors();
  EXPECT_EQ(a.layers[1].output_shape, (std::vector<int64_t>{100, 4}));
}

TEST(Model, MalformedJsonNamesLayerAndField) {
  EXPECT_NE(config_error(nlohmann::json::parse(R"({"layers": [{"type": "Conv3D"}]})")).find("unknown layer type 'Conv3D'"),
            std::string::npos);
  EXPECT_NE(config_error(nlohmann::json::parse(R"({"layers": [{"type": "Dense"}, {"type": "Conv1D", "kernel_size": 3}]})"))
                .find("model layer 1 (Dense): missing 'units'"),
            std::string::npos);
  EXPECT_NE(config_error(nlohmann::json::parse(R"({"layers": [{"type": "Conv1D", "filters": -4, "kernel_size": 3}]})"))
                .find("'filters' must be a positive integer"),
            std::string::npos);
  EXPECT_NE(config_error(nlohmann::json::parse(R"({"layers": [{"type": "Dropout", "rate": 1.5}]})")).find("rate must be in [0, 1)"),
            std::string::npos);
  EXPECT_NE(config_error(nlohmann::json::parse(R"({"layers": [{"type": "Dense", "units": 3, "activation": "swishy"}]})"))
                .find("unknown activation 'swishy'"),
            std::string::npos);
  EXPECT_NE(config_error(nlohmann::json::parse(R"({"layers": []})")).find("empty"), std::string::npos);
  EXPECT_THROW(load_model_file("/nonexistent/model.json"), ConfigError);
}

TEST(Model, UnknownPresetListsTheKnownOnes) {
  try {
    find_preset("resnet-9000");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("seed-reuters"), std::string::npos);
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

TEST(Model, AsPublishedPresetKeepsTheTutorialsSoftmax) {
  EXPECT_EQ(find_preset("seed-reuters-as-published").model.layers.back().activation, Activation::kSoftmax);
  EXPECT_EQ(find_preset("seed-reuters").model.layers.back().activation, Activation::kLinear);
  EXPECT_EQ(find_preset("reuters-mlp").num_words, 10000);
}
