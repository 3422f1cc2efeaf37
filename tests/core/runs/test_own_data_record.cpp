// A run on the user's own data records where it was read, the file count and the content hash;
// the comparison says whether two runs saw the same data; a lesson file's relative data folder
// is relative to the lesson's folder.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>

#include "mirror/data/dataset_registry.h"
#include "mirror/runs/compare.h"
#include "mirror/runs/lesson.h"
#include "mirror/runs/recorded_run.h"
#include "mirror/runs/run_reader.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::TempDir;
using mirror::testing::write_file;

namespace {
// Two classes of points either side of the line x = y, as a CSV file.
std::string own_data_points(int rows, double shift = 0) {
  std::string csv = "x,y,side\n";
  for (int i = 0; i < rows; ++i) {
    const double x = std::sin(i * 1.7) + shift, y = std::cos(i * 2.3);
    csv += fmt::format("{:.4f},{:.4f},{}\n", x, y, x > y ? "above" : "below");
  }
  return csv;
}

TrainConfig own_data_run(const std::string& file) {
  TrainConfig c = config_from_preset("spirals-mlp");
  c.dataset.name = "table";
  c.dataset.data_dir = file;
  c.epochs = 1;
  c.batch_size = 20;
  c.devices.logical = 1;
  return c;
}

RunRecord train_own_data_run(const TrainConfig& c, const std::string& dir) {
  RunPlan plan;
  plan.config = c;
  plan.dir = dir;
  RecordedRun run(plan);
  EventSink quiet;
  TrainControl control;
  const RunFinished fin = run.run(quiet, control);
  EXPECT_EQ(fin.status, RunStatus::kFinished) << fin.message;
  return read_run(dir);
}
}  // namespace

TEST(OwnDataRecord, ARunRecordsItsFileAndTheComparisonTellsSameDataFromDifferent) {
#ifndef MIRROR_WITH_DOWNLOADS
  GTEST_SKIP() << "this build cannot compute a file's SHA-256 (configured with MIRROR_WITH_DOWNLOADS=OFF)";
#endif
  TempDir tmp;
  write_file(tmp / "points.csv", own_data_points(100));
  write_file(tmp / "shifted.csv", own_data_points(100, 0.5));
  const RunRecord a = train_own_data_run(own_data_run(tmp / "points.csv"), tmp / "a");
  const RecordedData data = a.data();
  EXPECT_EQ(data.data_dir, tmp / "points.csv");
  EXPECT_EQ(data.file_count, 1);
  EXPECT_EQ(data.content_hash.size(), 64u);
  EXPECT_EQ(a.class_names(), (std::vector<std::string>{"above", "below"}));
  TrainConfig again = own_data_run(tmp / "points.csv");
  again.optimizer.learning_rate = 0.05;
  const RunRecord b = train_own_data_run(again, tmp / "b");
  const RunRecord c = train_own_data_run(own_data_run(tmp / "shifted.csv"), tmp / "c");
  EXPECT_EQ(b.data().content_hash, data.content_hash);
  EXPECT_NE(c.data().content_hash, data.content_hash);

  const ComparisonTable same = comparison_table({a, b});
  ASSERT_NE(std::find(same.header.begin(), same.header.end(), "data"), same.header.end());
  EXPECT_EQ(same.same_data, fmt::format("Every run saw the same data: 1 file, content hash {}.", data.content_hash.substr(0, 12)));
  const ComparisonTable differ = comparison_table({a, b, c});
  EXPECT_EQ(differ.same_data, fmt::format("The runs saw different data: {} (a, b); {} (c).", data.content_hash.substr(0, 12),
                                          c.data().content_hash.substr(0, 12)));
  const size_t column = static_cast<size_t>(std::find(differ.header.begin(), differ.header.end(), "data") - differ.header.begin());
  EXPECT_EQ(differ.rows[0][column], data.content_hash.substr(0, 12));
  EXPECT_EQ(differ.rows[2][column], c.data().content_hash.substr(0, 12));

  // Built-in data records no hash: no column, no sentence; beside own data, it is named.
  RunRecord builtin;
  builtin.name = "spirals";
  EXPECT_TRUE(builtin.data().content_hash.empty());
  EXPECT_TRUE(comparison_table({builtin, builtin}).same_data.empty());
  const std::string mixed = same_data_in_words({a, builtin});
  EXPECT_NE(mixed.find("a saw the same data"), std::string::npos) << mixed;
  EXPECT_NE(mixed.find("No content hash for spirals"), std::string::npos) << mixed;
}

TEST(OwnDataRecord, ALessonFilesRelativeDataFolderIsRelativeToTheLessonsFolder) {
  TempDir tmp;
  std::filesystem::create_directories(tmp.path() / "class" / "data");
  write_file(tmp.path() / "class" / "data" / "points.csv", own_data_points(50));
  const nlohmann::json lesson = {
      {"title", "My points"},
      {"text", {"Points a line can separate."}},
      {"runs", {{{"label", "mine"}, {"preset", "spirals-mlp"},
                 {"set", {{"dataset.name", "table"}, {"dataset.data_dir", "data/points.csv"}}}},
                {{"label", "absolute"}, {"preset", "spirals-mlp"},
                 {"set", {{"dataset.name", "table"}, {"dataset.data_dir", "/elsewhere/p.csv"}}}}}},
      {"if_missing", {{"table", {{"dataset.data_dir", "../spare.csv"}}}}}};
  write_file(tmp.path() / "class" / "points.json", lesson.dump());
  const Lesson l = read_lesson_file((tmp.path() / "class" / "points.json").string());
  EXPECT_EQ(l.runs[0].set["dataset.data_dir"], (tmp.path() / "class" / "data" / "points.csv").string());
  EXPECT_EQ(l.runs[1].set["dataset.data_dir"], "/elsewhere/p.csv");
  EXPECT_EQ(l.if_missing["table"]["dataset.data_dir"], (tmp.path() / "spare.csv").string());
  // Planned from another working folder, the run still finds the file.
  const LessonPlan plan = plan_lesson(l, /*max_steps=*/2);
  ASSERT_EQ(plan.points.size(), 2u);
  EXPECT_EQ(plan.points[0].config.dataset.data_dir, (tmp.path() / "class" / "data" / "points.csv").string());
  EXPECT_TRUE(dataset_present(plan.points[0].config.dataset));
}

