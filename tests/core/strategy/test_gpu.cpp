// GPU replicas: the CUDA build's device list, equivalence of CPU, one GPU and logical GPUs, the
// memory limit, NCCL's refusal of logical GPUs, GPU gradients across processes. Tests that need
// a usable GPU skip with the reason when there is none; the rest run everywhere.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <thread>

#include "mirror/data/synthetic.h"
#include "mirror/model/presets.h"
#include "mirror/strategy/cuda_runtime.h"
#include "mirror/strategy/gpu.h"
#include "mirror/strategy/local_workers.h"
#include "mirror/strategy/mirrored.h"
#include "mirror/strategy/workers.h"
#include "mirror/train/trainer.h"
#include "mirror/util/error.h"
#include "test_fixtures.h"
#include "test_helpers.h"
#include "trajectory.h"

using namespace mirror;
using mirror::testing::small_text;
using mirror::testing::small_text_model;
using mirror::testing::relative;
using mirror::testing::Trajectory;
using mirror::testing::train_trajectory;
using mirror::testing::error_of;

namespace {
#define REQUIRE_GPU()                                                                                    \
  if (!cuda_training_available()) GTEST_SKIP() << "no usable GPU: " << cuda_report().unavailable; \
  static_assert(true)

Trajectory train(const DeviceRequest& request, const std::string& communicator, int steps) {
  OptimizerConfig opt;
  opt.name = "nadam";
  opt.learning_rate = 0.01;
  MirroredOptions mo;
  mo.communicator = communicator;
  mo.sync_check_every = 5;
  mo.deterministic = true;
  mo.cuda_graphs = "off";  // the eager step, timed phase by phase (test_cuda_graphs.cpp has the captured one)
  return train_trajectory(resolve_devices(request, list_physical_devices()), opt, mo, steps, 26);
}
}  // namespace

TEST(CudaReport, SaysWhyWhenNoGpuCanTrainAndListsUsableOnes) {
  const CudaReport& r = cuda_report();
  const auto devices = list_physical_devices();
  const auto gpus = std::count_if(devices.begin(), devices.end(), [](const PhysicalDevice& d) {
    return d.type == DeviceType::kCuda;
  });
  if (cuda_training_available()) {
    EXPECT_TRUE(r.unavailable.empty());
    EXPECT_EQ(gpus, static_cast<long>(r.gpus.size()));
    for (const auto& g : r.gpus) {
      EXPECT_FALSE(g.name.empty());
      EXPECT_GT(g.memory_mib, 0);
      EXPECT_GT(g.compute_major, 0);
    }
  } else {
    EXPECT_FALSE(r.unavailable.empty());
    EXPECT_EQ(gpus, 0);
    const std::string e = error_of<ConfigError>([&] { resolve_devices({"cuda", 1, 0}, devices); });
    EXPECT_NE(e.find(r.unavailable), std::string::npos) << e;
  }
}

TEST(CudaOutOfMemory, ReadsWhatTheAllocatorTriedToAllocate) {
  EXPECT_EQ(cuda_out_of_memory(std::runtime_error(
                "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 139.81 GiB")),
            "2.00 GiB");
  EXPECT_EQ(cuda_out_of_memory(std::runtime_error("CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 4 GiB)")),
            "20.00 MiB");
  EXPECT_EQ(cuda_out_of_memory(std::runtime_error("CUDA out of memory.")), "more memory");
  EXPECT_EQ(cuda_out_of_memory(std::runtime_error("DefaultCPUAllocator: not enough memory")), "");
}

TEST(GpuReplicas, OneGpuTwoLogicalGpusAndOneCpuReplicaFollowTheSameTrajectory) {
  REQUIRE_GPU();
  const Trajectory cpu = train({"cpu", 1, 0}, "auto", 20);
  const Trajectory gpu = train({"cuda:0", 1, 0}, "auto", 20);
  const Trajectory logical = train({"cuda:0", 2, 0}, "reduce-to-one", 20);
  for (size_t s = 0; s < cpu.losses.size(); ++s) {
    EXPECT_NEAR(gpu.losses[s], cpu.losses[s], 1e-4 * std::abs(cpu.losses[s])) << "1 GPU, step " << s;
    EXPECT_NEAR(logical.losses[s], cpu.losses[s], 1e-4 * std::abs(cpu.losses[s])) << "2 logical GPUs, step " << s;
  }
  EXPECT_LT(relative(gpu.params, cpu.params), 1e-4);
  EXPECT_LT(relative(logical.params, cpu.params), 1e-4);
  // Timed by CUDA events: every replica reports where its step went, and its card's memory.
  ASSERT_EQ(logical.last_timings.size(), 2u);
  for (const auto& t : logical.last_timings) {
    EXPECT_GT(t.compute_ms, 0);
    EXPECT_GT(t.allreduce_ms, 0);
    EXPECT_GT(t.update_ms, 0);
    EXPECT_GT(t.memory_mib, 0);
  }
}

