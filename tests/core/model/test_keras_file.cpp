// A model as a Keras 3 .keras file (keras_file.h): config.json's layers, the weights in Keras'
// layouts (a Dense after a channels-first Flatten reordered as Keras flattens), the zip's members;
// and max pooling with padding "same" padded as Keras pads it. Keras itself opens the files in
// tests/cli/test_export.sh (tests/tools/check_keras_export.py).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "mirror/model/builder.h"
#include "mirror/model/keras_file.h"
#include "mirror/model/layer_spec.h"
#include "mirror/model/shape.h"
#include "mirror/util/error.h"
#include "mirror/util/zip_write.h"
#include "named_weights.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::weights_of;

namespace {
ModelAnalysis analysed(const std::string& layers_json, const InputSpec& input) {
  const ModelSpec spec = model_from_json(nlohmann::json::parse(R"({"name": "m", "layers": )" + layers_json + "}"));
  ModelAnalysis a = analyze(spec, input);
  EXPECT_TRUE(a.ok()) << a.describe_errors();
  return a;
}

const NamedWeights& var(const std::vector<KerasLayerWeights>& layers, const std::string& path, size_t i) {
  for (const auto& l : layers)
    if (l.path == path) return l.vars.at(i);
  throw std::out_of_range(path);
}
}  // namespace

TEST(KerasFile, ConfigIsASequentialWithItsInputAndEachLayersKerasSettings) {
  const InputSpec input{{10}, true, 50, 3};
  const ModelAnalysis a = analysed(R"([{"type": "Embedding", "input_dim": "vocab", "output_dim": 4},
      {"type": "Conv1D", "filters": 6, "kernel_size": 3, "activation": "relu", "name": "my/conv"},
      {"type": "GlobalMaxPooling1D"}, {"type": "Dense", "units": "classes"}])", input);
  const nlohmann::json c = keras_model_config(a, input, "seed");
  EXPECT_EQ(c["class_name"], "Sequential");
  EXPECT_EQ(c["config"]["name"], "seed");
  const auto& layers = c["config"]["layers"];
  ASSERT_EQ(layers.size(), 5u);
  EXPECT_EQ(layers[0]["class_name"], "InputLayer");
  EXPECT_EQ(layers[0]["config"]["batch_shape"], nlohmann::json::parse("[null, 10]"));
  EXPECT_EQ(layers[0]["config"]["dtype"], "int32");
  EXPECT_EQ(layers[1]["config"]["input_dim"], 50);  // the dataset's vocabulary, resolved
  EXPECT_EQ(layers[2]["class_name"], "Conv1D");
  EXPECT_EQ(layers[2]["config"]["name"], "my_conv");  // Keras refuses '/' in a name
  EXPECT_EQ(layers[2]["config"]["kernel_size"], nlohmann::json::parse("[3]"));
  EXPECT_EQ(layers[2]["config"]["activation"], "relu");
  EXPECT_EQ(layers[2]["build_config"]["input_shape"], nlohmann::json::parse("[null, 10, 4]"));
  EXPECT_FALSE(layers[3].contains("build_config"));  // no weights, nothing to build
  EXPECT_EQ(layers[4]["config"]["units"], 3);
}

TEST(KerasFile, WeightsAreInKerasLayoutsAndGroupsNumberedPerClass) {
  const InputSpec input{{8, 3}, false, 0, 2};
  const ModelAnalysis a = analysed(R"([{"type": "Conv1D", "filters": 4, "kernel_size": 3},
      {"type": "Dense", "units": 5}, {"type": "GlobalAveragePooling1D"}, {"type": "Dense", "units": "classes"}])", input);
  torch::manual_seed(1);
  auto model = build_model(a);
  const auto weights = weights_of(model);
  const auto layers = keras_layer_weights(a, weights);
  ASSERT_EQ(layers.size(), 4u);
  EXPECT_EQ(layers[0].path, "layers/conv1d");
  EXPECT_EQ(layers[1].path, "layers/dense");
  EXPECT_EQ(layers[2].path, "layers/global_average_pooling1d");
  EXPECT_EQ(layers[3].path, "layers/dense_1");
  EXPECT_TRUE(layers[2].vars.empty());
  // Conv1D: LibTorch's (out, in, k) as Keras' (k, in, out).
  const auto conv = model->named_parameters()["conv1d.weight"];
  const NamedWeights& kernel = var(layers, "layers/conv1d", 0);
  ASSERT_EQ(kernel.shape, (std::vector<int64_t>{3, 3, 4}));
  for (int64_t k = 0; k < 3; ++k)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t o = 0; o < 4; ++o)
        EXPECT_EQ(kernel.values[static_cast<size_t>((k * 3 + i) * 4 + o)], conv[o][i][k].item<float>());
  // Dense: (out, in) as (in, out); its bias as it is.
  const auto dense = model->named_parameters()["dense_1.weight"];
  const NamedWeights& dk = var(layers, "layers/dense_1", 0);
  ASSERT_EQ(dk.shape, (std::vector<int64_t>{5, 2}));
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t o = 0; o < 2; ++o) EXPECT_EQ(dk.values[static_cast<size_t>(i * 2 + o)], dense[o][i].item<float>());
  EXPECT_EQ(var(layers, "layers/dense_1", 1).shape, (std::vector<int64_t>{2}));
}