namespace {
// Works in `dir` until it goes out of scope.
class WorkingFolder {
 public:
  explicit WorkingFolder(const std::filesystem::path& dir) : before_(std::filesystem::current_path()) {
    std::filesystem::current_path(dir);
  }
  ~WorkingFolder() { std::filesystem::current_path(before_); }

 private:
  std::filesystem::path before_;
};

// Continues the run in `dir` to epoch 2; the finished run it leaves.
RunFinished resume_to_epoch_2(const std::string& dir, bool accept_changed_data = false) {
  ResumeOptions o;
  o.epochs = 2;
  o.accept_changed_data = accept_changed_data;
  auto run = RecordedRun::resume(dir, o);
  EventSink quiet;
  TrainControl control;
  return run->run(quiet, control);
}
}  // namespace

TEST(OwnDataRecord, AResumedRunReadsTheFileItRecordedWhereverItIsResumedFrom) {
#ifndef MIRROR_WITH_DOWNLOADS
  GTEST_SKIP() << "this build cannot compute a file's SHA-256 (configured with MIRROR_WITH_DOWNLOADS=OFF)";
#endif
  TempDir tmp;
  std::filesystem::create_directories(tmp.path() / "class");
  std::filesystem::create_directories(tmp.path() / "elsewhere");
  write_file(tmp.path() / "class" / "points.csv", own_data_points(100));
  // Another points.csv where the run is resumed from: a relative path would read it.
  write_file(tmp.path() / "elsewhere" / "points.csv", own_data_points(60, 0.5));
  const std::string dir = (tmp.path() / "run").string();
  {
    WorkingFolder in(tmp.path() / "class");
    train_own_data_run(own_data_run("points.csv"), dir);
  }
  const std::string hash = read_run(dir).data().content_hash;
  WorkingFolder in(tmp.path() / "elsewhere");
  const RunFinished fin = resume_to_epoch_2(dir);
  ASSERT_EQ(fin.status, RunStatus::kFinished) << fin.message;
  EXPECT_EQ(fin.steps, 8);  // 2 epochs of the recorded file's 80 training rows at batch 20 (7 with the 48 here)
  const RunRecord r = read_run(dir);
  EXPECT_EQ(r.data().content_hash, hash);
  EXPECT_FALSE(r.run.contains("data_changes"));
}

TEST(OwnDataRecord, ResumingOnChangedDataIsRefusedWithBothFiguresUnlessAccepted) {
#ifndef MIRROR_WITH_DOWNLOADS
  GTEST_SKIP() << "this build cannot compute a file's SHA-256 (configured with MIRROR_WITH_DOWNLOADS=OFF)";
#endif
  TempDir tmp;
  write_file(tmp / "points.csv", own_data_points(100));
  const std::string dir = tmp / "run";
  const std::string before = train_own_data_run(own_data_run(tmp / "points.csv"), dir).data().content_hash;
  write_file(tmp / "points.csv", own_data_points(100, 0.25));  // the same rows and classes, other values
  const std::string refused = mirror::testing::error_of<ConfigError>([&] { resume_to_epoch_2(dir); });
  EXPECT_NE(refused.find("its data changed"), std::string::npos) << refused;
  EXPECT_NE(refused.find(before.substr(0, 12)), std::string::npos) << refused;
  EXPECT_NE(refused.find("1 file"), std::string::npos) << refused;
  EXPECT_NE(refused.find("--accept-changed-data"), std::string::npos) << refused;
  const RunRecord untouched = read_run(dir);  // the refusal wrote nothing
  EXPECT_EQ(untouched.status, "finished");
  EXPECT_EQ(untouched.data().content_hash, before);
  EXPECT_EQ(untouched.steps.size(), 4u);

  const RunFinished fin = resume_to_epoch_2(dir, /*accept_changed_data=*/true);
  ASSERT_EQ(fin.status, RunStatus::kFinished) << fin.message;
  const RunRecord r = read_run(dir);
  const std::string after = r.data().content_hash;
  EXPECT_NE(after, before);
  EXPECT_NE(refused.find(after.substr(0, 12)), std::string::npos) << refused;  // the refusal named both
  ASSERT_TRUE(r.run.contains("data_changes"));
  ASSERT_EQ(r.run["data_changes"].size(), 1u);
  const nlohmann::json& change = r.run["data_changes"][0];
  EXPECT_EQ(change["from_step"], 4);
  EXPECT_EQ(change["before"]["content_hash"], before);
  EXPECT_EQ(change["after"]["content_hash"], after);
  EXPECT_EQ(r.steps.size(), 8u);
}
