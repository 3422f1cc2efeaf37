// The training step as one CUDA graph: which runs can be captured and why not (everywhere), and
// on a GPU the captured step against the eager one. GPU tests skip, saying why, without a GPU.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "mirror/data/batch.h"
#include "mirror/strategy/cuda_graphs.h"
#include "mirror/strategy/cuda_runtime.h"
#include "mirror/strategy/gpu.h"
#include "mirror/strategy/mirrored.h"
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mirror/train/config.h"
#include "mirror/util/error.h"
#include "test_fixtures.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::error_of;
using mirror::testing::small_text;
using mirror::testing::small_text_model;

namespace {
GraphFacts capturable() {
  GraphFacts f;
  f.built = true;
  f.on_gpu = true;
  f.physical_gpus = 1;
  f.processes = 1;
  return f;
}
}  // namespace

TEST(CudaGraphs, CapturesOneGpusReplicasInAutoAndOn) {
  for (const char* mode : {"auto", "on"}) {
    const GraphDecision d = decide_cuda_graphs(mode, capturable());
    EXPECT_TRUE(d.capture) << mode;
    EXPECT_NE(d.status.find("one CUDA graph"), std::string::npos) << d.status;
  }
  const GraphDecision off = decide_cuda_graphs("off", capturable());
  EXPECT_FALSE(off.capture);
  EXPECT_NE(off.status.find("off"), std::string::npos);
}

// Each thing that keeps a step out of a graph is named; auto runs eagerly and says so, on refuses.
TEST(CudaGraphs, NamesWhatKeepsAStepEagerAndOnRefusesIt) {
  struct Blocker {
    const char* what;
    void (*set)(GraphFacts&);
    const char* reason;
  };
  const Blocker blockers[] = {
      {"no CUDA graphs built", [](GraphFacts& f) { f.built = false; }, "needs a CUDA LibTorch"},
      {"CPU replicas", [](GraphFacts& f) { f.on_gpu = false; }, "replicas are on the CPU"},
      {"two processes", [](GraphFacts& f) { f.processes = 2; }, "spans 2 processes"},
      {"two GPUs", [](GraphFacts& f) { f.physical_gpus = 2; }, "on 2 physical GPUs"},
      {"--link", [](GraphFacts& f) { f.simulated_link = true; }, "--link"},
      {"clipnorm", [](GraphFacts& f) { f.clips_by_norm = true; }, "clipnorm"},
  };
  for (const Blocker& b : blockers) {
    GraphFacts f = capturable();
    b.set(f);
    EXPECT_NE(why_not_captured(f).find(b.reason), std::string::npos) << b.what << ": " << why_not_captured(f);
    const GraphDecision d = decide_cuda_graphs("auto", f);
    EXPECT_FALSE(d.capture) << b.what;
    if (f.on_gpu) EXPECT_EQ(d.status, "eager: " + why_not_captured(f)) << b.what;
    else EXPECT_EQ(d.status, "") << b.what;  // a CPU run has nothing to say about GPUs
    const std::string refused = error_of<ConfigError>([&] { decide_cuda_graphs("on", f); });
    EXPECT_NE(refused.find("--cuda-graphs on: cannot capture"), std::string::npos) << b.what << ": " << refused;
    EXPECT_NE(refused.find(b.reason), std::string::npos) << b.what << ": " << refused;
  }
  EXPECT_NE(error_of<ConfigError>([] { decide_cuda_graphs("maybe", capturable()); }).find("choose auto, on or off"),
            std::string::npos);
}

TEST(CudaGraphs, ARunOnTheCpuRunsEagerlyInAutoAndIsRefusedWithOn) {
  const auto data = small_text();
  const auto analysis = analyze(small_text_model(), input_spec(*data));
  const auto devices = resolve_devices(DeviceRequest{"cpu", 2, 0}, list_physical_devices());
  OptimizerConfig opt;
  MirroredOptions mo;
  MirroredStrategy eager(devices, analysis, opt, mo, /*seed=*/7);
  EXPECT_FALSE(eager.cuda_graphs_active());
  EXPECT_EQ(eager.cuda_graphs_status(), "");
  mo.cuda_graphs = "on";
  const std::string refused = error_of<ConfigError>([&] { MirroredStrategy(devices, analysis, opt, mo, 7); });
  EXPECT_NE(refused.find("--cuda-graphs on: cannot capture"), std::string::npos) << refused;
}