// Keras flattens (steps, channels); the engine flattens a convolution's output channels first.
// The Dense after it must compute the same in both: Keras' kernel row for (step t, channel c) is
// the engine's column c * steps + t.
TEST(KerasFile, ADenseAfterAChannelsFirstFlattenGetsItsRowsInKerasOrder) {
  const InputSpec input{{5, 2}, false, 0, 2};
  const ModelAnalysis a = analysed(R"([{"type": "Conv1D", "filters": 3, "kernel_size": 2}, {"type": "Flatten"},
      {"type": "Dense", "units": "classes"}])", input);
  auto model = build_model(a);
  const auto dense = model->named_parameters()["dense.weight"];  // (2, 4 steps * 3 channels)
  const auto layers = keras_layer_weights(a, weights_of(model));
  const NamedWeights& k = var(layers, "layers/dense", 0);
  ASSERT_EQ(k.shape, (std::vector<int64_t>{12, 2}));
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t c = 0; c < 3; ++c)
      for (int64_t o = 0; o < 2; ++o)
        EXPECT_EQ(k.values[static_cast<size_t>((t * 3 + c) * 2 + o)], dense[o][c * 4 + t].item<float>()) << t << "," << c;
}

TEST(KerasFile, AMissingOrMisshapenParameterIsNamed) {
  const InputSpec input{{4}, false, 0, 2};
  const ModelAnalysis a = analysed(R"([{"type": "Dense", "units": "classes"}])", input);
  try {
    keras_layer_weights(a, {{"dense.weight", {2, 3}, std::vector<float>(6)}});
    FAIL() << "a (2, 3) weight for a (2, 4) layer was taken";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("dense.weight"), std::string::npos) << e.what();
  }
  EXPECT_THROW(keras_layer_weights(a, {}), std::exception);
}

TEST(KerasFile, TheFileIsAZipOfMetadataConfigAndWeights) {
  const InputSpec input{{4}, false, 0, 2};
  const ModelAnalysis a = analysed(R"([{"type": "Dense", "units": "classes"}])", input);
  auto model = build_model(a);
  const std::string file = keras_model_file(a, input, weights_of(model), "m", "2026-12-07@10:00:00");
  ASSERT_GT(file.size(), 200u);
  EXPECT_EQ(file.substr(0, 4), std::string("PK\x03\x04", 4));
  size_t metadata = file.find("metadata.json"), config = file.find("config.json"), h5 = file.find("model.weights.h5");
  ASSERT_NE(metadata, std::string::npos);
  ASSERT_NE(config, std::string::npos);
  ASSERT_NE(h5, std::string::npos);
  EXPECT_LT(metadata, config);  // Keras' order
  EXPECT_LT(config, h5);
  EXPECT_NE(file.find("\x89HDF\r\n\x1a\n"), std::string::npos);  // the weights are an HDF5 file
  EXPECT_NE(file.find(R"("date_saved":"2026-12-07@10:00:00")"), std::string::npos);
}

// Keras' "same" pooling pads half of what the last window lacks before the input (rounded
// down) and the rest after; LibTorch's ceil mode only lets the last window run past the end.
// Seven steps pooled by 3: Keras' windows are [pad 1 2] [3 4 5] [6 7 pad], not [1 2 3] [4 5 6] [7].
TEST(KerasFile, SamePoolingPadsAsKerasDoes) {
  const InputSpec input{{7, 1}, false, 0, 3};
  const ModelAnalysis a = analysed(R"([{"type": "MaxPooling1D", "pool_size": 3, "padding": "same"}, {"type": "Flatten"}])", input);
  auto model = build_model(a);
  const auto x = torch::arange(1, 8, torch::kFloat32).view({1, 7, 1});
  const auto y = model->forward(x);
  EXPECT_TRUE(torch::equal(y, torch::tensor({{2.0f, 5.0f, 7.0f}}))) << y;
  // Eight steps: one step short, padded after only, as ceil mode does.
  const ModelAnalysis b = analysed(R"([{"type": "MaxPooling1D", "pool_size": 3, "padding": "same"}, {"type": "Flatten"}])",
                                   InputSpec{{8, 1}, false, 0, 3});
  auto m8 = build_model(b);
  EXPECT_TRUE(torch::equal(m8->forward(torch::arange(1, 9, torch::kFloat32).view({1, 8, 1})), torch::tensor({{3.0f, 6.0f, 8.0f}})));
}

