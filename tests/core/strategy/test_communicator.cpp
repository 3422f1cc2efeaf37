#include <gtest/gtest.h>
#include <torch/torch.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "mirror/strategy/communicator.h"
#include "mirror/strategy/cuda_runtime.h"
#include "mirror/util/error.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::error_of;  // not through another file of a unity batch

namespace {
// Runs one all-reduce on `world` threads; rank r contributes tensors filled from (r + 1).
std::unique_ptr<Communicator> make(const std::string& name, int world, int64_t bucket_bytes = 4096) {
  return make_communicator(name, CommunicatorSpec{world, bucket_bytes, {}});
}

std::vector<std::vector<torch::Tensor>> reduce_on_threads(const std::string& name, int world,
                                                          const std::vector<int64_t>& sizes, int64_t bucket_bytes) {
  auto comm = make(name, world, bucket_bytes);
  std::vector<std::vector<torch::Tensor>> data(static_cast<size_t>(world));
  for (int r = 0; r < world; ++r)
    for (int64_t n : sizes) data[r].push_back(torch::arange(n, torch::kFloat32) * static_cast<float>(r + 1) + 0.25f * static_cast<float>(r));
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r)
    threads.emplace_back([&, r] { comm->allreduce_sum(r, data[r])->wait(); });
  for (auto& t : threads) t.join();
  return data;
}
}  // namespace

class AllReduce : public ::testing::TestWithParam<std::string> {};

TEST_P(AllReduce, EveryRankGetsTheSameSumForAnyWorldAndTensorSize) {
  for (int world : {2, 3, 4, 5}) {
    // Sizes below, at and above the world size; a 4 KiB bucket forces many buckets.
    const std::vector<int64_t> sizes = {1, 3, 4097, 10000};
    const auto data = reduce_on_threads(GetParam(), world, sizes, 4096);
    const float scale = static_cast<float>(world * (world + 1) / 2);
    const float offset = 0.25f * static_cast<float>(world * (world - 1) / 2);
    for (size_t i = 0; i < sizes.size(); ++i) {
      auto expected = torch::arange(sizes[i], torch::kFloat32) * scale + offset;
      for (int r = 0; r < world; ++r) {
        EXPECT_TRUE(torch::allclose(data[r][i], expected, 1e-6, 1e-4)) << "world " << world << " rank " << r;
        EXPECT_TRUE(torch::equal(data[r][i], data[0][i])) << "ranks must be bit-identical";
      }
    }
  }
}

