// Opening Keras' model.to_json() files: the tutorial's model in Keras 2 and Keras 3 layouts, and
// the refusals that name every layer we cannot take.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

#include "mirror/model/keras_import.h"
#include "mirror/model/presets.h"
#include "mirror/model/shape.h"
#include "mirror/util/error.h"
#include "test_paths.h"

using namespace mirror;

namespace {
nlohmann::json fixture(const std::string& name) {
  std::ifstream in(mirror::testing::fixtures_dir() + "/keras_models/" + name);
  return nlohmann::json::parse(in);
}

// The tutorial as published, with the sizes a Keras file spells out (30980 words, 46 topics).
ModelSpec tutorial_with_sizes() {
  ModelSpec m = find_preset("seed-reuters-as-published").model;
  m.layers.front().input_dim = 30980;
  m.layers.back().units = 46;
  return m;
}

// A Keras 2 Sequential of the given layers ({"class_name", "config"} each).
nlohmann::json sequential(nlohmann::json layers) {
  return {{"class_name", "Sequential"}, {"config", {{"name", "s"}, {"layers", std::move(layers)}}}};
}
}  // namespace

TEST(KerasImport, TheTutorialsModelOpensFromKeras2AndKeras3Files) {
  for (const char* file : {"tutorial_keras2.json", "tutorial_keras3.json"}) {
    std::vector<std::string> notes;
    const ModelSpec spec = model_from_keras_json(fixture(file), &notes);
    const ModelSpec expected = tutorial_with_sizes();
    // Keras' automatic names are the ones we give too, so they are left out: the preset's layers.
    EXPECT_EQ(to_json(spec).at("layers"), to_json(expected).at("layers")) << file;
    EXPECT_EQ(spec.name, "sequential");
    EXPECT_EQ(spec.initializer, "keras") << file;
    ASSERT_FALSE(notes.empty());
    EXPECT_NE(notes.front().find("(None, 300)"), std::string::npos) << notes.front();
    // Keras' default initialisers are what "keras" reproduces: not reported as lost.
    for (const auto& n : notes) EXPECT_EQ(n.find("initializer'"), std::string::npos) << n;
    EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
      return n.find("the sizes of 'embedding' (Embedding) and 'dense' (Dense) are the file's numbers") != std::string::npos;
    }));
    // On the data it was written for, it analyses to the tutorial's 2,336 flattened features,
    // under Keras' names.
    const auto a = analyze(spec, InputSpec{{300}, true, 30980, 46});
    ASSERT_TRUE(a.ok()) << a.describe_errors();
    EXPECT_EQ(a.layers[5].output_shape, (std::vector<int64_t>{2336}));
    EXPECT_EQ(a.layers[3].name, "conv1d_1");
  }
}

TEST(KerasImport, ModelFilesOfEitherKindOpenThroughTheSameReader) {
  EXPECT_EQ(to_json(model_from_json(fixture("tutorial_keras2.json"))), to_json(model_from_keras_json(fixture("tutorial_keras2.json"))));
  EXPECT_EQ(to_json(load_model_file(mirror::testing::fixtures_dir() + "/keras_models/tutorial_keras3.json")).at("layers").size(), 7u);
}

TEST(KerasImport, NamesOfTheirOwnAreKeptAndAutomaticOnesLeftToUs) {
  const auto spec = model_from_keras_json(sequential({
      {{"class_name", "Dense"}, {"config", {{"name", "dense"}, {"units", 8}}}},
      {{"class_name", "Dense"}, {"config", {{"name", "hidden"}, {"units", 8}}}},
      {{"class_name", "Dense"}, {"config", {{"name", "dense_1"}, {"units", 8}}}},
      {{"class_name", "Dense"}, {"config", {{"name", "dense_5"}, {"units", 3}}}},
  }));
  const auto a = analyze(spec, InputSpec{{2}, false, 0, 3});
  ASSERT_TRUE(a.ok()) << a.describe_errors();
  EXPECT_EQ(spec.layers[0].name, "");
  EXPECT_EQ(spec.layers[1].name, "hidden");
  EXPECT_EQ(spec.layers[2].name, "");
  EXPECT_EQ(spec.layers[3].name, "dense_5");
  std::vector<std::string> names;
  for (const auto& r : a.layers) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"dense", "hidden", "dense_1", "dense_5"}));
}

