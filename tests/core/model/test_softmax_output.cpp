// A model that ends in softmax, trained by a loss that expects logits: told on import, and the two
// fixes (train on probabilities as Keras' from_logits=False does, or drop the softmax) train.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "mirror/model/builder.h"
#include "mirror/model/keras_import.h"
#include "mirror/model/presets.h"
#include "mirror/model/softmax_output.h"
#include "mirror/train/trainer.h"
#include "points_run.h"
#include "test_fixtures.h"

// In a namespace of its own, so that in a unity build the using-directive does not reach the
// next file (where "testing::" would then be ambiguous).
namespace softmax_output_test {
using namespace mirror;

namespace {
// A Keras 2 Sequential MLP for 2-D points whose output layer is Dense(3, softmax), as most Keras
// users write it.
nlohmann::json keras_softmax_mlp(bool separate_activation) {
  nlohmann::json layers = nlohmann::json::array();
  layers.push_back({{"class_name", "Dense"}, {"config", {{"name", "hidden"}, {"units", 32}, {"activation", "relu"}}}});
  if (separate_activation) {
    layers.push_back({{"class_name", "Dense"}, {"config", {{"name", "scores"}, {"units", 3}, {"activation", "linear"}}}});
    layers.push_back({{"class_name", "Activation"}, {"config", {{"name", "probs"}, {"activation", "softmax"}}}});
  } else {
    layers.push_back({{"class_name", "Dense"}, {"config", {{"name", "output"}, {"units", 3}, {"activation", "softmax"}}}});
  }
  return {{"class_name", "Sequential"}, {"config", {{"name", "keras_mlp"}, {"layers", layers}}}};
}

bool mentions_softmax_twice(const std::vector<std::string>& notes) {
  return std::any_of(notes.begin(), notes.end(),
                     [](const std::string& n) { return n.find("softmax is applied twice") != std::string::npos; });
}

// The spirals MLP ending in softmax, as the tutorial's model does.
ModelSpec softmax_mlp() {
  ModelSpec m = find_preset("spirals-mlp").model;
  m.layers.back().activation = Activation::kSoftmax;
  return m;
}

class LastEpoch : public EventSink {
 public:
  EpochMetrics last;
  void on_epoch(const EpochMetrics& e) override { last = e; }
};

EpochMetrics train(const ModelSpec& model, std::shared_ptr<const Dataset> data) {
  TrainConfig c = mirror::testing::points_run(/*epochs=*/4, /*batch=*/50, /*logical=*/1);
  c.model = model;
  Trainer trainer(std::move(c), std::move(data));
  LastEpoch sink;
  TrainControl control;
  const auto fin = trainer.run(sink, control);
  EXPECT_EQ(fin.status, RunStatus::kFinished) << fin.message;
  return sink.last;
}
}  // namespace

TEST(SoftmaxOutput, AKerasModelEndingInSoftmaxIsImportedAsWrittenAndSaysSo) {
  for (const bool separate : {false, true}) {
    std::vector<std::string> notes;
    const ModelSpec spec = model_from_keras_json(keras_softmax_mlp(separate), &notes);
    EXPECT_TRUE(ends_in_softmax(spec)) << separate;
    EXPECT_TRUE(softmax_applied_twice(spec));
    EXPECT_FALSE(spec.train_on_probabilities);  // the teacher decides; nothing changes silently
    EXPECT_EQ(spec.layers.back().activation, Activation::kSoftmax);
    EXPECT_TRUE(mentions_softmax_twice(notes));
    EXPECT_FALSE(softmax_notice(spec).empty());
  }
  // A model that outputs logits has nothing to say.
  nlohmann::json logits = keras_softmax_mlp(false);
  logits["config"]["layers"][1]["config"]["activation"] = "linear";
  std::vector<std::string> notes;
  const ModelSpec spec = model_from_keras_json(logits, &notes);
  EXPECT_FALSE(ends_in_softmax(spec));
  EXPECT_FALSE(mentions_softmax_twice(notes));
  EXPECT_TRUE(softmax_notice(spec).empty());
  // The tutorial's own model (Keras' file) ends in softmax too; the preset we train does not.
  EXPECT_TRUE(ends_in_softmax(find_preset("seed-reuters-as-published").model));
  EXPECT_FALSE(ends_in_softmax(find_preset("seed-reuters").model));
}

TEST(SoftmaxOutput, TheFixesChangeWhatTheyShouldAndRoundTrip) {
  const ModelSpec dense = model_from_keras_json(keras_softmax_mlp(false));
  const ModelSpec dropped = with_softmax_dropped(dense);
  EXPECT_EQ(dropped.layers.size(), dense.layers.size());
  EXPECT_EQ(dropped.layers.back().activation, Activation::kLinear);
  EXPECT_FALSE(softmax_applied_twice(dropped));

  const ModelSpec separate = model_from_keras_json(keras_softmax_mlp(true));
  const ModelSpec separate_dropped = with_softmax_dropped(separate);
  ASSERT_EQ(separate_dropped.layers.size(), separate.layers.size() - 1);
  EXPECT_EQ(separate_dropped.layers.back().kind, LayerKind::kDense);

  const ModelSpec probs = trained_on_probabilities(dense);
  EXPECT_EQ(to_json(probs).at("layers"), to_json(dense).at("layers"));  // the layers stay as written
  EXPECT_TRUE(ends_in_softmax(probs));
  EXPECT_FALSE(softmax_applied_twice(probs));
  EXPECT_TRUE(softmax_notice(probs).empty());
  // Recorded in run.json's model, and read back.
  EXPECT_EQ(to_json(probs).value("train_on_probabilities", false), true);
  EXPECT_TRUE(model_from_json(to_json(probs)).train_on_probabilities);
  EXPECT_FALSE(to_json(dense).contains("train_on_probabilities"));  // older configs read the same
}

TEST(SoftmaxOutput, TrainingOnProbabilitiesIsKerasLossOnTheModelAsWritten) {
  const InputSpec input{{2}, false, 0, 3};
  const ModelSpec written = softmax_mlp();
  torch::manual_seed(5);
  const auto x = torch::randn({16, 2});
  const auto y = torch::randint(0, 3, {16}, torch::kInt64);
  torch::manual_seed(11);
  auto as_written = build_model(analyze(written, input));
  torch::manual_seed(11);
  auto on_probs = build_model(analyze(trained_on_probabilities(written), input));
  torch::manual_seed(11);
  auto dropped = build_model(analyze(with_softmax_dropped(written), input));
  torch::NoGradGuard no_grad;
  // Larger weights: a confident model, as a trained one is (at the first step every output is
  // near 1/classes, and the two losses nearly agree by accident).
  for (auto* model : {&as_written, &on_probs, &dropped})
    for (auto& w : (*model)->parameters()) w.mul_(4);
  const auto p = as_written->forward(x);  // probabilities
  ASSERT_TRUE(torch::allclose(p.sum(1), torch::ones({16}), 1e-5, 1e-5));
  // Keras' categorical cross-entropy on probabilities: mean -log p(true class).
  const auto keras_loss = -p.gather(1, y.unsqueeze(1)).log().mean();
  const auto engine_loss = [&](const torch::Tensor& out) { return torch::nn::functional::cross_entropy(out, y); };
  EXPECT_NEAR(engine_loss(on_probs->forward(x)).item<double>(), keras_loss.item<double>(), 1e-5);
  EXPECT_NEAR(engine_loss(dropped->forward(x)).item<double>(), keras_loss.item<double>(), 1e-5);
  // As written, the loss takes the probabilities for logits: not Keras' loss.
  EXPECT_GT(std::abs(engine_loss(p).item<double>() - keras_loss.item<double>()), 0.1);
}

TEST(SoftmaxOutput, BothFixesTrainWhileTheModelAsWrittenCannotGetItsLossDown) {
  const auto data = mirror::testing::blobs();
  const EpochMetrics as_written = train(softmax_mlp(), data);
  const EpochMetrics on_probs = train(trained_on_probabilities(softmax_mlp()), data);
  const EpochMetrics dropped = train(with_softmax_dropped(softmax_mlp()), data);
  // Softmax twice: outputs in [0, 1] taken as logits can never give a loss under
  // log(1 + (classes - 1) / e), 0.551 for 3 classes, however right the model is.
  const double floor = std::log(1.0 + 2.0 / std::exp(1.0));
  EXPECT_GT(as_written.loss, floor);
  for (const EpochMetrics* fixed : {&on_probs, &dropped}) {
    EXPECT_LT(fixed->loss, floor);
    EXPECT_GE(fixed->val_accuracy, 0.9);
  }
  // The two fixes are the same loss on the same weights: the same run, up to rounding.
  EXPECT_NEAR(on_probs.loss, dropped.loss, 1e-3);
}

}  // namespace softmax_output_test
