// A new run's folder is named after its model or preset, text we did not write: it stays one
// folder directly inside the runs root whatever the name holds.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "mirror/runs/run_plan.h"
#include "mirror/runs/run_reader.h"
#include "mirror/util/untrusted_text.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::TempDir;

namespace fs = std::filesystem;

namespace {
TrainConfig config_with_model_name(const std::string& model_name) {
  TrainConfig c = config_from_preset("spirals-mlp");
  c.preset.clear();  // the label is the model's name
  c.model.name = model_name;
  return c;
}
}  // namespace

TEST(RunDirName, AModelNameWithTraversalStaysInsideTheRoot) {
  TempDir tmp;
  const fs::path root = tmp.path() / "runs";
  const std::vector<std::string> names = {"../../../../tmp/x", "/etc/cron.d/x", "a/b/c", "..", ".", "", "x\n../y",
                                          std::string(10000, 'n'), std::string(300, '/') + "..", "模型"};
  for (const std::string& name : names) {
    const fs::path dir = plan_run_dir(root.string(), config_with_model_name(name));
    EXPECT_EQ(dir.parent_path(), root) << name;
    const std::string folder = dir.filename().string();
    EXPECT_LE(folder.size(), 16 + kMaxSlugLength) << folder;  // "<yyyymmdd-hhmmss>-" and the slug
    EXPECT_EQ(folder.find('/'), std::string::npos);
    EXPECT_NE(folder.back(), '.') << folder;
  }
  EXPECT_EQ(fs::path(plan_run_dir(root.string(), config_with_model_name("../../../../tmp/x"))).filename().string().substr(16), "tmp-x");
}

TEST(RunDirName, ALabelAndASweepLabelAreSlugsToo) {
  TempDir tmp;
  const fs::path dir = plan_run_dir(tmp.str(), config_with_model_name("m"), "lr=0.1 ../../b");
  EXPECT_EQ(dir.parent_path(), tmp.path());
  EXPECT_EQ(dir.filename().string().substr(16), "lr-0.1-b");
  EXPECT_EQ(fs::path(new_run_dir(tmp.str(), "")).filename().string().substr(16), "run");
}

TEST(RunDirName, ATakenNameGetsANumberInsideTheRoot) {
  TempDir tmp;
  const std::string first = new_run_dir(tmp.str(), "../x");
  fs::create_directories(first);
  const std::string second = new_run_dir(tmp.str(), "../x");
  if (fs::path(second).filename().string().substr(0, 15) == fs::path(first).filename().string().substr(0, 15)) {
    EXPECT_EQ(second, first + "-2");  // the same second: numbered
  }
  EXPECT_EQ(fs::path(second).parent_path(), tmp.path());
}
