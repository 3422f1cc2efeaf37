// The capture-ready update (DeviceUpdate: the step's numbers in a buffer on the parameters'
// device, read by the fused update when it runs) against the optimizer's own step, on the CPU:
// the structure a captured CUDA graph replays must give what an eager run gives.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "mirror/optim/device_update.h"
#include "mirror/optim/optimizer.h"

using namespace mirror;

namespace {
struct Case {
  std::string label;
  OptimizerConfig config;
  // The eager CPU step runs the same fused pass (Adam, AdamW, Nadam): equal bits. SGD's and
  // RMSprop's eager CPU steps are LibTorch's operations, whose vector lanes round with fused
  // multiply-adds: equal to float rounding.
  bool same_bits_as_eager;
};

std::vector<Case> cases() {
  auto config = [](const std::string& name) {
    OptimizerConfig c;
    c.name = name;
    c.learning_rate = 0.01;
    return c;
  };
  std::vector<Case> all = {
      {"sgd", config("sgd"), false},
      {"sgd momentum", config("sgd").with_momentum(0.9), false},
      {"sgd nesterov", config("sgd").with_momentum(0.9).with_nesterov(true), false},
      {"adam", config("adam"), true},
      {"adamw", config("adamw"), true},
      {"rmsprop", config("rmsprop"), false},
      {"rmsprop momentum", config("rmsprop").with_momentum(0.5), false},
      {"nadam", config("nadam"), true},
  };
  Case low_beta{"adam beta1 0.3", config("adam"), true};  // LibTorch's lerp rounds the other way
  low_beta.config.beta1 = 0.3;
  all.push_back(low_beta);
  return all;
}

// The gradient of step `s`: the same for every path, of changing scale.
torch::Tensor gradient(int64_t n, int s) {
  auto g = torch::randn({n}, torch::TensorOptions().dtype(torch::kFloat32));
  return s % 3 == 0 ? g * 1e-4 : g;
}

double max_difference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}
}  // namespace

// 200 steps, a new learning rate at step 100 (a schedule) and a checkpoint taken and restored at
// step 150 (a resumed run), through three paths: the optimizer's step() (an eager CPU run), the
// fused update with the host's numbers (an eager GPU run), and DeviceUpdate, whose numbers the
// update reads from its device buffer (a captured step's replay).
TEST(DeviceUpdate, FollowsTheEagerUpdateThroughScheduleAndResume) {
  const int64_t n = 70001;  // several parallel spans and a ragged end
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.label);
    torch::manual_seed(11);
    const auto start = torch::randn({n});
    auto eager_p = start.clone(), host_p = start.clone(), device_p = start.clone();
    auto device_g = torch::zeros({n});  // the static gradient buffer a captured step reads
    auto eager = make_optimizer(c.config, eager_p);
    auto host = make_optimizer(c.config, host_p);
    auto device = make_optimizer(c.config, device_p);
    auto update = std::make_unique<DeviceUpdate>(*device, device_p, device_g);
    torch::manual_seed(12);
    for (int s = 1; s <= 200; ++s) {
      if (s == 100)
        for (Optimizer* o : {eager.get(), host.get(), device.get()}) o->set_learning_rate(0.003);
      if (s == 150) {
        // Checkpoint the capture-ready optimizer and resume into a new one with a new update.
        const auto saved = device->slots();
        std::vector<std::pair<std::string, torch::Tensor>> copies;
        for (const auto& [name, t] : saved) copies.emplace_back(name, t.clone());
        const int64_t iterations = device->iterations();
        auto resumed = make_optimizer(c.config, device_p);
        resumed->set_learning_rate(device->learning_rate());
        resumed->load_slots(copies, iterations);
        device = std::move(resumed);
        update = std::make_unique<DeviceUpdate>(*device, device_p, device_g);
      }
      const auto g = gradient(n, s);
      eager->step(eager_p, g);
      apply_update(host->next_update(), host_p, g, host->update_slots());
      device_g.copy_(g);
      update->prepare();
      update->enqueue();
    }
    EXPECT_EQ(device->iterations(), 200);
    EXPECT_EQ(eager->iterations(), 200);
    EXPECT_FALSE(torch::equal(device_p, start));
    // The device's numbers are the host's numbers: the same bits, every formula.
    EXPECT_TRUE(torch::equal(device_p, host_p)) << "max difference " << max_difference(device_p, host_p);
    const auto ds = device->slots(), hs = host->slots(), es = eager->slots();
    ASSERT_EQ(ds.size(), hs.size());
    for (size_t i = 0; i < ds.size(); ++i) EXPECT_TRUE(torch::equal(ds[i].second, hs[i].second)) << ds[i].first;
    if (c.same_bits_as_eager) {
      EXPECT_TRUE(torch::equal(device_p, eager_p)) << "max difference " << max_difference(device_p, eager_p);
    } else {
      EXPECT_LE(max_difference(device_p, eager_p), 1e-5);
      for (size_t i = 0; i < ds.size(); ++i) EXPECT_LE(max_difference(ds[i].second, es[i].second), 1e-5) << ds[i].first;
    }
  }
}

// A stale buffer would replay the first step's numbers for ever: the rate set between steps must
// reach the update through the device buffer alone.
TEST(DeviceUpdate, ReadsEachStepsNumbersFromItsBuffer) {
  OptimizerConfig c;
  c.name = "sgd";
  c.learning_rate = 0.5;
  auto p = torch::zeros({4});
  auto g = torch::ones({4});
  auto opt = make_optimizer(c, p);
  DeviceUpdate update(*opt, p, g);
  update.prepare();
  update.enqueue();
  EXPECT_TRUE(torch::allclose(p, torch::full({4}, -0.5f)));
  opt->set_learning_rate(0.25);
  update.prepare();
  EXPECT_FLOAT_EQ(update.device_values()[0].item<float>(), -0.5f);  // not copied before enqueue()
  update.enqueue();
  EXPECT_FLOAT_EQ(update.device_values()[0].item<float>(), -0.25f);
  EXPECT_TRUE(torch::allclose(p, torch::full({4}, -0.75f)));
}

TEST(DeviceUpdate, RefusesBuffersThatDoNotFit) {
  OptimizerConfig c;
  c.name = "adam";
  auto p = torch::zeros({8});
  auto opt = make_optimizer(c, p);
  EXPECT_THROW(DeviceUpdate(*opt, p, torch::zeros({7})), std::invalid_argument);
  DeviceUpdate before_prepare(*opt, p, torch::zeros({8}));
  EXPECT_THROW(before_prepare.enqueue(), std::logic_error);
  auto strided = torch::zeros({16}).slice(0, 0, 16, 2);
  auto other = make_optimizer(c, strided);
  DeviceUpdate on_strided(*other, strided, torch::zeros({8}));
  on_strided.prepare();
  EXPECT_THROW(on_strided.enqueue(), std::invalid_argument);
}