TEST(GpuReplicas, AutoPicksReduceToOneForLogicalGpusAndNcclRefusesThem) {
  REQUIRE_GPU();
  const auto devices = resolve_devices({"cuda:0", 2, 0}, list_physical_devices());
  EXPECT_EQ(choose_communicator("auto", devices).name, "reduce-to-one");
  if (!CommunicatorRegistry::instance().find("nccl")->not_in_build.empty()) GTEST_SKIP() << "this build has no NCCL";
  const std::string e = error_of<ConfigError>([&] { choose_communicator("nccl", devices); });
  EXPECT_NE(e.find("NCCL needs one replica per physical GPU"), std::string::npos) << e;
  EXPECT_NE(e.find("2 replicas share cuda:0"), std::string::npos) << e;
}

TEST(GpuReplicas, AskingForNcclWithoutItSaysWhy) {
  const auto nccl = CommunicatorRegistry::instance().find("nccl");
  ASSERT_TRUE(nccl) << "the registry knows nccl in every build";
  if (nccl->not_in_build.empty()) GTEST_SKIP() << "this build has NCCL";
  const std::string e = error_of<ConfigError>([] { check_communicator_name("nccl"); });
  EXPECT_NE(e.find("this build has no nccl communicator: it " + nccl->not_in_build), std::string::npos) << e;
}

TEST(GpuReplicas, AReplicaOverItsMemoryLimitFailsNamingTheLogicalDeviceAndTheLimit) {
  REQUIRE_GPU();
  // 2 x 64 MiB on cuda:0, and a 256 MiB weight matrix: the first replica's copy cannot fit.
  ModelSpec m;
  LayerSpec wide;
  wide.kind = LayerKind::kDense;
  wide.units = 8192;
  LayerSpec out = wide;
  out.units = 2;
  m.layers = {wide, out};
  const auto analysis = analyze(m, InputSpec{{8192}, false, 0, 2});
  OptimizerConfig opt;
  opt.name = "sgd";
  opt.learning_rate = 0.1;
  const std::string e = error_of<RunError>([&] {
    MirroredStrategy s(resolve_devices({"cuda:0", 2, 64}, list_physical_devices()), analysis, opt, MirroredOptions{}, 1);
  });
  EXPECT_NE(e.find("logical device cuda:0/logical:0 ran out of memory"), std::string::npos) << e;
  EXPECT_NE(e.find("its limit is 64 MiB"), std::string::npos) << e;
  // The cap goes with the run: a later run without a limit has the whole card again.
  const Trajectory after = train({"cuda:0", 1, 0}, "auto", 2);
  EXPECT_EQ(after.losses.size(), 2u);
}

// Two processes' exchange of GPU gradients, as two ranks on threads: over c10d's NCCL when each
// has a GPU of its own (two GPUs), else through the host over Gloo (both on cuda:0). Either way
// every rank holds the same sum, and the reason names the backend.
TEST(GpuReplicas, ProcessesSumGpuGradientsOverNcclWithAGpuEachElseOverGlooThroughTheHost) {
  REQUIRE_GPU();
  if (!c10d_available()) GTEST_SKIP() << "this build has no c10d";
  const int gpus = static_cast<int>(cuda_report().gpus.size());
  LocalRendezvous where;
  std::string why[2], errors[2];
  torch::Tensor sums[2];
  std::thread ranks[2];
  for (int r = 0; r < 2; ++r)
    ranks[r] = std::thread([&, r] {
      try {
        auto group = WorkerGroup::connect(local_worker_env(r, 2, where, "test"), std::chrono::seconds(60));
        const int gpu = gpus >= 2 ? r : 0;
        auto comm = group->communicator_for(gpu, &why[r]);
        std::vector<torch::Tensor> t = {
            torch::arange(1000, torch::TensorOptions().dtype(torch::kFloat32).device(torch::kCUDA, gpu)) * (r + 1)};
        comm->allreduce_sum(r, t)->wait();
        sums[r] = t[0].cpu();
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
    });
  for (auto& t : ranks) t.join();
  const auto expected = torch::arange(1000, torch::kFloat32) * 3;
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(errors[r], "") << "rank " << r;
    EXPECT_TRUE(torch::equal(sums[r], expected)) << "rank " << r;
    if (gpus >= 2 && c10d_nccl_built())
      EXPECT_EQ(why[r], "c10d's NCCL");
    else
      EXPECT_NE(why[r].find("c10d's Gloo through the host"), std::string::npos) << why[r];
  }
}