TEST(CudaGraphs, TheModeIsRecordedWithTheRunAndCheckedWhenRead) {
  TrainConfig c = config_from_preset("spirals-mlp");
  c.strategy.cuda_graphs = "off";
  EXPECT_EQ(config_from_json(to_json(c)).strategy.cuda_graphs, "off");
  auto j = to_json(c);
  j.erase("cuda_graphs");  // recorded before the option existed
  EXPECT_EQ(config_from_json(j).strategy.cuda_graphs, "auto");
  c.strategy.cuda_graphs = "sometimes";
  EXPECT_NE(error_of<ConfigError>([&] { c.validate(); }).find("invalid --cuda-graphs 'sometimes'"), std::string::npos);
}

namespace {
struct GraphRun {
  std::vector<double> losses;
  torch::Tensor params;
  std::string status;
  bool active = false;
};

// `steps` steps of 26 examples and, every 7th step, one of 9 (an epoch's smaller last batch: a
// second graph), on `logical` logical GPUs of cuda:0, with --cuda-graphs `mode`.
GraphRun run_on_gpu(int logical, const std::string& mode, const std::string& optimizer, int steps) {
  const auto data = small_text();
  const auto analysis = analyze(small_text_model(), input_spec(*data));
  OptimizerConfig opt;
  opt.name = optimizer;
  opt.learning_rate = 0.01;
  MirroredOptions mo;
  mo.communicator = "reduce-to-one";
  mo.deterministic = true;
  mo.sync_check_every = 10;
  mo.cuda_graphs = mode;
  MirroredStrategy s(resolve_devices(DeviceRequest{"cuda:0", logical, 0}, list_physical_devices()), analysis, opt,
                     mo, /*seed=*/7);
  GraphRun run;
  for (int step = 0; step < steps; ++step) {
    const int64_t batch = step % 7 == 6 ? 9 : 26;
    std::vector<int64_t> idx;
    for (int64_t i = 0; i < batch; ++i) idx.push_back((step * 26 + i * 7) % data->size(Split::kTrain));
    if (step == 100) s.set_learning_rate(0.003);  // a schedule's change reaches the replays
    run.losses.push_back(s.train_step(data->gather(Split::kTrain, idx)).sums.loss());
  }
  s.check_sync();
  run.params = s.replica_parameters(s.num_replicas() - 1).to(torch::kCPU).clone();
  run.status = s.cuda_graphs_status();
  run.active = s.cuda_graphs_active();
  return run;
}
}  // namespace

// The captured step follows the eager step: 200 steps on one replica and on two logical GPUs of
// one card, through two batch sizes and a change of rate.
TEST(CudaGraphs, TheCapturedStepFollowsTheEagerStep_CUDA) {
  if (!cuda_training_available()) GTEST_SKIP() << "no usable GPU: " << cuda_report().unavailable;
#ifndef MIRROR_HAVE_CUDA_GRAPHS
  GTEST_SKIP() << "this build has no CUDA graphs (configured without nvcc)";
#endif
  for (int logical : {1, 2})
    for (const char* optimizer : {"nadam", "sgd"}) {
      SCOPED_TRACE(fmt::format("{} logical GPU(s), {}", logical, optimizer));
      const GraphRun eager = run_on_gpu(logical, "off", optimizer, 200);
      const GraphRun graph = run_on_gpu(logical, "on", optimizer, 200);
      ASSERT_TRUE(graph.active) << graph.status;
      EXPECT_NE(graph.status.find("one CUDA graph"), std::string::npos) << graph.status;
      for (size_t s = 0; s < eager.losses.size(); ++s)
        ASSERT_NEAR(graph.losses[s], eager.losses[s], 1e-5 * std::max(1.0, std::abs(eager.losses[s]))) << "step " << s;
      EXPECT_LE((graph.params - eager.params).abs().max().item<double>(), 1e-5);
    }
}
