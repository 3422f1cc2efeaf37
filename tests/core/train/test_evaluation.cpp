#include <gtest/gtest.h>
#include <torch/torch.h>

#include "mirror/data/batch.h"
#include "mirror/train/evaluation.h"
#include "mirror/train/trainer.h"
#include "points_run.h"
#include "test_fixtures.h"

using namespace mirror;

namespace {
// Keeps every evaluation and where it came among the other events.
class EvaluationRecorder : public EventSink {
 public:
  std::vector<Evaluation> evaluations;
  std::vector<EpochMetrics> epochs;
  std::vector<std::string> order;
  void on_evaluation(const Evaluation& e) override {
    order.push_back("evaluation");
    evaluations.push_back(e);
  }
  void on_epoch(const EpochMetrics& e) override {
    order.push_back("epoch");
    epochs.push_back(e);
  }
};

EvaluationRecorder train_and_record(TrainConfig config, std::shared_ptr<const Dataset> data) {
  Trainer trainer(std::move(config), std::move(data));
  EvaluationRecorder rec;
  TrainControl control;
  const auto fin = trainer.run(rec, control);
  EXPECT_EQ(fin.status, RunStatus::kFinished) << fin.message;
  return rec;
}

TrainConfig points_config(int logical) { return mirror::testing::points_run(/*epochs=*/2, /*batch=*/50, logical); }

TopPredictions top_of(int k, std::vector<int32_t> classes) {
  TopPredictions t;
  t.k = k;
  t.probabilities.assign(classes.size(), 0.5f);
  t.classes = std::move(classes);
  return t;
}
}  // namespace

TEST(Evaluation, EveryValidationComesJustBeforeItsEpochAndAgreesWithItsAccuracy) {
  const auto data = mirror::testing::blobs();
  const auto rec = train_and_record(points_config(2), data);
  ASSERT_EQ(rec.evaluations.size(), 2u);
  EXPECT_EQ(rec.order, (std::vector<std::string>{"evaluation", "epoch", "evaluation", "epoch"}));
  for (size_t i = 0; i < rec.evaluations.size(); ++i) {
    const Evaluation& ev = rec.evaluations[i];
    EXPECT_EQ(ev.epoch, rec.epochs[i].epoch);
    EXPECT_EQ(ev.global_step, rec.epochs[i].global_step);
    EXPECT_EQ(ev.classes, 3);
    EXPECT_EQ(ev.total(), data->size(Split::kValidation));
    // The diagonal is the validation's hits: the same count the epoch's accuracy was made from.
    EXPECT_EQ(static_cast<double>(ev.correct()) / static_cast<double>(ev.total()), rec.epochs[i].val_accuracy);
    const auto counts = data->class_counts(Split::kValidation);
    for (int64_t c = 0; c < 3; ++c) EXPECT_EQ(ev.label_total(c), counts[static_cast<size_t>(c)]);
  }
}

TEST(Evaluation, KeepsTheFirstExamplesOfEveryCellWithTheirTrueClasses) {
  const auto data = mirror::testing::small_text();
  TrainConfig c;
  c.model = mirror::testing::small_text_model();
  c.dataset.name = "synthetic-text";
  c.epochs = 1;
  c.batch_size = 60;
  c.devices.logical = 2;
  const auto rec = train_and_record(c, data);
  ASSERT_EQ(rec.evaluations.size(), 1u);
  const Evaluation& ev = rec.evaluations[0];
  const auto y = data->slice(Split::kValidation, 0, data->size(Split::kValidation)).y;
  int64_t cells = 0;
  for (int64_t t = 0; t < ev.classes; ++t)
    for (int64_t p = 0; p < ev.classes; ++p) {
      const auto kept = ev.examples_in(t, p);
      EXPECT_EQ(static_cast<int64_t>(kept.size()), std::min<int64_t>(ev.count(t, p), kExamplesPerCell));
      cells += ev.count(t, p) > 0;
      for (size_t i = 0; i < kept.size(); ++i) {
        EXPECT_EQ(kept[i]->label, y[kept[i]->index].item<int64_t>());
        if (i > 0) {
          EXPECT_LT(kept[i - 1]->index, kept[i]->index);
        }
      }
    }
  EXPECT_GT(cells, 0);
  for (const auto& e : ev.examples) {
    ASSERT_EQ(e.classes.size(), 5u);  // top-5 of 5 classes
    float sum = 0;
    for (size_t i = 0; i < e.probabilities.size(); ++i) {
      sum += e.probabilities[i];
      if (i > 0) {
        EXPECT_GE(e.probabilities[i - 1], e.probabilities[i]);
      }
    }
    EXPECT_NEAR(sum, 1.0f, 1e-4f);  // every class is among the five
  }
  EXPECT_TRUE(ev.regions.empty());  // token inputs have no plane
}

