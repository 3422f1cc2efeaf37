#include <gtest/gtest.h>

#include <fstream>

#include "mirror/runs/evaluations.h"
#include "mirror/runs/run_writer.h"
#include "mirror/util/error.h"
#include "mirror/util/json_file.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::TempDir;

namespace {
Evaluation two_class_evaluation(int epoch, int64_t step) {
  Evaluation e;
  e.epoch = epoch;
  e.global_step = step;
  e.classes = 2;
  e.confusion = {5, 1, 2, 7};
  e.examples = {{0, 0, {0, 1}, {0.875f, 0.125f}}, {3, 1, {0, 1}, {0.6f, 0.4f}}};
  e.regions.columns = 2;
  e.regions.rows = 1;
  e.regions.x_min = -1;
  e.regions.x_max = 1;
  e.regions.y_min = -2;
  e.regions.y_max = 2;
  e.regions.classes = {0, 1};
  e.regions.confidence = {0.5f, 1.0f};
  return e;
}

std::string evaluation_error(const std::function<void(nlohmann::json&)>& damage) {
  nlohmann::json j = to_json(two_class_evaluation(1, 4));
  damage(j);
  return mirror::testing::data_error([&] { evaluation_from_json(j); });
}

void write_lines(const std::string& path, const std::vector<std::string>& lines, const std::string& tail = "") {
  std::ofstream out(path);
  for (const auto& l : lines) out << l << '\n';
  out << tail;
}
}  // namespace

TEST(Evaluations, AnEvaluationReadsBackAsItWasWritten) {
  const Evaluation e = two_class_evaluation(3, 12);
  const Evaluation back = evaluation_from_json(nlohmann::json::parse(to_json(e).dump()));
  EXPECT_EQ(back.epoch, 3);
  EXPECT_EQ(back.global_step, 12);
  EXPECT_EQ(back.confusion, e.confusion);
  ASSERT_EQ(back.examples.size(), 2u);
  EXPECT_EQ(back.examples[1].index, 3);
  EXPECT_EQ(back.examples[1].classes, (std::vector<int64_t>{0, 1}));
  EXPECT_FLOAT_EQ(back.examples[0].probabilities[0], 0.875f);
  EXPECT_EQ(back.regions.classes, e.regions.classes);
  EXPECT_EQ(back.regions.confidence, e.regions.confidence);
  EXPECT_EQ(back.regions.y_max, 2);
  Evaluation flat = e;
  flat.regions = {};
  EXPECT_TRUE(evaluation_from_json(to_json(flat)).regions.empty());
}

TEST(Evaluations, ADamagedEvaluationIsRefusedNamingWhatIsWrong) {
  EXPECT_NE(evaluation_error([](auto& j) { j.erase("confusion"); }).find("'confusion' is missing"), std::string::npos);
  EXPECT_NE(evaluation_error([](auto& j) { j["confusion"][1] = {1}; }).find("not 2 counts"), std::string::npos);
  EXPECT_NE(evaluation_error([](auto& j) { j["confusion"][0][0] = -1; }).find("outside"), std::string::npos);
  EXPECT_NE(evaluation_error([](auto& j) { j["classes"] = 0; }).find("'classes' holds 0"), std::string::npos);
  EXPECT_NE(evaluation_error([](auto& j) { j["examples"][0]["label"] = 2; }).find("'label' holds 2"), std::string::npos);
  EXPECT_NE(evaluation_error([](auto& j) { j["examples"][0]["probabilities"] = {0.5}; }).find("2 classes and 1"),
            std::string::npos);
  EXPECT_NE(evaluation_error([](auto& j) { j["examples"][0]["probabilities"][0] = 1.5; }).find("not a probability"),
            std::string::npos);
  EXPECT_NE(evaluation_error([](auto& j) { j["regions"]["classes"] = {0}; }).find("for 2 cells"), std::string::npos);
  EXPECT_NE(evaluation_error([](auto& j) { j["regions"]["x_max"] = -5; }).find("plane is empty"), std::string::npos);
  EXPECT_NE(evaluation_error([](auto& j) { j["regions"]["classes"][0] = 9; }).find("regions.classes"), std::string::npos);
  EXPECT_NE(evaluation_error([](auto& j) { j = nlohmann::json::array(); }).find("not an object"), std::string::npos);
}

TEST(Evaluations, TheReaderKeepsOneEvaluationPerEpochDropsWhatAResumeRedidAndSkipsDamage) {
  TempDir tmp;
  const auto line = [](int epoch, int64_t step) { return to_json(two_class_evaluation(epoch, step)).dump(); };
  // Epochs 1-3 recorded; the run resumed from step 8 (the end of epoch 2), redid epoch 3 and went
  // on to epoch 4. A line in between was cut by a kill, and the last one is still being written.
  write_lines(tmp / kEvaluationsFile,
              {line(1, 4), line(2, 8), "{\"type\":\"evaluation\",\"epo", line(3, 12),
               R"({"type":"resumed","global_step":8})", line(3, 12), line(4, 16)},
              line(5, 20).substr(0, 30));
  std::vector<std::string> warnings;
  const auto evs = read_evaluations(tmp.str(), &warnings);
  ASSERT_EQ(evs.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(evs[static_cast<size_t>(i)].epoch, i + 1);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("line 3 skipped"), std::string::npos);
  EXPECT_NE(warnings[1].find("line 8 skipped"), std::string::npos);
  EXPECT_TRUE(read_evaluations(tmp / "no-such-run").empty());
}

TEST(Evaluations, AResumedWriterMarksWhereItResumed) {
  TempDir tmp;
  const std::string dir = tmp / "run";
  {
    RunWriter w(dir, nlohmann::json::object());
    w.on_evaluation(two_class_evaluation(1, 4));
    w.on_evaluation(two_class_evaluation(2, 8));
  }
  // Resumed from the end of epoch 1 and stopped before the next validation: epoch 2 is gone.
  RunWriter::resume(dir, 4);
  ASSERT_EQ(read_evaluations(dir).size(), 1u);
  {
    const auto w = RunWriter::resume(dir, 4);
    w->on_evaluation(two_class_evaluation(2, 8));
  }
  const auto evs = read_evaluations(dir);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[1].global_step, 8);
}

TEST(Evaluations, MoreClassesThanAnEvaluationMayHaveOrALineTooLongIsSkippedUnbuilt) {
  TempDir tmp;
  // 3,000 classes: 18 MB of counts that took 400 MB to read. Refused naming the field.
  nlohmann::json many = to_json(two_class_evaluation(1, 4));
  many["classes"] = 3000;
  const std::string too_long(kEvaluationLineJson.max_bytes + 1, ' ');
  write_lines(tmp / kEvaluationsFile, {many.dump(), too_long, to_json(two_class_evaluation(2, 8)).dump()});
  std::vector<std::string> warnings;
  const auto evs = read_evaluations(tmp.str(), &warnings);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].epoch, 2);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("line 1 skipped: not a valid evaluation: 'classes' holds 3000, outside [1, 1000]"),
            std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("line 2 skipped: the line is longer than an evaluation line may be (at most 16 MiB)"),
            std::string::npos) << warnings[1];
}
