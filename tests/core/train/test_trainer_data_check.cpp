// Worker processes each load the data themselves: the trainer has every rank compare what it
// loaded (sizes, shape, files, content hash) before training, as it compares the config.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>
#include <memory>

#include "mirror/data/dataset.h"
#include "mirror/strategy/workers.h"
#include "mirror/train/trainer.h"
#include "test_helpers.h"

using namespace mirror;

namespace {
// Rank 1 of 2, whose check_same records what it was given and refuses `refuse` as a real group
// would when rank 0's text differs.
class RecordingGroup : public WorkerGroup {
 public:
  explicit RecordingGroup(std::string refuse) : refuse_(std::move(refuse)) {
    env_.rank = 1;
    env_.world_size = 2;
  }
  const WorkerEnv& env() const override { return env_; }
  const std::vector<std::string>& hosts() const override { return hosts_; }
  std::shared_ptr<Communicator> communicator() override { return nullptr; }
  std::vector<std::vector<double>> allgather(const std::vector<double>& mine) override { return {mine, mine}; }
  void check_same(const std::string& what, const std::string& mine) override {
    checked[what] = mine;
    if (what == refuse_) throw ConfigError("rank 1's " + what + " differs from rank 0's");
  }
  void barrier() override {}
  std::map<std::string, std::string> checked;

 private:
  std::string refuse_;
  WorkerEnv env_;
  std::vector<std::string> hosts_{"a", "b"};
};

std::shared_ptr<const Dataset> own_points(const std::string& hash) {
  DatasetInfo info;
  info.name = "table";
  info.input_shape = {2};
  info.num_classes = 2;
  info.file_count = 1;
  info.content_hash = hash;
  const auto y = torch::tensor({0, 1, 0, 1}, torch::kInt64);
  return std::make_shared<const Dataset>(info, torch::zeros({4, 2}), y, torch::zeros({2, 2}), y.slice(0, 0, 2));
}
}  // namespace

TEST(TrainerDataCheck, EveryWorkerComparesTheDataItLoadedWithRankZeros) {
  TrainConfig c = config_from_preset("spirals-mlp");
  c.batch_size = 4;
  c.devices.logical = 1;
  auto group = std::make_shared<RecordingGroup>("data");
  const std::string refused =
      mirror::testing::error_of<ConfigError>([&] { Trainer(c, own_points("3f2a9c"), group); });
  EXPECT_EQ(refused, "rank 1's data differs from rank 0's");
  ASSERT_EQ(group->checked.count("data"), 1u);
  const std::string& text = group->checked["data"];
  EXPECT_NE(text.find("content hash: 3f2a9c\n"), std::string::npos) << text;
  EXPECT_NE(text.find("files: 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("examples: 4 training, 2 validation\n"), std::string::npos) << text;
  // Another file's hash is another text, so rank 0's comparison tells them apart.
  auto other = std::make_shared<RecordingGroup>("data");
  mirror::testing::error_of<ConfigError>([&] { Trainer(c, own_points("9e8d7c"), other); });
  EXPECT_NE(other->checked["data"], text);
}