TEST(Evaluation, ThreeReplicasWithUnevenShardsSeeWhatOneReplicaSees) {
  const auto data = mirror::testing::blobs();  // 200 validation points: shards of 67, 67 and 66
  const auto one = train_and_record(points_config(1), data);
  const auto three = train_and_record(points_config(3), data);
  ASSERT_EQ(one.evaluations.size(), three.evaluations.size());
  const Evaluation& a = one.evaluations.back();
  const Evaluation& b = three.evaluations.back();
  EXPECT_EQ(a.confusion, b.confusion);
  ASSERT_EQ(a.examples.size(), b.examples.size());
  for (size_t i = 0; i < a.examples.size(); ++i) {
    EXPECT_EQ(a.examples[i].index, b.examples[i].index);
    EXPECT_EQ(a.examples[i].classes, b.examples[i].classes);
    for (size_t k = 0; k < a.examples[i].probabilities.size(); ++k)
      EXPECT_NEAR(a.examples[i].probabilities[k], b.examples[i].probabilities[k], 1e-5);
  }
}

TEST(Evaluation, PointsGetDecisionRegionsThatAgreeWithTheModelOnTheirCells) {
  const auto data = mirror::testing::blobs();
  TrainConfig c = points_config(1);
  c.epochs = 3;
  Trainer trainer(c, data);
  EvaluationRecorder rec;
  TrainControl control;
  ASSERT_EQ(trainer.run(rec, control).status, RunStatus::kFinished);
  const DecisionRegions& r = rec.evaluations.back().regions;
  ASSERT_EQ(r.columns, kRegionGrid);
  ASSERT_EQ(r.rows, kRegionGrid);
  ASSERT_EQ(r.classes.size(), static_cast<size_t>(kRegionGrid * kRegionGrid));
  // The plane covers every training point.
  const auto x = data->slice(Split::kTrain, 0, data->size(Split::kTrain)).x;
  EXPECT_LT(r.x_min, x.select(1, 0).min().item<double>());
  EXPECT_GT(r.x_max, x.select(1, 0).max().item<double>());
  EXPECT_LT(r.y_min, x.select(1, 1).min().item<double>());
  EXPECT_GT(r.y_max, x.select(1, 1).max().item<double>());
  // Cell (c, r)'s class is the model's prediction at the cell's centre: ask the trained model.
  for (const auto& [col, row] : {std::pair{0, 0}, std::pair{63, 0}, std::pair{20, 41}, std::pair{63, 63}}) {
    const double px = r.x_min + (col + 0.5) * (r.x_max - r.x_min) / r.columns;
    const double py = r.y_min + (row + 0.5) * (r.y_max - r.y_min) / r.rows;
    const auto probs = trainer.strategy().predict(torch::tensor({{static_cast<float>(px), static_cast<float>(py)}}));
    const auto cell = static_cast<size_t>(row * r.columns + col);
    EXPECT_EQ(r.classes[cell], probs.argmax(1).item<int64_t>()) << col << "," << row;
    EXPECT_NEAR(r.confidence[cell], probs.max().item<float>(), 1e-5);
  }
  // Three well-separated blobs: every class owns part of the plane.
  for (int32_t k = 0; k < 3; ++k) EXPECT_NE(std::find(r.classes.begin(), r.classes.end(), k), r.classes.end()) << k;
}