namespace {
// `bytes` written to a file of its own under the tests' temporary folder (removed when they end);
// returns its path.
std::string file_of(const std::string& name, const std::string& bytes) {
  static const mirror::testing::TempDir dir;
  const auto path = (dir.path() / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}
}  // namespace

// A .keras file we wrote opens as a model file: the same layers; it is known for one, whose weights
// a run can start from (test_keras_weights.cpp).
TEST(KerasFile, ADotKerasFileOpensAsAModelFile) {
  const InputSpec input{{10}, true, 50, 3};
  const ModelAnalysis a = analysed(R"([{"type": "Embedding", "input_dim": "vocab", "output_dim": 4},
      {"type": "Conv1D", "filters": 6, "kernel_size": 3, "activation": "relu"}, {"type": "MaxPooling1D", "pool_size": 2},
      {"type": "Flatten"}, {"type": "Dropout", "rate": 0.25}, {"type": "Dense", "units": "classes", "activation": "softmax"}])",
                                   input);
  auto model = build_model(a);
  const std::string path = file_of("m.keras", keras_model_file(a, input, weights_of(model), "seed", "2026-12-07@10:00:00"));
  std::vector<std::string> notes;
  const ModelSpec back = load_model_file(path, &notes);
  ASSERT_EQ(back.layers.size(), 6u);
  EXPECT_EQ(back.layers[0].kind, LayerKind::kEmbedding);
  EXPECT_EQ(back.layers[1].units, 6);
  EXPECT_EQ(back.layers[1].activation, Activation::kRelu);
  EXPECT_EQ(back.layers[2].pool, (std::vector<int64_t>{2}));
  EXPECT_DOUBLE_EQ(back.layers[4].rate, 0.25);
  EXPECT_EQ(back.layers[5].units, 3);
  EXPECT_TRUE(is_keras_archive(path));
  EXPECT_FALSE(is_keras_archive(file_of("m.json", "{}")));
  EXPECT_EQ(load_model_file(path).layers.size(), 6u);  // without notes too
}

// What the Keras loader refuses, refused here before anything is inflated: a name that climbs out
// or is absolute, an entry a .keras file does not hold, a symbolic link, too many entries, a
// member larger than allowed; and a zip that is no .keras file at all.
TEST(KerasFile, HostileKerasFilesAreRefusedWithTheReason) {
  const std::string config = R"({"module": "keras", "class_name": "Sequential", "config": {"name": "m", "layers": [
      {"module": "keras.layers", "class_name": "Dense", "config": {"name": "d", "units": 2}}]}})";
  const auto refused = [](const std::string& name, const std::string& bytes, const std::string& reason) {
    try {
      load_model_file(file_of(name, bytes));
      ADD_FAILURE() << name << ": opened";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << name << ": " << e.what();
    }
  };
  EXPECT_EQ(load_model_file(file_of("ok.keras", zip_archive({{"config.json", config}}))).layers.size(), 1u);
  refused("climbs.keras", zip_archive({{"config.json", config}, {"assets/../../evil", "x"}}), "climbs out");
  refused("absolute.keras", zip_archive({{"config.json", config}, {"/etc/evil", "x"}}), "absolute path");
  refused("extra.keras", zip_archive({{"config.json", config}, {"run_me.py", "x"}}), "not one a Keras file holds");
  std::vector<std::pair<std::string, std::string>> many = {{"config.json", config}};
  for (int i = 0; i < 70; ++i) many.push_back({"assets/" + std::to_string(i), ""});
  refused("many.keras", zip_archive(many), "entries");
  refused("huge.keras", zip_archive({{"config.json", std::string(9 << 20, ' ')}}, /*compress=*/true), "more than");
  refused("none.keras", zip_archive({{"metadata.json", "{}"}}), "has no config.json");
  // A symbolic link: the entry's Unix mode in the central directory says S_IFLNK.
  std::string link = zip_archive({{"config.json", config}, {"assets/link", "/etc/passwd"}});
  size_t at = 0, second = std::string::npos;
  for (int n = 0; n < 2; ++n) {
    at = link.find(std::string("PK\x01\x02", 4), n == 0 ? 0 : at + 4);
    second = at;
  }
  ASSERT_NE(second, std::string::npos);
  link[second + 5] = 3;  // made by: Unix
  const uint32_t mode = 0120777u << 16;
  for (int k = 0; k < 4; ++k) link[second + 38 + static_cast<size_t>(k)] = static_cast<char>((mode >> (8 * k)) & 0xff);
  refused("link.keras", link, "symbolic link");
}