TEST_P(AllReduce, RepeatedCollectivesStayInStep) {
  const int world = 3;
  auto comm = make(GetParam(), world);
  std::vector<torch::Tensor> buffers;
  for (int r = 0; r < world; ++r) buffers.push_back(torch::zeros({5000}));
  // Each thread records the first wrong sum it sees; the test's thread reports them (a failure
  // thrown inside a std::thread would abort the whole binary instead of failing this test).
  std::vector<std::string> wrong(static_cast<size_t>(world));
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r)
    threads.emplace_back([&, r] {
      std::vector<torch::Tensor> list = {buffers[r]};
      for (int round = 0; round < 50 && wrong[r].empty(); ++round) {
        list[0].fill_(static_cast<float>(r + round));
        comm->allreduce_sum(r, list)->wait();
        // sum over ranks of (r + round) = 3 round + 3
        const float got = list[0][4999].item<float>();
        if (got != static_cast<float>(3 * round + 3))
          wrong[r] = "rank " + std::to_string(r) + " round " + std::to_string(round) + ": " + std::to_string(got);
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& w : wrong) EXPECT_TRUE(w.empty()) << w;
  EXPECT_FLOAT_EQ(buffers[1][0].item<float>(), 3 * 49 + 3);
}

namespace {
// The scheduler's state of thread `tid` of this process ('S': asleep, waiting; 'R': running).
char thread_state(pid_t tid) {
  std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto end_of_name = line.rfind(')');
  return end_of_name == std::string::npos || end_of_name + 2 >= line.size() ? '?' : line[end_of_name + 2];
}
}  // namespace

TEST_P(AllReduce, AbortWakesRanksWaitingForAPeerThatNeverCame) {
  auto comm = make(GetParam(), 3);
  std::vector<std::vector<torch::Tensor>> data(3, std::vector<torch::Tensor>{torch::ones({10})});
  std::atomic<int> returned{0}, aborted{0};
  std::atomic<pid_t> tids[2] = {0, 0};
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)  // rank 2 never arrives
    threads.emplace_back([&, r] {
      tids[r] = static_cast<pid_t>(syscall(SYS_gettid));
      try {
        comm->allreduce_sum(r, data[r]);
      } catch (const CollectiveAborted&) {
        ++aborted;
      }
      ++returned;
    });
  // Both ranks are in the collective, asleep: they wait for rank 2, which never comes. (A rank
  // merely late to enter would be running, not asleep; one that gave up would have returned.)
  const auto asleep = [&] {
    for (const auto& tid : tids)
      if (tid.load() == 0 || thread_state(tid.load()) != 'S') return false;
    return true;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!asleep() && returned.load() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const bool waited = asleep() && returned.load() == 0;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // and they stay there
  const int left = returned.load();
  comm->abort("replica 2 failed");
  for (auto& t : threads) t.join();
  EXPECT_TRUE(waited) << "the ranks never waited in the all-reduce";
  EXPECT_EQ(left, 0) << "a rank left the all-reduce without its peer";
  EXPECT_EQ(aborted.load(), 2);  // woken by the abort, each with CollectiveAborted
  EXPECT_THROW(comm->allreduce_sum(0, data[0]), CollectiveAborted);
  comm->reset();
  const auto fresh = reduce_on_threads(GetParam(), 3, {10}, 4096);
  EXPECT_FLOAT_EQ(fresh[2][0][1].item<float>(), 6.75f);  // 1 * (1 + 2 + 3) + 0.25 * (0 + 1 + 2)
}

TEST_P(AllReduce, MismatchedTensorsAreAnError) {
  auto comm = make(GetParam(), 2);
  std::vector<torch::Tensor> a = {torch::ones({10})}, b = {torch::ones({11})};
  std::atomic<int> errors{0};
  auto call = [&](int r, std::vector<torch::Tensor>& t) {
    try {
      comm->allreduce_sum(r, t);
    } catch (const RunError&) {
      ++errors;
      comm->abort("mismatch");
    }
  };
  std::thread t0([&] { call(0, a); }), t1([&] { call(1, b); });
  t0.join();
  t1.join();
  EXPECT_GE(errors.load(), 1);
}

INSTANTIATE_TEST_SUITE_P(Communicators, AllReduce,
                         mirror::testing::multi_replica_communicators(), mirror::testing::communicator_test_name);

TEST(AllReduceSingle, OneReplicaNeedsNoCommunication) {
  auto comm = make("none", 1);
  std::vector<torch::Tensor> t = {torch::ones({4})};
  comm->allreduce_sum(0, t)->wait();
  EXPECT_FLOAT_EQ(t[0][0].item<float>(), 1.0f);
  EXPECT_THROW(make("none", 2), ConfigError);
}

TEST(CommunicatorRegistry, KnowsEveryBackendAndSaysWhyThisBuildLacksOne) {
  auto& registry = CommunicatorRegistry::instance();
  std::vector<std::string> names;
  for (const auto& b : registry.backends()) names.push_back(b.name);
  EXPECT_EQ(names, (std::vector<std::string>{"none", "reduce-to-one", "shared-memory", "nccl"}));
  const auto nccl = registry.find("nccl");
  ASSERT_TRUE(nccl);
#ifndef MIRROR_HAVE_CUDA_TORCH
  EXPECT_EQ(nccl->not_in_build.rfind("needs a CUDA LibTorch", 0), 0u) << nccl->not_in_build;
#endif
  if (nccl->not_in_build.empty()) GTEST_SKIP() << "this build has NCCL";
  // Listed with its reason, never available, never chosen, and asking for it says why.
  const auto cpus = resolve_devices({"cpu", 2, 0}, list_physical_devices());
  EXPECT_EQ(nccl->unavailable(cpus), "not in this build: " + nccl->not_in_build);
  const std::vector<LogicalDevice> gpus = {LogicalDevice{PhysicalDevice{DeviceType::kCuda, 0, "cuda:0", "GPU", 0, 0}, 0, 1},
                                           LogicalDevice{PhysicalDevice{DeviceType::kCuda, 1, "cuda:1", "GPU", 0, 0}, 0, 1}};
  EXPECT_EQ(nccl->unavailable(gpus), "not in this build: " + nccl->not_in_build);
  EXPECT_EQ(registry.available_multi_replica(gpus), (std::vector<std::string>{"reduce-to-one"}));
  const std::string asked = error_of<ConfigError>([] { check_communicator_name("nccl"); });
  EXPECT_NE(asked.find("this build has no nccl communicator: it " + nccl->not_in_build), std::string::npos) << asked;
  EXPECT_NE(asked.find("choose auto, none, reduce-to-one, shared-memory"), std::string::npos) << asked;
  EXPECT_THROW(choose_communicator("nccl", gpus), ConfigError);
  EXPECT_THROW(make_communicator("nccl", CommunicatorSpec{2, 4096, gpus}), ConfigError);
  const std::string unknown = error_of<ConfigError>([] { check_communicator_name("mpi"); });
  EXPECT_NE(unknown.find("(choose auto, none, reduce-to-one, shared-memory)"), std::string::npos) << unknown;
}

TEST(CommunicatorRegistry, ListsTheBuiltInsWithAvailabilityAndAcceptsNewBackends) {
  auto& registry = CommunicatorRegistry::instance();
  const auto names = registry.available_multi_replica({});
  EXPECT_EQ(names, (std::vector<std::string>{"reduce-to-one", "shared-memory"}));
  const std::vector<LogicalDevice> gpus = {LogicalDevice{PhysicalDevice{DeviceType::kCuda, 0, "cuda:0", "GPU", 0, 0}, 0, 1},
                                           LogicalDevice{PhysicalDevice{DeviceType::kCuda, 1, "cuda:1", "GPU", 0, 0}, 0, 1}};
  EXPECT_EQ(registry.find("shared-memory")->unavailable(gpus), "needs CPU replicas; use reduce-to-one for GPUs");
  // NCCL joins where this build has it and the machine has both GPUs.
  std::vector<std::string> on_gpus = {"reduce-to-one"};
  if (registry.find("nccl")->not_in_build.empty() && cuda_report().usable() && cuda_report().gpus.size() >= 2)
    on_gpus.push_back("nccl");
  EXPECT_EQ(registry.available_multi_replica(gpus), on_gpus);
  // A backend that registers with a higher rank is what `auto` picks, and tests see it.
  registry.add({"test-best", "sums like reduce-to-one", [](const std::vector<LogicalDevice>&) { return std::string(); },
                100, "test-best: the best there is",
                [](const CommunicatorSpec& s) { return make_communicator("reduce-to-one", s); }, ""});
  struct Unregister {  // even when an assertion below throws, later tests see the built-ins only
    ~Unregister() { CommunicatorRegistry::instance().remove("test-best"); }
  } unregister;
  const auto cpus = resolve_devices({"cpu", 2, 0}, list_physical_devices());
  EXPECT_EQ(choose_communicator("auto", cpus).name, "test-best");
  EXPECT_THROW(registry.add({"test-best", "", [](const std::vector<LogicalDevice>&) { return std::string(); }, 0, "",
                             [](const CommunicatorSpec& s) { return make_communicator("none", s); }, ""}),
               std::invalid_argument);
  registry.remove("test-best");
  EXPECT_EQ(choose_communicator("auto", cpus).name, "shared-memory");
  EXPECT_THROW(make_communicator("test-best", CommunicatorSpec{2, 4096, {}}), ConfigError);
}