TEST(Evaluation, MostConfusedPairsComeLargestFirstAndLeaveTheDiagonalOut) {
  EvaluationBuilder b(3);
  // true:      0  0  0  1  1  1  1  2  2  2
  // predicted: 0  1  1  2  2  2  1  2  0  0
  const std::vector<int64_t> labels = {0, 0, 0, 1, 1, 1, 1, 2, 2, 2};
  b.add(labels.data(), 10, top_of(1, {0, 1, 1, 2, 2, 2, 1, 2, 0, 0}));
  const Evaluation ev = std::move(b).finish(1, 7);
  EXPECT_EQ(ev.total(), 10);
  EXPECT_EQ(ev.correct(), 3);
  EXPECT_DOUBLE_EQ(ev.class_accuracy(1), 0.25);
  const auto pairs = ev.most_confused(2);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].label, 1);
  EXPECT_EQ(pairs[0].predicted, 2);
  EXPECT_EQ(pairs[0].count, 3);
  EXPECT_EQ(pairs[1].count, 2);  // 0 as 1 and 2 as 0 tie: the smaller true class first
  EXPECT_EQ(pairs[1].label, 0);
  EXPECT_EQ(ev.examples_in(1, 2).size(), 3u);
  EXPECT_EQ(ev.examples_in(1, 2)[0]->index, 3);
}

TEST(Evaluation, AClassWithoutExamplesHasNoAccuracyAndBadPredictionsAreRefused) {
  EvaluationBuilder b(4);
  const std::vector<int64_t> labels = {0, 1};
  b.add(labels.data(), 2, top_of(1, {0, 0}));
  EXPECT_THROW(b.add(labels.data(), 2, top_of(1, {0})), std::invalid_argument);      // one prediction for two
  EXPECT_THROW(b.add(labels.data(), 2, top_of(1, {0, 4})), std::invalid_argument);   // class 4 of 4
  const Evaluation ev = std::move(b).finish(1, 1);
  EXPECT_EQ(ev.class_accuracy(3), -1.0);
  EXPECT_EQ(ev.class_accuracy(1), 0.0);
  EXPECT_THROW(EvaluationBuilder(0), std::invalid_argument);
}

TEST(Evaluation, ABadBatchLeavesTheEvaluationAsItWas) {
  EvaluationBuilder b(2);
  const std::vector<int64_t> labels = {0, 1};
  EXPECT_THROW(b.add(labels.data(), 2, top_of(1, {0, 2})), std::invalid_argument);
  EXPECT_EQ(b.seen(), 0);
  EXPECT_EQ(std::move(b).finish(1, 1).total(), 0);
}

TEST(Evaluation, MoreClassesThanTheReaderTakesAreValidatedButNotRecordedAsAnEvaluation) {
  const auto blobs = mirror::testing::blobs();
  DatasetInfo info = blobs->info();
  info.num_classes = kMaxEvaluationClasses + 1;  // the labels stay 0-2: the model's output grows
  info.class_names.clear();
  const auto many = std::make_shared<const Dataset>(
      info, blobs->slice(Split::kTrain, 0, 100).x, blobs->slice(Split::kTrain, 0, 100).y,
      blobs->slice(Split::kValidation, 0, 50).x, blobs->slice(Split::kValidation, 0, 50).y);
  TrainConfig c = points_config(1);
  c.epochs = 1;
  const auto rec = train_and_record(c, many);
  ASSERT_EQ(rec.epochs.size(), 1u);
  EXPECT_TRUE(rec.epochs[0].has_validation);
  EXPECT_TRUE(rec.evaluations.empty());
}
