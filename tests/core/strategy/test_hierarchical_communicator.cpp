// Reducing inside a process, then across processes: the seam multi-worker training builds on.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <thread>

#include "mirror/strategy/hierarchical_communicator.h"

using namespace mirror;

TEST(HierarchicalCommunicator, TwoProcessesOfTwoReplicasSumOverAllFour) {
  // Two "processes" of two replica threads each: in-process shared memory, then a cross-process
  // stage (here an in-process reduce-to-one between the two local rank 0s, as c10d would be).
  std::shared_ptr<Communicator> cross = make_communicator("reduce-to-one", CommunicatorSpec{2, 4096, {}});
  std::vector<std::unique_ptr<HierarchicalCommunicator>> procs;
  for (int p = 0; p < 2; ++p)
    procs.push_back(std::make_unique<HierarchicalCommunicator>(
        make_communicator("shared-memory", CommunicatorSpec{2, 4096, {}}), cross, p));
  EXPECT_EQ(procs[0]->name(), "shared-memory+reduce-to-one");
  std::vector<std::vector<torch::Tensor>> data;
  for (int g = 0; g < 4; ++g) data.push_back({torch::arange(5000, torch::kFloat32) * static_cast<float>(g + 1)});
  std::vector<std::string> errors(4);
  std::vector<std::thread> threads;
  for (int g = 0; g < 4; ++g)
    threads.emplace_back([&, g] {
      try {
        for (int round = 0; round < 3; ++round) {
          if (round > 0) data[g][0].copy_(torch::arange(5000, torch::kFloat32) * static_cast<float>(g + 1));
          procs[static_cast<size_t>(g / 2)]->allreduce_sum(g % 2, data[g])->wait();
        }
      } catch (const std::exception& e) {
        errors[g] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& e : errors) EXPECT_TRUE(e.empty()) << e;
  const auto expected = torch::arange(5000, torch::kFloat32) * 10.0f;  // 1 + 2 + 3 + 4
  for (int g = 0; g < 4; ++g) {
    EXPECT_TRUE(torch::allclose(data[g][0], expected)) << "replica " << g;
    EXPECT_TRUE(torch::equal(data[g][0], data[0][0])) << "replica " << g << " must be bit-identical";
  }
}
