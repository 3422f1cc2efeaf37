// Layer specs as JSON (the --model-file format).
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

namespace {
std::string config_error(const nlohmann::json& j) {
  try {
    model_from_json(j);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

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

// A field of the wrong type is a ConfigError like every other mistake in a model file, not a
// nlohmann::json type_error (the window and config_from_json call model_from_json directly).
TEST(Model, FieldsOfTheWrongTypeAreConfigErrors) {
  for (const char* text : {R"({"layers": [{"type": "Dense", "units": 3, "name": 3}]})",
                           R"({"layers": [{"type": "Conv1D", "filters": 3, "kernel_size": 2, "padding": []}]})",
                           R"({"layers": [{"type": "Dense", "units": 3, "use_bias": "yes"}]})"}) {
    try {
      model_from_json(nlohmann::json::parse(text));
      ADD_FAILURE() << "accepted " << text;
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("model: ", 0), 0u) << e.what();
    }
  }
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
