// A .keras file's weights read back (keras_file.h: read_keras_weights_h5, weights_from_keras,
// keras_file_weights) and a run started from them (TrainConfig::initial_weights). Keras itself
// writes the files of tests/cli/test_keras_weights.sh, where our predictions are checked against its.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <fstream>
#include <string>

#include "mirror/data/registry.h"
#include "mirror/model/builder.h"
#include "mirror/model/keras_file.h"
#include "mirror/model/layer_spec.h"
#include "mirror/model/shape.h"
#include "mirror/strategy/mirrored.h"
#include "mirror/train/trainer.h"
#include "mirror/util/error.h"
#include "named_weights.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::data_error;
using mirror::testing::error_of;
using mirror::testing::weights_of;

namespace {
ModelAnalysis weights_model(const std::string& layers_json, const InputSpec& input) {
  const ModelSpec spec = model_from_json(nlohmann::json::parse(R"({"name": "m", "layers": )" + layers_json + "}"));
  ModelAnalysis a = analyze(spec, input);
  EXPECT_TRUE(a.ok()) << a.describe_errors();
  return a;
}

// Every weight, through Keras' layouts and an HDF5 file in memory, and back.
std::vector<NamedWeights> through_file(const ModelAnalysis& a, const std::vector<NamedWeights>& weights) {
  const std::string h5 = keras_weights_h5(keras_layer_weights(a, weights), "m");
  return weights_from_keras(a, read_keras_weights_h5(h5, "test.h5"), "test.keras");
}

}  // namespace

// Each kind of weighted layer, a Dense after a channels-first Flatten among them (its columns are
// reordered on the way out and must be put back), comes back bit for bit.
TEST(KerasWeights, EveryWeightComesBackExactlyThroughTheFile) {
  const InputSpec text{{12}, true, 40, 3};
  const ModelAnalysis t = weights_model(R"([{"type": "Embedding", "input_dim": "vocab", "output_dim": 4},
      {"type": "Conv1D", "filters": 5, "kernel_size": 3, "activation": "relu"},
      {"type": "MaxPooling1D", "pool_size": 3, "padding": "same"}, {"type": "Flatten"},
      {"type": "Dense", "units": 6, "use_bias": false}, {"type": "Dense", "units": "classes"}])", text);
  const InputSpec image{{6, 5, 2}, false, 0, 4};
  const ModelAnalysis i = weights_model(R"([{"type": "Conv2D", "filters": 3, "kernel_size": [3, 2]},
      {"type": "Flatten"}, {"type": "Dense", "units": "classes"}])", image);
  for (const ModelAnalysis* a : {&t, &i}) {
    torch::manual_seed(7);
    auto model = build_model(*a);
    const auto want = weights_of(model);
    const auto got = through_file(*a, want);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) {
      EXPECT_EQ(got[k].name, want[k].name);
      EXPECT_EQ(got[k].shape, want[k].shape) << want[k].name;
      EXPECT_EQ(got[k].values, want[k].values) << want[k].name;
    }
  }
}

TEST(KerasWeights, AnotherModelsWeightsAreRefusedNamingTheLayerAndShapes) {
  const InputSpec input{{4}, false, 0, 2};
  const ModelAnalysis small = weights_model(R"([{"type": "Dense", "units": 3}, {"type": "Dense", "units": "classes"}])", input);
  const ModelAnalysis wide = weights_model(R"([{"type": "Dense", "units": 5}, {"type": "Dense", "units": "classes"}])", input);
  auto model = build_model(small);
  const auto layers = keras_layer_weights(small, weights_of(model));
  const std::string shapes = data_error([&] { weights_from_keras(wide, layers, "x.keras"); });
  EXPECT_NE(shapes.find("x.keras: layers/dense/vars/0 is (4, 3), layer 'dense' needs (4, 5)"), std::string::npos) << shapes;
  const ModelAnalysis deeper =
      weights_model(R"([{"type": "Dense", "units": 3}, {"type": "Dense", "units": 2}, {"type": "Dense", "units": "classes"}])", input);
  const std::string missing = data_error([&] { weights_from_keras(deeper, layers, "x.keras"); });
  EXPECT_NE(missing.find("no group layers/dense_2"), std::string::npos) << missing;
  auto without_bias = layers;
  without_bias[0].vars.pop_back();
  const std::string count = data_error([&] { weights_from_keras(small, without_bias, "x.keras"); });
  EXPECT_NE(count.find("layers/dense holds 1 variables, layer 'dense' has 2"), std::string::npos) << count;
}

TEST(KerasWeights, BytesThatAreNotAWholeHdf5FileAreRefused) {
  const InputSpec input{{4}, false, 0, 2};
  const ModelAnalysis a = weights_model(R"([{"type": "Dense", "units": "classes"}])", input);
  auto model = build_model(a);
  const std::string h5 = keras_weights_h5(keras_layer_weights(a, weights_of(model)), "m");
  EXPECT_NE(data_error([] { read_keras_weights_h5("{\"not\": \"hdf5\"}", "w.h5"); }).find("w.h5: it is not an HDF5 file"),
            std::string::npos);
  for (size_t keep : {size_t{8}, size_t{512}, h5.size() / 2, h5.size() - 16}) {
    const std::string cut = data_error([&] { weights_from_keras(a, read_keras_weights_h5(h5.substr(0, keep), "w.h5"), "w"); });
    EXPECT_EQ(cut.rfind("w.h5: ", 0), 0u) << keep << " of " << h5.size() << " bytes were read as a whole file: " << cut;
  }
}

// A run with initial_weights starts on every replica from the file's weights, and validates with them.
TEST(KerasWeights, ARunStartsFromTheFilesWeightsOnEveryReplica) {
  mirror::testing::TempDir dir;
  TrainConfig c = mirror::testing::points_run(/*epochs=*/1, /*batch=*/32, /*logical=*/2);
  const auto data = load_dataset(c.dataset);
  const ModelAnalysis a = analyze(c.model, input_spec(*data));
  torch::manual_seed(99);  // other weights than the run's seed draws
  auto model = build_model(a);
  {
    std::ofstream f(dir / "trained.keras", std::ios::binary);
    f << keras_model_file(a, input_spec(*data), weights_of(model), "trained", "2026-12-07@10:00:00");
  }
  torch::Tensor want = torch::cat([&] {
    std::vector<torch::Tensor> all;
    for (const auto& p : model->parameters()) all.push_back(p.detach().reshape({-1}));
    return all;
  }());
  Trainer fresh(c, data);
  EXPECT_FALSE(torch::equal(fresh.strategy().replica_parameters(0), want));
  c.initial_weights = dir / "trained.keras";
  Trainer from_file(c, data);
  for (int r = 0; r < 2; ++r) EXPECT_TRUE(torch::equal(from_file.strategy().replica_parameters(r), want)) << r;
  EXPECT_NE(from_file.validate().loss(), fresh.validate().loss());
  EXPECT_EQ(config_from_json(to_json(c)).initial_weights, c.initial_weights);

  c.initial_weights = dir / "missing.keras";
  const std::string missing = error_of<ConfigError>([&] { Trainer t(c, data); });
  EXPECT_NE(missing.find("initial weights:"), std::string::npos) << missing;
  EXPECT_NE(missing.find("missing.keras"), std::string::npos) << missing;
}