TEST(KerasImport, EveryLayerThatCannotBeOpenedIsNamedInOneMessage) {
  const auto j = sequential({
      {{"class_name", "Dense"}, {"config", {{"name", "d0"}, {"units", 8}, {"activation", "relu"}}}},
      {{"class_name", "BatchNormalization"}, {"config", {{"name", "bn"}}}},
      {{"class_name", "Conv1D"}, {"config", {{"name", "dilated"}, {"filters", 4}, {"kernel_size", {3}}, {"dilation_rate", {2}}}}},
      {{"class_name", "Dense"}, {"config", {{"name", "d1"}, {"units", 3}, {"activation", "swish"}}}},
      {{"class_name", "LSTM"}, {"config", {{"name", "lstm"}, {"units", 3}}}},
  });
  try {
    model_from_keras_json(j);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("4 of its layers"), std::string::npos) << m;
    EXPECT_NE(m.find("layer 2 'bn' (BatchNormalization)"), std::string::npos) << m;
    EXPECT_NE(m.find("layer 3 'dilated' (Conv1D) with dilation_rate [2]"), std::string::npos) << m;
    EXPECT_NE(m.find("layer 4 'd1' (Dense): unknown activation 'swish'"), std::string::npos) << m;
    EXPECT_NE(m.find("layer 5 'lstm' (LSTM)"), std::string::npos) << m;
    EXPECT_EQ(m.find("'d0'"), std::string::npos) << m;
    EXPECT_NE(m.find("Supported: Embedding"), std::string::npos) << m;
  }
}

TEST(KerasImport, SettingsThatChangeTheComputationAreRefusedAndTrainingOnlyOnesAreNoted) {
  auto one = [](nlohmann::json layer) { return sequential({std::move(layer)}); };
  EXPECT_THROW(model_from_keras_json(one({{"class_name", "Conv2D"},
                                          {"config", {{"filters", 2}, {"kernel_size", {3, 3}}, {"data_format", "channels_first"}}}})),
               ConfigError);
  EXPECT_THROW(model_from_keras_json(one({{"class_name", "GlobalAveragePooling1D"}, {"config", {{"keepdims", true}}}})),
               ConfigError);
  EXPECT_THROW(model_from_keras_json(one({{"class_name", "Conv1D"}, {"config", {{"filters", 2}, {"kernel_size", 3}, {"groups", 2}}}})),
               ConfigError);
  std::vector<std::string> notes;
  const auto spec = model_from_keras_json(
      one({{"class_name", "Dense"},
           {"config", {{"units", 4}, {"kernel_regularizer", {{"class_name", "L2"}, {"config", {{"l2", 0.01}}}}},
                       {"kernel_initializer", {{"class_name", "HeNormal"}, {"config", nlohmann::json::object()}}}}}}),
      &notes);
  EXPECT_EQ(spec.layers.at(0).units, 4);
  auto said = [&](const std::string& s) {
    for (const auto& n : notes)
      if (n.find(s) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(said("'kernel_regularizer' is not imported"));
  EXPECT_TRUE(said("'kernel_initializer' is not imported"));
}

TEST(KerasImport, OtherModelsAndMalformedFilesSayWhatIsWrong) {
  auto message = [](const nlohmann::json& j) {
    try {
      model_from_keras_json(j);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"class_name", "Functional"}, {"config", nlohmann::json::object()}}).find("only Sequential"), std::string::npos);
  EXPECT_NE(message({{"class_name", "Sequential"}, {"config", {{"name", "x"}}}}).find("no \"layers\""), std::string::npos);
  EXPECT_NE(message(sequential({42})).find("layer 1: not a layer"), std::string::npos);
  EXPECT_NE(message(sequential(nlohmann::json::array())).find("no layers"), std::string::npos);
  // Keras 2.0's Sequential config was the layer list itself.
  const nlohmann::json old = {{"class_name", "Sequential"},
                              {"config", {{{"class_name", "Dense"}, {"config", {{"units", 3}, {"activation", "softmax"}}}}}}};
  EXPECT_EQ(model_from_keras_json(old).layers.at(0).activation, Activation::kSoftmax);
}
